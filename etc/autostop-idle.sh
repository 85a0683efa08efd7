#!/bin/sh
# SPDX-License-Identifier: MIT
# autostop-idle.sh: a sample idle script for a node of a cluster that
# `ccautoscale serve` scales down.  Run it on the node from cron or a systemd
# timer; when the node is idle, it asks the service to stop it, and the
# service terminates it only if no target or demand still needs it.
#
# Where to ask: $AUTOSTOP_URL, else CycleCloud's
# cyclecloud.cluster.autoscale.stop_callback; which node: $INSTANCE_ID, else
# cyclecloud.instance.id (both read with jetpack on a CycleCloud node).  The
# node proves it is itself by its own address, or by the token
# `ccautoscale serve token --node NAME` printed for it, kept in
# $AUTOSTOP_TOKEN_FILE (default /etc/ccautoscale/autostop.token, mode 0600)
# and handed to curl on its standard input, never on its command line.  The
# service's CA certificate: $AUTOSTOP_CA_FILE (default
# /etc/ccautoscale/serve-ca.pem, when it exists).
#
# Idle means what $AUTOSTOP_IDLE_CHECK (a command) says by its exit status;
# without it, no process of a user with a UID of 1000 or more runs here.
# Put your scheduler's test there (no job on this node for N minutes).
#
# Exit status: 0 the node is stopping; 1 it is busy, or still needed (ask
# again later); 2 the service could not decide now (ask again later); 3 not
# set up (no URL or instance id).
set -u
token_file=${AUTOSTOP_TOKEN_FILE:-/etc/ccautoscale/autostop.token}
ca_file=${AUTOSTOP_CA_FILE:-/etc/ccautoscale/serve-ca.pem}

idle () {
    if [ -n "${AUTOSTOP_IDLE_CHECK:-}" ]; then
        sh -c "$AUTOSTOP_IDLE_CHECK"
    else
        ! ps -e -o uid= | awk '$1 >= 1000 { busy = 1 } END { exit !busy }'
    fi
}

url=${AUTOSTOP_URL:-$(jetpack config cyclecloud.cluster.autoscale.stop_callback 2>/dev/null)}
instance=${INSTANCE_ID:-$(jetpack config cyclecloud.instance.id 2>/dev/null)}
if [ -z "$url" ] || [ -z "$instance" ]; then
    echo "autostop: no stop_callback URL or instance id (set AUTOSTOP_URL and INSTANCE_ID)" >&2
    exit 3
fi
idle || exit 1

answer=$(mktemp) || exit 2
trap 'rm -f "$answer"' EXIT
set -- --silent --show-error --max-time 60 --get --data-urlencode "instance=$instance" \
    --output "$answer" --write-out '%{http_code}'
[ -f "$ca_file" ] && set -- "$@" --cacert "$ca_file"
if [ -r "$token_file" ]; then
    # the header comes from curl's standard input: the token is on no command line
    status=$({ printf 'header = "Authorization: Bearer '; tr -d ' \t\r\n' <"$token_file"; printf '"\n'; } |
        curl --config - "$@" "$url")
else
    status=$(curl "$@" "$url")
fi
reason=$(sed -n 's/.*"reason":"\([^"]*\)".*/\1/p' "$answer")
case $status in
200) echo "autostop: stopping: $reason"; exit 0 ;;
409) echo "autostop: still needed: $reason"; exit 1 ;;
*) echo "autostop: no decision (HTTP $status): $reason" >&2; exit 2 ;;
esac
