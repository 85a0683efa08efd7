#!/bin/bash
# SPDX-License-Identifier: MIT
# t0018-serve.sh: `ccautoscale serve`, the autostop endpoint, through ccsim.
# Nodes are loopback aliases (ccsim --ip-base 127.0.0.10), so a request
# "from a node" binds the node's own address.  Granted (200, the node
# terminated once, by ccsim's request log) and refused (409, the reason, the
# node left alone); a stop granted from a kept status is counted at once, so
# the next node asking is refused; one status read per decision, or one for
# several within serve.status_max_age.  Callers: another node's address, a
# forged or another node's token, a token from anywhere, serve.auth "token".
# Unknown nodes and another cluster's id (a second ccsim), bad queries
# (missing, repeated, both, malformed, unknown), URLs over 8 KiB, other
# methods: each a 4xx whose body says why, and nothing terminated anywhere.
# CycleCloud failing (503 with Retry-After) and the lock held elsewhere
# (503 naming the holder).  /healthz, /metrics (Prometheus's own parser),
# HEAD.  HTTPS with a self-signed certificate made here; plain HTTP refused
# off loopback, a certificate without its key, a key others may read.
# `serve token`: 64 hex digits, one node's, the key file 0600; neither the
# key nor a token in the log.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/ccsim.sh"
. "$(dirname "$0")/../lib/serve.sh"
CCAS=$(test_program "$top_builddir/plugin/ccautoscale")
export CCAUTOSCALE_CONFIG=$TEST_TMP/autoscale.json

"$top_builddir/plugin/ccautoscale" serve --help >/dev/null 2>&1 ||
    test_skip_all "this build has no 'ccautoscale serve' (configure found no libmicrohttpd or GnuTLS)"

# a ccsim with 3 htc nodes wanted and Ready at 127.0.0.10-12; $1: serve keys (jq)
fresh () {
    [ -z "${CCSIM_PID:-}" ] || ccsim_stop
    rm -rf "$TEST_TMP/state" &&
    ccsim_start "$CCSIM_CLUSTERS/small.json" --boot-delay 0.2 --ip-base 127.0.0.10 &&
    ccsim_write_config "$CCAUTOSCALE_CONFIG" ".serve = ${1:-{\}}" &&
    : >"$TEST_TMP/ccautoscale.log" &&
    want 3 &&
    wait_for 20 sh -c "test \$(curl -s $CCSIM_URL/ccsim/state | jq '[.nodes[] | select(.Status == \"Ready\")] | length') = 3" &&
    A=$(node_field htc-1 PrivateIp) && B=$(node_field htc-2 PrivateIp) && C=$(node_field htc-3 PrivateIp) &&
    IA=$(node_field htc-1 InstanceId) && IB=$(node_field htc-2 InstanceId) && IC=$(node_field htc-3 InstanceId) &&
    test_equal "$A $B $C" "127.0.0.10 127.0.0.11 127.0.0.12" "the nodes' addresses" &&
    ccsim_delete /ccsim/requests >/dev/null
}

want () {  # the htc array's target, for an hour
    echo "[{\"Name\": \"htc\", \"TargetCount\": $1}]" >req.json &&
    "$CCAS" autoscale update --expiration 3600 req.json >/dev/null
}

granted () {  # serve_ask FROM QUERY answers 200
    test "$(serve_ask "$1" "$2")" = 200
}

status_reads () {
    ccsim_requests "GET .*/status" | wc -l
}

nothing_terminated () {
    test_equal "$(terminated | wc -l)" 0 "terminations (ccsim's request log)" &&
    test_equal "$(ccsim_get /ccsim/state | jq '[.nodes[] | select(.TargetState == "Started")] | length')" 3 "nodes running"
}

test_expect_success 'a node asks while the target needs it: 409, the reason, the node left alone' '
    fresh "{status_max_age: 300}" &&
    serve_start &&
    test_equal "$(serve_ask "$A" "instance=$IA")" 409 "status" &&
    jq -e ".stopped == false and .node == \"htc-1\" and .decision == \"refused\" and .authenticated_by == \"address\"" answer.json &&
    jq -e ".reason == \"array '"'"'htc'"'"' of request set '"'"'standard'"'"' wants 3 nodes and has 3\"" answer.json &&
    test_equal "$(serve_ask "$B" "node=htc-2")" 409 "status by name" &&
    nothing_terminated
'

