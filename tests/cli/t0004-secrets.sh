#!/bin/sh
# SPDX-License-Identifier: MIT
# The password never reaches a log, an error, --json output or a process list;
# a readable config holding one is refused.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/ccsim.sh"
CCAS=$(test_program "$top_builddir/plugin/ccautoscale")
PW=pw-9f3a7c21-do-not-leak
# the password as it crosses the wire, in the Basic authorization header
PW64=$(printf "admin:%s" "$PW" | base64 -w0)
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
        test_no_grep "$PW" "$f" && test_no_grep "$PW64" "$f" || return 1
    done &&
    test_grep "retrying" err2
'

test_expect_success 'an error that quotes the server never quotes our credentials' '
    ccsim_write_config "$TEST_TMP/wrong.json" ".password = \"${PW}-wrong\"" &&
    rc=0; "$CCAS" -c "$TEST_TMP/wrong.json" -vv buckets 2>err || rc=$? ;
    test "$rc" = 3 && test_no_grep "$PW" err &&
    test_no_grep "$(printf "admin:%s-wrong" "$PW" | base64 -w0)" err
'

# What `ps` shows: every process's arguments and the program's environment,
# while it waits on the server: ccsim has carried its request out (so the
# request log shows it at once) and holds the answer back until the test has
# looked.
test_expect_success 'the password is on no command line and in no environment while the program runs' '
    ccsim_delete /ccsim/requests >/dev/null &&
    ccsim_hold_answer /status "$CCAS" buckets &&
    pid=$held_pid &&
    kill -0 $pid &&
    ps -eo args >ps.out && tr "\0" " " </proc/$pid/cmdline >cmdline &&
    # a program that holds the password is not dumpable: without
    # CAP_SYS_PTRACE its environment cannot be read at all, which is as good
    { { tr "\0" "\n" </proc/$pid/environ >environ.out; } 2>environ.err || test_grep "Permission denied" environ.err; } &&
    ccsim_release && wait $pid &&
    test_grep "buckets" cmdline &&
    for f in ps.out environ.out cmdline; do
        test_no_grep "$PW" "$f" && test_no_grep "$PW64" "$f" || return 1
    done
'

# A core file would hold the password (the configuration's text, libcurl's
# copy): a program that read the configuration makes none, whatever the
# core limit.  The same kill of a plain program first shows that this
# machine writes core files at all (core_pattern "core": in the working
# directory); where it does not, there is nothing to prove.  The program
# runs bare: valgrind would write its own core, and ASan turns core files off.
test_expect_success 'a program holding the password dumps no core when it crashes' '
    mkdir -p cores && cd cores &&
    ulimit -c unlimited 2>/dev/null || { echo "the core limit cannot be raised here; nothing to prove"; return 0; }
    { sleep 10 & ctl=$!; } && kill -ABRT $ctl; wait $ctl
    if ! ls core* >/dev/null 2>&1; then
        echo "this machine writes no core file here (core_pattern: $(cat /proc/sys/kernel/core_pattern)); nothing to prove"
        return 0
    fi
    rm -f core* &&
    ccsim_delete /ccsim/requests >/dev/null &&
    ccsim_hold_answer /status "$top_builddir/plugin/ccautoscale" buckets &&
    kill -ABRT $held_pid; wait $held_pid; rc=$?
    ccsim_release
    test "$rc" -gt 128 && test_equal "$(ls core* 2>/dev/null)" "" "core files"
'

test_expect_success 'no command takes a password as an argument (only --password-file)' '
    "$CCAS" --help | sed -n "s/^  \([a-z][a-z -]*[a-z]\)  .*/\1/p" | sed "s/ *$//" >commands &&
    test "$(wc -l <commands)" -gt 10 &&
    while read -r c; do
        "$CCAS" $c --help >help.out 2>&1 || { echo "$c --help failed"; return 1; }
        if grep -E -- "--(password|passwd|secret)([ =]|$)" help.out; then echo "$c takes a password argument"; return 1; fi
    done <commands &&
    "$CCAS" initconfig --help | grep -q -- "--password-file"
'

test_done
