#!/bin/bash
# SPDX-License-Identifier: MIT
# bench.sh: the speed and memory targets of the issues, measured on generated
# inputs against ccsim (and a real slurmctld for the power programs).  Prints
# one line per figure with its target, writes them all to bench-results.json,
# and exits non-zero when a target is missed.  Run by `make bench`.
#
# Each timed command runs BENCH_RUNS times (default 5); the targets are judged
# on the best wall time (what the code costs; slower runs measure a busy host,
# as timeit and hyperfine also hold), the median CPU time and the largest
# peak RSS.  The median wall time is kept in the results too.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/ccsim.sh"
. "$(dirname "$0")/../lib/slurm.sh"
set -u
BENCH_BIN=$top_builddir/tests/bench
GEN=$top_srcdir/tests/bench
CCAS=$top_builddir/plugin/ccautoscale
RUNS=${BENCH_RUNS:-5}
RESULTS=${BENCH_RESULTS:-$top_builddir/tests/bench/bench-results.json}
missed=0
cd "$TEST_TMP"
echo "[" >results.tmp

# measure NAME CMD... -> NAME.json {wall_ms, wall_median_ms, cpu_ms, maxrss_kb} (min, median, median, max)
measure () {
    local name=$1 i
    shift
    : >"$name.runs"
    for i in $(seq "$RUNS"); do
        "$BENCH_BIN/benchrun" -o "$name.out" -- "$@" >>"$name.runs" || return 1
    done
    jq -s '{wall_ms: (map(.wall_ms) | min), wall_median_ms: (map(.wall_ms) | sort | .[length / 2 | floor]),
            cpu_ms: (map(.cpu_ms) | sort | .[length / 2 | floor]),
            maxrss_kb: (map(.maxrss_kb) | max), exit: (map(.exit) | max)}' "$name.runs" >"$name.json"
    if [ "$(jq .exit "$name.json")" != 0 ]; then
        echo "bench: $name: the command failed: $*" >&2
        missed=$((missed + 1))
    fi
}

# target WHAT VALUE OP LIMIT UNIT: OP is -le or -eq (numbers may be decimals)
target () {
    local what=$1 value=$2 op=$3 limit=$4 unit=$5 ok
    case $op in
    -le) ok=$(jq -n "$value <= $limit") ;;
    -eq) ok=$(jq -n "$value == $limit") ;;
    esac
    printf '%-58s %10s %-3s  target %s %s  %s\n' "$what" "$value" "$unit" "$([ "$op" = -le ] && echo "<=" || echo "==")" \
        "$limit" "$([ "$ok" = true ] && echo ok || echo MISSED)"
    jq -n --arg what "$what" --argjson value "$value" --arg op "$op" --argjson limit "$limit" --arg unit "$unit" \
        --argjson ok "$ok" '{what: $what, value: $value, op: $op, limit: $limit, unit: $unit, ok: $ok}' >>results.tmp
    echo "," >>results.tmp
    [ "$ok" = true ] || missed=$((missed + 1))
}

# figure WHAT VALUE UNIT: a figure reported without a target
figure () {
    printf '%-58s %10s %-3s  (no target)\n' "$1" "$2" "$3"
}

field () { jq ".$2" "$1.json"; }
# extra LOUD QUIET: how much more LOUD is than QUIET, in percent to one decimal
extra () { jq -n "($1 - $2) / $2 * 1000 | round / 10"; }
# instructions FILE: the total a callgrind output file counted
instructions () { sed -n 's/^summary: *//p' "$1"; }
mb () { jq -n "$1 / 1024 | . * 10 | round / 10"; }
requests () { ccsim_requests "${1:-}" | wc -l; }

echo "# ccautoscale benchmarks on $(nproc) cores, $(date -u +%Y-%m-%dT%H:%MZ)"

