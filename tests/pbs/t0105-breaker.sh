#!/bin/bash
# SPDX-License-Identifier: MIT
# t0105-breaker.sh: the circuit breaker — VMs that keep failing to boot open
# the nodearray's breaker after breaker.threshold failures: logged at LOG_ERR,
# an event, a metric, shown by `breaker list` and `status`; nothing more is
# created there (the job's reason says why) until `breaker reset`.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/ccsim.sh"
. "$(dirname "$0")/../lib/pbs.sh"
command -v python3 >/dev/null || test_skip_all "python3 is needed by the fake PBS"

failed_vms () {
    ccsim_get /ccsim/state | jq '[.nodes[] | select(.Status == "Failed")] | length'
}

test_expect_success 'start: breaker.threshold 2; every VM fails to boot' '
    pbs_start "" ".breaker.threshold = 2 | .breaker.cooldown = 0" &&
    ccsim_fault "{\"kind\": \"boot_failure\", \"mode\": \"failed\", \"count\": -1}" &&
    fakepbs qsub -l select=1:ncpus=2:slot_type=execute >/dev/null
'

test_expect_success 'two boot failures in a row open the breaker, loudly' '
    pbs_pass && wait_for 60 sh -c "test \$(curl -s $CCSIM_URL/ccsim/state | jq \"[.nodes[] | select(.Status == \\\"Failed\\\")] | length\") = 1" &&
    pbs_pass && wait_for 60 sh -c "test \$(curl -s $CCSIM_URL/ccsim/state | jq \"[.nodes[] | select(.Status == \\\"Failed\\\")] | length\") = 1" &&
    pbs_pass &&
    grep "error: execute: breaker open: 2 consecutive boot failures" "$TEST_TMP/ccautoscale.log" &&
    jq -e -s "[.[] | select(.event == \"breaker_opened\" and .nodearray == \"execute\")] | length == 1" "$TEST_TMP/state/events.jsonl" &&
    grep -q "^ccautoscale_breaker_open{nodearray=\"execute\"} 1$" "$TEST_TMP/state/ccautoscale.prom"
'

test_expect_success 'while open nothing is created there, and the job says why' '
    wait_for 60 sh -c "test \$(curl -s $CCSIM_URL/ccsim/state | jq \".nodes | length\") = 0" &&
    ccsim_delete /ccsim/requests >/dev/null &&
    pbs_pass && pbs_pass &&
    test_equal "$(ccsim_requests "POST .*/nodes/create" | wc -l)" 0 "create requests" &&
    "$CCAS" pbs demand --json >demand.json &&
    jq -r ".jobs[0].reason" demand.json | grep "breaker" &&
    "$CCAS" breaker list >list.out && grep "^execute *OPEN *2 *reset" list.out &&
    "$CCAS" status >status.out && grep "^  execute: 2 consecutive boot failures" status.out &&
    grep "^execute/Standard_F2s_v2 *breaker *until reset" status.out &&
    grep "create_failed\|failed  *transient\|breaker_opened" status.out &&
    "$CCAS" status --json | jq -e ".breakers.execute.open and (.holds | length) == 2 and (.recent_failures | length) >= 1"
'

test_expect_success 'breaker reset needs exactly one nodearray; breaker list takes none' '
    test_expect_code 1 "$CCAS" breaker reset 2>err && grep "give one NODEARRAY" err &&
    test_expect_code 1 "$CCAS" breaker list extra 2>err && grep "unexpected argument .extra." err
'

test_expect_success 'breaker reset: creating starts again' '
    "$CCAS" breaker reset execute | grep "closed" &&
    ccsim_delete /ccsim/faults >/dev/null &&
    pbs_pass && ccsim_wait_ready &&
    test_equal "$(ccsim_get /ccsim/state | jq -r "[.nodes[] | select(.Status == \"Ready\")] | length")" 1 "VMs that booted" &&
    "$CCAS" breaker list --json | jq -e ".execute.open == false"
'

# The rule of policy.h, on the PBS pass: a VM Failed for want of capacity
# holds its bucket (and is no boot failure), and that hold survives the rest
# of the pass.  It used to be written by one copy of the holds and then
# overwritten by another the pass had loaded earlier, so it was lost.
test_expect_success 'a VM Failed for capacity holds its bucket, and the pass keeps the hold' '
    pbs_reset &&
    ccsim_post /ccsim/nodes "{\"Name\": \"execute-90\", \"Template\": \"execute\", \"MachineType\": \"Standard_F4s_v2\", \"Status\": \"Failed\", \"StatusMessage\": \"AllocationFailed: Allocation failed. We do not have sufficient capacity for the requested VM size in this region.\", \"Hooks\": false}" >/dev/null &&
    pbs_pass &&
    jq -e ".\"execute/Standard_F4s_v2\".class == \"capacity\"" "$TEST_TMP/state/holds.json" &&
    jq -e "(.execute.failures // 0) == 0" "$TEST_TMP/state/breakers.json"
'

test_done
