#!/bin/bash
# SPDX-License-Identifier: MIT
# A VM that never boots: ResumeTimeout, ResumeFailProgram releases it and returns
# the node to the pool; the requeued job then runs on a VM that does boot.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/ccsim.sh"
. "$(dirname "$0")/../lib/slurm.sh"
why=$(slurm_prereqs) || test_skip_all "$why"
export SLURM_RESUME_TIMEOUT=20

test_expect_success 'start Slurm; the next VM hangs in Acquiring' '
    slurm_start "$top_srcdir/tests/slurm/cluster.json" &&
    ccsim_fault "{\"kind\": \"boot_failure\", \"mode\": \"hang\", \"count\": 1}"
'

test_expect_success 'ResumeTimeout: resume-fail terminates the VM and the node is usable again' '
    id=$(sbatch --parsable -N1 -p htc -o /dev/null --wrap "srun true") &&
    echo "$id" >jobid &&
    wait_for 60 grep -q "never registered with Slurm" "$TEST_TMP/ccautoscale.log" &&
    wait_for 20 sh -c "! sinfo -h -N -n htc-1 -o %t | grep -q down" &&
    grep -q "terminate 1 VM that did not boot in time" "$TEST_TMP/ccautoscale.log"
' || slurm_dump

test_expect_success 'the requeued job runs on a VM that boots' '
    slurm_wait_job "$(cat jobid)" COMPLETED 150
' || slurm_dump

test_done