# ---- issue 2: buckets over 10,000 nodes and 50 buckets --------------------------------------------
"$GEN/gen-cluster" bench 10 5 10000 >cluster.json
ccsim_start cluster.json --boot-delay 0 >/dev/null || exit 1
export CCAUTOSCALE_CONFIG=$TEST_TMP/autoscale.json
CCSIM_CLUSTER_FILE=cluster.json ccsim_write_config "$CCAUTOSCALE_CONFIG"
wait_for 30 sh -c "test \$(curl -s '$CCSIM_URL/ccsim/state' | jq '[.nodes[] | select(.Status == \"Ready\")] | length') = 10000"
ccsim_delete /ccsim/requests >/dev/null
measure buckets "$CCAS" buckets --json
target "buckets --json: status requests per run" "$(($(requests "GET .*/status") / RUNS))" -eq 1 req
target "buckets --json: nodes requests per run" "$(($(requests "GET .*/nodes") / RUNS))" -le 1 req
target "buckets --json (10k nodes, 50 buckets): client CPU" "$(field buckets cpu_ms)" -le 150 ms
target "buckets --json: peak RSS" "$(mb "$(field buckets maxrss_kb)")" -le 50 MB
measure simstatus curl -sS -o /dev/null "$CCSIM_URL/clusters/bench/status"
target "ccsim: a status read of the 10k-node cluster: wall" "$(field simstatus wall_ms)" -le 100 ms
measure simstatusn curl -sS -o /dev/null "$CCSIM_URL/clusters/bench/status?nodes=true"
figure "ccsim: status?nodes=true (10k node records): wall" "$(field simstatusn wall_ms)" ms
measure nodes "$CCAS" nodes --json
figure "nodes --json (10k nodes): client CPU" "$(field nodes cpu_ms)" ms

# ---- issue 3: demand over 100,000 jobs, 10,000 nodes, 50 buckets ----------------------------------
curl -sS "$CCSIM_URL/clusters/bench/status?nodes=true" >status.json
"$GEN/gen-jobs" 10000 >jobs10k.json
"$GEN/gen-jobs" 100000 >jobs100k.json
measure parse100k "$BENCH_BIN/jsonparse" jobs100k.json status.json
measure demand10k "$CCAS" demand --jobs jobs10k.json --status status.json --json
# best of five: on a shared 2-core host this one (~0.9 s) is the figure closest to its target
RUNS_SAVED=$RUNS RUNS=$((RUNS > 5 ? RUNS : 5))
measure demand100k "$CCAS" demand --jobs jobs100k.json --status status.json --json
RUNS=$RUNS_SAVED
jq -e '.jobs | length == 100000' demand100k.out >/dev/null || { echo "bench: demand did not report 100000 jobs" >&2; missed=$((missed + 1)); }
t100=$(field demand100k wall_ms)
target "demand (100k jobs, 10k nodes, 50 buckets): wall" "$t100" -le 1000 ms
target "demand 100k: peak RSS" "$(mb "$(field demand100k maxrss_kb)")" -le 200 MB
target "demand 100k / json-c parse of the same files" "$(jq -n "$t100 / $(field parse100k wall_ms) * 100 | round / 100")" -le 3 x
target "demand: 10x the jobs costs (time ratio 100k/10k)" "$(jq -n "$t100 / $(field demand10k wall_ms) * 100 | round / 100")" -le 12 x
ccsim_stop

