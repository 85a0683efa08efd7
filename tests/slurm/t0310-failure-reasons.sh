#!/bin/bash
# SPDX-License-Identifier: MIT
# t0310-failure-reasons.sh: each failure class, from a fault ccsim injects,
# through to the Reason the real slurmctld shows on the node handed back —
# "ccautoscale: <class>: <message>" — and to the events.  Throttling and
# transient errors are never reported as capacity.  Every decision names the
# jobs of SLURM_RESUME_FILE.  An unreachable CycleCloud hands the nodes back
# within the programs' own limits (slurm.connect_timeout, request_timeout,
# retries); a user who cannot write the state or the lock is named.  A
# cluster that is not Started is sent nothing: its nodes go back at once.  (VMs are
# records only: the resume program is run by hand.)
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/ccsim.sh"
. "$(dirname "$0")/../lib/slurm.sh"
why=$(slurm_prereqs) || test_skip_all "$why"
RESUME=$top_builddir/slurm_power/ccautoscale-resume
SQ="'"
export SLURM_RESUME_FILE=/nonexistent

# reason_after FAULT NODE: resume NODE under FAULT; print the node's Reason.
# NODE must not be in a bucket in a capacity window: the suspend program, run
# as Slurm powers the node down, would give it the window's reason.
reason_after () {
    ccsim_delete /ccsim/faults >/dev/null &&
    ccsim_fault "$1" &&
    { "$RESUME" "$2" >resume.out 2>&1 || true; } &&
    ccsim_delete /ccsim/faults >/dev/null &&
    wait_for 60 sh -c "sinfo -h -N -n $2 -o %E | grep -q ccautoscale" &&
    slurm_node_reason "$2"
}

test_expect_success 'start Slurm (no slurmd; retries 1 so that faults exhaust them quickly)' '
    SLURM_VM_HOOKS=0 SLURM_SUSPEND_TIME=3600 slurm_start "$top_srcdir/tests/slurm/cluster.json" ".retries = 1" &&
    export CCAUTOSCALE_CONFIG=$CCAS_CONF
' || slurm_dump

test_expect_success 'capacity: the server added none for want of machines' '
    reason_after "{\"kind\": \"capacity\", \"machine_type\": \"Standard_F2s_v2\", \"count\": -1}" htc-1 >reason &&
    grep "^ccautoscale: capacity: " reason
'

test_expect_success 'throttling: 429 with Retry-After until the retries are spent — throttling, not capacity' '
    reason_after "{\"kind\": \"http\", \"status\": 429, \"retry_after\": 1, \"count\": -1, \"match\": \"status\"}" hpc-4 >reason &&
    grep "^ccautoscale: throttling: " reason
'

test_expect_success 'throttling: 503' '
    reason_after "{\"kind\": \"http\", \"status\": 503, \"count\": -1, \"match\": \"status\"}" hpc-5 >reason &&
    grep "^ccautoscale: throttling: " reason
'

test_expect_success 'transient: 500 and a server that drops the connection' '
    reason_after "{\"kind\": \"http\", \"status\": 500, \"count\": -1, \"match\": \"status\"}" hpc-7 >reason &&
    grep "^ccautoscale: transient: " reason &&
    reason_after "{\"kind\": \"drop\", \"count\": -1, \"match\": \"status\"}" hpc-8 >reason &&
    grep "^ccautoscale: transient: " reason
'

test_expect_success 'permanent: 400 from the create (on hpc: the htc bucket is in its capacity window)' '
    reason_after "{\"kind\": \"http\", \"status\": 400, \"count\": -1, \"match\": \"nodes/create\"}" hpc-1 >reason &&
    grep "^ccautoscale: permanent: " reason
'

test_expect_success 'every hand-back is a "failed" event with the same class' '
    for c in capacity throttling transient permanent; do
        jq -e -s --arg c "$c" "[.[] | select(.event == \"failed\" and .class == \$c)] | length >= 1" \
            "$TEST_TMP/state/events.jsonl" >/dev/null || { echo "no failed event of class $c"; return 1; }
    done
