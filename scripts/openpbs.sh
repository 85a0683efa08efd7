#!/bin/bash
# SPDX-License-Identifier: MIT
# openpbs.sh: build a real OpenPBS from the vendored tarball and run it, with
# extra moms for simulated VMs, in network namespaces of its own, for tests.
set -eu

prog=openpbs.sh
here=$(cd "$(dirname "$0")" && pwd)

usage () {
    cat <<EOF
usage: scripts/$prog COMMAND [ARGS]      (as root)

Builds a real OpenPBS and runs it on this machine for the PBS test suites.
PBS ignores 127.x addresses, so it runs inside a network namespace that this
script makes, on a 10.254.x.y address that exists only in there: nothing it
starts can reach, or be reached from, another machine.

commands
  build            unpack, configure, make and install OpenPBS: ~4 min on 2
                   cores; a no-op (0.03 s) once built.  Installs the missing
                   Debian packages first.  Interrupted: no prefix, no stamp
                   and no temp dir is left.
  start [--fresh]  make the namespace, start the datastore, server, scheduler,
                   comm and mom in it, set scheduler_iteration and
                   job_history_enable, and return once qstat answers and the
                   mom's node is free (~4.5 s; ~11.5 s for a new PBS_HOME,
                   which creates the datastore).  PBS_HOME, with its nodes and
                   jobs, is kept from one start to the next; --fresh starts
                   from a new one.  A start that fails, times out or is
                   interrupted stops what it started.  Already running: no-op.
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
                   veth pair, with address 10.254.x.N (N from 11; kept for the
                   name) mapped to the name in the PBS namespace's hosts file.
                   Returns once the mom runs (~0.2 s); then 'qmgr -c "create
                   node NAME"' (plain, or state=offline then 'pbsnodes -r')
                   makes a node that is free ~2 s later, with the ncpus and
                   mem the mom reports, and jobs run there.  IP is ignored.
                   The arguments are those of ccsim's --on-ready hook, but
                   ccsim runs its hook without a subcommand: use a two-line
                   wrapper that runs 'scripts/$prog mom-start "\$@"'.
  mom-stop NAME [HOSTNAME [IP]]
                   the VM is switched off: SIGKILL, by pid, for its mom, its
                   jobs and its namespace.  The node is down at once; a job
                   that ran there stays R until node_fail_requeue (310 s) or
                   'qdel -W force'.  (ccsim's --on-terminate hook, wrapped.)
  prefix           print the install prefix of the tarball in use
  help, --help     this text

examples
  scripts/$prog build && scripts/$prog start
  cd /home/ccaspbsuser && scripts/$prog run -u ccaspbsuser qsub -- /bin/sleep 1
  scripts/$prog run qstat -x -f -F json
  scripts/$prog run pbsnodes -av -F json
  scripts/$prog mom-start vm-1 && scripts/$prog run qmgr -c "create node vm-1"
  scripts/$prog run -u ccaspbsuser qsub -l select=1:ncpus=1:host=vm-1 -- /bin/true
  scripts/$prog stop

exit status
  0 done; 1 failed; 2 no OpenPBS source tarball (the message names the path
  looked at and CCAS_OPENPBS_TARBALL; build, start and prefix).  A test suite
  turns 2 into a loud skip on a developer's machine and into a failure when
  CI=true, so that CI never passes without PBS.  run: CMD's status.

environment
  CCAS_OPENPBS_TARBALL  the source (default: the newest openpbs-*.tar.xz in
                        ../shared/vendor beside the checkout; now
                        ${default_tarball:-none})
  CCAS_DEPS_DIR         where builds go (default /opt/ccautoscale-deps); the
                        prefix is DIR/openpbs-<first 12 hex of the tarball's
                        sha256>, complete once it holds .ccas-built; the build
                        log is DIR/openpbs-<hash>.log
  CCAS_OPENPBS_PREFIX   start: use this installed prefix instead
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
  signal stops start cleanly, but an 'openpbs.sh start &' from a
  non-interactive shell ignores SIGINT (so does any such background job):
  send it SIGTERM.  qsub leaves a helper process (for later qsubs) in the
  namespace for ~60 s; stop kills it.
EOF
}

die () {
    echo "$prog: $*" >&2
    exit 1
}

say () {
    echo "$prog: $*"
}

now () {
    date +%s.%N
}

since () {
    awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'
}

# ---------------------------------------------------------------- settings

