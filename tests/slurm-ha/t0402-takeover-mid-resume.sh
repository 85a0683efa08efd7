#!/bin/bash
# SPDX-License-Identifier: MIT
# t0402-takeover-mid-resume.sh: the primary controller dies (SIGKILL of
# every process on its host: slurmctld, slurmscriptd and the resume
# program) in the middle of a resume, at a point drawn at random for each
# kill — before the program starts, while it records its create request,
# before the create is sent, while the server carries it out (answer held
# back), after the answer, while it forgets the request, and while the VM
# boots — and the backup takes over.  Every job runs, each VM is made once
# (ccsim's request log), none is left; the primary comes back and takes
# control again before the next kill.  HA_KILLS kills (default 21), the
# points drawn in rounds from a shuffle seeded by HA_SEED (printed; a
# random one by default).
#
# Timing: for each kill, Slurm's takeover (the kill until the backup
# answers) and the kill until the job runs, against one resume (a job's
# submit until it runs, measured first with no kill): the target is that
# the job runs no later than the takeover plus one resume.  Gated on the
# median ratio, the figures printed.  Before each kill the test waits for
# slurmctld to have written the job to StateSaveLocation, the program stopped
# at its point meanwhile: else the job is lost with the primary, by Slurm
# itself (ha_saved_since in tests/lib/slurm-ha.sh says why); the VMs boot in
# 6 s, so that the booting point still is one.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/ccsim.sh"
. "$(dirname "$0")/../lib/slurm.sh"
. "$(dirname "$0")/../lib/slurm-ha.sh"
why=$(ha_prereqs) || test_skip_all "$why"

KILLS=${HA_KILLS:-21}
SEED=${HA_SEED:-$(($(od -An -N2 -tu2 /dev/urandom)))}
RANDOM=$SEED
echo "# seed $SEED (HA_SEED=$SEED to draw the same points), $KILLS kills"
POINTS="start state:before-rename create:before-send in-flight create:after-reply state:before-rename@2 booting"
FIGURES=$TEST_TMP/figures # one line a kill: point takeover_s run_s
BASELINE=$TEST_TMP/baseline

now () { date +%s.%N; }
since () { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f\n", b - a }'; }

job () {  # job NODE: a job that must run on NODE; prints its id
    sbatch --parsable -p htc -w "$1" -o /dev/null --wrap "sleep 3"
}

running () {  # the job has run: RUNNING, or already COMPLETED
    case $(squeue -h -j "$1" -o %T 2>/dev/null) in RUNNING | COMPLETING | "") sacct_done "$1" ;; *) return 1 ;; esac
}

sacct_done () {  # no accounting here: a job that left the queue ran when scontrol says so
    case $(slurm_job_state "$1") in RUNNING | COMPLETING | COMPLETED) return 0 ;; *) return 1 ;; esac
}

# the points, in rounds, each round a shuffle of all of them
draw () {
    local all=($POINTS) i j t n=0
    while [ "$n" -lt "$KILLS" ]; do
        for ((i = ${#all[@]} - 1; i > 0; i--)); do
            j=$((RANDOM % (i + 1)))
            t=${all[i]} && all[i]=${all[j]} && all[j]=$t
        done
        for t in "${all[@]}"; do
            [ "$n" -lt "$KILLS" ] || break
            echo "$t"
            n=$((n + 1))
        done
    done
}

failpoint_reached () {  # the point, on ctl-a, for node $2
    case $1 in
    start) test -s "$HA/ctl-a/stopped" ;;
    in-flight) ccsim_logged_once nodes/create ;;
    booting) test "$(slurm_vm_status "$2")" != "" ;;
    *) grep -q "failpoint ${1%@*}: stopping" "$(ha_log a)" 2>/dev/null ;;
    esac
}

test_expect_success 'the pair starts' '
    CCSIM_BOOT_DELAY=6 SLURM_SUSPEND_TIME=30 ha_start "$top_srcdir/tests/slurm-ha/cluster.json" &&
    draw >points && echo "points: $(tr "\n" " " <points)"
' || ha_dump

test_expect_success 'one resume, with no kill: three jobs from submit until they run' '
    for n in 1 2 3; do
        t0=$(now) && id=$(job htc-$n) && wait_for 120 running "$id" && since "$t0" >>"$BASELINE" || return 1
    done &&
    echo "one resume: $(tr "\n" " " <"$BASELINE")s" | tee -a "$TEST_TMP/kills.log"
