# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# slurm.sh: ccautoscale in place of azslurm on a scheduler the stock
# cyclecloud/slurm:scheduler spec has set up (Slurm installed, slurm.conf in
# /sched/CLUSTER linked from /etc/slurm, azslurm in /opt/azurehpc/slurm).
#
# In order, each step only once the ones before it worked:
#   1. Slurm's version, its headers, the stock layout: refuse at once when missing;
#   2. ccautoscale built against this Slurm (or a package for it);
#   3. autoscale.json, tested ('config check', 'status') before it replaces the old one.
#      When azslurm's /opt/azurehpc/slurm/autoscale.json is there (the stock spec
#      writes it): 'ccautoscale slurm import-azslurm' makes it ccautoscale's
#      (slurm.nodes_file azure.conf, slurm.keepalive_file keep_alive.conf, its
#      default_resources), the node names come from each nodearray's Configuration
#      (slurm.node_prefix, as azslurm reads it), and the import's comparison with
#      azslurm's files is printed.  Without it (an older stock project), the spec's
#      own route: slurm.node_prefix as the stock template makes names, and
#      ccautoscale.conf for the nodes.  Either way the connection comes from the
#      node's CycleCloud settings and the site's ccautoscale.autoscale goes on top;
#   4. on the primary scheduler, 'slurm conf --write /sched/CLUSTER' (the nodes file,
#      gres.conf, topology.conf; azslurm's azure.conf and the others are replaced
#      in place, mode and owner kept, and set aside once, as they were, for a way
#      back), then slurm.conf: azslurm's ResumeProgram, SuspendProgram,
#      ResumeFailProgram commented out ("#ccautoscale# "), ccautoscale's block at
#      the end.  The stock 'Include azure.conf' and 'Include keep_alive.conf' stay
#      (the spec's own route comments them out and includes ccautoscale.conf);
#   5. azslurmd and azslurm's return_to_idle cron entry off, ccautoscale-sync.timer on;
#   6. slurmctld told, when it runs and something changed.
# The HA standby (slurm.is_primary_scheduler false) does 1-3 and 5: /sched is
# the primary's to write.  Execute and login nodes keep reading slurm.conf and
# its includes from /sched as before: every file named there is on /sched.

SLURM_KEYS="ResumeProgram SuspendProgram ResumeFailProgram ResumeRate SuspendRate TreeWidth TopologyPlugin"

slurm_find () {
    SLURMCTLD=${SLURMCTLD:-$(command -v slurmctld 2>/dev/null || true)}
    [ -n "$SLURMCTLD" ] || ccas_fail "no slurmctld on this node: is the stock cyclecloud/slurm:scheduler spec listed before ccautoscale:scheduler?"
    SLURM_VERSION=$("$SLURMCTLD" -V 2>/dev/null | awk '{ print $2; exit }')
    [ -n "$SLURM_VERSION" ] || ccas_fail "$SLURMCTLD -V printed no version"
    SLURM_PREFIX=$(dirname "$(dirname "$SLURMCTLD")")
    SCONTROL=${SCONTROL:-$(dirname "$SLURMCTLD")/../bin/scontrol}
    [ -x "$SCONTROL" ] || SCONTROL=$(command -v scontrol 2>/dev/null || echo scontrol)
}

# configure's --with-slurm for this Slurm, once its headers are known to be
# there (called by ccas_install only when it builds)
slurm_configure_args () {
    local inc=$SLURM_PREFIX/include
    if [ ! -f "$inc/slurm/slurm.h" ]; then
        ccas_fail "Slurm $SLURM_VERSION ($SLURMCTLD) has no headers ($inc/slurm/slurm.h): ccautoscale is built against the Slurm it runs with; install them (slurm-devel-$SLURM_VERSION on EL, slurm-smd-dev=$SLURM_VERSION* on Ubuntu) or put a package built for this Slurm in the project's blobs; the stock autoscaler is left in place"
    fi
    case $SLURM_PREFIX in
    /usr) echo --with-slurm ;;
    *) echo "--with-slurm=$SLURM_PREFIX" ;;
    esac
}

