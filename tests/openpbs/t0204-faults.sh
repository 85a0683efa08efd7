#!/bin/bash
# SPDX-License-Identifier: MIT
# t0204-faults.sh: faults on a real OpenPBS server — a VM whose mom never
# reports (counted as booting capacity, then replaced after boot_timeout:
# never the whole demand made again), one whose name the server cannot
# resolve (its create waits, its stock setup fails, CycleCloud marks it
# Failed, it is replaced), the pass killed with SIGKILL before its creates, a
# VM that fails after it joined, pbs_server restarted during a pass, and
# CycleCloud out of capacity.
# Passes are run by hand (the hook is off).
# What a test looks at is held while it looks: boot_timeout is 10 minutes
# (1 s only for the passes that are to replace a VM), idle_timeout an hour
# (0 only to give every VM back), the capacity window an hour (ended by the
# test).
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/ccsim.sh"
. "$(dirname "$0")/../lib/openpbs.sh"
openpbs_prereqs

ready () {  # ccsim's VM $1 is Ready (its stock setup ran)
    vm_ready "$1"
}

vm_status () {
    ccsim_get /ccsim/state | jq -e --arg n "$1" --arg s "$2" '.nodes[] | select(.Name == $n) | .Status == $s' >/dev/null
}

vm_preparing () {  # booting, its hostname and address reported: its setup runs
    vm_status "$1" Preparing
}

vm_failed () {
    vm_status "$1" Failed
}

pbs_node () {  # one node's state, comment and marker, tab-separated
    pbs_nodes_json | jq -r --arg n "$1" '.nodes[$n] // {} | [.state // "-", .comment // "-", .resources_available.ccnodeid // "-"] | @tsv'
}

# passes, with boot_timeout 1 s, until the log says a VM was replaced for the
# reason $1; then 10 minutes again, so that its replacement may boot
replaced_for () {
    ccsim_config_update "$CCAS_CONF" ".boot_timeout = 1" &&
    passes_until 120 grep -q "Ready but not serving PBS for .*$1" "$TEST_TMP/ccautoscale.log" &&
    ccsim_config_update "$CCAS_CONF" ".boot_timeout = 600"
}

# every VM given back: passes with idle_timeout 0 until none is left, then an
# hour again
no_vms_after_idle () {
    ccsim_config_update "$CCAS_CONF" ".idle_timeout = 0" &&
    passes_until 120 no_vms_left &&
    ccsim_config_update "$CCAS_CONF" ".idle_timeout = 3600"
}

