#!/bin/bash
# SPDX-License-Identifier: MIT
# t0322-admin.sh: the administrator's commands azslurm has and ccautoscale had
# not — wait-for-resume (up, failed, timed out: exit 0, 4, 9), accounting-info
# (the stock keys in the stock order, [] without a VM), retry-failed (a
# Failed VM kept by slurm.failed_vms keep is retried in CycleCloud and its
# node comes back up) and remove-nodes (powered down with the VM terminated,
# or kept and the node drained until the VM is gone; a busy node refused).
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/ccsim.sh"
. "$(dirname "$0")/../lib/slurm.sh"
why=$(slurm_prereqs) || test_skip_all "$why"
CCAS=$top_builddir/plugin/ccautoscale
export CCSIM_BOOT_DELAY=2 SLURM_SUSPEND_TIME=600

vm_status () {
    ccsim_get /ccsim/state | jq -r --arg n "$1" '[.nodes[] | select(.Name == $n) | .Status] | join(" ")'
}

vm_is () {
    test "$(vm_status "$1")" = "$2"
}

test_expect_success 'start Slurm; Failed VMs are kept (slurm.failed_vms keep)' '
    slurm_start "$top_srcdir/tests/slurm/cluster.json" ".slurm.failed_vms = \"keep\""
' || slurm_dump

test_expect_success 'accounting-info prints [] for a node without a VM' '
    "$CCAS" -c "$CCAS_CONF" slurm accounting-info --node-name htc-1 >acct.out &&
    test_equal "$(cat acct.out)" "[]"
'

test_expect_success 'wait-for-resume returns 0 once the node is up; accounting-info has the stock keys in order' '
    scontrol update nodename=htc-1 state=power_up &&
    "$CCAS" -c "$CCAS_CONF" slurm wait-for-resume htc-1 --interval 1 --timeout 120 >wait.out &&
    test_equal "$(cat wait.out)" "htc-1 up" &&
    slurm_node_is htc-1 idle &&
    "$CCAS" -c "$CCAS_CONF" slurm accounting-info --node-name htc-1 >acct.out && cat acct.out &&
    test_equal "$(wc -l <acct.out)" 1 "lines" &&
    jq -e -c "[.[0] | keys_unsorted[]] == [\"name\", \"location\", \"vm_size\", \"spot\", \"nodearray\", \"cpus\",
        \"pcpu_count\", \"vcpu_count\", \"gpu_count\", \"memgb\"]" acct.out &&
    jq -e ".[0] | .name == \"htc-1\" and .location == \"westeurope\" and .vm_size == \"Standard_F2s_v2\" and
        .spot == false and .nodearray == \"htc\" and .cpus == 2 and .pcpu_count == 1 and .vcpu_count == 2 and
        .gpu_count == 0 and .memgb == 4" acct.out &&
    test_grep "\"memgb\": 4.0}]" acct.out
' || slurm_dump

test_expect_success 'wait-for-resume: a node never asked to power up times out (9); bad input is refused (1)' '
    test_expect_code 9 "$CCAS" -c "$CCAS_CONF" slurm wait-for-resume htc-5 --interval 1 --timeout 2 >wait.out &&
    test_equal "$(cat wait.out)" "htc-5 waiting (timed out)" &&
    test_expect_code 1 "$CCAS" -c "$CCAS_CONF" slurm wait-for-resume nosuch-1 2>err &&
    test_grep "nosuch-1. is not a Slurm node" err &&
    test_expect_code 1 "$CCAS" -c "$CCAS_CONF" slurm wait-for-resume htc-1 --timeout soon 2>err &&
    test_grep "^ccautoscale: --timeout: .soon. is not a number of seconds" err &&
    test_expect_code 1 "$CCAS" -c "$CCAS_CONF" slurm wait-for-resume 2>err &&
    test_grep "name the nodes to wait for" err
' || slurm_dump

test_expect_success 'wait-for-resume returns 4 for a node whose VM fails, with the reason' '
    ccsim_fault "{\"kind\": \"boot_failure\", \"mode\": \"failed\", \"nodearray\": \"htc\", \"count\": 1}" &&
    scontrol update nodename=htc-2 state=power_up &&
    test_expect_code 4 "$CCAS" -c "$CCAS_CONF" slurm wait-for-resume --node-list htc-2 --interval 1 --timeout 120 \
        --json >wait.json && cat wait.json &&
    jq -e ".nodes[0].result == \"failed\" and (.nodes[0].reason | test(\"Failed in CycleCloud|ccautoscale: \"))" wait.json
