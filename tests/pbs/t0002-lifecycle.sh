#!/bin/bash
# SPDX-License-Identifier: MIT
# t0002-lifecycle.sh: nodes after they are created — joined once (and again
# after a failed qmgr call, never half-joined), drained when idle, deleted from
# PBS and CycleCloud once drained, never put back online while draining;
# failed VMs and stale registrations removed; the administrator's offline
# nodes left alone.  Against ccsim and the fake PBS.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/ccsim.sh"
. "$(dirname "$0")/../lib/pbs.sh"
command -v python3 >/dev/null || test_skip_all "python3 is needed by the fake PBS"

marker () {
    fakepbs state | jq -r --arg n "$1" '.nodes[$n].resources_available.ccnodeid // ""'
}

calls () {
    fakepbs state | jq -r '.calls[] | join(" ")'
}

test_expect_success 'start ccsim and the fake PBS (idle_timeout 3 s)' '
    pbs_start "" ".idle_timeout = 3" &&
    fakepbs qsub -l select=1:ncpus=2 >/dev/null && fakepbs qsub -l select=1:ncpus=2 >/dev/null &&
    pbs_pass && ccsim_wait_ready 20 &&
    test_equal "$(ccsim_node_count)" 2 "VMs"
'

test_expect_success 'a failing qmgr call leaves the node unjoined (no marker) and exits 5; the next pass joins it' '
    fakepbs fail qmgr "execute-2 resources_available.ncpus" 1 &&
    test_expect_code 5 pbs_pass &&
    grep "execute-2: joined failed" "$TEST_TMP/ccautoscale.log" &&
    test_equal "$(marker execute-2)" "" "marker after a failed join" &&
    test -n "$(marker execute-1)" &&
    pbs_pass &&
    test -n "$(marker execute-2)" &&
    test_equal "$(pbs_node_state execute-2)" free "state"
'

test_expect_success 'busy nodes are neither drained nor deleted' '
    test_equal "$(fakepbs sched)" 2 "jobs started" &&
    sleep 4 && pbs_pass &&
    test_equal "$(jq "[.pbs.drain[], .pbs.delete[]] | length" pass.out)" 0 "drains and deletes" &&
    test_equal "$(ccsim_node_count)" 2 "VMs"
'

# one pass only: the nodes were last busy in the pass above, so a pass more than
# idle_timeout later drains them, and a second pass would already delete them
test_expect_success 'an idle node is drained (offline, our comment), not terminated yet' '
    fakepbs finish 1.fakeserver && fakepbs finish 2.fakeserver &&
    sleep 4 && pbs_pass &&
    test_equal "$(jq -r "[.pbs.drain[].node] | sort | join(\" \")" pass.out)" "execute-1 execute-2" "drained" &&
    test_equal "$(pbs_node_state execute-1)" offline "state" &&
    fakepbs state | jq -r ".nodes[\"execute-1\"].comment" | grep "^ccautoscale: draining: idle for" &&
    test_equal "$(ccsim_node_count)" 2 "VMs still there"
'

test_expect_success 'a draining node is never put back online, even with new work queued' '
    calls | wc -l >before &&
    fakepbs qsub -l select=1:ncpus=1 >/dev/null &&
    ccsim_delete /ccsim/requests >/dev/null &&
    pbs_pass &&
    calls | tail -n +$(($(cat before) + 1)) >after &&
    ! grep "pbsnodes -r execute-[12]" after &&
    test_equal "$(jq -r "[.pbs.delete[].node] | sort | join(\" \")" pass.out)" "execute-1 execute-2" "deleted from PBS" &&
    test_equal "$(pbs_node_state execute-1)" "" "execute-1 in PBS" &&
    test_equal "$(ccsim_get /ccsim/state | jq -r "[.nodes[] | select(.Name == \"execute-1\" or .Name == \"execute-2\")] | length")" 0 "their VMs" &&
    test_equal "$(ccsim_requests "POST .*/nodes/create" | wc -l)" 1 "a new node for the new job"
'

test_expect_success 'a node offline by the administrator is never drained, deleted or put online' '
    ccsim_wait_ready 20 && pbs_pass &&
    node=$(fakepbs state | jq -r "[.nodes | keys[]][0]") && test -n "$node" &&
    "$TEST_TMP/pbsbin/pbsnodes" -o "$node" -C "bad DIMM, ticket 42" &&
    fakepbs finish 3.fakeserver && sleep 4 && pbs_pass && pbs_pass &&
    test_equal "$(pbs_node_state "$node")" offline "state" &&
    test_equal "$(fakepbs state | jq -r --arg n "$node" ".nodes[\$n].comment")" "bad DIMM, ticket 42" "comment" &&
    test_equal "$(ccsim_node_count)" 1 "its VM"
'

test_expect_success 'a node whose VM failed is removed from PBS and from CycleCloud' '
    ccsim_post "/ccsim/nodes/$node/fail" >/dev/null &&
    pbs_pass &&
    test_equal "$(jq -r "[.pbs.delete[].node] | join(\" \")" pass.out)" "$node" "deleted from PBS" &&
    test_equal "$(pbs_node_state "$node")" "" "in PBS" &&
    wait_for 10 sh -c "test \$(curl -s $CCSIM_URL/ccsim/state | jq \".nodes | length\") = 0"
'

test_expect_success 'a PBS node registered for a VM that has gone is deleted; nodes without the marker are left' '
    "$TEST_TMP/pbsbin/qmgr" -c "create node old-9" &&
    "$TEST_TMP/pbsbin/qmgr" -c "set node old-9 resources_available.ccnodeid = gone-1234" &&
    "$TEST_TMP/pbsbin/qmgr" -c "create node static-1" &&
    pbs_pass &&
    test_equal "$(jq -r "[.pbs.forget[].node] | join(\" \")" pass.out)" old-9 "forgotten" &&
    test_equal "$(pbs_node_state old-9)" "" "old-9" &&
    test_equal "$(pbs_node_state static-1)" free "static-1"
'

# pbsnodes is the pass's first PBS command, so the hang is met before any
# other fake command could itself take longer than the 1 s limit on a loaded host
test_expect_success 'a PBS command that hangs is killed at pbs.command_timeout and the pass changes nothing' '
    printf "#!/bin/sh\nexec sleep 60\n" >"$TEST_TMP/pbsbin/pbsnodes.slow" && chmod +x "$TEST_TMP/pbsbin/pbsnodes.slow" &&
    mv "$TEST_TMP/pbsbin/pbsnodes" "$TEST_TMP/pbsbin/pbsnodes.real" &&
    mv "$TEST_TMP/pbsbin/pbsnodes.slow" "$TEST_TMP/pbsbin/pbsnodes" &&
    jq ".pbs.command_timeout = 1" "$CCAS_CONF" >conf.tmp && cat conf.tmp >"$CCAS_CONF" &&
    ccsim_delete /ccsim/requests >/dev/null &&
    start=$(date +%s) && test_expect_code 5 pbs_pass && end=$(date +%s) &&
    { test $((end - start)) -lt 8 || { echo "the pass took $((end - start)) s"; false; }; } &&
    test_grep "pbsnodes: no answer within 1 s (killed)" pass.err &&
    test_equal "$(ccsim_requests "POST" | wc -l)" 0 "changing requests" &&
    mv "$TEST_TMP/pbsbin/pbsnodes.real" "$TEST_TMP/pbsbin/pbsnodes"
'

test_done
