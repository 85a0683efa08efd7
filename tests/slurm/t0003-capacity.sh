#!/bin/bash
# SPDX-License-Identifier: MIT
# A capacity failure: the nodes come back to Slurm powered down with a Reason
# within seconds, the job is requeued, the bucket is held back, and the job
# runs once capacity returns and the window ends.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/ccsim.sh"
. "$(dirname "$0")/../lib/slurm.sh"
why=$(slurm_prereqs) || test_skip_all "$why"
CCAS=$top_builddir/plugin/ccautoscale

test_expect_success 'start Slurm with no capacity for Standard_F2s_v2' '
    slurm_start "$top_srcdir/tests/slurm/cluster.json" &&
    ccsim_fault "{\"kind\": \"capacity\", \"machine_type\": \"Standard_F2s_v2\", \"count\": -1}"
'

test_expect_success 'the nodes are handed back with the reason within seconds; the job is requeued' '
    id=$(sbatch --parsable -N2 -p htc -o /dev/null --wrap "srun true") &&
    echo "$id" >jobid &&
    wait_for 20 sh -c "sinfo -h -N -n htc-1 -o %E | grep -q \"^ccautoscale: capacity: \"" &&
    slurm_node_reason htc-1 | grep -q "insufficient capacity" &&
    wait_for 10 sh -c "scontrol show job $id | grep -q \"Restarts=[1-9]\"" &&
    test "$(slurm_job_state "$id")" = PENDING &&
    test "$(ccsim_node_count)" = 0
' || slurm_dump

test_expect_success 'the bucket is held: its powered-down nodes are drained with the reason' '
    sinfo -h -N -p htc -o "%N %t %E" >states && cat states &&
    test "$(grep -c "^htc-[3-6] drain.* ccautoscale: capacity:" states)" = 4 &&
    wait_for 30 sh -c "sinfo -h -N -n htc-1 -o %t | grep -q \"idle~\"" &&
    "$CCAS" -c "$CCAS_CONF" slurm sync >sync.out && cat sync.out &&
    sinfo -h -N -n htc-1 -o "%t %E" | grep -q "^drain~ ccautoscale: capacity:"
' || slurm_dump

test_expect_success 'while held, a resume does not ask CycleCloud at all' '
    ccsim_delete /ccsim/requests >/dev/null &&
    "$top_builddir/slurm_power/ccautoscale-resume" htc-6 &&
    test "$(ccsim_requests "POST .*/nodes/create" | wc -l)" = 0
'

test_expect_success 'capacity returns; when the window ends sync returns the nodes and the job runs' '
    ccsim_delete /ccsim/faults >/dev/null &&
    wait_for 30 sh -c "\"$CCAS\" -c \"$CCAS_CONF\" slurm sync | tee -a sync.out | grep -q \"capacity windows ended 1\"" &&
    cat sync.out &&
    ! sinfo -h -N -p htc -o %t | grep -q drain &&
    slurm_wait_job "$(cat jobid)" COMPLETED 120
' || slurm_dump

test_done
