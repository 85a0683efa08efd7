# SPDX-License-Identifier: MIT
# openpbs-moms.sh: the extra moms of tests/lib/openpbs-server.sh, one for each
# simulated VM, each in a network namespace of its own joined to the PBS one
# by a veth pair: mom-start, mom-dns, mom-stop, and mom_kill (stop uses it).  Sourced
# by openpbs-server.sh after openpbs-ns.sh, whose settings and helpers it uses.

valid_node () {
    case $1 in
    '' | [!A-Za-z0-9]* | *[!A-Za-z0-9._-]*) die "'$1' is not a usable node name (letters, digits, . _ -)" ;;
    esac
    [ "${#1}" -le 63 ] || die "node name '$1' is longer than 63"
}

mom_addr () {
    awk -v n="$1" '$1 == n { print $2 }' "$state/addrs" 2>/dev/null
}

# an address ours to hand a node: 10.254.C.N of the PBS namespace's subnet,
# N from 2 to 254 and not the server's
our_addr () {
    local n
    case $1 in "10.254.$addr_c".*) ;; *) return 1 ;; esac
    n=${1##*.}
    case $n in '' | *[!0-9]*) return 1 ;; esac
    [ "$n" -ge 2 ] && [ "$n" -le 254 ] && [ "$n" != "$addr_d" ]
}

# the node's address: the one it had, else WANT (the address CycleCloud gave
# the VM: ccsim's --ip-base is in the namespace's subnet) when it is ours
# and free, else the lowest free 10.254.C.N (N >= 11); appended to the addrs
# file and to the hosts file (>>: the daemons hold its inode)
alloc_addr () {
    local node=$1 want=${2:-} a i used
    exec 8>>"$state/addrs"
    flock 8
    a=$(mom_addr "$node")
    used=" $(awk '{ print $2 }' "$state/addrs" | tr '\n' ' ') "
    if [ -z "$a" ] && [ -n "$want" ] && our_addr "$want"; then
        case $used in *" $want "*) ;; *) a=$want ;; esac
        [ -n "$a" ] && printf '%s %s\n' "$node" "$a" >>"$state/addrs"
    fi
    if [ -z "$a" ]; then
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

# mom-dns NAME [HOSTNAME [IP]]: the VM's name resolves on the server (as
# Azure's DNS has it once the VM has its address), nothing started
cmd_mom_dns () {
    local node
    [ $# -ge 1 ] || die "mom-dns: NAME missing"
    node=${2:-$1}
    valid_node "$node"
    need_root mom-dns
    ns_exists || die "PBS is not running (no namespace $ns): run '$prog start'"
    say "$node resolves to $(alloc_addr "$node" "${3:-}") on the server"
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
    ns_exists || die "PBS is not running (no namespace $ns): run '$prog start'"
    prefix=$(running_prefix)
    t0=$(now)
    d=$state/moms/$node
    if mom_alive "$node"; then
        say "mom $node is already running at $(mom_addr "$node")"
        return 0
    fi
    mom_kill "$node" 2>/dev/null || true
    a=$(alloc_addr "$node" "${3:-}")
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
