#!/bin/sh
# SPDX-License-Identifier: MIT
# test-check-layers.sh: check-layers.sh catches each kind of violation it
# claims to (and nothing in a clean tree).  Each case is a small tree of its
# own, given to the checker as top_srcdir: a clean one, then that tree plus
# one bad file; the checker must fail and name the file and line.  TAP.
set -u
here=$(cd "$(dirname "$0")" && pwd)
checker=$here/check-layers.sh
work=$(mktemp -d "${TMPDIR:-/tmp}/test-check-layers.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
n=0
failed=0

# put FILE (a path from the top) in tree $tree with the text on stdin
put () {
    mkdir -p "$(dirname "$tree/$1")" && cat >"$tree/$1"
}

# a tree with a file or two in every layer that does everything allowed
clean_tree () {
    tree=$1
    rm -rf "$tree"
    put common/util/log.h <<'EOF'
/* log.h: what any layer may include */
#include "config.h"
#include <stdio.h>
EOF
    put common/util/test/test_log.c <<'EOF'
#include "util/log.h"
int main (void) { if (fork () == 0) _exit (0); return 0; } /* test/ forks to crash on purpose */
EOF
    put common/engine/plan.h <<'EOF'
#include "util/log.h"
#include "model/node.h"
/* a comment that says execv (x) and #include <slurm/slurm.h> counts for nothing */
EOF
    put common/engine/plan.c <<'EOF'
#include "engine/plan.h"
static const char *s = "system (\"/bin/sh\") and fork () in a string";
// execv (argv[0], argv) in a line comment
int plan_system_check (void) { return 0; }
int use (struct x *p) { return p->system (1) + p.fork (2) + plan_system_check (); }
EOF
    put common/model/node.h <<'EOF'
#include "ccapi/record.h"
EOF
    put common/ccapi/record.h <<'EOF'
#include "util/log.h"
EOF
    put common/conf/conf.h <<'EOF'
#include "ccapi/record.h"
EOF
    put common/engine/test/request_fixture.h <<'EOF'
#include "model/test/fixture.h"
EOF
    put common/model/test/fixture.h <<'EOF'
#include "conf/conf.h"
EOF
    put common/engine/test/test_plan.c <<'EOF'
#include "config.h"
#include "request_fixture.h"
#include "tests/ccsim/sim_process.h"
EOF
    put tests/ccsim/sim_process.h <<'EOF'
int sim_process_start (void);
EOF
    put slurm_power/slurmapi.h <<'EOF'
#include <slurm/slurm.h>
#include "engine/plan.h"
EOF
    put slurm_power/test/test_names.c <<'EOF'
#include "slurmapi.h"
EOF
    put pbs_hook/run.h <<'EOF'
#include "util/log.h"
EOF
    put pbs_hook/run.c <<'EOF'
#include "run.h"
#include <spawn.h>
int r (void) { execv ("/proc/self/exe", 0); return posix_spawn (0, "x", 0, 0, 0, 0); }
EOF
    put pbs_hook/pbs_cmds.h <<'EOF'
#include "run.h"
#include <pbs_ifl.h>
EOF
    put pbs_hook/test/fixture.h <<'EOF'
#include "pbs_cmds.h"
EOF
    put plugin/cli.h <<'EOF'
#include "conf/conf.h"
#include "pbs_cmds.h"
#include "slurmapi.h"
#include <slurm/slurm.h>
#include <tm.h>
EOF
    put plugin/thp.c <<'EOF'
#include "cli.h"
#include "run.h"
EOF
}

ok () {
    n=$((n + 1))
    echo "ok $n - $1"
}

not_ok () {
    n=$((n + 1))
    failed=$((failed + 1))
    echo "not ok $n - $1"
    sed 's/^/#   /' "$work/out"
}

# expect_violation WHAT FILE LINE PATTERN: the clean tree plus FILE (stdin)
# fails the check with FILE:LINE: (FILE: when LINE is empty) and PATTERN in
# the message, and with nothing else
expect_violation () {
    what=$1 file=$2 line=$3 pattern=$4
    clean_tree "$work/tree"
    put "$file"
    if top_srcdir=$work/tree sh "$checker" >"$work/out" 2>&1; then
        not_ok "$what: the checker passed"
    elif ! grep -q "^$file:$line${line:+:} .*$pattern" "$work/out"; then
        not_ok "$what: no '$file:$line: ...$pattern' in what it printed"
    elif [ "$(grep -c "^[a-z_/]*\.[ch]:" "$work/out")" != 1 ]; then
        not_ok "$what: more than the one violation"
    else
        ok "$what"
    fi
}

echo "1..24"

clean_tree "$work/tree"
if top_srcdir=$work/tree sh "$checker" >"$work/out" 2>&1; then
    ok "a clean tree passes (allowed includes, exec in the runner, fork in test/, words in comments and strings)"
else
    not_ok "a clean tree fails"
fi

# 1. upward includes
expect_violation "the core includes a layer above" common/util/units.c 2 "util includes \"engine/plan.h\" of engine, a layer above" <<'EOF'
#include "util/log.h"
#include "engine/plan.h"
EOF
expect_violation "a core header includes an adapter" common/engine/apply.h 1 "engine includes \"pbs_hook/run.h\" of pbs_hook, a layer above" <<'EOF'
#include "pbs_hook/run.h"
EOF
expect_violation "a core test includes a layer above" common/ccapi/test/test_http.c 2 "ccapi includes \"model/test/fixture.h\" of model" <<'EOF'
#include "config.h"
#include "model/test/fixture.h"
EOF
expect_violation "an adapter includes plugin/ by its bare name" pbs_hook/pbs_nodes.c 1 "pbs_hook includes \"cli.h\" of plugin, a layer above" <<'EOF'
#include "cli.h"
EOF
expect_violation "slurm_power includes pbs_hook/ by its bare name" slurm_power/names.c 3 "never include each other" <<'EOF'
#include "slurmapi.h"
#include "engine/plan.h"
#include "pbs_cmds.h"
EOF
expect_violation "pbs_hook includes slurm_power/ by its path" pbs_hook/pbs_jobs.c 1 "never include each other" <<'EOF'
#include "slurm_power/slurmapi.h"
EOF
expect_violation "an include names no layer" common/model/job.c 1 "'json' is no layer" <<'EOF'
#include "json/json.h"
EOF
# 2. bare includes
expect_violation "a bare include in the core" common/model/job.c 2 "bare \"node.h\" in the core: name its layer (\"model/node.h\"" <<'EOF'
#include "config.h"
#include "node.h"
EOF
expect_violation "a bare include in a core test/ of a header elsewhere" common/engine/test/test_match.c 1 "bare \"fixture.h\" in the core" <<'EOF'
#include "fixture.h"
EOF
expect_violation "the suites' helpers outside a test/ folder" common/ccapi/ccapi.c 1 "only a test/ folder includes the suites' helpers" <<'EOF'
#include "tests/ccsim/sim_process.h"
EOF
expect_violation "a bare include an adapter cannot resolve" slurm_power/sync.c 1 "\"log.h\" is in neither slurm_power/" <<'EOF'
#include "log.h"
EOF
# 3. scheduler headers
expect_violation "a Slurm header in the core" common/engine/plan.c 6 "<slurm/slurm.h> in engine" <<'EOF'
#include "engine/plan.h"
/* a comment
   over lines
   execv (x)
   */
#  include <slurm/slurm.h>
EOF
expect_violation "a quoted Slurm header in the core" common/util/log.c 1 "<slurm/spank.h> in util" <<'EOF'
#include "slurm/spank.h"
EOF
expect_violation "a PBS header in the core" common/conf/conf.c 1 "<pbs_ifl.h> in conf" <<'EOF'
#include <pbs_ifl.h>
EOF
expect_violation "a Slurm header in pbs_hook/" pbs_hook/pbs_json.c 1 "<slurm/slurm_errno.h> in pbs_hook" <<'EOF'
#include <slurm/slurm_errno.h>
EOF
expect_violation "a PBS header in slurm_power/" slurm_power/sync.c 2 "<tm.h> in slurm_power" <<'EOF'
#include "slurmapi.h"
#include <tm.h>
EOF
# 4. running a program outside the runner
expect_violation "exec in plugin/" plugin/thp.c 3 "execv(): only the runner, pbs_hook/run.c" <<'EOF'
#include "cli.h"
void thp (char **argv) {
    execv ("/proc/self/exe", argv); /* the re-exec for huge pages */
}
EOF
expect_violation "posix_spawnp in pbs_hook/ beside the runner" pbs_hook/pbs_cmds.c 2 "posix_spawnp(): only the runner" <<'EOF'
#include <spawn.h>
int f (void) { return posix_spawnp (0, "qmgr", 0, 0, 0, 0); }
EOF
expect_violation "system in slurm_power/" slurm_power/resume.c 1 "system(): only the runner" <<'EOF'
int f (void) { return system ("scontrol reconfigure"); }
EOF
expect_violation "popen in the core" common/ccapi/http.c 1 "popen(): only the runner" <<'EOF'
int f (void) { return popen ("curl", "r") != 0; }
EOF
expect_violation "fork in the core" common/util/lock.c 2 "fork(): only the runner" <<'EOF'
int f (void) {
    if (fork () == 0) return 1;
    return 0;
}
EOF
expect_violation "execvp after a statement on one line" plugin/cli.c 1 "execvp(): only the runner" <<'EOF'
int f (char **a) { int x = 1; (void)x; execvp (a[0], a); return -1; }
EOF
# 5. a folder of common/ that is no layer
expect_violation "a folder under common/ that is no layer" common/sched/glue.c "" "common/sched is not a layer" <<'EOF'
int glue;
EOF

[ "$n" = 24 ] || { echo "# planned 24, ran $n"; failed=$((failed + 1)); }
[ "$failed" = 0 ]
