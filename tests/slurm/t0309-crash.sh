#!/bin/bash
# SPDX-License-Identifier: MIT
# t0309-crash.sh: crash consistency of the Slurm programs.  Resume, suspend
# and sync are each killed with SIGKILL at every step — while a state file is
# being replaced, before the request is sent, while the server carries it
# out but before its answer, after the answer before anything is recorded —
# and run again, as slurmctld and the sync timer would.  ccsim's request log
# proves the outcome: each node's VM was made exactly once (a create the
# killed run never heard the answer to included), each terminate carried out
# once, nothing is left, and every state file is whole.
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
    ccsim_get /ccsim/state | jq -r '[.nodes[].Name] | sort_by(ltrimstr("htc-") | tonumber) | join(" ")'
}

vms_now () {
    test "$(vms)" = "$1"
}

vms_are () {  # wait until the VMs are exactly $1 (terminations take a moment)
    wait_for 60 vms_now "$1" || { echo "VMs: $(vms), not $1" >&2; return 1; }
}

fresh_log () {
    ccsim_delete /ccsim/requests >/dev/null && ccsim_delete /ccsim/faults >/dev/null
}

test_expect_success 'start Slurm (no slurmd: VMs are records)' '
    SLURM_VM_HOOKS=0 SLURM_SUSPEND_TIME=3600 slurm_start "$top_srcdir/tests/slurm/cluster.json" \
        ".slurm.zombie_vms = \"terminate\"" &&
    export CCAUTOSCALE_CONFIG=$CCAS_CONF
' || slurm_dump

# resume: state write, before send, in flight, after reply

test_expect_success 'resume killed while recording its create request: nothing sent; the re-run creates once' '
    fresh_log &&
    killed_at state:before-rename "$RESUME" "htc-1" &&
    test_equal "$(ccsim_requests "nodes/create" | wc -l)" 0 "creates sent by the killed run" &&
    ccsim_state_whole && test_equal "$(vms)" "" "VMs after the kill" &&
    "$RESUME" "htc-1" && ccsim_made_once "htc-1" && test_equal "$(vms)" "htc-1" "VMs"
'

test_expect_success 'resume killed before its create is sent: the re-run creates each node once' '
    fresh_log &&
    killed_at create:before-send "$RESUME" "htc-[2-3]" &&
    test_equal "$(ccsim_requests "nodes/create" | wc -l)" 0 "creates sent by the killed run" &&
    "$RESUME" "htc-[2-3]" && ccsim_made_once "htc-2 htc-3" && test_equal "$(vms)" "htc-1 htc-2 htc-3" "VMs" &&
    test_equal "$(state_entries "$TEST_TMP/state/requests.json" | jq "length")" 1 "the killed run'"'"'s record, left for sync to settle"
'

test_expect_success 'resume killed after the answer: the re-run finds the nodes and creates nothing' '
    fresh_log &&
    killed_at create:after-reply "$RESUME" "htc-[4-5]" &&
    "$RESUME" "htc-[4-5]" && ccsim_made_once "htc-4 htc-5" &&
    test_equal "$(vms)" "htc-1 htc-2 htc-3 htc-4 htc-5" "VMs" &&
    test_equal "$(ccsim_requests "POST .*/nodes/create 20[02]" | wc -l)" 1 "creates carried out"
'

test_expect_success 'resume killed while the server carries its create out, before the answer: no second VM' '
    fresh_log &&
    ccsim_kill_in_flight nodes/create "$RESUME" "htc-6" &&
    "$RESUME" "htc-6" && ccsim_made_once "htc-6" &&
    test_equal "$(vms)" "htc-1 htc-2 htc-3 htc-4 htc-5 htc-6" "VMs" &&
    test_equal "$(ccsim_requests "POST .*/nodes/create 20[02]" | wc -l)" 1 "creates carried out"
'

# suspend: before send, in flight, after reply, state write

test_expect_success 'suspend killed before its request is sent: nothing changed; the re-run removes them once' '
    fresh_log &&
    killed_at action:before-send "$SUSPEND" "htc-[1-2]" &&
    test_equal "$(vms)" "htc-1 htc-2 htc-3 htc-4 htc-5 htc-6" "VMs after the kill" &&
    "$SUSPEND" "htc-[1-2]" && vms_are "htc-3 htc-4 htc-5 htc-6" && ccsim_acted_once shutdown "htc-1 htc-2"
'

test_expect_success 'suspend killed while the server carries its shutdown out: the re-run shuts nothing down again' '
    fresh_log &&
    ccsim_kill_in_flight nodes/shutdown "$SUSPEND" "htc-3" &&
    "$SUSPEND" "htc-3" && vms_are "htc-4 htc-5 htc-6" && ccsim_acted_once shutdown "htc-3"
