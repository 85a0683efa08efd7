#!/bin/sh
# SPDX-License-Identifier: MIT
# check-noscheduler.sh: a Slurm or PBS header does not compile in the core.
#
# The core's libraries are compiled with common/noscheduler/ first on their
# include path (AM_CPPFLAGS = $(CCAS_CORE_CPPFLAGS) ..., configure.ac), whose
# headers bear Slurm's and OpenPBS's names and hold only an #error.  This
# check compiles probes with the core's compile command (CORE_COMPILE, set
# by common/Makefile.am from the same variables) and fails unless
#   - a probe including core headers compiles (the command is sound);
#   - a probe including each header of common/noscheduler/, and each Slurm
#     (slurm/*.h) or PBS header (pbs_*.h, tm.h, tm_.h, rm.h) found in any
#     folder of the core's include path (Debian's /usr/include/slurm among
#     them), as <h> and as "h", stops at noscheduler's own file for h ("the
#     core knows no scheduler: <h> ...") -- a header a new Slurm adds fails
#     here until it gets its file in common/noscheduler/;
#   - each layer's Makefile.am starts its AM_CPPFLAGS with $(CCAS_CORE_CPPFLAGS).
# Prints each failure; exit 1 if any.
set -u
top=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
[ -n "${CORE_COMPILE:-}" ] || {
    echo "check-noscheduler.sh: CORE_COMPILE is not set (make check in common/ sets it)"
    exit 1
}
work=$(mktemp -d "${TMPDIR:-/tmp}/check-noscheduler.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
bad=0

fail () {
    echo "FAIL: $*"
    bad=1
}

for layer in util ccapi conf model engine; do
    # shellcheck disable=SC2016 # the Makefile's text, not the shell's
    grep -q '^AM_CPPFLAGS = $(CCAS_CORE_CPPFLAGS) ' "$top/common/$layer/Makefile.am" ||
        fail "common/$layer/Makefile.am: AM_CPPFLAGS does not start with \$(CCAS_CORE_CPPFLAGS)"
done

# the command itself compiles the core
printf '#include "config.h"\n#include "util/error.h"\n#include "engine/plan.h"\n#include <json-c/json.h>\n' >"$work/core.c"
# shellcheck disable=SC2086 # CORE_COMPILE is a command line
if ! $CORE_COMPILE -fsyntax-only "$work/core.c" >"$work/out" 2>&1; then
    fail "a probe of core headers does not compile with: $CORE_COMPILE"
    sed 's/^/  | /' "$work/out"
fi

# every folder the core's compiler searches, then the scheduler headers in them
# shellcheck disable=SC2086
$CORE_COMPILE -E -v -x c /dev/null 2>&1 >/dev/null |
    sed -n '/^#include .* search starts here:/,/^End of search list/s/^ \([^ ].*\)$/\1/p' >"$work/dirs"
grep -q '/noscheduler$' "$work/dirs" || fail "common/noscheduler is not on the core's include path: $(tr '\n' ' ' <"$work/dirs")"
(
    cd "$top/common/noscheduler" && find . -name '*.h' | sed 's|^\./||'
    while read -r d; do
        [ -d "$d" ] || continue
        (cd "$d" && find slurm -name '*.h' 2>/dev/null)
        (cd "$d" && ls pbs_*.h tm.h tm_.h rm.h 2>/dev/null)
    done <"$work/dirs"
) | LC_ALL=C sort -u >"$work/headers"

n=0
while read -r h; do
    for form in "<$h>" "\"$h\""; do
        n=$((n + 1))
        printf '#include "config.h"\n#include %s\n' "$form" >"$work/probe.c"
        # shellcheck disable=SC2086
        if $CORE_COMPILE -fsyntax-only "$work/probe.c" >"$work/out" 2>&1; then
            fail "#include $form compiles in the core"
        elif ! grep -qF "the core knows no scheduler: <$h>" "$work/out"; then
            fail "#include $form fails in the core, but not by noscheduler's #error: add common/noscheduler/$h"
            sed 's/^/  | /' "$work/out" | head -n 5
        fi
    done
done <"$work/headers"
[ "$n" -gt 0 ] || fail "no header probed"
[ "$bad" = 0 ] && echo "ok: $n probes of $(wc -l <"$work/headers") Slurm and PBS headers stop the core's compiler: the core knows no scheduler"
exit $bad