# The stock layout: /etc/slurm/slurm.conf, a link to /sched/CLUSTER/slurm.conf
slurm_layout () {
    SLURM_CONF_LINK=$CCAS_ROOT/etc/slurm/slurm.conf
    SLURM_CONF_DIR=$CCAS_ROOT/sched/$(ccas_escape_cluster "$CCAS_CLUSTER")
    [ -f "$SLURM_CONF_LINK" ] ||
        ccas_fail "no $SLURM_CONF_LINK: the stock cyclecloud/slurm:scheduler spec has not set up Slurm on this node"
    SLURM_CONF_FILE=$(readlink -f "$SLURM_CONF_LINK")
    # ccautoscale's commands and scontrol read the cluster's slurm.conf
    export SLURM_CONF=$SLURM_CONF_LINK
    SLURM_USER=$(awk -F= 'tolower($1) ~ /^[ \t]*slurmuser[ \t]*$/ { gsub(/[ \t]/, "", $2); u = $2 } END { print u }' "$SLURM_CONF_FILE")
    [ -n "$SLURM_USER" ] || SLURM_USER=$(jp slurm.user.name slurm) || exit
    id "$SLURM_USER" >/dev/null 2>&1 || ccas_fail "SlurmUser '$SLURM_USER' is not a user of this node"
    SLURM_OWNER=$SLURM_USER:$(id -gn "$SLURM_USER")
}

# slurm.conf as ccautoscale needs it, from the one the stock spec wrote (or
# this spec, on an earlier run): on stdout.  With the import's route the stock
# Include lines stay (and are put back if the spec's own route commented them
# out on an earlier run); with the spec's own, they go, for ccautoscale.conf.
slurm_conf_edit () {
    local file=$1
    awk -v keys="$SLURM_KEYS" -v sbin="$CCAS_SBIN" -v dir="$SLURM_CONF_DIR" -v route="$SLURM_ROUTE" '
        BEGIN {
            n = split(tolower(keys), k, " ")
            for (i = 1; i <= n; i++) managed[k[i]] = 1
        }
        /^# BEGIN ccautoscale/ { skip = 1; next }
        /^# END ccautoscale/ { skip = 0; next }
        skip { next }
        route == "import" && /^#ccautoscale# [Ii]nclude[ \t]+(azure|keep_alive)\.conf[ \t]*$/ {
            print substr($0, 15)
            next
        }
        {
            line = $0
            key = tolower(line)
            sub(/^[ \t]*/, "", key)
            if (route != "import" && key ~ /^include[ \t]+(azure|keep_alive)\.conf[ \t]*$/) {
                print "#ccautoscale# " line
                next
            }
            sub(/[ \t]*=.*/, "", key)
            if (line !~ /^[ \t]*#/ && index(line, "=") && (key in managed)) { print "#ccautoscale# " line; next }
            print line
        }
        END {
            print "# BEGIN ccautoscale: written by the ccautoscale:scheduler cluster-init spec, again at"
            print "# each run; the lines it replaced above are commented out with \"#ccautoscale# \"."
            print "ResumeProgram=" sbin "/ccautoscale-resume"
            print "SuspendProgram=" sbin "/ccautoscale-suspend"
            print "ResumeFailProgram=" sbin "/ccautoscale-resume-fail"
            print "# one job'"'"'s nodes in one call, so that they share a placement group"
            print "ResumeRate=0"
            print "SuspendRate=0"
            print "TreeWidth=65533"
            print "TopologyPlugin=topology/tree"
            if (route != "import") print "Include " dir "/ccautoscale.conf"
            print "# END ccautoscale"
        }' "$file"
}

