#!/bin/sh
# SPDX-License-Identifier: MIT
# demand on a big queue: the table summarises unless --all, --json has every
# set and job, one a line, and the plan is the same as looking at every node.
. "$(dirname "$0")/../lib/tap.sh"
CCAS=$(test_program "$top_builddir/plugin/ccautoscale")
export CCAUTOSCALE_CONFIG=$TEST_TMP/autoscale.json

test_expect_success 'a queue of many small placement groups (tests/bench/gen-mix pgs)' '
    "$top_srcdir/tests/bench/gen-mix" pgs 3000 600 "$TEST_TMP/mix" &&
    jq -n --arg dir "$TEST_TMP" "{url: \"https://127.0.0.1:9\", username: \"u\", password: \"p\",
        cluster_name: \"bench\", state_dir: (\$dir + \"/state\"), lock_file: (\$dir + \"/lock\"),
        logging: {syslog: false}}" | jq -f "$TEST_TMP/mix/config.jq" >"$CCAUTOSCALE_CONFIG" &&
    chmod 600 "$CCAUTOSCALE_CONFIG"
'

demand () {
    "$CCAS" demand --jobs "$TEST_TMP/mix/jobs.json" --status "$TEST_TMP/mix/status.json" "$@"
}

test_expect_success 'demand --json: every create set and every job, one a line' '
    demand --json >plan.json &&
    jq -e ".summary.jobs == 3000 and (.jobs | length) == 3000" plan.json &&
    jq -e ".create | length > 20" plan.json &&
    test "$(grep -c "^    { \"id\": " plan.json)" = 3000 &&
    test "$(grep -c "^    { \"nodearray\": " plan.json)" = "$(jq ".create | length" plan.json)"
'

test_expect_success 'the table summarises: create sets by bucket, the commonest reasons' '
    demand >table &&
    test "$(wc -l <table)" -le 80 &&
    test_grep "sets, one per bucket and placement group, in .* buckets; --json lists each" table &&
    test_grep "^Jobs: 3000 pending" table &&
    sets=$(jq ".create | length" plan.json) &&
    test_grep "($sets sets" table
'

test_expect_success 'demand --all prints a row per set' '
    demand --all >all &&
    sets=$(jq ".create | length" plan.json) &&
    test "$(awk "NR > 2 && NF == 0 { exit } NR > 2" all | wc -l)" = "$sets"
'

test_expect_success 'the counts in the table are those of the plan' '
    new=$(jq .summary.new_nodes plan.json) &&
    test_grep "Would create $new nodes" table &&
    test_grep "$(jq -r ".summary | \"Jobs: 3000 pending, \(.matched) matched, \(.unmatched) unmatched.\"" plan.json)" table
'

test_done
