# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# pbs.sh: ccautoscale in place of azpbs on a PBS server the stock
# cyclecloud/pbspro:server spec has set up (PBS running, the workq and htcq
# queues, azpbs in /opt/cycle/pbspro run from /etc/cron.d/azpbs_autoscale or
# from the periodic hook 'autoscale').
#
# In order, each step only once the ones before it worked:
#   1. qmgr: refuse at once when PBS is not there;
#   2. ccautoscale built without Slurm (or a package for this system);
#   3. autoscale.json (root's: pbs_server runs the hook as root), with pbs.bin_dir;
#      tested: 'config check', 'status', and 'pbs demand' (it reads PBS's jobs and nodes);
#   4. azpbs off: its cron file set aside in /var/lib/ccautoscale/cyclecloud/stock, its
#      hook disabled; then 'ccautoscale pbs install-hook' (turned back on if that fails);
#   5. the sched_config resources: line install-hook asks for, and the stock queues'
#      settings where a queue lacks them (a site's own values are kept).
# Execute nodes keep running the stock execute spec, which waits for the vnode
# the autoscaler makes.

# Where the stock spec's azpbs runs from
AZPBS_CRON=$CCAS_ROOT/etc/cron.d/azpbs_autoscale
AZPBS_HOOK=autoscale

pbs_find () {
    QMGR=${QMGR:-$(command -v qmgr 2>/dev/null || true)}
    [ -n "$QMGR" ] || [ ! -x /opt/pbs/bin/qmgr ] || QMGR=/opt/pbs/bin/qmgr
    [ -n "$QMGR" ] && [ -x "$QMGR" ] ||
        ccas_fail "PBS has no qmgr on this node (not on PATH, not /opt/pbs/bin/qmgr: is the stock cyclecloud/pbspro:server spec listed before ccautoscale:scheduler, and did it install PBS?); the stock autoscaler is left in place"
    PBS_BIN=$(dirname "$QMGR")
    "$QMGR" -c "list server" >/dev/null 2>"$CCAS_TMP/qmgr.err" ||
        ccas_fail "qmgr cannot reach the PBS server: $(head -c 300 "$CCAS_TMP/qmgr.err"); the stock autoscaler is left in place"
}

pbs_qmgr () {
    "$QMGR" -c "$1"
}

# The value of ATTR in `qmgr -c "list OBJECT"` (empty when unset)
pbs_attr () {
    pbs_qmgr "list $1" 2>/dev/null | awk -v a="$2" '
        { line = $0; sub(/^[ \t]+/, "", line) }
        index(line, a " = ") == 1 { print substr(line, length(a) + 4); exit }'
}

# PBS_HOME, from the pbs.conf the commands read
pbs_home () {
    local conf=${PBS_CONF_FILE:-$CCAS_ROOT/etc/pbs.conf}
    sed -n 's/^PBS_HOME=//p' "$conf" 2>/dev/null | tail -n 1
}

no_configure_args () {
    echo --without-slurm
}

# Put azpbs's cron file and hook back (install-hook failed after they were turned off).
pbs_stock_back () {
    [ ! -f "$CCAS_WORK/stock/azpbs_autoscale" ] || [ -e "$AZPBS_CRON" ] ||
        mv "$CCAS_WORK/stock/azpbs_autoscale" "$AZPBS_CRON"
    [ ! -f "$CCAS_WORK/stock/azpbs_hook_was_enabled" ] ||
        { pbs_qmgr "set hook $AZPBS_HOOK enabled = true" && rm -f "$CCAS_WORK/stock/azpbs_hook_was_enabled"; }
}

pbs_stock_off () {
    mkdir -p "$CCAS_WORK/stock" || ccas_fail "cannot make $CCAS_WORK/stock"
    if [ -f "$AZPBS_CRON" ]; then
        mv -f "$AZPBS_CRON" "$CCAS_WORK/stock/azpbs_autoscale" ||
            ccas_fail "cannot move $AZPBS_CRON aside"
        ccas_say "azpbs's cron entry moved to $CCAS_WORK/stock/azpbs_autoscale"
    fi
    if pbs_qmgr "list hook $AZPBS_HOOK" >/dev/null 2>&1 &&
        [ "$(pbs_attr "hook $AZPBS_HOOK" enabled)" != false ]; then
        pbs_qmgr "set hook $AZPBS_HOOK enabled = false" || ccas_fail "cannot disable azpbs's hook '$AZPBS_HOOK'"
        : >"$CCAS_WORK/stock/azpbs_hook_was_enabled"
        ccas_say "azpbs's periodic hook '$AZPBS_HOOK' disabled"
    fi
}

