#!/bin/sh
# SPDX-License-Identifier: MIT
# slurm-src.sh: build Slurm from a source tarball (vendored, or downloaded and
# checked by fetch-tarball.sh) into a private prefix named after its version,
# tarball hash and build options, so that ccautoscale can be built and tested
# against the Slurm it talks to.
#   scripts/slurm-src.sh build|prefix|status|fetch [VERSION|TARBALL]; list; --help
set -eu

me=slurm-src.sh
top=$(cd "$(dirname "$0")/.." && pwd -P)
vendor_dir=${CCAS_VENDOR_DIR:-"$(cd "$top/.." && pwd -P)/shared/vendor"}
deps_dir=${CCAS_DEPS_DIR:-/opt/ccautoscale-deps}
case $deps_dir in /*) ;; *) deps_dir=$PWD/$deps_dir ;; esac # configure wants it absolute
# libmunge-dev: Slurm 25.11's configure stops without munge.h (unless
# --without-munge); it builds auth/munge, which nothing forces the tests to use.
build_pkgs="build-essential pkg-config libjson-c-dev libyaml-dev libmunge-dev"

# Everything that decides what gets built.  The prefix name carries a short
# hash of these lines, so changing any of them (or RECIPE_REV, for a change
# to the steps below) gives a new prefix instead of reusing an old build.
RECIPE_REV=1
# --enable-multiple-slurmd: several slurmd on one host, as the tests run them.
# --disable-static: libtool would otherwise compile every object twice.
CONFIGURE_OPTS="--enable-pkgconfig --enable-multiple-slurmd --disable-static --disable-sview --disable-slurmrestd --disable-dependency-tracking"
# slurmctld moves a batch job on a freshly resumed node out of CONFIGURING
# only on its periodic tick, 30 s by default; a 5 s tick cut a full
# resume -> run -> suspend cycle in the tests from about 4.5 min to 95 s.
# A test build only: do not install this Slurm anywhere real.
BUILD_CPPFLAGS="-DPERIODIC_TIMEOUT=5"
# cred/none is loaded by slurm_init() in every libslurm client (23.11+), but
# cred_none.c lacks this include, so such clients die with "cred_none.so:
# undefined symbol: get_log_level".  It goes in before PATCH_ANCHOR.
PATCH_FILE="src/plugins/cred/none/cred_none.c"
PATCH_LINE='#include "src/common/slurm_xlator.h"'
PATCH_ANCHOR='#include "src/common/slurm_protocol_api.h"'
STAMP=.ccas-complete

usage() {
    cat <<EOF
Usage: scripts/$me build|prefix|status|fetch [VERSION | TARBALL]
       scripts/$me list | --help

Builds Slurm from source for ccautoscale's tests.  ccautoscale must be
compiled against the Slurm it talks to: Debian 12's libslurm (22.05) cannot
talk to a 25.11 slurmctld, and the libslurm API changed in between.

Commands
  build    Build and install Slurm into its prefix (see below), unless that
           prefix already holds a complete build: then do nothing, at once.
           Installs the missing Debian packages among
             $build_pkgs
           first (apt-get; sudo when not root).  Takes several minutes on two
           cores (make runs under nice -n 10); about 85 MB installed, plus a
           temporary build tree in \${TMPDIR:-/tmp} that is removed at the end.
  prefix   Print the prefix the tarball maps to, built or not.
  status   Say whether that prefix holds a complete build, and its version
           (never downloads).
  fetch    Print the path of the tarball, downloading it if it is not here.
  list     The releases this script knows: vendored, downloaded, built.

Which Slurm
  No argument: \$CCAS_SLURM_TARBALL, or else the newest slurm-*.tar.xz (by
  version) in ../shared/vendor beside the checkout (\$CCAS_VENDOR_DIR if
  set), here:
    $vendor_dir
  else the newest known release (as for VERSION).
  VERSION (24.05.8), or a release series (24.05: its newest): the tarball of
  that version in ../shared/vendor, else one downloaded before into
    $deps_dir/src
  else, for a release this script knows (list), downloaded from SchedMD
  (https://download.schedmd.com/slurm/slurm-VERSION.tar.bz2) and checked
  against a pinned hash by scripts/fetch-tarball.sh (see there).
  TARBALL: a path, or a file name in one of those two directories
  (slurm-24.05.8.tar.xz).

The prefix
  \${CCAS_DEPS_DIR:-/opt/ccautoscale-deps}/slurm-VERSION-TARHASH-OPTHASH
  TARHASH: the first 12 hex digits of the tarball's sha256.
  OPTHASH: a hash of the configure options, CPPFLAGS and source patch this
           script applies: changing them gives a new prefix.
  A build is complete once PREFIX/$STAMP exists; it is written last, so a
  failed or interrupted build is never taken for a good one (and its
  half-installed prefix is removed).  To rebuild: rm -rf "\$(scripts/$me prefix)".
  The build log is PREFIX.log while building, PREFIX/.ccas-build.log after.
  Concurrent builds of the same prefix wait for each other (flock).

What is built
  configure --prefix=PREFIX --sysconfdir=PREFIX/etc
            $CONFIGURE_OPTS
            CPPFLAGS=$BUILD_CPPFLAGS
  -DPERIODIC_TIMEOUT=5: slurmctld's periodic tick at 5 s instead of 30 s, so
    a batch job on a freshly resumed cloud node starts within seconds.  Meant
    for tests only.
  One source fix: $PATCH_FILE gets
    $PATCH_LINE
    (without it every libslurm client crashes in slurm_init() when
    slurm.conf says CredType=cred/none).  If the anchor line is not in the
    file the build stops rather than build without the fix.
  CC, CFLAGS, CPPFLAGS, LDFLAGS and LIBS from the environment are ignored,
  so the prefix name describes the build completely.

Using the result
  P=\$(scripts/$me prefix)
  ./configure --with-slurm=\$P
  PKG_CONFIG_PATH=\$P/lib/pkgconfig pkg-config --cflags --libs slurm   (23.11 and later)
  ./configure CPPFLAGS=-I\$P/include LDFLAGS="-L\$P/lib -Wl,-rpath,\$P/lib"
  libslurm.so is not in the loader's cache: link with -Wl,-rpath,\$P/lib.
  Daemons and commands: \$P/sbin/slurmctld, \$P/sbin/slurmd, \$P/bin/sinfo ...

Exit status
  0  done (build: built or already built; status: built)
  1  failure (status: not built); 130/143 when interrupted
  2  no tarball found, and none could be downloaded (the message says
     what to download and where to put it).  Callers skip loudly on 2
     outside CI, and fail on it when CI=true, so that CI never silently
     tests less.
EOF
}

die() {
    printf '%s: %s\n' "$me" "$*" >&2
    exit 1
}

# The tarball, or exit 2 with what was looked for.  $want: the command's
# argument ("" for the default, a version, a series or a tarball).
# $may_fetch: 1 to download a known tarball missing here (fetch-tarball.sh).
tarball_missing=0
want=""
may_fetch=1
missing() {
    tarball_missing=1
    exit 2
}

# The newest (by version) of the files named by the patterns in $@.
newest() {
    for f in "$@"; do
        [ -f "$f" ] && printf '%s\n' "$f"
    done | sort -V | tail -n 1
}

# The known version that $1 (25.11.7, or a series: 25.11) names, from
# fetch-tarball.sh's list: the newest of the series.
known_version() {
    "$top/scripts/fetch-tarball.sh" --list | awk '{ print $1 }' | sed -n 's/^slurm-//p' |
        awk -v w="$1" 'w == "" || $0 == w || index($0, w ".") == 1' | sort -V | tail -n 1
}

find_tarball() {
    case $want in
    '')
        if [ -n "${CCAS_SLURM_TARBALL:-}" ]; then
            tarball=$CCAS_SLURM_TARBALL
            [ -f "$tarball" ] && return 0
            printf '%s: CCAS_SLURM_TARBALL=%s: no such file\n' "$me" "$tarball" >&2
            missing
        fi
        tarball=$(newest "$vendor_dir"/slurm-*.tar.xz)
        [ -n "$tarball" ] && return 0
        series=$(known_version "" | cut -d. -f1-2)
        ;;
    */* | *.tar.*)
        tarball=$want
        case $want in */*) ;; *) tarball=$(newest "$vendor_dir/$want" "$deps_dir/src/$want") ;; esac
        [ -f "$tarball" ] && return 0
        printf '%s: %s: no such tarball (looked in %s and %s)\n' "$me" "$want" "$vendor_dir" "$deps_dir/src" >&2
        missing
        ;;
    *[!0-9.]* | .* | *. | *..*)
        die "'$want': not a Slurm version (25.11.7, or a series: 25.11), nor a tarball (slurm-25.11.7.tar.xz)"
        ;;
    *) series=$want ;;
    esac
    # a version or a series: the vendored tarball, else one downloaded before
    tarball=$(newest "$vendor_dir/slurm-$series".tar.* "$vendor_dir/slurm-$series".*.tar.* \
        "$deps_dir/src/slurm-$series".tar.xz "$deps_dir/src/slurm-$series".*.tar.xz)
    [ -n "$tarball" ] && return 0
    v=$(known_version "$series")
    if [ -z "$v" ]; then
        printf '%s: no Slurm %s source tarball in %s, and none known to download (scripts/fetch-tarball.sh --list)\n' \
            "$me" "$series" "$vendor_dir" >&2
        printf '%s: set CCAS_SLURM_TARBALL=/path/to/slurm-X.Y.Z.tar.xz, or pass its path\n' "$me" >&2
        missing
    fi
    if [ "$may_fetch" = 0 ]; then
        printf '%s: Slurm %s is not downloaded yet (scripts/%s fetch %s)\n' "$me" "$v" "$me" "$v" >&2
        missing
    fi
    rc=0
    tarball=$("$top/scripts/fetch-tarball.sh" "slurm-$v") || rc=$?
    [ "$rc" = 0 ] && return 0
    if [ "$rc" = 2 ]; then
        printf '%s: or put slurm-%s.tar.xz in %s, or set CCAS_SLURM_TARBALL to its path\n' "$me" "$v" "$vendor_dir" >&2
        missing
    fi
    exit 1
}

# "Major: 25" ... in the META file of an unpacked tree, or of the tarball.
meta_version() {
    awk '$1 == "Major:" { ma = $2 } $1 == "Minor:" { mi = $2 } $1 == "Micro:" { mc = $2 }
         END { if (ma != "" && mi != "" && mc != "") print ma "." mi "." mc }'
}

# Sets version, tar_sha, prefix from the tarball.
compute_prefix() {
    find_tarball
    base=${tarball##*/}
    version=${base#slurm-}
    version=${version%.tar.*}
    case $version in
    *[!0-9.]* | '' | .* | *. | *..*)
        version=$(tar -xOf "$tarball" --wildcards --no-wildcards-match-slash '*/META' 2>/dev/null | meta_version)
        [ -n "$version" ] || die "$tarball: cannot tell the Slurm version (no slurm-X.Y.Z name, no META)"
        ;;
    esac
    tar_sha=$(sha256sum "$tarball") || die "cannot read $tarball"
    tar_sha=${tar_sha%% *}
    recipe=$(printf '%s\n' "rev=$RECIPE_REV" "configure=$CONFIGURE_OPTS" "cppflags=$BUILD_CPPFLAGS" \
        "patch=$PATCH_FILE:$PATCH_ANCHOR:$PATCH_LINE")
    opt_sha=$(printf '%s\n' "$recipe" | sha256sum | cut -c1-8)
    prefix="$deps_dir/slurm-$version-$(printf '%s' "$tar_sha" | cut -c1-12)-$opt_sha"
}

