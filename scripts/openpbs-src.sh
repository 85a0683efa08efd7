#!/bin/bash
# SPDX-License-Identifier: MIT
# openpbs-src.sh: build OpenPBS from the vendored source tarball into a
# private prefix named after the tarball's hash, for the PBS test suites
# (tests/lib/openpbs-server.sh runs what it builds).
#   scripts/openpbs-src.sh build|prefix|status|deps|--help
set -eu

prog=openpbs-src.sh
here=$(cd "$(dirname "$0")" && pwd)

usage () {
    cat <<EOF
usage: scripts/$prog build|prefix|status|deps|--help

Builds a real OpenPBS for ccautoscale's PBS test suites, which run it with
tests/lib/openpbs-server.sh (server, scheduler, comm, datastore and moms in
network namespaces of their own).

commands
  build    unpack, configure, make and install OpenPBS into its prefix (see
           below): ~4 min on 2 cores; a no-op (0.03 s) once built.  Installs
           the missing Debian packages first (as root).  Interrupted: no
           prefix, no stamp and no temp dir is left.  Concurrent builds wait
           for each other (flock on the deps directory).
  prefix   print the install prefix of the tarball in use, built or not
  status   whether that prefix holds a complete build, and its version;
           exit 0 when it does, 1 when not
  deps     install the missing Debian packages OpenPBS needs to run (build
           installs them too; openpbs-server.sh start asks for them)
  help, --help     this text

exit status
  0 done; 1 failed; 2 no OpenPBS source tarball (the message names the path
  looked at and CCAS_OPENPBS_TARBALL; build, prefix and status).  A test
  suite turns 2 into a loud skip on a developer's machine and into a failure
  when CI=true, so that CI never passes without PBS.

environment
  CCAS_OPENPBS_TARBALL  the source (default: the newest openpbs-*.tar.xz in
                        ../shared/vendor beside the checkout; now
                        ${default_tarball:-none})
  CCAS_DEPS_DIR         where builds go (default /opt/ccautoscale-deps); the
                        prefix is DIR/openpbs-<first 12 hex of the tarball's
                        sha256>, complete once it holds .ccas-built (written
                        last: tarball, sha256, version, date, seconds, each
                        step's time); the build log is DIR/openpbs-<hash>.log

what is built
  ./configure --prefix=PREFIX --with-python=/usr, make -j\$(nproc) under nice
  19, make install with sysprofiledir and unitfiledir inside the prefix (by
  default it writes /etc/profile.d and a systemd unit, which would make
  pbs_init.d start PBS in the background); pbs_iff and pbs_rcp setuid root.
  PATH is Debian's only, and LIBRARY_PATH, PYTHONHOME, PYTHONPATH, CPATH,
  C_INCLUDE_PATH and LD_LIBRARY_PATH are unset: a python3 earlier in PATH
  (pyenv) would be built into pbs_python instead of Debian's.
EOF
}

die () {
    echo "$prog: $*" >&2
    exit 1
}

say () {
    echo "$prog: $*"
}

now () {
    date +%s.%N
}

since () {
    awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'
}

# ---------------------------------------------------------------- settings

deps_dir=${CCAS_DEPS_DIR:-/opt/ccautoscale-deps}
# Debian's tools only: a python3 earlier in PATH (pyenv) would be built into
# pbs_python instead of Debian's, and LIBRARY_PATH would leak into the link.
sys_path=/usr/sbin:/usr/bin:/sbin:/bin

# newest tarball beside the checkout (CI: ../shared/vendor next to the clone)
default_tarball=$(find "$here/../../shared/vendor" -maxdepth 1 -name 'openpbs-*.tar.xz' -printf '%T@ %p\n' 2>/dev/null |
    sort -rn | head -n 1 | cut -d' ' -f2- || true)
[ -z "$default_tarball" ] || default_tarball=$(realpath "$default_tarball")
tarball=${CCAS_OPENPBS_TARBALL:-$default_tarball}

build_pkgs="gcc g++ make libtool autoconf automake pkg-config libhwloc-dev libx11-dev
libxt-dev libedit-dev libical-dev libncurses-dev perl postgresql-server-dev-all
postgresql-contrib postgresql python3-dev tcl-dev tk-dev swig libexpat1-dev libssl-dev
libxext-dev libxft-dev zlib1g-dev libcjson-dev xz-utils"
run_pkgs="expat libedit2 libical3 libcjson1 libhwloc15 python3 tcl tk sudo iproute2
postgresql postgresql-contrib util-linux procps"

need_root () {
    [ "$(id -u)" = 0 ] || die "$1 needs root (it installs packages and a setuid OpenPBS)"
}

# ---------------------------------------------------------------- packages

# install those of "$@" that are not installed (one dpkg-query when none is missing)
ensure_pkgs () {
    local have missing="" p policy=/usr/sbin/policy-rc.d made=0 rc=0
    have=" $(dpkg-query -W -f='${Package}=${db:Status-Status} ' "$@" 2>/dev/null || true) "
    for p in "$@"; do
        case $have in *" $p=installed "*) ;; *) missing="$missing $p" ;; esac
    done
    [ -n "$missing" ] || return 0
    need_root "installing packages"
    say "installing Debian packages:$missing"
    # no package may start a system-wide service (postgresql's would)
    if [ ! -e "$policy" ]; then
        printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod 755 "$policy" && made=1
    fi
    # shellcheck disable=SC2086
    { DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null; } || rc=$?
    [ "$made" = 0 ] || rm -f "$policy"
    [ "$rc" = 0 ] || die "apt-get install failed (status $rc) for:$missing"
}

