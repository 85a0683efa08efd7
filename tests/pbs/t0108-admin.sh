#!/bin/bash
# SPDX-License-Identifier: MIT
# t0108-admin.sh: the administrator's PBS commands azpbs users reach for,
# against ccsim and the fake PBS — pbs nodes (CycleCloud and PBS side by
# side), offline and online (the comments azpbs wrote; a pass leaves the
# administrator's offline alone), remove-nodes (busy refused; without
# --permanent joined again; with it kept out: never joined nor terminated)
# and join-nodes, retry-failed (CycleCloud's retry, the VM booting again),
# terminate of a PBS node (drained and deleted from PBS first, a busy one
# refused unless --force), and validate (a failure and its fix, then none).
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/ccsim.sh"
. "$(dirname "$0")/../lib/pbs.sh"
command -v python3 >/dev/null || test_skip_all "python3 is needed by the fake PBS"

node () {  # state and comment of PBS node $1, tab-separated; "" when PBS has none
    fakepbs state | jq -r --arg n "$1" '.nodes[$n] // empty | [.state, .comment // "-"] | @tsv'
}

role () {  # what pbs nodes says of VM $1
    "$CCAS" pbs nodes --json | jq -r --arg n "$1" '.[] | select(.name == $n) | .ccautoscale'
}

online_nodes_are () {
    test "$(fakepbs state | jq '[.nodes[] | select(.state == "free" or (.state | test("job")))] | length')" = "$1"
}

idle_timeout () {  # the configuration's idle_timeout, now
    jq ".idle_timeout = $1" "$CCAS_CONF" >conf.tmp && cat conf.tmp >"$CCAS_CONF"
}

test_expect_success 'setup: two VMs joined and online, one running a job' '
    pbs_start "" ".idle_timeout = 3600" &&
    fakepbs qsub -l select=1:ncpus=2 >/dev/null && fakepbs qsub -l select=1:ncpus=2 >/dev/null &&
    pbs_pass && ccsim_wait_ready 20 && pbs_pass && pbs_pass &&
    online_nodes_are 2 && test_equal "$(fakepbs sched)" 2 "jobs started" && fakepbs finish 2.fakeserver
'

test_expect_success 'pbs nodes: each VM with its PBS node, state, jobs and what ccautoscale makes of it' '
    "$CCAS" pbs nodes >nodes.out &&
    head -n 1 nodes.out | grep "^NAME  *HOST  *STATUS  *PBS  *JOBS  *NODEARRAY  *GROUP  *COMMENT  *CCAUTOSCALE" &&
    grep "^execute-1 .* Ready .* job-busy  *1 .*execute .*busy$" nodes.out &&
    fakepbs qmgr "create node onprem-1" &&
    "$CCAS" pbs nodes --json >nodes.json &&
    test_equal "$(jq -r ".[] | select(.host == \"onprem-1\") | [.name, .ccautoscale] | @tsv" nodes.json)" \
        "	not CycleCloud'"'"'s" "a node outside CycleCloud (no VM name)" &&
    test_equal "$(jq -r ".[] | select(.name == \"execute-2\") | [.pbs.state, .jobs, .ccautoscale] | @tsv" nodes.json)" \
        "free	0	idle" "execute-2"
'

test_expect_success 'pbs offline: cyclecloud keep offline, which no pass touches (not drained, deleted or put online)' '
    "$CCAS" pbs offline -H execute-2 -C "bad DIMM" &&
    test_equal "$(node execute-2)" "offline	cyclecloud keep offline: bad DIMM" "execute-2" &&
    idle_timeout 1 && sleep 2 && pbs_pass && pbs_pass && idle_timeout 3600 &&
    test_equal "$(node execute-2)" "offline	cyclecloud keep offline: bad DIMM" "execute-2 after passes" &&
    test_equal "$(ccsim_node_count)" 2 "VMs" &&
    test_equal "$(role execute-2)" "offline (the administrator'"'"'s)" "pbs nodes"
'

test_expect_success 'pbs online: online, cyclecloud restored; an unknown node changes nothing' '
    test_expect_code 1 "$CCAS" pbs online -H execute-2 -H nosuch-9 2>err &&
    grep "neither PBS nor CycleCloud has a node .nosuch-9.; nothing changed" err &&
    test_equal "$(node execute-2 | cut -f1)" offline "execute-2 after a refused online" &&
    "$CCAS" pbs online -N execute-2 -C "DIMM replaced" &&
    test_equal "$(node execute-2)" "free	cyclecloud restored: DIMM replaced" "execute-2"
'

test_expect_success 'pbs remove-nodes: a node running jobs is refused; an idle one goes from PBS, its VM stays, and joins again' '
    test_expect_code 1 "$CCAS" pbs remove-nodes -H execute-1 2>err &&
    grep "execute-1 runs 1 job: --force drains it anyway; nothing changed" err &&
    test_equal "$(node execute-1 | cut -f1)" job-busy "execute-1" &&
    "$CCAS" pbs remove-nodes -H execute-2 >out &&
    grep "the next pass joins them again" out &&
    test_equal "$(node execute-2)" "" "execute-2 in PBS" &&
    test_equal "$(ccsim_node_count)" 2 "VMs" &&
    pbs_pass && test_equal "$(node execute-2)" "offline	cyclecloud joined" "execute-2 created again"
'

