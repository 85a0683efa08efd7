# SPDX-License-Identifier: MIT
# slurm-ha.sh: an HA pair of real slurmctld (SlurmctldHost x 2), as
# CycleCloud's slurm.ha_enabled sets one up, on one machine (sourced after
# tap.sh, ccsim.sh and slurm.sh).
#
# Three network namespaces the test makes, named after it (nothing in the
# machine's own namespace changes):
#   NET  10.77.0.1 on a bridge: the cluster network — ccsim (CycleCloud)
#        and the VMs' slurmd (started by ccsim's hooks); every node name
#        resolves to 10.77.0.1
#   A    ctl-a, 10.77.0.2: the primary slurmctld, hostname ctl-a
#   B    ctl-b, 10.77.0.3: the backup slurmctld, hostname ctl-b
# Each controller runs with a hostname (UTS namespace) and a mount namespace
# of its own.  Both see one directory, $HA/shared, as two hosts see an NFS
# export: $HA/shared/slurm is StateSaveLocation, $HA/shared/ccas/ha holds
# ccautoscale's state_dir and lock_file.  In each controller's namespace
# $HA/shared/ccas is a mount of its own, which ha_storage makes read-only or
# missing there (as a broken NFS mount would be).  Each controller has its
# own ccautoscale.json ($HA/ctl-X/), its own log and pid file; slurmctld
# runs ccautoscale's programs (ResumeProgram ...) through wrappers in
# $HA/programs, and SlurmctldPrimaryOnProg starts `ccautoscale slurm sync`
# once the controller that just took control answers.
#
#   ha_prereqs                    -> why not, on stdout, and false
#   ha_start CLUSTER [jq expr]    the namespaces, ccsim, both controllers; A in control
#                                 (slurm.zombie_vms terminate: the suite's orphans are
#                                 VMs a dying controller left, which sync gives back)
#   ha_kill X                     SIGKILL every process of controller X (a or b): the host dies
#   ha_ctld_start X               start controller X again
#   ha_wait_control X SECONDS     until X is in control and answers
#   ha_synced X N                 X's takeover sync (SlurmctldPrimaryOnProg) has finished N times
#   ha_in X CMD...                CMD inside X's namespaces (as a program it runs would be)
#   ha_net CMD...                 CMD in the cluster network (sinfo, curl ... are wrapped so)
#   ha_failpoint X POINT          X's next resume program stops at POINT (start, or a
#                                 CCAUTOSCALE_FAILPOINT name): then ha_kill X
#   ha_storage X|both ro|missing|ok   X's view of the shared ccautoscale directory
#   ha_log X                      X's ccautoscale log
#   ha_dump                       what happened, for a failing test's log

HA_SUBNET=10.77.0
HA_BR_ADDR=$HA_SUBNET.1

ha_prereqs () {
    local why
    why=$(slurm_prereqs) || { echo "$why"; return 1; }
    for p in ip nsenter unshare hostname; do
        command -v "$p" >/dev/null 2>&1 || { echo "missing $p"; return 1; }
    done
    # the pair runs the Slurm of the build; the suite is for 25.11 (run-tests --suite slurm-ha)
    slurm_since 25.11 || { echo "Slurm $SLURM_TEST_VERSION: the HA suite runs against 25.11 (./run-tests --suite slurm-ha)"; return 1; }
    ip netns add "ccas-ha-probe-$$" 2>/dev/null || { echo "cannot make network namespaces"; return 1; }
    ip netns del "ccas-ha-probe-$$"
}

# The namespaces are named after the test and this shell.
HA_NS=ccas-ha-${TEST_NAME%%-*}-$$
HA_NS_NET=$HA_NS-net
HA_NS_A=$HA_NS-a
HA_NS_B=$HA_NS-b

ha_ns () {
    case $1 in
    a) echo "$HA_NS_A" ;;
    b) echo "$HA_NS_B" ;;
    net) echo "$HA_NS_NET" ;;
    esac
}

ha_net () {
    nsenter --net="/run/netns/$HA_NS_NET" -- "$@"
}