deps_dir=${CCAS_DEPS_DIR:-/opt/ccautoscale-deps}
ns=${CCAS_PBS_NS:-ccaspbs}
addr=${CCAS_PBS_ADDR:-10.254.0.1}
state=${CCAS_PBS_STATE_DIR:-/var/spool/ccautoscale-pbs/$ns}
# PostgreSQL's socket in /var/run/postgresql is not per namespace: another
# namespace name gets another port
if [ "$ns" = ccaspbs ]; then
    data_port=${CCAS_PBS_DATA_PORT:-15007}
else
    data_port=${CCAS_PBS_DATA_PORT:-$((16000 + $(printf '%s' "$ns" | cksum | cut -d' ' -f1) % 4000))}
fi
pbs_user=${CCAS_PBS_USER:-ccaspbsuser}
data_user=pbsdata
sched_iteration=${CCAS_PBS_SCHED_ITERATION:-2}
timeout=${CCAS_PBS_TIMEOUT:-120}
conf=$state/pbs.conf
pbs_home=$state/home
# Debian's tools only: a python3 earlier in PATH (pyenv) would be built into
# pbs_python instead of Debian's, and LIBRARY_PATH would leak into the link.
sys_path=/usr/sbin:/usr/bin:/sbin:/bin

# newest tarball beside the checkout (CI: ../shared/vendor next to the clone)
default_tarball=$(find "$here/../../shared/vendor" -maxdepth 1 -name 'openpbs-*.tar.xz' -printf '%T@ %p\n' 2>/dev/null |
    sort -rn | head -n 1 | cut -d' ' -f2- || true)
[ -z "$default_tarball" ] || default_tarball=$(realpath "$default_tarball")
tarball=${CCAS_OPENPBS_TARBALL:-$default_tarball}

build_pkgs="gcc g++ make libtool autoconf automake pkg-config libhwloc-dev libx11-dev
libxt-dev libedit-dev libical-dev libncurses-dev perl postgresql-server-dev-all
postgresql-contrib postgresql python3-dev tcl-dev tk-dev swig libexpat1-dev libssl-dev
libxext-dev libxft-dev zlib1g-dev libcjson-dev xz-utils"
run_pkgs="expat libedit2 libical3 libcjson1 libhwloc15 python3 tcl tk sudo iproute2
postgresql postgresql-contrib util-linux procps"

case $ns in
'' | *[!a-z0-9_-]* | ????????????????*) die "CCAS_PBS_NS '$ns': 1-15 of a-z 0-9 _ -" ;;
esac
# a running PBS keeps the address it was started with (so that a hook that
# knows only CCAS_PBS_NS gets it right)
if [ "${1:-}" != start ] && [ -s "$state/addr" ]; then
    addr=$(cat "$state/addr")
fi
case $addr in
10.254.*.*) ;;
*) die "CCAS_PBS_ADDR '$addr' is not 10.254.x.y (the only addresses this script uses)" ;;
esac
IFS=. read -r _ _ addr_c addr_d <<EOF
$addr
EOF
for o in "$addr_c" "$addr_d"; do
    case $o in '' | *[!0-9]* | ????*) die "CCAS_PBS_ADDR '$addr' is not an IPv4 address" ;; esac
    [ "$o" -le 254 ] || die "CCAS_PBS_ADDR '$addr' is not an IPv4 address"
