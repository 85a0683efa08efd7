# SPDX-License-Identifier: MIT
# openpbs.sh: a real OpenPBS (built by scripts/openpbs-src.sh, run by
# openpbs-server.sh beside this file) with ccsim as CycleCloud,
# whose VMs are real pbs_moms, for the tests/openpbs suite (after tap.sh and
# ccsim.sh).  Every VM runs CycleCloud's stock execute setup while it boots
# (tests/openpbs/vm-setup: it waits for its vnode with its node id, offlines
# it, starts its mom at the address ccsim gave it), and is Ready only once
# that is done.
#
#   openpbs_prereqs            skips the suite (or, with CI=true, fails it) when
#                              OpenPBS cannot run here, saying why
#   openpbs_start [JQ]         a fresh PBS server in its own network namespace,
#                              ccsim inside it (the VMs' stock setup starts
#                              their moms, vm-down stops them), $CCAS_CONF for
#                              both (JQ edits it; its idle_timeout is an hour,
#                              so that nodes stay until a test shortens it);
#                              the server's own node is
#                              taken offline so that jobs run only on the VMs;
#                              everything is stopped when the test ends,
#                              however it ends
#   openpbs_stock_server       the server as CycleCloud's stock server spec
#                              leaves it (initialize_pbs.sh,
#                              initialize_default_queues.sh, its sched_config
#                              resources: line)
#   pbs_wait SECONDS CMD...    wait_for, polling PBS once a second (see below)
#   in_pbs CMD...              CMD inside the namespace, as root (qmgr, pbsnodes,
#                              ccautoscale: they reach PBS and ccsim only there)
#   qsub_as ARGS...            qsub as the unprivileged user, from a directory it
#                              can write (job output lands there); prints the id
#   ccas ARGS...               the ccautoscale under test, inside the namespace
#   pbs_pass                   one `ccautoscale pbs autoscale --json` (pass.out, pass.err)
#   install_hook [ARGS]        `ccautoscale pbs install-hook` and the sched_config
#                              resources: line it asks for (then pbs_sched re-reads it)
#   job_state ID; job_exit ID  from qstat -x; job_is ID STATE
#   wait_jobs_done SECONDS [ID...]  every job (or those) finished (F), else fail
#   pbs_nodes_json             pbsnodes -av -F json
#   our_nodes                  the PBS nodes but the server's own, sorted, one line
#   vms                        ccsim's VM names, sorted, on one line
#   vms_in NODEARRAY           how many VMs of a nodearray
#   vms_ready; vm_ready NAME   how many VMs are Ready; whether NAME is
#   vms_ready_are N            whether N are
#   wait_no_vms SECONDS        every VM terminated and every node of ours deleted
#   moms_running               the extra moms that still run (openpbs-server.sh status)
#   hook_enable true|false     the periodic hook on or off
#   passes_until SECONDS CMD...  a pass by hand every 2 s until CMD succeeds
#   made_in NODEARRAY          VMs ever made there (ccsim's request log)
#
# curl (ccsim_get and the rest) runs inside the namespace, where ccsim listens.

OPENPBS=$top_srcdir/tests/lib/openpbs-server.sh
OPENPBS_SRC=$top_srcdir/scripts/openpbs-src.sh
CCAS=$(test_program "$top_builddir/plugin/ccautoscale")
# each test an instance of its own (t0NNN: namespace ccastNNN, server
# 10.254.(100 + NNN % 100).1), so that tests may run side by side, and
# beside a developer's ccaspbs
openpbs_n=$(printf '%s' "$TEST_NAME" | sed -n 's/^t0*\([0-9][0-9]*\)-.*/\1/p')
CCAS_PBS_NS=${OPENPBS_TEST_NS:-ccast${openpbs_n:-0}}
CCAS_PBS_ADDR=${OPENPBS_TEST_ADDR:-10.254.$((100 + ${openpbs_n:-0} % 100)).1}
CCAS_PBS_USER=${CCAS_PBS_USER:-ccaspbsuser}
export CCAS_PBS_NS CCAS_PBS_ADDR CCAS_PBS_USER
OPENPBS_CLUSTER=$top_srcdir/tests/openpbs/cluster.json
OPENPBS_VM_FAULTS=$TEST_TMP/vm-faults
OPENPBS_VM_LOG=$TEST_TMP/vm.log
# the stock setup's wait for its vnode: 10 attempts, 1 s apart (stock: 15 s)
STOCK_SETUP_RETRIES=${STOCK_SETUP_RETRIES:-10}
STOCK_SETUP_DELAY=${STOCK_SETUP_DELAY:-1}
export OPENPBS_VM_FAULTS OPENPBS_VM_LOG STOCK_SETUP_RETRIES STOCK_SETUP_DELAY

