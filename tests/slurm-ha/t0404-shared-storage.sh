#!/bin/bash
# SPDX-License-Identifier: MIT
# t0404-shared-storage.sh: the storage both controllers share (/sched on a
# CycleCloud HA cluster; here a directory each controller mounts) is briefly
# unavailable for ccautoscale's state_dir and lock: read-only, then missing
# (the export not mounted).  Each time, on both controllers: the resume
# program says what is wrong — the path, the error, and that the shared
# file system may be unmounted — hands its nodes back to Slurm (the job
# waits, it is not lost), writes nothing on the local disk in the storage's
# place, and makes no VM; sync says the same.  Once the storage is back the
# job runs, its VM made once, and the state files are whole.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/ccsim.sh"
. "$(dirname "$0")/../lib/slurm.sh"
. "$(dirname "$0")/../lib/slurm-ha.sh"
why=$(ha_prereqs) || test_skip_all "$why"
STATE=$TEST_TMP/ha/shared/ccas/ha/state

job () {
    sbatch --parsable -p htc -w "$1" -o /dev/null --wrap "sleep 2"
}

handed_back () {  # NODE was handed back: a reason of ccautoscale's
    slurm_node_reason "$1" | grep -q "^ccautoscale: transient: "
}

sync_a () {
    ha_in a "$top_builddir/plugin/ccautoscale" -c "$HA/ctl-a/ccautoscale.json" slurm sync
}

pending () {
    test "$(slurm_job_state "$1")" = PENDING
}

test_expect_success 'the pair starts; the shared state is there' '
    SLURM_SUSPEND_TIME=3600 ha_start "$top_srcdir/tests/slurm-ha/cluster.json" &&
    id=$(job htc-1) && slurm_wait_job "$id" COMPLETED 120 &&
    ls "$STATE" >files && test_grep "^requests.json$" files
' || ha_dump

# outage HOW NODE: the shared directory HOW on both controllers; a job on
# NODE is handed back with a clear reason and waits; nothing is made
outage () {
    local how=$1 node=$2
    ccsim_delete /ccsim/requests >/dev/null && : >"$(ha_log a)" &&
    ha_storage both "$how" &&
    id=$(job "$node") && echo "$id" >job.id &&
    wait_for 60 handed_back "$node" &&
    slurm_node_reason "$node" >reason && cat reason &&
    test_equal "$(ccsim_made)" "" "names made" && wait_for 30 pending "$id"
}

test_expect_success 'read-only: resume says so and hands the node back; the job waits, nothing made' '
    outage ro htc-2 &&
    test_grep "lock: cannot open lock file: Read-only file system (is the file system holding it mounted and writable?)" reason &&
    test_grep "ccautoscale-resume: handed back htc-2" "$(ha_log a)" &&
    ! sync_a 2>sync.err && cat sync.err &&
    test_grep "Read-only file system (is the file system holding it mounted" sync.err
' || ha_dump

test_expect_success 'back: the job runs, its VM made once' '
    ha_storage both ok &&
    slurm_wait_job "$(cat job.id)" COMPLETED 180 && ccsim_made_once htc-2
' || ha_dump

test_expect_success 'missing (not mounted): resume says so and hands the node back; nothing written in its place' '
    outage missing htc-3 &&
    test_grep "lock: cannot open lock file: No such file or directory (is the file system holding it mounted and writable?)" reason &&
    ha_in a ls -A "$HA/shared/ccas" >seen && test_equal "$(cat seen)" "" "what ctl-a sees of the shared directory" &&
    ha_in b ls -A "$HA/shared/ccas" >seen && test_equal "$(cat seen)" "" "what ctl-b sees of the shared directory"
' || ha_dump

test_expect_success 'back: the job runs, its VM made once; the state files are whole' '
    ha_storage both ok &&
    slurm_wait_job "$(cat job.id)" COMPLETED 180 && ccsim_made_once htc-3 &&
    for f in "$STATE"/*.json; do jq -e . "$f" >/dev/null || { echo "$f is not whole"; return 1; }; done
' || ha_dump

test_done
