#!/bin/bash
# SPDX-License-Identifier: MIT
# t0403-bad-input.sh: what an HA pair's shared state must survive.  Both
# controllers' resume programs race for the same names: the shared lock
# serialises them and each VM is made once.  The request id makes a
# repeated create harmless: a create whose answer is lost is found by its
# id, not sent again; one that never reached the server is sent again with
# the same id; the same id sent again by hand is refused (409), nothing
# made.  A state file written by a newer ccautoscale is refused with a
# message and left as it was; the node goes back to Slurm, and runs a job
# once the file is gone.  A requests.json cut short (a crash
# during a write on NFS) under a pending record, then a takeover: the
# backup's sync reads back what it can, keeps the file aside, settles the
# request by its id, and the job runs on a VM made once.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/ccsim.sh"
. "$(dirname "$0")/../lib/slurm.sh"
. "$(dirname "$0")/../lib/slurm-ha.sh"
why=$(ha_prereqs) || test_skip_all "$why"
STATE=$TEST_TMP/ha/shared/ccas/ha/state

fresh_log () {
    ccsim_delete /ccsim/requests >/dev/null && ccsim_delete /ccsim/faults >/dev/null
}

# resume_in X HOSTLIST: X's resume program, run by hand as slurmctld would run it there
resume_in () {
    ha_in "$1" env CCAUTOSCALE_CONFIG="$HA/ctl-$1/ccautoscale.json" SLURM_CONF="$SLURM_CONF" \
        SLURM_RESUME_FILE=/nonexistent "$top_builddir/slurm_power/ccautoscale-resume" "$2"
}

suspend_in () {
    ha_in "$1" env CCAUTOSCALE_CONFIG="$HA/ctl-$1/ccautoscale.json" SLURM_CONF="$SLURM_CONF" \
        "$top_builddir/slurm_power/ccautoscale-suspend" "$2"
}

vms_none () {
    test "$(slurm_vms)" = ""
}

job () {
    sbatch --parsable -p htc -w "$1" -o /dev/null --wrap "sleep 2"
}

sync_a () {
    ha_in a "$top_builddir/plugin/ccautoscale" -c "$HA/ctl-a/ccautoscale.json" slurm sync
}

handed_back () {  # NODE has a reason of ccautoscale's
    case $(slurm_node_reason "$1") in "ccautoscale: "*) return 0 ;; *) return 1 ;; esac
}


test_expect_success 'the pair starts' '
    CCSIM_BOOT_DELAY=6 SLURM_SUSPEND_TIME=3600 ha_start "$top_srcdir/tests/slurm-ha/cluster.json"
' || ha_dump

test_expect_success 'both controllers resume the same names at once: the lock serialises them, each VM is made once' '
    fresh_log && pids="" &&
    for k in 1 2 3; do
        resume_in a "htc-[1-6]" >a$k.out 2>&1 &
        pids="$pids $!"
        resume_in b "htc-[4-9]" >b$k.out 2>&1 &
        pids="$pids $!"
    done &&
    for p in $pids; do wait "$p" || return 1; done &&
    ccsim_made_once "htc-1 htc-2 htc-3 htc-4 htc-5 htc-6 htc-7 htc-8 htc-9" &&
    test "$(ccsim_requests "POST .*/nodes/create 202" | wc -l)" -le 2 &&
    cat "$(ha_log a)" "$(ha_log b)" >both.log &&
    test_grep "held by pid [0-9]* (ccautoscale-resume)" both.log &&
    test_grep "already .*; left alone" both.log &&
    suspend_in a "htc-[1-9]" && wait_for 30 vms_none
' || ha_dump

# the POST creates of the request log: "STATUS REQUEST_ID" lines
creates () {
    ccsim_get /ccsim/requests |
        jq -r ".[] | select(.method == \"POST\" and (.path | test(\"nodes/create\"))) | \"\(.status) \(.request_id)\""
}

test_expect_success 'a create whose answer is lost: found by its request id, not sent again; one VM' '
    fresh_log &&
    ccsim_fault "{\"kind\": \"drop\", \"when\": \"after\", \"match\": \"nodes/create\", \"count\": 1}" &&
    resume_in b htc-10 >out 2>&1 &&
    ccsim_made_once "htc-10" && creates >creates && cat creates && test "$(wc -l <creates)" = 1 &&
    test "$(ccsim_requests "GET .*request_id=$(cut -d" " -f2 creates)" | wc -l)" -ge 1 &&
    test_grep "create request .*: the answer was lost (.*); recovered 1 node by request id" "$(ha_log b)"
