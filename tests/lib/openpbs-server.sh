#!/bin/bash
# SPDX-License-Identifier: MIT
# openpbs-server.sh: run a real OpenPBS (built by scripts/openpbs-src.sh) on
# this machine for the PBS test suites: server, scheduler, comm, datastore
# and a mom in a network namespace of its own, and an extra mom for each
# simulated VM (openpbs-moms.sh).  tests/lib/openpbs.sh, tests/openpbs/vm-setup
# and vm-down run it; so may a developer, by hand.
set -eu

prog=tests/lib/openpbs-server.sh
here=$(cd "$(dirname "$0")" && pwd)
src=$here/../../scripts/openpbs-src.sh

usage () {
    cat <<EOF
usage: $prog COMMAND [ARGS]      (as root)

Runs a real OpenPBS on this machine for the PBS test suites (build it first:
scripts/openpbs-src.sh build).  PBS ignores 127.x addresses, so it runs
inside a network namespace that this script makes, on a 10.254.x.y address
that exists only in there: nothing it starts can reach, or be reached from,
another machine.

commands
  start [--fresh]  make the namespace, start the datastore, server, scheduler,
                   comm and mom in it, set scheduler_iteration and
                   job_history_enable, and return once qstat answers and the
                   mom's node is free (~4.5 s; ~11.5 s for a new PBS_HOME,
                   which creates the datastore).  PBS_HOME, with its nodes and
                   jobs, is kept from one start to the next; --fresh starts
                   from a new one.  A start that fails, times out or is
                   interrupted stops what it started.  Already running: no-op.
                   Installs the missing Debian packages PBS runs with.
  status           what runs: the namespace's processes, the extra moms, the
                   nodes.  Exit 0 when the server answers, 3 when nothing
                   runs, 1 when the namespace exists but the server does not
                   answer.
  stop [--purge]   stop it all (~5 s) and remove the namespaces, the hosts
                   file and /etc/netns/NS; --purge also deletes STATE.
  run [-u USER] CMD [ARG...]
                   run CMD inside the namespace, with PBS's bin first in PATH
                   and PBS_CONF_FILE set; CMD's exit status is the script's.
                   -u: as USER (root's jobs are refused).  qsub leaves the
                   job's output in its current directory, which USER must be
                   able to write, or the mom retries for ~30 s and the output
                   ends in PBS_HOME/undelivered.  ccsim and ccautoscale run
                   in there too (they reach PBS and each other on loopback).
  mom-start NAME [HOSTNAME [IP]]
                   a simulated VM becomes a PBS execution host: an extra
                   pbs_mom for node HOSTNAME (NAME when HOSTNAME is empty) in
                   a network namespace of its own, joined to the PBS one by a
                   veth pair, with address IP (the one CycleCloud gave the
                   VM) when it is 10.254.x.N of the server's subnet and free,
                   else 10.254.x.N (N from 11); kept for the name and mapped
                   to it in the PBS namespace's hosts file.  Returns once the
                   mom runs (~0.2 s); then 'qmgr -c "create node NAME"'
                   (plain, or state=offline then 'pbsnodes -r') makes a node
                   that is free ~2 s later, with the ncpus and mem the mom
                   reports, and jobs run there.  The arguments are those of
                   ccsim's hooks, but ccsim runs its hook without a
                   subcommand: use a wrapper (tests/openpbs/vm-setup).
  mom-dns NAME [HOSTNAME [IP]]
                   only the name: HOSTNAME resolves on the server to the
                   address mom-start would give it (as Azure's DNS has a VM's
                   name once it has its address); nothing is started
  mom-stop NAME [HOSTNAME [IP]]
                   the VM is switched off: SIGKILL, by pid, for its mom, its
                   jobs and its namespace.  The node is down at once; a job
                   that ran there stays R until node_fail_requeue (310 s) or
                   'qdel -W force'.  (ccsim's --on-terminate hook, wrapped.)
  help, --help     this text

examples
  scripts/openpbs-src.sh build && $prog start
  cd /home/ccaspbsuser && $prog run -u ccaspbsuser qsub -- /bin/sleep 1
  $prog run qstat -x -f -F json
  $prog run pbsnodes -av -F json
  $prog mom-start vm-1 && $prog run qmgr -c "create node vm-1"
  $prog run -u ccaspbsuser qsub -l select=1:ncpus=1:host=vm-1 -- /bin/true
  $prog stop

exit status
  0 done; 1 failed; 2 no OpenPBS source tarball (start; the message, from
  scripts/openpbs-src.sh prefix, names the path looked at).  run: CMD's.

environment
  CCAS_OPENPBS_PREFIX   start: use this installed prefix instead of the one
                        scripts/openpbs-src.sh builds (CCAS_OPENPBS_TARBALL
                        and CCAS_DEPS_DIR say which, see its --help)
  CCAS_PBS_NS           the network namespace (default ccaspbs)
  CCAS_PBS_ADDR         start: the server's address in it (default 10.254.0.1,
                        must be 10.254.x.y); the other commands take the one
                        start used
  CCAS_PBS_STATE_DIR    pbs.conf, PBS_HOME, the extra moms' homes, logs
                        (default /var/spool/ccautoscale-pbs/NS; not under
                        /tmp: PBS refuses paths through world-writable dirs)
  CCAS_PBS_DATA_PORT    the datastore's port (default 15007 for ccaspbs,
                        16000-19999 from the name for another namespace: the
                        PostgreSQL socket in /var/run/postgresql is shared, so
                        two instances side by side need two ports)
  CCAS_PBS_USER         the unprivileged submitter, created when missing
                        (default ccaspbsuser)
  CCAS_PBS_SCHED_ITERATION  scheduler_iteration in seconds (default 2; PBS's
                        600 would leave a job queued before its node was free
                        waiting up to 10 minutes)
  CCAS_PBS_TIMEOUT      seconds start waits for qstat, then the node (120)

