#!/bin/sh
# SPDX-License-Identifier: MIT
# initconfig: tests the connection before writing; mode 0600; nothing written on failure.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/ccsim.sh"
CCAS=$(test_program "$top_builddir/plugin/ccautoscale")
PW='init-S3cret-x9'
unset CCAUTOSCALE_CONFIG

test_expect_success 'start ccsim requiring a password' '
    printf "admin:%s\n" "$PW" >auth && chmod 600 auth &&
    ccsim_start "$CCSIM_CLUSTERS/small.json" --auth-file "$TEST_TMP/auth" --boot-delay 0.2
'

test_expect_success 'initconfig tests the connection, then writes a 0600 file that works' '
    echo "$PW" | "$CCAS" initconfig --url "$CCSIM_URL" --username admin --cluster test \
        --password-file - -o new.json >out 2>err &&
    test_grep "Connected: cluster test is Started, 3 nodearrays" out &&
    test "$(stat -c %a new.json)" = 600 &&
    "$CCAS" -c new.json config check >/dev/null &&
    "$CCAS" -c new.json buckets >/dev/null &&
    test_no_grep "$PW" out && test_no_grep "$PW" err
'

test_expect_success 'a wrong password writes nothing and says why' '
    rc=0; echo wrong | "$CCAS" initconfig --url "$CCSIM_URL" --username admin --cluster test \
        --password-file - -o bad.json >out 2>err || rc=$?;
    cat err && test "$rc" = 3 && test ! -e bad.json && test ! -e bad.json.new &&
    test_grep "401" err
'

test_expect_success 'a wrong cluster name writes nothing and names the cluster' '
    rc=0; echo "$PW" | "$CCAS" initconfig --url "$CCSIM_URL" --username admin --cluster nosuch \
        --password-file - -o bad.json >out 2>err || rc=$?;
    cat err && test "$rc" = 3 && test ! -e bad.json && test_grep "nosuch" err
'

test_expect_success 'an existing file is kept unless --force, which keeps a .bak' '
    rc=0; echo "$PW" | "$CCAS" initconfig --url "$CCSIM_URL" --username admin --cluster test \
        --password-file - -o new.json 2>err || rc=$?;
    test "$rc" = 1 && test_grep "exists" err &&
    echo "$PW" | "$CCAS" initconfig --url "$CCSIM_URL" --username admin --cluster test \
        --password-file - -o new.json --force >/dev/null && test -f new.json.bak
'

test_expect_success 'with a password file the configuration refers to it' '
    echo "$PW" >pw && chmod 600 pw &&
    "$CCAS" initconfig --url "$CCSIM_URL" --username admin --cluster test --password-file "$TEST_TMP/pw" \
        -o ref.json >/dev/null &&
    jq -e ".password_file == \"$TEST_TMP/pw\" and (has(\"password\") | not)" ref.json
'

test_expect_success 'missing flags are a usage error' '
    rc=0; "$CCAS" initconfig --url "$CCSIM_URL" 2>err || rc=$?;
    test "$rc" = 1 && test_grep "required" err
'

test_done
