#!/bin/sh
# SPDX-License-Identifier: MIT
# CycleCloud's limits through ccsim (clusters/quota.json): the status carries
# quotaCount, quotaCoreCount, consumedCoreCount (other clusters' use), the
# family and regional fields and maxPlacementGroupCoreSize; ccsim enforces
# them on create; `demand --apply` plans within every one of them.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/ccsim.sh"
CCAS=$(test_program "$top_builddir/plugin/ccautoscale")
export CCAUTOSCALE_CONFIG=$TEST_TMP/autoscale.json
export CCSIM_CLUSTER_FILE=$CCSIM_CLUSTERS/quota.json

bucket () { # nodearray machine-type: the bucket of ccsim's status
    ccsim_get /clusters/quota/status | jq --arg na "$1" --arg mt "$2" \
        '.nodearrays[] | select(.name == $na) | .buckets[] | select(.definition.machineType == $mt)'
}

cores_in () { # nodearray: cores of its VMs in ccsim
    ccsim_get /ccsim/state | jq --arg na "$1" \
        '[.nodes[] | select(.Template == $na) | .CoreCount] | add // 0'
}

test_expect_success 'start ccsim' '
    ccsim_start "$CCSIM_CLUSTER_FILE" --boot-delay 0.3 &&
    ccsim_write_config "$CCAUTOSCALE_CONFIG"
'

test_expect_success 'the status carries every documented limit field' '
    bucket htc Standard_F8s_v2 >b.json &&
    jq -e ".quotaCount == 12 and .quotaCoreCount == 100 and .consumedCoreCount == 20" b.json &&
    jq -e ".familyQuotaCount == 125 and .familyConsumedCoreCount == 20 and .regionalQuotaCount == 1250" b.json &&
    jq -e ".maxPlacementGroupSize == 100 and .maxPlacementGroupCoreSize == 800" b.json &&
    jq -e ".availableCount == 10 and .availableCoreCount == 80" b.json &&
    bucket spot Standard_F4s_v2 >s.json &&
    jq -e ".familyQuotaCoreCount == 0 and .quotaCoreCount == 0 and .availableCount == 8" s.json
'

cat >"$TEST_TMP/jobs.json" <<'JOBS'
[{"id": "a", "node_count": 10, "packing": "scatter", "constraints": {"node.nodearray": "htc", "ncpus": 4}},
 {"id": "b", "node_count": 10, "packing": "scatter", "constraints": {"node.nodearray": "htc", "ncpus": 4}},
 {"id": "c", "constraints": {"node.nodearray": "htc", "ncpus": 4}},
 {"id": "spot", "node_count": 8, "packing": "scatter", "constraints": {"node.nodearray": "spot", "ncpus": 4}},
 {"id": "east", "node_count": 5, "packing": "scatter", "constraints": {"node.nodearray": "east", "ncpus": 4}}]
JOBS

