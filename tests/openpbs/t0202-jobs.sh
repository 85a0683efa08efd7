#!/bin/bash
# SPDX-License-Identifier: MIT
# t0202-jobs.sh: jobs submitted with qsub by an ordinary user to a real OpenPBS
# make the periodic hook create exactly the VMs they need in ccsim; the VMs
# join PBS as vnodes of real pbs_moms; the jobs run to completion there; the
# idle nodes are drained and deleted after idle_timeout, their VMs terminated,
# and nothing is left.  idle_timeout is an hour while the tests look at the
# VMs (where each job ran), then 5 s.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/ccsim.sh"
. "$(dirname "$0")/../lib/openpbs.sh"
openpbs_prereqs

test_expect_success 'setup: OpenPBS, ccsim, install-hook (hook off while jobs are submitted)' '
    openpbs_start && install_hook && hook_enable false
'

# 8 one-core slots (4 jobs, an array of 4) and a 1-core chunk on 2-core VMs: 5
# execute VMs; 4 exclusive hpc nodes in one placement group and 2 more for the
# multi-chunk job's hpc chunks (outside any: one placement set with its
# execute chunk): 6; the gpu nodearray may hold one VM: both GPU jobs share it.
# The one-core jobs say slot_type=execute, as the stock cluster's jobs get
# it (its test_submit.py expects it on a plain qsub): without it they fit
# the hpc VMs outside the placement group too, and a pass that sees one of
# those online before the execute VMs gives it to a one-core job and rightly
# makes the multi-chunk job another (13 VMs, the same race t0203 closes the
# same way).  They say ungrouped=true, as the stock htcq's default does:
# PBS puts a job in the smallest placement set that fits, and without it the
# placement group's set (4 nodes) is that when it comes online beside the
# others, and the MPI job, finding its set busy, would run across sets
test_expect_success 'an ordinary user submits: single-core jobs, an array, MPI in a placement group, multi-chunk, GPU, one nothing can run' '
    : >ids &&
    for i in 1 2 3 4; do qsub_as -l select=1:ncpus=1:slot_type=execute:ungrouped=true -- /bin/sleep 2 >>ids || return 1; done &&
    array=$(qsub_as -J 1-4 -l select=1:ncpus=1:slot_type=execute:ungrouped=true -- /bin/sleep 2) && echo "$array" >>ids &&
    mpi=$(qsub_as -l select=4:ncpus=2:slot_type=hpc -l place=scatter:excl:group=group_id -- /bin/sleep 2) && echo "$mpi" >>ids &&
    multi=$(qsub_as -l select=2:ncpus=2:slot_type=hpc+1:ncpus=1:slot_type=execute -- /bin/sleep 2) && echo "$multi" >>ids &&
    gpu1=$(qsub_as -l select=1:ncpus=1:ngpus=1 -- /bin/sleep 3) && echo "$gpu1" >>ids &&
    gpu2=$(qsub_as -l select=1:ncpus=1:ngpus=1 -- /bin/sleep 3) && echo "$gpu2" >>ids &&
    never=$(qsub_as -l select=1:ncpus=1:ngpus=4 -- /bin/true) &&
    test_equal "$(wc -l <ids)" 9 "jobs submitted"
'

test_expect_success 'pbs demand plans exactly those VMs; pbs analyze explains an array by its first subjob' '
    ccas pbs demand --json >demand.json &&
    test_equal "$(jq "[.jobs[] | select(.matched)] | length" demand.json)" 11 "jobs and subjobs matched (all but the second GPU job and the one nothing can run)" &&
    test_equal "$(jq .summary.new_nodes demand.json)" 12 "new nodes planned" &&
    test_equal "$(jq -r "[.create[] | \"\(.nodearray):\(.count)\"] | sort | join(\" \")" demand.json)" \
        "execute:5 gpu:1 hpc:2 hpc:4" "create sets" &&
    jq -r --arg id "$never" ".jobs[] | select(.id == \$id) | .reason" demand.json | grep "ngpus" &&
    ccas pbs analyze --job "$array" >analyze.out &&
    grep "is an array: its first queued subjob" analyze.out && grep "matched" analyze.out
'

test_expect_success 'the hook creates them: 5 execute, 6 hpc (4 in one placement group), 1 gpu' '
    hook_enable true &&
    wait_for 120 sh -c "[ \$(ip netns exec $CCAS_PBS_NS curl -s $CCSIM_URL/ccsim/state | jq \".nodes | length\") -ge 12 ]" &&
    test_equal "$(made_in execute) $(made_in hpc) $(made_in gpu)" "5 6 1" "VMs made per nodearray"
'

test_expect_success 'every job runs to completion on the VMs (F, Exit_status 0), the GPU jobs one after the other on one VM' '
    wait_jobs_done 600 $(cat ids) &&
    for id in $(cat ids) "${array%\[\]*}[1]${array#*\[\]}" "${array%\[\]*}[4]${array#*\[\]}"; do
        case $id in *"[]"*) continue ;; esac
        test_equal "$(job_exit "$id")" 0 "exit status of $id" || return 1
        job_json "$id" | jq -e ".Jobs[].exec_vnode | test(\"vm:\") | not" >/dev/null || { echo "$id ran on the server node"; return 1; }
    done &&
    test_equal "$(job_json "$gpu1" | jq -r ".Jobs[].exec_host" | cut -d/ -f1)" \
        "$(job_json "$gpu2" | jq -r ".Jobs[].exec_host" | cut -d/ -f1)" "the GPU jobs share the one GPU VM"
'

test_expect_success 'the MPI job ran on 4 VMs of one placement group, which is their group_id in PBS' '
    hosts=$(job_json "$mpi" | jq -r ".Jobs[].exec_vnode" | tr "+" "\n" | sed "s/^(//; s/:.*//" | sort -u) &&
    test_equal "$(echo "$hosts" | wc -l)" 4 "hosts" &&
    pgs=$(for h in $hosts; do ccsim_get /ccsim/state | jq -r --arg h "$h" ".nodes[] | select(.Hostname == \$h) | .PlacementGroupId"; done | sort -u) &&
    test_equal "$(echo "$pgs" | wc -l)" 1 "placement groups" && test -n "$pgs" && test "$pgs" != null &&
    gids=$(for h in $hosts; do pbs_nodes_json | jq -r --arg h "$h" ".nodes[\$h].resources_available.group_id"; done | sort -u) &&
    test_equal "$gids" "$pgs" "group_id in PBS"
'

test_expect_success 'the job nothing can run made no VM and stays queued; PBS and ccautoscale say why' '
    test_equal "$(job_state "$never")" Q "state" &&
    ccas pbs demand --json | jq -r --arg id "$never" ".jobs[] | select(.id == \$id) | .reason" | grep ngpus &&
    in_pbs qdel "$never"
'

test_expect_success 'idle nodes are drained, then deleted, their VMs terminated; nothing is left' '
    ccsim_config_update "$CCAS_CONF" ".idle_timeout = 5" &&
    wait_for 120 grep -q "draining: idle for" "$TEST_TMP/ccautoscale.log" &&
    wait_no_vms 180 &&
    test_equal "$(moms_running)" "" "moms still running" &&
    test_equal "$(ccsim_made | wc -l)" 12 "VMs made in all (never a second time for the same jobs)"
'

test_done
