# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# common.sh: what the scheduler spec does whatever the scheduler: read the
# node's settings from jetpack, install ccautoscale (a package for this system
# from the project's blobs, else the release tarball built here), write and
# test /etc/ccautoscale/autoscale.json.  Sourced by scripts/10-ccautoscale.sh
# with slurm.sh and pbs.sh.
#
# Every step is safe to run again: files are replaced only when their content
# changes, and nothing of the stock autoscaler (azslurm, azpbs) is turned off
# before ccautoscale is installed, configured, and has reached CycleCloud
# ('config check' and 'status').  A failure prints "ERROR: ccautoscale: ..." on
# stderr and exits 2, which fails the converge with that message in CycleCloud.
#
# Paths and programs come from these variables, so that a test can run the
# spec inside a scratch directory (what the CycleCloud node has by default):
#   CCAS_ROOT    the directory the node's paths are under ("": /)
#   CCAS_PREFIX  where ccautoscale is installed (/usr)
#   JETPACK      jetpack (on PATH, else /opt/cycle/jetpack/bin/jetpack)
#   CCAS_PYTHON  a Python 3 (jetpack's own, else python3)
#   SYSTEMCTL    systemctl; with CCAS_ROOT set it runs as `systemctl --root`,
#                and units are enabled and disabled but never started or stopped
#   SLURMCTLD, QMGR  the scheduler's programs (default: PATH, then the usual places)
# The spec's version is the project's; tests/cyclecloud checks it against configure.ac.

CCAS_PROJECT_VERSION=0.1.0

CCAS_ROOT=${CCAS_ROOT:-}
CCAS_PREFIX=${CCAS_PREFIX:-/usr}
CCAS_SBIN=$CCAS_PREFIX/sbin
CCAS_BIN=$CCAS_SBIN/ccautoscale
CCAS_ETC=$CCAS_ROOT/etc/ccautoscale
CCAS_CONFIG=$CCAS_ETC/autoscale.json
CCAS_STATE=$CCAS_ROOT/var/lib/ccautoscale
# the spec's own: downloads, the build, the stock files it set aside
CCAS_WORK=$CCAS_STATE/cyclecloud
CCAS_FILES=${CCAS_FILES:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}

# set by the steps: "yes" once this run has changed what ccautoscale runs with
ccas_changed=no

ccas_say () {
    printf 'ccautoscale: %s\n' "$*"
}

ccas_warn () {
    printf 'ccautoscale: warning: %s\n' "$*" >&2
}

# Stop the converge: CycleCloud shows the message and marks the node failed.
ccas_fail () {
    printf 'ERROR: ccautoscale: %s\n' "$*" >&2
    exit 2
}

ccas_init () {
    umask 022
    if [ -z "${JETPACK:-}" ]; then
        JETPACK=$(command -v jetpack 2>/dev/null || echo /opt/cycle/jetpack/bin/jetpack)
    fi
    if [ -z "${CCAS_PYTHON:-}" ]; then
        CCAS_PYTHON=${CYCLECLOUD_HOME:-/opt/cycle/jetpack}/system/embedded/bin/python
        [ -x "$CCAS_PYTHON" ] || CCAS_PYTHON=$(command -v python3 2>/dev/null || echo python3)
    fi
    SYSTEMCTL=${SYSTEMCTL:-systemctl}
    mkdir -p "$CCAS_WORK" || ccas_fail "cannot make $CCAS_WORK"
    CCAS_TMP=$(mktemp -d "$CCAS_WORK/run.XXXXXX") || ccas_fail "cannot make a directory in $CCAS_WORK"
    trap 'rm -rf "$CCAS_TMP"' EXIT
}

# jp KEY [DEFAULT]: the node's setting, as `jetpack config` prints it.
jp () {
    local out
    if ! out=$("$JETPACK" config "$@" 2>"$CCAS_TMP/jetpack.err"); then
        ccas_fail "jetpack config $1 failed: $(head -c 400 "$CCAS_TMP/jetpack.err")"
    fi
    printf '%s' "$out"
}

# true for jetpack's spellings of a true boolean
ccas_true () {
    case $1 in True | true | TRUE | yes | 1) return 0 ;; *) return 1 ;; esac
}

# The cluster's name as /sched/NAME has it (azslurm's rule): lower case,
# anything but letters, digits and '-' as '-'.
ccas_escape_cluster () {
    printf '%s' "$1" | tr '[:upper:]' '[:lower:]' | sed 's/[^a-z0-9-]/-/g'
}