what start sets up
  Namespace NS: lo up, ADDR/32 on lo; /etc/netns/NS/hosts maps this
  machine's host name (the server's and the first node's name) to ADDR.
  ip netns exec bind-mounts that file over /etc/hosts; add to it with >>,
  never replace it, for the daemons hold its inode.  pbs.conf is
  STATE/pbs.conf, given as PBS_CONF_FILE; no /etc/pbs.conf is written (ip
  netns exec bind-mounts /etc/netns/NS/pbs.conf only over an existing
  /etc/pbs.conf).  PBS_HOME is STATE/home, PBS_TMPDIR (jobs' TMPDIR) STATE/tmp.
  Users: pbsdata (datastore; group postgres) and CCAS_PBS_USER, created when
  missing.  Server settings beyond the two above (node_group_* included) are
  the product's.  Nothing is killed by process name: the init script stops
  the daemons, then what is left in the namespaces is killed by pid.  A
  signal stops start cleanly, but a 'start &' from a non-interactive shell
  ignores SIGINT (so does any such background job): send it SIGTERM.  qsub
  leaves a helper process (for later qsubs) in the namespace for ~60 s; stop
  kills it.
EOF
}

# settings, checks, die/say, the namespace's helpers
# shellcheck source=tests/lib/openpbs-ns.sh
. "$here/openpbs-ns.sh"

# the prefix start uses: CCAS_OPENPBS_PREFIX, else the tarball's; it must be built
start_prefix () {
    local p=${CCAS_OPENPBS_PREFIX:-}
    # (set -e does not reach into $(...): pass exit status 2 on by hand)
    [ -n "$p" ] || p=$("$src" prefix) || exit $?
    [ -f "$p/.ccas-built" ] || [ -n "${CCAS_OPENPBS_PREFIX:-}" ] ||
        die "OpenPBS is not built in $p: run 'scripts/openpbs-src.sh build' first"
    [ -x "$p/sbin/pbs_server" ] || die "no OpenPBS in $p (no sbin/pbs_server)"
    echo "$p"
}

