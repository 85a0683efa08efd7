#!/bin/sh
# SPDX-License-Identifier: MIT
# report.sh: sum automake's .trs results under the given directories and the
# step results in STEPS (lines "PASS name" / "FAIL name" / "SKIP name"), then
# print the failures and the final line "N passed, N failed".  Skips are
# listed, not counted.
#   scripts/report.sh STEPS DIR...
set -u
steps=$1
shift
pass=0
fail=0
skip=0
for f in $(find "$@" -name '*.trs' 2>/dev/null | sort); do
    while read -r key result rest; do
        [ "$key" = ":test-result:" ] || continue
        case $result in
        PASS | XFAIL) pass=$((pass + 1)) ;;
        SKIP) skip=$((skip + 1)); echo "skipped: ${f%.trs}: $rest" ;;
        *) fail=$((fail + 1)); echo "FAILED: ${f%.trs}: $result $rest" ;;
        esac
    done <"$f"
done
if [ -f "$steps" ]; then
    while read -r result name; do
        case $result in
        PASS) pass=$((pass + 1)) ;;
        SKIP) skip=$((skip + 1)); echo "skipped step: $name" ;;
        *) fail=$((fail + 1)); echo "FAILED step: $name" ;;
        esac
    done <"$steps"
fi
[ "$skip" -gt 0 ] && echo "$skip skipped"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
