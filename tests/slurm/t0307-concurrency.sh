#!/bin/bash
# SPDX-License-Identifier: MIT
# Concurrency: 50 resume programs at once on overlapping and disjoint
# hostlists, then resume and suspend racing on the same names, against a real
# slurmctld.  ccsim's request log shows every name made exactly once; after
# the race, what the last program to hold the lock was asked decides every
# name — no node lost (resumed, yet neither a VM nor handed back to Slurm),
# no orphan (suspended, yet its VM still there); nothing deadlocks (a run
# still going past its bound fails the test instead of hanging it), and every
# program finishes within its bound (slurm.lock_timeout and one pass).  The
# lock timeout is long: 50 programs queue for the lock, and on a busy machine
# each pass is slower, so a short one fails programs for want of time, not
# for a fault.
# VMs are records only (no slurmd): this is about the programs, not booting.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/ccsim.sh"
. "$(dirname "$0")/../lib/slurm.sh"
why=$(slurm_prereqs) || test_skip_all "$why"
RESUME=$top_builddir/slurm_power/ccautoscale-resume
SUSPEND=$top_builddir/slurm_power/ccautoscale-suspend
LOCK_TIMEOUT=300
BOUND=$((LOCK_TIMEOUT + 60)) # seconds: slurm.lock_timeout and one pass

# run "NAME PROGRAM HOSTLIST" lines at once; each writes its exit status and
# seconds.  Any still running BOUND + 15 s after the start is a deadlock:
# killed, and the call fails.
run_all () {
    local i=0 name prog hl pids="" left
    while read -r name prog hl; do
        i=$((i + 1))
        (
            t0=$(date +%s%N)
            "$prog" "$hl" >"run.$i.out" 2>&1
            rc=$?
            echo "$name $hl $rc $(( ($(date +%s%N) - t0) / 1000000000 ))" >"run.$i.rc"
        ) &
        pids="$pids $!"
    done
    # shellcheck disable=SC2086
    if ! wait_for $((BOUND + 15)) none_running $pids; then
        left=0
        for p in $pids; do kill -0 "$p" 2>/dev/null && left=$((left + 1)); done
        echo "$left of $i programs still running after $((BOUND + 15)) s: deadlocked" >&2
        # the programs first: once their subshells die they are init's
        pkill -KILL -P "$(echo $pids | tr ' ' ',')" 2>/dev/null
        # shellcheck disable=SC2086
        kill -KILL $pids 2>/dev/null
        return 1
    fi
    # only these: ccsim and slurmctld are this shell's children too
    # shellcheck disable=SC2086
    wait $pids
}

none_running () {
    local p
    for p in "$@"; do kill -0 "$p" 2>/dev/null && return 1; done
    return 0
}

slow_or_failed () { # runs that did not exit 0 within BOUND
    awk -v b=$BOUND '$3 != 0 || $4 > b' run.*.rc
}

htc_vms () {
    ccsim_get /ccsim/state | jq -r '[.nodes[] | select(.Template == "htc") | .Name] | sort_by(ltrimstr("htc-") | tonumber) | join(" ")'
}

test_expect_success 'start Slurm with the demo cluster, VMs as records only' '
    SLURM_VM_HOOKS=0 SLURM_RESUME_TIMEOUT=600 SLURM_SUSPEND_TIME=600 \
        slurm_start "$top_srcdir/tests/ccsim/clusters/demo.json" ".logging.level = \"info\" | .slurm.lock_timeout = $LOCK_TIMEOUT" &&
    test "$(sinfo -h -N -o %N | wc -l)" = 36
'

test_expect_success '50 resumes at once, overlapping and disjoint: every name made exactly once' '
    # 46 runs whose hostlists overlap (each htc and hpc-1..13 name is in
    # several), and 4 whose names no other run asks for (the GPU quota
    # allows one GPU VM)
    for i in $(seq 0 45); do
        a=$((i % 13 + 1)) b=$((i % 5 + 1))
        case $((i % 3)) in
        0) echo "r$i $RESUME htc-[$a-$((a + 3))]" ;;
        1) echo "r$i $RESUME hpc-[$b-$((b + 3))]" ;;
        2) echo "r$i $RESUME htc-$a,hpc-$((b + 8))" ;;
        esac
    done >plan &&
    for d in gpu-1 hpc-14 hpc-15 hpc-16; do echo "d-$d $RESUME $d"; done >>plan &&
    ccsim_delete /ccsim/requests >/dev/null &&
    start=$(date +%s) &&
    run_all <plan &&
    echo "50 resumes in $(($(date +%s) - start)) s" &&
    test "$(ls run.*.rc | wc -l)" = 50 &&
    test_equal "$(slow_or_failed)" "" &&
    # the union of the hostlists, each made once in the log
    ccsim_made_once "$(seq -f "htc-%g" 1 16) $(seq -f "hpc-%g" 1 16) gpu-1" &&
    test_equal "$(ccsim_get /ccsim/state | jq ".nodes | length")" 33 "VMs" &&
    echo "$(ccsim_requests "POST .*/nodes/create" | wc -l) create requests"
