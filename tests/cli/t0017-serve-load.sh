#!/bin/bash
# SPDX-License-Identifier: MIT
# t0017-serve-load.sh: `ccautoscale serve` under load, against a ccsim
# cluster of 1,000 Ready nodes at loopback aliases 127.0.1.1 on.  A flood
# of 1,000 autostops, 100 at once, each from its node's own address: every
# one answered, exactly as many stopped as the target lets go (each once,
# by ccsim's request log, and the 200s name them), the rest refused, and
# again with nothing left to stop.  A flood that mixes forged callers, bad
# queries and unknown nodes with real ones: each answered, only the real
# callers' nodes stopped.  Clients that never finish their request hold
# their own connections only: the service answers others meanwhile, closes
# them after serve.client_timeout, and refuses an address more connections
# than serve.max_connections_per_address.  Counts only: no timing is judged
# (tests/bench measures that).
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/ccsim.sh"
. "$(dirname "$0")/../lib/serve.sh"
CCAS=$(test_program "$top_builddir/plugin/ccautoscale")
LOAD=$top_builddir/tests/cli/serveload
export CCAUTOSCALE_CONFIG=$TEST_TMP/autoscale.json

"$top_builddir/plugin/ccautoscale" serve --help >/dev/null 2>&1 ||
    test_skip_all "this build has no 'ccautoscale serve' (configure found no libmicrohttpd or GnuTLS)"

want () {  # the htc array's target, for an hour
    echo "[{\"Name\": \"htc\", \"TargetCount\": $1}]" >req.json &&
    "$CCAS" autoscale update --expiration 3600 req.json >/dev/null
}

running () {
    ccsim_get /ccsim/state | jq '[.nodes[] | select(.TargetState == "Started")] | length'
}

# "URL ADDRESS -" for every running node, asking for itself by instance id
own_requests () {
    ccsim_get /ccsim/state |
        jq -r --arg u "$SERVE_URL/autostop" '.nodes[] | select(.TargetState == "Started") | "\($u)?instance=\(.InstanceId | @uri) \(.PrivateIp) -"'
}

# the names of the nodes whose answer in $1 (serveload -o) was a 200
stopped_by_answer () {
    awk '$2 == 200 { sub(/^[^{]*/, ""); print }' "$1" | jq -r .node
}

test_expect_success 'setup: 1,000 Ready nodes, the service listening' '
    "$top_srcdir/tests/bench/gen-cluster" load 1 1 1000 >cluster.json &&
    export CCSIM_CLUSTER_FILE=$TEST_TMP/cluster.json &&
    ccsim_start cluster.json --boot-delay 0 --ip-base 127.0.1.1 &&
    ccsim_write_config "$CCAUTOSCALE_CONFIG" \
        ".serve = {status_max_age: 30, client_timeout: 2, max_connections_per_address: 8} | .logging.level = \"notice\"" &&
    wait_for 30 sh -c "test \$(curl -s $CCSIM_URL/ccsim/state | jq \"[.nodes[] | select(.Status == \\\"Ready\\\")] | length\") = 1000" &&
    want 1000 &&
    serve_start &&
    test_equal "$(running)" 1000 "nodes running"
'

test_expect_success 'a flood of 1,000, 100 at once: each answered; the 100 the target lets go stopped, each once' '
    want 900 &&
    ccsim_delete /ccsim/requests >/dev/null &&
    own_requests >flood.txt &&
    test_equal "$(wc -l <flood.txt)" 1000 "requests" &&
    "$LOAD" -c 100 -t 900 -o answers.txt flood.txt >summary.json &&
    cat summary.json &&
    jq -e ".answered == 1000 and .codes[\"200\"] == 100 and .codes[\"409\"] == 900 and .concurrency == 100" summary.json &&
    test_equal "$(terminated | wc -l)" 100 "terminations (ccsim'"'"'s request log)" &&
    test_equal "$(terminated | sort | uniq -d | wc -l)" 0 "nodes terminated twice" &&
    test_equal "$(stopped_by_answer answers.txt | sort | tr "\n" " ")" "$(terminated | sort | tr "\n" " ")" \
        "the nodes answered 200 are the nodes terminated" &&
    test_equal "$(running)" 900 "nodes running: the target" &&
    test_grep "wants 900 nodes and has 900" answers.txt
'

test_expect_success 'the same flood again: every running node refused, nothing more stopped' '
    ccsim_delete /ccsim/requests >/dev/null &&
    own_requests >flood2.txt &&
    "$LOAD" -c 100 -t 900 -o answers2.txt flood2.txt >summary2.json &&
    jq -e ".answered == 900 and .codes[\"409\"] == 900" summary2.json &&
    test_equal "$(terminated | wc -l)" 0 "terminations" &&
    test_equal "$(running)" 900 "nodes running"
'

