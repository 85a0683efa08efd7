#!/bin/bash
# SPDX-License-Identifier: MIT
# t0203-limits.sh: what PBS itself holds back makes no nodes — a queue's or
# the server's max_run and max_run_res.ncpus, max_queued (qsub refuses the
# job), a stopped queue — and the defaults PBS applies (a queue's
# default_chunk and resources_default, the server's default_chunk) reach
# the demand as PBS applies them.  Passes are run by hand (the hook is off)
# against a real OpenPBS.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/ccsim.sh"
. "$(dirname "$0")/../lib/openpbs.sh"
openpbs_prereqs

reason_of () {  # the unmatched reason of a job in demand.json
    jq -r --arg id "$1" '.jobs[] | select(.id == $id) | .reason // "matched"' demand.json
}

test_expect_success 'setup: OpenPBS, ccsim, install-hook, the hook off (passes by hand)' '
    openpbs_start && install_hook && hook_enable false
'

test_expect_success 'queue max_run [u:PBS_GENERIC=2]: five one-core jobs make one VM, not three' '
    in_pbs qmgr -c "set queue workq max_run = [u:PBS_GENERIC=2]" &&
    : >ids && for i in 1 2 3 4 5; do qsub_as -l select=1:ncpus=1 -- /bin/sleep 2 >>ids || return 1; done &&
    ccas pbs demand --json >demand.json &&
    test_equal "$(jq .pbs_jobs.limited demand.json)" 3 "jobs held back by the limit" &&
    test_equal "$(jq .summary.new_nodes demand.json)" 1 "new nodes" &&
    reason_of "$(sed -n 3p ids)" | grep "PBS will not start it: queue workq max_run \[u:PBS_GENERIC=2\]: 2 running for user $CCAS_PBS_USER" &&
    pbs_pass && test_equal "$(ccsim_made | wc -l)" 1 "VMs made"
'

test_expect_success 'the five run to completion on that one VM, two at a time, and nothing more is made' '
    passes_until 300 jobs_done $(cat ids) &&
    for id in $(cat ids); do test_equal "$(job_exit "$id")" 0 "exit status of $id" || return 1; done &&
    test_equal "$(ccsim_made | wc -l)" 1 "VMs made in all" &&
    in_pbs qmgr -c "unset queue workq max_run"
'

no_jobs () {  # nothing of the user's left in PBS but finished jobs
    jobs_of | jq -e 'all(.value.job_state == "F" or .value.job_state == "X")' >/dev/null
}

test_expect_success 'server max_run_res.ncpus [o:PBS_ALL=3]: counts what runs, then what is queued, in order' '
    in_pbs qmgr -c "set server max_run_res.ncpus = [o:PBS_ALL=3]" &&
    a=$(qsub_as -l select=1:ncpus=2 -- /bin/sleep 3600) &&
    pbs_wait 120 job_is "$a" R &&
    b=$(qsub_as -l select=1:ncpus=2 -- /bin/sleep 1) && c=$(qsub_as -l select=1:ncpus=1 -- /bin/sleep 1) &&
    ccas pbs demand --json >demand.json &&
    reason_of "$b" | grep "PBS will not start it: server vm max_run_res.ncpus \[o:PBS_ALL=3\]: 2 ncpus in use" &&
    test_equal "$(reason_of "$c")" matched "the third job (one more cpu fits the limit)" &&
    in_pbs qdel "$a" "$b" "$c" && in_pbs qmgr -c "unset server max_run_res.ncpus" &&
    pbs_wait 120 no_jobs
'

test_expect_success 'max_queued: qsub refuses the job beyond it, so there is nothing to make a node for' '
    in_pbs qmgr -c "set queue workq max_queued = [u:PBS_GENERIC=1]" &&
    qsub_as -l select=1:ncpus=1 -- /bin/sleep 1 >ids.q &&
    test_expect_code 1 qsub_as -l select=1:ncpus=1 -- /bin/true 2>qsub.err &&
    grep "would exceed queue .*per-user limit" qsub.err &&
    test_equal "$(jobs_of | jq "[.[] | select(.value.job_state != \"F\")] | length")" 1 "jobs PBS has" &&
    in_pbs qdel "$(cat ids.q)"; in_pbs qmgr -c "unset queue workq max_queued" && pbs_wait 120 no_jobs
'

test_expect_success 'a stopped queue: its jobs make no nodes, with the reason' '
    in_pbs qmgr -c "create queue idleq queue_type = execution, enabled = true, started = false" &&
    id=$(qsub_as -q idleq -l select=1:ncpus=1 -- /bin/true) &&
    ccas pbs demand --json >demand.json &&
    reason_of "$id" | grep "PBS will not start it: queue idleq is stopped" &&
    in_pbs qdel "$id"
'

test_expect_success 'defaults reach the demand as PBS applies them: a queue default_chunk.slot_type and resources_default.place, the server default_chunk.ncpus in a select without it' '
    for n in $(our_nodes); do
        in_pbs qmgr -c "set node $n state += offline, comment = \"test: the administrator'"'"'s\"" || return 1
    done &&
    in_pbs qmgr -c "create queue hpcq queue_type = execution, enabled = true, started = true" &&
    in_pbs qmgr -c "set queue hpcq default_chunk.slot_type = hpc" &&
    in_pbs qmgr -c "set queue hpcq resources_default.place = scatter:excl" &&
    in_pbs qmgr -c "set server default_chunk.ncpus = 2" &&
    h=$(qsub_as -q hpcq -l select=2:ncpus=1 -- /bin/sleep 1) &&
    # (slot_type=execute: else pbs_sched may start it on an hpc VM made for
    # $h, and a later pass rightly makes $h another)
    w=$(qsub_as -l select=1:mem=1gb:slot_type=execute -- /bin/sleep 1) &&
    job_json "$h" | jq -e ".Jobs[] | .schedselect == \"2:ncpus=1:slot_type=hpc\" and .Resource_List.place == \"scatter:excl\"" &&
    job_json "$w" | jq -e ".Jobs[].schedselect == \"1:mem=1gb:slot_type=execute:ncpus=2\"" &&
    ccas pbs demand --json >demand.json &&
    ccas pbs analyze --job "$w" >analyze.out && grep "chunk 1: 1 x .*\"ncpus\":2" analyze.out &&
    test_equal "$(jq -r --arg id "$h" "[.jobs[] | select(.id == \$id) | .nodes[] | .nodearray // .name] | join(\" \")" demand.json)" \
        "hpc hpc" "nodes of the hpcq job (one a node: scatter:excl)" &&
    passes_until 300 jobs_done "$h" "$w" &&
    test_equal "$(job_exit "$h") $(job_exit "$w")" "0 0" "exit statuses" &&
    test_equal "$(job_json "$h" | jq -r ".Jobs[].exec_vnode" | tr "+" "\n" | grep -c "^(hpc-")" 2 "hpcq job on two hpc nodes" &&
    test_equal "$(made_in hpc)" 2 "hpc VMs made"
'

test_done
