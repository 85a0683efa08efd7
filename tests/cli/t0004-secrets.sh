#!/bin/sh
# SPDX-License-Identifier: MIT
# The password never reaches a log, an error, --json output or a process list;
# a readable config holding one is refused.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/ccsim.sh"
CCAS=$top_builddir/plugin/ccautoscale
PW=pw-9f3a7c21-do-not-leak
export CCAUTOSCALE_CONFIG=$TEST_TMP/autoscale.json

test_expect_success 'start ccsim requiring the password' '
    printf "admin:%s\n" "$PW" >"$TEST_TMP/auth" && chmod 600 "$TEST_TMP/auth" &&
    ccsim_start "$CCSIM_CLUSTERS/small.json" --auth-file "$TEST_TMP/auth" --boot-delay 0.2 &&
    ccsim_write_config "$CCAUTOSCALE_CONFIG" ".password = \"$PW\" | .logging.level = \"debug\""
'

test_expect_success 'a config with a password readable by others is refused, with the fix' '
    chmod 644 "$CCAUTOSCALE_CONFIG" &&
    rc=0; "$CCAS" buckets 2>err || rc=$? ;
    chmod 600 "$CCAUTOSCALE_CONFIG" &&
    test "$rc" = 2 && test_grep "mode 0644" err && test_grep "chmod 600" err && test_no_grep "$PW" err
'

test_expect_success 'group-readable is refused too' '
    chmod 640 "$CCAUTOSCALE_CONFIG" &&
    rc=0; "$CCAS" buckets 2>err || rc=$? ;
    chmod 600 "$CCAUTOSCALE_CONFIG" &&
    test "$rc" = 2 && test_grep "mode 0640" err
'

test_expect_success 'a password file with a loose mode is refused' '
    printf "%s\n" "$PW" >"$TEST_TMP/pw" && chmod 604 "$TEST_TMP/pw" &&
    ccsim_write_config "$TEST_TMP/byfile.json" "del(.password) | .password_file = \"$TEST_TMP/pw\"" &&
    chmod 644 "$TEST_TMP/byfile.json" &&
    rc=0; "$CCAS" -c "$TEST_TMP/byfile.json" buckets 2>err || rc=$? ;
    test "$rc" = 2 && test_grep "password_file" err && test_grep "mode 0604" err &&
    chmod 600 "$TEST_TMP/pw" &&
    "$CCAS" -c "$TEST_TMP/byfile.json" buckets --json | jq -e "length == 4"
'

test_expect_success 'debug logs, errors and JSON output never hold the password' '
    "$CCAS" -vv buckets --json >out 2>err &&
    ccsim_fault "{\"kind\": \"http\", \"status\": 500, \"count\": -1}" &&
    "$CCAS" -vv nodes >out2 2>err2 || true &&
    ccsim_delete /ccsim/faults >/dev/null &&
    "$CCAS" config check >out3 2>err3 &&
    "$CCAS" config check --json >out4 &&
    for f in out err out2 err2 out3 err3 out4 "$TEST_TMP/ccautoscale.log"; do
        test_no_grep "$PW" "$f" || return 1
    done &&
    test_grep "retrying" err2
'

test_expect_success 'an error that quotes the server never quotes our credentials' '
    ccsim_write_config "$TEST_TMP/wrong.json" ".password = \"${PW}-wrong\"" &&
    rc=0; "$CCAS" -c "$TEST_TMP/wrong.json" -vv buckets 2>err || rc=$? ;
    test "$rc" = 3 && test_no_grep "$PW" err
'

test_expect_success 'the password is not on any command line while the program runs' '
    ccsim_fault "{\"kind\": \"latency\", \"ms\": 1500, \"match\": \"/status\", \"count\": 1}" &&
    "$CCAS" buckets >/dev/null 2>&1 &
    pid=$! &&
    sleep 0.5 &&
    cat /proc/$pid/cmdline | tr "\0" " " >cmdline &&
    wait $pid &&
    test_grep "buckets" cmdline && test_no_grep "$PW" cmdline
'

test_done