pbs_install_hook () {
    local rc=0 line conf pid
    "$CCAS_BIN" pbs install-hook --hook-file "$CCAS_PREFIX/share/ccautoscale/pbs/ccautoscale_hook.py" \
        >"$CCAS_TMP/install-hook.out" 2>"$CCAS_TMP/install-hook.err" || rc=$?
    if [ "$rc" != 0 ]; then
        pbs_stock_back
        ccas_fail "'ccautoscale pbs install-hook' failed (exit $rc): $(tail -n 5 "$CCAS_TMP/install-hook.err" | tr '\n' ' '); azpbs is back in place"
    fi
    ccas_changed=yes
    ccas_say "ccautoscale's periodic hook is installed"
    # what qmgr cannot set: the resources the scheduler's select honours
    line=$(grep -x 'resources: .*' "$CCAS_TMP/install-hook.err" | tail -n 1)
    [ -n "$line" ] || return 0
    conf=$(pbs_home)/sched_priv/sched_config
    [ -f "$conf" ] || { ccas_warn "no $conf to write '$line' in"; return 0; }
    [ -e "$CCAS_WORK/stock/sched_config" ] || cp -p "$conf" "$CCAS_WORK/stock/sched_config"
    sed "s/^resources: .*/$line/" "$conf" >"$conf.ccautoscale" && chmod --reference="$conf" "$conf.ccautoscale" &&
        mv -f "$conf.ccautoscale" "$conf" || ccas_fail "cannot write $conf"
    ccas_say "$conf: $line"
    pid=$(cat "$(pbs_home)/sched_priv/sched.lock" 2>/dev/null)
    [ -z "$pid" ] || kill -HUP "$pid" 2>/dev/null || ccas_warn "pbs_sched (pid $pid) not told to re-read $conf"
}

# set ATTR of queue Q to VALUE when the queue has no value of its own
pbs_queue_default () {
    [ -n "$(pbs_attr "queue $1" "$2")" ] && return 0
    pbs_qmgr "set queue $1 $2 = $3" || ccas_fail "qmgr: cannot set queue $1 $2 = $3"
    ccas_say "queue $1: $2 = $3"
}

# The stock queues, as the stock server spec makes them: workq for jobs kept
# in one placement group, htcq for jobs that are not.
pbs_queues () {
    if pbs_qmgr "list queue workq" >/dev/null 2>&1; then
        pbs_queue_default workq resources_default.place scatter:excl
        pbs_queue_default workq resources_default.ungrouped false
    fi
    if ! pbs_qmgr "list queue htcq" >/dev/null 2>&1; then
        pbs_qmgr "create queue htcq" || ccas_fail "qmgr: cannot create queue htcq"
        ccas_say "queue htcq created"
    fi
    pbs_queue_default htcq queue_type Execution
    pbs_queue_default htcq resources_default.place free
    pbs_queue_default htcq resources_default.ungrouped true
    pbs_queue_default htcq enabled True
    pbs_queue_default htcq started True
    local q
    for q in workq htcq; do
        if ccas_true "$(jp "pbspro.queues.$q.ignore" False)"; then
            ccas_warn "pbspro.queues.$q.ignore is set (Autoscale off): ccautoscale has no per-queue ignore yet, so jobs in $q still get nodes"
        fi
    done
}

pbs_main () {
    pbs_find
    ccas_read_settings
    ccas_install pbs "" no_configure_args
    CCAS_EXTRA_CHECK="pbs demand" ccas_write_config root:root \
        --set "pbs.bin_dir=$(ccas_json_str "$PBS_BIN")"
    export CCAUTOSCALE_CONFIG=$CCAS_CONFIG

    # from here on ccautoscale works: take over from azpbs
    pbs_stock_off
    if [ "$ccas_changed" = yes ] || ! pbs_qmgr "list hook ccautoscale" >/dev/null 2>&1 ||
        [ "$(pbs_attr "hook ccautoscale" enabled)" != true ]; then
        pbs_install_hook
    else
        ccas_say "ccautoscale's periodic hook is installed and nothing changed"
    fi
    pbs_queues
    ccas_say "PBS on cluster '$CCAS_CLUSTER' is scaled by ccautoscale $CCAS_PROJECT_VERSION (hook 'ccautoscale')"
}
