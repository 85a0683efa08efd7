#!/bin/bash
# SPDX-License-Identifier: MIT
# t0323-vm-policy.sh: whose VMs sync gives back.  A zombie nobody asked for
# is kept by default (slurm.zombie_vms keep: covered by t0305); a VM
# ccautoscale itself let go of is terminated all the same — the one whose
# suspend request CycleCloud refused, and the one a create made although its
# answer was lost (resume handed the node back) — and a node Slurm powers up
# again keeps its VM.  A stock azslurm's leftover reason (cyclecloud_zombie_node)
# is ccautoscale's to clear once the VM is gone.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/ccsim.sh"
. "$(dirname "$0")/../lib/slurm.sh"
why=$(slurm_prereqs) || test_skip_all "$why"
CCAS=$top_builddir/plugin/ccautoscale
export CCSIM_BOOT_DELAY=2

vm_status () {
    ccsim_get /ccsim/state | jq -r --arg n "$1" '[.nodes[] | select(.Name == $n) | .Status] | join(" ")'
}

vm_is () {
    test "$(vm_status "$1")" = "$2"
}

giveback () {
    state_entries "$(jq -r .state_dir "$CCAS_CONF")/slurm_giveback.json" 2>/dev/null | jq -r "keys | join(\" \")"
}

test_expect_success 'start Slurm (zombies kept, the default)' '
    slurm_start "$top_srcdir/tests/slurm/cluster.json" &&
    test "$(jq -r ".slurm.zombie_vms // \"keep\"" "$CCAS_CONF")" = keep
' || slurm_dump

test_expect_success 'a suspend CycleCloud refuses leaves the VM; sync terminates it though zombies are kept' '
    id=$(sbatch --parsable -w htc-1 -o /dev/null --wrap "srun true") &&
    slurm_wait_job "$id" COMPLETED 120 &&
    ccsim_fault "{\"kind\": \"http\", \"status\": 500, \"match\": \"/nodes/shutdown\", \"count\": 20}" &&
    wait_for 60 slurm_node_is htc-1 "idle~" &&
    test_equal "$(giveback)" "htc-1" "names to give back" &&
    vm_is htc-1 Ready &&
    ccsim_delete /ccsim/faults >/dev/null &&
    slurm_sync && jq -e ".orphans_terminated == 1 and .zombies_kept == 0" sync.json &&
    wait_for 20 vm_is htc-1 "" &&
    slurm_sync && test_equal "$(giveback)" "" "names to give back" &&
    slurm_node_is htc-1 "idle~"
' || slurm_dump

# The create is made but its answer and the lookup of its request id are
# lost, so resume hands the node back; the suspend that follows is refused:
# the VM is left behind a powered-down node, ccautoscale's own leftover.
test_expect_success 'a create whose answer was lost: the node handed back, the VM it made terminated by sync' '
    ccsim_fault "{\"kind\": \"drop\", \"match\": \"/nodes/create\", \"when\": \"after\", \"count\": 20}" &&
    ccsim_fault "{\"kind\": \"drop\", \"match\": \"/nodes\", \"method\": \"GET\", \"count\": 20}" &&
    ccsim_fault "{\"kind\": \"http\", \"status\": 500, \"match\": \"/nodes/shutdown\", \"count\": 20}" &&
    scontrol update nodename=htc-2 state=power_up &&
    wait_for 60 sh -c "sinfo -h -N -n htc-2 -o %E | grep -q \"^ccautoscale: \"" &&
    wait_for 60 slurm_node_is htc-2 "idle~" &&
    ccsim_delete /ccsim/faults >/dev/null &&
    wait_for 20 vm_is htc-2 Ready &&
    test_equal "$(giveback)" "htc-2" "names to give back" &&
    slurm_sync && jq -e ".orphans_terminated == 1 and .zombies_kept == 0" sync.json &&
    wait_for 20 vm_is htc-2 ""
' || slurm_dump

test_expect_success 'a node let go of that Slurm powers up again keeps its VM' '
    ccsim_fault "{\"kind\": \"http\", \"status\": 500, \"match\": \"/nodes/shutdown\", \"count\": 20}" &&
    scontrol update nodename=htc-3 state=power_up &&
    wait_for 60 slurm_node_is htc-3 idle &&
    scontrol update nodename=htc-3 state=power_down &&
    wait_for 30 slurm_node_is htc-3 "idle~" &&
    test_equal "$(giveback)" "htc-3" "names to give back" &&
    ccsim_delete /ccsim/faults >/dev/null &&
    scontrol update nodename=htc-3 state=power_up &&
    wait_for 20 sh -c "sinfo -h -N -n htc-3 -o %t | grep -q \"#\"" &&
    slurm_sync && jq -e ".orphans_terminated == 0" sync.json &&
    vm_is htc-3 Ready &&
    test_equal "$(giveback)" "" "names to give back"
' || slurm_dump

test_expect_success 'the stock azslurm'"'"'s cyclecloud_zombie_node: the VM kept; once it is gone, the node returns' '
    ccsim_post /ccsim/nodes "{\"Name\": \"htc-5\", \"Template\": \"htc\", \"MachineType\": \"Standard_F2s_v2\", \"Hooks\": false}" >/dev/null &&
    scontrol update nodename=htc-5 state=down reason=cyclecloud_zombie_node &&
    slurm_sync && jq -e ".orphans_terminated == 0" sync.json &&
    vm_is htc-5 Ready && slurm_node_is htc-5 "down~" cyclecloud_zombie_node &&
    "$CCAS" -c "$CCAS_CONF" slurm remove-nodes htc-5 &&
    wait_for 20 vm_is htc-5 "" &&
    slurm_sync && jq -e ".nodes_returned == 1" sync.json &&
    wait_for 20 slurm_node_is htc-5 "idle~"
' || slurm_dump

test_done
