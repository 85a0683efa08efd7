#!/bin/bash
# SPDX-License-Identifier: MIT
# t0503-openpbs-server.sh: the scheduler spec on a PBS server the stock
# cyclecloud/pbspro project set up (azpbs run from /etc/cron.d and from a
# periodic hook 'autoscale', its autoscale.json and node history in
# /opt/cycle/pbspro), in a scratch root, with a stand-in jetpack, a real OpenPBS
# server (tests/lib/openpbs.sh) and ccsim as CycleCloud.  Bad input first (no
# qmgr, CycleCloud unreachable, an azpbs autoscale.json import-azpbs cannot read:
# each a message, a non-zero exit, azpbs untouched), then the real run: built
# from the release tarball without Slurm, autoscale.json (0600, root's) made
# from azpbs's by import-azpbs, install-hook's takeover (azpbs's cron entry in
# /var/lib/ccautoscale/azpbs, its hook off, the VMs its history kept out kept
# out, the way back in the log), ccautoscale's hook running passes inside
# pbs_server, the stock queues; a second run changes nothing; azpbs turned on
# again (as the stock spec does at a converge) is turned off again.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/ccsim.sh"
# an instance of its own, whatever this file's number (tests/lib/openpbs.sh)
OPENPBS_TEST_NS=${OPENPBS_TEST_NS:-ccascc503}
OPENPBS_TEST_ADDR=${OPENPBS_TEST_ADDR:-10.254.99.1}
. "$(dirname "$0")/../lib/openpbs.sh"
. "$(dirname "$0")/../lib/cyclecloud.sh"
cc_prereqs
openpbs_prereqs

CC_CLUSTER=$(jq -r .clusterName "$OPENPBS_CLUSTER")
CC_RUN=in_pbs

# What PBS has of ccautoscale's and azpbs's: hooks, resources, queues, server settings
pbs_state () {
    {
        in_pbs qmgr -c "list hook ccautoscale"
        in_pbs qmgr -c "list hook autoscale"
        for r in slot_type group_id ungrouped vm_size nodearray ccnodeid instance_id ngpus disk; do
            in_pbs qmgr -c "list resource $r"
        done
        in_pbs qmgr -c "list queue workq"
        in_pbs qmgr -c "list queue htcq"
        in_pbs qmgr -c "list server" | grep -E "node_group|scheduler_iteration"
        in_pbs qmgr -c "list sched" | grep -E "psets"
    } 2>&1 | grep -Ev "^ *(total_jobs|state_count|hook_config_sha|hook_sha)"
}