' || ha_dump

# kill_at INDEX POINT: one cycle on node htc-(3+INDEX)
kill_at () {
    local i=$1 point=$2 node=htc-$((3 + $1)) id t0 takeover run made
    ccsim_delete /ccsim/requests >/dev/null && ccsim_delete /ccsim/faults >/dev/null || return 1
    : >"$(ha_log a)"
    case $point in
    in-flight) ccsim_fault '{"kind": "latency", "ms": 20000, "when": "after", "match": "nodes/create", "count": 1}' || return 1 ;;
    booting) ;;
    *) ha_failpoint a "$point" ;;
    esac
    t0=$(now)
    id=$(job "$node") || return 1
    wait_for 60 failpoint_reached "$point" "$node" || { echo "kill $i: $point never reached" >&2; return 1; }
    wait_for 20 ha_saved_since "$t0" job_state || { echo "kill $i: job $id never saved" >&2; return 1; }
    t0=$(now)
    ha_kill a || return 1
    wait_for 90 ha_in_control b && wait_for 90 ha_answers || return 1
    takeover=$(since "$t0")
    wait_for 180 running "$id" || { echo "kill $i ($point): job $id never ran" >&2; return 1; }
    run=$(since "$t0")
    made=$(ccsim_made | tr "\n" " ")
    ccsim_made >>made.all
    echo "$point $takeover $run" >>"$FIGURES"
    echo "kill $i at $point: takeover ${takeover}s, job running ${run}s after the kill; made: $made" |
        tee -a "$TEST_TMP/kills.log"
    ccsim_made_once "$node" || return 1
    # the primary comes back and takes control again
    rm -f "$HA/ctl-a/failpoint"
    ha_ctld_start a && ha_wait_control a 90 && wait_for 60 ha_standing_by b || return 1
}

i=0
while read -r point; do
    i=$((i + 1))
    test_expect_success "kill $i: the primary dies at $point; the backup takes over, the job runs, its VM is made once; the primary takes control back" "
        kill_at $i $point
    " || ha_dump
done <"$TEST_TMP/points" 2>/dev/null || true

vms_all_powered_down () {  # every VM's node is one Slurm has powered down, or none is left
    test "$(slurm_vms)" = ""
}

sync_until_none () {  # the sync timer, every 5 s: orphans go on their second sighting
    ha_in a "$top_builddir/plugin/ccautoscale" -c "$HA/ctl-a/ccautoscale.json" slurm sync >/dev/null 2>&1
    vms_all_powered_down
}

test_expect_success 'none left: once idle, every node is powered down and its VM gone' '
    wait_for 240 vms_all_powered_down || WAIT_FOR_INTERVAL=5 wait_for 90 sync_until_none ||
        { echo "left: $(slurm_vms)" >&2; return 1; }
' || ha_dump

test_expect_success "over $KILLS kills: 0 duplicate VMs, 0 leaked" '
    test "$(wc -l <"$FIGURES")" = "$KILLS" &&
    dups=$(sort made.all | uniq -d | wc -l) &&
    echo "VMs made: $(wc -l <made.all), made more than once: $dups, left: $(slurm_vms | wc -w)" |
        tee -a "$TEST_TMP/kills.log" &&
    test "$dups" = 0
'

median () { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

test_expect_success 'the job runs no later than the takeover plus one resume (median over the kills)' '
    r=$(median <"$BASELINE") &&
    echo "one resume (median of 3): ${r}s" &&
    awk -v r="$r" "{ printf \"%-22s takeover %6.2fs  run %6.2fs  target %6.2fs  ratio %.2f\\n\", \$1, \$2, \$3, \$2 + r, \$3 / (\$2 + r) }" "$FIGURES" | tee table &&
    awk -v r="$r" "{ print \$3 / (\$2 + r) }" "$FIGURES" | median >ratio &&
    awk "{ print \$2 }" "$FIGURES" | median >takeover &&
    echo "median takeover $(cat takeover)s; median ratio $(cat ratio) (target: at most 1)" | tee -a table &&
    cat table >>"$TEST_TMP/kills.log" &&
    awk -v m="$(cat ratio)" "BEGIN { exit !(m <= 1.0) }"
'

# the figures, whatever the outcome (TAP comments)
sed 's/^/# /' "$TEST_TMP/kills.log" 2>/dev/null
test_done
