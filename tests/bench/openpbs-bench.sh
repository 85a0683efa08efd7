# SPDX-License-Identifier: MIT
# openpbs-bench.sh: the PBS pass against a real OpenPBS server (sourced by
# bench.sh, whose measure, target, figure and field it uses).  The VMs are
# ccsim's, their vnodes real PBS nodes whose moms never report (hundreds of
# moms would not fit this machine); what is measured is the pass, PBS's
# commands, and the hook inside pbs_server:
#   - 100 VMs booting, each running CycleCloud's stock execute setup (it
#     waits for its vnode): their vnodes made by how many qmgr calls
#     (target: a handful, not 4 a node), and once Ready put online by how
#     many more;
#   - a pass over 1,000 queued jobs (array subjobs) and 200 vnodes: wall time
#     less the time spent in PBS's commands (target: < 0.5 s; a time, which
#     gates with BENCH_STRICT=1);
#   - the hook's own time per pass inside pbs_server (target: below its
#     alarm; a time too).
# Needs root and OpenPBS built (scripts/openpbs-src.sh build); else skipped.

hook_passes_past () {  # the server log holds $1 hook passes or more
    [ "$(server_log "ccautoscale: pass done in" | wc -l)" -ge "$1" ]
}

# at least $1 VMs' stock setup is waiting for its vnode (their names resolve)
vms_waiting_are () {
    [ "$(sed -n 's/^\([^ ]*\) is not in the cluster yet.*/\1/p' "$OPENPBS_VM_LOG" | sort -u | wc -l)" -ge "$1" ]
}