done
[ "$addr_d" -ge 1 ] || die "CCAS_PBS_ADDR '$addr': last part must be 1-254"
case $state in
/tmp | /tmp/*) die "CCAS_PBS_STATE_DIR '$state' is under /tmp: PBS refuses world-writable parents" ;;
/*) ;;
*) die "CCAS_PBS_STATE_DIR '$state' must be an absolute path" ;;
esac

need_root () {
    [ "$(id -u)" = 0 ] || die "$1 needs root (it installs packages, users and a network namespace)"
}

# ---------------------------------------------------------------- packages

# install those of "$@" that are not installed (one dpkg-query when none is missing)
ensure_pkgs () {
    local have missing="" p policy=/usr/sbin/policy-rc.d made=0 rc=0
    have=" $(dpkg-query -W -f='${Package}=${db:Status-Status} ' "$@" 2>/dev/null || true) "
    for p in "$@"; do
        case $have in *" $p=installed "*) ;; *) missing="$missing $p" ;; esac
    done
    [ -n "$missing" ] || return 0
    say "installing Debian packages:$missing"
    # no package may start a system-wide service (postgresql's would)
    if [ ! -e "$policy" ]; then
        printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod 755 "$policy" && made=1
    fi
    # shellcheck disable=SC2086
    { DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null; } || rc=$?
    [ "$made" = 0 ] || rm -f "$policy"
    [ "$rc" = 0 ] || die "apt-get install failed (status $rc) for:$missing"
}

# ---------------------------------------------------------------- tarball and prefix

# exit 2, naming the path, when there is no tarball
need_tarball () {
    # none beside the checkout: the pinned upstream archive, downloaded once (exit 2 offline)
    [ -n "$tarball" ] || tarball=$("$here/fetch-tarball.sh" openpbs) || exit $?
    if [ -z "$tarball" ] || [ ! -f "$tarball" ]; then
        local want=${tarball:-$(realpath -m "$here/../../shared/vendor")/openpbs-*.tar.xz}
        echo "$prog: OpenPBS source tarball not found: $want (set CCAS_OPENPBS_TARBALL to its path)" >&2
        exit 2
    fi
}

# the prefix of the tarball in use: DIR/openpbs-<first 12 hex of its sha256>
tarball_prefix () {
    need_tarball
    local sum
    sum=$(sha256sum <"$tarball")
    echo "$deps_dir/openpbs-${sum:0:12}"
}

# the prefix start uses: CCAS_OPENPBS_PREFIX, else the tarball's; it must be built
start_prefix () {
    local p=${CCAS_OPENPBS_PREFIX:-}
    # (set -e does not reach into $(...): pass exit status 2 on by hand)
    [ -n "$p" ] || p=$(tarball_prefix) || exit $?
    [ -f "$p/.ccas-built" ] || [ -n "${CCAS_OPENPBS_PREFIX:-}" ] ||
        die "OpenPBS is not built in $p: run 'scripts/$prog build' first"
    [ -x "$p/sbin/pbs_server" ] || die "no OpenPBS in $p (no sbin/pbs_server)"
    echo "$p"
}

# the prefix the running PBS uses (written by start)
running_prefix () {
    [ -s "$state/prefix" ] || die "no PBS was started with state directory $state"
    cat "$state/prefix"
}

# ---------------------------------------------------------------- build

build_work="" build_prefix="" build_done=0 step_pid=""

build_cleanup () {
    if [ -n "$step_pid" ]; then
        kill -TERM -- "-$step_pid" 2>/dev/null || true
        wait "$step_pid" 2>/dev/null || true
        step_pid=""
    fi
    [ -z "$build_work" ] || rm -rf "$build_work"
    if [ "$build_done" = 0 ] && [ -n "$build_prefix" ]; then
        rm -rf "$build_prefix"
    fi
}

# run one build step in its own process group (so that an interrupt stops
# every compiler it started), at low priority, output appended to the log
build_step () {
    local label=$1 t0 rc=0
    shift
    t0=$(now)
    setsid nice -n 19 "$@" >>"$build_log" 2>&1 </dev/null &
    step_pid=$!
    wait "$step_pid" || rc=$?
    step_pid=""
    if [ "$rc" != 0 ]; then
        tail -n 25 "$build_log" >&2
        die "$label failed (status $rc); the whole log is $build_log"
    fi
    say "$label: $(since "$t0") s"
    timings="$timings $label=$(since "$t0")s"
}

cmd_build () {
    local prefix sum t0 version
    need_tarball
    sum=$(sha256sum <"$tarball")
    sum=${sum%% *}
    prefix=$deps_dir/openpbs-${sum:0:12}
    if [ -f "$prefix/.ccas-built" ]; then
        say "OpenPBS is built in $prefix"
        return 0
    fi
    need_root build
    t0=$(now)
    # shellcheck disable=SC2086
    ensure_pkgs $build_pkgs $run_pkgs
    mkdir -p "$deps_dir"
    # one build at a time in this directory
    exec 9<"$deps_dir"
    if ! flock -n 9; then
        say "waiting for another build in $deps_dir"
        flock 9
    fi
    if [ -f "$prefix/.ccas-built" ]; then
        say "OpenPBS is built in $prefix"
        return 0
    fi
    # what a killed build left (we hold the lock: no build is running)
    rm -rf "$deps_dir"/.openpbs-build.* "$prefix"
    trap 'build_cleanup' EXIT
    trap 'build_cleanup; trap - EXIT; echo "$prog: build interrupted" >&2; exit 130' INT TERM HUP
    build_prefix=$prefix
    build_work=$(mktemp -d "$deps_dir/.openpbs-build.XXXXXX")
    build_log=$deps_dir/openpbs-${sum:0:12}.log
    : >"$build_log"
    timings=""
    say "building $tarball into $prefix (log: $build_log)"
    export PATH=$sys_path
    unset LIBRARY_PATH PYTHONHOME PYTHONPATH CPATH C_INCLUDE_PATH LD_LIBRARY_PATH
    build_step unpack tar -xJf "$tarball" -C "$build_work" --strip-components=1
    cd "$build_work"
    build_step autogen ./autogen.sh
    build_step configure ./configure --prefix="$prefix" --with-python=/usr
    build_step make make -j"$(nproc)"
    # sysprofiledir and unitfiledir keep make install inside the prefix (by
    # default it writes /etc/profile.d and a systemd unit, which would make
    # pbs_init.d start PBS in the background)
    build_step install make install sysprofiledir="$prefix/etc/profile.d" unitfiledir="$prefix/etc/systemd"
    chmod 4755 "$prefix/sbin/pbs_iff" "$prefix/sbin/pbs_rcp"
    cd /
    version=$("$prefix/bin/qstat" --version 2>/dev/null | sed 's/^.* = //')
    [ -n "$version" ] || die "the installed qstat does not tell its version"
    {
        echo "tarball=$tarball"
        echo "sha256=$sum"
        echo "version=$version"
        echo "built=$(date -u +%FT%TZ)"
        echo "seconds=$(since "$t0")"
        echo "steps=${timings# }"
    } >"$prefix/.ccas-built.tmp"
    mv "$prefix/.ccas-built.tmp" "$prefix/.ccas-built"
    build_done=1
    say "OpenPBS $version built in $prefix in $(since "$t0") s"
}

# ---------------------------------------------------------------- namespace helpers

host=$(hostname)

ns_exists () {
    [ -e "/run/netns/$ns" ] && ip netns list 2>/dev/null | awk '{ print $1 }' | grep -qx -- "$ns"
}

# run "$@" inside the namespace, with the running PBS's environment
in_ns () {
    ip netns exec "$ns" env -u LIBRARY_PATH -u PYTHONHOME -u PYTHONPATH -u LD_LIBRARY_PATH \
        PATH="$prefix/bin:$prefix/sbin:$sys_path" PBS_CONF_FILE="$conf" "$@"
}

# the pids in network namespace $1 (a file: /proc/PID/ns/net)
netns_pids () {
    local ino
    ino=$(stat -L -c %i "$1" 2>/dev/null) || return 0
    stat -L -c '%i %n' /proc/[0-9]*/ns/net 2>/dev/null |
        awk -v ino="$ino" '$1 == ino { split($2, p, "/"); print p[3] }'
}

