#!/bin/bash
# SPDX-License-Identifier: MIT
# t0102-lifecycle.sh: nodes after they are created — joined once (created
# offline with everything, put online later; after a failed step taken up
# again, never half-joined and online), drained when idle, deleted from
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

# ngpus (a long in PBS) of 4000001 / 2 on execute nodes: a fraction, which qmgr
# refuses for a long, and large (C's %g would write 2e+06): written 2000000.
# idle_timeout is an hour until a test shortens it (ccsim_config_update), so
# that no node is drained before the test that wants it drained.
test_expect_success 'start ccsim and the fake PBS (idle_timeout an hour)' '
    pbs_start "" ".idle_timeout = 3600 | .default_resources = [{select: {\"node.nodearray\": \"execute\"}, name: \"ngpus\", value: 4000001, divide: 2}]" &&
    fakepbs qsub -l select=1:ncpus=2 >/dev/null && fakepbs qsub -l select=1:ncpus=2 >/dev/null &&
    pbs_pass && ccsim_wait_ready &&
    test_equal "$(ccsim_node_count)" 2 "VMs"
'

# PBS never starts a job on a node ccautoscale has not put online: it is
# created offline, with every resource and its marker in one create node,
# and put online by a later pass once Ready with its mom reported
offline_joined () {
    test_equal "$(fakepbs state | jq -r ".nodes[\"$1\"] | [.state, .comment, (.resources_available.ccnodeid != null), .resources_available.ngpus] | @tsv")" \
        "offline	cyclecloud joined	true	2000000" "$1 after $2"
}

