#!/bin/bash
# SPDX-License-Identifier: MIT
# A capacity failure: the nodes come back to Slurm powered down with a Reason
# within seconds, the job is requeued, the bucket is held back — every node of
# it drained at once, the handed-back ones too — and the job runs once capacity
# returns and the window ends.  The window (capacity_failure_backoff) is an
# hour, so that it lasts while the tests look at it however slow the machine;
# the last test ends it (ccsim_holds_end) as if the hour had passed.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/ccsim.sh"
. "$(dirname "$0")/../lib/slurm.sh"
why=$(slurm_prereqs) || test_skip_all "$why"
CCAS=$top_builddir/plugin/ccautoscale

test_expect_success 'start Slurm with no capacity for Standard_F2s_v2' '
    slurm_start "$top_srcdir/tests/slurm/cluster.json" ".capacity_failure_backoff = 3600" &&
    ccsim_fault "{\"kind\": \"capacity\", \"machine_type\": \"Standard_F2s_v2\", \"count\": -1}"
'

test_expect_success 'the nodes are handed back with the reason within seconds; the job is requeued' '
    id=$(sbatch --parsable -N2 -p htc -o /dev/null --wrap "srun true") &&
    echo "$id" >jobid &&
    wait_for 120 sh -c "sinfo -h -N -n htc-1 -o %E | grep -q \"^ccautoscale: capacity: \"" &&
    slurm_node_reason htc-1 | grep -q "insufficient capacity" &&
    wait_for 60 sh -c "scontrol show job $id | grep -q \"Restarts=[1-9]\"" &&
    test "$(slurm_job_state "$id")" = PENDING &&
    test "$(ccsim_node_count)" = 0 &&
    test_grep "hand back htc-\[1-2\] (job $id): ccautoscale: capacity: " "$TEST_TMP/ccautoscale.log" &&
    jq -e -s --arg id "$id" "[.[] | select(.event == \"failed\" and .jobs == [\$id]) | .node] == [\"htc-1\", \"htc-2\"]" \
        "$TEST_TMP/state/events.jsonl"
' || slurm_dump

# no sync here: the nodes handed back are held as Slurm powers them down, so
# the requeued job is not given them again (and resume not run again) meanwhile
test_expect_success 'the bucket is held at once: all its nodes drained with the reason, the handed-back ones too' '
    wait_for 120 sh -c "test \$(sinfo -h -N -p htc -o \"%t %E\" | grep -c \"^drain~ ccautoscale: capacity:\") = 6" &&
    sinfo -h -N -p htc -o "%N %t %E" &&
    test "$(grep -c "ccautoscale-resume htc" "$TEST_TMP/ccautoscale.log")" = 1 &&
    scontrol show job "$(cat jobid)" | grep -q "Restarts=1 " &&
    "$CCAS" -c "$CCAS_CONF" slurm sync >sync.out && cat sync.out &&
    test_grep "nodes held 0," sync.out
' || slurm_dump

test_expect_success 'while held, a resume does not ask CycleCloud at all' '
    ccsim_delete /ccsim/requests >/dev/null &&
    "$top_builddir/slurm_power/ccautoscale-resume" htc-6 &&
    test "$(ccsim_requests "POST .*/nodes/create" | wc -l)" = 0
'

test_expect_success 'capacity returns; when the window ends sync returns the nodes and the job runs' '
    ccsim_delete /ccsim/faults >/dev/null && ccsim_holds_end &&
    wait_for 60 sh -c "\"$CCAS\" -c \"$CCAS_CONF\" slurm sync | tee -a sync.out | grep -q \"capacity windows ended 1\"" &&
    cat sync.out &&
    ! sinfo -h -N -p htc -o %t | grep -q drain &&
    slurm_wait_job "$(cat jobid)" COMPLETED 300
' || slurm_dump

test_done
