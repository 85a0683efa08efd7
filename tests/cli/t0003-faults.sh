#!/bin/sh
# SPDX-License-Identifier: MIT
# One test per injected fault: the client retries what is safe, gives a clear
# error otherwise, and never sends a create twice.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/ccsim.sh"
CCAS=$(test_program "$top_builddir/plugin/ccautoscale")
export CCAUTOSCALE_CONFIG=$TEST_TMP/autoscale.json

reset () {
    ccsim_delete /ccsim/faults >/dev/null && ccsim_delete /ccsim/requests >/dev/null
}

test_expect_success 'start ccsim' '
    ccsim_start "$CCSIM_CLUSTERS/small.json" --boot-delay 0.2 &&
    ccsim_write_config "$CCAUTOSCALE_CONFIG" ".retries = 3"
'

test_expect_success '503 on a read is retried and then succeeds' '
    reset &&
    ccsim_fault "{\"kind\": \"http\", \"status\": 503, \"match\": \"/status\", \"count\": 2}" &&
    "$CCAS" buckets --json | jq -e "length == 4" &&
    test "$(ccsim_requests /status | awk "{print \$3}" | tr "\n" " ")" = "503 503 200 "
'

test_expect_success '429 with Retry-After is honoured' '
    reset &&
    ccsim_fault "{\"kind\": \"http\", \"status\": 429, \"retry_after\": 1, \"match\": \"/status\", \"count\": 1}" &&
    start=$(date +%s.%N) &&
    "$CCAS" buckets --json >/dev/null &&
    end=$(date +%s.%N) &&
    echo "$start $end" | awk "{ exit !(\$2 - \$1 >= 0.95) }" &&
    test "$(ccsim_requests /status | wc -l)" = 2
'

# "at once": the run takes well under the 120 s it was asked to wait (not a
# time of its own, which a busy machine stretches)
test_expect_success 'a Retry-After longer than retry_after_max is not retried: it fails at once, saying so' '
    reset &&
    ccsim_fault "{\"kind\": \"http\", \"status\": 429, \"retry_after\": 120, \"match\": \"/status\", \"count\": 1}" &&
    start=$(date +%s) &&
    test_expect_code 3 "$CCAS" buckets --json >/dev/null 2>err &&
    test $(($(date +%s) - start)) -lt 60 &&
    test_grep "429: .*Retry-After 120 s is longer than retry_after_max 30 s: not retried" err &&
    test "$(ccsim_requests /status | wc -l)" = 1
'

test_expect_success 'persistent 500s exhaust the retries and exit 3 naming the request' '
    reset &&
    ccsim_fault "{\"kind\": \"http\", \"status\": 500, \"match\": \"/status\", \"count\": -1}" &&
    rc=0; "$CCAS" buckets 2>err || rc=$? ;
    test "$rc" = 3 &&
    test_grep "GET /clusters/test/status: 500: injected HTTP 500" err &&
    test "$(ccsim_requests /status | wc -l)" = 4
'

test_expect_success 'a 4xx other than 408/409/429 is not retried' '
    reset &&
    ccsim_fault "{\"kind\": \"http\", \"status\": 400, \"match\": \"/status\", \"count\": 1}" &&
    rc=0; "$CCAS" buckets 2>err || rc=$? ;
    test "$rc" = 3 && test "$(ccsim_requests /status | wc -l)" = 1
'

test_expect_success 'an HTML error page is called that' '
    reset &&
    ccsim_fault "{\"kind\": \"html\", \"status\": 502, \"match\": \"/status\", \"count\": -1}" &&
    rc=0; "$CCAS" buckets 2>err || rc=$? ;
    test "$rc" = 3 && test_grep "502: an HTML page instead of JSON" err
'

test_expect_success 'a truncated JSON answer is an error, not a crash' '
    reset &&
    ccsim_fault "{\"kind\": \"malformed\", \"match\": \"/status\", \"count\": 1}" &&
    rc=0; "$CCAS" buckets 2>err || rc=$? ;
    test "$rc" = 3 && test_grep "truncated JSON" err
'

test_expect_success 'an oversized answer is refused at the cap' '
    reset &&
    ccsim_write_config "$TEST_TMP/small-cap.json" ".max_response_mb = 1 | .retries = 0" &&
    ccsim_fault "{\"kind\": \"oversize\", \"bytes\": 3000000, \"match\": \"/status\", \"count\": 1}" &&
    rc=0; "$CCAS" -c "$TEST_TMP/small-cap.json" buckets 2>err || rc=$? ;
    test "$rc" = 3 && test_grep "response larger than 1048576 bytes" err
'