# No OpenPBS here: a loud skip, or with CI=true a failure (CI must never pass
# without the real server).
openpbs_unavailable () {
    if [ "${CI:-}" = true ]; then
        echo "Bail out! OpenPBS suite cannot run: $1"
        exit 1
    fi
    echo "# *** OpenPBS suite SKIPPED: $1 ***" >&2
    test_skip_all "$1"
}

openpbs_prereqs () {
    local p prefix rc=0
    [ "${CCAS_TEST_OPENPBS:-1}" != 0 ] || test_skip_all "CCAS_TEST_OPENPBS=0"
    [ "$(id -u)" = 0 ] || openpbs_unavailable "needs root (network namespaces, PBS's daemons)"
    for p in ip unshare nsenter jq curl runuser; do
        command -v "$p" >/dev/null 2>&1 || openpbs_unavailable "missing $p"
    done
    prefix=$("$OPENPBS_SRC" prefix 2>"$TEST_TMP/prefix.err") || rc=$?
    [ "$rc" != 2 ] || openpbs_unavailable "$(cat "$TEST_TMP/prefix.err")"
    [ "$rc" = 0 ] || openpbs_unavailable "scripts/openpbs-src.sh prefix failed: $(cat "$TEST_TMP/prefix.err")"
    [ -f "$prefix/.ccas-built" ] ||
        openpbs_unavailable "OpenPBS is not built in $prefix (run scripts/openpbs-src.sh build, ~4 min; ./run-tests does)"
    OPENPBS_PREFIX=$prefix
}

in_pbs () {
    "$OPENPBS" run "$@"
}

curl () {
    ip netns exec "$CCAS_PBS_NS" curl "$@"
}

# wait_for (tap.sh), polling once a second: each PBS command takes one of the
# ~500 reserved ports its authentication (resvport) binds, for 60 s of
# TIME_WAIT after, and tap.sh's five polls a second ran out of them
pbs_wait () {
    WAIT_FOR_INTERVAL=1 wait_for "$@"
}

ccas () {
    in_pbs "$CCAS" "$@"
}

qsub_as () {
    (cd "$OPENPBS_WORK" && "$OPENPBS" run -u "$CCAS_PBS_USER" qsub "$@")
}

# Stop everything; when a test failed, keep PBS's logs and ccautoscale's in
# $top_builddir/tests/openpbs/logs/TEST first (stop --purge deletes them).
openpbs_stop () {
    local keep=$top_builddir/tests/openpbs/logs/$TEST_NAME
    if [ "$TAP_FAILED" -gt 0 ] && [ -n "${OPENPBS_STATE:-}" ]; then
        rm -rf "$keep" && mkdir -p "$keep" &&
            cp -r "$OPENPBS_STATE"/home/server_logs "$OPENPBS_STATE"/home/sched_logs "$OPENPBS_STATE"/home/mom_logs \
                "$TEST_TMP"/*.log "$TEST_TMP"/*.out "$TEST_TMP"/*.err "$TEST_TMP"/*.json "$keep"/ 2>/dev/null
        for m in "$OPENPBS_STATE"/moms/*/home/mom_logs; do
            [ -d "$m" ] || continue
            m=${m%/home/mom_logs}
            mkdir -p "$keep/moms/${m##*/}" && cp -r "$m/home/mom_logs" "$keep/moms/${m##*/}/"
        done
    fi
    "$OPENPBS" stop --purge >"$TEST_TMP/stop.log" 2>&1
}

