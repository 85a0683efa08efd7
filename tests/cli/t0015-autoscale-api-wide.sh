#!/bin/bash
# SPDX-License-Identifier: MIT
# t0015-autoscale-api-wide.sh: requests as wide as CycleCloud's autoscale API,
# through ccsim.  Each entry is judged alone (a wrong one refused with its
# index, name and attribute, the others recorded and created, exit 4; a
# refused entry keeps its array's previous request); the nodearray
# attributes an entry sets reach the create's nodeAttributes (ccsim's
# request log) and the node records; ClusterName of this cluster; a
# MachineType that is no bucket names the buckets there are; a dynamic
# array without Extends made from its own attributes, or refused naming what
# it lacks; MaxCount and Interruptible; a capacity failure falling back to
# the next machine type within the update that met it.
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

count () {  # nodes matching a jq condition
    ccsim_get /ccsim/state | jq "[.nodes[] | select($1)] | length"
}

creates () {  # the sets of every create request, one JSON object a line
    ccsim_get /ccsim/requests | jq -c '.[] | select(.method == "POST" and (.path | endswith("/nodes/create"))) | .sets[]'
}

test_expect_success 'a request with wrong entries: the others are recorded and created, each refusal named, exit 4' '
    fresh &&
    cat >req.json <<-\EOF &&
	[{"Name": "htc", "TargetCount": 2},
	 {"Name": "gpu", "TargetCount": 1, "Colour": "red"},
	 {"Name": "hpc", "TargetCount": 1, "MachineType": "Standard_X"},
	 {"TargetCount": 3},
	 {"Name": "big", "Extends": "htc", "Dynamic": true, "TargetCount": 1}]
	EOF
    test_expect_code 4 "$CCAS" autoscale update req.json >out 2>err &&
    test_grep "req.json: array .gpu. (\[1\]): Colour: unknown attribute: .*; entry refused" err &&
    test_grep "req.json: array .hpc. (\[2\]): MachineType: nodearray .hpc. has no machine type .Standard_X. (it has .Standard_HB120rs_v3.); entry refused" err &&
    test_grep "req.json: \[3\]: Name: expected the array.s name, got nothing; entry refused" err &&
    test_grep "recorded 2 arrays" out &&
    jq -e "[.arrays[].name] == [\"htc\", \"big\"]" "$TEST_TMP/state/autoscale-standard.json" &&
    test_equal "$(count ".Template == \"htc\"")" 3 "htc nodes (2 plain, 1 of big)" &&
    test_equal "$(count ".Template != \"htc\"")" 0 "nodes elsewhere" &&
    test_expect_code 4 "$CCAS" autoscale update --dry-run --json req.json >out.json 2>/dev/null &&
    jq -e "[.refused[] | {index, name, attribute}] == [{\"index\": 1, \"name\": \"gpu\", \"attribute\": \"Colour\"},
           {\"index\": 2, \"name\": \"hpc\", \"attribute\": \"MachineType\"}, {\"index\": 3, \"name\": null, \"attribute\": \"Name\"}]" out.json
'

test_expect_success 'every entry refused and nothing to keep: exit 1, nothing recorded, nothing sent' '
    fresh && ccsim_delete /ccsim/requests >/dev/null &&
    echo "[{\"Name\": \"htc\", \"ComputerName\": \"one\"}, {\"Name\": \"gpu\", \"ClusterName\": \"other\"}]" >bad.json &&
    test_expect_code 1 "$CCAS" autoscale update bad.json >out 2>err &&
    test_grep "array .htc. (\[0\]): ComputerName: cannot be set by an autoscale request: it names one VM" err &&
    test_grep "array .gpu. (\[1\]): ClusterName: this is cluster .test., not \"other\"" err &&
    test_grep "every entry was refused; nothing recorded" err &&
    test ! -e "$TEST_TMP/state/autoscale-standard.json" &&
    test_equal "$(ccsim_requests POST | wc -l)" 0 "POST requests"
'

test_expect_success 'node attributes reach the create and the nodes: Priority, ImageName, Tags, Azure.* (dotted or nested); ClusterName of this cluster' '
    fresh &&
    cat >req.json <<-\EOF &&
	[{"Name": "htc", "TargetCount": 2, "ClusterName": "test", "Priority": 10, "ImageName": "cycle.image.ubuntu22",
	  "Tags.owner": "hpc-team", "Azure.Publisher": "Canonical", "Azure": {"Sku": "22_04-lts"}, "EphemeralOSDisk": true,
	  "MachineType": "Standard_F2s_v2"}]
	EOF
    "$CCAS" autoscale update req.json >out &&
    creates >sets &&
    test_equal "$(wc -l <sets)" 1 "create sets" &&
    jq -e ".machine_type == \"Standard_F2s_v2\" and .count == 2 and .node_attributes ==
           {\"Priority\": 10, \"ImageName\": \"cycle.image.ubuntu22\", \"Tags\": {\"owner\": \"hpc-team\"},
            \"Azure\": {\"Publisher\": \"Canonical\", \"Sku\": \"22_04-lts\"}, \"EphemeralOSDisk\": true}" sets &&
    test_equal "$(count ".Priority == 10 and .ImageName == \"cycle.image.ubuntu22\" and .Tags.owner == \"hpc-team\" and .Azure.Publisher == \"Canonical\"")" 2 \
        "nodes that carry the attributes" &&
    test_equal "$(count ".ClusterName == \"test\"")" 2 "nodes of this cluster" &&
    "$CCAS" autoscale show --json | jq -e ".arrays[0].attributes.Priority == 10"