test_expect_success 'demand drops: the first node asking is stopped (200), the next refused from the same status read' '
    want 2 &&
    ccsim_delete /ccsim/requests >/dev/null &&
    test_equal "$(serve_ask "$A" "instance=$IA")" 200 "status" &&
    jq -e ".stopped == true and .node == \"htc-1\" and .decision == \"granted\" and (.operation_id | length) > 0" answer.json &&
    test_grep "wants 2 nodes and has 3" answer.json &&
    ccsim_acted_once terminate htc-1 &&
    test_equal "$(serve_ask "$B" "instance=$IB")" 409 "the second node" &&
    test_grep "wants 2 nodes and has 2" answer.json &&
    test_equal "$(serve_ask "$C" "instance=$IC")" 409 "the third node" &&
    ccsim_acted_once terminate htc-1 &&
    test_equal "$(status_reads)" 0 "status reads: the first decision'"'"'s serves all within serve.status_max_age" &&
    test_equal "$(ccsim_get /ccsim/state | jq -r "[.nodes[] | select(.TargetState == \"Started\") | .Name] | sort | join(\" \")")" \
        "htc-2 htc-3" "nodes running"
'

test_expect_success 'serve.status_max_age 0: every decision reads the status once' '
    serve_stop &&
    ccsim_write_config "$CCAUTOSCALE_CONFIG" ".serve = {status_max_age: 0}" &&
    ccsim_delete /ccsim/requests >/dev/null &&
    serve_start &&
    for i in 1 2 3; do test_equal "$(serve_ask "$B" "instance=$IB")" 409 "ask $i" || return 1; done &&
    test_equal "$(status_reads)" 3 "status reads" &&
    test_equal "$(terminated | wc -l)" 0 "terminations"
'

test_expect_success 'callers who are not the node: 403 with the reason, nothing stopped (even where a stop would be granted)' '
    fresh "{status_max_age: 0}" &&
    want 0 &&
    serve_start &&
    test_equal "$(serve_ask "$B" "instance=$IA")" 403 "from another node" &&
    jq -e ".stopped == false and .reason == \"the request comes from 127.0.0.11, not from node '"'"'htc-1'"'"', and carries no token\"" answer.json &&
    test_equal "$(serve_ask - "node=htc-1")" 403 "from the scheduler host" &&
    test_equal "$(serve_ask 127.0.0.99 "node=htc-1")" 403 "from an address no node has" &&
    TB=$("$CCAS" serve token --node htc-2) &&
    test_equal "$(serve_ask "$A" "node=htc-1" -H "Authorization: Bearer $TB")" 403 "another node'"'"'s token, from the node itself" &&
    jq -e ".reason == \"the token is not that of node '"'"'htc-1'"'"'\"" answer.json &&
    test_equal "$(serve_ask 127.0.0.99 "node=htc-1" -H "Authorization: Bearer $(printf "%064d" 0)")" 403 "a forged token" &&
    test_equal "$(serve_ask 127.0.0.99 "node=htc-1" -H "Authorization: Bearer ${TB%?}")" 403 "a token cut short" &&
    test_equal "$(serve_ask "$A" "node=htc-1" -H "Authorization: Basic YWRtaW46czNjcmV0LXB3")" 403 "Basic credentials" &&
    jq -e ".reason == \"the Authorization header is not '"'"'Bearer TOKEN'"'"'\"" answer.json &&
    test_equal "$(terminated | wc -l)" 0 "terminations" &&
    test_grep "serve: refused to stop htc-1 for 127.0.0.11" "$TEST_TMP/ccautoscale.log"
'

test_expect_success 'a node'"'"'s own token works from any address; serve.auth "token" refuses its address alone' '
    TA=$("$CCAS" serve token --node htc-1) &&
    test_equal "$(serve_ask 127.0.0.99 "instance=$IA" -H "Authorization: Bearer $TA")" 200 "with its token" &&
    jq -e ".stopped and .authenticated_by == \"token\"" answer.json &&
    ccsim_acted_once terminate htc-1 &&
    serve_stop &&
    ccsim_write_config "$CCAUTOSCALE_CONFIG" ".serve = {status_max_age: 0, auth: \"token\"}" &&
    serve_start &&
    test_equal "$(serve_ask "$B" "instance=$IB")" 403 "its address alone" &&
    test_grep "serve.auth is .token." answer.json &&
    ccsim_acted_once terminate htc-1
'

test_expect_success 'serve token: 64 hex digits, one node'"'"'s, the key made 0600; key and tokens never logged' '
    "$CCAS" serve token --node htc-2 >t2 &&
    "$CCAS" serve token --instance "$IB" >t2b &&
    "$CCAS" serve token --node htc-3 >t3 &&
    grep -qE "^[0-9a-f]{64}$" t2 &&
    test_equal "$(cat t2b)" "$(cat t2)" "by instance and by name" &&
    ! cmp -s t2 t3 &&
    "$CCAS" serve token --node htc-2 --json | jq -e ".node == \"htc-2\" and .token == \"$(cat t2)\" and (.node_id | length) > 0" &&
    test_equal "$(stat -c %a "$TEST_TMP/state/serve-token.key")" 600 "key file mode" &&
    test_expect_code 1 "$CCAS" serve token --node nosuch 2>err &&
    test_grep "node .nosuch.: no such node in cluster .test." err &&
    key=$(cat "$TEST_TMP/state/serve-token.key") &&
    for f in "$TEST_TMP/ccautoscale.log" "$TEST_TMP/serve.out" answer.json; do
        test_no_grep "$key" "$f" && test_no_grep "$(cat t2)" "$f" && test_no_grep "$TA" "$f" || return 1
    done
'

test_expect_success 'the sample idle script: still needed (1), idle or not, then stopping (0); the token on no command line' '
    want 2 &&
    "$CCAS" serve token --node htc-2 >node.token && chmod 600 node.token &&
    mkdir -p shim && : >curl.argv && real_curl=$(command -v curl) &&
    printf "#!/bin/sh\necho \"\$*\" >>%s/curl.argv\nexec %s \"\$@\"\n" "$TEST_TMP" "$real_curl" >shim/curl &&
    chmod +x shim/curl &&
    idle () { env PATH="$TEST_TMP/shim:$PATH" AUTOSTOP_URL="$SERVE_URL/autostop" INSTANCE_ID="$IB" \
                  AUTOSTOP_TOKEN_FILE="$TEST_TMP/node.token" AUTOSTOP_CA_FILE=/nonexistent "$@" \
                  "$top_srcdir/etc/autostop-idle.sh"; } &&
    test_expect_code 1 idle AUTOSTOP_IDLE_CHECK=false >out &&
    test_equal "$(wc -l <curl.argv)" 0 "requests while busy" &&
    test_expect_code 1 idle AUTOSTOP_IDLE_CHECK=true >out &&
    test_grep "^autostop: still needed: array .htc. of request set .standard. wants 2 nodes and has 2" out &&
    want 1 &&
    test_expect_code 0 idle AUTOSTOP_IDLE_CHECK=true >out &&
    test_grep "^autostop: stopping: " out &&
    ccsim_acted_once terminate "htc-1 htc-2" &&
    test_equal "$(wc -l <curl.argv)" 2 "requests" &&
    test_no_grep "$(cat node.token)" curl.argv &&
    test_grep "data-urlencode instance=$IB" curl.argv &&
    test_expect_code 3 env -u AUTOSTOP_URL PATH=/usr/bin:/bin "$top_srcdir/etc/autostop-idle.sh" 2>err &&
    test_grep "no stop_callback URL" err
'

test_expect_success 'unknown nodes and an id of another cluster: 404, nothing stopped in either' '
    fresh "{status_max_age: 0}" &&
    want 0 &&
    serve_start &&
    test_equal "$(serve_ask "$A" "instance=/subscriptions/sim/vm/nosuch")" 404 "unknown instance" &&
    jq -e ".stopped == false and .reason == \"instance '"'"'/subscriptions/sim/vm/nosuch'"'"': no such node in cluster '"'"'test'"'"'\"" answer.json &&
    test_equal "$(serve_ask "$A" "node=htc-99")" 404 "unknown node" &&
    other_port=$TEST_TMP/other.port &&
    { "$CCSIM_BIN" --cluster "$CCSIM_CLUSTERS/quota.json" --port-file "$other_port" --boot-delay 0 \
          --ip-base 127.0.0.10 >other.out 2>&1 & other_pid=$!; } &&
    test_at_exit "kill_pid $other_pid" &&
    wait_for 10 test -s "$other_port" &&
    other=http://127.0.0.1:$(cat "$other_port") &&
    na=$(curl -s "$other/ccsim/state" | jq -r ".buckets[0].nodearray") &&
    curl -sS -X POST -H "Content-Type: application/json" \
        -d "{\"requestId\": \"t0014\", \"sets\": [{\"nodearray\": \"$na\", \"count\": 1}]}" \
        "$other/clusters/quota/nodes/create" >/dev/null &&
    wait_for 10 sh -c "curl -s $other/ccsim/state | jq -e \".nodes[0].InstanceId != null\"" &&
    theirs=$(curl -s "$other/ccsim/state" | jq -r ".nodes[0].InstanceId") &&
    their_ip=$(curl -s "$other/ccsim/state" | jq -r ".nodes[0].PrivateIp") &&
    test_equal "$(serve_ask "$their_ip" "instance=$theirs")" 404 "another cluster'"'"'s node, from its address" &&
    test_grep "no such node in cluster .test." answer.json &&
    test_equal "$(curl -s "$other/ccsim/requests" | jq "[.[] | select(.path | test(\"terminate\"))] | length")" 0 \
        "terminations in the other cluster" &&
    kill_pid $other_pid &&
    nothing_terminated
'

test_expect_success 'bad queries: 400 with the reason, nothing stopped' '
    for q in "" "instance" "instance=" "instance=$IA&instance=$IA" "instance=$IA&node=htc-1" "node=htc-1&node=htc-1" \
             "instance=%zz" "instance=abc%" "instance=a%00b" "verbose=1&node=htc-1" "=htc-1" "node=%C3%A9"; do
        test_equal "$(serve_ask "$A" "$q")" 400 "status of ?$q" &&
        jq -e ".stopped == false and (.reason | length) > 0" answer.json || return 1
    done &&
    test_equal "$(curl -sS -o answer.json -w "%{http_code}" --interface "$A" "$SERVE_URL/autostop")" 400 "no query at all" &&
    test_grep "missing .instance." answer.json &&
    test_equal "$(serve_ask "$A" "instance=$IA&instance=$IB")" 400 "repeated" &&
    test_grep "given twice" answer.json &&
    nothing_terminated
'

test_expect_success 'a URL over 8 KiB: 414 with the reason; other methods 405 with Allow; other paths 404' '
    long=$(head -c 9000 /dev/zero | tr "\\0" a) &&
    test_equal "$(serve_ask "$A" "instance=$long")" 414 "a 9000-byte id" &&
    test_grep "more than 8192" answer.json &&
    huge=$(head -c 70000 /dev/zero | tr "\\0" a) &&
    test_equal "$(serve_ask "$A" "instance=$huge")" 414 "a 70000-byte id" &&
    for m in POST PUT DELETE PATCH; do
        code=$(curl -sS -o answer.json -D headers -w "%{http_code}" --interface "$A" -X $m -d x "$SERVE_URL/autostop?instance=$IA") &&
        test_equal "$code" 405 "$m" &&
        test_grep "^Allow: GET" headers &&
        test_grep "is not allowed here" answer.json || return 1
    done &&
    test_equal "$(curl -sS -o /dev/null -w "%{http_code}" -I --interface "$A" "$SERVE_URL/autostop?instance=$IA")" 405 "HEAD" &&
    test_equal "$(serve_get /autostop/x)" 404 "another path" &&
    test_equal "$(serve_get "/Autostop?instance=$IA")" 404 "another case" &&
    nothing_terminated
'

test_expect_success 'CycleCloud failing: 503 with Retry-After; the lock held elsewhere: 503 naming the holder' '
    serve_stop &&
    ccsim_write_config "$CCAUTOSCALE_CONFIG" ".serve = {status_max_age: 0, lock_timeout: 1} | .retries = 0" &&
    serve_start &&
    ccsim_fault "{\"kind\": \"http\", \"status\": 503, \"count\": 2, \"match\": \"/status\"}" &&
    code=$(curl -sS -o answer.json -D headers -w "%{http_code}" --interface "$A" "$SERVE_URL/autostop?instance=$IA") &&
    test_equal "$code" 503 "CycleCloud 503" &&
    test_grep "^Retry-After: 10" headers &&
    test_grep "cannot read cluster .test. from CycleCloud" answer.json &&
    test_equal "$(serve_ask "$A" "instance=$IA")" 503 "asked again at once (a second 503 from ccsim, or none asked)" &&
    { /usr/bin/python3 -c "import fcntl, sys, time; f = open(sys.argv[1], \"a\"); fcntl.flock(f, fcntl.LOCK_EX); time.sleep(60)" \
          "$TEST_TMP/lock" & holder=$!; } &&
    test_at_exit "kill_pid $holder" &&
    wait_for 10 sh -c "! flock -n \"$TEST_TMP/lock\" true" &&
    test_equal "$(serve_ask "$A" "instance=$IA")" 503 "lock held" &&
    test_grep "busy: .*held by" answer.json &&
    kill_pid $holder &&
    wait_for 20 granted "$A" "instance=$IA" &&
    ccsim_acted_once terminate htc-1
'

test_expect_success 'request sets that cannot be read: 500 with the reason, nothing stopped' '
    cp "$TEST_TMP/state/autoscale-standard.json" set.json &&
    echo "{not json" >"$TEST_TMP/state/autoscale-standard.json" &&
    test_equal "$(serve_ask "$B" "instance=$IB")" 500 "status" &&
    test_grep "the request sets in state_dir cannot be read" answer.json &&
    cp set.json "$TEST_TMP/state/autoscale-standard.json" &&
    ccsim_acted_once terminate htc-1
'

test_expect_success '/healthz and /metrics (parsed by Prometheus'"'"'s own parser), HEAD on both' '
    test_equal "$(serve_get /healthz)" 200 "healthz" &&
    jq -e ".status == \"ok\" and .cluster == \"test\"" answer.json &&
    test_equal "$(curl -sS -o /dev/null -w "%{http_code}" -I "$SERVE_URL/healthz")" 200 "HEAD /healthz" &&
    test_equal "$(serve_get /metrics)" 200 "metrics" &&
    mv answer.json metrics.txt &&
    if /usr/bin/python3 -c "import prometheus_client" 2>/dev/null; then
        /usr/bin/python3 -c "
import sys
from prometheus_client.parser import text_string_to_metric_families
fams = {f.name: f for f in text_string_to_metric_families(open(sys.argv[1]).read())}
assert fams[\"ccautoscale_serve_requests\"].type == \"counter\", fams.keys()
assert fams[\"ccautoscale_serve_autostop_seconds\"].type == \"histogram\"
assert fams[\"ccautoscale_nodes_terminated\"].type == \"counter\"
print(\"parsed\", sum(len(f.samples) for f in fams.values()), \"samples\")" metrics.txt
    else
        echo "# python3-prometheus-client not installed: the strict parse is skipped"
    fi &&
    test "$(sed -n "s/^ccautoscale_serve_requests_total{path=\"\/autostop\",code=\"503\"} //p" metrics.txt)" -ge 3 &&
    test_grep "^ccautoscale_serve_autostop_total{decision=\"granted\"} 1$" metrics.txt &&
    test_grep "^ccautoscale_nodes_terminated_total{nodearray=\"htc\"} 1$" metrics.txt &&
    test_grep "^ccautoscale_runs_total{program=\"ccautoscale serve\",result=\"ok\"} 1$" metrics.txt &&
    test_equal "$(curl -sS -o /dev/null -w "%{http_code}" -I "$SERVE_URL/metrics")" 200 "HEAD /metrics" &&
    test_equal "$(curl -sS -o /dev/null -w "%{http_code}" -X POST "$SERVE_URL/metrics")" 405 "POST /metrics" &&
    serve_stop
'

test_expect_success 'HTTPS with a self-signed certificate made here; verified with it, refused without it' '
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=127.0.0.1" -addext "subjectAltName=IP:127.0.0.1" \
        -keyout key.pem -out cert.pem 2>openssl.err &&
    chmod 600 key.pem &&
    fresh "{status_max_age: 0}" &&
    serve_start --cert cert.pem --key key.pem &&
    test_equal "$SERVE_SCHEME" https "scheme" &&
    test_equal "$(serve_ask "$A" "instance=$IA" --cacert cert.pem)" 409 "over HTTPS" &&
    jq -e ".decision == \"refused\"" answer.json &&
    test_expect_code 60 curl -sS -o /dev/null "$SERVE_URL/healthz" 2>err &&
    ! curl -sS -o /dev/null --max-time 5 "http://${SERVE_URL#https://}/healthz" 2>/dev/null &&
    test_equal "$(serve_get /healthz --cacert cert.pem)" 200 "healthz over HTTPS" &&
    serve_stop &&
    nothing_terminated
'

test_expect_success 'refused at start: plain HTTP off loopback, a certificate alone, a key others may read, a bad address' '
    test_expect_code 2 "$CCAS" serve --listen 10.255.255.1:9443 2>err &&
    test_grep "not a loopback address: give a certificate and key" err &&
    test_expect_code 1 "$CCAS" serve --listen 127.0.0.1:0 --cert cert.pem 2>err &&
    test_grep "go together" err &&
    chmod 644 key.pem &&
    test_expect_code 2 "$CCAS" serve --listen 127.0.0.1:0 --cert cert.pem --key key.pem 2>err &&
    test_grep "key.pem: holds a TLS private key but has mode 0644" err &&
    chmod 600 key.pem &&
    test_expect_code 2 "$CCAS" serve --listen localhost:0 2>err &&
    test_grep "not an IPv4 address" err &&
    chmod 644 "$TEST_TMP/state/serve-token.key" &&
    test_expect_code 2 "$CCAS" serve --listen 127.0.0.1:0 2>err &&
    test_grep "serve-token.key: holds the token key but has mode 0644" err &&
    chmod 600 "$TEST_TMP/state/serve-token.key"
'

test_done
