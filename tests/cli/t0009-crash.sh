#!/bin/bash
# SPDX-License-Identifier: MIT
# t0009-crash.sh: crash consistency of `demand --apply`.  The run is killed
# with SIGKILL at each step — before the create is sent, while the server
# carries it out but before the answer arrives, after the answer before
# anything is recorded, while a state file is being replaced, before and
# after a terminate — and run again.  ccsim's request log and state prove the
# outcome: every wanted node exists exactly once, no VM was ever made beyond
# those (a create whose answer was lost included), none is left over, and the
# state files are whole.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/ccsim.sh"
CCAS=$(test_program "$top_builddir/plugin/ccautoscale")
export CCAUTOSCALE_CONFIG=$TEST_TMP/autoscale.json
WANT="hpc 2 htc 2"   # nodes per nodearray the jobs need

cat >"$TEST_TMP/jobs.json" <<'JOBS'
[{"id": "serial", "node_count": 2, "packing": "scatter", "constraints": {"ncpus": 2, "node.nodearray": "htc"}},
 {"id": "mpi", "node_count": 2, "colocated": true, "exclusive": true, "constraints": {"node.nodearray": "hpc"}}]
JOBS

fresh () {
    [ -z "${CCSIM_PID:-}" ] || ccsim_stop
    rm -rf "$TEST_TMP/state" &&
    ccsim_start "$CCSIM_CLUSTERS/small.json" --boot-delay 0.5 &&
    ccsim_write_config "$CCAUTOSCALE_CONFIG"
}

apply () {
    "$CCAS" demand --jobs "$TEST_TMP/jobs.json" --apply >apply.out 2>&1
}

# the outcome, after a kill and as many re-runs as it takes to settle (two);
# $1 VMs made in all since ccsim started (default 4: the jobs' nodes)
settled () {
    apply && apply &&
    test_equal "$(ccsim_get /ccsim/state | jq -r '[.nodes | group_by(.Template)[] | "\(.[0].Template) \(length)"] | join(" ")')" \
        "$WANT" "VMs per nodearray" &&
    test_equal "$(ccsim_made | wc -l)" "${1:-4}" "VMs made (ccsim's request log)" &&
    test_equal "$(ccsim_made | sort | uniq -d)" "" "names made twice (ccsim's request log)" &&
    test_equal "$(ccsim_get /ccsim/state | jq '[.nodes[] | select(.Template == "hpc") | .PlacementGroupId] | unique | length')" 1 \
        "placement groups of the MPI job" &&
    ccsim_state_whole &&
    test_equal "$(state_entries "$TEST_TMP/state/requests.json" | jq "length")" 0 "create requests still pending"
}

killed_at () {  # run demand --apply with a failpoint; it must die of SIGKILL there
    test_expect_code 137 env CCAUTOSCALE_FAILPOINT="$1" "$CCAS" demand --jobs "$TEST_TMP/jobs.json" --apply \
        >killed.out 2>&1 &&
    grep "failpoint $1" "$TEST_TMP/ccautoscale.log"
}

creates () {  # create requests that reached the server and were carried out
    ccsim_requests "POST .*/nodes/create 20[02]" | wc -l
}

test_expect_success 'killed after the requestId is recorded, before the create is sent: the re-run creates once' '
    fresh && killed_at create:before-send &&
    test_equal "$(ccsim_node_count)" 0 "VMs after the kill" &&
    test_equal "$(state_entries "$TEST_TMP/state/requests.json" | jq "length")" 1 "request recorded" &&
    settled &&
    test_equal "$(creates)" 1 "creates carried out" &&
    grep "never reached the server" "$TEST_TMP/ccautoscale.log"
'

test_expect_success 'killed while the server carries the create out, before its answer: the re-run finds it by request id' '
    fresh &&
    ccsim_kill_in_flight nodes/create "$CCAS" demand --jobs "$TEST_TMP/jobs.json" --apply &&
    test_equal "$(ccsim_node_count)" 4 "VMs made by the request whose answer was lost" &&
    settled &&
    test_equal "$(creates)" 1 "creates carried out" &&
    grep "made 4 nodes" "$TEST_TMP/ccautoscale.log"
'

test_expect_success 'killed after the answer, before anything is recorded: nothing is created again' '
    fresh && killed_at create:after-reply &&
    test_equal "$(ccsim_node_count)" 4 "VMs after the kill" &&
    settled &&
    test_equal "$(creates)" 1 "creates carried out"
'

test_expect_success 'killed while replacing a state file: the old file stays whole, nothing is sent, the re-run creates once' '
    fresh && mkdir -p "$TEST_TMP/state" && echo "{}" >"$TEST_TMP/state/requests.json" &&
    killed_at state:before-rename &&
    test_equal "$(jq -c . "$TEST_TMP/state/requests.json")" "{}" "requests.json after the kill" &&
    test_equal "$(ccsim_node_count)" 0 "VMs after the kill" &&
    settled &&
    test_equal "$(creates)" 1 "creates carried out"
'

test_expect_success 'a failed VM: killed before and after its terminate is sent; the re-run finishes, the rest stay' '
    victim=$(ccsim_get /ccsim/state | jq -r "[.nodes[] | select(.Template == \"htc\")][0].Name") &&
    ccsim_post "/ccsim/nodes/$victim/fail" >/dev/null &&
    killed_at action:before-send &&
    test_equal "$(ccsim_get /ccsim/state | jq -r --arg n "$victim" "[.nodes[] | select(.Name == \$n)] | length")" 1 "victim still there" &&
    : >"$TEST_TMP/ccautoscale.log" && killed_at action:after-reply &&
    "$CCAS" demand --jobs "$TEST_TMP/jobs.json" --apply >after.out 2>&1 &&
    wait_for 60 sh -c "test \$(curl -s $CCSIM_URL/ccsim/state | jq -r --arg n \"$victim\" \"[.nodes[] | select(.Name == \\\$n)] | length\") = 0" &&
    settled 5 &&
    ccsim_acted_once terminate "$victim"
'

test_done