slurm_write_conf () {
    local tmp owner mode
    tmp=$(dirname "$SLURM_CONF_FILE")/.slurm.conf.ccautoscale
    slurm_conf_edit "$SLURM_CONF_FILE" >"$tmp" || ccas_fail "cannot write $tmp"
    if cmp -s "$tmp" "$SLURM_CONF_FILE"; then
        rm -f "$tmp"
        return 0
    fi
    # the stock file, once, for a way back
    [ -e "$CCAS_WORK/stock/slurm.conf" ] || grep -q '^# BEGIN ccautoscale' "$SLURM_CONF_FILE" ||
        { mkdir -p "$CCAS_WORK/stock" && cp -p "$SLURM_CONF_FILE" "$CCAS_WORK/stock/slurm.conf"; }
    owner=$(stat -c %U:%G "$SLURM_CONF_FILE") && mode=$(stat -c %a "$SLURM_CONF_FILE") &&
        chown "$owner" "$tmp" && chmod "$mode" "$tmp" && mv -f "$tmp" "$SLURM_CONF_FILE" ||
        ccas_fail "cannot replace $SLURM_CONF_FILE"
    ccas_changed=yes
    slurm_reconfigure=yes
    ccas_say "wrote $SLURM_CONF_FILE: ResumeProgram, SuspendProgram and ResumeFailProgram are ccautoscale's"
}

# The stock files 'slurm conf --write' replaces, once, as azslurm left them
# (FILE.bak, which ccautoscale keeps, is only the one before the last change):
# the way back.  Files ccautoscale wrote are never taken for the stock ones.
slurm_keep_stock () {
    local f
    mkdir -p "$CCAS_WORK/stock" || ccas_fail "cannot make $CCAS_WORK/stock"
    for f in azure.conf gres.conf topology.conf keep_alive.conf; do
        if [ ! -f "$SLURM_CONF_DIR/$f" ] || [ -e "$CCAS_WORK/stock/$f" ] ||
            grep -q '^# Generated by ccautoscale' "$SLURM_CONF_DIR/$f"; then
            continue
        fi
        cp -p "$SLURM_CONF_DIR/$f" "$CCAS_WORK/stock/$f" || ccas_fail "cannot keep $SLURM_CONF_DIR/$f in $CCAS_WORK/stock"
    done
}

# slurm conf --write: the node and partition include, gres.conf and topology.conf
slurm_write_nodes () {
    local out
    slurm_keep_stock
    out=$("$CCAS_BIN" -q slurm conf --write "$SLURM_CONF_DIR" 2>&1) ||
        ccas_fail "'ccautoscale slurm conf --write $SLURM_CONF_DIR' failed: $out"
    printf '%s\n' "$out" | grep -v '^[-+]' | sed 's/^/ccautoscale: slurm conf: /'
    case $out in
    *"restart slurmctld"*) slurm_restart=yes ;;
    *"scontrol reconfigure"*) slurm_reconfigure=yes ;;
    esac
}

# azslurm's return_to_idle cron entry out of root's crontab
slurm_cron_off () {
    local spool f new
    if [ -n "$CCAS_ROOT" ]; then
        for spool in "$CCAS_ROOT/var/spool/cron/crontabs/root" "$CCAS_ROOT/var/spool/cron/root"; do
            [ -f "$spool" ] || continue
            grep -q 'return_to_idle' "$spool" || continue
            new=$spool.ccautoscale
            grep -v 'return_to_idle' "$spool" >"$new"
            chmod --reference="$spool" "$new" && mv -f "$new" "$spool" && ccas_say "removed azslurm's return_to_idle from $spool"
        done
        return 0
    fi
    command -v crontab >/dev/null 2>&1 || return 0
    f=$CCAS_TMP/crontab
    crontab -l >"$f" 2>/dev/null || return 0
    grep -q 'return_to_idle' "$f" || return 0
    grep -v 'return_to_idle' "$f" | crontab - || ccas_fail "cannot remove return_to_idle from root's crontab"
    ccas_say "removed azslurm's return_to_idle from root's crontab"
}

slurm_apply () {
    if ! "$SCONTROL" ping >/dev/null 2>&1; then
        ccas_say "slurmctld is not running: it reads the new configuration when it starts"
        return 0
    fi
    if [ "${slurm_restart:-no}" = yes ]; then
        if [ -n "$CCAS_ROOT" ]; then
            ccas_say "node definitions changed: restart slurmctld to apply"
        else
            ccas_systemctl restart slurmctld || ccas_fail "systemctl restart slurmctld failed"
            ccas_say "restarted slurmctld (node definitions changed)"
        fi
    elif [ "${slurm_reconfigure:-no}" = yes ]; then
        "$SCONTROL" reconfigure || ccas_fail "scontrol reconfigure failed"
        ccas_say "slurmctld reconfigured"
    fi
}

