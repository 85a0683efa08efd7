#!/bin/bash
# SPDX-License-Identifier: MIT
# t0312-resume-file.sh: a SLURM_RESUME_FILE that is bad — truncated (in
# either shape), not JSON, empty, unreadable (a memfd of slurmscriptd's read
# after it is gone; a directory), or naming nodes the hostlist does not —
# costs no node its VM: every name of the hostlist is created (in one
# placement group for the hostlist, as without a file), only those, and the
# log says what was wrong with the file.  (VMs are records only: the resume
# program is run by hand, on the colocated hpc nodearray.)
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/ccsim.sh"
. "$(dirname "$0")/../lib/slurm.sh"
why=$(slurm_prereqs) || test_skip_all "$why"
RESUME=$top_builddir/slurm_power/ccautoscale-resume
SUSPEND=$top_builddir/slurm_power/ccautoscale-suspend

hpc_vms () {
    ccsim_get /ccsim/state | jq -r '[.nodes[] | select(.Template == "hpc") | .Name] | sort | join(" ")'
}

# resume_with NAME HOSTLIST: run resume with the file NAME (a path) on
# HOSTLIST; it must exit 0
resume_with () {
    : >"$TEST_TMP/ccautoscale.log" &&
        SLURM_RESUME_FILE=$1 "$RESUME" "$2" &&
        cat "$TEST_TMP/ccautoscale.log"
}

# every name got its VM, in one placement group, and nothing else; then they go
all_made_then_gone () {
    test_equal "$(hpc_vms)" "$1" "VMs" &&
        test_equal "$(ccsim_get /ccsim/state | jq -r '[.nodes[] | .PlacementGroupId] | unique | length')" 1 "groups" &&
        "$SUSPEND" "$(echo "$1" | tr " " ",")" &&
        wait_for 60 sh -c "test \$(curl -s $CCSIM_URL/ccsim/state | jq \".nodes | length\") = 0"
}

test_expect_success 'start Slurm (no slurmd: VMs are records)' '
    SLURM_VM_HOOKS=0 SLURM_SUSPEND_TIME=3600 slurm_start "$top_srcdir/tests/slurm/cluster.json" &&
    export CCAUTOSCALE_CONFIG=$CCAS_CONF
' || slurm_dump

test_expect_success 'truncated (23.02+ shape): every name is created; the log says where the JSON ends' '
    printf "%s" "{\"jobs\":[{\"extra\":null,\"job_id\":2,\"features\":null,\"nodes_alloc\":\"hpc-[1-2]\",\"nodes_res" >trunc25.json &&
    resume_with "$TEST_TMP/trunc25.json" "hpc-[1-2]" &&
    test_grep "warning: SLURM_RESUME_FILE.*; every name is resumed, with no job ids" "$TEST_TMP/ccautoscale.log" &&
    all_made_then_gone "hpc-1 hpc-2"
' || slurm_dump

test_expect_success 'truncated (22.05 shape), not JSON, empty: the same' '
    printf "%s" "{\"jobs\":[{\"job_id\":7,\"nodes\":\"hpc-[1-2]\"}],\"all_nod" >trunc22.json &&
    echo "hpc-[1-2]" >notjson.json && : >empty.json &&
    for f in trunc22 notjson empty; do
        resume_with "$TEST_TMP/$f.json" "hpc-[1-2]" &&
        test_grep "warning: SLURM_RESUME_FILE" "$TEST_TMP/ccautoscale.log" &&
        all_made_then_gone "hpc-1 hpc-2" || { echo "with $f.json"; return 1; }
    done &&
    resume_with "$TEST_TMP/empty.json" "hpc-3" && test_grep "empty.json: empty" "$TEST_TMP/ccautoscale.log" &&
    all_made_then_gone "hpc-3"
' || slurm_dump

# slurmscriptd hands ResumeProgram /proc/PID/fd/N, a memfd gone with its process
test_expect_success 'unreadable: a memfd whose process is gone, a directory: named in the log' '
    resume_with /proc/2147483646/fd/3 "hpc-[4-5]" &&
    test_grep "warning: SLURM_RESUME_FILE: .*/proc/2147483646/fd/3" "$TEST_TMP/ccautoscale.log" &&
    all_made_then_gone "hpc-4 hpc-5" &&
    resume_with "$TEST_TMP" "hpc-6" &&
    test_grep "warning: SLURM_RESUME_FILE: .*$TEST_TMP" "$TEST_TMP/ccautoscale.log" &&
    all_made_then_gone "hpc-6"
' || slurm_dump

test_expect_success 'a file naming nodes the hostlist does not: only the hostlist is created; the others named' '
    echo "{\"jobs\":[{\"job_id\":9,\"nodes_alloc\":\"hpc-[1-4]\",\"nodes_resume\":\"hpc-[3-4]\",\"partition\":\"hpc\"}],\"all_nodes_resume\":\"hpc-[3-4,8]\"}" >other.json &&
    resume_with "$TEST_TMP/other.json" "hpc-[1-2]" &&
    test_grep "warning: SLURM_RESUME_FILE names hpc-\[3-4,8\], which the hostlist does not: only the hostlist" "$TEST_TMP/ccautoscale.log" &&
    all_made_then_gone "hpc-1 hpc-2"
' || slurm_dump

test_expect_success 'a good file of each shape: the job named, its group named for it' '
    echo "{\"jobs\":[{\"job_id\":21,\"nodes\":\"hpc-[1-2]\"}],\"all_nodes\":\"hpc-[1-2]\"}" >good22.json &&
    resume_with "$TEST_TMP/good22.json" "hpc-[1-2]" &&
    test_no_grep "warning" "$TEST_TMP/ccautoscale.log" &&
    test_equal "$(ccsim_get /ccsim/state | jq -r "[.nodes[].PlacementGroupId] | unique | join(\" \")")" "hpc_Standard_HB120rs_v3_j21" "group" &&
    all_made_then_gone "hpc-1 hpc-2" &&
    echo "{\"jobs\":[{\"extra\":null,\"job_id\":22,\"features\":\"Standard_HB120rs_v3\",\"nodes_alloc\":\"hpc-[3-4]\",\"nodes_resume\":\"hpc-[3-4]\",\"oversubscribe\":\"NO\",\"partition\":\"hpc\",\"reservation\":\"maint\"}],\"all_nodes_resume\":\"hpc-[3-4]\"}" >good25.json &&
    resume_with "$TEST_TMP/good25.json" "hpc-[3-4]" &&
    test_no_grep "warning" "$TEST_TMP/ccautoscale.log" &&
    test_grep "job 22: resume hpc-\[3-4\] of hpc-\[3-4\] (partition hpc, features Standard_HB120rs_v3, reservation maint, oversubscribe NO)" "$TEST_TMP/ccautoscale.log" &&
    test_equal "$(ccsim_get /ccsim/state | jq -r "[.nodes[].PlacementGroupId] | unique | join(\" \")")" "hpc_Standard_HB120rs_v3_j22" "group" &&
    all_made_then_gone "hpc-3 hpc-4"
' || slurm_dump

test_done
