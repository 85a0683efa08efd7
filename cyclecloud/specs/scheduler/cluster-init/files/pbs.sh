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
#   3. autoscale.json (root's: pbs_server runs the hook as root), with pbs.bin_dir.
#      When azpbs's /opt/cycle/pbspro/autoscale.json is there (the stock spec writes
#      it): 'ccautoscale pbs import-azpbs' makes it ccautoscale's (default_resources,
#      idle_timeout, boot_timeout, pbspro.ignore_queues as pbs.ignore_queues, the
#      hostname filters), its notes in the log; without it, pbs.ignore_queues from
#      the queues' pbspro.queues.Q.ignore.  The connection comes from the node's
#      CycleCloud settings, the site's ccautoscale.autoscale goes on top.  Tested:
#      'config check', 'status', and 'pbs demand' (it reads PBS's jobs and nodes);
#   4. 'ccautoscale pbs install-hook': ccautoscale's hook in place, then azpbs off
#      (its hook disabled, its cron file moved to /var/lib/ccautoscale/azpbs/, the
#      VMs its node history kept out kept out), then ccautoscale's hook on; when it
#      fails it leaves azpbs as it was;
#   5. the sched_config resources: line install-hook asks for, and the stock queues'
#      settings where a queue lacks them (a site's own values are kept).
# Execute nodes keep running the stock execute spec, which waits for the vnode
# the autoscaler makes.

# Where the stock spec's azpbs runs from, its configuration and its node history
AZPBS_CRON=$CCAS_ROOT/etc/cron.d/azpbs_autoscale
AZPBS_HOOK=autoscale
AZPBS_CONFIG=$CCAS_ROOT/opt/cycle/pbspro/autoscale.json
AZPBS_HISTORY=$CCAS_ROOT/opt/cycle/pbspro/nodehistory.db

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

# azpbs's configuration made ccautoscale's ($CCAS_TMP/imported.json, the base of
# autoscale.json).  Its notes (what was carried, changed, left out, and why) go
# to the log at the takeover; after, only the keys it does not know.
pbs_import () {
    local out rc=0
    out=$("$CCAS_BIN" pbs import-azpbs "$AZPBS_CONFIG" -o "$CCAS_TMP/imported.json" 2>&1) || rc=$?
    [ "$rc" = 0 ] ||
        ccas_fail "'ccautoscale pbs import-azpbs $AZPBS_CONFIG' failed (exit $rc): $out; the stock autoscaler is left in place"
    [ -s "$CCAS_TMP/imported.json" ] ||
        ccas_fail "'ccautoscale pbs import-azpbs' wrote nothing: $out; the stock autoscaler is left in place"
    out=$(printf '%s\n' "$out" | grep -v '^wrote ')
    [ ! -f "$CCAS_CONFIG" ] || out=$(printf '%s\n' "$out" | grep '^unknown ')
    [ -z "$out" ] || printf '%s\n' "$out" | sed 's/^/ccautoscale: import-azpbs: /'
    CCAS_CONFIG_BASE=$CCAS_TMP/imported.json
}

# Without azpbs's file: the queues whose Autoscale is off (pbspro.queues.Q.ignore)
# as pbs.ignore_queues, a JSON array on stdout
pbs_ignore_queues () {
    local q v list=""
    for q in workq htcq; do
        v=$(jp "pbspro.queues.$q.ignore" False) || exit
        if ccas_true "$v"; then
            list=$list${list:+, }\"$q\"
        fi
    done
    printf '[%s]' "$list"
}

# True when azpbs runs again (the stock server spec re-made its cron file, or
# its hook is enabled): install-hook must take over again.
pbs_azpbs_on () {
    [ -e "$AZPBS_CRON" ] && return 0
    pbs_qmgr "list hook $AZPBS_HOOK" >/dev/null 2>&1 && [ "$(pbs_attr "hook $AZPBS_HOOK" enabled)" != false ]
}