# The Slurm commands and curl of the tests (and of slurm.sh's and ccsim.sh's
# helpers) talk to the pair and ccsim over the cluster network.
sinfo () { ha_net sinfo "$@"; }
squeue () { ha_net squeue "$@"; }
scontrol () { ha_net scontrol "$@"; }
sbatch () { ha_net sbatch "$@"; }
scancel () { ha_net scancel "$@"; }
curl () { ha_net curl "$@"; }

ha_netns_setup () {
    local x addr
    ip netns add "$HA_NS_NET" && ip netns add "$HA_NS_A" && ip netns add "$HA_NS_B" || return 1
    ip -n "$HA_NS_NET" link set lo up &&
        ip -n "$HA_NS_NET" link add br0 type bridge &&
        ip -n "$HA_NS_NET" addr add "$HA_BR_ADDR/24" dev br0 &&
        ip -n "$HA_NS_NET" link set br0 up || return 1
    for x in a b; do
        case $x in a) addr=$HA_SUBNET.2 ;; b) addr=$HA_SUBNET.3 ;; esac
        ip -n "$HA_NS_NET" link add "v$x" type veth peer name eth0 netns "$(ha_ns $x)" &&
            ip -n "$HA_NS_NET" link set "v$x" master br0 &&
            ip -n "$HA_NS_NET" link set "v$x" up &&
            ip -n "$(ha_ns $x)" link set lo up &&
            ip -n "$(ha_ns $x)" addr add "$addr/24" dev eth0 &&
            ip -n "$(ha_ns $x)" link set eth0 up || return 1
    done
}

# SIGKILL every process in namespace $1, and wait until none is left.
ha_ns_kill () {
    local ns=$1 i pids
    for i in $(seq 50); do
        pids=$(ip netns pids "$ns" 2>/dev/null) || return 0
        [ -n "$pids" ] || return 0
        # shellcheck disable=SC2086
        kill -KILL $pids 2>/dev/null
        sleep 0.1
    done
    echo "processes left in $ns: $(ip netns pids "$ns" | tr '\n' ' ')" >&2
    return 1
}

ha_teardown () {
    local ns
    for ns in "$HA_NS_A" "$HA_NS_B" "$HA_NS_NET"; do
        ha_ns_kill "$ns"
        ip netns del "$ns" 2>/dev/null
    done
    # ip netns add bind-mounts /run/netns on itself; leave no empty one behind
    if mountpoint -q /run/netns 2>/dev/null && [ -z "$(ls -A /run/netns 2>/dev/null)" ]; then
        umount /run/netns 2>/dev/null && rmdir /run/netns 2>/dev/null
    fi
    return 0
}

# ccsim on the cluster network (ccsim_start, but in the namespace).
ha_ccsim_start () {
    local cluster=$1 portfile=$TEST_TMP/ccsim.port i=0
    rm -f "$portfile"
    ha_net "$CCSIM_BIN" --cluster "$cluster" --bind "$HA_BR_ADDR" --port-file "$portfile" \
        --boot-delay "${CCSIM_BOOT_DELAY:-3}" --ip-base 10.77.1.1 \
        --on-ready "$top_srcdir/tests/slurm/vm-up" --on-terminate "$top_srcdir/tests/slurm/vm-down" \
        >"$TEST_TMP/ccsim.out" 2>&1 &
    CCSIM_PID=$!
    while [ ! -s "$portfile" ]; do
        if ! kill -0 "$CCSIM_PID" 2>/dev/null || [ $i -ge 100 ]; then
            echo "ccsim did not start:" >&2
            cat "$TEST_TMP/ccsim.out" >&2
            return 1
        fi
        sleep 0.1
        i=$((i + 1))
    done
    CCSIM_PORT=$(cat "$portfile")
    CCSIM_URL=http://$HA_BR_ADDR:$CCSIM_PORT
    export CCSIM_URL CCSIM_PID CCSIM_PORT
}