'

# handed_back NODE REASON: Slurm took the hand-back of NODE with a reason that
# starts REASON, and its "failed" event says so.  (Not the node's Reason now:
# the bucket may be in a capacity window, whose reason the suspend program
# gives the node as Slurm powers it down.)
handed_back () {
    grep -F "hand back $1: $2" "$TEST_TMP/ccautoscale.log" &&
        jq -e -s --arg n "$1" --arg r "$2" \
            "[.[] | select(.event == \"failed\" and .node == \$n and (.reason | startswith(\$r)))] | length == 1" \
            "$TEST_TMP/state/events.jsonl"
}

# milliseconds since $1 (date +%s%N)
ms_since () {
    echo $((($(date +%s%N) - $1) / 1000000))
}

# What "at once" and "after slurm.request_timeout" are judged by: half of
# what waiting on the server that hangs would take (60 s), and far less than
# the command's own limits would (request_timeout 60 s, longer backoffs), not
# a time of the programs' own, which a busy machine stretches.
WITHIN_MS=30000

test_expect_success 'every decision names its jobs: one set for two jobs, its hand-backs, the events' '
    echo "{\"jobs\": [{\"job_id\": 11, \"nodes\": \"hpc-2\"}, {\"job_id\": 12, \"nodes\": \"hpc-3\"}]}" >rf.json &&
    jq ".nodearrays.hpc.colocated = false" "$CCAS_CONF" >spread.json && chmod 600 spread.json &&
    ccsim_fault "{\"kind\": \"capacity\", \"machine_type\": \"Standard_HB120rs_v3\", \"count\": -1}" &&
    { SLURM_RESUME_FILE=$TEST_TMP/rf.json "$RESUME" -c spread.json "hpc-[2-3]" || true; } &&
    ccsim_delete /ccsim/faults >/dev/null &&
    test_grep "create 2 nodes hpc-2..hpc-3 in hpc/Standard_HB120rs_v3 for jobs 11,12$" "$TEST_TMP/ccautoscale.log" &&
    test_grep "hand back hpc-\[2-3\] (jobs 11,12): ccautoscale: capacity: " "$TEST_TMP/ccautoscale.log" &&
    jq -e -s "[.[] | select(.event == \"failed\" and (.node == \"hpc-2\" or .node == \"hpc-3\")) | .jobs] == [[\"11\"], [\"12\"]]" \
        "$TEST_TMP/state/events.jsonl" &&
    jq -e -s "[.[] | select(.event == \"create_failed\")] | last | .jobs == [\"11\", \"12\"]" "$TEST_TMP/state/events.jsonl" &&
    jq -e -s "[.[] | select(.event == \"resume_requested\")] | last | .nodes == \"hpc-[2-3]\" and .jobs == [\"11\", \"12\"]" \
        "$TEST_TMP/state/events.jsonl"
'

test_expect_success 'a cluster not Started: nothing is sent; the node goes back, permanent, naming the state' '
    ccsim_post /ccsim/cluster "{\"state\": \"Terminating\", \"targetState\": \"Terminated\"}" >/dev/null &&
    ccsim_delete /ccsim/requests >/dev/null &&
    { "$RESUME" hpc-5 >resume.out 2>&1 || true; } &&
    ccsim_post /ccsim/cluster "{\"state\": \"Started\", \"targetState\": \"Started\"}" >/dev/null &&
    test_equal "$(ccsim_requests "^POST" | wc -l)" 0 "POST requests" &&
    handed_back hpc-5 "ccautoscale: permanent: cluster ${SQ}slurmtest${SQ} is Terminating (targetState Terminated)"
'

