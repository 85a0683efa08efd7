#!/bin/bash
# SPDX-License-Identifier: MIT
# t0103-hook.sh: `pbs install-hook` against the fake PBS (resources, hook,
# server grouping; idempotent), and the hook shim itself with a stand-in
# `pbs` module (tests/pbs/test_hook.py).
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/ccsim.sh"
. "$(dirname "$0")/../lib/pbs.sh"
command -v python3 >/dev/null || test_skip_all "python3 is needed by the fake PBS"
HOOK=$top_srcdir/pbs_hook/ccautoscale_hook.py

test_expect_success 'setup: ccsim, the fake PBS without site resources; PBS_HOME with the default sched_config' '
    pbs_start && : >"$FAKEPBS_STATE" &&
    mkdir -p "$TEST_TMP/pbshome/sched_priv" && PBS_HOME=$TEST_TMP/pbshome && export PBS_HOME &&
    printf "%s\n" "# resources: \"ncpus, mem\"" "resources: \"ncpus, mem, arch, host, vnode, aoe, eoe\"" \
        "smp_cluster_dist: pack" >"$PBS_HOME/sched_priv/sched_config"
'

test_expect_success 'install-hook --dry-run prints the qmgr commands and changes nothing' '
    "$CCAS" pbs install-hook --dry-run --hook-file "$HOOK" >dry.out &&
    grep "^qmgr -c .create resource ccnodeid type=string, flag=h.$" dry.out &&
    grep "^qmgr -c .set hook ccautoscale alarm = 120.$" dry.out &&
    grep "^qmgr -c .set server node_group_key = group_id.$" dry.out &&
    grep "^qmgr -c .set sched only_explicit_psets = False.$" dry.out &&
    grep "^qmgr -c .set sched do_not_span_psets = True.$" dry.out &&
    test_equal "$(fakepbs state | jq ".resources | length")" 0 "resources"
'

test_expect_success 'install-hook creates the resources, imports the hook and its config, sets the schedule' '
    fakepbs qmgr "create node static-1" &&
    "$CCAS" pbs install-hook --hook-file "$HOOK" >install.out 2>install.err &&
    fakepbs state >st.json &&
    test_equal "$(jq -r ".resources | keys | join(\" \")" st.json)" \
        "ccnodeid disk group_id instance_id ngpus nodearray slot_type ungrouped vm_size" "resources" &&
    test_equal "$(jq -r ".resources.ngpus.type + \" \" + .resources.ngpus.flag" st.json)" "long nh" "ngpus" &&
    test_equal "$(jq -r ".hooks.ccautoscale | [.event, .freq, .alarm, .enabled] | map(tostring) | join(\" \")" st.json)" \
        "periodic 15 120 true" "hook settings" &&
    jq -r ".hooks.ccautoscale.script" st.json | grep -q "def main" &&
    jq -r ".hooks.ccautoscale.config" st.json | jq -e ".config == \"$CCAS_CONF\" and .timeout == 100" &&
    test_equal "$(jq -r ".server.node_group_key" st.json)" group_id "node_group_key" &&
    test_equal "$(jq -r ".sched | [.only_explicit_psets, .do_not_span_psets] | join(\" \")" st.json)" "False True" "sched"
'

test_expect_success 'install-hook warns about what qmgr cannot set: the sched_config resources: line' '
    grep "^ccautoscale: warning: $PBS_HOME/sched_priv/sched_config: the scheduler ignores slot_type, group_id, ungrouped, disk, ngpus, nodearray, vm_size in a job.s select" install.err &&
    grep -x "resources: \"ncpus, mem, arch, host, vnode, aoe, eoe, slot_type, group_id, ungrouped, disk, ngpus, nodearray, vm_size\"" install.err
'

test_expect_success 'a node the site had, without group_id, keeps running jobs after install-hook (its own placement set)' '
    fakepbs qmgr "set node static-1 resources_available.ncpus = 2" &&
    fakepbs qsub -l select=1:ncpus=1 >/dev/null &&
    test_equal "$(fakepbs sched)" 1 "jobs started on static-1"
'

test_expect_success 'install-hook again creates nothing twice and succeeds; with the line set, no warning' '
    grep -x "resources: .*" install.err >"$PBS_HOME/sched_priv/sched_config" &&
    "$CCAS" pbs install-hook --hook-file "$HOOK" >again.out 2>again.err &&
    test_no_grep warning again.err &&
    fakepbs state | jq -r ".calls[] | join(\" \")" | grep -c "qmgr -c create" >creates &&
    test_equal "$(cat creates)" 10 "create calls over both runs (9 resources and the hook, once each)"
'

test_expect_success 'install-hook refuses a missing hook file with a clear message' '
    test_expect_code 2 "$CCAS" pbs install-hook --hook-file /nonexistent/hook.py 2>err &&
    grep "/nonexistent/hook.py: cannot read the hook script" err
'

for c in ok partial failure lines badconfig timeout missing argv conf; do
    test_expect_success "hook shim: $c" "python3 \"$top_srcdir/tests/pbs/test_hook.py\" $c"
done

# PBS Professional 18 runs hooks under Python 2.7: the shim's cases again under
# it when one is here ($CCAS_PYTHON2, else python2.7 or python2 that runs);
# Debian 12 has none, so the shim is also checked for what 2.7 lacks
python2=""
for p in ${CCAS_PYTHON2:-} python2.7 python2; do
    if "$p" -c 'import sys; sys.exit(sys.version_info[:2] != (2, 7))' >/dev/null 2>&1; then python2=$p; break; fi
done
if [ -n "$python2" ]; then
    for c in ok partial failure lines badconfig timeout missing argv conf; do
        test_expect_success "hook shim under Python 2.7 ($python2): $c" "\"$python2\" \"$top_srcdir/tests/pbs/test_hook.py\" $c"
    done
else
    echo "# *** no Python 2.7 here (set CCAS_PYTHON2): the hook shim's cases ran under Python 3 only ***" >&2
fi

test_expect_success 'the hook shim uses nothing Python 2.7 lacks (py2-compat.py), which finds what the old shim used' '
    python3 "$top_srcdir/tests/pbs/py2-compat.py" "$HOOK" &&
    printf "%s\n" "import subprocess, time" "try:" "    f = open(\"x\")" "except OSError as e:" "    pass" \
        "t = time.monotonic()" "subprocess.run([\"true\"])" "print(f\"{t}\")" >py3only.py &&
    test_expect_code 1 python3 "$top_srcdir/tests/pbs/py2-compat.py" py3only.py >lint.out &&
    test_equal "$(wc -l <lint.out)" 4 "uses found (OSError around open, time.monotonic, subprocess.run, an f-string)"
'

test_done
