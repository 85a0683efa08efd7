# SPDX-License-Identifier: MIT
# openpbs-ns.sh: what tests/lib/openpbs-server.sh and its extra moms
# (openpbs-moms.sh) share: the settings from the environment, checked; the
# running PBS's prefix; and the network namespace's helpers.  Sourced by
# openpbs-server.sh before it shifts its command (a running PBS keeps the
# address start gave it), after it sets prog.

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
# Debian's tools only, for the daemons and what they run: no python3 (pyenv)
# or library from earlier in PATH or LIBRARY_PATH
sys_path=/usr/sbin:/usr/bin:/sbin:/bin

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

# the prefix the running PBS uses (written by start)
running_prefix () {
    [ -s "$state/prefix" ] || die "no PBS was started with state directory $state"
    cat "$state/prefix"
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
