#!/bin/bash
# SPDX-License-Identifier: MIT
# Concurrency: 50 resume programs at once on overlapping and disjoint
# hostlists, then resume and suspend racing on the same names, against a real
# slurmctld.  No VM is created twice, none is lost or left behind, nothing
# deadlocks, and every program finishes within its bound (slurm.lock_timeout).
# VMs are records only (no slurmd): this is about the programs, not booting.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/ccsim.sh"
. "$(dirname "$0")/../lib/slurm.sh"
why=$(slurm_prereqs) || test_skip_all "$why"
RESUME=$top_builddir/slurm_power/ccautoscale-resume
SUSPEND=$top_builddir/slurm_power/ccautoscale-suspend
BOUND=30 # seconds: slurm.lock_timeout (20) and one pass

# run "NAME PROGRAM HOSTLIST" lines at once; each writes its exit status and seconds
run_all () {
    local i=0 name prog hl pids=""
    while read -r name prog hl; do
        i=$((i + 1))
        (
            start=$(date +%s%N)
            "$prog" "$hl" >"run.$i.out" 2>&1
            rc=$?
            echo "$name $hl $rc $(( ($(date +%s%N) - start) / 1000000000 ))" >"run.$i.rc"
        ) &
        pids="$pids $!"
    done
    # only these: ccsim and slurmctld are this shell's children too
    # shellcheck disable=SC2086
    wait $pids
}

# every VM name in ccsim appears once
no_duplicates () {
    ccsim_get /ccsim/state | jq -r '.nodes[].Name' | sort | uniq -d >dups
    test_equal "$(cat dups)" ""
}

slow_or_failed () { # runs that did not exit 0 within BOUND
    awk -v b=$BOUND '$3 != 0 || $4 > b' run.*.rc
}

test_expect_success 'start Slurm with the demo cluster, VMs as records only' '
    SLURM_VM_HOOKS=0 SLURM_RESUME_TIMEOUT=600 SLURM_SUSPEND_TIME=600 \
        slurm_start "$top_srcdir/tests/ccsim/clusters/demo.json" ".logging.level = \"info\"" &&
    test "$(sinfo -h -N -o %N | wc -l)" = 36
'

test_expect_success '50 resumes at once, overlapping and disjoint: every name created exactly once' '
    for i in $(seq 0 49); do
        a=$((i % 13 + 1)) b=$((i % 5 + 1))
        case $((i % 3)) in
        0) echo "r$i $RESUME htc-[$a-$((a + 3))]" ;;
        1) echo "r$i $RESUME hpc-[$b-$((b + 3))]" ;;
        2) echo "r$i $RESUME htc-$a,hpc-$((b + 8))" ;;
        esac
    done >plan &&
    ccsim_delete /ccsim/requests >/dev/null &&
    start=$(date +%s) &&
    run_all <plan &&
    echo "50 resumes in $(($(date +%s) - start)) s" &&
    test "$(ls run.*.rc | wc -l)" = 50 &&
    test_equal "$(slow_or_failed)" "" &&
    no_duplicates &&
    # the union of the hostlists: htc-1..16, hpc-1..8 and hpc-9..13
    ccsim_get /ccsim/state | jq -r ".nodes[].Name" | sort -V >made &&
    { seq -f "htc-%g" 1 16; seq -f "hpc-%g" 1 8; seq -f "hpc-%g" 9 13; } | sort -V >want &&
    test_equal "$(comm -3 made want | tr "\n" " ")" "" &&
    echo "$(ccsim_requests "POST .*/nodes/create" | wc -l) create requests"
' || slurm_dump

test_expect_success 'suspend racing resume on the same names: no duplicates, no deadlock' '
    rm -f run.* &&
    for i in $(seq 0 39); do
        if [ $((i % 2)) = 0 ]; then echo "s$i $SUSPEND htc-[1-16]"; else echo "r$i $RESUME htc-[1-16]"; fi
    done >plan &&
    run_all <plan &&
    test "$(ls run.*.rc | wc -l)" = 40 &&
    test_equal "$(slow_or_failed)" "" &&
    no_duplicates
' || slurm_dump

test_expect_success 'a last suspend of everything leaves no VM behind' '
    "$SUSPEND" "htc-[1-16],hpc-[1-16]" &&
    wait_for 30 sh -c "test \$(curl -s $CCSIM_URL/ccsim/state | jq \".nodes | length\") = 0"
' || slurm_dump

test_done
