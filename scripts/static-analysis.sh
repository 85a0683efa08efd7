#!/bin/sh
# SPDX-License-Identifier: MIT
# static-analysis.sh: cppcheck and clang-tidy over every C file, with the
# checked-in configuration (.clang-tidy, scripts/static/json-c.cfg); exits 1
# on any finding.  Needs config.h from a configured build.
#   scripts/static-analysis.sh BUILDDIR
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:?usage: static-analysis.sh BUILDDIR (a configured build, for config.h)}
cd "$top" || exit 1
[ -f "$build/config.h" ] || { echo "static-analysis: no $build/config.h: configure first" >&2; exit 1; }
dirs="common slurm_power pbs_hook plugin tests/ccsim tests/fuzz tests/bench"
# clang-tidy on the product (the simulator included); the tests get cppcheck
tidy_dirs="common slurm_power pbs_hook plugin tests/ccsim"
rc=0

echo "== cppcheck $(cppcheck --version | sed 's/Cppcheck //')"
cppcheck --quiet --error-exitcode=1 --enable=warning,portability,performance --std=c11 --inline-suppr \
    --library="$top/scripts/static/json-c.cfg" --suppress=missingIncludeSystem \
    -I common -I slurm_power -I pbs_hook -I plugin -I "$build" $dirs || rc=1

echo "== clang-tidy $(clang-tidy --version | sed -n 's/.*version //p')"
flags="-std=c11 -D_GNU_SOURCE -DHAVE_CONFIG_H -DPOWER_RESUME -I$build -Icommon -Islurm_power -Ipbs_hook -Iplugin
 $(pkg-config --cflags json-c libcurl libmicrohttpd 2>/dev/null)"
# shellcheck disable=SC2086
find $tidy_dirs -name '*.c' ! -name 'test_*.c' | sort | xargs -P "$(nproc)" -n 6 sh -c 'clang-tidy --quiet "$@" -- '"$(echo $flags)" tidy \
    >"$build/clang-tidy.out" 2>&1 || rc=1
grep -E "(warning|error): " "$build/clang-tidy.out" | sort -u
n=$(grep -cE "(warning|error): " "$build/clang-tidy.out")
echo "clang-tidy: $n findings"
[ "$n" = 0 ] || rc=1
exit $rc