openpbs_bench () {
    local why qmgr_calls
    OPENPBS_TEST_NS=${OPENPBS_TEST_NS:-ccastbench} OPENPBS_TEST_ADDR=${OPENPBS_TEST_ADDR:-10.254.99.1}
    # the stock setup of 200 VMs polling pbsnodes at once: every 5 s (each
    # call holds a reserved port for a minute), for two minutes at most
    STOCK_SETUP_RETRIES=24 STOCK_SETUP_DELAY=5
    . "$top_srcdir/tests/lib/openpbs.sh"
    if ! why=$(
        openpbs_unavailable () { echo "$1"; exit 1; }
        test_skip_all () { echo "$1"; exit 1; }
        openpbs_prereqs
    ); then
        echo "# skipped the OpenPBS benchmark: $why"
        return 0
    fi
    openpbs_prereqs
    # PBS's commands through wrappers that log each call (one line a call)
    mkdir -p "$TEST_TMP/obin" && chmod 711 "$TEST_TMP" &&
    for c in qstat pbsnodes qmgr qalter; do
        printf '#!/bin/sh\necho %s >>"%s"\nexec "%s" "$@"\n' "$c" "$TEST_TMP/obin/calls.log" "$OPENPBS_PREFIX/bin/$c" \
            >"$TEST_TMP/obin/$c" && chmod 755 "$TEST_TMP/obin/$c" || return 1
    done
    jq '.nodearrays |= map(select(.name == "execute")) | .nodearrays[0].maxCount = 200
        | .nodearrays[0].maxCoreCount = 400 | .maxCount = 1000 | .maxCoreCount = 2000
        | .nodearrays[0].buckets |= map(.maxCount = 200 | .maxCoreCount = 400 | .familyQuotaCoreCount = 400)' \
        "$top_srcdir/tests/openpbs/cluster.json" >obench.json
    OPENPBS_CLUSTER=$TEST_TMP/obench.json
    touch "$OPENPBS_VM_FAULTS/nomom-all" 2>/dev/null || { mkdir -p "$OPENPBS_VM_FAULTS" && touch "$OPENPBS_VM_FAULTS/nomom-all"; }
    openpbs_start ".pbs.bin_dir = \"$TEST_TMP/obin\" | .logging.level = \"info\" | .idle_timeout = 3600 | .boot_timeout = 3600" >/dev/null ||
        { echo "bench: OpenPBS did not start" >&2; missed=$((missed + 1)); return 1; }
    install_hook && hook_enable false && in_pbs qmgr -c "set server log_events = 2047" || return 1

    # 100 VMs booting, their addresses known and their setup waiting: one
    # pass makes their vnodes; once their setup has run (Ready), one more
    # puts them online
    qsub_as -J 1-200 -l select=1:ncpus=1 -- /bin/true >/dev/null &&
    pbs_pass >/dev/null && wait_for 90 vms_waiting_are 100 &&
    : >"$TEST_TMP/obin/calls.log" && pbs_pass >/dev/null || { echo "bench: the join pass failed" >&2; missed=$((missed + 1)); }
    qmgr_calls=$(grep -c "^qmgr$" "$TEST_TMP/obin/calls.log")
    figure "OpenPBS: 100 VMs booting, one pass: vnodes made" "$(jq '[.pbs.join[] | select(.outcome == "done")] | length' pass.out)" ""
    target "OpenPBS: qmgr calls to join 100 VMs (not 4 a node)" "$qmgr_calls" -le 4 calls
    figure "OpenPBS: PBS commands in that pass, all kinds" "$(wc -l <"$TEST_TMP/obin/calls.log")" ""
    wait_for 90 vms_ready_are 100 && : >"$TEST_TMP/obin/calls.log" && pbs_pass >/dev/null ||
        { echo "bench: the online pass failed" >&2; missed=$((missed + 1)); }
    target "OpenPBS: qmgr calls to put 100 Ready VMs online" "$(grep -c "^qmgr$" "$TEST_TMP/obin/calls.log")" -le 4 calls

    # 200 vnodes and 1,000 queued subjobs (200 more, then 600 the 200-VM cap leaves unmatched)
    qsub_as -J 1-200 -l select=1:ncpus=1 -- /bin/true >/dev/null && pbs_pass >/dev/null &&
    wait_for 90 vms_waiting_are 200 && pbs_pass >/dev/null && wait_for 90 vms_ready_are 200 &&
    pbs_pass >/dev/null && qsub_as -J 1-600 -l select=1:ncpus=1 -- /bin/true >/dev/null &&
    test_equal "$(our_nodes | wc -w)" 200 && pbs_pass >/dev/null ||
        { echo "bench: could not set up 200 vnodes and 1,000 jobs" >&2; missed=$((missed + 1)); }
    : >opass.runs && : >opass.cmd
    for i in $(seq "$RUNS"); do
        "$BENCH_BIN/benchrun" -o opass.out -- "$OPENPBS" run "$CCAS" pbs autoscale --json >>opass.runs || true
        jq '{wall_ms: (.pbs_command_seconds * 1000), commands: .pbs_commands, jobs: (.jobs | length)}' opass.out >>opass.cmd
    done
    jq -s 'map(.wall_ms) | min' opass.runs >/dev/null &&
    jq -e -s 'all(.[]; .jobs == 1000)' opass.cmd >/dev/null ||
        { echo "bench: the pass did not see 1,000 jobs" >&2; missed=$((missed + 1)); }
    # each run's wall less its own PBS command time; the best of the runs
    local own
    own=$(jq -s --slurpfile c opass.cmd '[range(0; length) as $i | .[$i].wall_ms - $c[$i].wall_ms] | min | . * 10 | round / 10' opass.runs)
    figure "OpenPBS pass (1,000 queued jobs, 200 vnodes): PBS's commands" \
        "$(jq -s 'map(.wall_ms) | min | . * 10 | round / 10' opass.cmd)" ms
    figure "OpenPBS pass: PBS commands run" "$(jq -s '.[0].commands' opass.cmd)" ""
    target_time "OpenPBS pass (1,000 queued jobs, 200 vnodes) less PBS's commands: wall" "$own" -le 500 ms

    # the hook inside pbs_server: its passes' own time, against its alarm;
    # two passes of it (the hook runs every hook_freq seconds)
    local hook_s alarm passes
    passes=$(server_log "ccautoscale: pass done in" | wc -l)
    hook_enable true && wait_for 120 hook_passes_past $((passes + 2)) && hook_enable false
    hook_s=$(server_log "ccautoscale: pass done in" | sed 's/.*pass done in \([0-9.]*\) s.*/\1/' | sort -n | tail -n 1)
    alarm=$(in_pbs qmgr -c "list hook ccautoscale" | sed -n 's/^ *alarm = //p')
    if [ -z "$hook_s" ]; then
        echo "bench: no hook pass reported its time in the server log" >&2
        missed=$((missed + 1))
    else
        target_time "OpenPBS hook: a pass inside pbs_server (1,000 jobs, 200 vnodes), the slowest; alarm ${alarm} s" \
            "$hook_s" -le "${alarm:-0}" s
    fi
    openpbs_stop
}

openpbs_bench
