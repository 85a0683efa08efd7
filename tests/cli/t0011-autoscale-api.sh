#!/bin/bash
# SPDX-License-Identifier: MIT
# t0011-autoscale-api.sh: the CycleCloud autoscale API through ccsim —
# `autoscale update|run|show` and `autostop`.  Targets by count, cores and
# groups (with the machine-type fallback after a capacity failure), the
# Configuration each node was created with (read back from ccsim's node
# records), dynamic arrays created, kept while requested and removed through
# autostop, two request sets side by side, expiry, autostop granted and
# refused, bad requests refused with nothing recorded, and runs killed
# between recording and reconciling (and around the create) re-run to the
# same nodes, each made once (ccsim's request log).
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/ccsim.sh"
CCAS=$(test_program "$top_builddir/plugin/ccautoscale")
export CCAUTOSCALE_CONFIG=$TEST_TMP/autoscale.json

fresh () {
    [ -z "${CCSIM_PID:-}" ] || ccsim_stop
    rm -rf "$TEST_TMP/state" &&
    ccsim_start "$CCSIM_CLUSTERS/small.json" --boot-delay 0.3 &&
    ccsim_write_config "$CCAUTOSCALE_CONFIG" &&
    : >"$TEST_TMP/ccautoscale.log"
}

nodes () {  # the node records, one JSON object a line; $1 an optional jq filter
    ccsim_get /ccsim/state | jq -c ".nodes[] | ${1:-.}"
}

count () {  # nodes matching a jq condition
    ccsim_get /ccsim/state | jq "[.nodes[] | select($1)] | length"
}

marked () {  # nodes of dynamic array $1 (of request set $2, default standard)
    count ".Configuration.ccautoscale.array == \"$1\" and .Configuration.ccautoscale.request_set == \"${2:-standard}\""
}

names_of () {  # names of the nodes of dynamic array $1 (set $2), one a line
    ccsim_get /ccsim/state |
        jq -r --arg a "$1" --arg s "${2:-standard}" '.nodes[] | select(.Configuration.ccautoscale.array == $a and .Configuration.ccautoscale.request_set == $s) | .Name'
}

gone () {  # wait until node $1 is no longer in ccsim
    wait_for 60 sh -c "test \$(curl -s $CCSIM_URL/ccsim/state | jq '[.nodes[] | select(.Name == \"$1\")] | length') = 0"
}

test_expect_success 'update --dry-run checks and plans the request; it records and creates nothing' '
    fresh &&
    echo "[{\"Name\": \"htc\", \"TargetCount\": 3}]" >req.json &&
    "$CCAS" autoscale update --dry-run req.json >out &&
    test_grep "would record 1 array" out &&
    test_grep "Would create 3 nodes" out &&
    test ! -e "$TEST_TMP/state/autoscale-standard.json" &&
    test_equal "$(ccsim_node_count)" 0 "nodes" &&
    "$CCAS" autoscale update --dry-run --json req.json >out.json &&
    jq -e ".dry_run and (.recorded | not) and (.create | map(.count) | add) == 3" out.json
'

test_expect_success 'a target by count: created at once, recorded, nothing more when repeated' '
    "$CCAS" autoscale update req.json >out &&
    test_grep "recorded 1 array" out &&
    test_equal "$(count ".Template == \"htc\"")" 3 "htc nodes" &&
    jq -e ".request_set == \"standard\" and .expiration == 300 and (.arrays | length) == 1" \
        "$TEST_TMP/state/autoscale-standard.json" &&
    "$CCAS" autoscale update req.json >out2 &&
    test_grep "Nothing to create" out2 &&
    "$CCAS" autoscale run >out3 &&
    test_grep "Nothing to create" out3 &&
    test_equal "$(ccsim_made | wc -l)" 3 "nodes made (request log)"
'

test_expect_success 'a target by cores, machine types in the order given; Configuration reaches the nodes' '
    fresh &&
    echo "[{\"Name\": \"htc\", \"TargetCoreCount\": 8, \"MachineType\": [\"Standard_F4s_v2\", \"Standard_F2s_v2\"],
            \"Configuration\": {\"app\": {\"version\": \"1.2.3\"}}}]" >req.json &&
    "$CCAS" autoscale update req.json >out &&
    test_equal "$(count ".MachineType == \"Standard_F4s_v2\"")" 2 "F4s_v2 nodes (4 cores each)" &&
    test_equal "$(ccsim_node_count)" 2 "nodes" &&
    test_equal "$(count ".Configuration.app.version == \"1.2.3\" and .Configuration.autoscale.enabled == true")" 2 \
        "nodes created with the Configuration, merged over the nodearray" &&
    test_equal "$(count ".Configuration.ccautoscale != null")" 0 "static nodes carry no dynamic mark" &&
    ccsim_requests "POST .*/nodes/create" >creates &&
    test_equal "$(wc -l <creates)" 1 "create requests"
