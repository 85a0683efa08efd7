# SPDX-License-Identifier: MIT
# slurm.sh: a real slurmctld with cloud nodes whose "VMs" are slurmd processes
# started by ccsim's node-ready hook (sourced after tap.sh and ccsim.sh).
#
#   slurm_start CLUSTER_FILE [ccautoscale config jq expression]
#       exports SLURM_CONF, SLURM_TEST_DIR, CCAS_CONF; ccsim runs with hooks
#   slurm_job_state ID        -> PENDING, RUNNING, COMPLETED ...
#   slurm_node_state NAME     -> idle~, alloc#, down~ ... (sinfo's short form)
#   slurm_node_reason NAME
#   slurm_node_is NAME STATE [REASON] -> true if sinfo's short state (and reason) are so
#   slurm_job_is ID STATE
#   slurm_wait_job ID STATE SECONDS  (wait_for slurm_job_is, saying what the job is at when it gives up)
#   slurm_vms                 -> the VM names in ccsim, sorted, on one line
#   slurm_vm_status NAME      -> the ccsim Status of VM NAME ("" if there is none)
#   slurm_sync [ARGS]         -> ccautoscale slurm sync --json into sync.json, shown
#   slurm_since MAJOR.MINOR   -> true if the Slurm under test is that release or newer
#
# The Slurm under test is the one the build was configured with: its commands
# and daemons come first in PATH (--with-slurm=PREFIX), else PATH's (Debian's
# 22.05).  SLURM_TEST_VERSION is its version ("25.11.7").  Facts this relies
# on are in ../shared/docs/slurm-on-one-machine.md: auth/none, private ports,
# PrivateData=cloud before 23.11, and slurmd -b (it reports the node booted
# when it starts: slurmctld accepts a powering-up node only if it booted after
# the resume request).

# The Slurm the build is for: `./configure --with-slurm=PREFIX` puts its bin
# and sbin in every Makefile (SLURM_BINDIR, SLURM_SBINDIR; empty for the
# system's); SLURM_BUILD_VERSION is the libslurm the programs were built against.
slurm_build_var () {
    sed -n "s/^$1 = //p" "$top_builddir/Makefile" 2>/dev/null | head -1
}
for ccas_d in "$(slurm_build_var SLURM_BINDIR)" "$(slurm_build_var SLURM_SBINDIR)"; do
    case ":$PATH:" in *":$ccas_d:"*) ;; *) [ -z "$ccas_d" ] || PATH=$ccas_d:$PATH ;; esac
done
unset ccas_d
export PATH
SLURM_BUILD_VERSION=$(slurm_build_var SLURM_VERSION)
SLURM_TEST_VERSION=$(slurmctld -V 2>/dev/null | awk '{ print $2; exit }')
export SLURM_TEST_VERSION

# slurm_since 23.11: the Slurm under test is 23.11 or newer
slurm_since () {
    [ "$(printf '%s\n%s\n' "$1" "$SLURM_TEST_VERSION" | sort -V | head -1)" = "$1" ]
}

# A sanitizer build (run-tests sets CCAS_SANITIZER_LOGS to a directory):
# every report goes to a file there, which run-tests checks afterwards.  The
# programs slurmctld starts get almost no environment and their stderr is
# dropped, so they run through wrappers that set the options.
if [ -n "${CCAS_SANITIZER_LOGS:-}" ]; then
    mkdir -p "$CCAS_SANITIZER_LOGS"
    ASAN_OPTIONS="log_path=$CCAS_SANITIZER_LOGS/asan:detect_leaks=1"
    LSAN_OPTIONS="suppressions=$top_srcdir/tests/fuzz/lsan.supp"
    UBSAN_OPTIONS="log_path=$CCAS_SANITIZER_LOGS/ubsan:print_stacktrace=1:halt_on_error=1"
    export ASAN_OPTIONS LSAN_OPTIONS UBSAN_OPTIONS
fi

