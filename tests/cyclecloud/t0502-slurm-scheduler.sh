#!/bin/bash
# SPDX-License-Identifier: MIT
# t0502-slurm-scheduler.sh: the scheduler spec on a Slurm scheduler the stock
# cyclecloud/slurm project set up, in a scratch root, with a stand-in jetpack
# and ccsim as CycleCloud running the stock template's cluster (its nodearrays'
# Configuration: slurm.node_prefix "cc_test-", partitions, slurm.hpc).  Bad input
# first (no URL, a Slurm without headers, wrong credentials: each a message, a
# non-zero exit, azslurm untouched), then the real run: ccautoscale built from
# the release tarball against this Slurm, azslurm's autoscale.json imported
# (slurm import-azslurm) into autoscale.json (0600, SlurmUser's), azure.conf
# rewritten in place (mode and owner kept, the stock one set aside), slurm.conf's
# programs switched with its Include lines intact and a copy kept, azslurmd and
# its cron entry off, the sync timer on; the real slurmctld takes azslurm's node
# names and a job's node resumes through ccautoscale-resume into ccsim; a second
# run changes nothing.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/ccsim.sh"
. "$(dirname "$0")/../lib/slurm.sh"
. "$(dirname "$0")/../lib/cyclecloud.sh"
cc_prereqs
why=$(slurm_prereqs) || test_skip_all "$why"
id slurm >/dev/null 2>&1 || test_skip_all "no user 'slurm' (Debian's slurmctld package makes it)"

CC_CLUSTER=cc_test
SCHED_NAME=cc-test

