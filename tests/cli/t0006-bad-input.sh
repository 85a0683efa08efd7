#!/bin/sh
# SPDX-License-Identifier: MIT
# Bad configuration, bad jobs and bad responses: a clear error naming the place, a non-zero exit, no change.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/ccsim.sh"
CCAS=$(test_program "$top_builddir/plugin/ccautoscale")
export CCAUTOSCALE_CONFIG=$TEST_TMP/autoscale.json

test_expect_success 'start ccsim' '
    ccsim_start "$CCSIM_CLUSTERS/small.json" &&
    ccsim_write_config "$CCAUTOSCALE_CONFIG"
'

bad_config () {
    ccsim_write_config "$TEST_TMP/bad.json" "$1" &&
    rc=0; "$CCAS" -c "$TEST_TMP/bad.json" config check >/dev/null 2>err || rc=$? ;
    test "$rc" = 2 && test_grep "$2" err
}

test_expect_success 'an unknown key is named by its path' '
    bad_config ".nodearrays = {\"hpc\": {\"idel_timeout\": 5}}" "bad.json: nodearrays.hpc.idel_timeout: unknown key"
'

test_expect_success 'a wrong type is named with what was expected' '
    bad_config ".nodearrays = {\"hpc\": {\"idle_timeout\": \"5m\"}}" "nodearrays.hpc.idle_timeout: expected a number, got \"5m\""
'

test_expect_success 'a bad default_resources rule names its path' '
    bad_config ".default_resources = [{\"select\": {}, \"name\": \"x\", \"value\": \"size::4gbb\"}]" \
        "default_resources\[0\].value: .size::4gbb.: unknown unit suffix .gbb." ||
    { ccsim_write_config "$TEST_TMP/bad.json" ".default_resources = [{\"select\": {}, \"name\": \"x\", \"value\": \"size::4gbb\"}]" &&
      rc=0; "$CCAS" -c "$TEST_TMP/bad.json" buckets >/dev/null 2>err || rc=$? ; cat err; false; }
'

test_expect_success 'a bad rule stops demand before anything runs' '
    ccsim_write_config "$TEST_TMP/bad.json" ".default_resources = [{\"select\": {\"node.vmsize\": 1}, \"name\": \"x\", \"value\": 1}]" &&
    echo "[{\"id\": \"1\"}]" >jobs.json &&
    rc=0; "$CCAS" -c "$TEST_TMP/bad.json" demand --jobs jobs.json --apply 2>err || rc=$? ;
    test "$rc" = 2 && test_grep "default_resources\[0\].select.node.vmsize: unknown node property" err &&
    test "$(ccsim_node_count)" = 0
'

test_expect_success 'a bad jobs file names the job and field; nothing is created' '
    echo "[{\"id\": \"a\", \"node_count\": 2}, {\"id\": \"b\", \"constraints\": {\"or\": {}}}]" >jobs.json &&
    rc=0; "$CCAS" demand --jobs jobs.json --apply 2>err || rc=$? ;
    test "$rc" = 1 && test_grep "jobs.json: \[1\].constraints.or: expected a list of constraints" err &&
    test "$(ccsim_node_count)" = 0
'

test_expect_success 'jobs that are not JSON are refused with the position' '
    printf "[{\"id\": 1,\n  \"node_count\": }]" >jobs.json &&
    rc=0; "$CCAS" demand --jobs jobs.json 2>err || rc=$? ;
    test "$rc" = 1 && test_grep "jobs.json:2:" err
'

test_expect_success 'jobs from stdin work' '
    echo "[{\"id\": \"x\", \"constraints\": {\"ncpus\": 1}}]" | "$CCAS" demand --jobs - --json | jq -e ".summary.matched == 1"
'

test_expect_success 'a status with a wrong field type is refused with its path' '
    ccsim_get /clusters/test/status | jq ".nodearrays[1].buckets[0].availableCount = \"many\"" >status.json &&
    echo "[]" >jobs.json &&
    rc=0; "$CCAS" demand --jobs jobs.json --status status.json 2>err || rc=$? ;
    test "$rc" = 1 && test_grep "nodearrays\[1\].buckets\[0\].availableCount: expected an integer, got \"many\"" err
'