# What the spec needs from CycleCloud before anything else: refuse at once
# when it is missing, before a build and before the stock setup is touched.
ccas_read_settings () {
    CCAS_URL=$(jp cyclecloud.config.web_server "") || exit
    CCAS_USERNAME=$(jp cyclecloud.config.username "") || exit
    CCAS_CLUSTER=$(jp cyclecloud.cluster.name "") || exit
    [ -n "$CCAS_URL" ] ||
        ccas_fail "no CycleCloud URL: 'jetpack config cyclecloud.config.web_server' is empty (is this a CycleCloud node?); the stock autoscaler is left in place"
    [ -n "$CCAS_USERNAME" ] ||
        ccas_fail "no CycleCloud user: 'jetpack config cyclecloud.config.username' is empty; the stock autoscaler is left in place"
    [ -n "$CCAS_CLUSTER" ] ||
        ccas_fail "no cluster name: 'jetpack config cyclecloud.cluster.name' is empty; the stock autoscaler is left in place"
    CCAS_VERIFY=$(jp ccautoscale.verify_certificates true) || exit
    CCAS_CA_FILE=$(jp ccautoscale.ca_file "") || exit
}

# ---- installing ---------------------------------------------------------------------------------

# "el9", "ubuntu22.04", "debian12", "sles15": the system, as package names say it
ccas_os () {
    local ID="" VERSION_ID=""
    # shellcheck disable=SC1091
    [ -r /etc/os-release ] && . /etc/os-release
    case $ID in
    rhel | almalinux | rocky | centos | ol) echo "el${VERSION_ID%%.*}" ;;
    ubuntu) echo "ubuntu$VERSION_ID" ;;
    sles | sle_hpc | opensuse-leap) echo "sles${VERSION_ID%%.*}" ;;
    *) echo "$ID${VERSION_ID%%.*}" ;;
    esac
}

ccas_pkg_ext () {
    if command -v rpm >/dev/null 2>&1 && ! command -v dpkg >/dev/null 2>&1; then echo rpm; else echo deb; fi
}

ccas_arch () {
    local m
    m=$(uname -m)
    if [ "$(ccas_pkg_ext)" = deb ]; then
        case $m in x86_64) m=amd64 ;; aarch64) m=arm64 ;; esac
    fi
    echo "$m"
}

# The package blob that fits this system: ccautoscale.package, else
# ccautoscale-VERSION-OS-slurmX.Y.Z-ARCH.EXT (noslurm for PBS)
ccas_package_name () {
    local slurm=$1 name
    name=$(jp ccautoscale.package "") || exit
    if [ -z "$name" ]; then
        if [ -n "$slurm" ]; then slurm=slurm$slurm; else slurm=noslurm; fi
        name=ccautoscale-$CCAS_PROJECT_VERSION-$(ccas_os)-$slurm-$(ccas_arch).$(ccas_pkg_ext)
    fi
    echo "$name"
}

# jetpack download BLOB into $CCAS_WORK; true if it came
ccas_download () {
    rm -f "$CCAS_WORK/$1"
    (cd "$CCAS_WORK" && "$JETPACK" download "$1" "$CCAS_WORK/") >"$CCAS_TMP/download.log" 2>&1 &&
        [ -s "$CCAS_WORK/$1" ]
}

# "0.1.0 22.05.8" (the Slurm it was built against; "-" without one), or nothing
ccas_installed () {
    local out
    [ -x "$CCAS_BIN" ] || return 1
    out=$("$CCAS_BIN" --version 2>/dev/null) || return 1
    printf '%s\n' "$out" | awk '
        NR == 1 && $1 == "ccautoscale" { v = $2 }
        /^Slurm: built against libslurm / { s = $5 }
        END { if (v == "") exit 1; print v, (s == "" ? "-" : s) }'
}

ccas_install_package () {
    local file=$1
    [ -z "$CCAS_ROOT" ] || { ccas_say "a scratch root: packages are not installed there"; return 1; }
    case $file in
    *.rpm) if command -v dnf >/dev/null 2>&1; then dnf install -y "$file"; else yum install -y "$file"; fi ;;
    *.deb) DEBIAN_FRONTEND=noninteractive apt-get install -y "$file" ;;
    *) return 1 ;;
    esac
}

