#!/bin/bash
# SPDX-License-Identifier: MIT
# t0104-crash.sh: crash consistency of `pbs autoscale`.  A pass is killed with
# SIGKILL at each step — while it records its create request, before the
# create is sent, while the server carries it out but before its answer,
# after the answer before anything is recorded, before a node's vnode is
# created and before it is put online, and for a drained node between its
# deletion from PBS and its VM's terminate, while the terminate is carried
# out, and after its answer — and the hook's next passes finish the work:
# every wanted VM was made once (ccsim's request log, lost answers included)
# and is joined once, no PBS node is left without its VM and no VM without
# its PBS node, each terminate is carried out once, and every state file is whole.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/ccsim.sh"
. "$(dirname "$0")/../lib/pbs.sh"
command -v python3 >/dev/null || test_skip_all "python3 is needed by the fake PBS"

killed_at () {
    test_expect_code 137 env CCAUTOSCALE_FAILPOINT="$1" "$CCAS" pbs autoscale >killed.out 2>&1 &&
    grep "failpoint $1" "$TEST_TMP/ccautoscale.log" >/dev/null
}

creates () {
    ccsim_requests "POST .*/nodes/create 20[02]" | wc -l
}

vms () {
    ccsim_get /ccsim/state | jq -r '[.nodes[].Name] | sort | join(" ")'
}

joined () {  # PBS nodes carrying the marker of a VM ccsim has
    fakepbs state | jq -r '[.nodes | to_entries[] | select(.value.resources_available.ccnodeid != null) | .key] | sort | join(" ")'
}

# VMs and PBS nodes agree, one to one, every PBS node joined; the log's
# creates made exactly the VMs wanted ($2, default $1), none twice
consistent () {
    test_equal "$(vms)" "$1" "VMs" &&
    ccsim_made_once "${2-$1}" &&
    test_equal "$(joined)" "$1" "joined PBS nodes" &&
    test_equal "$(fakepbs state | jq -r '[.nodes | keys[]] | sort | join(" ")')" "$1" "PBS nodes" &&
    ccsim_state_whole
}

# a node that ran a job and sat idle past idle_timeout: a pass drained it.
# idle_timeout is an hour (pbs_start) until the job is done, then 0, and
# passes run until one drains it (pbs_reset brings the hour back)
drained_node () {
    pbs_reset && fakepbs qsub -l select=1:ncpus=2 >/dev/null && pbs_pass && ccsim_wait_ready 120 && pbs_pass && pbs_pass &&
    test_equal "$(fakepbs sched)" 1 "the job runs" && pbs_pass &&
    fakepbs finish 1.fakeserver && ccsim_config_update "$CCAS_CONF" ".idle_timeout = 0" &&
    wait_for 60 drained execute-1
}

drained () {
    pbs_pass && test "$(pbs_node_state "$1")" = offline
}

settle () {  # the hook's next passes, until the VMs booted and joined
    pbs_pass && ccsim_wait_ready && pbs_pass && pbs_pass
}

test_expect_success 'killed while recording its create request: files whole, and the next pass creates once' '
    pbs_start &&
    fakepbs qsub -l select=2:ncpus=2 -l place=scatter >/dev/null &&
    killed_at state:before-rename && ccsim_state_whole &&
    test_equal "$(ccsim_node_count)" 0 "VMs after the kill" &&
    settle && consistent "execute-1 execute-2" &&
    test_equal "$(creates)" 1 "creates carried out"
'

test_expect_success 'killed before the create is sent: the next pass creates once' '
    pbs_reset &&
    fakepbs qsub -l select=2:ncpus=2 -l place=scatter >/dev/null &&
    killed_at create:before-send &&
    test_equal "$(ccsim_node_count)" 0 "VMs after the kill" &&
    settle && consistent "execute-1 execute-2" &&
    test_equal "$(creates)" 1 "creates carried out"
'

test_expect_success 'killed while the server carries the create out, before its answer: the next pass finds it, creates nothing' '
    pbs_reset && fakepbs qsub -l select=2:ncpus=2 -l place=scatter >/dev/null &&
    ccsim_kill_in_flight nodes/create "$CCAS" pbs autoscale &&
    test_equal "$(ccsim_node_count)" 2 "VMs made by the request whose answer was lost" &&
    settle && consistent "execute-1 execute-2" &&
    test_equal "$(creates)" 1 "creates carried out"
'

test_expect_success 'killed after the create was answered: nothing is created twice' '
    pbs_reset && fakepbs qsub -l select=2:ncpus=2 -l place=scatter >/dev/null &&
    killed_at create:after-reply &&
    test_equal "$(ccsim_node_count)" 2 "VMs after the kill" &&
    settle && consistent "execute-1 execute-2" &&
    test_equal "$(creates)" 1 "creates carried out"
'

test_expect_success 'killed before its vnodes are created and put online: nothing half-made; the next passes join it whole' '
    pbs_reset && fakepbs qsub -l select=1:ncpus=2 >/dev/null && pbs_pass && ccsim_wait_ready 120 &&
    killed_at pbs:before-joins &&
    test_equal "$(pbs_node_state execute-1)" "" "PBS node after the kill" &&
    pbs_pass && killed_at pbs:before-joins &&
    test_equal "$(fakepbs state | jq -r ".nodes[\"execute-1\"] | [.state, .comment, (.resources_available.ccnodeid != null)] | map(tostring) | join(\" \")")" \
        "offline cyclecloud joined true" "created with its marker, offline, not yet online" &&
    test_equal "$(fakepbs sched)" 0 "jobs PBS starts on it" &&
    pbs_pass && consistent "execute-1" &&
    test_equal "$(pbs_node_state execute-1)" free "online after the next pass" &&
    test_equal "$(fakepbs state | jq -r "[.calls[] | select(.[0] == \"qmgr\" and (.[2] | test(\"create node execute-1\")))] | length")" 1 \
        "qmgr create node calls (one)"
'

gone () {  # the drained node's VM is gone, terminated once; PBS has no node
    wait_for 60 sh -c "test \$(curl -s $CCSIM_URL/ccsim/state | jq \".nodes | length\") = 0" &&
    consistent "" "execute-1" &&
    ccsim_acted_once "" "execute-1"
}

test_expect_success 'a drained node: killed after its PBS deletion, before its VM is terminated; the next pass finishes, both end empty' '
    drained_node &&
    killed_at action:before-send &&
    test_equal "$(pbs_node_state execute-1)" "" "deleted from PBS before its VM goes" &&
    test_equal "$(ccsim_node_count)" 1 "VM still there after the kill" &&
    pbs_pass && gone
'

test_expect_success 'a drained node: killed while the server terminates its VM, before the answer; the next pass terminates nothing again' '
    drained_node &&
    ccsim_kill_in_flight nodes/terminate "$CCAS" pbs autoscale &&
    pbs_pass && pbs_pass && gone
'

test_expect_success 'a drained node: killed after its terminate was answered; the next pass terminates nothing again' '
    drained_node &&
    killed_at action:after-reply &&
    pbs_pass && pbs_pass && gone
'

test_done
