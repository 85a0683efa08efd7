#!/bin/bash
# SPDX-License-Identifier: MIT
# The README's demo interrupted as Ctrl-C would (SIGINT to its whole process
# group) while jobs run and VMs exist: it leaves no process and no temporary
# directory behind.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/ccsim.sh"
. "$(dirname "$0")/../lib/slurm.sh"
why=$(slurm_prereqs) || test_skip_all "$why"
command -v setsid >/dev/null || test_skip_all "setsid is not installed"

test_expect_success 'start the demo in its own process group; wait until VMs exist' '
    mkdir tmpdir || return 1
    # a simple command in the background: setsid makes the demo (this pid) a
    # group leader; a background command starts with SIGINT ignored, and a
    # shell cannot trap what it inherited ignored, so restore it as a terminal would
    TMPDIR=$TEST_TMP/tmpdir top_builddir=$top_builddir top_srcdir=$top_srcdir \
        setsid env --default-signal=INT bash "$top_srcdir/scripts/demo.sh" >demo.out 2>&1 &
    echo $! >demo.pid
    wait_for 60 sh -c "test \"\$(ps -o pgid= -p $(cat demo.pid) | tr -d \" \")\" = $(cat demo.pid)" &&
    wait_for 300 sh -c "grep -q \"Ready\" demo.out" &&
    test -n "$(ls tmpdir)" &&
    test -n "$(pgrep -f "$TEST_TMP/[t]mpdir")"
'

# "[t]mpdir": a pattern that does not match the command lines that carry it
test_expect_success 'SIGINT to the group: the demo exits, and nothing it started is left' '
    pid=$(cat demo.pid) &&
    kill -INT -- -"$pid" &&
    wait_for 120 sh -c "! kill -0 $pid 2>/dev/null" &&
    wait_for 60 sh -c "test -z \"\$(pgrep -f $TEST_TMP/[t]mpdir)\"" &&
    test_equal "$(ls tmpdir)" ""
' || { cat "$TEST_TMP/demo.out"; pgrep -af "$TEST_TMP/[t]mpdir"; }

# nothing may outlive a failed run of this test either
kill -KILL -- -"$(cat "$TEST_TMP/demo.pid" 2>/dev/null)" 2>/dev/null
pkill -KILL -f "$TEST_TMP/tmpdir" 2>/dev/null
test_done
