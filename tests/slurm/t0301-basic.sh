#!/bin/bash
# SPDX-License-Identifier: MIT
# A 2-node job resumes, runs srun hostname on both nodes, completes; after
# SuspendTime its VMs are gone; resume twice for the same names creates nothing twice.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/ccsim.sh"
. "$(dirname "$0")/../lib/slurm.sh"
why=$(slurm_prereqs) || test_skip_all "$why"

test_expect_success 'a real slurmctld starts with the generated include' '
    slurm_start "$top_srcdir/tests/slurm/cluster.json" &&
    test_grep "^NodeName=htc-\[1-6\] Feature=cloud,Standard_F2s_v2,htc State=CLOUD CPUs=2" "$SLURM_TEST_DIR/ccautoscale.conf" &&
    test "$(sinfo -h -N -o %N | wc -l)" = 14 &&
    test "$(slurm_node_state htc-1)" = "idle~"
'

# every simulated VM shares this machine'"'"'s hostname, so tasks also print the node they ran on
cat >"$TEST_TMP/job.sh" <<'JOB'
#!/bin/sh
srun sh -c 'echo "$(hostname) $SLURMD_NODENAME"'
JOB

test_expect_success 'a 2-node job gets its VMs, runs srun hostname on both, completes' '
    id=$(sbatch --parsable -N2 -p htc -o "$TEST_TMP/job1.out" "$TEST_TMP/job.sh") &&
    slurm_wait_job "$id" COMPLETED 300 &&
    cat "$TEST_TMP/job1.out" &&
    awk "{print \$2}" "$TEST_TMP/job1.out" | sort -u >nodes &&
    test "$(cat nodes | tr "\n" " ")" = "htc-1 htc-2 " &&
    test "$(ccsim_requests "POST .*/nodes/create" | wc -l)" = 1 &&
    ccsim_made_once "htc-1 htc-2"
' || slurm_dump

test_expect_success 'after SuspendTime the VMs are gone from ccsim and the nodes are idle~' '
    wait_for 180 sh -c "test \$(curl -s $CCSIM_URL/ccsim/state | jq \"[.nodes[] | select(.Template == \\\"htc\\\")] | length\") = 0" &&
    wait_for 120 sh -c "sinfo -h -N -n htc-1 -o %T | grep -q idle~" &&
    test "$(ccsim_requests "POST .*/nodes/(shutdown|terminate)" | wc -l)" -ge 1
' || slurm_dump

test_expect_success 'resume run twice on the same names creates each VM once' '
    ccsim_delete /ccsim/requests >/dev/null &&
    "$top_builddir/slurm_power/ccautoscale-resume" "htc-[5-6]" &&
    "$top_builddir/slurm_power/ccautoscale-resume" "htc-[5-6]" &&
    test "$(ccsim_requests "POST .*/nodes/create" | wc -l)" = 1 &&
    ccsim_get /ccsim/state | jq -e "[.nodes[] | select(.Name == \"htc-5\" or .Name == \"htc-6\")] | length == 2" &&
    "$top_builddir/slurm_power/ccautoscale-suspend" "htc-[5-6]" &&
    wait_for 120 sh -c "test \$(curl -s $CCSIM_URL/ccsim/state | jq \"[.nodes[] | select(.Template == \\\"htc\\\")] | length\") = 0"
'

test_expect_success 'resume of names ccautoscale does not manage hands them back with a reason' '
    "$top_builddir/slurm_power/ccautoscale-resume" --dry-run "login-[1-2]" >out &&
    test_grep "would hand back login-\[1-2\]: ccautoscale: permanent:" out &&
    "$top_builddir/slurm_power/ccautoscale-resume" --dry-run "htc-01" >out &&
    test_grep "would hand back htc-01: ccautoscale: permanent: .htc-01. is not a ccautoscale name" out
'

test_done