# What the build needs: a compiler, make, pkg-config, libcurl's and json-c's
# headers.  Installed from the system's repositories when missing (the stock
# Slurm spec installs most of them already).
ccas_build_tools () {
    local missing=""
    command -v cc >/dev/null 2>&1 || missing="$missing cc"
    command -v make >/dev/null 2>&1 || missing="$missing make"
    if command -v pkg-config >/dev/null 2>&1; then
        pkg-config --exists 'libcurl >= 7.68' || missing="$missing libcurl-headers"
        pkg-config --exists 'json-c >= 0.13' || missing="$missing json-c-headers"
    else
        missing="$missing pkg-config"
    fi
    [ -n "$missing" ] || return 0
    [ -z "$CCAS_ROOT" ] || ccas_fail "cannot build ccautoscale: missing$missing"
    ccas_say "installing what the build needs (missing:$missing)"
    case $(ccas_os) in
    el*)
        local pkgs="gcc make pkgconf-pkg-config libcurl-devel json-c-devel" mgr=dnf
        command -v dnf >/dev/null 2>&1 || mgr=yum
        # json-c-devel is in PowerTools (EL8) or CRB (EL9)
        # shellcheck disable=SC2086 # a list of packages
        $mgr install -y $pkgs || $mgr install -y --enablerepo=powertools $pkgs ||
            $mgr install -y --enablerepo=crb $pkgs
        ;;
    ubuntu* | debian*)
        DEBIAN_FRONTEND=noninteractive apt-get update -q &&
            DEBIAN_FRONTEND=noninteractive apt-get install -y gcc make pkg-config libcurl4-openssl-dev libjson-c-dev
        ;;
    sles*) zypper --non-interactive install gcc make pkg-config libcurl-devel libjson-c-devel ;;
    *) false ;;
    esac || ccas_fail "cannot build ccautoscale: missing$missing, and installing them failed"
}

# Build the release tarball here: configure ARGS..., make, make install.
ccas_build () {
    local tarball=$1 src build log=$CCAS_WORK/build.log jobs
    shift
    rm -rf "$CCAS_WORK/build" && mkdir -p "$CCAS_WORK/build/obj" || ccas_fail "cannot make $CCAS_WORK/build"
    tar -xzf "$tarball" -C "$CCAS_WORK/build" || ccas_fail "$tarball: not a release tarball"
    src=$CCAS_WORK/build/ccautoscale-$CCAS_PROJECT_VERSION
    [ -x "$src/configure" ] || ccas_fail "$tarball: no ccautoscale-$CCAS_PROJECT_VERSION/configure in it"
    build=$CCAS_WORK/build/obj
    jobs=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
    ccas_say "building ccautoscale $CCAS_PROJECT_VERSION: configure $*"
    if ! (cd "$build" && "$src/configure" --prefix="$CCAS_PREFIX" --disable-werror "$@" &&
        make -j"$jobs" && make install) >"$log" 2>&1; then
        tail -n 25 "$log" >&2
        ccas_fail "building ccautoscale from $tarball failed (configure $*); the log is $log; the stock autoscaler is left in place"
    fi
    rm -rf "$CCAS_WORK/build"
}

# ccas_install KIND SLURM_VERSION ARGS_FUNCTION: ccautoscale of this
# project's version at CCAS_PREFIX, built against this Slurm (KIND slurm) or
# without Slurm (pbs).  Nothing to do when it is there already.  A build runs
# configure with the words ARGS_FUNCTION prints (it fails the run when the
# build cannot be, such as for a Slurm without headers).
ccas_install () {
    local kind=$1 slurm=$2 args_fn=$3 have pkg args
    if have=$(ccas_installed); then
        if [ "${have% *}" = "$CCAS_PROJECT_VERSION" ] && { [ "$kind" != slurm ] || [ "${have#* }" = "$slurm" ]; }; then
            ccas_say "ccautoscale $CCAS_PROJECT_VERSION${slurm:+ for Slurm $slurm} is installed ($CCAS_BIN)"
            return 0
        fi
        ccas_say "replacing ccautoscale ${have% *} (Slurm ${have#* }) with $CCAS_PROJECT_VERSION${slurm:+ for Slurm $slurm}"
    fi
    ccas_changed=yes
    pkg=$(ccas_package_name "$slurm") || exit
    if ccas_download "$pkg"; then
        ccas_say "installing the package $pkg from the project's blobs"
        ccas_install_package "$CCAS_WORK/$pkg" ||
            ccas_fail "installing $pkg failed; the stock autoscaler is left in place"
    else
        ccas_say "no package $pkg in the project's blobs: building the release tarball"
        ccas_download "ccautoscale-$CCAS_PROJECT_VERSION.tar.gz" ||
            ccas_fail "the project's blobs have neither $pkg nor ccautoscale-$CCAS_PROJECT_VERSION.tar.gz (jetpack download: $(tail -n 3 "$CCAS_TMP/download.log" | tr '\n' ' ')); upload the project with its blobs; the stock autoscaler is left in place"
        args=$($args_fn) || exit
        ccas_build_tools
        # shellcheck disable=SC2086 # words
        ccas_build "$CCAS_WORK/ccautoscale-$CCAS_PROJECT_VERSION.tar.gz" $args
    fi
    have=$(ccas_installed) ||
        ccas_fail "ccautoscale was installed but $CCAS_BIN --version does not run; the stock autoscaler is left in place"
    [ "${have% *}" = "$CCAS_PROJECT_VERSION" ] ||
        ccas_fail "$CCAS_BIN is version ${have% *}, not $CCAS_PROJECT_VERSION"
    [ "$kind" != slurm ] || [ "${have#* }" = "$slurm" ] ||
        ccas_fail "$CCAS_BIN was built against Slurm ${have#* }, but this node runs Slurm $slurm"
    # the units it installed (the sync timer)
    [ -n "$CCAS_ROOT" ] || "$SYSTEMCTL" daemon-reload >/dev/null 2>&1 || true
    ccas_say "installed ccautoscale $CCAS_PROJECT_VERSION at $CCAS_PREFIX"
}