# Version of an installed prefix: its slurm.pc, else slurmctld -V ("slurm
# 25.11.7").  Not sinfo -V: without a slurm.conf it looks for one in DNS and fails.
installed_version() {
    v=$(PKG_CONFIG_PATH="$1/lib/pkgconfig" pkg-config --modversion slurm 2>/dev/null) || v=
    [ -n "$v" ] || v=$("$1/sbin/slurmctld" -V 2>/dev/null | awk '{ print $2; exit }') || v=
    printf '%s\n' "${v:-unknown}"
}

cmd_prefix() {
    compute_prefix
    printf '%s\n' "$prefix"
}

cmd_status() {
    compute_prefix
    echo "tarball: $tarball (Slurm $version)"
    rc=0
    if [ -f "$prefix/$STAMP" ]; then
        echo "built:   yes, in $prefix"
        echo "version: $(installed_version "$prefix")"
        sed -n 's/^built_at=/date:    /p' "$prefix/$STAMP"
        echo "use:     PKG_CONFIG_PATH=$prefix/lib/pkgconfig, link with -Wl,-rpath,$prefix/lib"
    elif [ -d "$prefix" ]; then
        echo "built:   no: $prefix exists but has no $STAMP (an interrupted build); 'build' redoes it"
        rc=1
    else
        echo "built:   no ($prefix does not exist); run scripts/$me build"
        rc=1
    fi
    others=$(for d in "$deps_dir"/slurm-*; do
        [ -d "$d" ] && [ "$d" != "$prefix" ] && printf ' %s' "$d"
    done) || :
    [ -z "$others" ] || echo "other Slurm builds in $deps_dir (rm -rf to reclaim):$others"
    return "$rc"
}