# install-hook reads azpbs's node history with sqlite3, and fails (leaving azpbs
# on) without it: install it first when there is a history to read.
pbs_sqlite3 () {
    [ -f "$AZPBS_HISTORY" ] || return 0
    command -v sqlite3 >/dev/null 2>&1 && return 0
    [ -z "$CCAS_ROOT" ] ||
        ccas_fail "no sqlite3 to read azpbs's $AZPBS_HISTORY with; the stock autoscaler is left in place"
    ccas_say "installing sqlite3 (to read azpbs's $AZPBS_HISTORY)"
    case $(ccas_os) in
    el*) if command -v dnf >/dev/null 2>&1; then dnf install -y sqlite; else yum install -y sqlite; fi ;;
    ubuntu* | debian*) DEBIAN_FRONTEND=noninteractive apt-get install -y sqlite3 ||
        { DEBIAN_FRONTEND=noninteractive apt-get update -q &&
            DEBIAN_FRONTEND=noninteractive apt-get install -y sqlite3; } ;;
    sles*) zypper --non-interactive install sqlite3 ;;
    *) false ;;
    esac >"$CCAS_TMP/sqlite3.log" 2>&1 && command -v sqlite3 >/dev/null 2>&1 ||
        ccas_fail "installing sqlite3 failed ($(tail -n 3 "$CCAS_TMP/sqlite3.log" | tr '\n' ' ')): install-hook needs it to read azpbs's $AZPBS_HISTORY; the stock autoscaler is left in place"
}

# ccautoscale's hook in place, azpbs off: install-hook does both, in that order,
# and leaves azpbs as it was when a step fails.  Its report (with the way back
# to azpbs) goes to the log.
pbs_install_hook () {
    local rc=0 line conf pid
    pbs_sqlite3
    "$CCAS_BIN" pbs install-hook --hook-file "$CCAS_PREFIX/share/ccautoscale/pbs/ccautoscale_hook.py" \
        --azpbs-cron "$AZPBS_CRON" --azpbs-history "$AZPBS_HISTORY" \
        >"$CCAS_TMP/install-hook.out" 2>"$CCAS_TMP/install-hook.err" || rc=$?
    [ "$rc" = 0 ] ||
        ccas_fail "'ccautoscale pbs install-hook' failed (exit $rc): $(tail -n 5 "$CCAS_TMP/install-hook.err" | tr '\n' ' '); azpbs is left in place"
    ccas_changed=yes
    sed 's/^/ccautoscale: install-hook: /' "$CCAS_TMP/install-hook.out"
    grep '^ccautoscale: warning: ' "$CCAS_TMP/install-hook.err" | grep -v "its resources: line does not name" >&2
    ccas_say "ccautoscale's periodic hook is installed"
    # what qmgr cannot set: the resources the scheduler's select honours
    line=$(grep -x 'resources: .*' "$CCAS_TMP/install-hook.err" | tail -n 1)
    [ -n "$line" ] || return 0
    conf=$(pbs_home)/sched_priv/sched_config
    [ -f "$conf" ] || { ccas_warn "no $conf to write '$line' in"; return 0; }
    mkdir -p "$CCAS_WORK/stock" || ccas_fail "cannot make $CCAS_WORK/stock"
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
}

pbs_main () {
    local ignore
    pbs_find
    ccas_read_settings
    ccas_install pbs "" no_configure_args
    set -- --set "pbs.bin_dir=$(ccas_json_str "$PBS_BIN")"
    if [ -f "$AZPBS_CONFIG" ]; then
        pbs_import
    else
        ccas_say "no $AZPBS_CONFIG: autoscale.json from this node's settings alone"
        ignore=$(pbs_ignore_queues) || exit
        set -- "$@" --set "pbs.ignore_queues=$ignore"
    fi
    CCAS_EXTRA_CHECK="pbs demand" ccas_write_config root:root "$@"
    export CCAUTOSCALE_CONFIG=$CCAS_CONFIG

    # from here on ccautoscale works: take over from azpbs
    if [ "$ccas_changed" = yes ] || pbs_azpbs_on || ! pbs_qmgr "list hook ccautoscale" >/dev/null 2>&1 ||
        [ "$(pbs_attr "hook ccautoscale" enabled)" != true ]; then
        pbs_install_hook
    else
        ccas_say "ccautoscale's periodic hook is installed and nothing changed"
    fi
    pbs_queues
    ccas_say "PBS on cluster '$CCAS_CLUSTER' is scaled by ccautoscale $CCAS_PROJECT_VERSION (hook 'ccautoscale')"
}