# ---- autoscale.json -----------------------------------------------------------------------------

# Replace DEST by FILE (same directory) when their contents differ, then
# give DEST mode MODE and OWNER in any case; FILE is gone after.
ccas_put () {
    local file=$1 dest=$2 mode=$3 owner=$4
    if [ -f "$dest" ] && cmp -s "$file" "$dest"; then
        rm -f "$file"
    else
        chmod "$mode" "$file" && chown "$owner" "$file" && mv -f "$file" "$dest" ||
            ccas_fail "cannot write $dest"
        ccas_changed=yes
        ccas_say "wrote $dest"
    fi
    [ "$(stat -c %a "$dest")" = "${mode#0}" ] || chmod "$mode" "$dest"
    [ "$(stat -c %U:%G "$dest")" = "$owner" ] || chown "$owner" "$dest"
}

# ccas_write_config OWNER KEY=JSON...: /etc/ccautoscale/autoscale.json from
# the node's settings (the password read by the helper from jetpack itself,
# never on a command line), the keys given, and ccautoscale.autoscale's
# (settings of the site's, from the template's Configuration), all over
# CCAS_CONFIG_BASE when set (a file: what 'slurm import-azslurm' or
# 'pbs import-azpbs' made).  The new
# file is tested first: 'config check', then 'status' (it reaches CycleCloud with
# these credentials), then CCAS_EXTRA_CHECK (a command, such as 'pbs demand').  Only
# then does it replace the old one: a bad setting leaves the old file, and the
# stock autoscaler, in place.
ccas_write_config () {
    local owner=$1 tmp out rc
    shift
    mkdir -p "$CCAS_ETC" && chmod 0755 "$CCAS_ETC" || ccas_fail "cannot make $CCAS_ETC"
    tmp=$CCAS_ETC/.autoscale.json.new
    rm -f "$tmp"
    set -- --set "url=$(ccas_json_str "$CCAS_URL")" \
        --set "username=$(ccas_json_str "$CCAS_USERNAME")" \
        --set "cluster_name=$(ccas_json_str "$CCAS_CLUSTER")" "$@"
    ccas_true "$CCAS_VERIFY" || set -- "$@" --set "verify_certificates=false"
    [ -z "$CCAS_CA_FILE" ] || set -- "$@" --set "ca_file=$(ccas_json_str "$CCAS_CA_FILE")"
    if [ -n "$CCAS_ROOT" ]; then
        set -- "$@" --set "state_dir=$(ccas_json_str "$CCAS_STATE")" \
            --set "lock_file=$(ccas_json_str "$CCAS_ROOT/run/ccautoscale.lock")"
    fi
    [ -z "${CCAS_CONFIG_BASE:-}" ] || set -- --base "$CCAS_CONFIG_BASE" "$@"
    "$CCAS_PYTHON" "$CCAS_FILES/autoscale_json.py" --jetpack "$JETPACK" --out "$tmp" "$@" ||
        ccas_fail "cannot write $tmp; the stock autoscaler is left in place"
    if ! out=$("$CCAS_BIN" -q -c "$tmp" config check 2>&1 >/dev/null); then
        rm -f "$tmp"
        ccas_fail "the configuration made from this node's settings is not valid: $out; the stock autoscaler is left in place"
    fi
    rc=0
    out=$("$CCAS_BIN" -q -c "$tmp" status 2>&1 >"$CCAS_TMP/status.out") || rc=$?
    if [ "$rc" != 0 ]; then
        rm -f "$tmp"
        ccas_fail "ccautoscale cannot use CycleCloud at $CCAS_URL as '$CCAS_USERNAME' for cluster '$CCAS_CLUSTER' (status exited $rc): $out; check the cluster's CycleCloud account (cyclecloud.config.*) and ccautoscale.verify_certificates/ca_file; the stock autoscaler is left in place"
    fi
    if [ -n "${CCAS_EXTRA_CHECK:-}" ]; then
        rc=0
        # shellcheck disable=SC2086 # a command line of words
        out=$("$CCAS_BIN" -q -c "$tmp" $CCAS_EXTRA_CHECK 2>&1 >/dev/null) || rc=$?
        # 4: done in part (jobs no node can be had for): the scheduler was read
        if [ "$rc" != 0 ] && [ "$rc" != 4 ]; then
            rm -f "$tmp"
            ccas_fail "'ccautoscale $CCAS_EXTRA_CHECK' failed (exit $rc): $out; the stock autoscaler is left in place"
        fi
    fi
    ccas_put "$tmp" "$CCAS_CONFIG" 0600 "$owner"
    ccas_say "ccautoscale reaches cluster '$CCAS_CLUSTER' at $CCAS_URL"
}