test_expect_success 'forged callers, bad queries and unknown nodes in a flood of real ones: only real callers'"'"' nodes stopped' '
    want 850 &&
    ccsim_delete /ccsim/requests >/dev/null &&
    ccsim_get /ccsim/state | jq -r ".nodes[] | select(.TargetState == \"Started\") | \"\(.Name) \(.InstanceId) \(.PrivateIp)\"" >nodes.txt &&
    awk -v u="$SERVE_URL/autostop" "
        NR <= 300 { print u \"?node=\" \$1 \" \" \$3 \" -\"; real[\$1] = 1; next }
        NR <= 600 { if (prev != \"\") print u \"?node=\" prev \" \" \$3 \" -\"; prev = \$1; next }
        NR <= 700 { print u \"?node=\" \$1 \"&node=\" \$1 \" \" \$3 \" -\"; next }
        NR <= 800 { print u \"?instance=%zz\" \$1 \" \" \$3 \" -\"; next }
        NR <= 900 { print u \"?instance=/subscriptions/elsewhere/vm/\" NR \" \" \$3 \" -\"; next }
        END { for (n in real) print n >\"real.txt\" }" nodes.txt >mixed.txt &&
    test_equal "$(wc -l <mixed.txt)" 899 "requests" &&
    "$LOAD" -c 100 -t 900 -o answers3.txt mixed.txt >summary3.json &&
    cat summary3.json &&
    jq -e ".answered == 899 and .codes[\"200\"] == 50 and .codes[\"409\"] == 250 and .codes[\"403\"] == 299
           and .codes[\"400\"] == 200 and .codes[\"404\"] == 100" summary3.json &&
    test_equal "$(terminated | wc -l)" 50 "terminations" &&
    test_equal "$(terminated | sort -u | comm -23 - <(sort real.txt) | wc -l)" 0 "nodes stopped that no real caller asked for" &&
    test_equal "$(running)" 850 "nodes running: the target"
'

healthy () {
    test "$(serve_get /healthz)" = 200
}

# the count of connections the server closed, in slow_clients' output $1, compared ($2 -eq, -ge) with $3
closed () {
    test "$(grep -c "^closed" "$1")" "$2" "$3"
}

# Python (in place of the shell that runs this, so that killing that kills it)
# holds N connections that never finish their request and reports
# each one the server closes: "held N" once all are open, "closed K" for
# each closed, with the seconds it stayed open.
slow_clients () {
    exec /usr/bin/python3 -u -c "
import socket, sys, time
port, n = int(sys.argv[1]), int(sys.argv[2])
socks = []
for i in range(n):
    s = socket.create_connection(('127.0.0.1', port))
    s.sendall(b'GET /autostop?inst')
    socks.append((s, time.monotonic()))
print('held', n, flush=True)
left = list(range(n))
deadline = time.monotonic() + 60
while left and time.monotonic() < deadline:
    for i in list(left):
        s, t0 = socks[i]
        s.settimeout(0.05)
        try:
            data = s.recv(1024)
        except socket.timeout:
            continue
        except OSError:
            data = b''
        if not data:
            print('closed', i, round(time.monotonic() - t0, 1), flush=True)
            left.remove(i)
" "${SERVE_URL##*:}" "$1"
}

test_expect_success 'clients that never finish their request: others are served meanwhile, and they are closed after client_timeout' '
    { slow_clients 6 >slow.out 2>&1 & slow=$!; } &&
    test_at_exit "kill_pid $slow" &&
    wait_for 30 grep -q "^held 6" slow.out &&
    test_equal "$(serve_get /healthz)" 200 "healthz while they hold" &&
    own_requests | head -100 >some.txt &&
    "$LOAD" -c 100 -t 900 some.txt >summary4.json &&
    jq -e ".answered == 100 and .codes[\"409\"] == 100" summary4.json &&
    wait_for 60 closed slow.out -eq 6 &&
    cat slow.out &&
    test_equal "$(awk "/^closed/ && \$3 >= 1.5" slow.out | wc -l)" 6 "closed by the 2 s timeout, not before" &&
    { wait $slow; true; } &&
    test_equal "$(terminated | wc -l)" 50 "terminations (the earlier 50 only)"
'

test_expect_success 'an address holding serve.max_connections_per_address is refused more; other addresses are served' '
    serve_stop &&
    ccsim_write_config "$CCAUTOSCALE_CONFIG" \
        ".serve = {status_max_age: 30, client_timeout: 60, max_connections_per_address: 8} | .logging.level = \"notice\"" &&
    serve_start &&
    { slow_clients 11 >slow2.out 2>&1 & slow=$!; } &&
    test_at_exit "kill_pid $slow" &&
    wait_for 30 grep -q "^held 11" slow2.out &&
    wait_for 30 closed slow2.out -ge 3 &&
    own_requests | head -20 >some2.txt &&
    "$LOAD" -c 20 -t 900 some2.txt >summary5.json &&
    jq -e ".answered == 20 and .codes[\"409\"] == 20" summary5.json &&
    test_equal "$(serve_get /healthz)" 000 "a ninth connection from the same address" &&
    cat slow2.out &&
    test_equal "$(grep -c "^closed" slow2.out)" 3 "connections refused: the three over 8" &&
    kill_pid $slow &&
    wait_for 30 healthy
'

test_expect_success 'the service stops on SIGTERM with exit status 0' '
    serve_stop
'

test_done
