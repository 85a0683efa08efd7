#!/bin/bash
# SPDX-License-Identifier: MIT
# t0201-install-hook.sh: `ccautoscale pbs install-hook` on a fresh, real
# OpenPBS server: the site resources, the periodic hook (run by pbs_server with
# its real `pbs` module), node grouping and placement sets; run twice, the
# second run changes nothing; a node the site had keeps running jobs.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/ccsim.sh"
. "$(dirname "$0")/../lib/openpbs.sh"
openpbs_prereqs

# what install-hook leaves in PBS: resources, the hook, server and scheduler settings
pbs_settings () {
    {
        for r in slot_type group_id ungrouped vm_size nodearray ccnodeid instance_id ngpus disk; do
            in_pbs qmgr -c "list resource $r"
        done
        in_pbs qmgr -c "list hook ccautoscale"
        in_pbs qmgr -c "list server" | grep -E "node_group|scheduler_iteration"
        in_pbs qmgr -c "list sched" | grep -E "psets"
    } 2>&1
}

test_expect_success 'setup: a fresh OpenPBS server, ccsim inside its namespace' '
    openpbs_start &&
    in_pbs qstat -B -f -F json | jq -e ".Server[].server_state == \"Active\""
'

test_expect_success 'install-hook --dry-run prints the qmgr commands and changes nothing' '
    ccas pbs install-hook --dry-run --hook-file "$top_srcdir/pbs_hook/ccautoscale_hook.py" >dry.out &&
    grep "^qmgr -c .create resource ccnodeid type=string, flag=h.$" dry.out &&
    grep "^qmgr -c .set hook ccautoscale freq = 5.$" dry.out &&
    test_expect_code 1 in_pbs qmgr -c "list resource ccnodeid" &&
    test_expect_code 1 in_pbs qmgr -c "list hook ccautoscale"
'

test_expect_success 'install-hook: the resources, the periodic hook, node grouping and placement sets' '
    install_hook &&
    pbs_settings >settings.1 &&
    for r in slot_type group_id ungrouped vm_size nodearray ccnodeid instance_id; do
        in_pbs qmgr -c "list resource $r" | grep -q "type = string" || { echo "resource $r"; return 1; }
    done &&
    in_pbs qmgr -c "list resource ngpus" | grep "type = long" && in_pbs qmgr -c "list resource ngpus" | grep "flag = hn" &&
    in_pbs qmgr -c "list resource disk" | grep "type = size" &&
    in_pbs qmgr -c "list hook ccautoscale" >hook.out &&
    grep -x "    event = periodic" hook.out && grep -x "    freq = 5" hook.out && grep -x "    alarm = 80" hook.out &&
    grep -x "    enabled = true" hook.out &&
    in_pbs qmgr -c "list server" >server.out &&
    grep -x "    node_group_enable = True" server.out && grep -x "    node_group_key = group_id" server.out &&
    in_pbs qmgr -c "list sched" >sched.out &&
    grep -x "    do_not_span_psets = True" sched.out && grep -x "    only_explicit_psets = False" sched.out
'

test_expect_success 'install-hook named the sched_config resources: line to write; pbs_sched took it' '
    grep "the scheduler ignores slot_type, group_id, ungrouped, disk, ngpus, nodearray, vm_size in a job.s select" install.err &&
    grep -x "resources: \"ncpus, mem, arch, host, vnode, aoe, eoe, slot_type, group_id, ungrouped, disk, ngpus, nodearray, vm_size\"" \
        "$OPENPBS_STATE/home/sched_priv/sched_config"
'

test_expect_success 'install-hook again: idempotent (the same settings, exit 0, no warning)' '
    install_hook && test_no_grep warning install.err &&
    pbs_settings >settings.2 &&
    diff settings.1 settings.2
'

test_expect_success 'the hook runs inside pbs_server (its real pbs module) and runs a pass every freq seconds' '
    wait_for 120 grep -q "pbs: 0 queued jobs" "$TEST_TMP/ccautoscale.log" &&
    grep -c "pbs: 0 queued jobs" "$TEST_TMP/ccautoscale.log" >passes &&
    wait_for 120 sh -c "test \$(grep -c \"pbs: 0 queued jobs\" \"$TEST_TMP/ccautoscale.log\") -gt $(cat passes)"
'

test_expect_success 'a node the site had, without group_id, still runs jobs after install-hook' '
    in_pbs qmgr -c "set node vm state -= offline" &&
    id=$(qsub_as -l select=1:ncpus=1 -- /bin/true) &&
    wait_jobs_done 120 "$id" &&
    test_equal "$(job_exit "$id")" 0 "exit status" &&
    job_json "$id" | jq -e ".Jobs[].exec_vnode == \"(vm:ncpus=1)\"" &&
    in_pbs qmgr -c "set node vm state += offline"
'

test_done
