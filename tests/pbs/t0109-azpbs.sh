#!/bin/bash
# SPDX-License-Identifier: MIT
# t0109-azpbs.sh: moving a CycleCloud stock PBS cluster from azpbs, against
# ccsim and the fake PBS — azpbs's autoscale.json refused as it is (with what
# to run), imported (each key said; unknown keys named, nothing else lost;
# an existing file kept unless --force, then as .bak); install-hook refusing
# while azpbs runs with --azpbs refuse, else turning its hook and cron off
# once ccautoscale's hook is in place, keeping the site's placement settings,
# importing azpbs's ignore list (nodehistory.db, read with sqlite3); then the
# nodes azpbs joined adopted: online ones used and drained as ccautoscale's,
# one its setup offlined put online, the kept-out VM never joined.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/ccsim.sh"
. "$(dirname "$0")/../lib/pbs.sh"
command -v python3 >/dev/null || test_skip_all "python3 is needed by the fake PBS"
command -v sqlite3 >/dev/null || test_skip_all "sqlite3 is needed to write azpbs's node history"
HOOK=$top_srcdir/pbs_hook/ccautoscale_hook.py

node () {  # state and comment of PBS node $1, tab-separated
    fakepbs state | jq -r --arg n "$1" '.nodes[$n] // empty | [.state, .comment // "-"] | @tsv'
}

vm_id () {
    ccsim_get /ccsim/state | jq -r --arg n "$1" '.nodes[] | select(.Name == $n) | .NodeId'
}

test_expect_success 'setup: ccsim, the fake PBS as CycleCloud'"'"'s stock server left it; azpbs'"'"'s file for this cluster' '
    pbs_start && : >"$FAKEPBS_STATE" &&
    for r in slot_type instance_id vm_size nodearray group_id ungrouped ccnodeid; do
        fakepbs qmgr "create resource $r type=string, flag=h" || return 1
    done &&
    fakepbs qmgr "create resource disk type=size, flag=nh" "create resource ngpus type=long, flag=nh" \
        "set server node_group_enable = true" "set server node_group_key = group_id" \
        "set sched only_explicit_psets = True" "set sched do_not_span_psets = True" \
        "create hook autoscale" "set hook autoscale event = periodic" "set hook autoscale freq = 15" &&
    mkdir -p "$TEST_TMP/pbshome/sched_priv" && PBS_HOME=$TEST_TMP/pbshome && export PBS_HOME &&
    echo "resources: \"ncpus, mem, arch, host, vnode, aoe, slot_type, group_id, ungrouped, disk, ngpus, nodearray, vm_size\"" \
        >"$PBS_HOME/sched_priv/sched_config" &&
    for s in 0 15 30 45; do
        echo "* * * * * root sleep $s && /opt/cycle/jetpack/system/bootstrap/cron_wrapper.sh /opt/cycle/pbspro/venv/bin/azpbs autoscale --config /opt/cycle/pbspro/autoscale.json"
    done >"$TEST_TMP/azpbs_autoscale" &&
    jq --arg url "$(jq -r .url "$CCAS_CONF")" --arg c "$(jq -r .cluster_name "$CCAS_CONF")" \
        --arg u "$(jq -r .username "$CCAS_CONF")" --arg p "$(jq -r .password "$CCAS_CONF")" \
        ".url = \$url | .cluster_name = \$c | .username = \$u | .password = \$p | .verify_certificates = false
         | .pbspro.ignore_queues = []" "$top_srcdir/tests/data/pbs/azpbs-autoscale.json" >azpbs.json &&
    chmod 600 azpbs.json
'

test_expect_success 'azpbs'"'"'s file as it is: refused, saying to import it' '
    test_expect_code 2 "$CCAS" -c azpbs.json pbs demand 2>err &&
    grep "azpbs.json: lock_file\|azpbs.json: logging.config_file\|azpbs.json: pbspro" err &&
    grep "this is azpbs.s autoscale.json: .ccautoscale pbs import-azpbs azpbs.json. writes ccautoscale.s from it" err
'

