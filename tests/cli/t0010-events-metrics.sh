#!/bin/bash
# SPDX-License-Identifier: MIT
# t0010-events-metrics.sh: what acting runs write for monitoring — one JSON
# line per decision and outcome with its correlation ids, rotated without
# losing a line; Prometheus metrics that a parser of the text format accepts,
# with counters that add up across runs; `ccautoscale metrics` prints the same.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/ccsim.sh"
CCAS=$(test_program "$top_builddir/plugin/ccautoscale")
export CCAUTOSCALE_CONFIG=$TEST_TMP/autoscale.json
EV=$TEST_TMP/state/events.jsonl

test_file_exists () {
    [ -e "$1" ] || { echo "$1 does not exist: $(ls "$(dirname "$1")" | tr "\n" " ")"; return 1; }
}
PROM=$TEST_TMP/state/ccautoscale.prom

cat >"$TEST_TMP/jobs.json" <<'JOBS'
[{"id": "serial", "node_count": 2, "packing": "scatter", "constraints": {"ncpus": 2, "node.nodearray": "htc"}},
 {"id": "mpi", "node_count": 2, "colocated": true, "exclusive": true, "constraints": {"node.nodearray": "hpc"}}]
JOBS

apply () {
    "$CCAS" demand --jobs "$TEST_TMP/jobs.json" --apply >apply.out 2>&1
}

metric () {  # the value of one sample, e.g. metric 'ccautoscale_runs_total{program="ccautoscale demand",result="ok"}'
    grep -F "$1 " "$PROM" | awk '{ print $NF }'
}

test_expect_success 'start ccsim' '
    ccsim_start "$CCSIM_CLUSTERS/small.json" --boot-delay 0.5 &&
    ccsim_write_config "$CCAUTOSCALE_CONFIG"
'

