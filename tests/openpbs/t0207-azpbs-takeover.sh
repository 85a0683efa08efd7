#!/bin/bash
# SPDX-License-Identifier: MIT
# t0207-azpbs-takeover.sh: a cluster azpbs ran, taken over on a real OpenPBS.
# The server as CycleCloud's stock server spec leaves it, azpbs in cron and
# as the periodic hook 'autoscale', its autoscale.json and node history;
# three VMs azpbs had: one joined and online ('cyclecloud restored'), one
# whose setup offlined it ('cyclecloud offline') before azpbs put it back,
# one azpbs kept out of PBS (remove_nodes --permanent).  Then, as the README
# says: import-azpbs, install-hook (azpbs off, ccautoscale on), and
# ccautoscale's hook runs the cluster: jobs run on azpbs's nodes without a
# new VM, the offlined one is put online, the kept-out one never joins, and
# the idle ones are drained with ccautoscale's comment and given back.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/ccsim.sh"
. "$(dirname "$0")/../lib/openpbs.sh"
openpbs_prereqs
command -v sqlite3 >/dev/null || test_skip_all "sqlite3 is needed to write azpbs's node history"

node () {  # state and comment of PBS node $1, tab-separated
    pbs_nodes_json | jq -r --arg n "$1" '.nodes[$n] // empty | [.state, .comment // "-"] | @tsv'
}

