#!/bin/bash
# SPDX-License-Identifier: MIT
# t0009-crash.sh: crash consistency of the Slurm programs.  Resume, suspend
# and sync are killed with SIGKILL at each step — before the request is sent,
# while the server carries it out but before its answer, after the answer
# before anything is recorded — and run again, as slurmctld and the sync timer
# would.  ccsim's request log and state prove that each node's VM exists
# exactly once, that nothing is left, and that a re-run never creates again.
# VMs here are records only (no slurmd): the programs are run by hand.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/ccsim.sh"
. "$(dirname "$0")/../lib/slurm.sh"
why=$(slurm_prereqs) || test_skip_all "$why"
CCAS=$top_builddir/plugin/ccautoscale
RESUME=$top_builddir/slurm_power/ccautoscale-resume
SUSPEND=$top_builddir/slurm_power/ccautoscale-suspend
export SLURM_RESUME_FILE=/nonexistent

killed_at () {  # killed_at POINT PROGRAM ARGS...: it must die of SIGKILL at POINT
    local point=$1
    shift
    test_expect_code 137 env CCAUTOSCALE_FAILPOINT="$point" "$@" >killed.out 2>&1 &&
    grep "failpoint $point" "$TEST_TMP/ccautoscale.log" >/dev/null
}

vms () {
    ccsim_get /ccsim/state | jq -r '[.nodes[].Name] | sort | join(" ")'
}

once () {  # no VM name alive twice, and the VMs are exactly $1
    test_equal "$(ccsim_get /ccsim/state | jq -r '.nodes[].Name' | sort | uniq -d)" "" "VMs alive twice" &&
    test_equal "$(vms)" "$1" "VMs"
}

test_expect_success 'start Slurm (no slurmd: VMs are records)' '
    SLURM_VM_HOOKS=0 SLURM_SUSPEND_TIME=3600 slurm_start "$top_srcdir/tests/slurm/cluster.json" &&
    export CCAUTOSCALE_CONFIG=$CCAS_CONF
' || slurm_dump

test_expect_success 'resume killed before its create is sent: the re-run creates each node once' '
    killed_at create:before-send "$RESUME" "htc-[1-2]" &&
    once "" &&
    "$RESUME" "htc-[1-2]" && once "htc-1 htc-2" &&
    test_equal "$(jq length "$TEST_TMP/state/requests.json")" 1 "the killed run'"'"'s record, left for sync to settle"
'

test_expect_success 'resume killed after the answer: the re-run finds the nodes and creates nothing' '
    ccsim_delete /ccsim/requests >/dev/null &&
    killed_at create:after-reply "$RESUME" "htc-[3-4]" &&
    once "htc-1 htc-2 htc-3 htc-4" &&
    "$RESUME" "htc-[3-4]" && once "htc-1 htc-2 htc-3 htc-4" &&
    test_equal "$(ccsim_requests "POST .*/nodes/create 20[02]" | wc -l)" 1 "creates carried out"
'

test_expect_success 'resume killed while the server carries its create out, before the answer: no second VM' '
    ccsim_delete /ccsim/requests >/dev/null &&
    ccsim_fault "{\"kind\": \"latency\", \"ms\": 5000, \"when\": \"after\", \"match\": \"nodes/create\", \"count\": 1}" &&
    { "$RESUME" "htc-5" >bg.out 2>&1 & pid=$!; } &&
    wait_for 10 sh -c "curl -s $CCSIM_URL/ccsim/requests | jq -e \"[.[] | select(.path | test(\\\"nodes/create\\\"))] | length == 1\"" &&
    kill -KILL $pid && { wait $pid; true; } &&
    "$RESUME" "htc-5" && once "htc-1 htc-2 htc-3 htc-4 htc-5" &&
    test_equal "$(ccsim_requests "POST .*/nodes/create 20[02]" | wc -l)" 1 "creates carried out"
'

test_expect_success 'suspend killed before its request is sent: nothing changed; the re-run removes them' '
    killed_at action:before-send "$SUSPEND" "htc-[1-2]" &&
    once "htc-1 htc-2 htc-3 htc-4 htc-5" &&
    "$SUSPEND" "htc-[1-2]" &&
    wait_for 10 sh -c "test \"\$(curl -s $CCSIM_URL/ccsim/state | jq -r \"[.nodes[].Name] | sort | join(\\\" \\\")\")\" = \"htc-3 htc-4 htc-5\""
'

test_expect_success 'suspend killed after the answer: the VMs are gone; the re-run is harmless' '
    killed_at action:after-reply "$SUSPEND" "htc-[3-4]" &&
    wait_for 10 sh -c "test \"\$(curl -s $CCSIM_URL/ccsim/state | jq -r \"[.nodes[].Name] | join(\\\" \\\")\")\" = htc-5" &&
    "$SUSPEND" "htc-[3-4]" && once "htc-5"
'

test_expect_success 'sync killed after terminating an orphan: the re-run finds nothing left to do' '
    test "$(slurm_node_state htc-5)" != "" &&
    "$SUSPEND" "htc-5" >/dev/null 2>&1 && wait_for 10 sh -c "test \$(curl -s $CCSIM_URL/ccsim/state | jq \".nodes | length\") = 0" &&
    ccsim_post /ccsim/nodes "{\"Name\": \"htc-6\", \"Template\": \"htc\", \"MachineType\": \"Standard_F2s_v2\", \"Hooks\": false}" >/dev/null &&
    killed_at action:after-reply "$CCAS" slurm sync &&
    wait_for 10 sh -c "test \$(curl -s $CCSIM_URL/ccsim/state | jq \".nodes | length\") = 0" &&
    "$CCAS" slurm sync --json >sync.json &&
    jq -e ".orphans_terminated == 0" sync.json &&
    once "" &&
    test_equal "$(jq length "$TEST_TMP/state/requests.json")" 0 "create requests the killed resumes left unsettled"
' || slurm_dump

test_expect_success 'events: every resume said what it was asked (six, killed or not); outcomes and metrics of the runs that finished' '
    EV=$TEST_TMP/state/events.jsonl PROM=$TEST_TMP/state/ccautoscale.prom &&
    ccsim_post /ccsim/nodes "{\"Name\": \"htc-7\", \"Template\": \"htc\", \"MachineType\": \"Standard_F2s_v2\", \"Hooks\": false}" >/dev/null &&
    "$CCAS" slurm sync >/dev/null &&
    jq -e -s "[.[] | select(.event == \"orphan_reaped\" and .node == \"htc-7\" and (.operation_id | length) > 0)] | length == 1" "$EV" &&
    jq -e -s "[.[] | select(.event == \"resume_requested\" and .program == \"ccautoscale-resume\")] | length == 6" "$EV" &&
    jq -e -s "[.[] | select(.event == \"created\")] | map(.nodes) == [\"htc-[1-2]\"]" "$EV" &&
    jq -e -s "[.[] | select(.event == \"terminated\" and .program == \"ccautoscale-suspend\") | .nodes] == [\"htc-[1-2]\", \"htc-5\"]" "$EV" &&
    grep -q "^ccautoscale_runs_total{program=\"ccautoscale-resume\",result=\"ok\"} 3$" "$PROM" &&
    grep -q "^ccautoscale_nodes_created_total{nodearray=\"htc\"} 2$" "$PROM" &&
    grep -q "^ccautoscale_nodes_terminated_total{nodearray=\"htc\"} 4$" "$PROM"
'

test_done
