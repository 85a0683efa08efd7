#!/bin/bash
# SPDX-License-Identifier: MIT
# t0321-keepalive.sh: 'slurm keep-alive' and sync share SuspendExcNodes with
# the administrator.  slurm.conf has the administrator's own entry (htc-6);
# keep-alive add puts nodes in (live from 23.02, by the include before), the
# node kept is never powered down and its VM is made KeepAlive in CycleCloud;
# remove takes out only what add put in, refusing the administrator's entry
# and a node whose VM is KeepAlive; sync, a reconfigure and a VM KeepAlive
# in CycleCloud under the administrator's name leave htc-6 where it is.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/ccsim.sh"
. "$(dirname "$0")/../lib/slurm.sh"
why=$(slurm_prereqs) || test_skip_all "$why"
CCAS=$top_builddir/plugin/ccautoscale
export CCSIM_BOOT_DELAY=2
SLURM_EXTRA_CONF="SuspendExcNodes=htc-6"
if slurm_since 23.02; then
    SLURM_EXTRA_CONF="$SLURM_EXTRA_CONF
ReconfigFlags=KeepPowerSaveSettings"
fi
export SLURM_EXTRA_CONF

# The names in the running slurmctld's SuspendExcNodes, one line
suspend_exc_nodes () {
    local hl
    hl=$(scontrol show config | sed -n "s/^SuspendExcNodes *= *//p")
    case $hl in "" | "(null)") echo ;; *) scontrol show hostnames "$hl" | sort -V | paste -sd " " ;; esac
}

exc_is () {
    test_equal "$(suspend_exc_nodes)" "$1" "SuspendExcNodes"
}

include () {
    cat "$SLURM_TEST_DIR/ccautoscale_keepalive.conf"
}

vm_field () {
    ccsim_get /ccsim/state | jq -r --arg n "$1" --arg f "$2" '.nodes[] | select(.Name == $n) | .[$f]'
}

test_expect_success 'start Slurm; slurm.conf excludes htc-6 from power saving' '
    slurm_start "$top_srcdir/tests/slurm/cluster.json" &&
    exc_is "htc-6"
' || slurm_dump

test_expect_success 'keep-alive add puts the nodes in beside the administrator'"'"'s, and into the include' '
    "$CCAS" -c "$CCAS_CONF" slurm keep-alive add "htc-[1-2]" &&
    exc_is "htc-1 htc-2 htc-6" &&
    include | grep -qx "SuspendExcNodes=htc-\[1-2,6\]" &&
    "$CCAS" -c "$CCAS_CONF" slurm keep-alive list --json >list.json && cat list.json &&
    jq -e "[.nodes[] | .name + \"=\" + .by] == [\"htc-1=keep-alive add\", \"htc-2=keep-alive add\",
        \"htc-6=administrator (slurm.conf or scontrol)\"]" list.json &&
    if slurm_since 23.02; then
        test_grep "SuspendExcNodes += htc-\[1-2\] on the running slurmctld" "$TEST_TMP/ccautoscale.log"
    fi
' || slurm_dump

test_expect_success 'a kept node is never powered down, and its VM is KeepAlive in CycleCloud' '
    id=$(sbatch --parsable -N2 -w "htc-[2-3]" -o /dev/null --wrap "srun true") &&
    slurm_wait_job "$id" COMPLETED 120 &&
    test_equal "$(vm_field htc-2 KeepAlive) $(vm_field htc-3 KeepAlive)" "true false" "KeepAlive" &&
    wait_for 60 slurm_node_is htc-3 "idle~" &&
    slurm_node_is htc-2 idle &&
    test "$(vm_field htc-2 Status)" = Ready
' || slurm_dump