# ---- issue 8: the cost of events and metrics in a demand --apply over 100,000 jobs ---------------
# The same cluster with room for 20 more VMs per bucket (1,000 in all), so that the plan over
# 100,000 jobs is carried out in full without ccsim booting 26,000 VMs: 1,000 created, the rest
# reported unmet.  Each run starts from a fresh ccsim and an empty state directory.  The CPU time
# of two runs each way is reported; it moves by +-6% from run to run on a shared host, more than
# the target, so the gate counts instructions (callgrind), events and metrics off and on.
"$GEN/gen-cluster" bench 10 5 10000 220 >dcluster.json
apply_once () {  # NAME JQ cpu|instructions: CPU appended to NAME.runs, or instructions to NAME.cg
    local name=$1 conf=$2 how=$3
    ccsim_start dcluster.json --boot-delay 0 >/dev/null || return 1
    CCSIM_CLUSTER_FILE=dcluster.json ccsim_write_config "$CCAUTOSCALE_CONFIG" "$conf | .logging.level = \"warning\""
    rm -rf "$TEST_TMP/state"
    wait_for 30 sh -c "test \$(curl -s '$CCSIM_URL/ccsim/state' | jq '[.nodes[] | select(.Status == \"Ready\")] | length') = 10000"
    if [ "$how" = cpu ]; then
        "$BENCH_BIN/benchrun" -o "$name.out" -- "$CCAS" demand --jobs jobs100k.json --apply --json >>"$name.runs"
    else
        valgrind -q --tool=callgrind --callgrind-out-file="$name.cg" \
            "$CCAS" demand --jobs jobs100k.json --apply --json >"$name.out"
    fi
    jq -e '.jobs | length == 100000' "$name.out" >/dev/null || { echo "bench: $name: demand --apply did not report 100000 jobs" >&2; missed=$((missed + 1)); }
    test "$(ccsim_node_count)" = 11000 || { echo "bench: $name: demand --apply left $(ccsim_node_count) VMs, not 11000" >&2; missed=$((missed + 1)); }
    ccsim_stop
}
: >applyquiet.runs && : >applyloud.runs
for i in 1 2; do
    apply_once applyquiet '.events.file = "" | .metrics.file = ""' cpu
    apply_once applyloud '.' cpu
done
for m in applyquiet applyloud; do
    jq -s '{cpu_ms: (map(.cpu_ms) | min), exit: (map(.exit) | max)}' "$m.runs" >"$m.json"
    [ "$(field "$m" exit)" = 0 ] || { echo "bench: $m: demand --apply failed" >&2; missed=$((missed + 1)); }
done
test "$(grep -c '"event":"created"' "$TEST_TMP/state/events.jsonl")" -ge 1 ||
    { echo "bench: demand --apply wrote no events" >&2; missed=$((missed + 1)); }
grep -q '^ccautoscale_nodes_created_total' "$TEST_TMP/state/ccautoscale.prom" ||
    { echo "bench: demand --apply wrote no metrics" >&2; missed=$((missed + 1)); }
figure "demand --apply (100k jobs, 1,000 VMs created), events and metrics off: CPU" "$(field applyquiet cpu_ms)" ms
figure "demand --apply (100k jobs), events and metrics on: CPU" "$(field applyloud cpu_ms)" ms
if command -v valgrind >/dev/null; then
    apply_once applyquiet '.events.file = "" | .metrics.file = ""' instructions
    apply_once applyloud '.' instructions
    irq=$(instructions applyquiet.cg) irl=$(instructions applyloud.cg)
    figure "demand --apply (100k jobs), events and metrics off: instructions" "${irq:-0}" ""
    figure "demand --apply (100k jobs), events and metrics on: instructions" "${irl:-0}" ""
    if [ -n "$irq" ] && [ -n "$irl" ]; then
        target "events and metrics: extra instructions of a demand --apply over 100k jobs" \
            "$(extra "$irl" "$irq")" -le 5 %
    else
        echo "bench: a demand --apply under callgrind failed" >&2
        missed=$((missed + 1))
    fi
fi

# ---- issue 5: a PBS pass over 50,000 queued jobs and 5,000 nodes ----------------------------------
# A real `pbs autoscale` pass: PBS's commands are stand-ins (tests/bench/gen-pbs)
# that print files generated in PBS's format and log every other call.  The
# pass reports how long it waited on PBS's commands (pbs_command_seconds: from
# each spawn to its exit collected), which is taken out of its wall time.  The
# cluster has room for 100 more nodes, so the pass's create stays one a real
# CycleCloud answers at once; 1 VM in 50 is joined and 1 PBS node in 100, whose
# VM has gone, deleted.  `pbs demand`, the same pass as a dry run, is measured
# too, less its stand-ins' time measured apart.
"$GEN/gen-cluster" pbsbench 1 5 5000 | jq '.nodearrays[0].maxCount = 5100' >pcluster.json
ccsim_start pcluster.json --boot-delay 0 >/dev/null || exit 1
CCSIM_CLUSTER_FILE=pcluster.json ccsim_write_config "$CCAUTOSCALE_CONFIG" \
    ".pbs.bin_dir = \"$TEST_TMP/pbsbin\" | .logging.level = \"warning\" | .request_timeout = 120"
