#!/bin/bash
# SPDX-License-Identifier: MIT
# t0101-scale-up.sh: `pbs autoscale` turns queued PBS jobs into exactly the VMs
# they need — packing, placement groups, chunks, arrays — against ccsim and the
# fake PBS (tests/pbs/fakepbs; PBS itself cannot be installed here).
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/ccsim.sh"
. "$(dirname "$0")/../lib/pbs.sh"
command -v python3 >/dev/null || test_skip_all "python3 is needed by the fake PBS"

vms () {  # VMs in ccsim of a nodearray
    ccsim_get /ccsim/state | jq --arg na "$1" '[.nodes[] | select(.Template == $na)] | length'
}

qmgr_calls () {
    fakepbs state | jq "[.invocations[] | select(.[0] == \"qmgr\")] | length"
}

vms_preparing_are () {  # N VMs Preparing, their hostname and address reported
    test "$(ccsim_get /ccsim/state | jq "[.nodes[] | select(.Status == \"Preparing\" and .Hostname != null and .PrivateIp != null)] | length")" = "$1"
}

# (the qmgr calls are counted from here: under valgrind the VMs may be Ready,
# and joined, by the second pass already)
test_expect_success 'start ccsim and the fake PBS' '
    pbs_start
'

test_expect_success 'single-core jobs pack onto the fewest nodes' '
    for i in 1 2 3 4; do fakepbs qsub -l select=1:ncpus=1 >/dev/null || return 1; done &&
    pbs_pass &&
    test_equal "$(vms execute)" 2 "execute VMs for four 1-core jobs on 2-core nodes" &&
    test_equal "$(jq "[.jobs[] | select(.matched)] | length" pass.out)" 4 "jobs matched"
'

test_expect_success 'a second pass creates nothing more for the same jobs (they wait for booting nodes)' '
    pbs_pass &&
    test_equal "$(vms execute)" 2 "execute VMs" &&
    test_equal "$(ccsim_requests "POST .*/nodes/create" | wc -l)" 1 "create requests"
'

# the VMs are held Preparing (their hostname and address reported), as
# CycleCloud holds a VM while its setup runs
test_expect_success 'booting VMs get their vnode at once: one create node with every resource and the marker, offline' '
    pbs_reset && ccsim_post /ccsim/config "{\"hold_preparing\": true}" >/dev/null &&
    for i in 1 2 3 4; do fakepbs qsub -l select=1:ncpus=1 >/dev/null || return 1; done &&
    pbs_pass && wait_for 120 vms_preparing_are 2 && qmgr_calls >qmgr.before &&
    pbs_pass &&
    test_equal "$(($(qmgr_calls) - $(cat qmgr.before)))" 1 "qmgr calls for two creates" &&
    fakepbs state >st.json &&
    test_equal "$(jq -r "[.nodes[] | select(.resources_available.ccnodeid != null)] | length" st.json)" 2 "registered" &&
    test_equal "$(jq -r ".nodes[\"execute-1\"].resources_available | [.ncpus, .mem, .slot_type, .vm_size, .ungrouped, .group_id, .nodearray] | @tsv" st.json)" \
        "2	4194304kb	execute	Standard_F2s_v2	true	_none_	execute" "execute-1 resources" &&
    test_equal "$(jq -r ".nodes[\"execute-1\"].resources_available.ccnodeid" st.json)" \
        "$(ccsim_get /ccsim/state | jq -r ".nodes[] | select(.Name == \"execute-1\") | .NodeId")" "the marker: its node id" &&
    test_equal "$(jq -r ".nodes[\"execute-1\"] | [.state, .comment] | @tsv" st.json)" "offline	cyclecloud joined" "execute-1" &&
    jq -r ".calls[] | join(\" \")" st.json | grep "execute-1" >calls &&
    test_equal "$(sed "s/ = [^,]*//g; s/resources_available\.//g" calls)" \
"qmgr - create node execute-1 state, comment, ncpus, mem, ngpus, slot_type, vm_size, nodearray, group_id, ungrouped, instance_id, ccnodeid" \
        "the vnode made in one create node (never a vnode without its id)" &&
    test_equal "$(fakepbs sched)" 0 "jobs PBS starts on nodes still booting" &&
    test_equal "$(jq "[.jobs[] | select(.matched)] | length" pass.out)" 4 "jobs matched (to the booting VMs)" &&
    test_equal "$(ccsim_requests "POST .*/nodes/create" | wc -l)" 1 "create requests (none for the vnodes still booting)"
'

test_expect_success 'Ready, their moms reported: online in the next pass, in one qmgr call; PBS runs the jobs' '
    for n in execute-1 execute-2; do ccsim_post "/ccsim/nodes/$n/ready" >/dev/null || return 1; done &&
    ccsim_wait_ready 20 && qmgr_calls >qmgr.before &&
    pbs_pass &&
    test_equal "$(($(qmgr_calls) - $(cat qmgr.before)))" 1 "qmgr calls to put two nodes online" &&
    fakepbs state >st.json &&
    test_equal "$(jq -r ".nodes[\"execute-1\"] | [.state, .comment] | @tsv" st.json)" "free	cyclecloud restored" "execute-1" &&
    jq -r ".calls[] | join(\" \")" st.json | grep "execute-1" | tail -n 1 >calls &&
    test_equal "$(cat calls)" "qmgr - set node execute-1 state -= offline, comment = \"cyclecloud restored\"" "the online" &&
    test_equal "$(fakepbs sched)" 4 "jobs PBS starts on the joined nodes (one placement set: group_id _none_)" &&
    ccsim_post /ccsim/config "{\"hold_preparing\": false}" >/dev/null
'

test_expect_success 'select=4:ncpus=120 with place=scatter:excl:group=group_id lands in one placement group, put online whole' '
    pbs_reset && fakepbs qsub -l select=4:ncpus=120 -l place=scatter:excl:group=group_id >/dev/null &&
    pbs_pass &&
    test_equal "$(vms hpc)" 4 "hpc VMs" &&
    test_equal "$(ccsim_get /ccsim/state | jq "[.nodes[] | select(.Template == \"hpc\") | .PlacementGroupId] | unique | length")" 1 "placement groups" &&
    test_equal "$(ccsim_get /ccsim/state | jq -r "[.nodes[] | select(.Template == \"hpc\") | .PlacementGroupId][0] // \"\"" | grep -c .)" 1 "in a named group" &&
    ccsim_post /ccsim/config "{\"hold_preparing\": true}" >/dev/null &&
    wait_for 120 vms_preparing_are 4 && pbs_pass &&
    for n in hpc-1 hpc-2 hpc-3; do ccsim_post "/ccsim/nodes/$n/ready" >/dev/null || return 1; done &&
    wait_for 120 sh -c "test \"\$(curl -s $CCSIM_URL/ccsim/state | jq \"[.nodes[] | select(.Status == \\\"Ready\\\")] | length\")\" = 3" &&
    pbs_pass &&
    test_equal "$(fakepbs state | jq -r "[.nodes[] | [.state, .comment] | join(\" \")] | unique | join(\",\")")" \
        "offline cyclecloud joined" "three Ready, one booting: the group is held offline" &&
    test_equal "$(fakepbs sched)" 0 "jobs PBS starts on a group not yet whole" &&
    ccsim_post "/ccsim/nodes/hpc-4/ready" >/dev/null && ccsim_wait_ready 20 &&
    pbs_pass &&
    test_equal "$(fakepbs state | jq -r "[.nodes[] | .state] | unique | join(\",\")")" free "the group online, together" &&
    pg=$(ccsim_get /ccsim/state | jq -r "[.nodes[] | select(.Template == \"hpc\") | .PlacementGroupId] | unique | join(\" \")") &&
    test -n "$pg" &&
    test_equal "$(fakepbs state | jq -r "[.nodes[] | .resources_available.group_id // \"null\"] | unique | join(\" \")")" "$pg" \
        "group_id PBS sees: the placement group ccsim made" &&
    test_equal "$(fakepbs sched)" 1 "the MPI job starts" &&
    ccsim_post /ccsim/config "{\"hold_preparing\": false}" >/dev/null
'

# the hpc nodes above are idle, joined and in a placement group (ungrouped=false):
# PBS never runs an ungrouped=true job there, so it needs a node of its own
test_expect_success 'a job one placement group cannot hold is never split: pbs demand says what one holds' '
    pbs_reset && fakepbs qsub -l select=5:ncpus=120 -l place=scatter:excl:group=group_id >/dev/null &&
    "$CCAS" pbs demand --json >demand.json &&
    jq -r ".jobs[0].reason" demand.json |
        grep "^needs 5 nodes in one placement group of hpc/Standard_HB120rs_v3; one holds 4 (maxPlacementGroupSize 4)$" &&
    test_equal "$(jq ".create | length" demand.json)" 0 "create sets"
'

test_expect_success 'an ungrouped=true job gets a new node outside any placement group, not an idle grouped one' '
    fakepbs finish 1.fakeserver && ccsim_delete /ccsim/requests >/dev/null &&
    fakepbs qsub -l select=1:ncpus=1:ungrouped=true >/dev/null &&
    pbs_pass &&
    test_equal "$(ccsim_requests "POST .*/nodes/create" | wc -l)" 1 "create requests" &&
    test_equal "$(ccsim_get /ccsim/state | jq -r "[.nodes[] | select(.PlacementGroupId == null) | .Template] | join(\" \")")" \
        execute "new nodes outside a placement group" &&
    test_equal "$(fakepbs sched)" 0 "jobs PBS starts before the new node joins" &&
    ccsim_wait_ready 120 && pbs_pass && pbs_pass &&
    test_equal "$(fakepbs sched)" 1 "the job starts on the new node" &&
    fakepbs state | jq -e ".jobs[\"2.fakeserver\"].exec_host | startswith(\"execute-\")"
'

test_expect_success 'a multi-chunk job gets exactly its chunks: 2 x ncpus=2 and 1 x 1 GPU' '
    pbs_reset && fakepbs qsub -l select=2:ncpus=2+1:ncpus=4:ngpus=1 >/dev/null &&
    pbs_pass &&
    test_equal "$(vms execute)" 2 "execute VMs" &&
    test_equal "$(vms gpu)" 1 "gpu VMs" &&
    test_equal "$(vms hpc)" 0 "hpc VMs"
'

test_expect_success 'an array job of 100 subjobs: 50 two-core nodes in one create request' '
    pbs_reset && ccsim_delete /ccsim/requests >/dev/null &&
    fakepbs qsub -J 1-100 -l select=1:ncpus=1 >/dev/null &&
    pbs_pass &&
    test_equal "$(jq ".jobs | length" pass.out)" 100 "subjobs seen (the parent is not a job)" &&
    test_equal "$(vms execute)" 50 "execute VMs" &&
    test_equal "$(ccsim_requests "POST .*/nodes/create" | wc -l)" 1 "create requests"
'

test_expect_success 'a job no bucket can ever run gets a clear reason from pbs demand and pbs analyze' '
    pbs_reset && id=$(fakepbs qsub -l select=1:ncpus=1000) &&
    "$CCAS" pbs demand --json >demand.json &&
    test_equal "$(jq -r ".jobs[0].matched" demand.json)" false "matched" &&
    jq -r ".jobs[0].reason" demand.json | grep "ncpus: needs 1000" &&
    test_equal "$(vms execute)" 0 "VMs created by a dry run" &&
    "$CCAS" pbs analyze --job "$id" >analyze.out &&
    grep "not matched" analyze.out && grep "hpc.*Standard_HB120rs_v3.*no.*ncpus: needs 1000" analyze.out
'

test_expect_success 'a job whose select cannot be read gets its reason from pbs demand and pbs analyze' '
    pbs_reset && id=$(fakepbs qsub -l select=2:ncpus) &&
    fakepbs qsub -l select=1:ncpus=1 >/dev/null &&
    "$CCAS" pbs demand --json >demand.json &&
    jq -r ".jobs[] | select(.id == \"$id\") | .reason" demand.json >reason &&
    grep "^PBS job cannot be read: select: chunk 1: .ncpus.: expected resource=value (select .2:ncpus.)" reason &&
    test_equal "$(jq "[.jobs[] | select(.matched)] | length" demand.json)" 1 "the job behind it matched" &&
    "$CCAS" pbs analyze --job "$id" >analyze.out &&
    grep "why not: PBS job cannot be read: select: chunk 1" analyze.out
'

test_expect_success 'a size in words as PBS writes it' '
    pbs_reset && fakepbs qsub -l select=1:ncpus=1:mem=1gw >/dev/null &&
    pbs_pass &&
    test_equal "$(ccsim_get /ccsim/state | jq -r "[.nodes[].MachineType] | join(\" \")")" Standard_F4s_v2 \
        "mem=1gw is 8 GiB: the 8 GiB machine type"
'

test_expect_success 'older PBS Professional: a job with the """ quirk and a warning before the JSON do not break the pass' '
    pbs_reset && fakepbs set warn true && fakepbs set oldpro true &&
    fakepbs qsub -a "pset=group_id=\"\"" -l select=1:ncpus=1 >/dev/null &&
    fakepbs qsub -l select=1:ncpus=1 >/dev/null &&
    "$TEST_TMP/pbsbin/qstat" -f -t -F json | grep -F "\"pset\":\"group_id=\"\"\"" &&
    pbs_pass &&
    test_equal "$(jq "[.jobs[] | select(.matched)] | length" pass.out)" 2 "jobs matched" &&
    test_equal "$(jq .pbs_jobs.skipped pass.out)" 0 "jobs skipped" &&
    fakepbs set warn false && fakepbs set oldpro false
'

test_expect_success 'OpenPBS: a tab after the colon, values typed (a numeric comment and Job_Name, true), quotes escaped' '
    pbs_reset && fakepbs qsub -a "comment=123" -a "Job_Name=true" -a "note=say \"hi\"" -l select=1:ncpus=1 >/dev/null &&
    "$TEST_TMP/pbsbin/qstat" -f -t -F json >q.json && grep -P "\"comment\":\t123,$" q.json && grep -P "\"Job_Name\":\ttrue,$" q.json &&
    grep -F "say \\\"hi\\\"" q.json &&
    pbs_pass &&
    test_equal "$(jq "[.jobs[] | select(.matched)] | length" pass.out)" 1 "jobs matched"
'

test_expect_success 'no capacity for the first machine type: the bucket is held and the same run tries the second' '
    pbs_reset && fakepbs qsub -l select=1:ncpus=1 >/dev/null &&
    ccsim_fault "{\"kind\": \"capacity\", \"machine_type\": \"Standard_F2s_v2\", \"count\": 1}" &&
    pbs_pass &&
    test_equal "$(ccsim_get /ccsim/state | jq -r "[.nodes[].MachineType] | join(\" \")")" Standard_F4s_v2 "machine type" &&
    jq -e ".\"execute/Standard_F2s_v2\".class == \"capacity\"" "$TEST_TMP/state/holds.json" &&
    grep "execute/Standard_F2s_v2: held back for 300 s: ccautoscale: capacity: " "$TEST_TMP/ccautoscale.log" &&
    grep "1 node lost to capacity or quota: asking for 1 in 1 other set" "$TEST_TMP/ccautoscale.log" &&
    jq -e ".summary" pass.out >/dev/null &&
    "$CCAS" pbs demand --json | jq -e ".jobs | length == 0 or all(.matched)"
'

test_expect_success 'no capacity anywhere a job may go: the job and an array say why in their comment (the array on its own id)' '
    pbs_reset && id=$(fakepbs qsub -l select=1:ncpus=1:slot_type=execute) &&
    arr=$(fakepbs qsub -J 1-3 -l select=1:ncpus=1:slot_type=execute) &&
    ccsim_fault "{\"kind\": \"capacity\", \"machine_type\": \"Standard_F2s_v2\", \"count\": -1}" &&
    ccsim_fault "{\"kind\": \"capacity\", \"machine_type\": \"Standard_F4s_v2\", \"count\": -1}" &&
    test_expect_code 4 pbs_pass &&
    fakepbs state >st.json &&
    jq -r --arg id "$id" ".jobs[\$id].comment" st.json | grep "^ccautoscale: could not get a node: execute/Standard_F4s_v2: " &&
    jq -r ".jobs[\"${arr%\[\]*}[2]${arr#*\[\]}\"].comment" st.json | grep "^ccautoscale: " &&
    test_equal "$(jq "[.calls[] | select(.[0] == \"qalter\") | .[3:][] | select(test(\"\\\\[[0-9]\"))] | length" st.json)" 0 \
        "subjobs named to qalter" &&
    ccsim_delete /ccsim/faults >/dev/null
'

test_expect_success 'unparseable qstat output: the pass stops, changes nothing and says why' '
    pbs_reset && ccsim_delete /ccsim/requests >/dev/null &&
    fakepbs qsub -l select=1:ncpus=1 >/dev/null && fakepbs set garbage true &&
    test_expect_code 5 pbs_pass &&
    grep "qstat: not valid JSON at byte" pass.err && grep "nothing changed" pass.err &&
    test_equal "$(ccsim_requests "POST" | wc -l)" 0 "changing requests" &&
    fakepbs set garbage false
'

test_done