# TERM the pids, wait up to $1 seconds, KILL what is left
kill_pids () {
    local wait=$1 p i left
    shift
    [ $# -gt 0 ] || return 0
    kill -TERM "$@" 2>/dev/null || true
    for i in $(seq "$((wait * 5))"); do
        left=""
        for p in "$@"; do
            if [ -d "/proc/$p" ]; then left="$left $p"; fi
        done
        [ -n "$left" ] || return 0
        [ "$i" = 0 ] || sleep 0.2
    done
    # shellcheck disable=SC2086
    kill -KILL $left 2>/dev/null || true
    sleep 0.2
}

# wait_until SECONDS WHAT CMD...: poll CMD until it succeeds; 1 on timeout
# (CMD in a subshell: a redirection on a function call would also catch what
# a trap prints meanwhile)
wait_until () {
    local limit=$1 t0
    shift 2
    t0=$(date +%s)
    until ("$@") >/dev/null 2>&1; do
        [ $(($(date +%s) - t0)) -lt "$limit" ] || return 1
        sleep 0.2
    done
}

# the namespace's hosts file: localhost, this host, every name an extra mom had
write_hosts () {
    local n a
    mkdir -p "/etc/netns/$ns"
    {
        printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n'
        printf '%s\t%s\n' "$addr" "$host"
        if [ -f "$state/addrs" ]; then
            while read -r n a; do printf '%s\t%s\n' "$a" "$n"; done <"$state/addrs"
        fi
    } >"/etc/netns/$ns/hosts"
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
    # shellcheck disable=SC2086
    ensure_pkgs $run_pkgs
    if ns_exists; then
        if [ "$(cat "$state/prefix" 2>/dev/null)" = "$prefix" ] && server_answers; then
            say "PBS is already running in namespace $ns"
            return 0
        fi
        die "namespace $ns exists but no PBS of this prefix answers in it: run 'scripts/$prog stop' first"
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
    say "PBS is up in namespace $ns after $(since "$t0") s: server $host at $addr, node $host free; run 'scripts/$prog run CMD' there"
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
    ns_exists || die "PBS is not running (no namespace $ns): run 'scripts/$prog start'"
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

# ---------------------------------------------------------------- extra moms (simulated VMs)

valid_node () {
    case $1 in
    '' | [!A-Za-z0-9]* | *[!A-Za-z0-9._-]*) die "'$1' is not a usable node name (letters, digits, . _ -)" ;;
    esac
    [ "${#1}" -le 63 ] || die "node name '$1' is longer than 63"
}

mom_addr () {
    awk -v n="$1" '$1 == n { print $2 }' "$state/addrs" 2>/dev/null
}

# the node's address: the one it had, else the lowest free 10.254.C.N (N >= 11)
# appended to the addrs file and to the hosts file (>>: the daemons hold its inode)
alloc_addr () {
    local node=$1 a i used
    exec 8>>"$state/addrs"
    flock 8
    a=$(mom_addr "$node")
    if [ -z "$a" ]; then
        used=" $(awk '{ print $2 }' "$state/addrs" | tr '\n' ' ') "
        for i in $(seq 11 254); do
            [ "$i" != "$addr_d" ] || continue
            case $used in *" 10.254.$addr_c.$i "*) continue ;; esac
            a=10.254.$addr_c.$i
            break
        done
        [ -n "$a" ] || die "no address left for $node"
        printf '%s %s\n' "$node" "$a" >>"$state/addrs"
    fi
    awk -v a="$a" -v n="$node" '$1 == a && $2 == n { f = 1 } END { exit !f }' "/etc/netns/$ns/hosts" ||
        printf '%s\t%s\n' "$a" "$node" >>"/etc/netns/$ns/hosts"
    exec 8>&-
    echo "$a"
}