install_missing_packages() {
    if ! command -v dpkg-query >/dev/null 2>&1; then
        echo "$me: no dpkg-query; not checking for: $build_pkgs" >&2
        return 0
    fi
    missing=""
    for p in $build_pkgs; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
    done
    [ -n "$missing" ] || return 0
    if [ "$(id -u)" = 0 ]; then sudo=""; else sudo="sudo"; fi
    echo "$me: installing:$missing"
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq
    # shellcheck disable=SC2086
    $sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
}

# run STEP CMD...: CMD in its own session, output to the log, so that INT or
# TERM here can stop the whole make tree (see on_exit); on failure show the log.
child=""
run() {
    step=$1
    shift
    echo "$me: $step"
    setsid "$@" >>"$log" 2>&1 </dev/null &
    child=$!
    if ! wait "$child"; then
        child=""
        echo "$me: $step failed; the last 40 lines of $log:" >&2
        tail -n 40 "$log" >&2
        exit 1
    fi
    child=""
}

# Insert PATCH_LINE before PATCH_ANCHOR, once.
patch_source() {
    f=$1/$PATCH_FILE
    [ -f "$f" ] || die "patch: $PATCH_FILE is not in the source tree"
    if grep -qxF "$PATCH_LINE" "$f"; then
        echo "$me: patch: $PATCH_FILE already includes slurm_xlator.h"
        return 0
    fi
    grep -qxF "$PATCH_ANCHOR" "$f" ||
        die "patch: anchor line '$PATCH_ANCHOR' not found in $PATCH_FILE; update the patch in $0"
    awk -v line="$PATCH_LINE" -v anchor="$PATCH_ANCHOR" \
        '$0 == anchor && !done { print line; done = 1 } { print }' "$f" >"$f.new"
    mv "$f.new" "$f"
    grep -qxF "$PATCH_LINE" "$f" || die "patch: $PATCH_FILE was not changed"
    echo "$me: patch: added slurm_xlator.h to $PATCH_FILE"
}