' || slurm_dump

# "NAME OP INDEX" for each htc name: what the last program to hold the lock
# was asked of it (OP resume or suspend; INDEX its line in the events file,
# where every program wrote its request under the lock, so in lock order)
last_asked () {
    jq -r -s 'to_entries[] | select(.value.event | test("^(resume|suspend)_requested$")) |
              "\(.key) \(.value.event | sub("_requested$"; "")) \(.value.nodes)"' "$EV" |
        while read -r k op hl; do
            for n in $(scontrol show hostnames "$hl"); do echo "$n $op $k"; done
        done | awk '{ last[$1] = $2 " " $3 } END { for (n in last) print n, last[n] }' | grep '^htc-' | sort -V
}

# A name whose last request was a suspend and still has a VM is an orphan; one
# whose last was a resume and has no VM, and was not handed back to Slurm by
# that resume (a "failed" event after it), is lost: Slurm would wait for it.
lost_or_orphaned () {
    local vms n op k
    vms=" $(htc_vms) "
    last_asked >last_asked && test "$(wc -l <last_asked)" = 16 || { echo "no request for some htc name" >&2; return 1; }
    while read -r n op k; do
        case "$op:$vms" in
        suspend:*" $n "*) echo "orphan: $n (suspended, VM still there)" ;;
        resume:*" $n "*) ;;
        resume:*)
            jq -e -s --arg n "$n" --argjson k "$k" '[.[$k + 1:][] | select(.event == "failed" and .node == $n)] | length > 0' \
                "$EV" >/dev/null || echo "lost: $n (resumed, no VM, not handed back)" ;;
        esac
    done <last_asked
}

# Once every program is done — those run here, and the SuspendProgram runs
# slurmctld starts for nodes a resume handed back — no name may be lost or
# orphaned.
settled_without_loss () {
    wait_for 120 sh -c "! sinfo -h -N -o %t -n htc-[1-16] | grep -q %" &&
    wait_for "$BOUND" flock -n "$TEST_TMP/lock" true &&
    wait_for 120 sh -c "test \"\$(curl -s $CCSIM_URL/ccsim/state | jq \"[.nodes[] | select(.Status == \\\"Terminating\\\")] | length\")\" = 0" &&
    lost_or_orphaned >problems &&
    echo "last asked: $(cut -d" " -f2 last_asked | sort | uniq -c | tr -s " \n" " ")" &&
    echo "handed back: $(jq -r -s "[.[] | select(.event == \"failed\") | .node] | length" "$EV")" &&
    test_equal "$(cat problems)" ""
}

test_expect_success 'suspend racing resume on the same names: no deadlock, no node lost, no orphan' '
    rm -f run.* &&
    EV=$TEST_TMP/state/events.jsonl &&
    for i in $(seq 0 39); do
        if [ $((i % 2)) = 0 ]; then echo "s$i $SUSPEND htc-[1-16]"; else echo "r$i $RESUME htc-[1-16]"; fi
    done >plan &&
    run_all <plan &&
    test "$(ls run.*.rc | wc -l)" = 40 &&
    test_equal "$(slow_or_failed)" "" &&
    settled_without_loss
' || slurm_dump

# Which program held the lock last in the race is chance; this order is not:
# a resume while the VMs of a suspend are still terminating must hand them
# back, never take a VM on its way out for one that will stay.  The VMs are
# held terminating (boot_delay / 4: 15 minutes) until the resume has run;
# boot_delay 3 then lets them go (ccsim brings their next step forward).
test_expect_success 'a resume right after a suspend, while its VMs terminate: each node handed back, none lost' '
    "$RESUME" "htc-[1-16]" >/dev/null 2>&1 &&
    ccsim_post /ccsim/config "{\"boot_delay\": 3600}" >/dev/null &&
    "$SUSPEND" "htc-[1-16]" && "$RESUME" "htc-[1-16]" &&
    test "$(ccsim_get /ccsim/state | jq "[.nodes[] | select(.Status == \"Terminating\")] | length")" -gt 0 &&
    ccsim_post /ccsim/config "{\"boot_delay\": 3}" >/dev/null &&
    settled_without_loss
' || slurm_dump

test_expect_success 'a last suspend of everything leaves no VM behind' '
    "$SUSPEND" "htc-[1-16],hpc-[1-16],gpu-1" &&
    wait_for 120 sh -c "test \$(curl -s $CCSIM_URL/ccsim/state | jq \".nodes | length\") = 0"
' || slurm_dump

test_done