# Where slurmctld finds ResumeProgram and the others: the build's, or wrappers
# that carry the sanitizer options.
slurm_programs () {
    local p
    SLURM_PROGRAMS=$top_builddir/slurm_power
    [ -n "${CCAS_SANITIZER_LOGS:-}" ] || return 0
    SLURM_PROGRAMS=$SLURM_TEST_DIR/programs
    mkdir -p "$SLURM_PROGRAMS"
    for p in ccautoscale-resume ccautoscale-suspend ccautoscale-resume-fail; do
        printf '#!/bin/sh\nexport ASAN_OPTIONS="%s" LSAN_OPTIONS="%s" UBSAN_OPTIONS="%s"\nexec "%s" "$@"\n' \
            "$ASAN_OPTIONS" "$LSAN_OPTIONS" "$UBSAN_OPTIONS" "$top_builddir/slurm_power/$p" >"$SLURM_PROGRAMS/$p" &&
            chmod 755 "$SLURM_PROGRAMS/$p" || return 1
    done
}

slurm_prereqs () {
    [ "${CCAS_TEST_SLURM:-1}" = 0 ] && { echo "CCAS_TEST_SLURM=0"; return 1; }
    for p in slurmctld slurmd sbatch squeue sinfo scontrol unshare jq curl; do
        command -v "$p" >/dev/null 2>&1 || { echo "missing $p"; return 1; }
    done
    [ "$(id -u)" = 0 ] || { echo "needs root (slurmd runs jobs as their users)"; return 1; }
    unshare --mount true 2>/dev/null || { echo "mount namespaces unavailable"; return 1; }
    # a Slurm client must match the slurmctld it talks to
    case $SLURM_TEST_VERSION in
    "$SLURM_BUILD_VERSION" | "") ;;
    *)
        [ -z "$SLURM_BUILD_VERSION" ] ||
            { echo "the build is against libslurm $SLURM_BUILD_VERSION, but $(command -v slurmctld) is $SLURM_TEST_VERSION"; return 1; }
        ;;
    esac
}

# A block of 100 ports below Linux's ephemeral range (32768-), so that no
# client connection holds one: slurmctld listens on the first, each node's
# slurmd on base+offset+index (conf_gen numbers them across nodearrays).
# Suites run side by side (make -j), so a block is claimed by a file naming
# this shell (a claim whose shell has gone is stale and taken over) and
# released when the test ends (slurm_start's cleanup).
slurm_free_port () {
    local p claim
    while :; do
        p=$((20000 + 100 * ($(od -An -N2 -tu2 /dev/urandom) % 120)))
        claim=${TMPDIR:-/tmp}/ccas-slurm-ports.$p
        if [ -e "$claim" ] && ! kill -0 "$(cat "$claim" 2>/dev/null)" 2>/dev/null; then
            rm -f "$claim"
        fi
        (set -C && echo $$ >"$claim") 2>/dev/null || continue
        if ! (exec 3<>/dev/tcp/127.0.0.1/$p) 2>/dev/null; then
            echo "$p"
            return
        fi
        rm -f "$claim"
    done
}

# What differs by version.  23.11 and later: cloud_reg_addrs is defunct (the
# addresses are set at registration anyway) and PrivateData=cloud is ignored;
# NodeAddr is reset to the node name at power-down, so srun's nodes are
# found by name (cloud_dns; the names resolve through the private hosts
# file), and SuspendProgram runs up to power_save_interval (10 s by default)
# after a forced power-down.  SLURM_EXTRA_CONF: more lines, for one test;
# SLURM_TOPOLOGY_PLUGIN: another TopologyPlugin than topology/tree.
slurm_version_conf () {
    if slurm_since 23.11; then
        echo "SlurmctldParameters=idle_on_node_suspend,cloud_dns,power_save_interval=1"
    else
        echo "SlurmctldParameters=idle_on_node_suspend,cloud_reg_addrs"
        echo "PrivateData=cloud"
    fi
    [ -z "${SLURM_EXTRA_CONF:-}" ] || printf '%s\n' "$SLURM_EXTRA_CONF"
}

# What every test's slurm.conf has, the single controller's and the HA
# pair's (tests/lib/slurm-ha.sh): no authentication (root runs everything),
# the plugins that need no daemons beyond slurmctld and slurmd, and power
# saving with no rate limit; the paths and timers are each caller's.
slurm_common_conf () {
    cat <<CONF
AuthType=auth/none
CredType=cred/none
AuthInfo=cred_expire=10
SlurmUser=root
SlurmdUser=root
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=2
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
MpiDefault=none
JobCompType=jobcomp/none
ReturnToService=2
TreeWidth=65533
MessageTimeout=5
ResumeRate=0
SuspendRate=0
SuspendTimeout=5
$(slurm_version_conf)
CONF
}