# no PBS daemon (nor the datastore) is left in the namespace
pbs_gone () {
    local p
    for p in $(ip netns pids "$ns" 2>/dev/null); do
        case $(readlink "/proc/$p/exe" 2>/dev/null) in
        "$prefix"/* | /usr/lib/postgresql/*) return 1 ;;
        esac
    done
}

server_answers () {
    (in_ns qstat -B) >/dev/null 2>&1
}

node_is_free () {
    (in_ns pbsnodes -v "$1") 2>/dev/null | grep -q '^ *state = free$'
}

# ---------------------------------------------------------------- start / stop

starting=0

start_failed () {
    local rc=$1
    trap - EXIT INT TERM HUP
    if [ "$starting" = 1 ]; then
        echo "$prog: start did not finish; stopping what it started" >&2
        teardown >/dev/null 2>&1 || true
    fi
    exit "$rc"
}

cmd_start () {
    local fresh=0 t0 version
    case ${1:-} in
    --fresh) fresh=1 ;;
    '') ;;
    *) die "start: unknown option '$1'" ;;
    esac
    need_root start
    prefix=$(start_prefix)
    "$src" deps
    if ns_exists; then
        if [ "$(cat "$state/prefix" 2>/dev/null)" = "$prefix" ] && server_answers; then
            say "PBS is already running in namespace $ns"
            return 0
        fi
        die "namespace $ns exists but no PBS of this prefix answers in it: run '$prog stop' first"
    fi
    t0=$(now)
    starting=1
    trap 'start_failed $?' EXIT
    trap 'echo "$prog: start interrupted" >&2; start_failed 130' INT TERM HUP

    # users: the datastore's (not root; its socket lock goes in the postgres
    # group's /var/run/postgresql) and the one who submits jobs (root may not)
    id -u "$data_user" >/dev/null 2>&1 || useradd -m -s /bin/bash -c "OpenPBS datastore" "$data_user"
    id -nG "$data_user" | tr ' ' '\n' | grep -qx postgres || usermod -aG postgres "$data_user"
    id -u "$pbs_user" >/dev/null 2>&1 || useradd -m -s /bin/bash -c "submits test jobs to OpenPBS" "$pbs_user"
    install -d -o postgres -g postgres -m 2775 /var/run/postgresql

    mkdir -p "$state"
    chmod 755 "$state"
    # PBS_HOME is kept from one start to the next once a start with it has
    # finished (home-ready names the prefix); an interrupted first start (or
    # datastore creation) leaves none, and the next start makes a new one
    if [ "$fresh" = 1 ] || [ "$(cat "$state/home-ready" 2>/dev/null)" != "$prefix" ]; then
        rm -rf "$pbs_home" "$state/moms" "$state/addrs" "$state/home-ready"
    fi
    echo "$prefix" >"$state/prefix"
    echo "$addr" >"$state/addr"
    cat >"$conf" <<EOF
PBS_EXEC=$prefix
PBS_HOME=$pbs_home
PBS_SERVER=$host
PBS_START_SERVER=1
PBS_START_SCHED=1
PBS_START_COMM=1
PBS_START_MOM=1
PBS_DATA_SERVICE_PORT=$data_port
PBS_TMPDIR=$state/tmp
EOF
    # jobs' TMPDIR and the commands' scratch files (not /var/tmp, which two
    # instances, whose job ids are alike, would share)
    install -d -m 1777 "$state/tmp"
    version=$(sed -n 's/^version=//p' "$prefix/.ccas-built" 2>/dev/null)
    [ -n "$version" ] || version=$("$prefix/bin/qstat" --version | sed 's/^.* = //')
    if [ ! -d "$pbs_home" ]; then
        # "sameconf": only make PBS_HOME (no /etc/pbs.conf, no init links)
        PATH=$sys_path PBS_CONF_FILE=$conf PBS_DATA_SERVICE_USER=$data_user \
            "$prefix/libexec/pbs_postinstall" server "$version" "$prefix" "$pbs_home" "$data_user" sameconf \
            >"$state/postinstall.log" 2>&1 ||
            die "pbs_postinstall failed; see $state/postinstall.log"
    fi

    ip netns add "$ns"
    ip -n "$ns" link set lo up
    ip -n "$ns" addr add "$addr/32" dev lo
    write_hosts

    # (in a subshell: a trap that runs meanwhile must print to our stderr)
    (in_ns "$prefix/libexec/pbs_init.d" start) >"$state/start.log" 2>&1 ||
        die "pbs_init.d start failed; see $state/start.log"
    wait_until "$timeout" qstat server_answers ||
        die "the server did not answer qstat within ${timeout} s; see $state/start.log and $pbs_home/server_logs"
    say "server answers after $(since "$t0") s"
    # (one command per qmgr: given two -c, qmgr runs only the last)
    in_ns qmgr -c "set server scheduler_iteration = $sched_iteration"
    in_ns qmgr -c "set server job_history_enable = True"
    wait_until "$timeout" node node_is_free "$host" ||
        die "node $host was not free within ${timeout} s; see $pbs_home/mom_logs and $pbs_home/server_logs"
    echo "$prefix" >"$state/home-ready"
    starting=0
    trap - EXIT INT TERM HUP
    say "PBS is up in namespace $ns after $(since "$t0") s: server $host at $addr, node $host free; run '$prog run CMD' there"
}

# stop everything this script started and remove what it made; never fails
teardown () {
    local n p pids
    [ -n "${prefix:-}" ] || prefix=$(cat "$state/prefix" 2>/dev/null || true)
    for p in "$state"/moms/*/holder.pid; do
        [ -e "$p" ] || continue
        n=${p%/holder.pid}
        mom_kill "${n##*/}" || true
    done
    if ns_exists; then
        if [ -n "$prefix" ] && [ -x "$prefix/libexec/pbs_init.d" ] && [ -f "$conf" ]; then
            (in_ns "$prefix/libexec/pbs_init.d" stop) >"$state/stop.log" 2>&1 || true
        fi
        # the init script's daemons exit within seconds; then kill what is left
        # (a daemon that would not stop, ccsim, jobs, qsub's helper) by pid
        [ -z "$prefix" ] || wait_until 10 daemons pbs_gone || true
        pids=$(ip netns pids "$ns" 2>/dev/null || true)
        # shellcheck disable=SC2086
        kill_pids 5 $pids
        ip netns del "$ns" 2>/dev/null || true
    fi
    rm -rf "/etc/netns/$ns"
    rmdir /etc/netns 2>/dev/null || true
    # ip netns add bind-mounts /run/netns on itself; leave no empty one behind
    if mountpoint -q /run/netns 2>/dev/null && [ -z "$(ls -A /run/netns 2>/dev/null)" ]; then
        umount /run/netns 2>/dev/null || true
        rmdir /run/netns 2>/dev/null || true
    fi
}

