#!/bin/sh
# SPDX-License-Identifier: MIT
# format-check.sh: every C file is as the committed .clang-format lays it
# out (clang-format 14, Debian 12's); prints each file that is not and how to
# fix it, and exits 1.
#   scripts/format-check.sh [--fix]
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
command -v clang-format >/dev/null 2>&1 || { echo "format-check: clang-format is not installed" >&2; exit 1; }
files=$(find common plugin slurm_power pbs_hook tests -name '*.[ch]' | sort)
if [ "${1:-}" = --fix ]; then
    # shellcheck disable=SC2086
    clang-format -i --style=file $files
    exit 0
fi
bad=0
for f in $files; do
    if ! clang-format --style=file "$f" | cmp -s - "$f"; then
        echo "$f: not formatted"
        bad=1
    fi
done
if [ "$bad" = 1 ]; then
    echo "format-check: run scripts/format-check.sh --fix (clang-format -i --style=file) and commit"
    exit 1
fi
echo "format-check: $(echo "$files" | wc -l) files formatted as .clang-format says"
