# SPDX-License-Identifier: MIT
# tap.sh: a small TAP harness for the shell suites (in the spirit of sharness).
#
#   . "$(dirname "$0")/../lib/tap.sh"
#   test_expect_success 'what is checked' '
#       commands; the test passes when the last one succeeds
#   '
#   test_done
#
# Each body is eval'ed in the test script's own shell (as sharness does), so
# what one test sets up the next can use; chain commands with && — the body
# passes when its last command succeeds; `return 1` fails it early.  Output
# goes to the test's log (shown by automake on failure).  `test_skip_all
# REASON` skips a whole suite with TAP's "1..0 # SKIP".  Cleanup registered with
# `test_at_exit 'cmd'` runs on exit, on failure and on signals.
set -u

TAP_COUNT=0
TAP_FAILED=0
TAP_EXIT_CMDS=""
: "${top_builddir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
export top_builddir top_srcdir
TEST_NAME=$(basename "$0" .sh)
TEST_TMP=$(mktemp -d "${TMPDIR:-/tmp}/ccas-$TEST_NAME.XXXXXX")
export TEST_TMP

test_at_exit () {
    TAP_EXIT_CMDS="$1
$TAP_EXIT_CMDS"
}

tap_cleanup () {
    local rc=$?
    trap - EXIT INT TERM
    if [ -n "$TAP_EXIT_CMDS" ]; then
        eval "$TAP_EXIT_CMDS" >/dev/null 2>&1 || true
    fi
    if [ "${TAP_KEEP_TMP:-0}" = 1 ] || { [ "$TAP_FAILED" -gt 0 ] && [ "${TAP_KEEP_ON_FAIL:-0}" = 1 ]; }; then
        echo "# kept $TEST_TMP" >&2
    else
        rm -rf "$TEST_TMP"
    fi
    exit $rc
}
trap tap_cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Bodies run in the test's scratch directory, so that files they write never
# land in the source tree (make distcheck's is read-only).
test_run_ () {
    cd "$TEST_TMP" || return 1
    eval "$1"
}

test_expect_success () {
    local desc=$1 body=$2
    TAP_COUNT=$((TAP_COUNT + 1))
    if test_run_ "$body" >"$TEST_TMP/out.$TAP_COUNT" 2>&1; then
        echo "ok $TAP_COUNT - $desc"
    else
        TAP_FAILED=$((TAP_FAILED + 1))
        echo "not ok $TAP_COUNT - $desc"
        sed 's/^/#   /' "$TEST_TMP/out.$TAP_COUNT"
        return 1
    fi
}

# A body that must fail (exit non-zero) to pass.
test_expect_failure_exit () {
    test_expect_success "$1" "! ( $2 )"
}

test_skip () {
    TAP_COUNT=$((TAP_COUNT + 1))
    echo "ok $TAP_COUNT - $1 # SKIP $2"
}

test_skip_all () {
    echo "1..0 # SKIP $1"
    exit 0
}

test_done () {
    echo "1..$TAP_COUNT"
    [ "$TAP_FAILED" -eq 0 ]
}

# Assertions that explain themselves in the log.
test_equal () {
    if [ "$1" != "$2" ]; then
        echo "expected '$2', got '$1'${3:+ ($3)}" >&2
        return 1
    fi
}

# Run the command in the remaining arguments; it must exit with status $1.
test_expect_code () {
    local want=$1 got=0
    shift
    "$@" || got=$?
    if [ "$got" != "$want" ]; then
        echo "expected exit status $want from '$*', got $got" >&2
        return 1
    fi
}

test_grep () {
    if ! grep -q -- "$1" "$2"; then
        echo "'$1' not found in $2:" >&2
        sed 's/^/  | /' "$2" >&2
        return 1
    fi
}

# The entries of ccautoscale state file $1: every state file names its format
# ("ccautoscale_format": 1) beside them, which is not an entry.
state_entries () {
    jq 'del(.ccautoscale_format)' "$1"
}

test_no_grep () {
    if grep -q -- "$1" "$2"; then
        echo "'$1' unexpectedly found in $2:" >&2
        grep -n -- "$1" "$2" | sed 's/^/  | /' >&2
        return 1
    fi
}

# The path to run for the program at $1.  With CCAS_VALGRIND_LOGS set (the
# valgrind-suites step of run-tests) it is a wrapper that runs the program
# under memcheck, each run's report in a file there of its own (named by
# pid and time: a pid may come round again); an empty file is a clean run,
# and the step fails on any other.  The report goes to a file,
# not stderr, because the tests read the programs' stderr.
test_program () {
    local real=$1 wrap
    # a program this build lacks (no Slurm) stays missing: tests check for it
    if [ -z "${CCAS_VALGRIND_LOGS:-}" ] || [ ! -x "$real" ]; then
        echo "$real"
        return
    fi
    wrap=$TEST_TMP/memcheck/$(basename "$real")
    mkdir -p "$TEST_TMP/memcheck" &&
    cat >"$wrap" <<EOF &&
#!/bin/sh
exec valgrind -q --leak-check=full --show-leak-kinds=definite,indirect \\
    --errors-for-leak-kinds=definite,indirect --track-fds=no \\
    --log-file="$CCAS_VALGRIND_LOGS/$TEST_NAME.$(basename "$real").%p.\$(date +%s%N)" "$real" "\$@"
EOF
    chmod 755 "$wrap" &&
    echo "$wrap"
}

# Wait up to $1 seconds for the command in the remaining arguments to
# succeed, trying again every WAIT_FOR_INTERVAL seconds (default 0.2).  This
# is how a test waits, and the only way: for an event (a state reached, a line
# logged, a process gone), never for a guessed number of seconds.  The bound
# only says when to give up, so it is generous — a machine busy with other
# work is several times slower, and a wait that ends with its event costs
# nothing more.  What a test then inspects must stay so until it has looked:
# hold it (a long idle_timeout, capacity window or held answer, ended when
# the test is done), do not race it.
wait_for () {
    local limit=$1 start
    shift
    start=$(date +%s)
    while ! "$@" >/dev/null 2>&1; do
        if [ $(($(date +%s) - start)) -ge "$limit" ]; then
            echo "timed out after ${limit}s waiting for: $*" >&2
            return 1
        fi
        sleep "${WAIT_FOR_INTERVAL:-0.2}"
    done
}

# Kill a process by pid: TERM, up to 10 s for it to exit, then KILL.  Never
# by name.
kill_pid () {
    local pid=$1
    [ -n "$pid" ] || return 0
    kill -TERM "$pid" 2>/dev/null || return 0
    WAIT_FOR_INTERVAL=0.1 wait_for 10 pid_gone "$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
}

pid_gone () {
    ! kill -0 "$1" 2>/dev/null
}
