#!/bin/bash
# SPDX-License-Identifier: MIT
# t0016-semantics.sh: scalelib's and CycleCloud's semantics through ccsim —
# exclusive is one iteration of a job per node; a cluster that is not
# Started gets nothing created or started (demand, autoscale, create), and
# every command says why; create without --machine-type leaves the choice to
# CycleCloud; a quota reason states the true room; a default_resources
# value that is a list, tested by xor and list constraints; a shared
# resource with a cluster-wide pool beside a queue's pool of the same name.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/ccsim.sh"
CCAS=$(test_program "$top_builddir/plugin/ccautoscale")
export CCAUTOSCALE_CONFIG=$TEST_TMP/autoscale.json

fresh () {  # $1 a jq expression for the configuration, $2 a cluster file (default small.json)
    [ -z "${CCSIM_PID:-}" ] || ccsim_stop
    rm -rf "$TEST_TMP/state" &&
    ccsim_start "${2:-$CCSIM_CLUSTERS/small.json}" --boot-delay 0.3 &&
    ccsim_write_config "$CCAUTOSCALE_CONFIG" "${1:-.}" &&
    : >"$TEST_TMP/ccautoscale.log"
}

count () {  # nodes matching a jq condition
    ccsim_get /ccsim/state | jq "[.nodes[] | select($1)] | length"
}

job () {  # the job $2 of a demand --json document $1
    jq -c --arg id "$2" ".jobs[] | select(.id == \$id)" "$1"
}

test_expect_success 'exclusive: one iteration of a job per node, packed or not; exclusive-task shares one' '
    fresh &&
    echo "[{\"id\": \"x\", \"exclusive\": true, \"node_count\": 3, \"packing\": \"pack\",
            \"constraints\": {\"ncpus\": 1, \"node.nodearray\": \"htc\"}},
           {\"id\": \"t\", \"node_count\": 2, \"packing\": \"pack\",
            \"constraints\": {\"ncpus\": 1, \"node.nodearray\": \"htc\", \"exclusive-task\": true}}]" >jobs.json &&
    "$CCAS" demand --apply --jobs jobs.json --json >out.json &&
    test_equal "$(job out.json x | jq ".nodes | unique | length")" 3 "nodes of the exclusive job" &&
    test_equal "$(job out.json t | jq ".nodes | unique | length")" 1 "nodes of the exclusive-task job" &&
    test_equal "$(count ".Template == \"htc\"")" 4 "nodes made"
'

test_expect_success 'a cluster being terminated: demand --apply creates nothing, says why, and the jobs say it too' '
    fresh &&
    ccsim_post /ccsim/cluster "{\"state\": \"Terminating\", \"targetState\": \"Terminated\"}" >/dev/null &&
    ccsim_delete /ccsim/requests >/dev/null &&
    echo "[{\"id\": \"1\", \"constraints\": {\"ncpus\": 1}}]" >jobs.json &&
    "$CCAS" demand --apply --jobs jobs.json >out &&
    head -1 out | grep "^Cluster .test. is Terminating (targetState Terminated): nothing is created or started until it is Started\.$" &&
    test_grep "cluster .test. is Terminating" out &&
    "$CCAS" demand --jobs jobs.json --json >out.json &&
    jq -e ".cluster_closed | startswith(\"cluster '"'"'test'"'"' is Terminating\")" out.json &&
    job out.json 1 | jq -e "(.matched | not) and (.reason | contains(\"nothing is created or started until it is Started\"))" &&
    test_equal "$(ccsim_requests "^POST" | wc -l)" 0 "POST requests"
'