test_expect_success 'a server that never answers times out with a clear message' '
    reset &&
    ccsim_write_config "$TEST_TMP/impatient.json" ".request_timeout = 1 | .retries = 0" &&
    ccsim_fault "{\"kind\": \"hang\", \"seconds\": 5, \"match\": \"/status\", \"count\": 1}" &&
    rc=0; "$CCAS" -c "$TEST_TMP/impatient.json" buckets 2>err || rc=$? ;
    test "$rc" = 3 && test_grep "no answer from http://127.0.0.1:$CCSIM_PORT within the timeout" err
'

test_expect_success 'latency within the timeout is only slow' '
    reset &&
    ccsim_fault "{\"kind\": \"latency\", \"ms\": 500, \"match\": \"/status\", \"count\": 1}" &&
    "$CCAS" buckets --json | jq -e "length == 4"
'

test_expect_success 'a connection dropped before the answer is retried for a read' '
    reset &&
    ccsim_fault "{\"kind\": \"drop\", \"when\": \"before\", \"match\": \"/nodes\", \"count\": 1}" &&
    "$CCAS" nodes --json | jq -e "type == \"array\"" &&
    test "$(ccsim_requests /nodes | awk "{print \$3}" | tr "\n" " ")" = "0 200 "
'

test_expect_success 'a create whose answer is lost is recovered by request id, not sent twice' '
    reset &&
    ccsim_fault "{\"kind\": \"drop\", \"when\": \"after\", \"match\": \"/nodes/create\", \"count\": 1}" &&
    "$CCAS" create --nodearray htc --count 2 >out &&
    test "$(ccsim_requests "POST .*/nodes/create" | wc -l)" = 1 &&
    test "$(ccsim_requests "request_id=" | wc -l)" = 1 &&
    ccsim_requests "request_id=" | grep -q " 200$" &&
    test "$(ccsim_node_count)" = 2
'

test_expect_success 'a create refused with 503 is looked up (404) and sent again with the same id' '
    reset &&
    ccsim_fault "{\"kind\": \"http\", \"status\": 503, \"match\": \"/nodes/create\", \"count\": 1}" &&
    "$CCAS" create --nodearray htc --count 1 >out &&
    test "$(ccsim_requests "POST .*/nodes/create" | awk "{print \$3}" | tr "\n" " ")" = "503 202 " &&
    ccsim_requests "request_id=" | grep -q " 404$" &&
    test "$(ccsim_get /ccsim/requests | jq -r "[.[] | select(.method == \"POST\") | .request_id] | unique | length")" = 1 &&
    test "$(ccsim_node_count)" = 3
'

node_exists () {
    ccsim_get /ccsim/state | jq -e --arg n "$1" "any(.nodes[]; .Name == \$n)" >/dev/null
}

test_expect_success 'a create refused with 400 does not stop the same pass from terminating a failed node' '
    reset &&
    failed=$(ccsim_get /ccsim/state | jq -r "[.nodes[] | select(.Template == \"htc\") | .Name][0]") &&
    ccsim_post "/ccsim/nodes/$failed/fail" >/dev/null &&
    ccsim_fault "{\"kind\": \"http\", \"status\": 400, \"match\": \"/nodes/create\", \"count\": 1}" &&
    echo "[{\"id\": \"g\", \"constraints\": {\"node.nodearray\": \"gpu\"}}]" >g.json &&
    test_expect_code 3 "$CCAS" demand --jobs g.json --apply --json >refused.json 2>err &&
    jq -e ".create[0].outcome == \"failed\" and .create[0].class == \"permanent\"" refused.json &&
    jq -e ".terminate[0].name == \"$failed\" and .terminate[0].outcome == \"done\"" refused.json &&
    test_equal "$(ccsim_requests "POST .*/nodes/terminate" | wc -l)" 1 "terminate requests" &&
    wait_for 60 sh -c "! curl -s $CCSIM_URL/ccsim/state | jq -e \"any(.nodes[]; .Name == \\\"$failed\\\")\"" &&
    ! node_exists "$failed"
'

test_expect_success 'wrong credentials exit 3 and never echo the password' '
    reset &&
    kill_pid $CCSIM_PID &&
    printf "admin:right-pw\n" >"$TEST_TMP/auth" && chmod 600 "$TEST_TMP/auth" &&
    ccsim_start "$CCSIM_CLUSTERS/small.json" --auth-file "$TEST_TMP/auth" &&
    ccsim_write_config "$CCAUTOSCALE_CONFIG" ".password = \"wrong-pw-123\"" &&
    rc=0; "$CCAS" buckets 2>err || rc=$? ;
    test "$rc" = 3 && test_grep "401" err && test_no_grep "wrong-pw-123" err &&
    ccsim_write_config "$CCAUTOSCALE_CONFIG" ".password = \"right-pw\"" &&
    "$CCAS" buckets --json | jq -e "length == 4"
'

test_done
