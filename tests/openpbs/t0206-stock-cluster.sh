#!/bin/bash
# SPDX-License-Identifier: MIT
# t0206-stock-cluster.sh: a real OpenPBS set up as CycleCloud's stock PBS
# server leaves it (initialize_pbs.sh, initialize_default_queues.sh, its
# sched_config), every VM running the stock execute setup: install-hook keeps
# the site's placement settings and validate passes; a two-node job in workq
# (ungrouped=false, scatter:excl by queue default) gets its VMs in one
# placement group, an htcq job (ungrouped=true) VMs outside any, InfiniBand
# ones included; each VM's vnode is made while it boots and put online in the
# first pass after CycleCloud says Ready (a placement group's after its last
# member is; measured); the jobs run to completion; then everything is given
# back.  Passes are run by hand, one a second, so that they can be counted.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/ccsim.sh"
. "$(dirname "$0")/../lib/openpbs.sh"
openpbs_prereqs

pg_of () {  # the placement group ccsim put VM $1 in, or "none"
    ccsim_get /ccsim/state | jq -r --arg n "$1" '.nodes[] | select(.Name == $n) | .PlacementGroupId // "none"'
}

hosts_of () {  # the hosts job $1 ran on, sorted, one a line
    job_json "$1" | jq -r ".Jobs[].exec_vnode" | tr "+" "\n" | sed "s/^(//; s/:.*//" | sort -u
}

online () {  # PBS node $1 exists and is not offline
    pbs_nodes_json | jq -e --arg n "$1" '.nodes[$n] // empty | .state | test("offline") | not' >/dev/null
}

# Passes one a second until job $1 is done (or $2 s): before each, which VMs
# CycleCloud says are Ready; after it, which vnodes are online.  Per VM,
# "NAME READY ONLINE" (pass numbers) lands in timing.out, and the seconds
# from the job's qsub to its VMs' vnodes online in qsub-online.out.
passes_timed () {
    local id=$1 limit=$2 t0 start pass=0 vm before
    t0=$(cat "qsub.$id") start=$(date +%s) before=" $(vms) "
    : >ready.seen && : >online.seen
    until jobs_done "$id"; do
        [ $(($(date +%s) - start)) -lt "$limit" ] || { echo "job $id not done after ${limit}s" >&2; return 1; }
        pass=$((pass + 1))
        for vm in $(ccsim_get /ccsim/state | jq -r '.nodes[] | select(.Status == "Ready") | .Name'); do
            case $before in *" $vm "*) continue ;; esac # not this job's
            grep -q "^$vm " ready.seen || echo "$vm $pass" >>ready.seen
        done
        pbs_pass >/dev/null 2>&1 || true
        for vm in $(vms); do
            if ! grep -q "^$vm " online.seen && online "$vm"; then
                echo "$vm $pass $(date +%s.%N)" >>online.seen
            fi
        done
        sleep 1
    done
    # join(1) wants both inputs sorted on the name; the .seen files are in
    # the order VMs went Ready or online, which need not be by name.
    sort -o ready.seen ready.seen && sort -o online.seen online.seen &&
    join ready.seen online.seen >timing.out
    awk -v t0="$t0" '{ printf "%s %.1f\n", $1, $4 - t0 }' timing.out >qsub-online.out
    cp timing.out "timing.$id" && cp qsub-online.out "qsub-online.$id"
    sed 's/^/# timing (VM, pass it was first seen Ready before, pass after which it was online): /' timing.out >&2
    sed 's/^/# seconds from qsub to online: /' qsub-online.out >&2
}

# Every VM online in the first pass after it was Ready; with "whole", after
# the last of the job's VMs was (a placement group goes online only whole).
within_one_pass () {
    test -s timing.out && awk -v whole="${1:-}" '
        NR == FNR { if ($2 > last) last = $2; next }
        { ready = whole ? last : $2
          if ($3 > ready) { print $1 ": Ready before pass " ready ", online after pass " $3; bad = 1 } }
        END { exit bad }' timing.out timing.out >&2
}

qsub_timed () {  # qsub ARGS..., the job id printed and its submission time kept
    local id
    id=$(qsub_as "$@") && date +%s.%N >"qsub.$id" && echo "$id"
}