test_expect_success 'a cluster being terminated: autoscale update and create make nothing, exit 4, and say why' '
    echo "[{\"Name\": \"htc\", \"TargetCount\": 2}]" >req.json &&
    test_expect_code 4 "$CCAS" autoscale update req.json >out &&
    test_grep "htc (request set .standard.): 2 nodes short: cluster .test. is Terminating (targetState Terminated): nothing is created or started until it is Started" out &&
    test_expect_code 4 "$CCAS" create --nodearray gpu --count 1 >cout 2>cerr &&
    test_grep "gpu/Standard_NC24ads_A100_v4: only 0 of 1 nodes can be created now: cluster .test. is Terminating" cerr &&
    test_equal "$(ccsim_requests "^POST" | wc -l)" 0 "POST requests"
'

test_expect_success 'a deallocated node is not started while the cluster is Starting; once Started, all is made up' '
    ccsim_post /ccsim/cluster "{\"state\": \"Started\", \"targetState\": \"Started\"}" >/dev/null &&
    "$CCAS" create --nodearray htc --machine-type Standard_F2s_v2 --count 1 --json >made.json &&
    name=$(jq -r ".create[0].names[0]" made.json) &&
    wait_for 10 sh -c "test \"\$(curl -s $CCSIM_URL/ccsim/state | jq -r \".nodes[] | select(.Name == \\\"$name\\\") | .Status\")\" = Ready" &&
    ccsim_post /clusters/test/nodes/deallocate "{\"names\": [\"$name\"]}" >/dev/null &&
    wait_for 10 sh -c "test \"\$(curl -s $CCSIM_URL/ccsim/state | jq -r \".nodes[] | select(.Name == \\\"$name\\\") | .Status\")\" = Deallocated" &&
    ccsim_post /ccsim/cluster "{\"state\": \"Starting\", \"targetState\": \"Started\"}" >/dev/null &&
    ccsim_delete /ccsim/requests >/dev/null &&
    test_expect_code 4 "$CCAS" autoscale run >run &&
    test_grep "cluster .test. is Starting (targetState Started)" run &&
    test_equal "$(ccsim_requests "^POST" | wc -l)" 0 "POST requests while Starting" &&
    ccsim_post /ccsim/cluster "{\"state\": \"Started\"}" >/dev/null &&
    "$CCAS" autoscale run >run2 &&
    test_equal "$(ccsim_acted start)" "$name" "nodes started" &&
    test_equal "$(ccsim_made | wc -l)" 1 "nodes made"
'