test_expect_success 'setup: a scheduler as the stock Slurm spec leaves it, ccsim with credentials' '
    chmod 755 "$TEST_TMP" &&
    cc_setup &&
    SLURM_CTLD_PORT=$(slurm_free_port) &&
    test_at_exit "rm -f ${TMPDIR:-/tmp}/ccas-slurm-ports.$SLURM_CTLD_PORT" &&
    SLURM_TEST_DIR=$CC_ROOT/sched/$SCHED_NAME && export SLURM_TEST_DIR &&
    test_at_exit slurm_stop &&
    printf "admin:s3cret \"pw\" \\\\ x\n" >auth && chmod 600 auth &&
    cc_stock_cluster "$CC_CLUSTER" >cluster.json &&
    ccsim_start "$TEST_TMP/cluster.json" --name "$CC_CLUSTER" --auth-file auth \
        --boot-delay 2 --ip-base 127.0.1.1 \
        --on-ready "$top_srcdir/tests/slurm/vm-up" --on-terminate "$top_srcdir/tests/slurm/vm-down" &&
    cc_stock_slurm "$SCHED_NAME" "$SLURM_CTLD_PORT" &&
    test "$CC_SCHED" = "$SLURM_TEST_DIR" &&
    for f in slurm.conf azure.conf gres.conf; do cp -p "$CC_SCHED/$f" "stock-$f" || return 1; done &&
    touch ccautoscale.log && chown slurm ccautoscale.log &&
    # what a site may add through the template: one machine runs every node
    SITE=".ccautoscale.autoscale = {slurm: {node_port_base: \"$SLURM_CTLD_PORT\"},
        logging: {file: \"$TEST_TMP/ccautoscale.log\", level: \"debug\"}, connect_timeout: 2}" &&
    cc_jetpack "$SITE" &&
    test -s "$CC_BLOBS/ccautoscale-$CC_VERSION.tar.gz"
'

test_expect_success 'no CycleCloud URL: a message, exit 2, azslurm untouched, nothing installed' '
    cc_jetpack "$SITE | del(.cyclecloud.config.web_server)" &&
    test_expect_code 2 cc_scheduler_script &&
    cat run.err &&
    test_grep "^ERROR: ccautoscale: no CycleCloud URL: .jetpack config cyclecloud.config.web_server. is empty" run.err &&
    test_grep "the stock autoscaler is left in place" run.err &&
    cc_stock_untouched &&
    test ! -e "$CC_ROOT/usr/sbin/ccautoscale" && test ! -e "$CC_ROOT/etc/ccautoscale/autoscale.json"
'

test_expect_success 'a Slurm without headers: a message naming them, exit 2, azslurm untouched' '
    mkdir -p noheaders/sbin && ln -s "$(command -v slurmctld)" noheaders/sbin/slurmctld &&
    cc_jetpack "$SITE" &&
    test_expect_code 2 cc_scheduler_script SLURMCTLD="$TEST_TMP/noheaders/sbin/slurmctld" &&
    cat run.err &&
    test_grep "^ERROR: ccautoscale: Slurm $SLURM_TEST_VERSION (.*/noheaders/sbin/slurmctld) has no headers (.*/noheaders/include/slurm/slurm.h)" run.err &&
    test_grep "slurm-devel-$SLURM_TEST_VERSION on EL" run.err &&
    cc_stock_untouched &&
    test ! -e "$CC_ROOT/usr/sbin/ccautoscale"
'

test_expect_success 'wrong credentials: built from the tarball, then refused by CycleCloud: a message, exit 2, azslurm untouched' '
    cc_jetpack "$SITE | .cyclecloud.config.password = \"not-the-password\"" &&
    test_expect_code 2 cc_scheduler_script &&
    cat run.out run.err &&
    test_grep "no package ccautoscale-$CC_VERSION-.*-slurm$SLURM_TEST_VERSION-.* in the project.s blobs: building the release tarball" run.out &&
    test_grep "building ccautoscale $CC_VERSION: configure --with-slurm" run.out &&
    test_grep "^ERROR: ccautoscale: ccautoscale cannot use CycleCloud at $CCSIM_URL as .admin. for cluster .$CC_CLUSTER. (status exited 3)" run.err &&
    test_grep "the stock autoscaler is left in place" run.err &&
    test_no_grep "not-the-password" run.err && test_no_grep "not-the-password" run.out &&
    test_no_grep "not-the-password" "$TEST_TMP/jetpack.log" &&
    cc_stock_untouched &&
    test ! -e "$CC_ROOT/etc/ccautoscale/autoscale.json" && test ! -e "$CC_ROOT/etc/ccautoscale/.autoscale.json.new" &&
    "$CC_ROOT/usr/sbin/ccautoscale" --version >version &&
    test_grep "^Slurm: built against libslurm $SLURM_TEST_VERSION" version
'

test_expect_success 'the real run: installed, configured, tested, then azslurm replaced' '
    cc_jetpack "$SITE" &&
    cc_scheduler_script &&
    cat run.out run.err &&
    test_grep "ccautoscale $CC_VERSION for Slurm $SLURM_TEST_VERSION is installed" run.out &&
    test_grep "ccautoscale reaches cluster .$CC_CLUSTER. at $CCSIM_URL" run.out &&
    test_grep "is scaled by ccautoscale $CC_VERSION" run.out &&
    test_no_grep "s3cret" run.out && test_no_grep "s3cret" run.err
'

test_expect_success 'autoscale.json: mode 0600, SlurmUser'"'"'s, the node'"'"'s settings, the site'"'"'s, and it works' '
    conf=$CC_ROOT/etc/ccautoscale/autoscale.json &&
    test "$(stat -c "%a %U:%G" "$conf")" = "600 slurm:slurm" &&
    jq -e --arg url "$CCSIM_URL" --arg dir "$CC_SCHED" --arg port "$SLURM_CTLD_PORT" \
        ".url == \$url and .username == \"admin\" and .cluster_name == \"cc_test\" and
         .password == \"s3cret \\\"pw\\\" \\\\ x\" and
         .slurm.conf_dir == \$dir and (.slurm | has(\"node_prefix\") | not) and
         .slurm.nodes_file == \"azure.conf\" and .slurm.keepalive_file == \"keep_alive.conf\" and
         .default_resources == [{select: {}, name: \"slurm_gpus\", value: \"node.gpu_count\"}] and
         (has(\"idle_timeout\") | not) and (has(\"azslurmd\") | not) and
         .slurm.node_port_base == (\$port | tonumber) and .connect_timeout == 2" "$conf" &&
    test_grep "^ccautoscale: import-azslurm: Wrote .*/imported.json (mode 0600) from $CC_ROOT/opt/azurehpc/slurm/autoscale.json" run.out &&
    test_grep "^ccautoscale: import-azslurm: = nodes cc-test-htc-\[1-6\]" run.out &&
    test_grep "^ccautoscale: import-azslurm: ~ partition hpc: Default YES -> NO" run.out &&
    "$CC_ROOT/usr/sbin/ccautoscale" -c "$conf" config check >check.out &&
    "$CC_ROOT/usr/sbin/ccautoscale" -c "$conf" status >status.out &&
    test_grep "htc" status.out &&
    test "$(stat -c %U "$CC_ROOT/var/lib/ccautoscale")" = slurm &&
    test "$(stat -c %U "$CC_ROOT/run/ccautoscale.lock")" = slurm &&
    test_grep "^f $CC_ROOT/run/ccautoscale.lock 0644 slurm slurm -" "$CC_ROOT/etc/tmpfiles.d/ccautoscale.conf" &&
    test "$(readlink "$CC_ROOT/etc/slurm/ccautoscale.json")" = "$conf"
'

test_expect_success 'slurm.conf: ccautoscale'"'"'s programs, azslurm'"'"'s commented out, the stock Include lines intact, a copy kept' '
    conf=$CC_SCHED/slurm.conf &&
    test -L "$CC_ROOT/etc/slurm/slurm.conf" &&
    test "$(stat -c "%a %U" "$conf")" = "644 slurm" &&
    test_grep "^ResumeProgram=$CC_ROOT/usr/sbin/ccautoscale-resume$" "$conf" &&
    test_grep "^SuspendProgram=$CC_ROOT/usr/sbin/ccautoscale-suspend$" "$conf" &&
    test_grep "^ResumeFailProgram=$CC_ROOT/usr/sbin/ccautoscale-resume-fail$" "$conf" &&
    test_grep "^#ccautoscale# ResumeProgram=$CC_ROOT/opt/azurehpc/slurm/resume_program.sh" "$conf" &&
    test_grep "^#ccautoscale# TreeWidth=16$" "$conf" &&
    test "$(grep -ci "^[a-z]*program=" "$conf")" = 3 &&
    test "$(grep -c "^#ccautoscale# " "$conf")" = 4 &&
    grep "^Include " stock-slurm.conf >includes.stock &&
    grep "^Include " "$conf" >includes.now &&
    diff includes.stock includes.now &&
    test_grep "^Include azure.conf$" includes.now && test_grep "^Include keep_alive.conf$" includes.now &&
    test_no_grep ccautoscale.conf "$conf" && test ! -e "$CC_SCHED/ccautoscale.conf" &&
    stock=$CC_ROOT/var/lib/ccautoscale/cyclecloud/stock &&
    cmp stock-slurm.conf "$stock/slurm.conf" &&
    test "$(stat -c "%a %U:%G" "$stock/slurm.conf")" = "644 slurm:slurm"
'

test_expect_success 'azure.conf rewritten in place by slurm conf --write: stock names, mode and owner kept, the stock one kept' '
    az=$CC_SCHED/azure.conf &&
    test "$(readlink "$CC_ROOT/etc/slurm/azure.conf")" = "$az" &&
    test "$(stat -c "%a %U:%G" "$az")" = "640 slurm:slurm" &&
    test_grep "^# Generated by ccautoscale from CycleCloud cluster .cc_test." "$az" &&
    test_grep "^NodeName=cc-test-htc-\[1-6\] Feature=cloud,Standard_F2s_v2,htc State=CLOUD" "$az" &&
    test_grep "^NodeName=cc-test-hpc-\[1-4\] " "$az" &&
    test_grep "^NodeName=cc-test-gpu-\[1-2\] " "$az" &&
    test_grep "^PartitionName=htc Nodes=cc-test-htc-\[1-6\]" "$az" &&
    test_grep "^Include $CC_SCHED/keep_alive.conf$" "$az" &&
    cmp stock-azure.conf "$az.bak" &&
    test_grep "^NodeName=cc-test-gpu-\[1-2\] Name=gpu Count=4" "$CC_SCHED/gres.conf" &&
    stock=$CC_ROOT/var/lib/ccautoscale/cyclecloud/stock &&
    cmp stock-azure.conf "$stock/azure.conf" && cmp stock-gres.conf "$stock/gres.conf" &&
    test "$(stat -c "%a %U:%G" "$stock/azure.conf")" = "640 slurm:slurm"
'

test_expect_success 'azslurmd and its return_to_idle cron entry are off; the sync timer is on' '
    test ! -e "$CC_ROOT/etc/systemd/system/multi-user.target.wants/azslurmd.service" &&
    test -e "$CC_ROOT/etc/systemd/system/azslurmd.service" &&
    test_no_grep return_to_idle "$CC_ROOT/var/spool/cron/crontabs/root" &&
    test -L "$CC_ROOT/etc/systemd/system/timers.target.wants/ccautoscale-sync.timer" &&
    systemctl --root="$CC_ROOT" -q is-enabled ccautoscale-sync.timer
'

# slurmctld as CycleCloud's start-services starts it once the converge is done,
# with the private /etc/hosts the Slurm suite gives it (tests/slurm/with-hosts)
start_slurmctld () {
    SLURM_CONF=$CC_ROOT/etc/slurm/slurm.conf && export SLURM_CONF &&
    slurm_write_hosts || return 1
    "$top_srcdir/tests/slurm/with-hosts" "$CC_SCHED/hosts" \
        slurmctld -D -i -f "$SLURM_CONF" >"$CC_SCHED/log/slurmctld.out" 2>&1 &
    SLURM_CTLD_PID=$!
}

test_expect_success 'the real slurmctld accepts the configuration: ccautoscale'"'"'s nodes, none of azslurm'"'"'s twice' '
    start_slurmctld &&
    wait_for 20 sinfo -h || { cat "$CC_SCHED/log/slurmctld.log" "$CC_SCHED/log/slurmctld.out" >&2; return 1; }
    sinfo -h -N -o "%N %P %t" >sinfo.out && cat sinfo.out &&
    test_grep "^cc-test-htc-1 htc idle~" sinfo.out &&
    test "$(grep -c "^cc-test-htc-" sinfo.out)" = 6 &&
    test "$(grep -c "^cc-test-hpc-[1-4] hpc idle~$" sinfo.out)" = 4 &&
    test "$(grep -c "^cc-test-gpu-[12] gpu\* idle~$" sinfo.out)" = 2 &&
    test "$(sort -u sinfo.out | wc -l)" = 12 &&
    scontrol show config | grep -E "^(ResumeProgram|SuspendProgram|ResumeFailProgram) " >programs &&
    test "$(grep -c "$CC_ROOT/usr/sbin/ccautoscale-" programs)" = 3
'

cat >"$TEST_TMP/job.sh" <<'JOB'
#!/bin/sh
srun sh -c 'echo "$SLURMD_NODENAME"'
JOB
chmod 755 "$TEST_TMP/job.sh"

test_expect_success 'a job'"'"'s node resumes through ccautoscale-resume (as SlurmUser) into ccsim; the job completes' '
    ccsim_delete /ccsim/requests >/dev/null &&
    id=$(sbatch --parsable -N1 -p htc -o "$TEST_TMP/job.out" "$TEST_TMP/job.sh") &&
    slurm_wait_job "$id" COMPLETED 120 &&
    test "$(cat job.out)" = cc-test-htc-1 &&
    ccsim_made_once cc-test-htc-1 &&
    test ! -e "$CC_ROOT/opt/azurehpc/slurm/logs/stock-programs.log" &&
    grep -q "\"resume_requested\"" "$CC_ROOT/var/lib/ccautoscale/events.jsonl"
' || { slurm_dump; cat "$CC_SCHED/log/slurmctld.log" | tail -30; }

test_expect_success 'slurm sync (the timer'"'"'s command) runs with the written configuration' '
    "$CC_ROOT/usr/sbin/ccautoscale" -c "$CC_ROOT/etc/ccautoscale/autoscale.json" slurm sync --json >sync.json &&
    jq -e . sync.json >/dev/null
'

test_expect_success 'a second run changes nothing: every file as it was (content, mode, owner, mtime)' '
    cc_snapshot | grep -Ev "^\./(var/lib/ccautoscale/(state|events|ccautoscale\.prom)|sched/$SCHED_NAME/(log|spool|slurmctld\.pid|vm))" >before &&
    cc_scheduler_script &&
    cat run.out &&
    test_grep "ccautoscale $CC_VERSION for Slurm $SLURM_TEST_VERSION is installed" run.out &&
    test_no_grep "^ccautoscale: wrote" run.out &&
    test_no_grep "^ccautoscale: import-azslurm: Wrote" run.out &&
    test_grep "^ccautoscale: import-azslurm: .*warning: nodearray .htc.: Configuration slurm.node_prefix .cc_test-. made a hostname: .cc-test-." run.out &&
    cc_snapshot | grep -Ev "^\./(var/lib/ccautoscale/(state|events|ccautoscale\.prom)|sched/$SCHED_NAME/(log|spool|slurmctld\.pid|vm))" >after &&
    diff before after
'

# An older stock project (no azslurm autoscale.json): the spec's own route,
# in a second scratch root with the ccautoscale built above (its units copied
# there, where systemctl --root looks) and a port no slurmctld listens on (the
# spec then only writes the files)
test_expect_success 'without azslurm'"'"'s autoscale.json: slurm.node_prefix, ccautoscale.conf, the stock Include lines out' '
    (
        CC_ROOT=$TEST_TMP/root2 && mkdir -p "$CC_ROOT/etc" "$CC_ROOT/var/lib" "$CC_ROOT/run" &&
        cc_stock_slurm "$SCHED_NAME" "$((SLURM_CTLD_PORT + 99))" &&
        rm "$CC_ROOT/opt/azurehpc/slurm/autoscale.json" && cp -p "$CC_SCHED/azure.conf" stock2-azure.conf &&
        mkdir -p "$CC_ROOT/usr/lib/systemd/system" &&
        cp "$TEST_TMP/root/usr/lib/systemd/system/ccautoscale-sync."* "$CC_ROOT/usr/lib/systemd/system/" &&
        for run in 1 2; do
            rc=0 && cc_scheduler_script CCAS_PREFIX="$TEST_TMP/root/usr" || rc=$?
            cat run.out run.err && test "$rc" = 0 &&
            test_grep "^ccautoscale: no $CC_ROOT/opt/azurehpc/slurm/autoscale.json: ccautoscale.s nodes go in $CC_SCHED/ccautoscale.conf" run.out &&
            test_no_grep "import-azslurm" run.out || exit 1
        done &&
        test_no_grep "^ccautoscale: wrote" run.out &&
        jq -e ".slurm.node_prefix == \"cc-test-\" and (.slurm | has(\"nodes_file\") | not)" "$CC_ROOT/etc/ccautoscale/autoscale.json" &&
        test_grep "^#ccautoscale# Include azure.conf$" "$CC_SCHED/slurm.conf" &&
        test_grep "^#ccautoscale# Include keep_alive.conf$" "$CC_SCHED/slurm.conf" &&
        test_grep "^Include $CC_SCHED/ccautoscale.conf$" "$CC_SCHED/slurm.conf" &&
        test_grep "^ResumeProgram=$TEST_TMP/root/usr/sbin/ccautoscale-resume$" "$CC_SCHED/slurm.conf" &&
        test_grep "^NodeName=cc-test-htc-\[1-6\] " "$CC_SCHED/ccautoscale.conf" &&
        cmp stock2-azure.conf "$CC_SCHED/azure.conf"
    )
'

test_done