test_expect_success 'a failing create leaves no node, a failing online the node offline; exit 5; the next pass goes on' '
    fakepbs fail qmgr "create node execute-2" 1 &&
    test_expect_code 5 pbs_pass &&
    grep "execute-2: joined failed: qmgr: injected failure" "$TEST_TMP/ccautoscale.log" &&
    test_equal "$(pbs_node_state execute-2)" "" "execute-2 after a failed create" &&
    offline_joined execute-1 "its create" &&
    pbs_pass && test_equal "$(pbs_node_state execute-1)" free "execute-1 after a second pass" &&
    offline_joined execute-2 "its create" &&
    fakepbs fail qmgr "set node execute-2" 1 && test_expect_code 5 pbs_pass &&
    offline_joined execute-2 "a failed online" &&
    test_equal "$(fakepbs sched)" 1 "jobs started: one, on execute-1" &&
    pbs_pass &&
    test_equal "$(pbs_node_state execute-2)" free "state" &&
    test_equal "$(fakepbs state | jq -r "[.calls[] | select(.[2] // \"\" | test(\"^create node execute-2\"))] | length")" 2 \
        "create calls for execute-2 (the failed one, then one)"
'

# idle_timeout 0 from here: a pass drains a node the moment it sees it idle
test_expect_success 'busy nodes are neither drained nor deleted, even with idle_timeout 0' '
    test_equal "$(fakepbs sched)" 1 "jobs started (the second, on execute-2)" &&
    ccsim_config_update "$CCAS_CONF" ".idle_timeout = 0" &&
    pbs_pass && pbs_pass &&
    test_equal "$(jq "[.pbs.drain[], .pbs.delete[]] | length" pass.out)" 0 "drains and deletes" &&
    test_equal "$(ccsim_node_count)" 2 "VMs"
'

# passes until one drains: the nodes were last busy in the pass above, so the
# first pass later than idle_timeout (0) drains them both, and a second pass
# would already delete them
drains () {
    pbs_pass && jq -e ".pbs.drain | length > 0" pass.out
}

test_expect_success 'an idle node is drained (offline, our comment), not terminated yet' '
    fakepbs finish 1.fakeserver && fakepbs finish 2.fakeserver &&
    wait_for 60 drains &&
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
    ccsim_acted "terminate" >terminated && grep -qx "execute-1" terminated && grep -qx "execute-2" terminated &&
    wait_for 60 sh -c "test \$(curl -s $CCSIM_URL/ccsim/state | jq \"[.nodes[] | select(.Name == \\\"execute-1\\\" or .Name == \\\"execute-2\\\")] | length\") = 0" &&
    test_equal "$(ccsim_requests "POST .*/nodes/create" | wc -l)" 1 "a new node for the new job"
'

# joined with idle_timeout an hour; idle and past idle_timeout (0 again) once
# the administrator has taken it offline
test_expect_success 'a node offline by the administrator is never drained, deleted or put online' '
    ccsim_config_update "$CCAS_CONF" ".idle_timeout = 3600" &&
    ccsim_wait_ready && pbs_pass &&
    node=$(fakepbs state | jq -r "[.nodes | keys[]][0]") && test -n "$node" &&
    "$TEST_TMP/pbsbin/pbsnodes" -o "$node" -C "bad DIMM, ticket 42" &&
    fakepbs finish 3.fakeserver && ccsim_config_update "$CCAS_CONF" ".idle_timeout = 0" && pbs_pass && pbs_pass &&
    test_equal "$(pbs_node_state "$node")" offline "state" &&
    test_equal "$(fakepbs state | jq -r --arg n "$node" ".nodes[\$n].comment")" "bad DIMM, ticket 42" "comment" &&
    test_equal "$(ccsim_node_count)" 1 "its VM"
'

test_expect_success 'a node whose VM failed is removed from PBS and from CycleCloud' '
    ccsim_post "/ccsim/nodes/$node/fail" >/dev/null &&
    pbs_pass &&
    test_equal "$(jq -r "[.pbs.delete[].node] | join(\" \")" pass.out)" "$node" "deleted from PBS" &&
    test_equal "$(pbs_node_state "$node")" "" "in PBS" &&
    wait_for 60 sh -c "test \$(curl -s $CCSIM_URL/ccsim/state | jq \".nodes | length\") = 0"
'

test_expect_success 'PBS nodes of ours whose VM has gone are deleted (the marker, or half-joined); others are left' '
    fakepbs qmgr "create node old-9" "set node old-9 resources_available.ccnodeid = gone-1234" \
        "create node half-7 state=offline, comment=\"ccautoscale: joining\"" "create node static-1" \
        "create node static-2 state=offline, comment=\"cyclecloud offline\"" &&
    pbs_pass &&
    test_equal "$(jq -r "[.pbs.forget[].node] | sort | join(\" \")" pass.out)" "half-7 old-9" "forgotten" &&
    test_equal "$(pbs_node_state old-9)" "" "old-9" &&
    test_equal "$(pbs_node_state half-7)" "" "half-7" &&
    test_equal "$(pbs_node_state static-1)" free "static-1" &&
    test_equal "$(pbs_node_state static-2)" offline "static-2 (a stock comment without a marker proves nothing)"
'

# pbsnodes, read first, is a file's cat here: the fake (a Python process) can
# take more than the 1 s limit on a loaded machine.  The pass must end well
# before the 60 s qstat would take (not within a time of its own: a busy
# machine stretches that).
test_expect_success 'a PBS command that hangs is killed at pbs.command_timeout and the pass changes nothing' '
    "$TEST_TMP/pbsbin/pbsnodes" -a -F json >"$TEST_TMP/nodes.json" &&
    printf "#!/bin/sh\nexec cat %s\n" "$TEST_TMP/nodes.json" >"$TEST_TMP/pbsbin/pbsnodes.fast" &&
    printf "#!/bin/sh\nexec sleep 60\n" >"$TEST_TMP/pbsbin/qstat.slow" &&
    chmod +x "$TEST_TMP/pbsbin/qstat.slow" "$TEST_TMP/pbsbin/pbsnodes.fast" &&
    mv "$TEST_TMP/pbsbin/pbsnodes.fast" "$TEST_TMP/pbsbin/pbsnodes" &&
    mv "$TEST_TMP/pbsbin/qstat" "$TEST_TMP/pbsbin/qstat.real" && mv "$TEST_TMP/pbsbin/qstat.slow" "$TEST_TMP/pbsbin/qstat" &&
    ccsim_config_update "$CCAS_CONF" ".pbs.command_timeout = 1" &&
    ccsim_delete /ccsim/requests >/dev/null &&
    start=$(date +%s) && test_expect_code 5 pbs_pass && end=$(date +%s) &&
    { test $((end - start)) -lt 30 || { echo "the pass took $((end - start)) s"; false; }; } &&
    test_grep "qstat: no answer within 1 s (killed)" pass.err &&
    test_equal "$(ccsim_requests "POST" | wc -l)" 0 "changing requests" &&
    mv "$TEST_TMP/pbsbin/qstat.real" "$TEST_TMP/pbsbin/qstat" && ln -sf "$FAKEPBS_BIN" "$TEST_TMP/pbsbin/pbsnodes"
'

test_done