test_expect_success 'setup: OpenPBS as the stock server spec leaves it; install-hook keeps its placement settings' '
    openpbs_start ".idle_timeout = 20" && openpbs_stock_server &&
    install_hook &&
    grep "kept the site.s placement settings: node_group_enable = True, node_group_key = group_id, do_not_span_psets = True, only_explicit_psets = True" install.out &&
    in_pbs qmgr -c "list sched" | grep -x "    only_explicit_psets = True" &&
    ccas pbs validate >validate.out && cat validate.out &&
    test_equal "$(grep -c "^FAIL" validate.out)" 0 "validate failures" &&
    grep "^warn  placement  *only_explicit_psets is True" validate.out &&
    hook_enable false
'

test_expect_success 'a two-node workq job: its VMs in one placement group, online in the first pass after both are Ready; it runs' '
    wq=$(qsub_timed -l select=2:ncpus=1 -- /bin/sleep 2) &&
    job_json "$wq" | jq -e ".Jobs[] | .Resource_List.ungrouped == false and .Resource_List.place == \"scatter:excl\"" &&
    passes_timed "$wq" 180 &&
    test_equal "$(job_exit "$wq")" 0 "exit status" &&
    test_equal "$(vms)" "execute-1 execute-2" "VMs" &&
    pg=$(pg_of execute-1) && test "$pg" != none && test_equal "$(pg_of execute-2)" "$pg" "placement group" &&
    test_equal "$(hosts_of "$wq" | tr "\n" " ")" "execute-1 execute-2 " "hosts" &&
    test_equal "$(pbs_nodes_json | jq -r "[.nodes[\"execute-1\"], .nodes[\"execute-2\"] | .resources_available.group_id] | unique | join(\" \")")" \
        "$pg" "group_id in PBS" &&
    grep "execute-1: joined (booting: CycleCloud reports its hostname and address)" "$TEST_TMP/ccautoscale.log" &&
    test_equal "$(cut -d" " -f1 timing.out | tr "\n" " ")" "execute-1 execute-2 " "VMs timed" &&
    within_one_pass whole
'

test_expect_success 'a two-node htcq job on InfiniBand VMs: outside any placement group (ungrouped=true); it runs' '
    ccsim_delete /ccsim/requests >/dev/null &&
    hq=$(qsub_timed -q htcq -l select=2:ncpus=2:slot_type=hpc -- /bin/sleep 2) &&
    passes_timed "$hq" 180 &&
    test_equal "$(job_exit "$hq")" 0 "exit status" &&
    test_equal "$(ccsim_made | sort | tr "\n" " ")" "hpc-1 hpc-2 " "VMs made" &&
    test_equal "$(pg_of hpc-1) $(pg_of hpc-2)" "none none" "placement groups" &&
    test_equal "$(pbs_nodes_json | jq -r "[.nodes[\"hpc-1\"], .nodes[\"hpc-2\"] | .resources_available | \"\(.group_id)/\(.ungrouped)\"] | unique | join(\" \")")" \
        "_none_/true" "group_id and ungrouped in PBS" &&
    test_equal "$(cut -d" " -f1 timing.out | tr "\n" " ")" "hpc-1 hpc-2 " "VMs timed" &&
    within_one_pass
'

# the figures, for the record: per VM, the pass before which CycleCloud said
# Ready and the pass after which its vnode was online, then the seconds from
# its job's qsub to that
for f in "$TEST_TMP"/timing.* "$TEST_TMP"/qsub-online.*; do
    case $f in *.out) continue ;; esac # the last job's, a copy
    [ -f "$f" ] && sed "s|^|# ${f##*/}: |" "$f"
done

test_expect_success 'pbs nodes shows the VMs, their vnodes and what ccautoscale makes of them' '
    ccas pbs nodes >nodes.out && cat nodes.out &&
    grep "^hpc-1  *hpc-1  *Ready  *free  *0  *hpc  *-  *cyclecloud restored  *idle$" nodes.out &&
    grep "^-  *vm  *-  *offline .* not CycleCloud.s$" nodes.out
'

test_expect_success 'idle VMs are drained, deleted from PBS and terminated; nothing is left' '
    passes_until 300 no_vms_left &&
    test_equal "$(moms_running)" "" "moms still running"
'

test_done