' || slurm_dump

test_expect_success 'sync keeps the Failed VM (failed_vms keep): its node handed back, then drained with the reason' '
    slurm_sync && jq -e ".failed_kept == 1 and .failed_released == 0" sync.json &&
    wait_for 30 sh -c "sinfo -h -N -n htc-2 -o %t | grep -q \"~\"" &&
    slurm_sync && jq -e ".failed_kept == 1" sync.json &&
    wait_for 10 slurm_node_is htc-2 "drain~" &&
    slurm_node_reason htc-2 | grep -q "^ccautoscale: kept: the VM failed" &&
    vm_is htc-2 Failed
' || slurm_dump

test_expect_success 'retry-failed retries the VM in CycleCloud and brings its node up' '
    "$CCAS" -c "$CCAS_CONF" slurm retry-failed --dry-run >dry.out && cat dry.out &&
    test_grep "would power up htc-2" dry.out && vm_is htc-2 Failed &&
    ccsim_delete /ccsim/requests >/dev/null &&
    "$CCAS" -c "$CCAS_CONF" slurm retry-failed --json >retry.json && cat retry.json &&
    jq -e ".retried == \"htc-2\" and .returned == \"htc-2\" and .powered_up == \"htc-2\"" retry.json &&
    test_equal "$(ccsim_requests "POST /cloud/actions/retry/slurmtest" | wc -l)" 1 "retry requests" &&
    "$CCAS" -c "$CCAS_CONF" slurm wait-for-resume htc-2 --interval 1 --timeout 120 &&
    vm_is htc-2 Ready &&
    test_equal "$(ccsim_requests "POST .*/nodes/create" | wc -l)" 0 "creates: the VM was retried, not replaced"
' || slurm_dump

test_expect_success 'remove-nodes refuses a node running a job, and names it ccautoscale does not manage' '
    id=$(sbatch --parsable -w htc-1 -o /dev/null --wrap "sleep 300") &&
    slurm_wait_job "$id" RUNNING 60 &&
    test_expect_code 1 "$CCAS" -c "$CCAS_CONF" slurm remove-nodes htc-1 2>err &&
    test_grep "htc-1. runs a job (--force requeues it); nothing done" err &&
    test_expect_code 1 "$CCAS" -c "$CCAS_CONF" slurm remove-nodes "htc-[1-2],nosuch-1" 2>err &&
    test_grep "nosuch-1. is not a Slurm node" err &&
    vm_is htc-1 Ready && vm_is htc-2 Ready &&
    scancel "$id"
' || slurm_dump

test_expect_success 'remove-nodes powers the node down and terminates its VM' '
    wait_for 30 slurm_node_is htc-1 idle &&
    "$CCAS" -c "$CCAS_CONF" slurm remove-nodes htc-1 --json >rm.json && cat rm.json &&
    jq -e ".powered_down == \"htc-1\" and .terminated == \"htc-1\"" rm.json &&
    wait_for 20 vm_is htc-1 "" &&
    wait_for 30 slurm_node_is htc-1 "idle~"
' || slurm_dump

test_expect_success 'remove-nodes --keep-vms: the node drained, the VM kept by suspend and sync; gone, the node returns' '
    "$CCAS" -c "$CCAS_CONF" slurm remove-nodes htc-2 --keep-vms &&
    wait_for 30 slurm_node_is htc-2 "drain~" &&
    slurm_node_reason htc-2 | grep -q "^ccautoscale: kept: removed (requested by " &&
    jq ".slurm.zombie_vms = \"terminate\"" "$CCAS_CONF" >zt.json && chmod 600 zt.json &&
    "$CCAS" -c zt.json slurm sync --json >sync.json && jq -e ".orphans_terminated == 0" sync.json &&
    vm_is htc-2 Ready && slurm_node_is htc-2 "drain~" &&
    "$CCAS" -c "$CCAS_CONF" terminate --name htc-2 >/dev/null &&
    wait_for 20 vm_is htc-2 "" &&
    slurm_sync && jq -e ".nodes_returned == 1" sync.json &&
    wait_for 20 slurm_node_is htc-2 "idle~"
' || slurm_dump

test_done
