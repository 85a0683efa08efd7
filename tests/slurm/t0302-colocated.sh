#!/bin/bash
# SPDX-License-Identifier: MIT
# Jobs in a colocated (InfiniBand) partition: each job's nodes share one
# placement group, which holds 4 nodes (maxPlacementGroupCoreSize 32 of
# 8-core VMs; maxPlacementGroupSize is 100); a job of more is handed back,
# never spread over groups; a 1-node job needs none.  A job with a node
# already up gets its resumed node in that node's group (the resume file's
# nodes_alloc names it; 22.05's names only the nodes resumed, and the job's
# others are asked of slurmctld).  What slurmctld gives the programs it runs
# (through slurmscriptd): SLURM_CONF and SLURM_RESUME_FILE (a descriptor of
# slurmscriptd's, /proc/PID/fd/N), no PATH, HOME or USER.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/ccsim.sh"
. "$(dirname "$0")/../lib/slurm.sh"
why=$(slurm_prereqs) || test_skip_all "$why"

# The job records its nodes and ccsim's VMs while it runs (after it they soon go).
cat >"$TEST_TMP/pgjob.sh" <<'JOB'
#!/bin/sh
scontrol show hostnames "$SLURM_JOB_NODELIST" >"$TEST_TMP/nodes.$SLURM_JOB_ID"
curl -s "$CCSIM_URL/ccsim/state" >"$TEST_TMP/state.$SLURM_JOB_ID"
srun true
sleep "${1:-0}"
JOB

# The distinct PlacementGroupIds of job $1's VMs, and how many VMs it had
pgs_of_job () {
    jq -r --rawfile nodes "nodes.$1" \
        '($nodes | split("\n") | map(select(. != ""))) as $n | [.nodes[] | select(.Name as $x | $n | index($x))]
         | "\(length) \(map(.PlacementGroupId) | unique | join(","))"' "state.$1"
}

test_expect_success 'start Slurm; the hpc partition is exclusive' '
    slurm_start "$top_srcdir/tests/slurm/cluster.json" &&
    test_grep "^PartitionName=hpc .*OverSubscribe=EXCLUSIVE" "$SLURM_TEST_DIR/ccautoscale.conf"
'

test_expect_success 'a 4-node job lands in one placement group named for it' '
    id=$(sbatch --parsable -N4 -p hpc -o /dev/null "$TEST_TMP/pgjob.sh") &&
    slurm_wait_job "$id" COMPLETED 300 &&
    test_equal "$(pgs_of_job "$id")" "4 hpc_Standard_HB120rs_v3_j$id"
' || slurm_dump

