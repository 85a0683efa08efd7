#!/bin/bash
# SPDX-License-Identifier: MIT
# sync: a Failed VM behind a powering-up node is released and the job requeued;
# a zombie VM (its Slurm node powered down) is kept and the node marked down
# (slurm.zombie_vms keep), or terminated (terminate); KeepAlive is kept
# and in SuspendExcNodes (from 23.02 changed on the running slurmctld, which
# ReconfigFlags=KeepPowerSaveSettings, set here on such a Slurm, needs: a
# reconfigure would not apply the include); the VMs of nodearrays
# ccautoscale does not manage are never touched.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/ccsim.sh"
. "$(dirname "$0")/../lib/slurm.sh"
why=$(slurm_prereqs) || test_skip_all "$why"
CCAS=$top_builddir/plugin/ccautoscale
export CCSIM_BOOT_DELAY=6

# The names in the running slurmctld's SuspendExcNodes, one line
suspend_exc_nodes () {
    local hl
    hl=$(scontrol show config | sed -n "s/^SuspendExcNodes *= *//p")
    case $hl in "" | "(null)") echo ;; *) scontrol show hostnames "$hl" | sort -V | paste -sd " " ;; esac
}
if slurm_since 23.02; then
    export SLURM_EXTRA_CONF=ReconfigFlags=KeepPowerSaveSettings
fi

test_expect_success 'start Slurm; the next VM fails to boot' '
    slurm_start "$top_srcdir/tests/slurm/cluster.json" &&
    ccsim_fault "{\"kind\": \"boot_failure\", \"mode\": \"failed\", \"count\": 1}"
'

test_expect_success 'sync releases the Failed VM and hands its node back with the reason' '
    id=$(sbatch --parsable -N1 -p htc -o /dev/null --wrap "srun true") &&
    echo "$id" >jobid &&
    wait_for 120 sh -c "curl -s $CCSIM_URL/ccsim/state | jq -e \"[.nodes[] | select(.Status == \\\"Failed\\\")] | length == 1\"" &&
    "$CCAS" -c "$CCAS_CONF" slurm sync --json >sync.json && cat sync.json &&
    jq -e ".failed_released == 1" sync.json &&
    slurm_node_reason htc-1 | grep -q "^ccautoscale: transient: Provisioning failed" &&
    wait_for 60 sh -c "scontrol show job $id | grep -q \"Restarts=[1-9]\"" &&
    wait_for 60 sh -c "test \$(curl -s $CCSIM_URL/ccsim/state | jq \"[.nodes[] | select(.Status == \\\"Failed\\\")] | length\") = 0"
' || slurm_dump

test_expect_success 'the job then runs on a fresh VM' '
    slurm_wait_job "$(cat jobid)" COMPLETED 300
' || slurm_dump

test_expect_success 'a zombie VM (its Slurm node powered down) is kept, its node marked down; terminate gives it back' '
    wait_for 180 sh -c "test \$(curl -s $CCSIM_URL/ccsim/state | jq \".nodes | length\") = 0" &&
    ccsim_post /ccsim/nodes "{\"Name\": \"htc-4\", \"Template\": \"htc\", \"MachineType\": \"Standard_F2s_v2\", \"Hooks\": false}" >/dev/null &&
    test "$(slurm_node_state htc-4)" = "idle~" &&
    "$CCAS" -c "$CCAS_CONF" slurm sync --json >sync.json && cat sync.json &&
    jq -e ".orphans_terminated == 0 and .zombies_kept == 1" sync.json &&
    test "$(ccsim_node_count)" = 1 &&
    slurm_node_is htc-4 "down~" &&
    slurm_node_reason htc-4 | grep -q "^ccautoscale: zombie: " &&
    "$CCAS" -c "$CCAS_CONF" slurm sync --json >sync.json && jq -e ".zombies_kept == 1 and .orphans_terminated == 0" sync.json &&
    test "$(ccsim_node_count)" = 1 &&
    jq ".slurm.zombie_vms = \"terminate\"" "$CCAS_CONF" >zt && chmod 600 zt &&
    "$CCAS" -c zt slurm sync --json >sync.json && cat sync.json &&
    jq -e ".orphans_terminated == 1" sync.json &&
    wait_for 60 sh -c "test \$(curl -s $CCSIM_URL/ccsim/state | jq \".nodes | length\") = 0" &&
    "$CCAS" -c "$CCAS_CONF" slurm sync --json >sync.json && jq -e ".nodes_returned == 1" sync.json &&
    wait_for 120 slurm_node_is htc-4 "idle~"