# The wrappers slurmctld runs: each program with its controller's
# configuration (by hostname), the sanitizer options when set, and the
# failpoint ha_failpoint left for the next resume.
ha_write_programs () {
    local p real
    mkdir -p "$HA/programs"
    for p in ccautoscale-resume ccautoscale-suspend ccautoscale-resume-fail; do
        real=$top_builddir/slurm_power/$p
        cat >"$HA/programs/$p" <<EOF
#!/bin/sh
h=\$(hostname)
export CCAUTOSCALE_CONFIG="$HA/\$h/ccautoscale.json"
${ASAN_OPTIONS:+export ASAN_OPTIONS="$ASAN_OPTIONS" LSAN_OPTIONS="$LSAN_OPTIONS" UBSAN_OPTIONS="$UBSAN_OPTIONS"}
if [ "$p" = ccautoscale-resume ] && mv "$HA/\$h/failpoint" "$HA/\$h/failpoint.taken" 2>/dev/null; then
    fp=\$(cat "$HA/\$h/failpoint.taken")
    if [ "\$fp" = start ]; then
        echo \$\$ >"$HA/\$h/stopped"
        kill -STOP \$\$
    else
        export CCAUTOSCALE_FAILPOINT="\$fp" CCAUTOSCALE_FAILPOINT_ACTION=stop
    fi
fi
exec "$real" "\$@"
EOF
        chmod 755 "$HA/programs/$p" || return 1
    done
    # SlurmctldPrimaryOnProg: slurmctld waits for it before it serves, so
    # the sync runs in the background, once the controller answers
    cat >"$HA/programs/primary-on" <<EOF
#!/bin/sh
h=\$(hostname)
(
    i=0
    while ! "$(command -v squeue)" -h >/dev/null 2>&1; do
        i=\$((i + 1))
        [ \$i -lt 600 ] || exit 1
        sleep 0.1
    done
    echo "\$(date +%s.%N) sync after taking control"
    ${ASAN_OPTIONS:+export ASAN_OPTIONS="$ASAN_OPTIONS" LSAN_OPTIONS="$LSAN_OPTIONS" UBSAN_OPTIONS="$UBSAN_OPTIONS"}
    exec "$top_builddir/plugin/ccautoscale" -c "$HA/\$h/ccautoscale.json" slurm sync
) </dev/null >>"$HA/\$h/primary-on.log" 2>&1 &
exit 0
EOF
    chmod 755 "$HA/programs/primary-on"
}

ha_write_conf () {
    cat >"$SLURM_CONF" <<CONF
ClusterName=ccasha$$
SlurmctldHost=ctl-a($HA_SUBNET.2)
SlurmctldHost=ctl-b($HA_SUBNET.3)
SlurmctldTimeout=${HA_SLURMCTLD_TIMEOUT:-6}
SlurmctldPrimaryOnProg=$HA/programs/primary-on
SlurmctldPort=6817
SlurmdPort=6818
StateSaveLocation=$HA/shared/slurm
SlurmdSpoolDir=$HA/spool/%n
SlurmctldPidFile=$HA/run/slurmctld.pid
SlurmdPidFile=$HA/spool/%n/slurmd.pid
SlurmctldLogFile=$HA/log/slurmctld.log
SlurmdLogFile=$HA/vmlog/slurmd-%n.log
ResumeProgram=$HA/programs/ccautoscale-resume
SuspendProgram=$HA/programs/ccautoscale-suspend
ResumeFailProgram=$HA/programs/ccautoscale-resume-fail
ResumeTimeout=${SLURM_RESUME_TIMEOUT:-300}
SuspendTime=${SLURM_SUSPEND_TIME:-20}
$(slurm_common_conf)
TopologyPlugin=topology/tree
Include $HA/ccautoscale.conf
CONF
}

ha_write_hosts () {
    local lists names
    lists=$(sed -n 's/^NodeName=\([^ ]*\) .*/\1/p' "$HA/ccautoscale.conf" | paste -sd,) &&
        names=$(command scontrol show hostnames "$lists") || return 1
    {
        cat /etc/hosts
        printf '%s ctl-a\n%s ctl-b\n' "$HA_SUBNET.2" "$HA_SUBNET.3"
        # shellcheck disable=SC2086 # one line per name
        printf "$HA_BR_ADDR %s\n" $names
    } >"$HA/hosts"
}