cmd_stop () {
    local purge=0 t0 left
    case ${1:-} in
    --purge) purge=1 ;;
    '') ;;
    *) die "stop: unknown option '$1'" ;;
    esac
    need_root stop
    t0=$(now)
    trap '' INT TERM HUP
    teardown
    if [ "$purge" = 1 ]; then
        rm -rf "$state"
        rmdir "${state%/*}" 2>/dev/null || true
    fi
    left=""
    ns_exists && left="$left namespace $ns;"
    [ ! -e "/etc/netns/$ns" ] || left="$left /etc/netns/$ns;"
    [ -z "$left" ] || die "stop left:$left"
    say "stopped in $(since "$t0") s; nothing of namespace $ns is left"
}

cmd_status () {
    local pids p rc=0 d n
    if ! ns_exists; then
        say "not running (no namespace $ns)"
        [ ! -d "$state" ] || say "state kept in $state ('stop --purge' removes it)"
        return 3
    fi
    prefix=$(running_prefix)
    say "namespace $ns, server $host at $addr, prefix $prefix, state $state"
    pids=$(ip netns pids "$ns" 2>/dev/null | sort -n | tr '\n' ',' || true)
    if [ -n "$pids" ]; then
        echo "processes in $ns:"
        ps -o pid=,user=,args= -p "${pids%,}" | cut -c1-120 | sed 's/^/  /'
    fi
    for p in "$state"/moms/*/holder.pid; do
        [ -e "$p" ] || continue
        d=${p%/holder.pid}
        n=${d##*/}
        if mom_alive "$n"; then
            echo "extra mom $n at $(mom_addr "$n"): mom pid $(cat "$d/home/mom_priv/mom.lock" 2>/dev/null || echo '?'), namespace held by pid $(cat "$p")"
        else
            echo "extra mom $n: not running"
        fi
    done
    if server_answers; then
        echo "server answers; nodes:"
        in_ns pbsnodes -av 2>/dev/null | awk '/^[^ ]/ { n = $1 } /^ *state = / { print "  " n ": " $3 }' || true
    else
        echo "server does not answer qstat"
        rc=1
    fi
    return "$rc"
}

cmd_run () {
    local user=""
    if [ "${1:-}" = -u ]; then
        [ $# -ge 2 ] || die "run: -u needs a user"
        user=$2
        shift 2
    fi
    [ "${1:-}" != -- ] || shift
    [ $# -gt 0 ] || die "run: no command"
    need_root run
    ns_exists || die "PBS is not running (no namespace $ns): run '$prog start'"
    prefix=$(running_prefix)
    if [ -n "$user" ]; then
        # qsub puts the job's output where it was run: a directory that user
        # cannot write costs ~30 s of mom retries and the output lands in
        # PBS_HOME/undelivered
        runuser -u "$user" -- test -w . ||
            echo "$prog: warning: $user cannot write $(pwd): job output submitted from here will not be delivered" >&2
        exec ip netns exec "$ns" runuser -u "$user" -- env PATH="$prefix/bin:$PATH" PBS_CONF_FILE="$conf" "$@"
    fi
    exec ip netns exec "$ns" env PATH="$prefix/bin:$PATH" PBS_CONF_FILE="$conf" "$@"
}

# the extra moms, one a simulated VM: mom-start, mom-dns, mom-stop, mom_kill
# shellcheck source=tests/lib/openpbs-moms.sh
. "$here/openpbs-moms.sh"

# ---------------------------------------------------------------- main

cmd=${1:-}
[ $# -eq 0 ] || shift
case $cmd in
start) cmd_start "$@" ;;
stop) cmd_stop "$@" ;;
status) cmd_status "$@" ;;
run) cmd_run "$@" ;;
mom-start) cmd_mom_start "$@" ;;
mom-dns) cmd_mom_dns "$@" ;;
mom-stop) cmd_mom_stop "$@" ;;
help | --help | -h) usage ;;
'') usage >&2; exit 1 ;;
*) echo "$prog: unknown command '$cmd'" >&2; usage >&2; exit 1 ;;
esac
