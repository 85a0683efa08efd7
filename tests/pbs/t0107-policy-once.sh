#!/bin/bash
# SPDX-License-Identifier: MIT
# t0107-policy-once.sh: a PBS pass reads its holds and breakers once and
# writes them once (engine/policy.h), with every decision of the pass in
# that one write: a hold decided before CycleCloud is asked, and a boot
# counted after it (a VM put online in PBS) that starts the breaker's count
# again.
# The pass used to write them twice — once after carrying the plan out and
# again after the joins — so a failpoint on the second write proves it no
# longer does.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/ccsim.sh"
. "$(dirname "$0")/../lib/pbs.sh"
command -v python3 >/dev/null || test_skip_all "python3 is needed by the fake PBS"

failed_vms () {
    test "$(ccsim_get /ccsim/state | jq '[.nodes[] | select(.Status == "Failed")] | length')" = "$1"
}

# a VM Azure could not place: a capacity failure, which holds its bucket
capacity_failed_vm () {
    ccsim_post /ccsim/nodes "{\"Name\": \"$1\", \"Template\": \"execute\", \"MachineType\": \"Standard_F4s_v2\", \"Status\": \"Failed\", \"StatusMessage\": \"AllocationFailed: Allocation failed. We do not have sufficient capacity for the requested VM size in this region.\", \"Hooks\": false}" >/dev/null
}

test_expect_success 'start: breaker.threshold 5' '
    pbs_start "" ".breaker.threshold = 5 | .breaker.cooldown = 0"
'

# the failpoint is on the pass's way: without this, the test below could not fail
test_expect_success 'a pass killed before it writes its policy has written none of it' '
    capacity_failed_vm execute-90 &&
    test_expect_code 137 env CCAUTOSCALE_FAILPOINT=policy:before-save "$CCAS" pbs autoscale >killed.out 2>&1 &&
    ! jq -e ".\"execute/Standard_F4s_v2\"" "$TEST_TMP/state/holds.json" 2>/dev/null
'

test_expect_success 'a VM that fails to boot counts once for the breaker' '
    pbs_reset &&
    ccsim_fault "{\"kind\": \"boot_failure\", \"mode\": \"failed\", \"count\": 1}" &&
    fakepbs qsub -l select=1:ncpus=2:slot_type=execute >/dev/null &&
    pbs_pass && wait_for 20 failed_vms 1 &&
    pbs_pass &&
    jq -e ".execute.failures == 1" "$TEST_TMP/state/breakers.json" &&
    wait_for 20 failed_vms 0 && ccsim_wait_ready 20 &&
    test_equal "$(ccsim_get /ccsim/state | jq ".nodes | length")" 1 "VMs, the replacement Ready"
'

# (the first pass creates the replacement's vnode; the one under test puts it online)
test_expect_success 'one write keeps a hold decided before CycleCloud is asked and a boot seen after' '
    pbs_pass && jq -e "[.pbs.join[] | select(.outcome == \"done\")] | length == 1" pass.out &&
    jq -e ".execute.failures == 1" "$TEST_TMP/state/breakers.json" &&
    capacity_failed_vm execute-91 &&
    env CCAUTOSCALE_FAILPOINT=policy:before-save@2 "$CCAS" pbs autoscale --json >pass.out 2>pass.err &&
    jq -e "[.pbs.online[] | select(.outcome == \"done\")] | length == 1" pass.out &&
    jq -e ".\"execute/Standard_F4s_v2\".class == \"capacity\"" "$TEST_TMP/state/holds.json" &&
    jq -e "(.execute.failures // 0) == 0" "$TEST_TMP/state/breakers.json"
'

test_expect_success 'demand, a dry run, writes nothing' '
    cp "$TEST_TMP/state/holds.json" holds.before && cp "$TEST_TMP/state/breakers.json" breakers.before &&
    env CCAUTOSCALE_FAILPOINT=policy:before-save "$CCAS" pbs demand >/dev/null &&
    cmp holds.before "$TEST_TMP/state/holds.json" && cmp breakers.before "$TEST_TMP/state/breakers.json"
'

test_done