test_expect_success 'pbs import-azpbs: written 0600, each key said; an existing file kept unless --force' '
    "$CCAS" pbs import-azpbs azpbs.json -o imported.json >import.out &&
    test "$(stat -c %a imported.json)" = 600 &&
    grep "^dropped  lock_file: " import.out && grep "^dropped  logging.config_file: " import.out &&
    grep "^carried  verify_certificates: false" import.out &&
    grep "^changed  pbs.node_resources: \[\"ncpus\",\"ngpus\",\"disk\",\"slot_type\",\"mem\"\]" import.out &&
    grep "^wrote imported.json (mode 0600) from azpbs.json" import.out &&
    jq -e ".pbs.node_resources == [\"ncpus\",\"ngpus\",\"disk\",\"slot_type\",\"mem\"] and .idle_timeout == 300" imported.json &&
    test_expect_code 2 "$CCAS" pbs import-azpbs azpbs.json -o imported.json 2>err &&
    grep "imported.json exists: --force replaces it" err &&
    "$CCAS" pbs import-azpbs azpbs.json -o imported.json --force >/dev/null &&
    cmp imported.json imported.json.bak && test "$(stat -c %a imported.json.bak)" = 600
'

test_expect_success 'pbs import-azpbs of a file with unknown keys: each named, the rest carried, nothing lost' '
    jq ". + {sched_mode: \"fast\", pbspro: (.pbspro + {ignore_everything: true})}" azpbs.json >odd.json &&
    "$CCAS" pbs import-azpbs odd.json -o odd-imported.json --json >odd.out &&
    jq -e "[.keys[] | select(.what == \"unknown\") | .key] == [\"pbspro.ignore_everything\", \"sched_mode\"]" odd.out &&
    jq -e ".written" odd.out &&
    jq -e "del(.password) == (input | del(.password))" odd-imported.json imported.json
'

