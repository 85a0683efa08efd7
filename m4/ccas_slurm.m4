# SPDX-License-Identifier: MIT
# CCAS_WITH_SLURM: the libslurm the Slurm programs are built against.
#
#   --with-slurm          the system's (Debian's libslurm-dev); the default,
#                         skipped with a notice when it is not installed
#   --with-slurm=PREFIX   the Slurm installed under PREFIX: its slurm.pc
#                         (PREFIX/lib/pkgconfig or lib64/pkgconfig), else
#                         PREFIX/include and PREFIX/lib (or lib64); linked
#                         with an rpath, since such a libslurm is not in the
#                         loader's cache
#   --without-slurm       no Slurm programs (slurm_power/)
#   --enable-untested-slurm  build against a Slurm newer than the newest
#                         release series slurm_power/slurm_compat.h knows
#
# slurm.h is included as a system header (-isystem): its own declarations
# would otherwise trip -Wstrict-prototypes.  Configure refuses a Slurm it
# does not know (too old, or newer than slurm_compat.h knows) and headers
# that are not the library's (linked and run: the API number the library
# reports must be the headers' series).
#
# Sets SLURM_CFLAGS, SLURM_LIBS, SLURM_VERSION ("25.11.7"), SLURM_BINDIR and
# SLURM_SBINDIR (where that Slurm's commands are: empty for the system's, so
# PATH decides), the WITH_SLURM conditional and define, and CCAS_SLURM_FROM
# (the prefix, or "the system's default paths") for `ccautoscale --version`.
AC_DEFUN([CCAS_WITH_SLURM], [
  AC_ARG_WITH([slurm],
    [AS_HELP_STRING([--with-slurm@<:@=PREFIX@:>@],
      [build the Slurm programs against the Slurm installed under PREFIX (pkg-config, else PREFIX/include and PREFIX/lib, with an rpath); without PREFIX, against the system's libslurm (the default, when installed); --without-slurm: no Slurm programs])],
    [], [with_slurm=check])
  AC_ARG_ENABLE([untested-slurm],
    [AS_HELP_STRING([--enable-untested-slurm],
      [build against a Slurm release newer than the newest ccautoscale knows (its API may have changed)])],
    [], [enable_untested_slurm=no])
  SLURM_CFLAGS=
  SLURM_LIBS=
  SLURM_VERSION=
  SLURM_BINDIR=
  SLURM_SBINDIR=
  ccas_slurm_from="the system's default paths"
  ccas_slurm_prefix=
  AS_CASE([$with_slurm],
    [no|check|yes], [],
    [/*], [ccas_slurm_prefix=$with_slurm; with_slurm=yes],
    [AC_MSG_ERROR([--with-slurm=$with_slurm: give the absolute path of the prefix Slurm is installed under (the directory holding include/slurm/slurm.h)])])

  AS_IF([test -n "$ccas_slurm_prefix"], [
    AS_IF([test -d "$ccas_slurm_prefix"], [],
          [AC_MSG_ERROR([--with-slurm=$ccas_slurm_prefix: no such directory])])
    ccas_slurm_from=$ccas_slurm_prefix
    ccas_slurm_incdir=$ccas_slurm_prefix/include
    ccas_slurm_libdir=
    AC_MSG_CHECKING([for slurm.pc under $ccas_slurm_prefix])
    ccas_slurm_pcdir=
    for d in "$ccas_slurm_prefix/lib/pkgconfig" "$ccas_slurm_prefix/lib64/pkgconfig"; do
      AS_IF([test -z "$ccas_slurm_pcdir" && test -f "$d/slurm.pc"], [ccas_slurm_pcdir=$d])
    done
    AS_IF([test -n "$ccas_slurm_pcdir" && test -n "$PKG_CONFIG"], [
      AC_MSG_RESULT([$ccas_slurm_pcdir/slurm.pc])
      # only that prefix's slurm.pc, never another Slurm's
      ccas_slurm_incdir=`PKG_CONFIG_LIBDIR="$ccas_slurm_pcdir" PKG_CONFIG_PATH= $PKG_CONFIG --variable=includedir slurm`
      ccas_slurm_libdir=`PKG_CONFIG_LIBDIR="$ccas_slurm_pcdir" PKG_CONFIG_PATH= $PKG_CONFIG --variable=libdir slurm`
    ], [
      AC_MSG_RESULT([no; using $ccas_slurm_prefix/include and lib])
    ])
    AS_IF([test -z "$ccas_slurm_libdir"], [
      ccas_slurm_libdir=$ccas_slurm_prefix/lib
      AS_IF([test ! -e "$ccas_slurm_libdir/libslurm.so" && test -e "$ccas_slurm_prefix/lib64/libslurm.so"],
            [ccas_slurm_libdir=$ccas_slurm_prefix/lib64])
    ])
    AS_IF([test -f "$ccas_slurm_incdir/slurm/slurm.h"], [],
          [AC_MSG_ERROR([--with-slurm=$ccas_slurm_prefix: no $ccas_slurm_incdir/slurm/slurm.h (is Slurm installed there, with its headers?)])])
    AS_IF([test -e "$ccas_slurm_libdir/libslurm.so"], [],
          [AC_MSG_ERROR([--with-slurm=$ccas_slurm_prefix: no $ccas_slurm_libdir/libslurm.so])])
    # the compiler's own directories need neither -isystem nor an rpath
    AS_CASE([$ccas_slurm_incdir], [/usr/include|/usr/local/include], [],
            [SLURM_CFLAGS="-isystem $ccas_slurm_incdir"])
    AS_CASE([$ccas_slurm_libdir], [/usr/lib|/usr/lib64|/lib|/lib64|/usr/lib/*-linux-gnu],
            [SLURM_LIBS="-lslurm"],
            [SLURM_LIBS="-L$ccas_slurm_libdir -Wl,-rpath,$ccas_slurm_libdir -lslurm"])
    AS_IF([test -d "$ccas_slurm_prefix/sbin"], [SLURM_SBINDIR=$ccas_slurm_prefix/sbin])
    AS_IF([test -d "$ccas_slurm_prefix/bin"], [SLURM_BINDIR=$ccas_slurm_prefix/bin])
  ], [
    SLURM_LIBS=-lslurm
  ])

  AS_IF([test "x$with_slurm" != xno], [
    ccas_save_CPPFLAGS=$CPPFLAGS
    ccas_save_LIBS=$LIBS
    CPPFLAGS="$SLURM_CFLAGS $CPPFLAGS"
    LIBS="$SLURM_LIBS $LIBS"
    ccas_slurm_ok=yes
    AC_CHECK_HEADER([slurm/slurm.h], [], [ccas_slurm_ok=no])
    AS_IF([test $ccas_slurm_ok = no && test "x$with_slurm" = xcheck], [
      AC_MSG_NOTICE([slurm/slurm.h not found: building without the Slurm programs (install libslurm-dev, or --with-slurm=PREFIX)])
      with_slurm=no
    ], [test $ccas_slurm_ok = no], [
      AC_MSG_ERROR([slurm/slurm.h not found (install libslurm-dev, or give --with-slurm=PREFIX)])
    ])
  ])

  AS_IF([test "x$with_slurm" != xno], [
    # the headers' release, for the checks and the messages below
    AC_COMPUTE_INT([ccas_slurm_vnum], [SLURM_VERSION_NUMBER], [[#include <slurm/slurm_version.h>]],
      [AC_MSG_ERROR([slurm/slurm_version.h: cannot read SLURM_VERSION_NUMBER (CPPFLAGS: $SLURM_CFLAGS)])])
    SLURM_VERSION="$((ccas_slurm_vnum >> 16 & 255)).`printf '%02d' $((ccas_slurm_vnum >> 8 & 255))`.$((ccas_slurm_vnum & 255))"
    AC_MSG_CHECKING([whether ccautoscale knows Slurm $SLURM_VERSION])
    AS_IF([test "x$enable_untested_slurm" = xyes],
          [SLURM_CFLAGS="$SLURM_CFLAGS -DCCAS_SLURM_UNTESTED"; CPPFLAGS="$CPPFLAGS -DCCAS_SLURM_UNTESTED"])
    AC_COMPILE_IFELSE([AC_LANG_SOURCE([[#include "$srcdir/slurm_power/slurm_compat.h"
]])], [AC_MSG_RESULT([yes])], [
      AC_MSG_RESULT([no])
      AS_IF([test "$ccas_slurm_vnum" -lt $((22 << 16 | 5 << 8))],
        [AC_MSG_ERROR([Slurm $SLURM_VERSION (slurm/slurm_version.h, from $ccas_slurm_from) is older than 22.05, the oldest ccautoscale builds against])],
        [test "$ccas_slurm_vnum" -ge $((25 << 16 | 12 << 8))],
        [AC_MSG_ERROR([Slurm $SLURM_VERSION (from $ccas_slurm_from) is newer than 25.11, the newest release series ccautoscale knows (slurm_power/slurm_compat.h): its API may have changed.  To try anyway: --enable-untested-slurm])],
        [AC_MSG_ERROR([slurm_power/slurm_compat.h does not compile against Slurm $SLURM_VERSION from $ccas_slurm_from (see config.log)])])
    ])
    # headers and library of one Slurm: what this release's API needs links,
    # and the library reports the headers' API number
    AC_MSG_CHECKING([whether libslurm is the library of the Slurm $SLURM_VERSION headers])
    AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include "$srcdir/slurm_power/slurm_compat.h"
]], [[compat_hostlist hl = slurm_hostlist_create ("a[1-2]");
char buf[64];
slurm_hostlist_ranged_string (hl, sizeof (buf), buf);
slurm_hostlist_destroy (hl);
return COMPAT_SLURM_ERRNO () + slurm_reconfigure () + (int) slurm_api_version ();]])],
      [], [
      AC_MSG_RESULT([no])
      AC_MSG_ERROR([the Slurm $SLURM_VERSION headers (from $ccas_slurm_from) do not link with its libslurm (LIBS: $SLURM_LIBS): are the headers and the library from the same Slurm?  (see config.log)])
    ])
    AC_RUN_IFELSE([AC_LANG_PROGRAM([[#include <stdio.h>
#include "$srcdir/slurm_power/slurm_compat.h"
]], [[long api = SLURM_VERSION_MAJOR (slurm_api_version ());
FILE *f = fopen ("conftest.api", "w");
if (f) { fprintf (f, "%d %ld\n", CCAS_SLURM_API, api); fclose (f); }
return CCAS_SLURM_API && api != CCAS_SLURM_API;]])],
      [AC_MSG_RESULT([yes])], [
      AC_MSG_RESULT([no])
      ccas_slurm_api_want=`cut -d' ' -f1 conftest.api 2>/dev/null`
      ccas_slurm_api_got=`cut -d' ' -f2 conftest.api 2>/dev/null`
      AS_IF([test -z "$ccas_slurm_api_got"],
        [AC_MSG_ERROR([a program built against the Slurm $SLURM_VERSION headers and libslurm (from $ccas_slurm_from; LIBS: $SLURM_LIBS) does not run (see config.log)])])
      AC_MSG_ERROR([the Slurm $SLURM_VERSION headers (from $ccas_slurm_from) are of libslurm API $ccas_slurm_api_want (libslurm.so.$ccas_slurm_api_want), but the libslurm that was linked (LIBS: $SLURM_LIBS) reports API $ccas_slurm_api_got: the headers and the library are from different Slurm versions])
    ], [AC_MSG_RESULT([cannot run when cross-compiling; assumed])])
    CPPFLAGS=$ccas_save_CPPFLAGS
    LIBS=$ccas_save_LIBS
    with_slurm=yes
  ])

  AC_SUBST([SLURM_CFLAGS])
  AC_SUBST([SLURM_LIBS])
  AC_SUBST([SLURM_VERSION])
  AC_SUBST([SLURM_BINDIR])
  AC_SUBST([SLURM_SBINDIR])
  AM_CONDITIONAL([WITH_SLURM], [test "x$with_slurm" = xyes])
  AS_IF([test "x$with_slurm" = xyes], [
    AC_DEFINE([WITH_SLURM], [1], [Build the Slurm side])
    AC_DEFINE_UNQUOTED([CCAS_SLURM_FROM], ["$ccas_slurm_from"],
      [Where the libslurm built against came from: its prefix, or the system's default paths])
    ccas_slurm_summary="yes: Slurm $SLURM_VERSION ($ccas_slurm_from)"
  ], [ccas_slurm_summary=no])
])
