#!/bin/bash
# SPDX-License-Identifier: MIT
# t0010-failure-reasons.sh: each failure class, from a fault ccsim injects,
# through to the Reason the real slurmctld shows on the node handed back —
# "ccautoscale: <class>: <message>" — and to the events.  Throttling and
# transient errors are never reported as capacity.  (VMs are records only:
# the resume program is run by hand.)
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/ccsim.sh"
. "$(dirname "$0")/../lib/slurm.sh"
why=$(slurm_prereqs) || test_skip_all "$why"
RESUME=$top_builddir/slurm_power/ccautoscale-resume
export SLURM_RESUME_FILE=/nonexistent

# reason_after FAULT NODE: resume NODE under FAULT; print the node's Reason
reason_after () {
    ccsim_delete /ccsim/faults >/dev/null &&
    ccsim_fault "$1" &&
    { "$RESUME" "$2" >resume.out 2>&1 || true; } &&
    ccsim_delete /ccsim/faults >/dev/null &&
    wait_for 10 sh -c "sinfo -h -N -n $2 -o %E | grep -q ccautoscale" &&
    slurm_node_reason "$2"
}

test_expect_success 'start Slurm (no slurmd; retries 1 so that faults exhaust them quickly)' '
    SLURM_VM_HOOKS=0 SLURM_SUSPEND_TIME=3600 slurm_start "$top_srcdir/tests/slurm/cluster.json" ".retries = 1" &&
    export CCAUTOSCALE_CONFIG=$CCAS_CONF
' || slurm_dump

test_expect_success 'capacity: the server added none for want of machines' '
    reason_after "{\"kind\": \"capacity\", \"machine_type\": \"Standard_F2s_v2\", \"count\": -1}" htc-1 >reason &&
    grep "^ccautoscale: capacity: " reason
'

test_expect_success 'throttling: 429 with Retry-After until the retries are spent — throttling, not capacity' '
    reason_after "{\"kind\": \"http\", \"status\": 429, \"retry_after\": 1, \"count\": -1, \"match\": \"status\"}" htc-2 >reason &&
    grep "^ccautoscale: throttling: " reason
'

test_expect_success 'throttling: 503' '
    reason_after "{\"kind\": \"http\", \"status\": 503, \"count\": -1, \"match\": \"status\"}" htc-3 >reason &&
    grep "^ccautoscale: throttling: " reason
'

test_expect_success 'transient: 500 and a server that drops the connection' '
    reason_after "{\"kind\": \"http\", \"status\": 500, \"count\": -1, \"match\": \"status\"}" htc-4 >reason &&
    grep "^ccautoscale: transient: " reason &&
    reason_after "{\"kind\": \"drop\", \"count\": -1, \"match\": \"status\"}" htc-5 >reason &&
    grep "^ccautoscale: transient: " reason
'

test_expect_success 'permanent: 400 from the create (on hpc: the htc bucket is in its capacity window)' '
    reason_after "{\"kind\": \"http\", \"status\": 400, \"count\": -1, \"match\": \"nodes/create\"}" hpc-1 >reason &&
    grep "^ccautoscale: permanent: " reason
'

test_expect_success 'every hand-back is a "failed" event with the same class' '
    for c in capacity throttling transient permanent; do
        jq -e -s --arg c "$c" "[.[] | select(.event == \"failed\" and .class == \$c)] | length >= 1" \
            "$TEST_TMP/state/events.jsonl" >/dev/null || { echo "no failed event of class $c"; return 1; }
    done
'

test_done