# Start controller X (a or b) in its namespaces: its hostname, the private
# hosts file, its own run and log directories over the shared names, and
# its own mount of the shared ccautoscale directory.
ha_ctld_start () {
    local x=$1 host=ctl-$1
    mkdir -p "$HA/$host/run" "$HA/$host/log"
    nsenter --net="/run/netns/$(ha_ns "$x")" -- unshare --uts --mount --propagation private -- \
        sh -c 'hostname "$1" && mount --bind "$2/hosts" /etc/hosts &&
               mount --bind "$2/$1/run" "$2/run" && mount --bind "$2/$1/log" "$2/log" &&
               mount --bind "$2/shared/ccas" "$2/shared/ccas" &&
               exec env SLURM_CONF="$2/slurm.conf" slurmctld -D -f "$2/slurm.conf"' \
        sh "$host" "$HA" >>"$HA/$host/slurmctld.out" 2>&1 &
    echo $! >"$HA/$host/pid"
}

ha_ctld_pid () {
    cat "$HA/ctl-$1/pid"
}

# X's slurmctld is in control: it logged so after every start and standby.
ha_in_control () {
    local log=$HA/ctl-$1/log/slurmctld.log
    [ -f "$log" ] || return 1
    # the later of "Running as primary controller" and "... background mode" (standby) decides
    tac "$log" | grep -m1 -E 'Running as primary controller|slurmctld running in background mode' |
        grep -q 'Running as primary controller'
}

ha_answers () {
    timeout 5 nsenter --net="/run/netns/$HA_NS_NET" -- squeue -h >/dev/null 2>&1
}

ha_wait_control () {
    local x=$1 limit=$2
    wait_for "$limit" ha_in_control "$x" && wait_for "$limit" ha_answers
}

# X's standby slurmctld is ready to take over (it pings the primary).
ha_standing_by () {
    tac "$HA/ctl-$1/log/slurmctld.log" 2>/dev/null |
        grep -m1 -E 'Running as primary controller|slurmctld running in background mode' | grep -q 'background mode'
}

# X's SlurmctldPrimaryOnProg sync finished at least N times (one per time it took control)
ha_synced () {
    test "$(grep -c "^orphans terminated" "$HA/ctl-$1/primary-on.log" 2>/dev/null)" -ge "$2"
}

ha_kill () {
    ha_ns_kill "$(ha_ns "$1")"
}

# slurmctld wrote each of its state files named ($2... in StateSaveLocation:
# job_state, node_state) after time $1 (seconds, as `date +%s.%N` prints).
# It writes them up to 5 s (SAVE_MAX_WAIT) after a change, not at once, and a
# node's registration or a job's end need not lead to a node save at all: a
# controller killed before the save leaves the other one an older picture.
# A job submitted just before is lost ("Vestigial state files for JobId=N,
# but no job record" on the backup, though sbatch printed its id); a job that
# has ended still runs; a node that has since registered is still powering
# up (never pinged: it stays so until ResumeTimeout).
ha_saved_since () {
    local t=$1 f m
    shift
    for f in "$@"; do
        m=$(stat -c %.9Y "$HA/shared/slurm/$f" 2>/dev/null) &&
            awk -v t="$t" -v m="$m" 'BEGIN { exit !(m > t) }' || return 1
    done
}

# Make the controller in charge save its job and node state, and wait until
# it has; prints the id of the held job whose submission asked for both saves
# (scancel it once done).
ha_save_state () {
    local t0 held
    t0=$(date +%s.%N)
    held=$(sbatch --parsable --hold -p htc -o /dev/null --wrap true) &&
        wait_for 30 ha_saved_since "$t0" job_state node_state && echo "$held"
}

ha_in () {
    local x=$1
    shift
    nsenter -t "$(ha_ctld_pid "$x")" -n -u -m -- "$@"
}

ha_failpoint () {
    rm -f "$HA/ctl-$1/stopped"
    echo "$2" >"$HA/ctl-$1/failpoint"
}

