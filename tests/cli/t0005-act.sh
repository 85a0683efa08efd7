#!/bin/sh
# SPDX-License-Identifier: MIT
# demand, create, terminate, scale and analyze against ccsim: what appears there, and nothing twice.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/ccsim.sh"
CCAS=$(test_program "$top_builddir/plugin/ccautoscale")
export CCAUTOSCALE_CONFIG=$TEST_TMP/autoscale.json

nodes_in () {
    ccsim_get "/ccsim/state" | jq --arg na "$1" '[.nodes[] | select(.Template == $na)] | length'
}

test_expect_success 'start ccsim' '
    ccsim_start "$CCSIM_CLUSTERS/small.json" --boot-delay 0.3 &&
    ccsim_write_config "$CCAUTOSCALE_CONFIG"
'

cat >"$TEST_TMP/jobs.json" <<'JOBS'
[{"id": "serial", "node_count": 3, "packing": "pack", "constraints": {"ncpus": 1}},
 {"id": "mpi", "node_count": 4, "colocated": true, "exclusive": true, "constraints": {"node.nodearray": "hpc"}},
 {"id": "big-gpu", "constraints": {"ngpus": 8}}]
JOBS

test_expect_success 'demand is a dry run: it plans and creates nothing' '
    "$CCAS" demand --jobs "$TEST_TMP/jobs.json" >out &&
    test_grep "Would create 6 nodes" out &&
    test_grep "ngpus: needs 8" out &&
    test "$(ccsim_node_count)" = 0
'

test_expect_success 'demand --json names nodes per job and the reason of the miss' '
    "$CCAS" demand --jobs "$TEST_TMP/jobs.json" --json >out.json &&
    jq -e ".jobs[] | select(.id == \"mpi\") | .matched and (.nodes | length) == 4" out.json &&
    jq -e "[.jobs[] | select(.id == \"mpi\") | .nodes[].placement_group] | unique | length == 1" out.json &&
    jq -e ".jobs[] | select(.id == \"big-gpu\") | (.matched | not) and (.reason | test(\"ngpus\"))" out.json &&
    jq -e ".summary.unmatched == 1" out.json
'