# Every hpc node powered down (no VM behind it, and idle~ in Slurm): what
# follows starts from nothing.  Waiting for the VMs alone is not enough: a
# node still powering down is not schedulable, and a job submitted then waits
# for the nodes of another job, and runs in that job's placement group.
hpc_all_down () {
    wait_for 300 sh -c "test \$(curl -s $CCSIM_URL/ccsim/state | jq \"[.nodes[] | select(.Template == \\\"hpc\\\")] | length\") = 0 &&
        test \$(sinfo -h -N -p hpc -o %t | grep -cvx \"idle~\") = 0"
}

test_expect_success 'the nodes go away after SuspendTime' '
    hpc_all_down
' || slurm_dump

test_expect_success 'two 4-node jobs at once land in two placement groups, one each' '
    a=$(sbatch --parsable -N4 -p hpc -o /dev/null "$TEST_TMP/pgjob.sh" 5) &&
    b=$(sbatch --parsable -N4 -p hpc -o /dev/null "$TEST_TMP/pgjob.sh" 5) &&
    slurm_wait_job "$a" COMPLETED 300 && slurm_wait_job "$b" COMPLETED 300 &&
    test_equal "$(pgs_of_job "$a")" "4 hpc_Standard_HB120rs_v3_j$a" &&
    test_equal "$(pgs_of_job "$b")" "4 hpc_Standard_HB120rs_v3_j$b"
' || slurm_dump

test_expect_success 'a job on a node already up and one resumed: the resumed one joins its group' '
    hpc_all_down &&
    scontrol update nodename=hpc-5 state=power_up &&
    wait_for 120 sh -c "curl -s $CCSIM_URL/ccsim/state | jq -e \"[.nodes[] | select(.Name == \\\"hpc-5\\\")] | length == 1\"" &&
    pg=$(ccsim_get /ccsim/state | jq -r ".nodes[] | select(.Name == \"hpc-5\") | .PlacementGroupId") &&
    echo "hpc-5 is in $pg" && test -n "$pg" &&
    scontrol create reservation ReservationName=pgres Nodes="hpc-[5-6]" StartTime=now Duration=10 Users=root &&
    id=$(sbatch --parsable -N2 -w "hpc-[5-6]" -p hpc -C Standard_HB120rs_v3 --reservation=pgres -o /dev/null "$TEST_TMP/pgjob.sh") &&
    slurm_wait_job "$id" COMPLETED 300 &&
    test_equal "$(pgs_of_job "$id")" "2 $pg" &&
    scontrol delete ReservationName=pgres &&
    if slurm_since 23.02; then
        test_grep "job $id: resume hpc-6 of hpc-\[5-6\] (partition hpc, features Standard_HB120rs_v3, reservation pgres, oversubscribe " "$TEST_TMP/ccautoscale.log"
    else
        test_grep "job $id: resume hpc-6 of hpc-6 (partition -, features -, reservation -, oversubscribe -)" "$TEST_TMP/ccautoscale.log"
    fi
' || slurm_dump

test_expect_success 'a 1-node job in the colocated partition needs no placement group' '
    hpc_all_down &&
    id=$(sbatch --parsable -N1 -p hpc -o /dev/null "$TEST_TMP/pgjob.sh") &&
    slurm_wait_job "$id" COMPLETED 300 &&
    test_equal "$(pgs_of_job "$id")" "1 " "VMs and groups"
' || slurm_dump

test_expect_success 'a 5-node job: one group holds 4, so its nodes are handed back, none made' '
    hpc_all_down && ccsim_delete /ccsim/requests >/dev/null &&
    id=$(sbatch --parsable -N5 -p hpc -o /dev/null "$TEST_TMP/pgjob.sh") &&
    wait_for 300 sh -c "test \$(sinfo -h -N -p hpc -o \"%N|%200E\" | grep -c \"needs 5 nodes in one placement group\") -ge 5" &&
    sinfo -h -N -p hpc -o "%N|%200E" | grep "needs 5 nodes" | head -1 | cut -d"|" -f2 >reason &&
    grep "^ccautoscale: permanent: job $id needs 5 nodes in one placement group of hpc/Standard_HB120rs_v3; one holds 4 (maxPlacementGroupCoreSize 32 (8 cores per node))" reason &&
    test_equal "$(ccsim_requests "POST .*/nodes/create" | wc -l)" 0 "create requests" &&
    scancel "$id"
' || slurm_dump

test_expect_success 'the programs slurmctld ran had SLURM_CONF and SLURM_RESUME_FILE, and no PATH, HOME or USER' '
    grep "ccautoscale-resume\[[0-9]*\]: debug: environment: " "$TEST_TMP/ccautoscale.log" | tail -1 | tee env.txt &&
    test_grep "SLURM_CONF=$SLURM_CONF, SLURM_RESUME_FILE=/" env.txt &&
    test_grep "PATH unset, HOME unset, USER unset" env.txt &&
    test_grep "SLURM_RESUME_FILE=/proc/[0-9]*/fd/[0-9]*," env.txt &&
    grep "ccautoscale-suspend\[[0-9]*\]: debug: environment: " "$TEST_TMP/ccautoscale.log" | tail -1 | tee env.txt &&
    test_grep "SLURM_CONF=$SLURM_CONF, SLURM_RESUME_FILE unset, PATH unset" env.txt &&
    test_no_grep "warning: SLURM_RESUME_FILE" "$TEST_TMP/ccautoscale.log"
'

test_done