# ---------------------------------------------------------------- tarball and prefix

# exit 2, naming the path, when there is no tarball
need_tarball () {
    # none beside the checkout: the pinned upstream archive, downloaded once (exit 2 offline)
    [ -n "$tarball" ] || tarball=$("$here/fetch-tarball.sh" openpbs) || exit $?
    if [ -z "$tarball" ] || [ ! -f "$tarball" ]; then
        local want=${tarball:-$(realpath -m "$here/../../shared/vendor")/openpbs-*.tar.xz}
        echo "$prog: OpenPBS source tarball not found: $want (set CCAS_OPENPBS_TARBALL to its path)" >&2
        exit 2
    fi
}

# sum: the tarball's sha256; prefix: DIR/openpbs-<its first 12 hex>
compute_prefix () {
    need_tarball
    sum=$(sha256sum <"$tarball")
    sum=${sum%% *}
    prefix=$deps_dir/openpbs-${sum:0:12}
}

cmd_status () {
    compute_prefix
    echo "tarball: $tarball"
    if [ -f "$prefix/.ccas-built" ]; then
        echo "built:   yes, in $prefix"
        sed -n 's/^version=/version: /p; s/^built=/date:    /p' "$prefix/.ccas-built"
        return 0
    fi
    if [ -d "$prefix" ]; then
        echo "built:   no: $prefix exists but has no .ccas-built (an interrupted build); 'build' redoes it"
    else
        echo "built:   no ($prefix does not exist); run scripts/$prog build"
    fi
    return 1
}

cmd_deps () {
    # shellcheck disable=SC2086
    ensure_pkgs $run_pkgs
}

# ---------------------------------------------------------------- build

build_work="" build_prefix="" build_done=0 step_pid=""

build_cleanup () {
    if [ -n "$step_pid" ]; then
        kill -TERM -- "-$step_pid" 2>/dev/null || true
        wait "$step_pid" 2>/dev/null || true
        step_pid=""
    fi
    [ -z "$build_work" ] || rm -rf "$build_work"
    if [ "$build_done" = 0 ] && [ -n "$build_prefix" ]; then
        rm -rf "$build_prefix"
    fi
}

