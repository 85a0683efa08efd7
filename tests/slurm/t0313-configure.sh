#!/bin/bash
# SPDX-License-Identifier: MIT
# t0313-configure.sh: --version says which libslurm the programs were built
# against; ./configure --with-slurm=PREFIX against Slurms it must
# refuse, each with a message that says what is wrong: one older than 22.05,
# one newer than the newest release series ccautoscale knows (unless
# --enable-untested-slurm), headers that are not the library's (a prefix of
# this build's headers that claim another release; and, where both are
# installed, Debian's 22.05 headers beside the 25.11 library, which used to
# fail only at link time, far into the build), and prefixes that are not
# one.  The fake prefixes are copies of the headers this build uses, with
# SLURM_VERSION_NUMBER edited, beside its real library.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/slurm.sh"
[ "${CCAS_TEST_SLURM:-1}" = 0 ] && test_skip_all "CCAS_TEST_SLURM=0"
[ -x "$top_srcdir/configure" ] || test_skip_all "no configure script in $top_srcdir (run autogen.sh)"
SLURM_CFLAGS=$(slurm_build_var SLURM_CFLAGS)
SLURM_LIBS=$(slurm_build_var SLURM_LIBS)

# where this build's slurm/slurm.h and libslurm.so are
incdir=$(echo "$SLURM_CFLAGS" | sed -n 's/.*-isystem *\([^ ]*\).*/\1/p')
incdir=${incdir:-/usr/include}
libdir=$(echo "$SLURM_LIBS" | sed -n 's/.*-L\([^ ]*\).*/\1/p')
if [ -z "$libdir" ]; then
    libdir=$(dirname "$(gcc -print-file-name=libslurm.so)")
fi
[ -f "$incdir/slurm/slurm.h" ] && [ -e "$libdir/libslurm.so" ] ||
    test_skip_all "cannot find this build's slurm.h ($incdir) and libslurm.so ($libdir)"

# fake_prefix DIR VERSION_NUMBER [HEADERS_DIR [LIB_DIR]]: a prefix whose
# headers say VERSION_NUMBER (hex, as slurm_version.h writes it)
fake_prefix () {
    local dir=$1 num=$2 inc=${3:-$incdir} lib=${4:-$libdir}
    mkdir -p "$dir/include/slurm" "$dir/lib" &&
        cp "$inc"/slurm/*.h "$dir/include/slurm/" &&
        sed -i "s/^#define SLURM_VERSION_NUMBER .*/#define SLURM_VERSION_NUMBER $num/" "$dir/include/slurm/slurm_version.h" &&
        ln -s "$lib"/libslurm.so* "$dir/lib/"
}

# run_configure NAME ARGS...: configure in NAME/ (the cache of a first run
# without Slurm keeps every other check quick); its output in NAME.out
run_configure () {
    local name=$1
    shift
    mkdir -p "$name" && cp cache "$name/config.cache" &&
        (cd "$name" && "$top_srcdir/configure" -C --disable-werror "$@" >"../$name.out" 2>&1)
}

test_expect_success "--version names the libslurm the programs were built against ($SLURM_BUILD_VERSION)" '
    for p in plugin/ccautoscale slurm_power/ccautoscale-resume slurm_power/ccautoscale-suspend \
        slurm_power/ccautoscale-resume-fail; do
        "$top_builddir/$p" --version >v.out && cat v.out &&
        test_grep "^Slurm: built against libslurm $SLURM_BUILD_VERSION (API [0-9]*) from " v.out || return 1
    done
'

test_expect_success 'configure without Slurm (fills the cache for the runs below)' '
    mkdir base && (cd base && "$top_srcdir/configure" -C --without-slurm >../base.out 2>&1) &&
    grep -v "slurm" base/config.cache >cache &&
    test_grep "slurm support: *no" base.out
'