openpbs_start () {
    local extra=${1:-.}
    mkdir -p "$OPENPBS_VM_FAULTS" &&
    test_at_exit openpbs_stop &&
    "$OPENPBS" start --fresh >"$TEST_TMP/start.log" 2>&1 || { cat "$TEST_TMP/start.log" >&2; return 1; }
    OPENPBS_STATE=/var/spool/ccautoscale-pbs/$CCAS_PBS_NS
    # job output: a directory the user can write (the mom copies it back there)
    chmod 711 "$TEST_TMP" &&
    OPENPBS_WORK=$TEST_TMP/work && mkdir -p "$OPENPBS_WORK" && chown "$CCAS_PBS_USER" "$OPENPBS_WORK" &&
    in_pbs qmgr -c 'set node vm state = offline, comment = "test: the server'"'"'s own mom; jobs run on VMs"' &&
    in_pbs qmgr -c "set sched log_events = 4095" &&
    # ccsim, inside the namespace: ccautoscale (run by the hook in pbs_server
    # too) reaches it on loopback there, and its hooks start and stop moms
    printf '#!/bin/sh\nexec "%s" run "%s" "$@"\n' "$OPENPBS" "$top_builddir/tests/ccsim/ccsim" >"$TEST_TMP/ccsim-in-ns" &&
    chmod 755 "$TEST_TMP/ccsim-in-ns" && CCSIM_BIN=$TEST_TMP/ccsim-in-ns &&
    ccsim_start "$OPENPBS_CLUSTER" --boot-delay "${CCSIM_BOOT_DELAY:-1}" --ip-base "${CCAS_PBS_ADDR%.*}.11" \
        --on-boot "$top_srcdir/tests/openpbs/vm-setup" --on-terminate "$top_srcdir/tests/openpbs/vm-down" &&
    CCAS_CONF=$TEST_TMP/autoscale.json && export CCAS_CONF CCAUTOSCALE_CONFIG=$CCAS_CONF &&
    CCSIM_CLUSTER_FILE=$OPENPBS_CLUSTER ccsim_write_config "$CCAS_CONF" \
        ".pbs = {bin_dir: \"$OPENPBS_PREFIX/bin\", command_timeout: 20, hook_freq: 5, hook_timeout: 60}
         | .logging.level = \"debug\" | .idle_timeout = 3600 | .boot_timeout = 120 | $extra"
}

# The server as CycleCloud's stock server spec leaves it (cyclecloud-pbspro
# 2.0.25: initialize_pbs.sh, initialize_default_queues.sh, and its
# sched_config's resources: line, which pbs_sched is told to re-read).
openpbs_stock_server () {
    local r conf
    for c in 'set server managers = root@*' 'set server query_other_jobs = true' 'set server flatuid = true' \
        'set server job_history_enable = true' 'set sched only_explicit_psets = True' \
        'set sched do_not_span_psets = True'; do
        in_pbs qmgr -c "$c" || return 1
    done
    for r in slot_type:string:h instance_id:string:h vm_size:string:h nodearray:string:h disk:size:nh \
        ngpus:long:nh group_id:string:h ungrouped:string:h; do
        in_pbs qmgr -c "list resource ${r%%:*}" >/dev/null 2>&1 ||
            in_pbs qmgr -c "create resource ${r%%:*} type=$(echo "$r" | cut -d: -f2) , flag=${r##*:}" || return 1
    done
    for c in 'set queue workq resources_default.place = scatter:excl' 'set queue workq resources_default.ungrouped = false' \
        'set server node_group_enable = true' 'set server node_group_key = group_id' 'create queue htcq' \
        'set queue htcq queue_type = Execution' 'set queue htcq resources_default.place = free' \
        'set queue htcq resources_default.ungrouped = true' 'set queue htcq enabled = true' 'set queue htcq started = true'; do
        in_pbs qmgr -c "$c" || return 1
    done
    conf=$OPENPBS_STATE/home/sched_priv/sched_config
    sed -i 's/^resources: .*/resources: "ncpus, mem, arch, host, vnode, aoe, slot_type, group_id, ungrouped, disk, ngpus, nodearray, vm_size"/' "$conf" &&
    kill -HUP "$(cat "$OPENPBS_STATE/home/sched_priv/sched.lock")"
}

pbs_pass () {
    local rc=0
    ccas pbs autoscale --json >pass.out 2>pass.err || rc=$?
    if [ "$rc" != 0 ]; then
        echo "pbs autoscale exited $rc:" >&2
        tail -n 5 pass.err | sed 's/^/  pass.err| /' >&2
    fi
    return $rc
}