' || slurm_dump

test_expect_success 'a KeepAlive orphan is kept, and listed in SuspendExcNodes' '
    ccsim_post /ccsim/nodes "{\"Name\": \"htc-5\", \"Template\": \"htc\", \"MachineType\": \"Standard_F2s_v2\", \"KeepAlive\": true, \"Hooks\": false}" >/dev/null &&
    "$CCAS" -c "$CCAS_CONF" slurm sync --json >sync.json &&
    jq -e ".orphans_terminated == 0 and .keepalive_changed" sync.json &&
    test_grep "SuspendExcNodes=htc-5" "$SLURM_TEST_DIR/ccautoscale_keepalive.conf" &&
    test "$(ccsim_node_count)" = 1 &&
    scontrol show config | grep -q "SuspendExcNodes *= *htc-5" &&
    if slurm_since 23.02; then
        test_grep "SuspendExcNodes += htc-5 on the running slurmctld" "$TEST_TMP/ccautoscale.log" &&
        scontrol show config | grep "ReconfigFlags *= *KeepPowerSaveSettings" &&
        scontrol reconfigure && wait_for 60 sinfo -h &&
        scontrol show config | grep -q "SuspendExcNodes *= *htc-5"
    fi &&
    "$CCAS" -c "$CCAS_CONF" slurm sync --json >sync.json && jq -e ".keepalive_changed | not" sync.json
' || slurm_dump

test_expect_success 'a KeepAlive node whose VM is gone leaves SuspendExcNodes' '
    ccsim_post /ccsim/nodes "{\"Name\": \"htc-3\", \"Template\": \"htc\", \"MachineType\": \"Standard_F2s_v2\", \"KeepAlive\": true, \"Hooks\": false}" >/dev/null &&
    "$CCAS" -c "$CCAS_CONF" slurm sync --json >sync.json && jq -e ".keepalive_changed" sync.json &&
    test_equal "$(suspend_exc_nodes)" "htc-3 htc-5" "SuspendExcNodes" &&
    ccsim_post /clusters/slurmtest/nodes/terminate "{\"names\": [\"htc-3\"]}" >/dev/null &&
    wait_for 60 sh -c "test \"\$(curl -s $CCSIM_URL/ccsim/state | jq -r \"[.nodes[].Name] | join(\\\" \\\")\")\" = htc-5" &&
    "$CCAS" -c "$CCAS_CONF" slurm sync --json >sync.json && jq -e ".keepalive_changed" sync.json &&
    test_grep "SuspendExcNodes=htc-5$" "$SLURM_TEST_DIR/ccautoscale_keepalive.conf" &&
    test_equal "$(suspend_exc_nodes)" "htc-5" "SuspendExcNodes"
' || slurm_dump

test_expect_success 'sync --dry-run changes nothing' '
    ccsim_post /ccsim/nodes "{\"Name\": \"htc-6\", \"Template\": \"htc\", \"MachineType\": \"Standard_F2s_v2\", \"Hooks\": false}" >/dev/null &&
    "$CCAS" -c "$CCAS_CONF" slurm sync --dry-run >dry.out && cat dry.out &&
    test_grep "htc-6: zombie VM" dry.out &&
    test_grep "would mark down htc-6: ccautoscale: zombie:" dry.out &&
    test "$(ccsim_node_count)" = 2
'

test_expect_success 'VMs of nodearrays ccautoscale does not manage survive sync (autoscale off; disabled)' '
    ccsim_post /ccsim/nodes "{\"Name\": \"login-1\", \"Template\": \"login\", \"MachineType\": \"Standard_D4s_v3\", \"Hooks\": false}" >/dev/null &&
    ccsim_post /ccsim/nodes "{\"Name\": \"hpc-1\", \"Template\": \"hpc\", \"MachineType\": \"Standard_HB120rs_v3\", \"Hooks\": false}" >/dev/null &&
    jq ".nodearrays.hpc.enabled = false | .slurm.zombie_vms = \"terminate\"" "$CCAS_CONF" >c2 && chmod 600 c2 &&
    "$CCAS" -c c2 slurm sync --json >sync.json && cat sync.json &&
    jq -e ".orphans_terminated == 1" sync.json &&
    wait_for 60 sh -c "test \"\$(curl -s $CCSIM_URL/ccsim/state | jq -r \"[.nodes[].Name] | sort | join(\\\" \\\")\")\" = \"hpc-1 htc-5 login-1\""
' || slurm_dump

test_done