'

test_expect_success 'attributes that cannot be set per set refuse the entry, with the reason' '
    for a in "\"PlacementGroupId\": \"pg\"" "\"InitialCount\": 2" "\"IsReturnProxy\": true" "\"Abstract\": true" "\"Interruptible\": true"; do
        echo "[{\"Name\": \"htc\", \"TargetCount\": 3, $a}]" >r.json &&
        { test_expect_code 4 "$CCAS" autoscale update r.json >/dev/null 2>err || return 1; } &&
        test_grep "array .htc. (\[0\]): .*; entry refused (the set.s latest request of .htc. is kept)" err || return 1
    done &&
    test_grep "Interruptible: nodearray .htc. is on-demand" err &&
    test_equal "$(count ".Template == \"htc\"")" 2 "htc nodes: the target kept at 2"
'

test_expect_success 'a dynamic array without Extends: made from its own attributes in the nodearray with its machine type' '
    fresh &&
    cat >req.json <<-\EOF &&
	[{"Name": "solo", "Dynamic": true, "TargetCount": 2, "MachineType": "Standard_F4s_v2",
	  "SubnetId": "rg/vnet/solo", "Credentials": "azure", "ImageName": "cycle.image.alma8",
	  "Configuration": {"app": "solo"}}]
	EOF
    "$CCAS" autoscale update req.json >out &&
    creates >sets &&
    jq -e ".nodearray == \"htc\" and .machine_type == \"Standard_F4s_v2\" and .count == 2 and
           .node_attributes.SubnetId == \"rg/vnet/solo\" and .node_attributes.Credentials == \"azure\" and
           .node_attributes.ImageName == \"cycle.image.alma8\" and
           .node_attributes.Configuration.ccautoscale == {\"array\": \"solo\", \"request_set\": \"standard\"}" sets &&
    test_equal "$(count ".Configuration.ccautoscale.array == \"solo\" and .SubnetId == \"rg/vnet/solo\" and .Configuration.app == \"solo\"")" 2 "nodes of solo" &&
    "$CCAS" autoscale show --json | jq -e ".arrays[0] | .standalone and .nodearray == \"htc\" and .nodes == 2" &&
    "$CCAS" autoscale update req.json >again && test_grep "Nothing to create" again
'