test_expect_success 'pbs remove-nodes --permanent: kept out, never joined again nor terminated, even idle past idle_timeout' '
    "$CCAS" pbs remove-nodes -N execute-2 --permanent >out &&
    state_entries "$TEST_TMP/state/pbs_removed.json" | jq -e "to_entries | length == 1 and .[0].value.name == \"execute-2\"" &&
    test_equal "$(node execute-2)" "" "execute-2 in PBS" &&
    idle_timeout 1 && sleep 2 && pbs_pass && pbs_pass && idle_timeout 3600 &&
    test_equal "$(node execute-2)" "" "execute-2 in PBS after passes" &&
    test_equal "$(ccsim_node_count)" 2 "VMs (the kept-out one not terminated)" &&
    test_equal "$(role execute-2)" "kept out (pbs remove-nodes --permanent)" "pbs nodes"
'

test_expect_success 'pbs join-nodes: back in, its vnode made now' '
    "$CCAS" pbs join-nodes -N execute-2 >out &&
    grep "execute-2: no longer kept out of PBS" out && grep "execute-2: joined" out &&
    state_entries "$TEST_TMP/state/pbs_removed.json" | jq -e "length == 0" &&
    test_equal "$(node execute-2)" "offline	cyclecloud joined" "execute-2" &&
    "$CCAS" pbs join-nodes -N execute-2 >out && grep "execute-2: put online" out &&
    test_equal "$(node execute-2 | cut -f1)" free "execute-2 online"
'

test_expect_success 'pbs retry-failed: the Failed VM named, CycleCloud asked to retry, the VM boots again' '
    ccsim_post /ccsim/nodes/execute-2/fail "{\"message\": \"Software installation failure: cluster-init exited 2\"}" >/dev/null &&
    ccsim_delete /ccsim/requests >/dev/null &&
    "$CCAS" pbs retry-failed >out &&
    grep "^execute-2: Software installation failure: cluster-init exited 2$" out &&
    test_equal "$(ccsim_requests "POST /cloud/actions/retry/" | wc -l)" 1 "retry requests" &&
    ccsim_wait_ready 20 &&
    "$CCAS" pbs retry-failed >out && grep "no Failed VM" out &&
    test_equal "$(ccsim_requests "POST /cloud/actions/retry/" | wc -l)" 1 "retry requests when none failed"
'

test_expect_success 'terminate of a busy PBS node: refused, nothing changed; of an idle one: drained, deleted from PBS, then terminated' '
    ccsim_delete /ccsim/requests >/dev/null &&
    test_expect_code 1 "$CCAS" terminate --name execute-1 2>err &&
    grep "execute-1 runs 1 job in PBS: --force terminates it anyway" err &&
    test_equal "$(node execute-1 | cut -f1)" job-busy "execute-1" &&
    test_equal "$(ccsim_requests "POST" | wc -l)" 0 "changing requests" &&
    pbs_pass && pbs_pass && test_equal "$(node execute-2 | cut -f1)" free "execute-2 online again" &&
    fakepbs state | jq -r ".calls | length" >calls.before &&
    "$CCAS" terminate --name execute-2 >out &&
    grep "execute-2: drained and deleted from PBS" out &&
    test_equal "$(node execute-2)" "" "execute-2 in PBS" &&
    fakepbs state | jq -r ".calls[$(cat calls.before):][] | join(\" \")" | grep execute-2 >calls &&
    head -n 1 calls | grep "set node execute-2 state += offline, comment = \"ccautoscale: draining: terminate requested by" &&
    sed -n 2p calls | grep "delete node execute-2" &&
    ccsim_acted_once terminate execute-2
'

# (PBS will not delete a node while a job runs there: the job dies with its
# VM, which the fake plays by finishing it)
test_expect_success 'terminate --force of a busy node: drained, its VM goes; the next pass forgets what PBS kept' '
    "$CCAS" terminate --name execute-1 --force >out 2>err &&
    grep "execute-1: delete from PBS failed" err &&
    ccsim_acted terminate | grep -x execute-1 &&
    test_equal "$(node execute-1 | cut -f2)" "ccautoscale: draining: terminate requested by $(id -un)" "its comment" &&
    fakepbs finish 1.fakeserver && wait_for 10 sh -c "test \$(curl -s $CCSIM_URL/ccsim/state | jq \".nodes | length\") = 0" &&
    pbs_pass && test_equal "$(node execute-1)" "" "execute-1 in PBS" &&
    jq -e "[.pbs.forget[].node] == [\"execute-1\"]" pass.out
'

test_expect_success 'pbs validate: each failure with its fix (exit 5), then none once install-hook ran' '
    mkdir -p "$TEST_TMP/pbshome/sched_priv" && PBS_HOME=$TEST_TMP/pbshome && export PBS_HOME &&
    printf "%s\n" "resources: \"ncpus, mem, arch, host, vnode, aoe, eoe\"" >"$PBS_HOME/sched_priv/sched_config" &&
    test_expect_code 5 "$CCAS" pbs validate >validate.out &&
    grep "^FAIL  hooks  *the periodic hook .ccautoscale. is not installed" validate.out &&
    grep "^FAIL  sched_config  *its resources: line leaves out slot_type" validate.out &&
    grep "fix: in $PBS_HOME/sched_priv/sched_config make it: resources: " validate.out &&
    "$CCAS" pbs install-hook --hook-file "$top_srcdir/pbs_hook/ccautoscale_hook.py" >/dev/null 2>install.err &&
    grep -x "resources: .*" install.err >"$PBS_HOME/sched_priv/sched_config" &&
    "$CCAS" pbs validate --json >validate.json &&
    test_equal "$(jq "[.[] | select(.level == \"fail\")] | length" validate.json)" 0 "failures"
'

test_done