# the pid holding the node's namespace, if it is alive and is ours
holder_pid () {
    local p
    p=$(cat "$state/moms/$1/holder.pid" 2>/dev/null) || return 1
    [ -n "$p" ] && [ "$(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)" = "sleep infinity " ] &&
        [ "$(readlink "/proc/$p/ns/net")" != "$(readlink /proc/$$/ns/net)" ] || return 1
    echo "$p"
}

mom_alive () {
    local m
    holder_pid "$1" >/dev/null || return 1
    m=$(cat "$state/moms/$1/home/mom_priv/mom.lock" 2>/dev/null) || return 1
    [ -n "$m" ] && kill -0 "$m" 2>/dev/null
}

cmd_mom_start () {
    local node d a hp i t0 mom_pid veth
    [ $# -ge 1 ] || die "mom-start: NAME missing"
    node=${2:-$1}
    valid_node "$node"
    need_root mom-start
    ns_exists || die "PBS is not running (no namespace $ns): run 'scripts/$prog start'"
    prefix=$(running_prefix)
    t0=$(now)
    d=$state/moms/$node
    if mom_alive "$node"; then
        say "mom $node is already running at $(mom_addr "$node")"
        return 0
    fi
    mom_kill "$node" 2>/dev/null || true
    a=$(alloc_addr "$node")
    i=${a##*.}
    veth=ccm$i
    # its PBS_HOME and pbs.conf: a mom alone, named NODE, reaching the server's comm
    mkdir -p "$d/home"
    cat >"$d/pbs.conf" <<EOF
PBS_EXEC=$prefix
PBS_HOME=$d/home
PBS_SERVER=$host
PBS_START_SERVER=0
PBS_START_SCHED=0
PBS_START_COMM=0
PBS_START_MOM=1
PBS_MOM_NODE_NAME=$node
PBS_LEAF_NAME=$node
PBS_TMPDIR=$d/tmp
EOF
    install -d -m 1777 "$d/tmp"
    (
        cd "$d/home"
        while read -r mode dir; do install -d -m "$mode" "$dir"; done <<EOF
0755 aux
0700 checkpoint
0755 mom_logs
0751 mom_priv
0751 mom_priv/jobs
0750 mom_priv/hooks
0750 mom_priv/hooks/tmp
1777 spool
1777 undelivered
EOF
        [ -f pbs_environment ] || printf 'PATH=/bin:/usr/bin\n' >pbs_environment
        # output goes back to the submitting host (the server's) by cp, not rcp
        # shellcheck disable=SC2016 # PBS's $-words, not shell variables
        printf '$clienthost %s\n$usecp *:/ /\n' "$host" >mom_priv/config
    )
    # a network namespace of its own, held by a sleep (the mom binds ports
    # 15002 and 15003 on every address, so two moms cannot share one); a
    # mom-start that fails or is interrupted kills what it started
    trap 'mom_kill "$node"' EXIT
    trap 'echo "$prog: mom-start interrupted" >&2; exit 130' INT TERM HUP
    rm -f "$d/holder.pid"
    # shellcheck disable=SC2016 # expanded by that sh
    setsid unshare --net sh -c 'echo $$ >"$1"; exec sleep infinity' holder "$d/holder.pid" </dev/null >/dev/null 2>&1 &
    disown  # no "Killed" notice from this shell when a failure kills it
    wait_until 5 holder holder_pid "$node" || die "mom-start: could not make a network namespace for $node"
    hp=$(holder_pid "$node")
    # a veth pair to the PBS namespace: NODE's address on the far end, a route to the server's
    ip -n "$ns" link del "$veth" 2>/dev/null || true
    ip -n "$ns" link add "$veth" type veth peer name eth0 netns "$hp"
    ip -n "$ns" link set "$veth" up
    ip -n "$ns" route replace "$a/32" dev "$veth"
    nsenter -t "$hp" -n ip link set lo up
    nsenter -t "$hp" -n ip addr add "$a/32" dev eth0
    nsenter -t "$hp" -n ip link set eth0 up
    nsenter -t "$hp" -n ip route add "$addr/32" dev eth0
    # the mom: in the PBS namespace's mount namespace (its hosts file), in NODE's network
    rm -f "$d/home/mom_priv/mom.lock"
    ip netns exec "$ns" nsenter -t "$hp" -n env -u LIBRARY_PATH -u PYTHONHOME -u PYTHONPATH -u LD_LIBRARY_PATH \
        PATH="$sys_path" PBS_CONF_FILE="$d/pbs.conf" "$prefix/sbin/pbs_mom" >"$d/mom.out" 2>&1 ||
        die "pbs_mom for $node failed; see $d/mom.out and $d/home/mom_logs"
    wait_until 10 mom mom_alive "$node" || die "pbs_mom for $node did not stay up; see $d/home/mom_logs"
    mom_pid=$(cat "$d/home/mom_priv/mom.lock")
    trap - EXIT INT TERM HUP
    say "mom $node up at $a (pid $mom_pid) after $(since "$t0") s; 'qmgr -c \"create node $node\"' makes it a node"
}

# the VM is switched off: SIGKILL for everything in the node's namespace
# (mom, jobs, the holder), by pid; the namespace, the veth pair and the route
# go with the last of them.  (On SIGTERM the mom takes 2 s to shut down.)
mom_kill () {
    local node=$1 hp pids p i
    hp=$(holder_pid "$node") || { rm -f "$state/moms/$node/holder.pid"; return 0; }
    pids=$(netns_pids "/proc/$hp/ns/net")
    # shellcheck disable=SC2086
    kill -KILL $pids 2>/dev/null || true
    for i in $(seq 25); do
        for p in $pids; do
            if [ -d "/proc/$p" ] && ! grep -q '^State:[[:space:]]*Z' "/proc/$p/status" 2>/dev/null; then
                break
            fi
            p=""
        done
        [ -n "$p" ] || break
        sleep 0.2
    done
    rm -f "$state/moms/$node/holder.pid"
}

cmd_mom_stop () {
    local node
    [ $# -ge 1 ] || die "mom-stop: NAME missing"
    node=${2:-$1}
    valid_node "$node"
    need_root mom-stop
    if ! holder_pid "$node" >/dev/null; then
        say "mom $node is not running"
        return 0
    fi
    mom_kill "$node"
    say "mom $node stopped"
}

# ---------------------------------------------------------------- main

cmd=${1:-}
[ $# -eq 0 ] || shift
case $cmd in
build) cmd_build "$@" ;;
start) cmd_start "$@" ;;
stop) cmd_stop "$@" ;;
status) cmd_status "$@" ;;
run) cmd_run "$@" ;;
mom-start) cmd_mom_start "$@" ;;
mom-stop) cmd_mom_stop "$@" ;;
prefix) tarball_prefix ;;
help | --help | -h) usage ;;
'') usage >&2; exit 1 ;;
*) echo "$prog: unknown command '$cmd'" >&2; usage >&2; exit 1 ;;
esac