# azslurm's configuration made ccautoscale's ($CCAS_TMP/imported.json, the
# base of autoscale.json), and what Slurm would see change, in the log (the
# whole report while azure.conf is azslurm's; after, at each converge, only the
# warnings).  Exit 3 (CycleCloud not asked with azslurm's credentials) still
# wrote the file: the node's own credentials are tested next.
slurm_import () {
    local out rc=0 f
    set --
    for f in azure.conf gres.conf topology.conf; do
        [ ! -e "$SLURM_CONF_DIR/$f" ] || set -- "$@" "--${f%.conf}-conf" "$SLURM_CONF_DIR/$f"
    done
    out=$("$CCAS_BIN" slurm import-azslurm "$AZSLURM_CONFIG" -o "$CCAS_TMP/imported.json" "$@" 2>&1) || rc=$?
    if [ "$rc" != 0 ] && [ "$rc" != 3 ]; then
        ccas_fail "'ccautoscale slurm import-azslurm $AZSLURM_CONFIG' failed (exit $rc): $out; the stock autoscaler is left in place"
    fi
    [ -s "$CCAS_TMP/imported.json" ] ||
        ccas_fail "'ccautoscale slurm import-azslurm' wrote nothing: $out; the stock autoscaler is left in place"
    if grep -q '^# Generated by ccautoscale' "$SLURM_CONF_DIR/azure.conf" 2>/dev/null; then
        out=$(printf '%s\n' "$out" | grep ': warning: ')
    fi
    [ -z "$out" ] || printf '%s\n' "$out" | sed 's/^/ccautoscale: import-azslurm: /'
    CCAS_CONFIG_BASE=$CCAS_TMP/imported.json
}

slurm_main () {
    local primary
    slurm_find
    ccas_read_settings
    slurm_layout
    primary=$(jp slurm.is_primary_scheduler true) || exit
    ccas_install slurm "$SLURM_VERSION" slurm_configure_args

    set -- --set "slurm.conf_dir=$(ccas_json_str "$SLURM_CONF_DIR")"
    AZSLURM_CONFIG=$CCAS_ROOT/opt/azurehpc/slurm/autoscale.json
    if [ -f "$AZSLURM_CONFIG" ]; then
        SLURM_ROUTE=import
        slurm_import
    else
        # an older stock project: node names as its template makes them
        SLURM_ROUTE=own
        ccas_say "no $AZSLURM_CONFIG: ccautoscale's nodes go in $SLURM_CONF_DIR/ccautoscale.conf"
        set -- "$@" --set "slurm.node_prefix=$(ccas_json_str "$(printf '%s-' "$CCAS_CLUSTER" | sed 's/[^a-zA-Z0-9-]/-/g')")"
    fi
    ccas_write_config "$SLURM_OWNER" "$@"
    ccas_state_owner "$SLURM_OWNER"
    # where the programs look for it when it is not at the default path
    if [ "$CCAS_CONFIG" != /etc/ccautoscale/autoscale.json ]; then
        [ "$(readlink "$(dirname "$SLURM_CONF_LINK")/ccautoscale.json")" = "$CCAS_CONFIG" ] ||
            ln -sfn "$CCAS_CONFIG" "$(dirname "$SLURM_CONF_LINK")/ccautoscale.json"
    fi

    # from here on ccautoscale works: take over from azslurm
    export CCAUTOSCALE_CONFIG=$CCAS_CONFIG
    if ccas_true "$primary"; then
        slurm_write_nodes
        slurm_write_conf
    else
        ccas_say "the HA standby: slurm.conf and /sched are the primary scheduler's to write"
    fi
    [ ! -e "$CCAS_ROOT/etc/systemd/system/azslurmd.service" ] || ccas_unit_off azslurmd.service
    slurm_cron_off
    ccas_unit_on ccautoscale-sync.timer
    ccas_true "$primary" && slurm_apply
    ccas_say "Slurm $SLURM_VERSION on cluster '$CCAS_CLUSTER' is scaled by ccautoscale $CCAS_PROJECT_VERSION"
}