wait_for 60 sh -c "test \$(curl -s '$CCSIM_URL/ccsim/state' | jq '[.nodes[] | select(.Status == \"Ready\")] | length') = 5000"
ccsim_get /ccsim/state >pstate.json
"$GEN/gen-pbs" pstate.json 50000 qstat.json pbsnodes.json pbsbin
measure pbsqstat pbsbin/qstat -f -t -F json
measure pbsnodeslist pbsbin/pbsnodes -a -F json
measure pbsdemand "$CCAS" pbs demand --json
jq -e '.jobs | length == 50000' pbsdemand.out >/dev/null || { echo "bench: pbs demand did not report 50000 jobs" >&2; missed=$((missed + 1)); }
stand_ins_ms=$(jq -n "$(field pbsqstat wall_ms) + $(field pbsnodeslist wall_ms) | . * 10 | round / 10")
figure "PBS: qstat (50k jobs, $(($(stat -c %s qstat.json) / 1048576)) MB) + pbsnodes (5k): the stand-ins' own time" "$stand_ins_ms" ms
target "PBS dry pass (pbs demand, 50k jobs, 5k nodes) less the stand-ins: wall" \
    "$(jq -n "$(field pbsdemand wall_ms) - $stand_ins_ms | . * 10 | round / 10")" -le 2000 ms
: >pbsbin/calls.log
ccsim_delete /ccsim/requests >/dev/null
RUNS_SAVED=$RUNS RUNS=1
measure pbsautoscale "$CCAS" pbs autoscale --json
RUNS=$RUNS_SAVED
calls=$(wc -l <pbsbin/calls.log)
joins=$(jq '.pbs.join | map(select(.outcome == "done")) | length' pbsautoscale.out)
forgets=$(jq '.pbs.forget | map(select(.outcome == "done")) | length' pbsautoscale.out)
{ [ "$joins" -ge 90 ] && [ "$forgets" = 50 ] && [ "$(requests "POST .*/nodes/create")" = 1 ]; } ||
    { echo "bench: pbs autoscale did not do the pass's work: $joins joins, $forgets deletions" >&2; missed=$((missed + 1)); }
waited_ms=$(jq '.pbs_command_seconds * 10000 | round / 10' pbsautoscale.out)
figure "PBS pass: $((calls + 2)) PBS commands ($joins joins, $forgets deletions), waited on" "$waited_ms" ms
target "PBS pass (pbs autoscale, 50k jobs, 5k nodes) less PBS's commands: wall" \
    "$(jq -n "$(field pbsautoscale wall_ms) - $waited_ms | . * 10 | round / 10")" -le 2000 ms
figure "PBS pass: peak RSS" "$(mb "$(field pbsautoscale maxrss_kb)")" MB
ccsim_stop
rm -rf "$TEST_TMP/state" # the pass kept 5,000 nodes' times there; the Slurm runs start afresh