'

test_expect_success 'suspend killed after the answer: the VMs are gone; the re-run is harmless' '
    fresh_log &&
    killed_at action:after-reply "$SUSPEND" "htc-4" &&
    "$SUSPEND" "htc-4" && vms_are "htc-5 htc-6" && ccsim_acted_once shutdown "htc-4"
'

test_expect_success 'suspend killed while replacing a state file, after its shutdown: files whole, nothing shut down again' '
    fresh_log &&
    killed_at state:before-rename "$SUSPEND" "htc-5" && ccsim_state_whole &&
    "$SUSPEND" "htc-5" && vms_are "htc-6" && ccsim_acted_once shutdown "htc-5" && ccsim_state_whole
'

# sync: before send, in flight, after reply, state write; each on an orphan
# (a VM whose node Slurm has powered down: all of them here)

orphan () {
    ccsim_post /ccsim/nodes "{\"Name\": \"$1\", \"Template\": \"htc\", \"MachineType\": \"Standard_F2s_v2\", \"Hooks\": false}" >/dev/null
}

test_expect_success 'sync killed before terminating an orphan: it is still there; the re-run reaps it once' '
    "$SUSPEND" "htc-6" >/dev/null 2>&1 && vms_are "" &&
    fresh_log && orphan htc-7 &&
    killed_at action:before-send "$CCAS" slurm sync &&
    test_equal "$(vms)" "htc-7" "VMs after the kill" &&
    "$CCAS" slurm sync --json >sync.json && jq -e ".orphans_terminated == 1" sync.json &&
    vms_are "" && ccsim_acted_once terminate "htc-7"
' || slurm_dump

# reaped_once ORPHAN KILL...: sync, killed by KILL once the orphan's
# terminate was carried out, left it gone; the re-run terminates nothing again
reaped_once () {
    local name=$1
    shift
    fresh_log && orphan "$name" &&
    "$@" "$CCAS" slurm sync &&
    vms_are "" &&
    "$CCAS" slurm sync --json >sync.json && jq -e ".orphans_terminated == 0" sync.json &&
    ccsim_acted_once terminate "$name"
}

test_expect_success 'sync killed while the server terminates an orphan: the re-run terminates nothing again' '
    reaped_once htc-8 ccsim_kill_in_flight nodes/terminate
' || slurm_dump

test_expect_success 'sync killed after terminating an orphan: the re-run finds nothing left to do' '
    reaped_once htc-9 killed_at action:after-reply
' || slurm_dump

test_expect_success 'sync killed while replacing a state file: files whole; the re-run settles every request and reaps once' '
    fresh_log && orphan htc-10 &&
    killed_at state:before-rename "$CCAS" slurm sync && ccsim_state_whole &&
    "$CCAS" slurm sync --json >sync.json && ccsim_state_whole &&
    vms_are "" && ccsim_acted_once terminate "htc-10" &&
    test_equal "$(ccsim_made | wc -l)" 0 "VMs made by sync" &&
    test_equal "$(state_entries "$TEST_TMP/state/requests.json" | jq "length")" 0 "create requests the killed resumes left unsettled"
' || slurm_dump

test_expect_success 'events: every resume and suspend said what it was asked, killed or not; outcomes and metrics of the runs that finished' '
    EV=$TEST_TMP/state/events.jsonl PROM=$TEST_TMP/state/ccautoscale.prom &&
    jq -e -s "[.[] | select(.event == \"orphan_reaped\" and (.operation_id | length) > 0) | .node] == [\"htc-7\", \"htc-10\"]" "$EV" &&
    jq -e -s "[.[] | select(.event == \"resume_requested\" and .program == \"ccautoscale-resume\")] | length == 8" "$EV" &&
    jq -e -s "[.[] | select(.event == \"created\")] | map(.nodes) == [\"htc-1\", \"htc-[2-3]\"]" "$EV" &&
    jq -e -s "[.[] | select(.event == \"suspend_requested\")] | map(.nodes) ==
              [\"htc-[1-2]\", \"htc-[1-2]\", \"htc-3\", \"htc-3\", \"htc-4\", \"htc-4\", \"htc-5\", \"htc-5\", \"htc-6\"]" "$EV" &&
    jq -e -s "[.[] | select(.event == \"terminated\" and .program == \"ccautoscale-suspend\") | .nodes] ==
              [\"htc-[1-2]\", \"htc-5\", \"htc-6\"]" "$EV" &&
    grep -q "^ccautoscale_runs_total{program=\"ccautoscale-resume\",result=\"ok\"} 4$" "$PROM" &&
    grep -q "^ccautoscale_nodes_created_total{nodearray=\"htc\"} 3$" "$PROM"
'

test_done
