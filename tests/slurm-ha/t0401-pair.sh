#!/bin/bash
# SPDX-License-Identifier: MIT
# t0401-pair.sh: an HA pair as CycleCloud's slurm.ha_enabled makes one — two
# slurmctld, SlurmctldHost x 2, each on a host (network namespace, hostname)
# of its own, StateSaveLocation and ccautoscale's state and lock on a
# directory both see.  Jobs resume nodes through the primary; the primary
# dies (SIGKILL, no resume running) and the backup takes over: jobs resume
# through it, and its SuspendProgram and sync do the work while the primary
# is down (each in the backup's log, not the primary's); the primary comes
# back, takes control again, and resumes for the next job.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/ccsim.sh"
. "$(dirname "$0")/../lib/slurm.sh"
. "$(dirname "$0")/../lib/slurm-ha.sh"
why=$(ha_prereqs) || test_skip_all "$why"

# job NODE: a short job that must run on NODE; prints its id
job () {
    sbatch --parsable -p htc -w "$1" -o /dev/null --wrap "sleep 1"
}

logged () {  # logged X PATTERN: X's ccautoscale log has a line matching PATTERN
    grep -q -E -- "$2" "$(ha_log "$1")" 2>/dev/null
}

test_expect_success 'the pair starts: ctl-a in control, ctl-b standing by, both configured' '
    SLURM_SUSPEND_TIME=15 ha_start "$top_srcdir/tests/slurm-ha/cluster.json" &&
    ha_in_control a && ha_standing_by b &&
    scontrol ping >ping && cat ping &&
    test_grep "ctl-a is UP" ping && test_grep "ctl-b is UP" ping &&
    test "$(ha_in a hostname)" = ctl-a && test "$(ha_in b hostname)" = ctl-b &&
    test "$(slurm_node_state htc-1)" = "idle~"
' || ha_dump

test_expect_success 'a job resumes its node through ctl-a and runs' '
    id=$(job htc-1) && slurm_wait_job "$id" COMPLETED 90 &&
    logged a "ccautoscale-resume htc-1" && ! logged b "ccautoscale-resume" &&
    ccsim_made_once "htc-1"
' || ha_dump

# ctl-a is killed once it has saved job 1's end and htc-1's registration:
# killed sooner, it leaves ctl-b a picture Slurm itself takes minutes to mend
# (t0402 kills it anywhere, mid-resume).
test_expect_success 'ctl-a dies; ctl-b takes over and syncs' '
    held=$(ha_save_state) &&
    ha_kill a &&
    ha_wait_control b 60 && wait_for 30 ha_synced b 1 && scancel "$held" &&
    scontrol ping >ping && cat ping && test_grep "ctl-a is DOWN" ping
' || ha_dump

test_expect_success 'with ctl-a down, a job resumes its node through ctl-b and runs' '
    ccsim_delete /ccsim/requests >/dev/null &&
    id=$(job htc-2) && slurm_wait_job "$id" COMPLETED 90 &&
    logged b "ccautoscale-resume htc-2" && ccsim_made_once "htc-2"
' || ha_dump

vms_none () {
    test "$(slurm_vms)" = ""
}

test_expect_success 'with ctl-a down, ctl-b suspends the idle nodes: the VMs go' '
    wait_for 120 slurm_node_is htc-2 "idle~" && wait_for 120 slurm_node_is htc-1 "idle~" &&
    wait_for 60 vms_none &&
    logged b "ccautoscale-suspend htc-" && ! logged a "ccautoscale-suspend" &&
    ccsim_acted_once "" "htc-1 htc-2"
' || ha_dump

orphan () {
    ccsim_post /ccsim/nodes "{\"Name\": \"$1\", \"Template\": \"htc\", \"MachineType\": \"Standard_F2s_v2\", \"Hooks\": false}" >/dev/null
}

sync_b () {
    ha_in b "$top_builddir/plugin/ccautoscale" -c "$HA/ctl-b/ccautoscale.json" slurm sync --json >sync.json
}

reaped () {
    sync_b && jq -e ".orphans_terminated == 1" sync.json
}

# On an HA pair sync terminates a VM as an orphan only when two passes
# SlurmctldTimeout x 2 + 10 s apart (22 s here) find it one: after a
# takeover the new controller'"'"'s view of a node can be older than its VM.
test_expect_success 'with ctl-a down, sync on ctl-b reaps an orphan (a VM Slurm has powered down) on its second sighting' '
    ccsim_delete /ccsim/requests >/dev/null && orphan htc-9 && test "$(slurm_vms)" = htc-9 &&
    sync_b && cat sync.json && jq -e ".orphans_terminated == 0" sync.json &&
    test_grep "htc-9: orphan VM (powered down in Slurm) for 0 s: terminated if still one after 22 s" "$(ha_log b)" &&
    test "$(slurm_vms)" = htc-9 &&
    WAIT_FOR_INTERVAL=3 wait_for 60 reaped &&
    wait_for 20 vms_none && ccsim_acted_once terminate "htc-9"
' || ha_dump

test_expect_success 'ctl-a comes back and takes control again; ctl-b stands by' '
    ha_ctld_start a &&
    ha_wait_control a 60 && wait_for 30 ha_standing_by b && wait_for 30 ha_synced a 2
' || ha_dump

test_expect_success 'a job resumes its node through ctl-a again' '
    ccsim_delete /ccsim/requests >/dev/null &&
    n=$(grep -c "ccautoscale-resume" "$(ha_log b)") &&
    id=$(job htc-3) && slurm_wait_job "$id" COMPLETED 90 &&
    logged a "ccautoscale-resume htc-3" && test "$(grep -c "ccautoscale-resume" "$(ha_log b)")" = "$n" &&
    ccsim_made_once "htc-3"
' || ha_dump

test_done