'

test_expect_success 'groups: a placement group of one machine type each, group_id in every node'"'"'s Configuration' '
    fresh &&
    echo "[{\"Name\": \"hpc\", \"TargetGroupCount\": 2, \"GroupInstanceCount\": 2}]" >req.json &&
    "$CCAS" autoscale update req.json >out &&
    test_equal "$(count ".Template == \"hpc\"")" 4 "hpc nodes" &&
    test_equal "$(ccsim_get /ccsim/state | jq "[.nodes[].PlacementGroupId] | unique | length")" 2 "placement groups" &&
    test_equal "$(count ".Configuration.cyclecloud.node.group_id == .PlacementGroupId")" 4 "group_id is the group" &&
    test_equal "$(marked hpc:2nodes)" 4 "marked as the grouped array hpc:2nodes" &&
    "$CCAS" autoscale show >show &&
    test_grep "hpc:2nodes .* 2 groups of 2 nodes .* 2 groups (4 nodes)" show
'

test_expect_success 'a target by groups of cores falls back to the next machine type in the same pass when the first has no capacity' '
    fresh &&
    ccsim_fault "{\"kind\": \"capacity\", \"machine_type\": \"Standard_F4s_v2\"}" &&
    echo "[{\"Name\": \"htc\", \"TargetGroupCount\": 1, \"GroupCoreCount\": 8,
            \"MachineType\": [\"Standard_F4s_v2\", \"Standard_F2s_v2\"]}]" >req.json &&
    "$CCAS" autoscale update req.json >out 2>&1 &&
    test_grep "capacity" out &&
    test_equal "$(ccsim_requests "POST .*/nodes/create" | wc -l)" 2 "create requests: the group in F4s_v2, then in F2s_v2" &&
    test_equal "$(count ".MachineType == \"Standard_F2s_v2\"")" 4 "F2s_v2 nodes (8 cores in 2-core nodes)" &&
    test_equal "$(ccsim_node_count)" 4 "nodes" &&
    test_equal "$(ccsim_get /ccsim/state | jq "[.nodes[].PlacementGroupId] | unique | length")" 1 "one placement group" &&
    "$CCAS" autoscale run >run2.out && test_grep "Nothing to create" run2.out
'

test_expect_success 'dynamic arrays: created with their mark and Configuration, kept while requested' '
    fresh &&
    echo "[{\"Name\": \"htc\", \"TargetCount\": 1},
           {\"Name\": \"bigmem\", \"Extends\": \"htc\", \"Dynamic\": true, \"TargetCount\": 2,
            \"Configuration\": {\"app\": {\"mem\": \"big\"}}}]" >req.json &&
    "$CCAS" autoscale update req.json >out &&
    test_equal "$(marked bigmem)" 2 "bigmem nodes" &&
    test_equal "$(count ".Configuration.app.mem == \"big\"")" 2 "bigmem nodes with its Configuration" &&
    test_equal "$(count ".Template == \"htc\"")" 3 "htc nodes in all" &&
    "$CCAS" autoscale update req.json >out2 &&
    test_grep "Nothing to create" out2 &&
    test_equal "$(ccsim_made | wc -l)" 3 "nodes made (request log)"
'