slurm_write_conf () {
    cat >"$SLURM_CONF" <<CONF
ClusterName=ccas$$
SlurmctldHost=localhost
SlurmctldPort=$SLURM_CTLD_PORT
SlurmdPort=$SLURM_CTLD_PORT
StateSaveLocation=$SLURM_TEST_DIR/state
SlurmdSpoolDir=$SLURM_TEST_DIR/spool/%n
SlurmctldPidFile=$SLURM_TEST_DIR/slurmctld.pid
SlurmdPidFile=$SLURM_TEST_DIR/spool/%n/slurmd.pid
SlurmctldLogFile=$SLURM_TEST_DIR/log/slurmctld.log
SlurmdLogFile=$SLURM_TEST_DIR/log/slurmd-%n.log
ResumeProgram=$SLURM_PROGRAMS/ccautoscale-resume
SuspendProgram=$SLURM_PROGRAMS/ccautoscale-suspend
ResumeFailProgram=$SLURM_PROGRAMS/ccautoscale-resume-fail
ResumeTimeout=${SLURM_RESUME_TIMEOUT:-120}
SuspendTime=${SLURM_SUSPEND_TIME:-10}
$(slurm_common_conf)
TopologyPlugin=${SLURM_TOPOLOGY_PLUGIN:-topology/tree}
Include $SLURM_TEST_DIR/ccautoscale.conf
CONF
}

# The daemons' /etc/hosts (tests/slurm/with-hosts says why): this machine's,
# and every node name of the generated slurm.conf at 127.0.0.1.
slurm_write_hosts () {
    local lists names
    lists=$(sed -n 's/^NodeName=\([^ ]*\) .*/\1/p' "$SLURM_TEST_DIR/ccautoscale.conf" | paste -sd,) &&
        names=$(scontrol show hostnames "$lists") || return 1
    # shellcheck disable=SC2086 # one line per name
    { cat /etc/hosts; printf '127.0.0.1 %s\n' $names; } >"$SLURM_TEST_DIR/hosts"
}

# The power programs slurmscriptd started for this slurmctld (SLURM_CONF is
# theirs), still running: they outlive slurmctld by a moment.
slurm_programs_running () {
    local pid
    for pid in $(pgrep -f "/ccautoscale-(resume|suspend|resume-fail) " 2>/dev/null); do
        tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qxF "SLURM_CONF=$SLURM_CONF" && return 0
    done
    return 1
}