sched_log () {
    cat "$OPENPBS_STATE"/home/sched_logs/* 2>/dev/null
}

# a scheduling cycle started after the first $1 of the log, and none runs now
cycle_after () {
    local started
    started=$(sched_log | grep -c "Starting Scheduling Cycle")
    [ "$started" -gt "$1" ] && [ "$(sched_log | grep -c "Leaving Scheduling Cycle")" -ge "$started" ]
}

# a whole scheduling cycle of pbs_sched, from now: PBS's chance to run
# whatever it can (setting scheduling starts one)
sched_cycle () {
    local started
    started=$(sched_log | grep -c "Starting Scheduling Cycle")
    in_pbs qmgr -c "set server scheduling = True" &&
    pbs_wait 60 cycle_after "$started"
}

test_expect_success 'setup: OpenPBS, ccsim, install-hook; boot_timeout 10 minutes; the hook off (passes by hand)' '
    openpbs_start ".boot_timeout = 600 | .capacity_failure_backoff = 3600" && install_hook && hook_enable false &&
    in_pbs qmgr -c "set server node_fail_requeue = 5"
'

test_expect_success 'a VM whose mom never reports counts as booting capacity: no VM made again for its job' '
    touch "$OPENPBS_VM_FAULTS/nomom-execute-1" &&
    j1=$(qsub_as -l select=1:ncpus=1 -- /bin/sleep 1) &&
    passes_until 300 ready execute-1 && rm "$OPENPBS_VM_FAULTS/nomom-execute-1" &&
    pbs_pass && pbs_node execute-1 | grep "^state-unknown,down" &&
    for i in 1 2 3 4; do pbs_pass || return 1; sleep 2; done &&
    test_equal "$(ccsim_made | wc -l)" 1 "VMs made while its mom has not reported (was: the whole demand each pass)" &&
    test_equal "$(job_state "$j1")" Q "the job waits"
'

test_expect_success 'after boot_timeout it is deleted from PBS and replaced; the job runs on the new VM' '
    replaced_for "its pbs_mom has not reported" &&
    passes_until 300 jobs_done "$j1" &&
    test_equal "$(job_exit "$j1")" 0 "exit status" &&
    test_equal "$(ccsim_made | wc -l)" 2 "VMs made: the stuck one and its replacement" &&
    no_vms_after_idle
'

# (hpc-1: a name no earlier VM had, so not yet in the server's hosts file)
test_expect_success 'a VM whose name never resolves on the server: its create waits, its setup fails (Failed); replaced' '
    ccsim_delete /ccsim/requests >/dev/null &&
    touch "$OPENPBS_VM_FAULTS/nodns-hpc-1" &&
    j2=$(qsub_as -l select=1:ncpus=1:slot_type=hpc -- /bin/sleep 1) &&
    pbs_pass && wait_for 120 vm_preparing hpc-1 &&
    pbs_pass && grep "hpc-1: not created yet: waiting: the PBS server cannot resolve its name yet" "$TEST_TMP/ccautoscale.log" &&
    jq -e ".pbs.join[] | select(.node == \"hpc-1\") | .outcome == \"planned\"" pass.out &&
    test_equal "$(ccsim_made | wc -l)" 1 "VMs made while its setup waits" &&
    wait_for 120 vm_failed hpc-1 &&
    ccsim_get /ccsim/state | jq -r ".nodes[] | select(.Name == \"hpc-1\") | .StatusMessage" | grep "cluster-init exited 2" &&
    grep "ERROR: hpc-1: Command failed after 10 attempts" "$OPENPBS_VM_LOG" &&
    rm "$OPENPBS_VM_FAULTS/nodns-hpc-1" &&
    passes_until 300 jobs_done "$j2" &&
    test_equal "$(job_exit "$j2")" 0 "exit status" &&
    test_equal "$(ccsim_made | wc -l)" 2 "VMs made: the one whose setup failed and its replacement" &&
    no_vms_after_idle
'

test_expect_success 'the pass killed with SIGKILL before its creates: no vnode, the setup waits; the next pass creates it whole' '
    ccsim_delete /ccsim/requests >/dev/null &&
    j3=$(qsub_as -l select=1:ncpus=1 -- /bin/sleep 1) &&
    pbs_pass && n=$(vms) && wait_for 120 vm_preparing "$n" &&
    test_expect_code 137 env CCAUTOSCALE_FAILPOINT=pbs:before-joins "$OPENPBS" run "$CCAS" pbs autoscale &&
    test_equal "$(our_nodes)" "" "PBS nodes after the kill" &&
    pbs_pass && test_equal "$(pbs_node "$n" | cut -f3)" "$(ccsim_get /ccsim/state | jq -r ".nodes[0].NodeId")" "the marker" &&
    sleep 3 && test_equal "$(job_state "$j3")" Q "the job (PBS never used a node not put online)" &&
    passes_until 300 jobs_done "$j3" && test_equal "$(job_exit "$j3")" 0 "exit status" &&
    test_equal "$(ccsim_made | wc -l)" 1 "VMs made"
'

# The job runs until the test lets it end (a file it waits for): on the VM
# that fails, then, requeued, on its replacement.
runs_elsewhere () {  # runs_elsewhere JOB NODE: the job runs, not on NODE
    job_is "$1" R && [ "$(job_json "$1" | jq -r ".Jobs[].exec_host" | cut -d/ -f1)" != "$2" ]
}

test_expect_success 'a VM that fails after it joined: its job is requeued, the node deleted, the VM replaced; the job completes' '
    ccsim_delete /ccsim/requests >/dev/null &&
    n=$(vms) && j4=$(qsub_as -l select=1:ncpus=2 -- /bin/sh -c "while [ ! -e $OPENPBS_WORK/go-j4 ]; do sleep 1; done") &&
    passes_until 120 job_is "$j4" R &&
    ccsim_post "/ccsim/nodes/$n/fail" >/dev/null &&
    passes_until 120 grep -q "pbs: $n: deleted from PBS (failed" "$TEST_TMP/ccautoscale.log" &&
    passes_until 300 runs_elsewhere "$j4" "$n" &&
    touch "$OPENPBS_WORK/go-j4" &&
    passes_until 120 jobs_done "$j4" &&
    test_equal "$(job_exit "$j4")" 0 "exit status" &&
    test "$(job_json "$j4" | jq -r ".Jobs[].exec_host" | cut -d/ -f1)" != "$n" &&
    test_equal "$(ccsim_made | wc -l)" 1 "VMs made: one replacement" &&
    ccsim_acted_once terminate "$n"
'

# A two-node job: the idle VM left from above and one new.  The pass is
# held in its create while pbs_server restarts, and gets its answer once the
# new server answers; right after, every node reads state-unknown,down with a
# last_state_change_time from before, and the idle VM must still count as
# capacity (it did not: each such pass made the whole demand again).
test_expect_success 'pbs_server restarted during a pass: the pass ends; nodes reading down after the restart are not made again' '
    ccsim_delete /ccsim/requests >/dev/null &&
    test_equal "$(vms | wc -w)" 1 "VMs before" &&
    j6=$(qsub_as -l select=2:ncpus=2 -l place=scatter -- /bin/sleep 2) &&
    ccsim_hold_answer "/nodes/create" "$OPENPBS" run "$CCAS" pbs autoscale &&
    server=$(cat "$OPENPBS_STATE/home/server_priv/server.lock") && test -n "$server" &&
    in_pbs qterm -t quick && pbs_wait 60 pid_gone "$server" &&
    in_pbs "$OPENPBS_PREFIX/sbin/pbs_server" >/dev/null 2>&1 &&
    pbs_wait 60 in_pbs qstat -B &&
    ccsim_release &&
    { wait "$held_pid"; echo "the held pass exited $?"; cat held.out; true; } &&
    pbs_nodes_json | jq -r "[.nodes[] | .state] | join(\" \")" &&
    pbs_pass && pbs_pass &&
    test_equal "$(ccsim_made | wc -l)" 1 "VMs made (one, for the job'"'"'s second node)" &&
    passes_until 300 jobs_done "$j6" &&
    test_equal "$(job_exit "$j6")" 0 "exit status"
'

test_expect_success 'CycleCloud out of capacity: both buckets held, the job stays queued with a comment naming the cause' '
    no_vms_after_idle && ccsim_delete /ccsim/requests >/dev/null &&
    ccsim_fault "{\"kind\": \"capacity\", \"machine_type\": \"Standard_F2s_v2\", \"count\": -1}" &&
    ccsim_fault "{\"kind\": \"capacity\", \"machine_type\": \"Standard_D2s_v5\", \"count\": -1}" &&
    in_pbs qmgr -c "set server scheduling = False" &&
    j7=$(qsub_as -l select=1:ncpus=1:slot_type=execute -- /bin/sleep 1) &&
    test_expect_code 4 pbs_pass &&
    jq -e ".\"execute/Standard_F2s_v2\".class == \"capacity\" and .\"execute/Standard_D2s_v5\".class == \"capacity\"" "$TEST_TMP/state/holds.json" &&
    test_equal "$(job_state "$j7")" Q "state" &&
    job_json "$j7" | jq -r ".Jobs[].comment" | grep "^ccautoscale: .*capacity" &&
    in_pbs qmgr -c "set server scheduling = True" &&
    ccsim_delete /ccsim/faults >/dev/null && ccsim_holds_end &&
    passes_until 300 jobs_done "$j7" && test_equal "$(job_exit "$j7")" 0 "exit status after the window ended"
'

test_done
