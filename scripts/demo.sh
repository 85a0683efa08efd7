#!/bin/bash
# SPDX-License-Identifier: MIT
# demo.sh: a local Slurm cluster bursting into ccsim.  Run by ./run-demo after
# the build; expects top_builddir and top_srcdir in the environment.
#
# ccsim serves the demo cluster (htc with two machine types, hpc with
# InfiniBand and placement groups, gpu with a 24-core quota); a real slurmctld
# runs with the configuration `ccautoscale slurm conf` wrote; each VM ccsim
# boots starts a real slurmd.  Jobs are submitted, the view refreshes until
# they are done and the VMs are given back, then a summary is printed.
# Everything started is stopped on exit, also on Ctrl-C.
set -u
: "${top_srcdir:?}" "${top_builddir:?}"
. "$top_srcdir/tests/lib/tap.sh"
. "$top_srcdir/tests/lib/ccsim.sh"
. "$top_srcdir/tests/lib/slurm.sh"
cd "$TEST_TMP" || exit 1
CCAS=$top_builddir/plugin/ccautoscale
CLUSTER=$top_srcdir/tests/ccsim/clusters/demo.json
# how long the demo waits for its jobs at most: a bound (a busy machine is
# slow), not how long it takes (about two minutes)
LIMIT=${DEMO_LIMIT:-600}
tty=0
[ -t 1 ] && tty=1

simulator_only () {
    echo "== ccsim with the demo cluster; ccautoscale looks at it"
    ccsim_start "$CLUSTER" --boot-delay 1 || exit 1
    CCSIM_CLUSTER_FILE=$CLUSTER ccsim_write_config "$TEST_TMP/autoscale.json"
    export CCAUTOSCALE_CONFIG=$TEST_TMP/autoscale.json
    ccsim_post /clusters/demo/nodes/create '{"sets": [{"nodearray": "htc", "count": 3}, {"nodearray": "hpc", "count": 4, "placementGroupId": "hpc_pg0"}]}' >/dev/null
    wait_for 60 sh -c "test \$(curl -s $CCSIM_URL/ccsim/state | jq '[.nodes[] | select(.Status == \"Ready\")] | length') = 7"
    echo "\$ ccautoscale buckets"
    "$CCAS" buckets
    echo
    echo "\$ ccautoscale nodes"
    "$CCAS" nodes
    echo
    echo "\$ ccautoscale status"
    "$CCAS" status
}

if [ "${1:-}" = --simulator-only ]; then
    simulator_only
    exit 0
fi
if ! why=$(slurm_prereqs); then
    echo "The Slurm demo cannot run here: $why.  Showing the simulator only."
    simulator_only
    exit 0
fi

# ---- start --------------------------------------------------------------------------------------------
echo "Starting ccsim (the demo cluster) and a local slurmctld configured by 'ccautoscale slurm conf' ..."
SLURM_RESUME_TIMEOUT=${DEMO_RESUME_TIMEOUT:-90} SLURM_SUSPEND_TIME=${DEMO_SUSPEND_TIME:-12} CCSIM_BOOT_DELAY=${DEMO_BOOT_DELAY:-4} \
    slurm_start "$CLUSTER" '.capacity_failure_backoff = 20 | .logging.level = "info"' >start.log 2>&1 || {
    cat start.log
    exit 1
}
export CCAUTOSCALE_CONFIG=$CCAS_CONF
start=$(date +%s)

# ---- the work -------------------------------------------------------------------------------------------
submit () { sbatch --parsable -o /dev/null "$@"; }
array=$(submit -p htc -n1 --array=1-12 --wrap "sleep 6")
mpi1=$(submit -p hpc -N4 --wrap "srun sleep 8")
mpi2=$(submit -p hpc -N4 --wrap "srun sleep 8")
gpu=$(submit -p gpu -N2 --wrap "srun sleep 5")
echo "Submitted: array job $array (12 single-core tasks, htc), MPI jobs $mpi1 and $mpi2 (4 nodes each, hpc),"
echo "           GPU job $gpu (2 nodes; the gpu quota allows one)."
echo