# install-hook, then what it asks the administrator for: the sched_config
# resources: line it prints, and pbs_sched told to re-read it
install_hook () {
    local conf line
    ccas pbs install-hook --hook-file "$top_srcdir/pbs_hook/ccautoscale_hook.py" "$@" >install.out 2>install.err ||
        { cat install.err >&2; return 1; }
    line=$(grep -x 'resources: .*' install.err || true)
    [ -n "$line" ] || return 0
    conf=$OPENPBS_STATE/home/sched_priv/sched_config
    sed -i "s/^resources: .*/$line/" "$conf" &&
    kill -HUP "$(cat "$OPENPBS_STATE/home/sched_priv/sched.lock")"
}

passes_until () {
    local limit=$1
    shift
    WAIT_FOR_INTERVAL=2 wait_for "$limit" pass_unless "$@"
}

pass_unless () {  # CMD holds, or a pass runs and it fails
    "$@" || { pbs_pass >/dev/null 2>&1; false; }
}

made_in () {
    ccsim_made | grep -c "^$1-" || true
}

hook_enable () {
    in_pbs qmgr -c "set hook ccautoscale enabled = $1"
}

job_json () {
    in_pbs qstat -x -f -F json "$1"
}

job_state () {
    job_json "$1" | jq -r '.Jobs[].job_state'
}

job_is () {  # job_is ID STATE
    [ "$(job_state "$1")" = "$2" ]
}

job_exit () {
    job_json "$1" | jq -r '.Jobs[].Exit_status // "none"'
}

# every job PBS has (or those given: an array's id stands for its subjobs)
# finished.  (qstat given several ids prints only some of them: read all.)
jobs_of () {
    local seqs
    seqs=$(printf '%s\n' "$@" | sed 's/[^0-9].*//' | jq -R . | jq -s -c .)
    in_pbs qstat -x -f -t -F json 2>/dev/null |
        jq -c --argjson seqs "$seqs" '[.Jobs // {} | to_entries[] | select(.key | test("\\[\\]") | not)
            | select(($seqs | length) == 0 or ((.key | sub("[^0-9].*"; "")) as $s | $seqs | index($s)))]'
}

jobs_done () {
    jobs_of "$@" | jq -e 'length > 0 and all(.value.job_state == "F" or .value.job_state == "X")' >/dev/null
}

wait_jobs_done () {
    local limit=$1
    shift
    pbs_wait "$limit" jobs_done "$@" || {
        echo "jobs not done after ${limit}s:" >&2
        jobs_of "$@" | jq -r '.[] | "\(.key) \(.value.job_state) \(.value.comment // "")"' >&2
        return 1
    }
}

pbs_nodes_json () {
    in_pbs pbsnodes -av -F json
}

our_nodes () {
    pbs_nodes_json | jq -r '[.nodes // {} | keys[] | select(. != "vm")] | sort | join(" ")'
}

vms () {
    ccsim_get /ccsim/state | jq -r '[.nodes[].Name] | sort | join(" ")'
}

vms_in () {
    ccsim_get /ccsim/state | jq --arg na "$1" '[.nodes[] | select(.Template == $na)] | length'
}

# how many of ccsim's VMs are Ready
vms_ready () {
    ccsim_get /ccsim/state | jq '[.nodes[] | select(.Status == "Ready")] | length'
}

vms_ready_are () {
    [ "$(vms_ready)" = "$1" ]
}

# VM $1 is Ready in ccsim
vm_ready () {
    ccsim_get /ccsim/state | jq -e --arg n "$1" '.nodes[] | select(.Name == $n) | .Status == "Ready"' >/dev/null
}

no_vms_left () {
    [ "$(vms)" = "" ] && [ "$(our_nodes)" = "" ]
}

wait_no_vms () {
    pbs_wait "$1" no_vms_left || {
        echo "left after ${1}s: VMs [$(vms)], PBS nodes [$(our_nodes)]" >&2
        return 1
    }
}

moms_running () {
    "$OPENPBS" status 2>/dev/null | sed -n 's/^extra mom \([^ ]*\) at .*/\1/p' | sort | tr '\n' ' ' | sed 's/ $//'
}

# the server log's lines (all days) that match a pattern
server_log () {
    cat "$OPENPBS_STATE"/home/server_logs/* 2>/dev/null | grep -E "$1"
}