test_expect_success 'demand plans within quotaCoreCount shared by a family, other clusters use counted' '
    "$CCAS" demand --jobs "$TEST_TMP/jobs.json" --json >plan.json &&
    test_equal "$(jq -r "[.jobs[] | select(.matched) | .id] | join(\" \")" plan.json)" "a b spot east" "jobs matched" &&
    jq -r ".jobs[] | select(.id == \"c\") | .reason" plan.json >reason &&
    test_grep "quotaCoreCount of standardFSv2Family in westeurope: 0 cores left" reason &&
    test_equal "$(jq "[.create[] | select(.nodearray == \"htc\") | .count * (if .machine_type == \"Standard_F8s_v2\" then 8 else 4 end)] | add" plan.json)" 80 \
        "cores planned in the family (quota 100, 20 used by others)"
'

test_expect_success 'a spot bucket takes its region spot quota; the zero family quota blocks nothing' '
    test_equal "$(jq "[.create[] | select(.nodearray == \"spot\") | .count] | add" plan.json)" 8 "spot nodes"
'

test_expect_success 'regional quota is per region' '
    test_equal "$(jq "[.create[] | select(.nodearray == \"east\") | .count] | add" plan.json)" 5 "east nodes" &&
    test_equal "$(jq -r "[.create[] | select(.nodearray == \"east\") | .machine_type] | sort | join(\" \")" plan.json)" \
        "Standard_D4s_v3 Standard_D8s_v3" "east machine types (D4 maxCount 1)"
'

test_expect_success 'demand --apply: ccsim makes every node planned, none refused' '
    "$CCAS" demand --jobs "$TEST_TMP/jobs.json" --apply >out &&
    test_equal "$(cores_in htc)" 80 "htc cores made" &&
    test_equal "$(cores_in spot)" 32 "spot cores made" &&
    test_equal "$(ccsim_get /ccsim/state | jq "[.nodes[] | select(.Template == \"east\")] | length")" 5 "east nodes" &&
    bucket htc Standard_F4s_v2 | jq -e ".availableCount == 0 and .consumedCoreCount == 100"
'

test_expect_success 'ccsim refuses past a quota: added 0 and a message saying which' '
    ccsim_post /clusters/quota/nodes/create "{\"requestId\": \"over-1\", \"sets\": [{\"nodearray\": \"htc\", \"count\": 2,
        \"definition\": {\"machineType\": \"Standard_F4s_v2\"}}]}" >res.json &&
    jq -e ".sets[0].added == 0" res.json &&
    jq -r ".sets[0].message" res.json | grep "quotaCoreCount"
'

test_expect_success 'a create naming no machine type goes to the first bucket that can satisfy it' '
    names=$(ccsim_get /ccsim/state | jq -r ".nodes[] | select(.Template == \"east\") | \"--name \" + .Name") &&
    "$CCAS" terminate $names --wait=120 >/dev/null &&
    ccsim_post /clusters/quota/nodes/create "{\"requestId\": \"first-fit\", \"sets\": [{\"nodearray\": \"east\", \"count\": 2}]}" >res.json &&
    jq -e ".sets[0].added == 2" res.json &&
    test_equal "$(ccsim_get /ccsim/state | jq -r "[.nodes[] | select(.Template == \"east\") | .MachineType] | unique | join(\" \")")" \
        Standard_D8s_v3 "machine type (the first bucket, D4s_v3, holds 1)"
'

test_expect_success '/operations/ID has the documented shape: action and startTime' '
    op=$(jq -r .operationId res.json) &&
    ccsim_get "/operations/$op" >op.json &&
    test_equal "$(jq -r "keys | join(\" \")" op.json)" "action startTime" "fields" &&
    jq -e ".action == \"create\" and (.startTime | test(\"^[0-9]{4}-\"))" op.json &&
    ccsim_get "/operations/?request_id=first-fit" | jq -e "length == 1 and (.[0] | keys == [\"action\", \"startTime\"])"
'

test_expect_success 'ccsim holds a placement group to maxPlacementGroupCoreSize' '
    ccsim_post /clusters/quota/nodes/create "{\"requestId\": \"pg-1\", \"sets\": [{\"nodearray\": \"hpc\", \"count\": 3,
        \"definition\": {\"machineType\": \"Standard_HC44rs\"}, \"placementGroupId\": \"pg-a\"}]}" >res.json &&
    jq -e ".sets[0].added == 2" res.json &&
    jq -r ".sets[0].message" res.json | grep "maxPlacementGroupCoreSize 88"
'

# the 2 VMs of placement group pg-a (made above) are idle: mpi2 takes them
test_expect_success 'demand and analyze: a colocated job one group cannot hold (88 cores) is refused whole' '
    echo "[{\"id\": \"mpi3\", \"node_count\": 3, \"packing\": \"scatter\", \"colocated\": true,
            \"constraints\": {\"node.nodearray\": \"hpc\", \"exclusive\": true}},
           {\"id\": \"mpi2\", \"node_count\": 2, \"packing\": \"scatter\", \"colocated\": true,
            \"constraints\": {\"node.nodearray\": \"hpc\", \"exclusive\": true}}]" >mpi.json &&
    "$CCAS" demand --jobs mpi.json --json >plan.json &&
    want="needs 3 nodes in one placement group of hpc/Standard_HC44rs; one holds 2 (maxPlacementGroupCoreSize 88 (44 cores per node))" &&
    test_equal "$(jq -r ".jobs[] | select(.id == \"mpi3\") | .reason" plan.json)" "$want" "demand" &&
    "$CCAS" analyze --job mpi3 --jobs mpi.json >analyze.out &&
    test_grep "why not: $want" analyze.out &&
    jq -e ".jobs[] | select(.id == \"mpi2\") | .nodes | length == 2 and all(type == \"string\")" plan.json
'

test_expect_success 'scale --groups and create --placement-group say what one group holds' '
    rc=0; "$CCAS" scale --nodearray hpc --groups 2 --group-nodes 3 --dry-run >out 2>err || rc=$? ;
    test "$rc" = 4 && test_grep "one of hpc/Standard_HC44rs holds 2, maxPlacementGroupCoreSize 88" err &&
    rc=0; "$CCAS" create --nodearray hpc --count 3 --placement-group pg-b --dry-run >out 2>err || rc=$? ;
    test "$rc" = 4 && test_grep "placement group .pg-b. is full (one holds 2: maxPlacementGroupCoreSize 88" err
'

test_expect_success 'exclusive-task through ccsim: one job'"'"'s tasks share a node' '
    echo "[{\"id\": \"tasks\", \"node_count\": 4, \"packing\": \"pack\",
            \"constraints\": {\"node.nodearray\": \"hpc\", \"ncpus\": 11, \"exclusive-task\": \"true\"}},
           {\"id\": \"other\", \"constraints\": {\"node.nodearray\": \"hpc\", \"ncpus\": 11}}]" >sem.json &&
    "$CCAS" demand --jobs sem.json --json >plan.json &&
    test_equal "$(jq "[.jobs[] | select(.id == \"tasks\") | .nodes[]] | length" plan.json)" 1 "nodes for 4 exclusive tasks of 11 cores" &&
    test_equal "$(jq -r "[.jobs[].nodes[0]] | unique | length" plan.json)" 2 "the other job keeps off that node"
'

test_expect_success 'buckets shows the quota a bucket draws on' '
    "$CCAS" buckets --nodearray htc --json >b.json &&
    jq -e ".[0].quota_core_count == 100 and .[0].consumed_core_count == 100" b.json
'

test_done