test_expect_success 'a dynamic array without Extends that lacks what a node needs is refused, naming it' '
    echo "[{\"Name\": \"solo2\", \"Dynamic\": true, \"TargetCount\": 1, \"MachineType\": \"Standard_F2s_v2\", \"SubnetId\": \"s\"}]" >bad.json &&
    test_expect_code 1 "$CCAS" autoscale update --request-set other bad.json 2>err &&
    test_grep "array .solo2. (\[0\]): Extends: a dynamic array without Extends gives every attribute a node needs; it lacks Credentials, an image (ImageName, ImageId or Azure.Publisher, Offer, Sku and ImageVersion)" err &&
    echo "[{\"Name\": \"solo3\", \"Dynamic\": true, \"TargetCount\": 1, \"MachineType\": \"Standard_M8ms\",
           \"SubnetId\": \"s\", \"Credentials\": \"c\", \"ImageId\": \"i\"}]" >bad2.json &&
    test_expect_code 1 "$CCAS" autoscale update --request-set other bad2.json 2>err2 &&
    test_grep "MachineType: no nodearray of cluster .test. has machine type .Standard_M8ms. (the REST API makes nodes only in a nodearray.s buckets; there are htc: .Standard_F2s_v2., .Standard_F4s_v2.; hpc: .Standard_HB120rs_v3.; gpu: .Standard_NC24ads_A100_v4.)" err2
'

test_expect_success 'MaxCount caps an array: no node past it, and the shortfall says so (exit 4)' '
    fresh &&
    echo "[{\"Name\": \"htc\", \"TargetCount\": 5, \"MaxCount\": 2}]" >req.json &&
    test_expect_code 4 "$CCAS" autoscale update req.json >out &&
    test_grep "htc (request set .standard.): 3 nodes short: MaxCount 2 reached" out &&
    test_equal "$(count ".Template == \"htc\"")" 2 "htc nodes"
'

test_expect_success 'a refused entry keeps its dynamic array: not flagged for removal, its nodes not let go' '
    fresh &&
    echo "[{\"Name\": \"big\", \"Extends\": \"htc\", \"Dynamic\": true, \"TargetCount\": 1}]" >req.json &&
    "$CCAS" autoscale update req.json >/dev/null &&
    victim=$(ccsim_get /ccsim/state | jq -r ".nodes[0].Name") &&
    echo "[{\"Name\": \"big\", \"Extends\": \"htc\", \"Dynamic\": true, \"TargetCount\": -1}]" >typo.json &&
    test_expect_code 4 "$CCAS" autoscale update typo.json >/dev/null 2>err &&
    test_grep "the set.s latest request of .big. is kept" err &&
    jq -e ".removing == [] and .arrays[0].target == 1" "$TEST_TMP/state/autoscale-standard.json" &&
    test_expect_code 8 "$CCAS" autostop --node "$victim" >stop &&
    test_grep "wants 1 node and has 1" stop
'

test_expect_success 'a capacity failure falls back to the next machine type within the update: two creates, nothing left short' '
    fresh &&
    ccsim_fault "{\"kind\": \"capacity\", \"machine_type\": \"Standard_F4s_v2\", \"count\": -1}" &&
    echo "[{\"Name\": \"htc\", \"TargetCount\": 2, \"MachineType\": [\"Standard_F4s_v2\", \"Standard_F2s_v2\"],
           \"Priority\": 3}]" >req.json &&
    "$CCAS" autoscale update --json req.json >out.json &&
    jq -e "[.create[] | {machine_type, added, fallback}] == [{\"machine_type\": \"Standard_F4s_v2\", \"added\": 0, \"fallback\": null},
           {\"machine_type\": \"Standard_F2s_v2\", \"added\": 2, \"fallback\": true}]" out.json &&
    jq -e ".create[0].class == \"capacity\" and .create[0].replaced == 2 and (.create[0].request_id != .create[1].request_id)" out.json &&
    creates >sets &&
    test_equal "$(jq -s "[.[].machine_type]" sets | jq -c .)" "[\"Standard_F4s_v2\",\"Standard_F2s_v2\"]" "create requests, in order" &&
    jq -e -s ".[1].node_attributes.Priority == 3" sets &&
    test_equal "$(count ".MachineType == \"Standard_F2s_v2\"")" 2 "F2s_v2 nodes" &&
    state_entries "$TEST_TMP/state/requests.json" | jq -e ". == {}" &&
    "$CCAS" autoscale run >run && test_grep "Nothing to create" run &&
    test_equal "$(ccsim_made | wc -l)" 2 "nodes made (request log)"
'

test_done
