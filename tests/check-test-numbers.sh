#!/bin/sh
# SPDX-License-Identifier: MIT
# check-test-numbers.sh: every shell test's number is its own across tests/,
# in its suite's range, and each test is listed in its suite's Makefile.am.
#
# A shell test is tests/SUITE/tNNNN-topic.sh; its number names it in logs,
# in kept logs (tests/openpbs/logs/TEST) and in the OpenPBS suite's
# namespace (tests/lib/openpbs.sh), so no two may share one.  The ranges,
# one hundred a suite:
#   t00xx cli    t01xx pbs    t02xx openpbs    t03xx slurm
#   t04xx slurm-ha    t05xx cyclecloud    t06xx scripts
# A new suite takes the next free hundred here.  Prints each problem; exit 1
# if any.
set -u
top=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
range () {
    case $1 in
    cli) echo 00 ;;
    pbs) echo 01 ;;
    openpbs) echo 02 ;;
    slurm) echo 03 ;;
    slurm-ha) echo 04 ;;
    cyclecloud) echo 05 ;;
    scripts) echo 06 ;;
    *) echo "" ;;
    esac
}
bad=0
n=0
seen=" "
for f in "$top"/tests/*/t[0-9][0-9][0-9][0-9]-*.sh; do
    [ -f "$f" ] || continue
    n=$((n + 1))
    suite=$(basename "$(dirname "$f")")
    name=$(basename "$f")
    num=$(echo "$name" | cut -c2-5)
    r=$(range "$suite")
    if [ -z "$r" ]; then
        echo "tests/$suite/$name: tests/$suite has no range of numbers (give it the next free hundred in $0)"
        bad=1
    elif [ "$(echo "$num" | cut -c1-2)" != "$r" ]; then
        echo "tests/$suite/$name: not in tests/$suite's range, t${r}xx"
        bad=1
    fi
    case $seen in
    *" $num:"*)
        other=$(echo "$seen" | tr ' ' '\n' | sed -n "s|^$num:||p")
        echo "tests/$suite/$name: t$num is also $other"
        bad=1
        ;;
    esac
    seen="$seen$num:tests/$suite/$name "
    grep -q "^[[:blank:]]*$name\( \\\\\)\{0,1\}$" "$top/tests/$suite/Makefile.am" ||
        { echo "tests/$suite/$name: not listed in tests/$suite/Makefile.am"; bad=1; }
done
[ "$n" -gt 0 ] || { echo "no shell tests under $top/tests"; bad=1; }
[ "$bad" = 0 ] && echo "ok: $n shell tests, each number its own and in its suite's range"
exit $bad
