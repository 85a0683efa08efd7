#!/bin/bash
# SPDX-License-Identifier: MIT
# Jobs in a colocated (InfiniBand) partition: each job's nodes share one placement group.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/ccsim.sh"
. "$(dirname "$0")/../lib/slurm.sh"
why=$(slurm_prereqs) || test_skip_all "$why"

pgs_of () {
    ccsim_get /ccsim/state | jq -r '[.nodes[] | select(.Template == "hpc") | .PlacementGroupId] | unique | .[]'
}

test_expect_success 'start Slurm; the hpc partition is exclusive' '
    slurm_start "$top_srcdir/tests/slurm/cluster.json" &&
    test_grep "^PartitionName=hpc .*OverSubscribe=EXCLUSIVE" "$SLURM_TEST_DIR/ccautoscale.conf"
'

test_expect_success 'a 4-node job lands in one placement group named for it' '
    id=$(sbatch --parsable -N4 -p hpc -o /dev/null --wrap "srun true") &&
    slurm_wait_job "$id" COMPLETED 120 &&
    test "$(pgs_of | wc -l)" = 1 &&
    test "$(pgs_of)" = "hpc_Standard_HB120rs_v3_j$id" &&
    ccsim_get /ccsim/state | jq -e "[.nodes[] | select(.Template == \"hpc\")] | length == 4"
' || slurm_dump

test_expect_success 'the nodes go away after SuspendTime' '
    wait_for 60 sh -c "test \$(curl -s $CCSIM_URL/ccsim/state | jq \"[.nodes[] | select(.Template == \\\"hpc\\\")] | length\") = 0"
' || slurm_dump

test_expect_success 'two 4-node jobs at once land in two placement groups, one each' '
    a=$(sbatch --parsable -N4 -p hpc -o /dev/null --wrap "sleep 5") &&
    b=$(sbatch --parsable -N4 -p hpc -o /dev/null --wrap "sleep 5") &&
    slurm_wait_job "$a" COMPLETED 150 && slurm_wait_job "$b" COMPLETED 150 &&
    grep -h "create 4 nodes .* placement group hpc_Standard_HB120rs_v3_j$a" "$TEST_TMP/ccautoscale.log" &&
    grep -h "create 4 nodes .* placement group hpc_Standard_HB120rs_v3_j$b" "$TEST_TMP/ccautoscale.log"
' || slurm_dump

test_done