test_expect_success 'demand --apply creates them in one create request' '
    ccsim_delete /ccsim/requests >/dev/null &&
    "$CCAS" demand --jobs "$TEST_TMP/jobs.json" --apply >out &&
    test "$(ccsim_requests "POST .*/nodes/create" | wc -l)" = 1 &&
    test "$(nodes_in hpc)" = 4 && test "$(nodes_in htc)" = 2 &&
    test "$(ccsim_get /ccsim/state | jq "[.nodes[] | select(.Template == \"hpc\") | .PlacementGroupId] | unique | length")" = 1
'

test_expect_success 'demand --apply again creates nothing: the booting nodes are used' '
    "$CCAS" demand --jobs "$TEST_TMP/jobs.json" --apply >out &&
    test_grep "Nothing to create" out &&
    test "$(ccsim_node_count)" = 6
'

# The lock is taken before the cluster is read: a node made while demand
# waited for it (here by hand, straight to CycleCloud) is seen and used.  The
# test waits until demand says it waits for the lock, so a demand that read the
# cluster first would have planned from the old state and created a second.
test_expect_success 'demand --apply plans under the lock: a node made while it waited is used, not made twice' '
    echo "[{\"id\": \"late\", \"constraints\": {\"node.nodearray\": \"gpu\"}}]" >late.json &&
    test_at_exit "touch $TEST_TMP/release" &&
    (flock "$TEST_TMP/lock" sh -c "touch $TEST_TMP/locked; while [ ! -e $TEST_TMP/release ]; do sleep 0.1; done" &) &&
    wait_for 60 test -e "$TEST_TMP/locked" &&
    ccsim_delete /ccsim/requests >/dev/null || return 1
    "$CCAS" demand --jobs late.json --apply >late.out 2>&1 &
    demand=$!
    wait_for 60 grep -q "/lock: held by .*; waiting up to" "$TEST_TMP/ccautoscale.log" &&
    ccsim_post /clusters/test/nodes/create "{\"requestId\": \"by-hand-1\", \"sets\": [{\"nodearray\": \"gpu\", \"count\": 1,
        \"definition\": {\"machineType\": \"Standard_NC24ads_A100_v4\"}}]}" >/dev/null &&
    touch "$TEST_TMP/release" &&
    wait $demand &&
    test_equal "$(ccsim_requests "POST .*/nodes/create" | wc -l)" 1 "create requests (the one made by hand)" &&
    test_equal "$(nodes_in gpu)" 1 "gpu nodes" &&
    gpu=$(ccsim_get /ccsim/state | jq -r ".nodes[] | select(.Template == \"gpu\") | .Name") &&
    "$CCAS" terminate --name "$gpu" --wait=120 >/dev/null && test_equal "$(nodes_in gpu)" 0 "gpu nodes after"
'

test_expect_success 'offline replay from saved responses gives the same plan' '
    ccsim_get /clusters/test/status >status.json &&
    ccsim_get /clusters/test/nodes >nodes.json &&
    "$CCAS" demand --jobs "$TEST_TMP/jobs.json" --status status.json --nodes nodes.json --json >replay.json &&
    jq -e ".create | length == 0" replay.json &&
    jq -e "[.jobs[] | select(.matched)] | length == 2" replay.json
'

test_expect_success 'analyze explains a job bucket by bucket' '
    "$CCAS" analyze --job big-gpu --jobs "$TEST_TMP/jobs.json" >out &&
    test_grep "job big-gpu: not matched" out &&
    test_grep "gpu .*Standard_NC24ads_A100_v4 .*no .*ngpus: needs 8" out &&
    "$CCAS" analyze --job big-gpu --jobs "$TEST_TMP/jobs.json" --json | jq -e ".chunks[0].buckets | length == 4"
'

test_expect_success 'analyze of a job that matches: the jobs ahead take their share, its own nodes do not count' '
    echo "[{\"id\": \"ahead\", \"constraints\": {\"ngpus\": 1}}, {\"id\": \"me\", \"constraints\": {\"ngpus\": 1}},
           {\"id\": \"behind\", \"constraints\": {\"ngpus\": 1}}]" >two.json &&
    "$CCAS" analyze --job me --jobs two.json --json >me.json &&
    jq -e ".matched" me.json &&
    test_equal "$(jq ".chunks[0].buckets[] | select(.nodearray == \"gpu\") | .available" me.json)" 1 \
        "gpu nodes left for it (maxCount 2, one taken by the job ahead)"
'

test_expect_success 'create --dry-run changes nothing; create makes what fits and says why not more' '
    "$CCAS" create --nodearray gpu --count 1 --dry-run >out &&
    test "$(nodes_in gpu)" = 0 &&
    rc=0; "$CCAS" create --nodearray gpu --count 3 >out 2>err || rc=$? ;
    test "$rc" = 4 && test_grep "only 2 of 3" err && test "$(nodes_in gpu)" = 2 &&
    test_equal "$(sed -n "s/^New nodes: //p" out)" \
        "$(ccsim_get /ccsim/state | jq -r "[.nodes[] | select(.Template == \"gpu\") | .Name] | sort | join(\" \")")" "names printed"
'

test_expect_success 'create refuses an unknown nodearray or machine type, naming the known ones' '
    rc=0; "$CCAS" create --nodearray nope --count 1 2>err || rc=$? ;
    test "$rc" = 1 && test_grep "nodearray .nope. not found" err && test_grep "htc" err &&
    rc=0; "$CCAS" create --nodearray htc --machine-type Standard_X --count 1 2>err || rc=$? ;
    test "$rc" = 1 && test_grep "Standard_F2s_v2" err
'

test_expect_success 'create --keep-alive marks the nodes KeepAlive' '
    "$CCAS" create --nodearray htc --machine-type Standard_F4s_v2 --count 1 --keep-alive --json >out.json &&
    name=$(jq -r ".create[0].names[0]" out.json) &&
    ccsim_get /ccsim/state | jq -e --arg n "$name" ".nodes[] | select(.Name == \$n) | .KeepAlive"
'

test_expect_success 'terminate refuses unknown names and KeepAlive nodes, without acting' '
    n=$(ccsim_node_count) &&
    rc=0; "$CCAS" terminate --name nope-1 2>err || rc=$? ;
    test "$rc" = 1 && test_grep "no node with name .nope-1." err &&
    keep=$(ccsim_get /ccsim/state | jq -r "[.nodes[] | select(.KeepAlive)][0].Name") &&
    rc=0; "$CCAS" terminate --name "$keep" 2>err || rc=$? ;
    test "$rc" = 1 && test_grep "KeepAlive" err &&
    test "$(ccsim_node_count)" = "$n"
'

test_expect_success 'terminate by name and by hostname in one request' '
    wait_for 60 sh -c "test \$(curl -s $CCSIM_URL/ccsim/state | jq \"[.nodes[] | select(.Status == \\\"Ready\\\")] | length\") -ge 3" &&
    ccsim_delete /ccsim/requests >/dev/null &&
    "$CCAS" terminate --name hpc-1 --hostname hpc-2 >out &&
    test "$(ccsim_requests "POST .*/nodes/terminate" | wc -l)" = 1 &&
    wait_for 60 sh -c "test \$(curl -s $CCSIM_URL/ccsim/state | jq \"[.nodes[] | select(.Template == \\\"hpc\\\")] | length\") = 2"
'

test_expect_success 'scale grows a nodearray to a node target and never shrinks' '
    "$CCAS" scale --nodearray hpc --nodes 5 >out &&
    test "$(nodes_in hpc)" = 5 &&
    "$CCAS" scale --nodearray hpc --nodes 1 >out &&
    test_grep "Nothing to create" out && test "$(nodes_in hpc)" = 5
'

is_deallocated () {
    ccsim_get /ccsim/state | jq -e --arg n "$1" '.nodes[] | select(.Name == $n) | .Status == "Deallocated"' >/dev/null
}

test_expect_success 'scale starts a deallocated node before it creates one' '
    hpc1=$(ccsim_get /ccsim/state | jq -r "[.nodes[] | select(.Template == \"hpc\") | .Name][0]") &&
    ccsim_post /clusters/test/nodes/deallocate "{\"names\": [\"$hpc1\"]}" >/dev/null &&
    wait_for 60 is_deallocated "$hpc1" &&
    "$CCAS" scale --nodearray hpc --nodes 5 --json >out.json &&
    jq -e "(.create | length) == 0 and [.start[].name] == [\"$hpc1\"] and .start[0].outcome == \"done\"" out.json &&
    ! is_deallocated "$hpc1" && test "$(nodes_in hpc)" = 5
'

test_expect_success 'scale --groups makes whole placement groups of one machine type' '
    "$CCAS" scale --nodearray hpc --groups 2 --group-nodes 4 --dry-run --json >out.json &&
    jq -e "[.create[] | .count] == [4]" out.json
'

test_expect_success 'scale --cores rounds up to whole nodes' '
    have=$(ccsim_get /ccsim/state | jq "[.nodes[] | select(.Template == \"htc\") | if .MachineType == \"Standard_F4s_v2\" then 4 else 2 end] | add // 0") &&
    "$CCAS" scale --nodearray htc --cores $((have + 7)) --dry-run --json >out.json &&
    jq -e "[.create[] | .machine_type + \" \" + (.count | tostring)] == [\"Standard_F2s_v2 4\"]" out.json
'

# The nodes are held Acquiring (ccsim's boot_delay an hour) until the program
# has said so, however slowly it runs (valgrind, a busy machine); boot_delay
# 0.3 then lets them boot.
test_expect_success 'create --wait follows the new nodes to Ready, a line per change when not a terminal' '
    ccsim_post /ccsim/config "{\"boot_delay\": 3600}" >/dev/null &&
    { "$CCAS" create --nodearray htc --count 2 --wait=120 >out & pid=$!; } &&
    wait_for 60 grep -q "2 nodes: Acquiring 2" out &&
    ccsim_post /ccsim/config "{\"boot_delay\": 0.3}" >/dev/null &&
    wait $pid &&
    test "$(tail -1 out | sed "s/^\[ *[0-9]*s\] //")" = "2 nodes: Ready 2" &&
    test "$(grep -c "nodes:" out)" = "$(grep "nodes:" out | sed "s/^\[ *[0-9]*s\] //" | uniq | wc -l)"
'

test_expect_success 'terminate --wait follows the nodes until CycleCloud has removed them' '
    names=$(ccsim_get /ccsim/state | jq -r "[.nodes[] | select(.Template == \"htc\") | .Name][0:2] | .[]") &&
    "$CCAS" terminate $(printf -- "--name %s " $names) --wait=120 >out &&
    test "$(tail -1 out | sed "s/^\[ *[0-9]*s\] //")" = "2 nodes: removed 2" &&
    for n in $names; do ! ccsim_get /ccsim/state | jq -e ".nodes[] | select(.Name == \"$n\")"; done
'

test_expect_success 'create --wait --json: one document, with the final status of each node' '
    "$CCAS" create --nodearray htc --count 1 --wait=120 --json >out.json &&
    jq -e ".applied and (.wait.timed_out | not) and ([.wait.nodes[].status] == [\"Ready\"])" out.json
'

test_expect_success 'create --wait names a node that failed to boot, with the message, and exits 4' '
    ccsim_fault "{\"kind\": \"boot_failure\", \"mode\": \"failed\", \"count\": 1}" &&
    test_expect_code 4 "$CCAS" create --nodearray htc --count 1 --wait=120 >out 2>err &&
    test_grep "Failed 1" out &&
    test_grep "failed: " err
'

test_expect_success 'create --wait gives up after SECONDS, naming the node still booting, and exits 4' '
    ccsim_fault "{\"kind\": \"boot_failure\", \"mode\": \"hang\", \"count\": 1}" &&
    test_expect_code 4 "$CCAS" create --nodearray htc --count 1 --wait=2 >out 2>err &&
    test_grep "still Acquiring after 2 s" err
'

test_expect_success 'a bad --wait is a usage error and creates nothing' '
    n=$(ccsim_node_count) &&
    test_expect_code 1 "$CCAS" create --nodearray htc --count 1 --wait=soon 2>err &&
    test_grep "expected a number of seconds" err &&
    test "$(ccsim_node_count)" = "$n"
'

test_done