test_expect_success 'CycleCloud unreachable (nothing listens): handed back at once, "transient: CycleCloud unreachable"' '
    jq --arg u "http://127.0.0.1:$(slurm_free_port)" ".url = \$u" "$CCAS_CONF" >down.json && chmod 600 down.json &&
    start=$(date +%s%N) &&
    test_expect_code 3 "$RESUME" -c down.json htc-6 &&
    echo "resume took $(ms_since "$start") ms" && test "$(ms_since "$start")" -lt $WITHIN_MS &&
    handed_back htc-6 "ccautoscale: transient: CycleCloud unreachable: "
'

# A CycleCloud of its own that never answers a status read, so that the
# suspend runs Slurm starts for the nodes handed back meanwhile meet none of it.
test_expect_success 'a CycleCloud that does not answer: resume and sync give up after slurm.request_timeout and slurm.retries' '
    "$CCSIM_BIN" --cluster "$top_srcdir/tests/slurm/cluster.json" --port-file slow.port >slow.out 2>&1 &
    slow=$! && test_at_exit "kill_pid $slow" &&
    wait_for 60 test -s slow.port &&
    curl -sS --fail-with-body -X POST -d "{\"kind\": \"hang\", \"seconds\": 60, \"count\": -1, \"match\": \"status\"}" \
        "http://127.0.0.1:$(cat slow.port)/ccsim/faults" &&
    jq --arg u "http://127.0.0.1:$(cat slow.port)" --arg l "$TEST_TMP/slow.lock" \
        ".url = \$u | .lock_file = \$l | .slurm.request_timeout = 1 | .slurm.retries = 1" "$CCAS_CONF" >slow.json &&
    chmod 600 slow.json &&
    start=$(date +%s%N) &&
    test_expect_code 3 "$RESUME" -c slow.json hpc-6 &&
    echo "resume took $(ms_since "$start") ms" && test "$(ms_since "$start")" -lt $WITHIN_MS &&
    start=$(date +%s%N) &&
    test_expect_code 3 "$top_builddir/plugin/ccautoscale" -c slow.json slurm sync &&
    echo "sync took $(ms_since "$start") ms" && test "$(ms_since "$start")" -lt $WITHIN_MS &&
    kill_pid "$slow" &&
    handed_back hpc-6 "ccautoscale: transient: CycleCloud unreachable: "
'

# slurmctld runs the programs as SlurmUser, rarely root
# (a lock file root made with mode 0644 is no obstacle: it is taken read-only; 0600 is)
test_expect_success 'run as a user who cannot write state_dir, or the lock: the error names the path and the user' '
    chmod 755 "$TEST_TMP" && mkdir -m 755 rootstate && touch rootlock && chmod 600 rootlock && mkdir nobody && chown nobody nobody &&
    jq --arg s "$TEST_TMP/rootstate" --arg l "$TEST_TMP/nobody/lock" --arg f "$TEST_TMP/nobody/log" \
        ".state_dir = \$s | .lock_file = \$l | .logging.file = \$f" "$CCAS_CONF" >nobody/state.json &&
    jq --arg l "$TEST_TMP/rootlock" --arg s "$TEST_TMP/nobody/state" ".lock_file = \$l | .state_dir = \$s | del(.logging.file)" \
        nobody/state.json >nobody/lock.json &&
    chmod 600 nobody/*.json && chown nobody nobody/*.json &&
    test_expect_code 2 setpriv --reuid=nobody --regid=nogroup --clear-groups "$RESUME" -c nobody/state.json htc-6 2>err &&
    cat err &&
    test_grep "state_dir .$TEST_TMP/rootstate.: cannot write there: Permission denied (running as user .nobody." err &&
    test_expect_code 2 setpriv --reuid=nobody --regid=nogroup --clear-groups "$RESUME" -c nobody/lock.json htc-6 2>err &&
    cat err &&
    test_grep "$TEST_TMP/rootlock: cannot open lock file: Permission denied (running as user .nobody." err
'

test_done