test_expect_success 'create without --machine-type leaves the choice to CycleCloud: no machine type sent, the type it chose shown' '
    jq "(.nodearrays[0].buckets[0].maxCount) = 1" "$CCSIM_CLUSTERS/small.json" >f2-one.json &&
    fresh . "$TEST_TMP/f2-one.json" &&
    "$CCAS" create --nodearray htc --count 2 >out &&
    ccsim_get /ccsim/requests | jq -c "[.[] | select(.method == \"POST\") | .sets[].machine_type]" >sent &&
    test_equal "$(cat sent)" "[null]" "machine types sent" &&
    test_equal "$(count ".MachineType == \"Standard_F4s_v2\"")" 2 "nodes CycleCloud made in F4s_v2 (F2s_v2 has room for one)" &&
    test_grep "^htc  *Standard_F4s_v2  *-  *2  *2" out &&
    "$CCAS" create --nodearray htc --count 1 --json >one.json &&
    jq -e ".create[0] | .chosen_by_cyclecloud and .machine_type == \"Standard_F2s_v2\"" one.json &&
    "$CCAS" create --nodearray htc --count 1 --machine-type Standard_F4s_v2 >/dev/null &&
    test_equal "$(ccsim_get /ccsim/requests | jq -c "[.[] | select(.method == \"POST\") | .sets[].machine_type]")" \
        "[null,null,\"Standard_F4s_v2\"]" "machine types sent"
'

test_expect_success 'a family quota shared by two machine types: the reason states the room they have together' '
    fresh &&
    ccsim_fault "{\"kind\": \"quota\", \"machine_type\": \"Standard_F2s_v2\", \"cores\": 8}" &&
    ccsim_fault "{\"kind\": \"quota\", \"machine_type\": \"Standard_F4s_v2\", \"cores\": 8}" &&
    echo "[{\"id\": \"5\", \"node_count\": 5, \"packing\": \"scatter\", \"constraints\": {\"ncpus\": 1, \"node.nodearray\": \"htc\"}}]" >jobs.json &&
    "$CCAS" buckets --json | jq -e "[.[] | select(.nodearray == \"htc\") | .family_quota_core_count] == [8, 8]" &&
    "$CCAS" demand --jobs jobs.json >out &&
    test_grep "needs 5 slots, room for fewer: 4 more nodes allowed in htc/Standard_F2s_v2 and others" out
'

test_expect_success 'a default_resources value that is a list: xor and list constraints test against it' '
    fresh ".default_resources = [{\"select\": {\"node.nodearray\": \"htc\"}, \"name\": \"features\", \"value\": [\"ib\", \"ssd\"]}]" &&
    cat >jobs.json <<-\EOF &&
	[{"id": "xor-one", "constraints": {"xor": [{"features": "ib"}, {"features": "gpu"}]}},
	 {"id": "xor-both", "constraints": {"xor": [{"features": "ib"}, {"features": "ssd"}]}},
	 {"id": "in", "constraints": {"features": ["gpu", "ssd"]}},
	 {"id": "whole", "constraints": {"features": [["ib", "ssd"]]}},
	 {"id": "none", "constraints": {"features": "gpu"}}]
	EOF
    "$CCAS" demand --jobs jobs.json --json >out.json &&
    test_equal "$(jq -c "[.jobs[] | select(.matched) | .id]" out.json)" "[\"xor-one\",\"in\",\"whole\"]" "matched jobs" &&
    job out.json xor-both | jq -e ".reason | contains(\"xor: 2 options match\")" &&
    job out.json none | jq -e ".reason | contains(\"features: wants '"'"'gpu'"'"', node has ['"'"'ib'"'"', '"'"'ssd'"'"']\")" &&
    "$CCAS" demand --apply --jobs jobs.json >/dev/null &&
    test_equal "$(count ".Template == \"htc\"")" 1 "nodes made (the three jobs packed on one)"
'

test_expect_success 'a shared resource with a cluster-wide pool beside a queue'"'"'s: a job takes from both; each miss names its pool' '
    fresh ".shared_resources = {\"lic\": {\"cluster\": 3, \"queues\": {\"workq\": 1}}}" &&
    cat >jobs.json <<-\EOF &&
	[{"id": "w1", "queue": "workq", "constraints": {"ncpus": 1, "lic": 1}},
	 {"id": "w2", "queue": "workq", "constraints": {"ncpus": 1, "lic": 1}},
	 {"id": "h", "queue": "htcq", "constraints": {"ncpus": 1, "lic": 2}},
	 {"id": "n", "constraints": {"ncpus": 1, "lic": 1}}]
	EOF
    "$CCAS" config check >/dev/null &&
    "$CCAS" demand --jobs jobs.json --json >out.json &&
    test_equal "$(jq -c "[.jobs[] | select(.matched) | .id]" out.json)" "[\"w1\",\"h\"]" "matched jobs" &&
    job out.json w2 | jq -e ".reason | contains(\"lic: needs 1, 0 left in queue '"'"'workq'"'"'\")" &&
    job out.json n | jq -e ".reason | contains(\"lic: needs 1, 0 left in the cluster\")" &&
    echo "{\"lic\": {\"queues\": {\"workq\": \"x\"}, \"cluster\": 2}}" >bad.json &&
    jq --slurpfile s bad.json ".shared_resources = \$s[0]" "$CCAUTOSCALE_CONFIG" >bad-conf.json && chmod 600 bad-conf.json &&
    test_expect_code 2 "$CCAS" -c bad-conf.json demand --jobs jobs.json 2>err &&
    test_grep "shared_resources.lic.queues.workq: every pool of .lic. is an amount, or none is" err
'

test_done