# ---- issue 4: resume, suspend and sync against a real slurmctld -----------------------------------
if why=$(slurm_prereqs); then
    "$GEN/gen-cluster" slurmbench 1 1 0 10000 | jq '.nodearrays[0].nodearray.MachineType = "Standard_F2s_v2"' >scluster.json
    SLURM_VM_HOOKS=0 CCSIM_BOOT_DELAY=1 SLURM_SUSPEND_TIME=3600 \
        slurm_start "$TEST_TMP/scluster.json" 'del(.slurm.node_port_base) | .slurm.max_nodes = 10000 | .logging.level = "warning"' ||
        { cat "$TEST_TMP/ccsim.out"; exit 1; }
    export CCAUTOSCALE_CONFIG=$CCAS_CONF
    jq -n '{jobs: [range(10) as $j | {job_id: (1000 + $j), partition: "htc",
             nodes: "htc-[\($j * 100 + 1)-\($j * 100 + 100)]"}], all_nodes_resume: "htc-[1-1000]"}' >resume.json
    ccsim_delete /ccsim/requests >/dev/null
    RUNS_SAVED=$RUNS RUNS=1
    SLURM_RESUME_FILE=$TEST_TMP/resume.json measure resume "$top_builddir/slurm_power/ccautoscale-resume" "htc-[1-1000]"
    target "resume of 1,000 nodes for 10 jobs: HTTP requests" "$(requests)" -le 4 req
    target "resume of 1,000 nodes: wall" "$(field resume wall_ms)" -le 300 ms
    test "$(ccsim_node_count)" = 1000 || { echo "bench: resume made $(ccsim_node_count) VMs, not 1000" >&2; missed=$((missed + 1)); }
    ccsim_delete /ccsim/requests >/dev/null
    measure suspend "$top_builddir/slurm_power/ccautoscale-suspend" "htc-[1-1000]"
    target "suspend of 1,000 nodes: HTTP requests that change nodes" "$(requests "POST")" -eq 1 req
    target "suspend of 1,000 nodes: wall" "$(field suspend wall_ms)" -le 300 ms
    # the cost of the events and metrics: the same resume of 1,000 nodes with both off and on,
    # alternately (so that a host getting busier weighs on both), six times each; the best CPU
    # time of each (a resume costs ~35 ms of CPU: 5% is under 2 ms, below one run's noise)
    resume_once () {  # NAME JQ cpu|instructions: CPU appended to NAME.runs, or instructions to NAME.ir
        jq "$2" "$CCAS_CONF" >conf.tmp && cat conf.tmp >"$CCAS_CONF" &&
        wait_for 30 sh -c "test \$(curl -s '$CCSIM_URL/ccsim/state' | jq '.nodes | length') = 0" || return 1
        if [ "$3" = cpu ]; then
            SLURM_RESUME_FILE=$TEST_TMP/resume.json "$BENCH_BIN/benchrun" -o "$1.out" -- \
                "$top_builddir/slurm_power/ccautoscale-resume" "htc-[1-1000]" >>"$1.runs"
        else
            SLURM_RESUME_FILE=$TEST_TMP/resume.json valgrind --tool=callgrind --callgrind-out-file="$1.cg" \
                "$top_builddir/slurm_power/ccautoscale-resume" "htc-[1-1000]" >/dev/null 2>&1 &&
                instructions "$1.cg" >>"$1.ir"
        fi &&
        "$top_builddir/slurm_power/ccautoscale-suspend" "htc-[1-1000]" >/dev/null 2>&1
    }
    : >resumequiet.runs && : >resumeloud.runs
    for i in 1 2 3 4 5 6; do
        resume_once resumequiet '.events.file = "" | .metrics.file = ""' cpu
        resume_once resumeloud 'del(.events.file) | del(.metrics.file)' cpu
    done
    for m in resumequiet resumeloud; do
        jq -s '{wall_ms: (map(.wall_ms) | min), cpu_ms: (map(.cpu_ms) | min), maxrss_kb: (map(.maxrss_kb) | max)}' \
            "$m.runs" >"$m.json"
    done
    test "$(grep -c '"event":"created"' "$(jq -r .state_dir "$CCAS_CONF")/events.jsonl")" -ge 6 ||
        { echo "bench: the resumes wrote no events" >&2; missed=$((missed + 1)); }
    figure "resume of 1,000 nodes, events and metrics off: CPU (best of 6)" "$(field resumequiet cpu_ms)" ms
    figure "resume of 1,000 nodes, events and metrics on: CPU (best of 6)" "$(field resumeloud cpu_ms)" ms
    # The issue's target is 5%.  The CPU difference (1-2 ms of ~33 ms) is within one run's
    # noise, so the gate counts instructions instead: the same resume under callgrind, off and
    # on, twice each (the counts vary by a few tenths of a percent: curl's polls).
    if command -v valgrind >/dev/null; then
        : >resumequiet.ir && : >resumeloud.ir
        for i in 1 2; do
            resume_once resumequiet '.events.file = "" | .metrics.file = ""' instructions
            resume_once resumeloud 'del(.events.file) | del(.metrics.file)' instructions
        done
        irq=$(sort -n resumequiet.ir | head -1) irl=$(sort -n resumeloud.ir | head -1)
        figure "resume of 1,000 nodes, events and metrics off: instructions" "${irq:-0}" ""
        figure "resume of 1,000 nodes, events and metrics on: instructions" "${irl:-0}" ""
        if [ "$(wc -l <resumequiet.ir)" = 2 ] && [ "$(wc -l <resumeloud.ir)" = 2 ]; then
            target "events and metrics: extra instructions of a resume of 1,000 nodes" \
                "$(extra "$irl" "$irq")" -le 5 %
        else
            echo "bench: a resume under callgrind failed" >&2
            missed=$((missed + 1))
        fi
    fi
    figure "events and metrics: extra CPU of a resume of 1,000 nodes (noisy)" \
        "$(extra "$(field resumeloud cpu_ms)" "$(field resumequiet cpu_ms)")" %
    # sync over 10,000 Slurm nodes, each with a VM that Slurm thinks is powered down;
    # a real sync gives them all back, so each of its three runs gets 10,000 new VMs
    : >sync.runs
    for i in 1 2 3; do
        wait_for 60 sh -c "test \$(curl -s '$CCSIM_URL/ccsim/state' | jq '.nodes | length') = 0"
        SLURM_RESUME_FILE=/nonexistent measure resume10k "$top_builddir/slurm_power/ccautoscale-resume" "htc-[1-10000]"
        [ "$i" = 1 ] && figure "resume of 10,000 nodes: wall" "$(field resume10k wall_ms)" ms
        wait_for 60 sh -c "test \$(curl -s '$CCSIM_URL/ccsim/state' | jq '[.nodes[] | select(.Status == \"Ready\")] | length') = 10000"
        if [ "$i" = 1 ]; then
            RUNS=3 measure syncdry "$CCAS" slurm sync --dry-run
            target "sync --dry-run over 10,000 nodes and VMs: wall" "$(field syncdry wall_ms)" -le 1000 ms
            if [ -n "${BENCH_PERF:-}" ]; then # a profile of sync, for whoever tunes it
                perf record -o "$BENCH_PERF" "$CCAS" slurm sync --dry-run >/dev/null 2>&1
            fi
        fi
        ccsim_delete /ccsim/requests >/dev/null
        "$BENCH_BIN/benchrun" -o sync.out -- "$CCAS" slurm sync --json >>sync.runs
        [ "$(requests "POST .*/terminate")" = 1 ] || terminates_ok=no
    done
    jq -s '{wall_ms: (map(.wall_ms) | min), exit: (map(.exit) | max)}' sync.runs >sync.json
    [ "$(field sync exit)" = 0 ] || { echo "bench: slurm sync failed" >&2; missed=$((missed + 1)); }
    target "sync over 10,000 nodes (terminates 10,000 orphans): wall" "$(field sync wall_ms)" -le 1000 ms
    target "sync: terminate requests for 10,000 orphans" "$([ "${terminates_ok:-yes}" = yes ] && echo 1 || echo 0)" -eq 1 req
    RUNS=$RUNS_SAVED
else
    echo "# skipped the Slurm benchmarks: $why"
fi

echo "{}]" >>results.tmp
jq 'map(select(. != {}))' results.tmp >"$RESULTS"
echo "# results in $RESULTS; $missed missed"
[ "$missed" -eq 0 ]