test_expect_success "a prefix holding this build's Slurm ($SLURM_BUILD_VERSION) is taken" '
    num=$(sed -n "s/^#define SLURM_VERSION_NUMBER //p" "$incdir/slurm/slurm_version.h") &&
    fake_prefix same "$num" &&
    run_configure c-same --with-slurm="$TEST_TMP/same" &&
    test_grep "checking whether ccautoscale knows Slurm $SLURM_BUILD_VERSION... yes" c-same.out &&
    test_grep "checking whether libslurm is the library of the Slurm $SLURM_BUILD_VERSION headers... yes" c-same.out &&
    test_grep "slurm support: *yes: Slurm $SLURM_BUILD_VERSION ($TEST_TMP/same)" c-same.out &&
    grep "^SLURM_LIBS = " c-same/Makefile | grep -q -- "-Wl,-rpath,$TEST_TMP/same/lib" &&
    grep "^SLURM_CFLAGS = " c-same/Makefile | grep -q -- "-isystem $TEST_TMP/same/include"
'

test_expect_success 'Slurm 21.08: older than any ccautoscale builds against' '
    fake_prefix old 0x150808 &&
    test_expect_code 1 run_configure c-old --with-slurm="$TEST_TMP/old" &&
    test_grep "error: Slurm 21.08.8 (slurm/slurm_version.h, from $TEST_TMP/old) is older than 22.05" c-old.out
'

test_expect_success 'Slurm 26.05: newer than ccautoscale knows; --enable-untested-slurm goes on' '
    fake_prefix new 0x1a0500 &&
    test_expect_code 1 run_configure c-new --with-slurm="$TEST_TMP/new" &&
    test_grep "error: Slurm 26.05.0 (from $TEST_TMP/new) is newer than 25.11, the newest release series ccautoscale knows" c-new.out &&
    test_grep "To try anyway: --enable-untested-slurm" c-new.out &&
    run_configure c-untested --with-slurm="$TEST_TMP/new" --enable-untested-slurm &&
    test_grep "checking whether ccautoscale knows Slurm 26.05.0... yes" c-untested.out
'

# headers of another known series beside this library: 22.05's API (with
# slurm_get_errno) does not link with 24.11+, and 25.11's headers say API 44
# where a 22.05 library says 38
test_expect_success 'headers that claim another release than the library is: refused, naming both' '
    if slurm_since 24.11; then other=0x160508 otherv=22.05.8; else other=0x190b07 otherv=25.11.7; fi &&
    fake_prefix mixed "$other" &&
    test_expect_code 1 run_configure c-mixed --with-slurm="$TEST_TMP/mixed" &&
    grep "error:" c-mixed.out &&
    { test_grep "error: the Slurm $otherv headers (from $TEST_TMP/mixed) do not link with its libslurm" c-mixed.out ||
      test_grep "error: the Slurm $otherv headers (from $TEST_TMP/mixed) are of libslurm API .*, but the libslurm that was linked .* reports API .*: the headers and the library are from different Slurm versions" c-mixed.out; }
'

# the first try of the issue: Debian's headers, 25.11's library
if [ -f /usr/include/slurm/slurm.h ] && [ "$incdir" != /usr/include ]; then
    test_expect_success "Debian's 22.05 headers beside this $SLURM_BUILD_VERSION library: refused at configure time" '
        num=$(sed -n "s/^#define SLURM_VERSION_NUMBER //p" /usr/include/slurm/slurm_version.h) &&
        fake_prefix debian "$num" /usr/include &&
        test_expect_code 1 run_configure c-debian --with-slurm="$TEST_TMP/debian" &&
        grep "error:" c-debian.out &&
        test_grep "headers (from $TEST_TMP/debian) .*libslurm" c-debian.out
    '
fi

test_expect_success 'not a prefix: a relative path, a missing directory, one without slurm.h' '
    test_expect_code 1 run_configure c-rel --with-slurm=opt/slurm &&
    test_grep "error: --with-slurm=opt/slurm: give the absolute path of the prefix" c-rel.out &&
    test_expect_code 1 run_configure c-missing --with-slurm=/nonexistent/slurm &&
    test_grep "error: --with-slurm=/nonexistent/slurm: no such directory" c-missing.out &&
    mkdir empty &&
    test_expect_code 1 run_configure c-empty --with-slurm="$TEST_TMP/empty" &&
    test_grep "error: --with-slurm=$TEST_TMP/empty: no $TEST_TMP/empty/include/slurm/slurm.h" c-empty.out
'

test_done