slurm_stop () {
    local f
    [ -n "${SLURM_CTLD_PID:-}" ] && kill_pid "$SLURM_CTLD_PID"
    for f in "$SLURM_TEST_DIR"/vm/*.pid; do
        [ -e "$f" ] && kill_pid "$(cat "$f")"
    done
    # a program finishing after the test's directory went would make its
    # state_dir again (an empty directory left in TMPDIR): wait for them
    WAIT_FOR_INTERVAL=0.1 wait_for 30 slurm_programs_gone 2>/dev/null
    return 0
}

slurm_programs_gone () {
    ! slurm_programs_running
}

slurm_start () {
    local cluster=$1 extra=${2:-.}
    SLURM_TEST_DIR=$TEST_TMP/slurm
    SLURM_CONF=$SLURM_TEST_DIR/slurm.conf
    CCAS_CONF=$SLURM_TEST_DIR/ccautoscale.json
    export SLURM_TEST_DIR SLURM_CONF CCAS_CONF
    mkdir -p "$SLURM_TEST_DIR/state" "$SLURM_TEST_DIR/spool" "$SLURM_TEST_DIR/log" "$SLURM_TEST_DIR/vm"
    SLURM_CTLD_PORT=$(slurm_free_port)
    test_at_exit "rm -f '${TMPDIR:-/tmp}/ccas-slurm-ports.$SLURM_CTLD_PORT'"
    SLURM_NODE_PORT_BASE=$SLURM_CTLD_PORT
    test_at_exit slurm_stop
    # SLURM_VM_HOOKS=0: VMs are only records in ccsim, no slurmd starts (benchmarks)
    if [ "${SLURM_VM_HOOKS:-1}" = 1 ]; then
        set -- --on-ready "$top_srcdir/tests/slurm/vm-up" --on-terminate "$top_srcdir/tests/slurm/vm-down"
    else
        set --
    fi
    ccsim_start "$cluster" --boot-delay "${CCSIM_BOOT_DELAY:-3}" --ip-base 127.0.1.1 "$@" || return 1
    # the stand-in VMs' GPUs: files where slurmstepd looks for their devices
    mkdir -p "$SLURM_TEST_DIR/dev" && (cd "$SLURM_TEST_DIR/dev" && touch gpu0 gpu1 gpu2 gpu3 gpu4 gpu5 gpu6 gpu7)
    CCSIM_CLUSTER_FILE=$cluster ccsim_write_config "$CCAS_CONF" \
        ".slurm = {conf_dir: \"$SLURM_TEST_DIR\", node_port_base: $SLURM_NODE_PORT_BASE,
                   gpu_device_files: \"$SLURM_TEST_DIR/dev/gpu%d\"}
         | .capacity_failure_backoff = 15 | .logging.level = \"debug\" | $extra" || return 1
    "$top_builddir/plugin/ccautoscale" -c "$CCAS_CONF" slurm conf --write "$SLURM_TEST_DIR" >"$SLURM_TEST_DIR/conf.out" || return 1
    slurm_programs || return 1
    slurm_write_conf
    slurm_write_hosts || return 1
    "$top_srcdir/tests/slurm/with-hosts" "$SLURM_TEST_DIR/hosts" \
        slurmctld -D -i -f "$SLURM_CONF" >"$SLURM_TEST_DIR/log/slurmctld.out" 2>&1 &
    SLURM_CTLD_PID=$!
    wait_for 60 sinfo -h || { cat "$SLURM_TEST_DIR/log/slurmctld.log" >&2; return 1; }
}

slurm_job_state () {
    scontrol show job "$1" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p'
}

slurm_node_state () {
    sinfo -h -N -n "$1" -o "%T" 2>/dev/null | head -1 | sed 's/^\([a-z]*\)/\1/'
}

slurm_node_states () {
    sinfo -h -N -o "%N %t %E" 2>/dev/null
}

slurm_node_reason () {
    sinfo -h -N -n "$1" -o "%E" 2>/dev/null | head -1
}

# sinfo's short state ("idle~", "drain~", "alloc#") and, if given, reason ("none" for none)
slurm_node_is () {
    local got
    got=$(sinfo -h -N -n "$1" -o "%t|%E" 2>/dev/null | head -1)
    [ "${got%%|*}" = "$2" ] && { [ $# -lt 3 ] || [ "${got#*|}" = "$3" ]; }
}

slurm_vms () {
    ccsim_get /ccsim/state | jq -r '[.nodes[].Name] | sort | join(" ")'
}

slurm_vm_status () {
    ccsim_get /ccsim/state | jq -r --arg n "$1" '[.nodes[] | select(.Name == $n) | .Status] | join(" ")'
}

slurm_sync () {
    "$top_builddir/plugin/ccautoscale" -c "$CCAS_CONF" slurm sync --json "$@" >sync.json &&
        cat sync.json
}

slurm_job_is () {
    [ "$(slurm_job_state "$1")" = "$2" ]
}

slurm_wait_job () {
    WAIT_FOR_INTERVAL=1 wait_for "$3" slurm_job_is "$1" "$2" || {
        echo "job $1: $(slurm_job_state "$1"), wanted $2"
        scontrol show job "$1"
        slurm_node_states
        return 1
    } >&2
}

# Show what happened (for a failing test's log).
slurm_dump () {
    echo "--- nodes"; slurm_node_states
    echo "--- jobs"; squeue -h -o "%i %T %R" 2>/dev/null
    echo "--- ccsim"; ccsim_get /ccsim/state | jq -c '.nodes[] | [.Name, .Status, .PlacementGroupId]'
    echo "--- ccautoscale log"; tail -30 "$TEST_TMP/ccautoscale.log" 2>/dev/null
}