node_is () {  # PBS node $1 is in state $2, with comment $3 when given
    local got tab=$'\t'
    got=$(node "$1") && [ "${got%%"$tab"*}" = "$2" ] && { [ $# -lt 3 ] || [ "${got#*"$tab"}" = "$3" ]; }
}

vms_are () {  # ccsim's VMs are those named (vms: sorted, one line)
    test "$(vms)" = "$*"
}

vm_field () {  # VM $1's field $2 in ccsim
    ccsim_get /ccsim/state | jq -r --arg n "$1" --arg f "$2" '.nodes[] | select(.Name == $n) | .[$f]'
}

# azpbs's join of VM $1 (driver.py's add_nodes_to_cluster): create node, its
# resources one qmgr a resource, ccnodeid last, online with 'cyclecloud joined'
azpbs_join () {
    local n=$1 r
    # (its driver's initialize(): ccnodeid is no resource of the stock server's)
    in_pbs qmgr -c "list resource ccnodeid" >/dev/null 2>&1 ||
        in_pbs qmgr -c "create resource ccnodeid type=string, flag=h" || return 1
    in_pbs qmgr -c "create node $n" || return 1
    for r in ncpus=2 ngpus=0 disk=20971520kb slot_type=execute group_id=_none_ mem=4194304kb \
        vm_size=Standard_F2s_v2 ungrouped=true nodearray=execute; do
        in_pbs qmgr -c "set node $n resources_available.$r" || return 1
    done
    in_pbs qmgr -c "set node $n resources_available.ccnodeid=$(vm_field "$n" NodeId)" &&
        in_pbs pbsnodes -r "$n" -C "cyclecloud joined"
}

test_expect_success 'setup: the stock server, azpbs in cron and as its periodic hook, its autoscale.json' '
    openpbs_start ".idle_timeout = 600" && openpbs_stock_server &&
    printf "import pbs\npbs.event().accept()\n" >"$TEST_TMP/azpbs_hook.py" &&
    in_pbs qmgr -c "create hook autoscale" &&
    in_pbs qmgr -c "import hook autoscale application/x-python default $TEST_TMP/azpbs_hook.py" &&
    in_pbs qmgr -c "set hook autoscale event = periodic" && in_pbs qmgr -c "set hook autoscale freq = 15" &&
    echo "* * * * * root /opt/cycle/jetpack/system/bootstrap/cron_wrapper.sh /opt/cycle/pbspro/venv/bin/azpbs autoscale --config /opt/cycle/pbspro/autoscale.json" \
        >"$TEST_TMP/azpbs_autoscale" &&
    jq --arg url "$(jq -r .url "$CCAS_CONF")" --arg c "$(jq -r .cluster_name "$CCAS_CONF")" \
        --arg u "$(jq -r .username "$CCAS_CONF")" --arg p "$(jq -r .password "$CCAS_CONF")" \
        ".url = \$url | .cluster_name = \$c | .username = \$u | .password = \$p | .pbspro.ignore_queues = []" \
        "$top_srcdir/tests/data/pbs/azpbs-autoscale.json" >azpbs.json && chmod 600 azpbs.json
'

test_expect_success 'setup: VMs azpbs had: joined and online, offlined by its setup, kept out of PBS' '
    for i in 1 2 3; do
        ccsim_post /ccsim/nodes "{\"Name\": \"execute-$i\", \"Template\": \"execute\", \"MachineType\": \"Standard_F2s_v2\"}" >/dev/null || return 1
    done &&
    wait_for 120 vms_ready_are 3 &&
    for i in 1 2 3; do
        "$OPENPBS" mom-start "execute-$i" "execute-$i" "$(vm_field "execute-$i" PrivateIp)" >>"$OPENPBS_VM_LOG" 2>&1 || return 1
    done &&
    azpbs_join execute-1 && azpbs_join execute-2 &&
    in_pbs pbsnodes -o execute-1 -C "cyclecloud offline" && in_pbs pbsnodes -r execute-1 -C "cyclecloud restored" &&
    in_pbs pbsnodes -o execute-2 -C "cyclecloud offline" &&
    sqlite3 "$TEST_TMP/nodehistory.db" "CREATE TABLE nodes (node_id TEXT, hostname TEXT, instance_id TEXT, create_time REAL, last_match_time REAL, ready_time REAL, delete_time REAL, ignore BOOL);
        INSERT INTO nodes VALUES ('"'"'$(vm_field execute-3 NodeId)'"'"', '"'"'execute-3'"'"', NULL, 0, 0, 0, NULL, 1);" &&
    pbs_wait 20 node_is execute-1 free &&
    test_equal "$(node execute-2 | cut -f2)" "cyclecloud offline" "execute-2"
'

test_expect_success 'moving from azpbs: import-azpbs, then install-hook turns azpbs off and ccautoscale on' '
    ccas pbs import-azpbs azpbs.json -o imported.json >import.out && cat import.out &&
    jq --slurpfile h "$CCAS_CONF" ". + {state_dir: \$h[0].state_dir, lock_file: \$h[0].lock_file, logging: \$h[0].logging,
        pbs: (.pbs + \$h[0].pbs), idle_timeout: 600}" imported.json >conf.json && chmod 600 conf.json &&
    cp conf.json "$CCAS_CONF" &&
    install_hook --azpbs-cron "$TEST_TMP/azpbs_autoscale" --azpbs-history "$TEST_TMP/nodehistory.db" &&
    cat install.out &&
    in_pbs qmgr -c "list hook autoscale" | grep -x "    enabled = false" &&
    in_pbs qmgr -c "list hook ccautoscale" | grep -x "    enabled = true" &&
    test ! -e "$TEST_TMP/azpbs_autoscale" &&
    grep "^1 VM azpbs kept out of PBS" install.out && grep "^azpbs is off (its periodic hook .autoscale. and its cron file" install.out &&
    ccas pbs validate
'

test_expect_success 'the hook adopts azpbs'"'"'s nodes: the offlined one put online, jobs run there, no VM made; the kept-out VM never joins' '
    ccsim_delete /ccsim/requests >/dev/null &&
    pbs_wait 30 node_is execute-2 free "cyclecloud restored" &&
    : >ids && for i in 1 2; do qsub_as -q htcq -l select=1:ncpus=2 -- /bin/sleep 2 >>ids || return 1; done &&
    wait_jobs_done 120 $(cat ids) &&
    for id in $(cat ids); do test_equal "$(job_exit "$id")" 0 "exit status of $id" || return 1; done &&
    test_equal "$(ccsim_made | wc -l)" 0 "VMs made" &&
    test_equal "$(node execute-3)" "" "execute-3 in PBS" &&
    ccas pbs nodes | grep "^execute-3 .*kept out"
'

test_expect_success 'azpbs'"'"'s nodes, idle, are drained with ccautoscale'"'"'s comment, deleted and terminated; the kept-out VM stays' '
    jq ".idle_timeout = 10" "$CCAS_CONF" >conf.json && cp conf.json "$CCAS_CONF" &&
    wait_for 120 grep -q "execute-1: drained (idle for" "$TEST_TMP/ccautoscale.log" &&
    pbs_wait 60 vms_are execute-3 &&
    test_equal "$(our_nodes)" "" "PBS nodes" &&
    ccas terminate --name execute-3 >/dev/null && wait_no_vms 30
'

test_done