# a JSON string of $1 (for keys given on the helper's command line: never a secret)
ccas_json_str () {
    local s=$1
    s=${s//\\/\\\\}
    s=${s//\"/\\\"}
    s=${s//$'\t'/\\t}
    printf '"%s"' "$s"
}

# ---- services -----------------------------------------------------------------------------------

ccas_systemctl () {
    if [ -n "$CCAS_ROOT" ]; then
        "$SYSTEMCTL" --root="$CCAS_ROOT" "$@"
    else
        "$SYSTEMCTL" "$@"
    fi
}

# enable UNIT and start it (on a node; a scratch root only enables)
ccas_unit_on () {
    if ! ccas_systemctl -q is-enabled "$1" >/dev/null 2>&1; then
        ccas_systemctl -q enable "$1" || ccas_fail "systemctl enable $1 failed"
        ccas_say "enabled $1"
    fi
    [ -n "$CCAS_ROOT" ] || ccas_systemctl -q is-active "$1" || ccas_systemctl start "$1" ||
        ccas_fail "systemctl start $1 failed"
}

# disable UNIT and stop it, if it exists
ccas_unit_off () {
    if ccas_systemctl -q is-enabled "$1" >/dev/null 2>&1; then
        ccas_systemctl -q disable "$1" || ccas_fail "systemctl disable $1 failed"
        ccas_say "disabled $1"
    fi
    [ -n "$CCAS_ROOT" ] || ! ccas_systemctl -q is-active "$1" || ccas_systemctl stop "$1" ||
        ccas_fail "systemctl stop $1 failed"
}

# The state directory, the lock and the events file belong to OWNER (SlurmUser:
# slurmctld runs the programs as that user), now and after a reboot (/run is
# emptied: a tmpfiles.d entry makes the lock again).
ccas_state_owner () {
    local owner=$1 user=${1%%:*} group=${1#*:} f tmp lock
    lock=$CCAS_ROOT/run/ccautoscale.lock
    mkdir -p "$CCAS_STATE" "$CCAS_ROOT/run" "$CCAS_ROOT/etc/tmpfiles.d" || ccas_fail "cannot make $CCAS_STATE"
    for f in "$lock" "$CCAS_STATE/events.jsonl"; do
        [ -e "$f" ] || : >"$f" || ccas_fail "cannot make $f"
    done
    [ "$(stat -c %U:%G "$CCAS_STATE")" = "$owner" ] || chown "$owner" "$CCAS_STATE"
    for f in "$lock" "$CCAS_STATE/events.jsonl"; do
        [ "$(stat -c %U:%G "$f")" = "$owner" ] || chown "$owner" "$f"
    done
    tmp=$CCAS_ROOT/etc/tmpfiles.d/.ccautoscale.conf.new
    cat >"$tmp" <<EOF
# Written by the ccautoscale:scheduler cluster-init spec: SlurmUser ($user)
# runs ccautoscale-resume, -suspend and -resume-fail, and needs these.
d $CCAS_STATE 0755 $user $group -
f $lock 0644 $user $group -
f $CCAS_STATE/events.jsonl 0640 $user $group -
EOF
    ccas_put "$tmp" "$CCAS_ROOT/etc/tmpfiles.d/ccautoscale.conf" 0644 root:root
}

