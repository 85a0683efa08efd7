#!/bin/bash
# SPDX-License-Identifier: MIT
# chaos.sh: a soak of the real-Slurm setup while ccsim injects random faults
# into CHAOS_RATE (default 10%) of CycleCloud requests and creates: 500s,
# 429s with Retry-After, latency spikes, dropped connections (before and after
# the answer), capacity failures and VMs that fail to boot.  CHAOS_JOBS
# (default 200) jobs run; `ccautoscale slurm sync` runs every 10 s as the
# timer would.  Passes when every job completed, no VM was made that Slurm
# did not ask for (ccsim's request log against the resume requests in the
# events file), no VM is left once the faults stop, and no node is down or
# drained without a Reason.  Prints the figures.
# The circuit breaker is off here: random boot failures on a loaded host can come
# five in a row, and an open breaker stops creating by design (tests/pbs/t0105 and
# common/engine/test/test_breaker.c test it); this soak is about retries and hand-backs.
#   make -C tests/slurm chaos [CHAOS_JOBS=200 CHAOS_WAVES=4 CHAOS_RATE=0.1 CHAOS_SEED=4 CHAOS_LIMIT=900]
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/ccsim.sh"
. "$(dirname "$0")/../lib/slurm.sh"
why=$(slurm_prereqs) || test_skip_all "$why"
JOBS=${CHAOS_JOBS:-200}
RATE=${CHAOS_RATE:-0.1}
SEED=${CHAOS_SEED:-4}   # fires every kind of fault in two waves
LIMIT=${CHAOS_LIMIT:-900}
CCAS=$top_builddir/plugin/ccautoscale
WAVES=${CHAOS_WAVES:-4}
MPI=$((JOBS / 10))
ARRAY=$((JOBS - MPI))

# no job left; meanwhile `slurm sync` every 10 s, as the timer would
jobs_done_syncing () {
    local now
    now=$(date +%s)
    if [ $((now - last_sync)) -ge 10 ]; then
        "$CCAS" -q slurm sync >>sync.out 2>&1
        last_sync=$now
    fi
    ! jobs_left
}

# every node powered down (sinfo's state ends in "~")
all_powered_down () {
    local states
    states=$(sinfo -h -N -o %t 2>/dev/null) && ! printf '%s\n' "$states" | grep -qv '~$'
}

# jobs still queued or running; a squeue that fails (slurmctld busy) says yes
jobs_left () {
    local out
    out=$(squeue -h -o %i 2>/dev/null) || return 0
    [ -n "$out" ]
}

# Which jobs ended without doing their work, and how Slurm saw them end
# (finished jobs stay visible for MinJobAge seconds).
report_missing () {
    local first i id
    first=$(head -n1 array.ids)
    echo "jobs that did not complete:"
    for i in $(seq 1 "$ARRAY"); do
        [ -e "done/a.$i" ] && continue
        for id in $(cat array.ids); do
            scontrol -o show job "${id}_$i" 2>/dev/null | grep -o "JobId=[^ ]* .*JobState=[^ ]* Reason=[^ ]*\|ExitCode=[^ ]*\|NodeList=[^ ]*" | tr "\n" " "
        done
        echo "(array task $i, first array $first)"
    done
    i=0
    while read -r id; do
        i=$((i + 1))
        [ -e "done/m.$i" ] && continue
        echo "MPI job $id:"
        scontrol -o show job "$id" 2>&1 | grep -o "JobState=[^ ]* Reason=[^ ]*\|ExitCode=[^ ]*\|NodeList=[^ ]*\|Restarts=[^ ]*" | tr "\n" " "
        echo
        cat "out/m.$i" 2>/dev/null
        grep -E "(JobId=|job )$id\b" "$SLURM_TEST_DIR/log/slurmctld.log" 2>/dev/null | tail -20
    done <mpi.ids
    # the names of the stand-in VMs do not resolve: slurmctld says so every second
    grep -i "requeue\|fail\|kill" "$SLURM_TEST_DIR/log/slurmctld.log" 2>/dev/null | grep -v getaddrinfo | tail -30
}

# Names with more VMs made (ccsim's request log, lost answers included) than
# Slurm asked to resume them (the resume_requested events): a VM nobody
# asked for, or one made twice for one request.
unasked () {
    ccsim_made | sort | uniq -c | awk '{ print $2, $1 }' | sort >made.count
    jq -r 'select(.event == "resume_requested") | .nodes' "$TEST_TMP/state/events.jsonl" |
        while read -r hl; do scontrol show hostnames "$hl"; done | sort | uniq -c | awk '{ print $2, $1 }' | sort >asked.count
    join -a1 -e 0 -o 0,1.2,2.2 made.count asked.count | awk '$2 > $3 { print $1 ": " $2 " VMs made, " $3 " resumes asked" }'
}