' || ha_dump

test_expect_success 'a create that never reached the server: sent again with the same request id; one VM' '
    fresh_log &&
    ccsim_fault "{\"kind\": \"drop\", \"when\": \"before\", \"match\": \"nodes/create\", \"count\": 1}" &&
    resume_in b htc-14 >out 2>&1 &&
    ccsim_made_once "htc-14" && creates >creates2 && cat creates2 && test "$(wc -l <creates2)" = 2 &&
    test "$(cut -d" " -f2 creates2 | sort -u | wc -l)" = 1 &&
    test_grep "create request .* never reached the server (.*); sending it again" "$(ha_log b)" &&
    suspend_in b htc-14
' || ha_dump

test_expect_success 'the same create sent again by hand with the used request id: refused (409), nothing made' '
    id=$(cut -d" " -f2 creates | head -1) &&
    fresh_log &&
    body="{\"requestId\": \"$id\", \"sets\": [{\"nodearray\": \"htc\", \"count\": 1, \"nameFormat\": \"htc-%d\", \"nameOffset\": 11}]}" &&
    code=$(curl -s -o /dev/null -w "%{http_code}" -X POST -H "Content-Type: application/json" -u admin:s3cret-pw \
        -d "$body" "$CCSIM_URL/clusters/slurmha/nodes/create") &&
    test "$code" = 409 && test "$(ccsim_made)" = "" && test "$(slurm_vm_status htc-11)" = "" &&
    suspend_in b htc-10 && wait_for 30 vms_none
' || ha_dump

test_expect_success 'a requests.json written by a newer ccautoscale: refused with a message, left as it was, the node handed back' '
    fresh_log &&
    printf "%s" "{\"ccautoscale_format\":2,\"r-newer\":{\"written\":\"by a newer one\"}}" >"$STATE/requests.json" &&
    cp "$STATE/requests.json" newer.json &&
    test_expect_code 4 resume_in a htc-12 &&
    cmp newer.json "$STATE/requests.json" &&
    test_grep "requests.json: written by a newer ccautoscale (state format 2; this one reads up to 1): refusing to read or replace it" "$(ha_log a)" &&
    test "$(ccsim_made)" = "" &&
    wait_for 20 handed_back htc-12 &&
    slurm_node_reason htc-12 >reason && cat reason &&
    test_grep "^ccautoscale: .*newer ccautoscale" reason &&
    { sync_a >sync.out 2>&1 || true; } &&
    test_grep "newer ccautoscale" "$(ha_log a)" && cmp newer.json "$STATE/requests.json" &&
    rm "$STATE/requests.json" && fresh_log &&
    id=$(job htc-12) && slurm_wait_job "$id" COMPLETED 120 && ccsim_made_once htc-12
' || ha_dump

stopped_before_send () {
    grep -q "failpoint create:before-send: stopping" "$(ha_log a)"
}

test_expect_success 'requests.json cut short under a pending record, ctl-a dies: ctl-b salvages it and the job runs, its VM made once' '
    fresh_log && : >"$(ha_log a)" &&
    ha_failpoint a create:before-send &&
    t0=$(date +%s.%N) && id=$(job htc-13) &&
    wait_for 60 stopped_before_send && wait_for 20 ha_saved_since "$t0" job_state &&
    state_entries "$STATE/requests.json" | jq -e "length == 1" &&
    size=$(stat -c %s "$STATE/requests.json") &&
    head -c $((size - 12)) "$STATE/requests.json" >cut && cp cut "$STATE/requests.json" &&
    ! jq . "$STATE/requests.json" >/dev/null 2>&1 &&
    ha_kill a && ha_wait_control b 60 &&
    slurm_wait_job "$id" COMPLETED 120 &&
    ccsim_made_once htc-13 &&
    jq -e . "$STATE/requests.json" && ls "$STATE"/requests.json.broken-* >broken &&
    cmp cut "$(head -1 broken)" &&
    test_grep "requests.json did not parse ([0-9]* bytes: cut short by a crash during a write?): kept as .*requests.json.broken-" "$(ha_log b)" &&
    ha_ctld_start a && ha_wait_control a 60 && wait_for 30 ha_standing_by b
' || ha_dump

test_done