test_expect_success 'remove refuses the administrator'"'"'s entry and a node whose VM is KeepAlive; nothing changes' '
    test_expect_code 1 "$CCAS" -c "$CCAS_CONF" slurm keep-alive remove htc-6 2>err &&
    test_grep "htc-6. was not added by .keep-alive add.: if it is in SuspendExcNodes, the administrator put it there" err &&
    test_expect_code 1 "$CCAS" -c "$CCAS_CONF" slurm keep-alive remove "htc-[1-2]" 2>err &&
    test_grep "htc-2.: its VM is KeepAlive in CycleCloud" err &&
    exc_is "htc-1 htc-2 htc-6"
' || slurm_dump

test_expect_success 'remove takes out what add put in; sync keeps the KeepAlive VM'"'"'s node and htc-6' '
    "$CCAS" -c "$CCAS_CONF" slurm keep-alive remove htc-1 &&
    exc_is "htc-2 htc-6" &&
    slurm_sync && jq -e ".keepalive_changed | not" sync.json &&
    exc_is "htc-2 htc-6" &&
    include | grep -qx "SuspendExcNodes=htc-\[2,6\]"
' || slurm_dump

test_expect_success 'once its VM is gone, remove takes htc-2 out; htc-6 stays, through sync and a reconfigure' '
    "$CCAS" -c "$CCAS_CONF" terminate --name htc-2 --force >/dev/null &&
    wait_for 20 sh -c "test -z \"\$(curl -s $CCSIM_URL/ccsim/state | jq -r \".nodes[] | select(.Name == \\\"htc-2\\\") | .Name\")\"" &&
    "$CCAS" -c "$CCAS_CONF" slurm keep-alive remove htc-2 &&
    exc_is "htc-6" &&
    slurm_sync && exc_is "htc-6" &&
    include | grep -qx "SuspendExcNodes=htc-6" &&
    scontrol reconfigure && sleep 1 && wait_for 20 sinfo -h &&
    exc_is "htc-6"
' || slurm_dump

test_expect_success 'a VM KeepAlive in CycleCloud under the administrator'"'"'s name: htc-6 stays when it goes' '
    ccsim_post /ccsim/nodes "{\"Name\": \"htc-6\", \"Template\": \"htc\", \"MachineType\": \"Standard_F2s_v2\", \"KeepAlive\": true, \"Hooks\": false}" >/dev/null &&
    slurm_sync && exc_is "htc-6" &&
    ccsim_post /clusters/slurmtest/nodes/terminate "{\"names\": [\"htc-6\"]}" >/dev/null &&
    wait_for 20 sh -c "test \$(curl -s $CCSIM_URL/ccsim/state | jq \"[.nodes[] | select(.Name == \\\"htc-6\\\")] | length\") = 0" &&
    slurm_sync && exc_is "htc-6" &&
    "$CCAS" -c "$CCAS_CONF" slurm keep-alive list --json >list.json &&
    jq -e ".nodes == [{\"name\": \"htc-6\", \"by\": \"administrator (slurm.conf or scontrol)\"}]" list.json
' || slurm_dump

test_expect_success 'keep-alive refuses bad input: no action, an unknown one, no hostlist, a node it does not manage' '
    test_expect_code 1 "$CCAS" -c "$CCAS_CONF" slurm keep-alive 2>err && test_grep "say what to do" err &&
    test_expect_code 1 "$CCAS" -c "$CCAS_CONF" slurm keep-alive keep htc-1 2>err &&
    test_grep "not add, remove or list" err &&
    test_expect_code 1 "$CCAS" -c "$CCAS_CONF" slurm keep-alive add 2>err && test_grep "name the nodes to keep alive" err &&
    test_expect_code 1 "$CCAS" -c "$CCAS_CONF" slurm keep-alive add nosuch-1 2>err &&
    test_grep "nosuch-1. is not a Slurm node" err &&
    test_expect_code 1 "$CCAS" -c "$CCAS_CONF" slurm keep-alive add "htc-[1-" 2>err &&
    exc_is "htc-6"
' || slurm_dump

test_done