test_expect_success 'start Slurm with the demo cluster; faults on' '
    SLURM_RESUME_TIMEOUT=40 SLURM_SUSPEND_TIME=8 CCSIM_BOOT_DELAY=2 \
        slurm_start "$top_srcdir/tests/ccsim/clusters/demo.json" ".logging.level = \"info\" | .breaker.threshold = 0" &&
    export CCAUTOSCALE_CONFIG=$CCAS_CONF &&
    ccsim_fault "{\"kind\": \"random\", \"rate\": $RATE, \"seed\": $SEED, \"count\": -1}" &&
    mkdir done out
'

test_expect_success "$JOBS jobs ($ARRAY single-core array tasks, $MPI 2-node MPI jobs, in $WAVES waves) all complete under faults" '
    start=$(date +%s) && last_sync=0 &&
    for w in $(seq 1 $WAVES); do
        sbatch --parsable -o /dev/null -p htc -n1 --array=$(((w - 1) * ARRAY / WAVES + 1))-$((w * ARRAY / WAVES)) \
            --wrap "sleep 1; touch $TEST_TMP/done/a.\$SLURM_ARRAY_TASK_ID" >>array.ids || return 1
        for i in $(seq $(((w - 1) * MPI / WAVES + 1)) $((w * MPI / WAVES))); do
            sbatch --parsable -o "$TEST_TMP/out/m.$i" -p hpc -N2 --wrap "srun true && touch $TEST_TMP/done/m.$i" || return 1
        done >>mpi.ids
        WAIT_FOR_INTERVAL=2 wait_for $((LIMIT - ($(date +%s) - start))) jobs_done_syncing || {
            { echo "jobs left after ${LIMIT}s:"; squeue; slurm_node_states; } | tee missing.txt
            return 1
        }
        # let the nodes power down, so that the next wave creates VMs again
        # (a node still up after the bound only means fewer new VMs)
        [ "$w" = "$WAVES" ] || WAIT_FOR_INTERVAL=1 wait_for 120 all_powered_down ||
            echo "# nodes still up before wave $((w + 1)): $(sinfo -h -N -o "%N %t" | grep -v "~$" | tr "\n" " ")"
    done &&
    echo $(($(date +%s) - start)) >jobs.seconds &&
    { [ "$(ls done | wc -l)" = "$JOBS" ] || report_missing | tee missing.txt; } &&
    test_equal "$(ls done | wc -l)" "$JOBS" "jobs that completed"
' || slurm_dump

test_expect_success 'faults off: every VM is given back, no node is down without a Reason' '
    ccsim_get /ccsim/faults >faults.json &&
    ccsim_delete /ccsim/faults >/dev/null &&
    wait_for 120 sh -c "\"$CCAS\" -q slurm sync >/dev/null 2>&1; test \$(curl -s $CCSIM_URL/ccsim/state | jq \".nodes | length\") = 0" &&
    slurm_node_states >states &&
    awk "\$2 ~ /down|drain|fail/ && \$3 == \"none\"" states >unexplained &&
    test_equal "$(cat unexplained)" ""
' || slurm_dump

test_expect_success 'no VM was made that Slurm did not ask for (the request log against the resume requests)' '
    unasked >unasked.txt &&
    test_equal "$(cat unasked.txt)" ""
' || slurm_dump

# the figures
cd "$TEST_TMP" || exit 1
if [ -f faults.json ]; then
    echo "# chaos: $JOBS jobs in $(cat jobs.seconds 2>/dev/null || echo ?) s at fault rate $RATE (seed $SEED)"
    echo "# faults injected: $(jq -c '.injected | with_entries(select(.value > 0))' faults.json)," \
        "HTTP errors by status: $(jq -c '.http_statuses' faults.json)"
    echo "# requests to ccsim: $(ccsim_get /ccsim/requests | jq length)," \
        "client retries: $(grep -c ": retrying (\|never reached the server.*sending it again" ccautoscale.log 2>/dev/null || true)," \
        "creates recovered by request id: $(grep -c "recovered [0-9]* node" ccautoscale.log 2>/dev/null || true)"
    echo "# create requests: $(ccsim_requests "POST .*/nodes/create" | wc -l)," \
        "VMs made: $(wc -l <made.count 2>/dev/null || echo ?) names, $(awk '{ n += $2 } END { print n + 0 }' made.count 2>/dev/null) VMs" \
        "for $(awk '{ n += $2 } END { print n + 0 }' asked.count 2>/dev/null) node resumes asked;" \
        "VMs made beyond what was asked: $(wc -l <unasked.txt 2>/dev/null || echo ?)," \
        "VMs left: $(ccsim_node_count)"
    echo "# node names slurmctld could not resolve: $(grep -c "Unable to resolve" "$SLURM_TEST_DIR/log/slurmctld.log")"
fi
# at the end, where a CI log's tail shows it
[ ! -s missing.txt ] || sed 's/^/# /' missing.txt
test_done