ha_log () {
    echo "$HA/ctl-$1/ccautoscale.log"
}

# ha_storage X|both ro|missing|ok: X's view of $HA/shared/ccas — read-only;
# missing (an empty directory over it: state_dir and lock_file's directory
# are gone, as on a mount point whose NFS export is not mounted); or the
# shared directory again.
ha_storage () {
    local xs=$1 how=$2 x d=$HA/shared/ccas
    [ "$xs" = both ] && xs="a b"
    mkdir -p "$HA/empty"
    for x in $xs; do
        ha_in "$x" sh -c '
            d=$1
            while umount "$d" 2>/dev/null; do :; done  # back to the directory itself
            mount --bind "$d" "$d" || exit 1
            case $2 in
            ro) mount -o remount,bind,ro "$d" ;;
            missing) mount --bind "$3" "$d" ;;
            ok) ;;
            esac' sh "$d" "$how" "$HA/empty" || return 1
    done
}

ha_start () {
    local cluster=$1 extra=${2:-.} x
    HA=$TEST_TMP/ha
    SLURM_TEST_DIR=$HA # where tests/slurm/vm-up finds slurm.conf and the hosts file
    SLURM_CONF=$HA/slurm.conf
    export HA SLURM_TEST_DIR SLURM_CONF
    mkdir -p "$HA/shared/slurm" "$HA/shared/ccas/ha" "$HA/run" "$HA/log" "$HA/vmlog" "$HA/spool" "$HA/vm" \
        "$HA/ctl-a" "$HA/ctl-b" || return 1
    test_at_exit ha_teardown
    ha_netns_setup || return 1
    ha_ccsim_start "$cluster" || return 1
    mkdir -p "$HA/dev" && (cd "$HA/dev" && touch gpu0 gpu1 gpu2 gpu3 gpu4 gpu5 gpu6 gpu7)
    for x in a b; do
        CCSIM_CLUSTER_FILE=$cluster ccsim_write_config "$HA/ctl-$x/ccautoscale.json" \
            ".slurm = {conf_dir: \"$HA\", node_port_base: 17000, gpu_device_files: \"$HA/dev/gpu%d\",
                       zombie_vms: \"terminate\"}
             | .state_dir = \"$HA/shared/ccas/ha/state\" | .lock_file = \"$HA/shared/ccas/ha/lock\"
             | .logging.file = \"$HA/ctl-$x/ccautoscale.log\"
             | .capacity_failure_backoff = 15 | .logging.level = \"debug\" | $extra" || return 1
    done
    CCAS_CONF=$HA/ctl-a/ccautoscale.json
    export CCAS_CONF
    ha_net "$top_builddir/plugin/ccautoscale" -c "$CCAS_CONF" slurm conf --write "$HA" >"$HA/conf.out" || return 1
    ha_write_programs && ha_write_conf && ha_write_hosts || return 1
    ha_ctld_start a
    ha_wait_control a 30 || { cat "$HA/ctl-a/log/slurmctld.log" >&2; return 1; }
    ha_ctld_start b
    wait_for 30 ha_standing_by b || { cat "$HA/ctl-b/log/slurmctld.log" >&2; return 1; }
}

ha_dump () {
    local x
    echo "--- nodes (but idle~ without a reason)"
    slurm_node_states | grep -v " idle~ none$"
    echo "--- jobs"
    squeue -h -o "%i %T %R" 2>/dev/null
    echo "--- ccsim"
    ccsim_get /ccsim/state | jq -c '.nodes[] | [.Name, .Status]'
    for x in a b; do
        echo "--- ctl-$x: slurmctld log (tail)"
        tail -25 "$HA/ctl-$x/log/slurmctld.log" 2>/dev/null
        echo "--- ctl-$x: ccautoscale log (tail)"
        tail -25 "$HA/ctl-$x/ccautoscale.log" 2>/dev/null
        echo "--- ctl-$x: primary-on"
        tail -10 "$HA/ctl-$x/primary-on.log" 2>/dev/null
    done
}