# After make install: the library, pkg-config, the daemons and a test program.
validate() {
    [ -f "$prefix/lib/libslurm.so" ] || die "validate: $prefix/lib/libslurm.so is missing"
    if [ -f "$prefix/lib/pkgconfig/slurm.pc" ]; then
        pc=$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs slurm) ||
            die "validate: PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags --libs slurm failed"
        case $pc in
        *"-I$prefix/include"*) ;;
        *) die "validate: pkg-config slurm gives '$pc', not -I$prefix/include" ;;
        esac
    else
        # before 23.11 Slurm installs no slurm.pc (--enable-pkgconfig is
        # 23.11's); ./configure --with-slurm=PREFIX then uses include and lib
        pc="-I$prefix/include -L$prefix/lib -lslurm"
    fi
    v=$("$prefix/sbin/slurmctld" -V) || die "validate: $prefix/sbin/slurmctld -V failed"
    [ "$v" = "slurm $version" ] || die "validate: slurmctld -V says '$v', expected 'slurm $version'"
    cat >"$work/t.c" <<'EOF'
#include <stdio.h>
#include <slurm/slurm.h>
int main(void)
{
    long v = slurm_api_version(); /* from libslurm.so: its API, not the release */
    printf("%d.%02d.%d api %ld.%ld.%ld\n", SLURM_VERSION_MAJOR(SLURM_VERSION_NUMBER),
           SLURM_VERSION_MINOR(SLURM_VERSION_NUMBER), SLURM_VERSION_MICRO(SLURM_VERSION_NUMBER),
           SLURM_VERSION_MAJOR(v), SLURM_VERSION_MINOR(v), SLURM_VERSION_MICRO(v));
    return 0;
}
EOF
    # shellcheck disable=SC2086
    cc -o "$work/t" "$work/t.c" $pc -Wl,-rpath,"$prefix/lib" >>"$log" 2>&1 ||
        die "validate: cannot compile and link a program against $prefix (see $log)"
    v=$("$work/t") || die "validate: a program linked against $prefix/lib/libslurm.so does not run"
    case $v in
    "$version api "*) ;;
    *) die "validate: the test program says '$v', expected the headers to say $version" ;;
    esac
    echo "$me: validate: headers say Slurm ${v%% *}, libslurm.so runs (API ${v##* })"
}