test_expect_success 'setup: a PBS server as the stock spec leaves it, azpbs in cron and as a periodic hook' '
    openpbs_start &&
    cc_setup &&
    mkdir -p "$CC_ROOT/etc/cron.d" "$CC_ROOT/opt/cycle/pbspro" &&
    for s in 0 15 30 45; do
        echo "* * * * * root sleep $s && /opt/cycle/jetpack/system/bootstrap/cron_wrapper.sh /opt/cycle/pbspro/venv/bin/azpbs autoscale --config /opt/cycle/pbspro/autoscale.json 2>/opt/cycle/pbspro/last_cron.log"
    done >"$CC_ROOT/etc/cron.d/azpbs_autoscale" &&
    jq --arg c "$CC_CLUSTER" --arg url "$CCSIM_URL" ".cluster_name = \$c | .url = \$url | .username = \"admin\"
        | .pbspro.ignore_queues = [\"workq\"]" "$top_srcdir/tests/data/pbs/azpbs-autoscale.json" \
        >"$CC_ROOT/opt/cycle/pbspro/autoscale.json" &&
    chmod 600 "$CC_ROOT/opt/cycle/pbspro/autoscale.json" &&
    if command -v sqlite3 >/dev/null; then
        sqlite3 "$CC_ROOT/opt/cycle/pbspro/nodehistory.db" "CREATE TABLE nodes (node_id TEXT, hostname TEXT,
            instance_id TEXT, create_time REAL, last_match_time REAL, ready_time REAL, delete_time REAL, ignore BOOL);
            INSERT INTO nodes VALUES ('"'"'kept-out-id'"'"', '"'"'execute-99'"'"', NULL, 0, 0, 0, NULL, 1);
            INSERT INTO nodes VALUES ('"'"'joined-id'"'"', '"'"'execute-98'"'"', NULL, 0, 0, 0, NULL, 0);"
    fi &&
    printf "import pbs\npbs.event().accept()\n" >"$TEST_TMP/azpbs_hook.py" &&
    in_pbs qmgr -c "create hook autoscale" &&
    in_pbs qmgr -c "import hook autoscale application/x-python default $TEST_TMP/azpbs_hook.py" &&
    in_pbs qmgr -c "set hook autoscale event = periodic" &&
    in_pbs qmgr -c "set hook autoscale freq = 15" &&
    in_pbs qmgr -c "set hook autoscale enabled = true" &&
    cc_snapshot >"$TEST_TMP/stock.snapshot" &&
    pbs_state >stock.pbs &&
    SITE=".ccautoscale.autoscale = {logging: {file: \"$TEST_TMP/cc.log\", level: \"debug\"},
        pbs: {hook_freq: \"5\", command_timeout: 20}, idle_timeout: 600}" &&
    cc_jetpack "$SITE | del(.slurm, .ccautoscale.scheduler) | .pbspro = {version: \"20.0.1-0\",
        queues: {workq: {ignore: false}, htcq: {ignore: false}}, cron_method: \"cron\"}" &&
    cp "$TEST_TMP/jetpack.json" good.json
'

test_expect_success 'PBS without qmgr: a message, exit 2, azpbs untouched, nothing installed' '
    rc=0 && CC_RUN= cc_scheduler_script PATH=/usr/sbin:/usr/bin:/sbin:/bin || rc=$?
    test "$rc" = 2 &&
    cat run.err &&
    test_grep "^ERROR: ccautoscale: PBS has no qmgr on this node" run.err &&
    test_grep "the stock autoscaler is left in place" run.err &&
    cc_stock_untouched && pbs_state >now.pbs && diff stock.pbs now.pbs &&
    test ! -e "$CC_ROOT/usr/sbin/ccautoscale"
'

test_expect_success 'CycleCloud unreachable: built from the tarball without Slurm, then a message, exit 2, azpbs untouched' '
    jq ".cyclecloud.config.web_server = \"http://127.0.0.1:9\"" good.json >"$TEST_TMP/jetpack.json" &&
    test_expect_code 2 cc_scheduler_script &&
    cat run.out run.err &&
    test_grep "no package ccautoscale-$CC_VERSION-.*-noslurm-.* in the project.s blobs: building the release tarball" run.out &&
    test_grep "building ccautoscale $CC_VERSION: configure --without-slurm" run.out &&
    test_grep "^ERROR: ccautoscale: ccautoscale cannot use CycleCloud at http://127.0.0.1:9 as .admin. for cluster .$CC_CLUSTER. (status exited 3)" run.err &&
    test_grep "the stock autoscaler is left in place" run.err &&
    cc_stock_untouched && pbs_state >now.pbs && diff stock.pbs now.pbs &&
    test ! -e "$CC_ROOT/etc/ccautoscale/autoscale.json" &&
    "$CC_ROOT/usr/sbin/ccautoscale" --version >version && test_no_grep "built against libslurm" version
'

test_expect_success 'azpbs'"'"'s autoscale.json import-azpbs cannot read: a message, exit 2, azpbs untouched' '
    cp good.json "$TEST_TMP/jetpack.json" &&
    azpbs=$CC_ROOT/opt/cycle/pbspro/autoscale.json &&
    mv "$azpbs" azpbs.stock && echo "{\"cluster_name\": " >"$azpbs" &&
    rc=0 && cc_scheduler_script || rc=$?
    mv -f azpbs.stock "$azpbs" &&
    test "$rc" = 2 &&
    cat run.out run.err &&
    test_grep "^ERROR: ccautoscale: .ccautoscale pbs import-azpbs $azpbs. failed (exit 2): " run.err &&
    test_grep "the stock autoscaler is left in place" run.err &&
    cc_stock_untouched && pbs_state >now.pbs && diff stock.pbs now.pbs &&
    test ! -e "$CC_ROOT/etc/ccautoscale/autoscale.json"
'

test_expect_success 'the real run: configured from azpbs'"'"'s autoscale.json, azpbs turned off by install-hook, ccautoscale'"'"'s hook on' '
    cp good.json "$TEST_TMP/jetpack.json" &&
    cc_scheduler_script &&
    cat run.out run.err &&
    test_grep "^ccautoscale: import-azpbs: changed *pbspro.ignore_queues" run.out &&
    test_grep "^ccautoscale: import-azpbs: dropped *lock_file" run.out &&
    test_grep "ccautoscale reaches cluster .$CC_CLUSTER. at $CCSIM_URL" run.out &&
    test_grep "is scaled by ccautoscale $CC_VERSION (hook .ccautoscale.)" run.out &&
    conf=$CC_ROOT/etc/ccautoscale/autoscale.json &&
    test "$(stat -c "%a %U:%G" "$conf")" = "600 root:root" &&
    jq -e --arg bin "$OPENPBS_PREFIX/bin" ".pbs.bin_dir == \$bin and .pbs.hook_freq == 5 and .cluster_name == \"$CC_CLUSTER\"" "$conf" &&
    jq -e --slurpfile j good.json --arg url "$CCSIM_URL" ".pbs.ignore_queues == [\"workq\"]
        and (.default_resources | length) == 8 and .disable_default_resources == true
        and .boot_timeout == 3600 and .idle_timeout == 600 and .url == \$url
        and .password == \$j[0].cyclecloud.config.password
        and .lock_file == \"$CC_ROOT/run/ccautoscale.lock\"" "$conf" &&
    test ! -e "$CC_ROOT/etc/cron.d/azpbs_autoscale" &&
    test_grep "azpbs autoscale" "$CC_ROOT/var/lib/ccautoscale/azpbs/azpbs_autoscale" &&
    test ! -e "$CC_ROOT/var/lib/ccautoscale/cyclecloud/stock/azpbs_autoscale" &&
    test_grep "^ccautoscale: install-hook: azpbs.s cron entry $CC_ROOT/etc/cron.d/azpbs_autoscale moved to $CC_ROOT/var/lib/ccautoscale/azpbs/azpbs_autoscale$" run.out &&
    test_grep "^ccautoscale: install-hook: azpbs is off (its periodic hook .autoscale. and its cron file $CC_ROOT/etc/cron.d/azpbs_autoscale).  To go back: qmgr -c .set hook ccautoscale enabled = false.; qmgr -c .set hook autoscale enabled = true.; move $CC_ROOT/var/lib/ccautoscale/azpbs/ back into /etc/cron.d$" run.out &&
    if command -v sqlite3 >/dev/null; then
        test_grep "^ccautoscale: install-hook: 1 VM azpbs kept out of PBS" run.out
    fi &&
    in_pbs qmgr -c "list hook autoscale" | test_grep "^    enabled = false$" - &&
    in_pbs qmgr -c "list hook ccautoscale" >hook.out &&
    test_grep "^    enabled = true$" hook.out && test_grep "^    event = periodic$" hook.out &&
    test_grep "^    freq = 5$" hook.out
'

test_expect_success 'the stock queues: htcq made as the stock spec makes it, workq'"'"'s defaults' '
    in_pbs qmgr -c "list queue htcq" >htcq &&
    test_grep "^    queue_type = Execution$" htcq && test_grep "^    resources_default.ungrouped = true$" htcq &&
    test_grep "^    resources_default.place = free$" htcq &&
    test_grep "^    enabled = True$" htcq && test_grep "^    started = True$" htcq &&
    in_pbs qmgr -c "list queue workq" >workq &&
    test_grep "^    resources_default.ungrouped = false$" workq && test_grep "^    resources_default.place = scatter:excl$" workq
'

test_expect_success 'pbs_server runs ccautoscale'"'"'s hook: a pass every few seconds, with the written configuration' '
    wait_for 60 grep -q "pbs: 0 queued jobs" "$TEST_TMP/cc.log" &&
    n=$(grep -c "pbs: 0 queued jobs" "$TEST_TMP/cc.log") &&
    wait_for 30 sh -c "test \$(grep -c \"pbs: 0 queued jobs\" \"$TEST_TMP/cc.log\") -gt $n"
'

test_expect_success 'a job in the stock htcq gets a VM through the hook, joins as a vnode and runs to completion' '
    id=$(qsub_as -q htcq -l select=1:ncpus=1 -- /bin/true) &&
    wait_jobs_done 180 "$id" &&
    test_equal "$(job_exit "$id")" 0 "exit status" &&
    test "$(vms_in execute)" -ge 1 &&
    job_json "$id" | jq -e ".Jobs[].exec_vnode | test(\"vm:\") | not" >/dev/null
'

# the files the spec and install-hook write, but not the state the hook's
# passes keep meanwhile (every 5 s: nodes, holds, breakers, metrics, events)
# nor the lock they take
spec_files () {
    cc_snapshot | grep -Ev "^\./run(/| )" |
        grep -Ev "^\./var/lib/ccautoscale/([^/ ]*\.(json|jsonl|prom)|state)(/| )" |
        cat - <(cc_snapshot | grep "^\./var/lib/ccautoscale/pbs_hook_config.json ")
}

test_expect_success 'a second run changes nothing: every file as it was, PBS as it was' '
    spec_files >before &&
    test_grep "^\./var/lib/ccautoscale/pbs_hook_config.json " before &&
    pbs_state >before.pbs &&
    cc_scheduler_script &&
    cat run.out &&
    test_grep "ccautoscale $CC_VERSION is installed" run.out &&
    test_grep "hook is installed and nothing changed" run.out &&
    test_no_grep "^ccautoscale: wrote" run.out &&
    spec_files >after &&
    diff before after &&
    pbs_state >after.pbs && diff before.pbs after.pbs
'

test_expect_success 'azpbs on again (the stock spec re-made its cron file, its hook enabled): the next run turns it off' '
    cp "$CC_ROOT/var/lib/ccautoscale/azpbs/azpbs_autoscale" "$CC_ROOT/etc/cron.d/azpbs_autoscale" &&
    in_pbs qmgr -c "set hook autoscale enabled = true" &&
    cc_scheduler_script &&
    cat run.out run.err &&
    test_no_grep "hook is installed and nothing changed" run.out &&
    test_grep "^ccautoscale: install-hook: azpbs is off (its periodic hook .autoscale. and its cron file" run.out &&
    test ! -e "$CC_ROOT/etc/cron.d/azpbs_autoscale" &&
    test_grep "azpbs autoscale" "$CC_ROOT/var/lib/ccautoscale/azpbs/azpbs_autoscale" &&
    in_pbs qmgr -c "list hook autoscale" | test_grep "^    enabled = false$" - &&
    in_pbs qmgr -c "list hook ccautoscale" | test_grep "^    enabled = true$" -
'

test_done
