#!/bin/bash
# SPDX-License-Identifier: MIT
# A VM that never boots: ResumeTimeout, ResumeFailProgram releases it and returns
# the node to the pool (idle~, no VM); a job then runs there on a VM that does
# boot.  Returning the node to service clears its Reason "ResumeTimeout
# reached" up to 23.02; from 23.11 slurmctld clears it there only when
# accounting storage is configured (clusteracct_storage_g_node_up returns
# early for the no-op plugin, as in this suite), so the node keeps it until its
# slurmd registers again.  It is usable all the same: the job powers it up.
# From 23.02 the node stays NOT_RESPONDING until then.  The node
# is powered up without a job, so that no requeued job can take it back before
# its state is checked.  ResumeTimeout is short, as this tests it, yet twice
# what the VM that does boot takes on a busy machine.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/ccsim.sh"
. "$(dirname "$0")/../lib/slurm.sh"
why=$(slurm_prereqs) || test_skip_all "$why"
export SLURM_RESUME_TIMEOUT=40

test_expect_success 'start Slurm; the next VM hangs in Acquiring' '
    slurm_start "$top_srcdir/tests/slurm/cluster.json" &&
    ccsim_fault "{\"kind\": \"boot_failure\", \"mode\": \"hang\", \"count\": 1}"
'

if slurm_since 23.11; then
    returned_reason="ResumeTimeout reached"
else
    returned_reason=none
fi

test_expect_success "ResumeTimeout: resume-fail terminates the VM; the node is idle~ (Reason: $returned_reason)" '
    scontrol update nodename=htc-1 state=power_up &&
    wait_for 60 sh -c "test \"\$(curl -s $CCSIM_URL/ccsim/state | jq -r \"[.nodes[].Name] | join(\\\" \\\")\")\" = htc-1" &&
    wait_for 180 grep -q "never registered with Slurm" "$TEST_TMP/ccautoscale.log" &&
    grep -q "terminate 1 VM that did not boot in time" "$TEST_TMP/ccautoscale.log" &&
    grep -q "return to service htc-1" "$TEST_TMP/ccautoscale.log" &&
    wait_for 120 slurm_node_is htc-1 "idle~" "$returned_reason" &&
    scontrol show node htc-1 | tee node.txt | grep "State=" &&
    if slurm_since 23.02; then test_grep "State=IDLE+CLOUD+POWERED_DOWN+NOT_RESPONDING " node.txt; fi &&
    wait_for 120 sh -c "test \"\$(curl -s $CCSIM_URL/ccsim/state | jq \".nodes | length\")\" = 0"
' || slurm_dump

test_expect_success 'the node is usable again: a job runs there on a VM that boots, and the node registers (no reason)' '
    id=$(sbatch --parsable -N1 -w htc-1 -o /dev/null --wrap "srun true") &&
    slurm_wait_job "$id" COMPLETED 300 &&
    slurm_node_is htc-1 idle none
' || slurm_dump

test_done