test_expect_success 'autostop refused while the array needs the node: exit 8, the reason, the node stays' '
    victim=$(names_of bigmem | head -1) &&
    test_expect_code 8 "$CCAS" autostop --node "$victim" >out &&
    test_grep "autostop $victim: refused: array .bigmem. of request set .standard. wants 2 nodes and has 2" out &&
    plain=$(nodes "select(.Configuration.ccautoscale == null) | .Name" | tr -d \") &&
    test_expect_code 8 "$CCAS" autostop --node "$plain" >out2 &&
    test_grep "wants 1 node and has 1" out2 &&
    test_equal "$(ccsim_node_count)" 3 "nodes" &&
    test_equal "$(ccsim_acted terminate | wc -l)" 0 "terminations (request log)"
'

test_expect_success 'a dynamic array dropped from its set is flagged, its nodes may stop, then it is forgotten' '
    echo "[{\"Name\": \"htc\", \"TargetCount\": 1}]" >req2.json &&
    "$CCAS" autoscale update req2.json >out &&
    test_grep "Nothing to create" out &&
    test_equal "$(ccsim_node_count)" 3 "nodes: update terminates nothing" &&
    "$CCAS" autoscale show >show &&
    test_grep "bigmem .*removal pending: 2 nodes left" show &&
    "$CCAS" autoscale show --json | jq -e ".arrays[] | select(.name == \"bigmem\") | .removing and .present == 2" &&
    set -- $(names_of bigmem) &&
    "$CCAS" autostop --node "$1" >stop1 &&
    test_grep "autostop $1: granted: dynamic array .bigmem. of request set .standard. is no longer requested" stop1 &&
    test_grep "terminated" stop1 &&
    jq -e ".removing | length == 1" "$TEST_TMP/state/autoscale-standard.json" &&
    "$CCAS" autostop --node "$2" --json >stop2.json &&
    jq -e ".decision == \"granted\" and .terminated and .array == \"bigmem\"" stop2.json &&
    jq -e ".removing | length == 0" "$TEST_TMP/state/autoscale-standard.json" &&
    gone "$1" && gone "$2" &&
    ccsim_acted_once terminate "$1 $2" &&
    "$CCAS" autoscale show >show2 &&
    test_no_grep bigmem show2
'

test_expect_success 'two request sets do not disturb each other, even with one dynamic array name' '
    fresh &&
    echo "[{\"Name\": \"x\", \"Extends\": \"htc\", \"Dynamic\": true, \"TargetCount\": 1}]" >a.json &&
    echo "[{\"Name\": \"x\", \"Extends\": \"htc\", \"Dynamic\": true, \"TargetCount\": 2},
           {\"Name\": \"gpu\", \"TargetCount\": 1}]" >b.json &&
    "$CCAS" autoscale update --request-set a a.json >out.a &&
    "$CCAS" autoscale update --request-set b b.json >out.b &&
    test_equal "$(marked x a)" 1 "x of set a" &&
    test_equal "$(marked x b)" 2 "x of set b" &&
    test_equal "$(count ".Template == \"gpu\"")" 1 "gpu nodes" &&
    echo "[]" >empty.json &&
    "$CCAS" autoscale update --request-set a empty.json >out.a2 &&
    "$CCAS" autoscale show >show &&
    test_grep "^a  *x  *htc .*removal pending: 1 node left" show &&
    test_grep "^b  *x  *htc  *2 nodes" show &&
    test_expect_code 8 "$CCAS" autostop --node "$(names_of x b | head -1)" >refused &&
    "$CCAS" autostop --node "$(names_of x a)" >granted &&
    test_grep "of request set .a. is no longer requested" granted &&
    "$CCAS" autoscale run >run.out && test_grep "Nothing to create" run.out &&
    test_equal "$(marked x b)" 2 "x of set b, untouched" &&
    jq -e ".removing == []" "$TEST_TMP/state/autoscale-a.json" &&
    jq -e "(.arrays | length) == 2" "$TEST_TMP/state/autoscale-b.json"
'

test_expect_success 'two sets naming one nodearray: each holds it at its own target, the higher wins' '
    echo "[{\"Name\": \"htc\", \"TargetCount\": 2}]" >h2.json &&
    echo "[{\"Name\": \"htc\", \"TargetCount\": 3}]" >h3.json &&
    "$CCAS" autoscale update --request-set h2 h2.json >/dev/null &&
    "$CCAS" autoscale update --request-set h3 h3.json >/dev/null &&
    "$CCAS" autoscale run >/dev/null &&
    test_equal "$(count ".Template == \"htc\" and .Configuration.ccautoscale == null")" 3 "plain htc nodes" &&
    test_expect_code 8 "$CCAS" autostop --node "$(nodes "select(.Template == \"htc\" and .Configuration.ccautoscale == null) | .Name" | tr -d \" | head -1)" >out &&
    test_grep "request set .h3. wants 3 nodes and has 3" out
'

test_expect_success 'expiry: a request not repeated holds nothing; its nodes may stop and nothing is made up' '
    fresh &&
    echo "[{\"Name\": \"htc\", \"TargetCount\": 2}]" >req.json &&
    "$CCAS" autoscale update --expiration 3600 req.json >out &&
    test_equal "$(ccsim_node_count)" 2 "nodes" &&
    set -- $(nodes .Name | tr -d \") &&
    test_expect_code 8 "$CCAS" autostop --node "$1" >refused &&
    # the request, repeated to live one second more, then not repeated
    "$CCAS" autoscale update --expiration 1 req.json >out &&
    wait_for 60 sh -c "\"$CCAS\" autoscale show --json | jq -e \".request_sets[0].live | not\"" &&
    "$CCAS" autoscale show >show &&
    test_grep "expired" show &&
    "$CCAS" autostop --node "$1" >granted &&
    test_grep "no live request asks for nodes of nodearray .htc." granted &&
    gone "$1" &&
    "$CCAS" autoscale run >run.out &&
    test_grep "Nothing to create" run.out &&
    test_equal "$(ccsim_node_count)" 1 "nodes: the expired target is not made up"
'

test_expect_success 'autostop by instance id; KeepAlive refused; an unknown node is a usage error' '
    fresh &&
    echo "[{\"Name\": \"gpu\", \"TargetCount\": 0}]" >req.json &&
    "$CCAS" autoscale update req.json >/dev/null &&
    ccsim_post /clusters/test/nodes/create "{\"requestId\": \"by-hand\", \"sets\": [{\"nodearray\": \"gpu\", \"count\": 2,
        \"nodeAttributes\": {\"KeepAlive\": true}}]}" >/dev/null &&
    wait_for 60 sh -c "test \$(curl -s $CCSIM_URL/ccsim/state | jq \"[.nodes[] | select(.InstanceId != null)] | length\") = 2" &&
    set -- $(nodes .InstanceId | tr -d \") &&
    test_expect_code 8 "$CCAS" autostop --instance "$1" >keep &&
    test_grep "KeepAlive" keep &&
    test_expect_code 1 "$CCAS" autostop --node no-such-node 2>err &&
    test_grep "node .no-such-node.: no such node in cluster .test." err &&
    test_expect_code 1 "$CCAS" autostop 2>err2 &&
    test_grep "give the node asking" err2
'

bad_request () {  # $1 the request, $2 what the error must say; nothing recorded, nothing sent
    echo "$1" >bad.json &&
    rc=0 && "$CCAS" autoscale update bad.json >out 2>err || rc=$?
    test_equal "$rc" 1 "exit status" &&
    test_grep "$2" err &&
    test_grep "nothing recorded" err &&
    test ! -e "$TEST_TMP/state/autoscale-standard.json" &&
    test_equal "$(ccsim_requests "POST" | wc -l)" 0 "POST requests"
}

test_expect_success 'bad requests: an error naming the array and the attribute, exit 1, nothing recorded' '
    fresh && ccsim_delete /ccsim/requests >/dev/null &&
    bad_request "[{\"Name\": \"htc\", \"TargetCount\": 1, \"Colour\": \"red\"}]" "bad.json: array .htc. (\[0\]): Colour: unknown attribute" &&
    bad_request "[{\"Name\": \"htc\", \"TargetCount\": 1, \"TargetCoreCount\": 4}]" "array .htc. (\[0\]): TargetCoreCount: cannot go with TargetCount" &&
    bad_request "[{\"Name\": \"big\", \"Extends\": \"nope\", \"Dynamic\": true}]" "array .big. (\[0\]): Extends: cluster .test. has no nodearray .nope." &&
    bad_request "[{\"Name\": \"big\", \"Extends\": \"htc\", \"TargetCount\": 1}]" "array .big. (\[0\]): Extends: a new array that extends a nodearray needs \"Dynamic\": true" &&
    bad_request "[{\"Name\": \"hpc\", \"Extends\": \"htc\", \"Dynamic\": true}]" "array .hpc. (\[0\]): Dynamic: .hpc. is a nodearray of cluster .test." &&
    bad_request "[{\"Name\": \"htc\", \"TargetCount\": -1}]" "array .htc. (\[0\]): TargetCount: expected a non-negative integer, got -1" &&
    bad_request "[{\"Name\": \"htc\", \"MachineType\": \"Standard_X\"}]" "MachineType: nodearray .htc. has no machine type .Standard_X." &&
    bad_request "{\"Name\": \"htc\"}" "bad.json: expected a list of node array definitions" &&
    bad_request "[{\"Name\": \"htc\",]" "bad.json:1:" &&
    test_expect_code 1 "$CCAS" autoscale update --request-set "../x" req.json 2>err &&
    test_grep "request set .../x.: a request set" err &&
    test_expect_code 1 "$CCAS" autoscale update --expiration 0 req.json 2>err &&
    test_grep "expiration" err
'

test_expect_success 'a request that is not a list leaves the recorded one as it was' '
    echo "[{\"Name\": \"htc\", \"TargetCount\": 1}]" >req.json &&
    "$CCAS" autoscale update req.json >/dev/null &&
    cp "$TEST_TMP/state/autoscale-standard.json" before.json &&
    echo "{\"Name\": \"htc\", \"TargetCount\": 5}" | test_expect_code 1 "$CCAS" autoscale update - 2>err &&
    test_grep "<stdin>: expected a list of node array definitions" err &&
    cmp before.json "$TEST_TMP/state/autoscale-standard.json"
'

test_expect_success 'a refused entry keeps its array'"'"'s previous request (exit 4): the target is not lost' '
    echo "[{\"Name\": \"htc\", \"TargetCount\": -5}]" | test_expect_code 4 "$CCAS" autoscale update - 2>err &&
    test_grep "<stdin>: array .htc. (\[0\]): TargetCount: .*; entry refused (the set.s latest request of .htc. is kept)" err &&
    jq -e ".arrays | length == 1 and .[0].name == \"htc\" and .[0].target == 1" "$TEST_TMP/state/autoscale-standard.json"
'

# Crash consistency: the request wants 2 htc nodes and 2 of the dynamic
# array "d"; a run killed anywhere is followed by `autoscale run`, and the
# nodes are those, each made once.
cat >"$TEST_TMP/crash.json" <<'REQ'
[{"Name": "htc", "TargetCount": 2},
 {"Name": "d", "Extends": "htc", "Dynamic": true, "TargetCount": 2, "Configuration": {"app": "d"}}]
REQ

settled () {
    "$CCAS" autoscale run >run1.out 2>&1 && "$CCAS" autoscale run >run2.out 2>&1 &&
    test_grep "Nothing to create" run2.out &&
    test_equal "$(count ".Template == \"htc\" and .Configuration.ccautoscale == null")" 2 "plain htc nodes" &&
    test_equal "$(marked d)" 2 "nodes of d" &&
    test_equal "$(count ".Configuration.app == \"d\"")" 2 "nodes with d's Configuration" &&
    test_equal "$(ccsim_made | wc -l)" 4 "nodes made (request log)" &&
    test_equal "$(ccsim_made | sort | uniq -d)" "" "names made twice (request log)" &&
    ccsim_state_whole &&
    test_equal "$(state_entries "$TEST_TMP/state/requests.json" | jq "length")" 0 "create requests still pending"
}

killed_at () {
    test_expect_code 137 env CCAUTOSCALE_FAILPOINT="$1" "$CCAS" autoscale update "$TEST_TMP/crash.json" >killed.out 2>&1 &&
    grep "failpoint $1" "$TEST_TMP/ccautoscale.log"
}

test_expect_success 'killed between recording the request and reconciling it: the next run creates it, once' '
    fresh && killed_at autoscale:recorded &&
    jq -e "(.arrays | length) == 2" "$TEST_TMP/state/autoscale-standard.json" &&
    test_equal "$(ccsim_node_count)" 0 "nodes after the kill" &&
    settled
'

test_expect_success 'killed after the requestId is recorded, before the create is sent: the next run creates once' '
    fresh && killed_at create:before-send &&
    test_equal "$(ccsim_node_count)" 0 "nodes after the kill" &&
    settled &&
    grep "never reached the server" "$TEST_TMP/ccautoscale.log"
'

test_expect_success 'killed while the server carries the create out: the next run finds the nodes by their marks' '
    fresh &&
    ccsim_kill_in_flight nodes/create "$CCAS" autoscale update "$TEST_TMP/crash.json" &&
    test_equal "$(ccsim_node_count)" 4 "nodes made by the create whose answer was lost" &&
    settled &&
    grep "made 4 nodes" "$TEST_TMP/ccautoscale.log"
'

test_expect_success 'killed after the answer, before anything is recorded: nothing is created again' '
    fresh && killed_at create:after-reply &&
    test_equal "$(ccsim_node_count)" 4 "nodes after the kill" &&
    settled
'

test_expect_success 'run with no request set says so; show too' '
    fresh &&
    "$CCAS" autoscale run >out && test_grep "No request sets recorded" out &&
    "$CCAS" autoscale show >out && test_grep "No request sets recorded" out &&
    "$CCAS" autoscale show --json | jq -e ".request_sets == [] and .arrays == []"
'

test_done