test_expect_success 'a status with negative or contradicting limits: a warning naming bucket and field; the tightest holds' '
    ccsim_get /clusters/test/status |
        jq "(.nodearrays[0].buckets[0] | .quotaCoreCount, .familyQuotaCoreCount) |= -4 |
            .nodearrays[0].buckets[1].familyConsumedCoreCount = 60 | .nodearrays[0].buckets[1].availableCount = 99" >status.json &&
    echo "[{\"id\": \"1\", \"constraints\": {\"node.nodearray\": \"htc\"}}]" >jobs.json &&
    "$CCAS" demand --jobs jobs.json --status status.json --json >plan.json 2>err &&
    test_grep "buckets\[0\] (htc/Standard_F2s_v2): quotaCoreCount: -4 is negative; read as 0" "$TEST_TMP/ccautoscale.log" &&
    test_grep "buckets\[1\] (htc/Standard_F4s_v2): familyConsumedCoreCount 60 is above familyQuotaCoreCount 40" "$TEST_TMP/ccautoscale.log" &&
    test_grep "buckets\[1\] (htc/Standard_F4s_v2): availableCount 99 is above maxCount 20" "$TEST_TMP/ccautoscale.log" &&
    jq -e ".summary.unmatched == 1 and (.create | length) == 0" plan.json &&
    jq -r ".jobs[0].reason" plan.json | grep "availableCount 0"
'

test_expect_success 'a status missing required fields is refused' '
    echo "{\"state\": \"Started\"}" >status.json &&
    rc=0; "$CCAS" demand --jobs jobs.json --status status.json 2>err || rc=$? ;
    test "$rc" = 1 && test_grep "nodearrays: missing" err
'

test_expect_success 'usage errors exit 1 with a hint' '
    rc=0; "$CCAS" create --nodearray htc 2>err || rc=$? ;
    test "$rc" = 1 && test_grep "exactly one of --count and --cores" err &&
    rc=0; "$CCAS" demand --nodes x.json 2>err || rc=$? ;
    test "$rc" = 1 && test_grep "--nodes needs --status" err &&
    rc=0; "$CCAS" scale --nodearray hpc 2>err || rc=$? ;
    test "$rc" = 1 && test_grep "exactly one target" err
'

RESUME=$(test_program "$top_builddir/slurm_power/ccautoscale-resume")
if [ -x "$RESUME" ]; then
    # "at once": by the count from the brackets ("more than the N names"),
    # before libslurm builds a name; after, its message would be "N names,
    # more than the N" (slurm_power/slurmapi.c)
    test_expect_success 'a hostlist standing for millions of names is refused at once, before libslurm builds it' '
        printf "ClusterName=t\nSlurmctldHost=localhost\nNodeName=htc-[1-2] State=CLOUD\n" >min.conf &&
        test_expect_code 1 env SLURM_CONF="$TEST_TMP/min.conf" "$RESUME" \
            "htc-[1-65536,100001-165536,200001-265536,300001-365536,400001-465536,500001-565536,600001-665536,700001-765536,800001-865536,900001-965536,1000001-1065536,1100001-1165536,1200001-1265536,1300001-1365536,1400001-1465536,1500001-1565536,1600001-1600001]" 2>err &&
        grep ": more than the 1048576 names one call may name" err &&
        test_expect_code 1 env SLURM_CONF="$TEST_TMP/min.conf" "$RESUME" "htc-[1-2000000]" 2>err &&
        grep "a range of more than 65536 names" err &&
        test_expect_code 1 env SLURM_CONF="$TEST_TMP/min.conf" "$RESUME" "htc-[1-2][1-2000][1-2000]" 2>err &&
        grep "a name holds more than one bracket group" err &&
        test_expect_code 1 env SLURM_CONF="$TEST_TMP/min.conf" "$RESUME" "htc-[2,65555555555555555555]" 2>err &&
        grep "a bracket holds a number of more than 9 digits" err &&
        test_expect_code 1 env SLURM_CONF="$TEST_TMP/min.conf" "$RESUME" "htc-[0hpc-467][2-467]" 2>err &&
        grep "a bracket holds something other than numbers, ranges and commas" err
    '
else
    test_skip "a hostlist standing for millions of names is refused at once" "built without Slurm"
fi

test_done
