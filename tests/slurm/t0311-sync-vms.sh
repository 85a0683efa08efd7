#!/bin/bash
# SPDX-License-Identifier: MIT
# t0311-sync-vms.sh: sync and the VMs behind nodes Slurm has up or down.  A VM
# deallocated by suspend is kept by sync and started (not re-created) by the
# next resume; the breaker counts a boot once, so two boot failures open it
# while another node of the nodearray stays up; a VM that fails after its node
# registered is released and the node returned; a node Slurm marked "Not
# responding" whose VM is gone is returned.  SuspendTime is long: nodes stay
# up until powered down by hand, so nothing here waits for Slurm's timers.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/ccsim.sh"
. "$(dirname "$0")/../lib/slurm.sh"
why=$(slurm_prereqs) || test_skip_all "$why"
CCAS=$top_builddir/plugin/ccautoscale
export SLURM_SUSPEND_TIME=600

vm_is () { # vm_is NAME STATUS ("" for no VM)
    test "$(slurm_vm_status "$1")" = "$2"
}

breakers () {
    "$CCAS" -c "$CCAS_CONF" breaker list --json | tee breakers.json
}

test_expect_success 'start Slurm: suspend deallocates; the breaker opens at 2 boot failures' '
    slurm_start "$top_srcdir/tests/slurm/cluster.json" \
        ".slurm.suspend_action = \"deallocate\" | .breaker.threshold = 2"
'

test_expect_success 'a VM deallocated by suspend is kept by sync, then started (not created) by resume' '
    id=$(sbatch --parsable -N1 -w htc-1 -o /dev/null --wrap "srun true") &&
    slurm_wait_job "$id" COMPLETED 300 &&
    scontrol update nodename=htc-1 state=power_down &&
    wait_for 120 vm_is htc-1 Deallocated &&
    wait_for 120 slurm_node_is htc-1 "idle~" &&
    slurm_sync && jq -e ".orphans_terminated == 0" sync.json &&
    vm_is htc-1 Deallocated &&
    id=$(sbatch --parsable -N1 -w htc-1 -o /dev/null --wrap "srun true") &&
    slurm_wait_job "$id" COMPLETED 300 &&
    test_equal "$(ccsim_requests "POST .*/nodes/create" | wc -l)" 1 "creates" &&
    test_equal "$(ccsim_requests "POST .*/nodes/start" | wc -l)" 1 "starts"
' || slurm_dump

test_expect_success 'the breaker counts each boot once: two boot failures open it while htc-1 stays up' '
    slurm_node_is htc-1 idle && slurm_sync &&
    ccsim_fault "{\"kind\": \"boot_failure\", \"mode\": \"failed\", \"nodearray\": \"htc\", \"count\": 1}" &&
    scontrol update nodename=htc-2 state=power_up &&
    wait_for 120 vm_is htc-2 Failed &&
    slurm_sync && jq -e ".failed_released == 1" sync.json &&
    breakers && jq -e ".htc.failures == 1 and (.htc.open | not)" breakers.json &&
    ccsim_fault "{\"kind\": \"boot_failure\", \"mode\": \"failed\", \"nodearray\": \"htc\", \"count\": 1}" &&
    scontrol update nodename=htc-3 state=power_up &&
    wait_for 120 vm_is htc-3 Failed &&
    slurm_sync && jq -e ".failed_released == 1" sync.json &&
    breakers && jq -e ".htc.failures == 2 and .htc.open" breakers.json &&
    slurm_node_is htc-1 idle
' || slurm_dump

# Slurm's view is read before CycleCloud answers: an idle node whose VM failed
# is drained first (no job can start there), released by the next pass
test_expect_success 'a VM that fails after its node registered: drained, then released; the node returns to the pool' '
    scontrol update nodename=hpc-[1-2] state=power_up &&
    wait_for 180 slurm_node_is hpc-1 idle && wait_for 180 slurm_node_is hpc-2 idle &&
    ccsim_post /ccsim/nodes/hpc-1/fail >/dev/null &&
    slurm_sync && jq -e ".failed_released == 0" sync.json &&
    slurm_node_is hpc-1 drain "ccautoscale: transient: the VM failed (ccsim)" && vm_is hpc-1 Failed &&
    slurm_sync && jq -e "(.failed_released + .orphans_terminated) == 1" sync.json &&
    wait_for 60 vm_is hpc-1 "" &&
    wait_for 120 slurm_node_is hpc-1 "idle~" &&
    breakers && jq -e "(.hpc.failures // 0) == 0" breakers.json &&
    vm_is hpc-2 Ready && slurm_node_is hpc-2 idle
' || slurm_dump

# slurmctld sets a cloud node's NodeAddr when its slurmd registers (23.11+;
# cloud_reg_addrs in 22.05, as here): sync must not set it to the VM's IP
# (127.0.1.x in ccsim) only to have the next registration undo it
test_expect_success 'sync leaves NodeAddr to slurmctld, which sets it when the node registers' '
    addr=$(scontrol show node hpc-2 | sed -n "s/.*NodeAddr=\([^ ]*\).*/\1/p") && echo "NodeAddr=$addr" &&
    test -n "$addr" &&
    test "$(ccsim_get /ccsim/state | jq -r ".nodes[] | select(.Name == \"hpc-2\") | .PrivateIp")" != "$addr" &&
    slurm_sync && jq -e ".addresses_set == 0" sync.json &&
    slurm_sync && jq -e ".addresses_set == 0" sync.json &&
    test_equal "$(scontrol show node hpc-2 | sed -n "s/.*NodeAddr=\([^ ]*\).*/\1/p")" "$addr" "NodeAddr after sync"
' || slurm_dump

test_expect_success 'a node Slurm marked "Not responding" whose VM is gone is handed back and returns' '
    ccsim_post /clusters/slurmtest/nodes/terminate "{\"names\": [\"hpc-2\"]}" >/dev/null &&
    wait_for 60 vm_is hpc-2 "" &&
    scontrol update nodename=hpc-2 state=down reason="Not responding" &&
    sinfo -h -N -n hpc-2 -o %t | grep -q "^down" &&
    slurm_sync && jq -e ".nodes_returned == 1" sync.json &&
    wait_for 120 slurm_node_is hpc-2 "idle~"
' || slurm_dump

test_done