test_expect_success 'the imported file runs a pass against this cluster' '
    jq ".state_dir = \"$TEST_TMP/state\" | .lock_file = \"$TEST_TMP/lock\" | .pbs.bin_dir = \"$TEST_TMP/pbsbin\"
        | .logging = {file: \"$TEST_TMP/ccautoscale.log\", level: \"debug\", syslog: false}" imported.json >conf.json &&
    chmod 600 conf.json && cp conf.json "$CCAS_CONF" &&
    "$CCAS" pbs demand >/dev/null
'

# azpbs's node history: the VM it kept out (remove_nodes --permanent), and one it did not
test_expect_success 'setup: VMs azpbs joined (one online, one its setup offlined), one it kept out' '
    for i in 1 2 3; do
        ccsim_post /ccsim/nodes "{\"Name\": \"execute-$i\", \"Template\": \"execute\", \"MachineType\": \"Standard_F2s_v2\"}" >/dev/null || return 1
    done && ccsim_wait_ready 20 &&
    fakepbs qmgr "create node execute-1" "set node execute-1 resources_available.ncpus = 2, resources_available.slot_type = execute, resources_available.group_id = _none_, resources_available.ungrouped = true, resources_available.ccnodeid = $(vm_id execute-1), comment = \"cyclecloud restored\"" \
        "create node execute-2 state = offline, comment = \"cyclecloud offline\", resources_available.ncpus = 2, resources_available.ccnodeid = $(vm_id execute-2)" &&
    sqlite3 "$TEST_TMP/nodehistory.db" "CREATE TABLE nodes (node_id TEXT, hostname TEXT, instance_id TEXT, create_time REAL, last_match_time REAL, ready_time REAL, delete_time REAL, ignore BOOL);
        INSERT INTO nodes VALUES ('"'"'$(vm_id execute-3)'"'"', '"'"'execute-3'"'"', NULL, 0, 0, 0, NULL, 1);
        INSERT INTO nodes VALUES ('"'"'$(vm_id execute-2)'"'"', '"'"'execute-2'"'"', NULL, 0, 0, 0, NULL, 0);"
'

install_hook () {
    "$CCAS" pbs install-hook --hook-file "$HOOK" --azpbs-cron "$TEST_TMP/azpbs_autoscale" \
        --azpbs-history "$TEST_TMP/nodehistory.db" "$@"
}

test_expect_success 'install-hook --azpbs refuse while azpbs runs: fails, says how, changes nothing' '
    fakepbs state | jq -S "del(.calls, .invocations)" >before.json &&
    test_expect_code 5 install_hook --azpbs refuse 2>err &&
    grep "azpbs still runs from its periodic hook .autoscale. and its cron file $TEST_TMP/azpbs_autoscale; nothing changed" err &&
    grep "set hook autoscale enabled = false" err &&
    fakepbs state | jq -S "del(.calls, .invocations)" | diff before.json - &&
    test -f "$TEST_TMP/azpbs_autoscale"
'

test_expect_success 'install-hook when azpbs'"'"'s cron file cannot be moved: fails, and azpbs runs as before (its hook on again)' '
    mkdir -p "$TEST_TMP/state" && : >"$TEST_TMP/state/azpbs" &&
    test_expect_code 5 install_hook >out 2>err &&
    cat out err &&
    grep "cannot move $TEST_TMP/azpbs_autoscale" err && grep "azpbs was left as it was" err &&
    fakepbs state >st.json &&
    test_equal "$(jq -r ".hooks.autoscale.enabled" st.json)" true "azpbs hook" &&
    test_equal "$(jq -r ".hooks.ccautoscale.enabled // false" st.json)" false "ccautoscale hook" &&
    test -f "$TEST_TMP/azpbs_autoscale" &&
    # (the next case takes over from here: the kept-out list it imported goes too)
    rm "$TEST_TMP/state/azpbs" "$TEST_TMP/state/pbs_removed.json"
'

test_expect_success 'install-hook: azpbs off once ccautoscale'"'"'s hook is in place, the site'"'"'s settings kept, its ignore list imported' '
    install_hook >out 2>err &&
    cat out err &&
    fakepbs state >st.json &&
    test_equal "$(jq -r ".hooks.autoscale.enabled" st.json)" false "azpbs hook" &&
    test_equal "$(jq -r ".hooks.ccautoscale.enabled" st.json)" true "ccautoscale hook" &&
    test ! -e "$TEST_TMP/azpbs_autoscale" && grep "azpbs autoscale" "$TEST_TMP/state/azpbs/azpbs_autoscale" &&
    jq -r ".calls[] | join(\" \")" st.json | grep -n "hook" >hookcalls &&
    test "$(grep -n "set hook autoscale enabled = false" hookcalls | tail -1 | cut -d: -f1)" -lt \
        "$(grep -n "set hook ccautoscale enabled = true" hookcalls | cut -d: -f1)" &&
    grep "^kept the site.s placement settings: node_group_enable = true, node_group_key = group_id, do_not_span_psets = True, only_explicit_psets = True" out &&
    grep "warning: only_explicit_psets = True" err &&
    test_equal "$(jq -r ".sched.only_explicit_psets" st.json)" True "only_explicit_psets kept" &&
    grep "^1 VM azpbs kept out of PBS (remove_nodes --permanent) stay out" out &&
    state_entries "$TEST_TMP/state/pbs_removed.json" | jq -e "keys == [\"$(vm_id execute-3)\"] and ([.[].by] | unique) == [\"azpbs\"]" &&
    grep "azpbs is off.*To go back: qmgr -c .set hook ccautoscale enabled = false.; qmgr -c .set hook autoscale enabled = true." out
'

test_expect_success 'install-hook again: nothing to turn off, nothing imported twice' '
    install_hook >out 2>err &&
    test_no_grep "azpbs is off" out && test_no_grep "kept out of PBS" out &&
    state_entries "$TEST_TMP/state/pbs_removed.json" | jq -e "length == 1"
'

test_expect_success 'the nodes azpbs joined are ccautoscale'"'"'s: one its setup offlined put online, the kept-out VM never joined' '
    pbs_pass &&
    jq -e "[.pbs.online[].node] == [\"execute-2\"] and (.pbs.join | length) == 0" pass.out &&
    test_equal "$(node execute-1)" "free	cyclecloud restored" "execute-1 (left as it was)" &&
    test_equal "$(node execute-2)" "free	cyclecloud restored" "execute-2" &&
    test_equal "$(node execute-3)" "" "execute-3 (kept out)" &&
    pbs_pass && test_equal "$(node execute-3)" "" "execute-3 after another pass"
'

test_expect_success 'azpbs'"'"'s nodes, idle, are drained with ccautoscale'"'"'s comment, then deleted and terminated' '
    jq ".idle_timeout = 1" "$CCAS_CONF" >c.tmp && cat c.tmp >"$CCAS_CONF" && sleep 2 &&
    pbs_pass && jq -e "[.pbs.drain[].node] | sort == [\"execute-1\", \"execute-2\"]" pass.out &&
    node execute-1 | grep "^offline	ccautoscale: draining: idle for" &&
    pbs_pass && test_equal "$(node execute-1)" "" "execute-1 after the next pass" &&
    ccsim_acted terminate | sort | tr "\n" " " | grep "execute-1 execute-2" &&
    test_equal "$(ccsim_get /ccsim/state | jq -r "[.nodes[] | select(.Status == \"Ready\") | .Name] | join(\" \")")" \
        execute-3 "the kept-out VM (never terminated by a pass)"
'

test_done