# Cleanup for every way out of 'build': stop the make tree, remove the
# temporary tree and a prefix that did not get its stamp; 2 is only for
# "no tarball", every other failure is 1.
work=""
installing=0
on_exit() {
    rc=$?
    trap - EXIT INT TERM
    if [ -n "$child" ]; then
        kill -TERM -"$child" 2>/dev/null || kill -TERM "$child" 2>/dev/null || :
        wait "$child" 2>/dev/null || :
    fi
    [ -z "$work" ] || rm -rf "$work"
    if [ "$installing" = 1 ] && [ ! -f "$prefix/$STAMP" ]; then
        echo "$me: build did not finish; removing $prefix (log: $log)" >&2
        rm -rf "$prefix"
    fi
    if [ "$rc" = 2 ] && [ "$tarball_missing" = 0 ]; then rc=1; fi
    exit "$rc"
}

cmd_build() {
    t0=$(date +%s)
    compute_prefix
    [ -f "$prefix/$STAMP" ] && { echo "$me: already built: $prefix"; return 0; }

    if ! { mkdir -p "$deps_dir" 2>/dev/null && [ -w "$deps_dir" ]; }; then
        die "cannot write to $deps_dir; set CCAS_DEPS_DIR to a writable directory (e.g. \$HOME/.cache/ccautoscale-deps)"
    fi
    exec 9>"$deps_dir/.${prefix##*/}.lock"
    if ! flock -n 9; then
        echo "$me: another build of $prefix is running; waiting for it"
        flock 9
    fi
    [ -f "$prefix/$STAMP" ] && { echo "$me: already built: $prefix"; return 0; }

    install_missing_packages
    work=$(mktemp -d "${TMPDIR:-/tmp}/ccas-slurm-build.XXXXXX")
    log=$prefix.log
    : >"$log"
    echo "$me: building Slurm $version from $tarball"
    echo "$me: into $prefix (log: $log)"
    mkdir "$work/src" "$work/build"
    tar -xf "$tarball" -C "$work/src" --strip-components=1 || die "cannot unpack $tarball"
    src_version=$(meta_version <"$work/src/META")
    [ "$src_version" = "$version" ] ||
        die "$tarball holds Slurm '$src_version', but its name says $version"
    patch_source "$work/src"

    unset CC CFLAGS CPPFLAGS LDFLAGS LIBS
    ncpu=$(nproc 2>/dev/null || echo 2)
    cd "$work/build"
    # shellcheck disable=SC2086
    run configure nice -n 10 "$work/src/configure" --prefix="$prefix" --sysconfdir="$prefix/etc" \
        $CONFIGURE_OPTS CPPFLAGS="$BUILD_CPPFLAGS"
    run "make -j$ncpu" nice -n 10 make -j"$ncpu"
    if [ -e "$prefix" ]; then
        echo "$me: removing $prefix, left without $STAMP by an earlier build"
        rm -rf "$prefix"
    fi
    installing=1
    run "make install" nice -n 10 make -j"$ncpu" install
    validate
    mv "$log" "$prefix/.ccas-build.log"
    log=$prefix/.ccas-build.log
    {
        echo "version=$version"
        echo "tarball=$tarball"
        echo "tarball_sha256=$tar_sha"
        printf '%s\n' "$recipe"
        echo "built_at=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
        echo "build_seconds=$(($(date +%s) - t0))"
    } >"$prefix/$STAMP.tmp"
    mv "$prefix/$STAMP.tmp" "$prefix/$STAMP"
    installing=0
    echo "$me: built Slurm $version in $(($(date +%s) - t0)) s: $prefix ($(du -sh "$prefix" | cut -f1))"
}

cmd_fetch() {
    compute_prefix
    echo "$tarball"
}

# The known releases: vendored, downloaded, built.
cmd_list() {
    "$top/scripts/fetch-tarball.sh" --list | sed -n 's/^slurm-\([^ ]*\) \(.*\)/\1 \2/p' |
        while read -r v url; do
            where=""
            [ -f "$vendor_dir/slurm-$v.tar.xz" ] && where="vendored"
            [ -f "$deps_dir/src/slurm-$v.tar.xz" ] && where="${where:+$where, }downloaded"
            built=""
            for d in "$deps_dir/slurm-$v"-*; do
                [ -f "$d/$STAMP" ] && built="built: $d"
            done
            printf '%-9s %s\n' "$v" "${where:-not here ($url)}${built:+; $built}"
        done
}

cmd=${1:-}
[ $# -le 2 ] || {
    usage >&2
    exit 1
}
want=${2:-}
case $cmd in
build)
    trap on_exit EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    cmd_build
    ;;
prefix) trap on_exit EXIT; cmd_prefix ;;
status) trap on_exit EXIT; may_fetch=0; cmd_status ;;
fetch) trap on_exit EXIT; cmd_fetch ;;
list) cmd_list ;;
-h | --help | help) usage ;;
*)
    usage >&2
    exit 1
    ;;
esac