test_expect_success 'demand --apply: one "created" event per set with request, operation, job ids and node names' '
    apply &&
    test_equal "$(jq -s "[.[] | select(.event == \"created\")] | length" "$EV")" 2 "created events" &&
    jq -e -s ".[] | select(.event == \"created\" and .nodearray == \"hpc\")
        | .jobs == [\"mpi\"] and (.nodes | length) == 2 and (.request_id | length) > 0 and (.operation_id | length) > 0
          and (.placement_group | length) > 0 and .program == \"ccautoscale demand\"" "$EV" &&
    test_equal "$(jq -s -r "map(.request_id) | unique | length" "$EV")" 1 "request ids (one create request)" &&
    jq -r -s ".[0].request_id" "$EV" >rid &&
    test_equal "$(ccsim_get /ccsim/requests | jq -r ".[] | select(.path | test(\"create\")) | .request_id")" "$(cat rid)" \
        "the request id ccsim saw"
'

test_expect_success 'the metrics file parses as Prometheus text and counts what was done' '
    if /usr/bin/python3 -c "import prometheus_client" 2>/dev/null; then
        /usr/bin/python3 -c "
import sys
from prometheus_client.parser import text_string_to_metric_families
fams = {f.name: f for f in text_string_to_metric_families(open(sys.argv[1]).read())}
assert fams[\"ccautoscale_nodes_created\"].type == \"counter\", fams.keys()
assert fams[\"ccautoscale_resume_latency_seconds\"].type == \"histogram\"
print(\"parsed\", sum(len(f.samples) for f in fams.values()), \"samples\")" "$PROM"
    else
        echo "# python3-prometheus-client not installed: the strict parse is skipped"
    fi &&
    test_equal "$(metric "ccautoscale_nodes_created_total{nodearray=\"htc\"}")" 2 "htc created" &&
    test_equal "$(metric "ccautoscale_nodes_created_total{nodearray=\"hpc\"}")" 2 "hpc created" &&
    test_equal "$(metric "ccautoscale_runs_total{program=\"ccautoscale demand\",result=\"ok\"}")" 1 "runs" &&
    test_equal "$(metric "ccautoscale_requests_total{endpoint=\"create\"}")" 1 "create requests" &&
    test_equal "$(metric "ccautoscale_nodes{nodearray=\"hpc\",state=\"booting\"}")" 2 "hpc booting"
'

test_expect_success 'a later run sees the nodes Ready: latencies observed, counters add up across runs' '
    wait_for 60 sh -c "test \$(curl -s $CCSIM_URL/ccsim/state | jq \"[.nodes[] | select(.Status == \\\"Ready\\\")] | length\") = 4" &&
    apply &&
    test_equal "$(metric ccautoscale_resume_latency_seconds_count)" 4 "latencies observed" &&
    test_equal "$(metric "ccautoscale_runs_total{program=\"ccautoscale demand\",result=\"ok\"}")" 2 "runs" &&
    test_equal "$(metric "ccautoscale_nodes_created_total{nodearray=\"htc\"}")" 2 "htc created (nothing new)" &&
    test_equal "$(metric "ccautoscale_nodes{nodearray=\"htc\",state=\"ready\"}")" 2 "htc ready"
'

test_expect_success 'a retried request is counted by endpoint' '
    ccsim_fault "{\"kind\": \"http\", \"status\": 503, \"count\": 1, \"match\": \"status\"}" &&
    apply &&
    test_equal "$(metric "ccautoscale_retries_total{endpoint=\"status\"}")" 1 "status retries" &&
    test_equal "$(metric "ccautoscale_requests_total{endpoint=\"status\"}")" 4 "status requests (3 runs, 1 retry)"
'

test_expect_success 'a failed VM: a "terminated" event with its reason, and the counter' '
    ccsim_post /ccsim/nodes/htc-1/fail >/dev/null &&
    apply &&
    jq -e -s "[.[] | select(.event == \"terminated\" and .node == \"htc-1\" and (.reason | test(\"failed\")))] | length == 1" "$EV" &&
    test_equal "$(metric "ccautoscale_nodes_terminated_total{nodearray=\"htc\"}")" 1 "terminated"
'

test_expect_success 'no capacity: a "create_failed" event with its class and jobs, counted by class; the same pass makes the node in F4s_v2' '
    ccsim_fault "{\"kind\": \"capacity\", \"machine_type\": \"Standard_F2s_v2\", \"count\": 1}" &&
    jq ". + [{\"id\": \"extra\", \"constraints\": {\"ncpus\": 2, \"node.nodearray\": \"htc\"}}]" "$TEST_TMP/jobs.json" >more.json &&
    "$CCAS" demand --jobs more.json --apply --json >cap.json &&
    jq -e "[.create[] | select(.class == \"capacity\") | .failure | startswith(\"ccautoscale: capacity: \")] == [true]" cap.json &&
    jq -e "[.create[] | select(.fallback) | .machine_type, .added] == [\"Standard_F4s_v2\", 1]" cap.json &&
    jq -e -s "[.[] | select(.event == \"create_failed\")][-1] | .class == \"capacity\" and .jobs == [\"extra\"] and .machine_type == \"Standard_F2s_v2\"" "$EV" &&
    jq -e -s "[.[] | select(.event == \"created\")][-1] | .jobs == [\"extra\"] and .machine_type == \"Standard_F4s_v2\"" "$EV" &&
    test_equal "$(metric "ccautoscale_create_failures_total{nodearray=\"htc\",class=\"capacity\"}")" 1 "capacity failures" &&
    test_equal "$(metric "ccautoscale_runs_total{program=\"ccautoscale demand\",result=\"partial\"}")" "" "partial runs"
'

test_expect_success 'the bucket that had no capacity is held: demand plans the other machine type, analyze says why' '
    jq -e ".\"htc/Standard_F2s_v2\".class == \"capacity\"" "$TEST_TMP/state/holds.json" &&
    echo "[{\"id\": \"again\", \"node_count\": 8, \"packing\": \"scatter\", \"constraints\": {\"ncpus\": 2, \"node.nodearray\": \"htc\"}}]" >again.json &&
    "$CCAS" demand --jobs again.json --json >again.out &&
    jq -e "(.create | length) > 0 and ([.create[] | .machine_type] | unique) == [\"Standard_F4s_v2\"]" again.out &&
    "$CCAS" analyze --job again --jobs again.json >why.out &&
    test_grep "held back [0-9]* s more: ccautoscale: capacity: " why.out
'

test_expect_success 'a VM Failed for want of capacity after its create was accepted holds its bucket too' '
    "$CCAS" create --nodearray htc --machine-type Standard_F4s_v2 --count 1 --json >f4.json &&
    f4=$(jq -r ".create[0].names[0]" f4.json) && test -n "$f4" &&
    ccsim_post "/ccsim/nodes/$f4/fail" "{\"message\": \"Allocation failed. We do not have sufficient capacity for the requested VM size in this region.\"}" >/dev/null &&
    echo "[]" >none.json &&
    "$CCAS" demand --jobs none.json --apply --json >failed.json &&
    jq -e "[.terminate[] | select(.name == \"$f4\")] | length == 1" failed.json &&
    jq -e ".\"htc/Standard_F4s_v2\" | .class == \"capacity\" and (.reason | test(\"sufficient capacity\"))" "$TEST_TMP/state/holds.json"
'

test_expect_success 'status with CycleCloud unreachable still shows the holds and failures, then exits 3' '
    jq ".url = \"http://127.0.0.1:1\" | .retries = 0" "$CCAUTOSCALE_CONFIG" >down.json && chmod 600 down.json &&
    test_expect_code 3 "$CCAS" -c down.json status >down.out 2>down.err &&
    test_grep "local state only" down.out && test_grep "htc/Standard_F2s_v2 *capacity" down.out &&
    test_grep "create_failed *capacity" down.out && test_grep "127.0.0.1:1" down.err &&
    test_expect_code 3 "$CCAS" -c down.json status --json >down-json.out 2>/dev/null &&
    jq -e ".holds[\"htc/Standard_F2s_v2\"].class == \"capacity\" and (.error | length > 0)" down-json.out
'

test_expect_success 'ccautoscale metrics prints what the file holds; dry runs write nothing' '
    "$CCAS" metrics >metrics.out && cmp metrics.out "$PROM" &&
    cp "$EV" before && "$CCAS" demand --jobs "$TEST_TMP/jobs.json" >/dev/null && cmp before "$EV"
'

test_expect_success 'rotation at events.max_mb: every line stays whole, the oldest moves to FILE.N, none is lost' '
    jq ".events.max_mb = 0.001 | .events.keep = 50" "$CCAUTOSCALE_CONFIG" >c.tmp && cat c.tmp >"$CCAUTOSCALE_CONFIG" &&
    before=$(cat "$EV"* | wc -l) &&
    for i in $(seq 1 40); do
        [ -e "$EV.2" ] && break
        "$CCAS" create --nodearray htc --count 1 >/dev/null 2>&1 || true  # "created", or "create_failed" once full
    done &&
    test_file_exists "$EV.1" && test_file_exists "$EV.2" &&
    for f in "$EV"*; do jq -e . "$f" >/dev/null || { echo "$f has a broken line"; return 1; }; done &&
    test "$(cat "$EV"* | wc -l)" -gt "$before" &&
    { grep -F -x -q "$(head -n1 before)" "$EV".* || { echo "the first event line is lost"; return 1; }; } &&
    test_equal "$(cat "$EV"* | jq -s "map(select(.event == \"created\" and .request_id == \"$(cat rid)\")) | length")" 2 \
        "the first run'"'"'s events, found after rotation"
'

test_expect_success 'events.file "" and metrics.file "" turn both off' '
    jq ".events.file = \"\" | .metrics.file = \"\"" "$CCAUTOSCALE_CONFIG" >c.tmp && cat c.tmp >"$CCAUTOSCALE_CONFIG" &&
    rm -f "$EV"* "$PROM" && ccsim_post /ccsim/nodes/hpc-1/fail >/dev/null && apply &&
    test ! -e "$EV" && test ! -e "$PROM" &&
    test_expect_code 2 "$CCAS" metrics 2>err && grep "metrics are off" err
'

test_done