# run one build step in its own process group (so that an interrupt stops
# every compiler it started), at low priority, output appended to the log
build_step () {
    local label=$1 t0 rc=0
    shift
    t0=$(now)
    setsid nice -n 19 "$@" >>"$build_log" 2>&1 </dev/null &
    step_pid=$!
    wait "$step_pid" || rc=$?
    step_pid=""
    if [ "$rc" != 0 ]; then
        tail -n 25 "$build_log" >&2
        die "$label failed (status $rc); the whole log is $build_log"
    fi
    say "$label: $(since "$t0") s"
    timings="$timings $label=$(since "$t0")s"
}

cmd_build () {
    local t0 version
    compute_prefix
    if [ -f "$prefix/.ccas-built" ]; then
        say "OpenPBS is built in $prefix"
        return 0
    fi
    need_root build
    t0=$(now)
    # shellcheck disable=SC2086
    ensure_pkgs $build_pkgs $run_pkgs
    mkdir -p "$deps_dir"
    # one build at a time in this directory
    exec 9<"$deps_dir"
    if ! flock -n 9; then
        say "waiting for another build in $deps_dir"
        flock 9
    fi
    if [ -f "$prefix/.ccas-built" ]; then
        say "OpenPBS is built in $prefix"
        return 0
    fi
    # what a killed build left (we hold the lock: no build is running)
    rm -rf "$deps_dir"/.openpbs-build.* "$prefix"
    trap 'build_cleanup' EXIT
    trap 'build_cleanup; trap - EXIT; echo "$prog: build interrupted" >&2; exit 130' INT TERM HUP
    build_prefix=$prefix
    build_work=$(mktemp -d "$deps_dir/.openpbs-build.XXXXXX")
    build_log=$deps_dir/openpbs-${sum:0:12}.log
    : >"$build_log"
    timings=""
    say "building $tarball into $prefix (log: $build_log)"
    export PATH=$sys_path
    unset LIBRARY_PATH PYTHONHOME PYTHONPATH CPATH C_INCLUDE_PATH LD_LIBRARY_PATH
    build_step unpack tar -xJf "$tarball" -C "$build_work" --strip-components=1
    cd "$build_work"
    build_step autogen ./autogen.sh
    build_step configure ./configure --prefix="$prefix" --with-python=/usr
    build_step make make -j"$(nproc)"
    # sysprofiledir and unitfiledir keep make install inside the prefix (by
    # default it writes /etc/profile.d and a systemd unit, which would make
    # pbs_init.d start PBS in the background)
    build_step install make install sysprofiledir="$prefix/etc/profile.d" unitfiledir="$prefix/etc/systemd"
    chmod 4755 "$prefix/sbin/pbs_iff" "$prefix/sbin/pbs_rcp"
    cd /
    version=$("$prefix/bin/qstat" --version 2>/dev/null | sed 's/^.* = //')
    [ -n "$version" ] || die "the installed qstat does not tell its version"
    {
        echo "tarball=$tarball"
        echo "sha256=$sum"
        echo "version=$version"
        echo "built=$(date -u +%FT%TZ)"
        echo "seconds=$(since "$t0")"
        echo "steps=${timings# }"
    } >"$prefix/.ccas-built.tmp"
    mv "$prefix/.ccas-built.tmp" "$prefix/.ccas-built"
    build_done=1
    say "OpenPBS $version built in $prefix in $(since "$t0") s"
}

# ---------------------------------------------------------------- main

cmd=${1:-}
[ $# -eq 0 ] || shift
case $cmd in
build) cmd_build ;;
prefix) compute_prefix && echo "$prefix" ;;
status) cmd_status ;;
deps) cmd_deps ;;
help | --help | -h) usage ;;
'') usage >&2; exit 1 ;;
*) echo "$prog: unknown command '$cmd'" >&2; usage >&2; exit 1 ;;
esac