# ---- watch --------------------------------------------------------------------------------------------
first_ready=""
: >pgs.seen
: >max.vms
view () {
    local now=$(($(date +%s) - start))
    ccsim_get /ccsim/state >state.json 2>/dev/null || return
    jq -r '.nodes[] | .PlacementGroupId // empty' state.json >>pgs.seen
    jq '.nodes | length' state.json >>max.vms
    if [ -z "$first_ready" ] && jq -e '[.nodes[] | select(.Status == "Ready")] | length > 0' state.json >/dev/null; then
        first_ready=$now
    fi
    {
        printf 'ccautoscale demo — %3ss   (Ctrl-C stops and cleans up)\n\n' "$now"
        printf '%-6s %-34s %s\n' PART "SLURM NODES (state:count)" "CCSIM VMs (status, placement group)"
        for na in htc hpc gpu; do
            slurm=$(sinfo -h -N -p "$na" -o "%t" 2>/dev/null | sort | uniq -c | awk '{printf "%s:%s ", $2, $1}')
            vms=$(jq -r --arg na "$na" '[.nodes[] | select(.Template == $na) | "\(.Status)\(if .PlacementGroupId then "@" + .PlacementGroupId else "" end)"]
                  | group_by(.) | map("\(.[0]):\(length)") | join(" ")' state.json)
            printf '%-6s %-34s %s\n' "$na" "$slurm" "${vms:--}"
        done
        echo
        printf '%-8s %-10s %-10s %s\n' JOB STATE NODES REASON
        squeue -h -o "%-8i %-10T %-10N %r" 2>/dev/null | head -8
        echo
        grep -h "ccautoscale: \(capacity\|quota\)" "$TEST_TMP/ccautoscale.log" 2>/dev/null | tail -1 | cut -c1-150
    } >frame
    if [ "$tty" = 1 ]; then
        printf '\033[H\033[2J'
        cat frame
    elif ! cmp -s frame frame.last; then
        sed -n '3,6p' frame | sed "s/^/[${now}s] /"
    fi
    cp frame frame.last
}

done_yet () {
    # everything but the GPU job (which waits for quota) has finished, and
    # every VM has been given back
    [ -z "$(squeue -h -o %i 2>/dev/null | grep -v "^$gpu\$")" ] &&
        [ "$(jq '.nodes | length' state.json 2>/dev/null)" = 0 ]
}

last_sync=0
while :; do
    view
    now=$(date +%s)
    if [ $((now - last_sync)) -ge 10 ]; then # as the systemd timer would, a little faster
        "$CCAS" -q slurm sync >/dev/null 2>&1
        last_sync=$now
    fi
    # the GPU job cannot run: once its story is told, cancel it so its VM goes too
    if [ $((now - start)) -ge 45 ] && [ -n "$(squeue -h -j "$gpu" -o %i 2>/dev/null)" ]; then
        scancel "$gpu"
        echo "[$((now - start))s] cancelled GPU job $gpu: the gpu quota (24 cores) fits one of its two nodes" >>events
    fi
    done_yet && break
    if [ $((now - start)) -ge "$LIMIT" ]; then
        echo "The demo did not finish in ${LIMIT}s; what was left:"
        slurm_dump
        exit 1
    fi
    sleep 2
done

# ---- summary ------------------------------------------------------------------------------------------
elapsed=$(($(date +%s) - start))
requests=$(ccsim_get /ccsim/requests | jq '[.[] | select(.method == "POST" and (.path | endswith("/nodes/create")))] | length')
# what ccautoscale itself recorded: VMs the server added, by nodearray
created=$(jq -s -r '[.[] | select(.event == "created")] | group_by(.nodearray)
          | map("\(.[0].nodearray) \(map(.added) | add)") | join(", ")' "$TEST_TMP/state/events.jsonl" 2>/dev/null)
# slurmctld keeps finished jobs for MinJobAge (300 s): their end states, array tasks one by one
jobs_end=$(squeue -h -r -t all -o %T 2>/dev/null | sort | uniq -c | awk '{printf "%s%s %s", (NR > 1 ? ", " : ""), $1, tolower($2)}')
pgs=$(sort -u pgs.seen | tr '\n' ' ')
quota_reason=$(grep -h "ccautoscale: quota" "$TEST_TMP/ccautoscale.log" 2>/dev/null | head -1 | sed 's/.*\(ccautoscale: quota:.*\)/\1/' | cut -c1-110)
echo
echo "== summary"
printf '  %-28s %s\n' "jobs submitted" "12 array tasks, 2 MPI jobs (4 nodes), 1 GPU job (2 nodes)"
printf '  %-28s %s\n' "jobs at the end" "${jobs_end:-?}"
printf '  %-28s %s\n' "VMs created" "${created:-none} (in $requests create requests)"
printf '  %-28s %s\n' "most VMs at once" "$(sort -n max.vms | tail -1)"
printf '  %-28s %s\n' "time to first Ready node" "${first_ready:-?}s"
printf '  %-28s %s\n' "placement groups used" "${pgs:-none}"
printf '  %-28s %s\n' "GPU job" "${quota_reason:-no quota failure seen}"
printf '  %-28s %s\n' "VMs left at the end" "$(ccsim_node_count)"
printf '  %-28s %s\n' "total time" "${elapsed}s"
[ -f events ] && cat events
echo "Stopping slurmctld, slurmd and ccsim."
[ "$(ccsim_node_count)" = 0 ] # a VM left behind fails the demo (CI runs it)
