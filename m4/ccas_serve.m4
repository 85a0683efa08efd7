# SPDX-License-Identifier: MIT
# CCAS_WITH_SERVE: `ccautoscale serve`, the autostop endpoint, needs libmicrohttpd (found by
# CCAS_WITH_CCSIM, which comes first) and GnuTLS (its HMAC and random bytes; libmicrohttpd's TLS
# is GnuTLS too).  Built when both are there unless --without-serve; --with-serve insists.
AC_DEFUN([CCAS_WITH_SERVE], [
  AC_ARG_WITH([serve],
    [AS_HELP_STRING([--without-serve], [leave out `ccautoscale serve` (needs libmicrohttpd and GnuTLS)])],
    [], [with_serve=check])
  have_serve=no
  AS_IF([test "x$with_serve" != xno], [
    PKG_CHECK_MODULES([GNUTLS], [gnutls >= 3.6], [have_gnutls=yes], [have_gnutls=no])
    AS_IF([test "x$have_ccsim" = xyes && test "x$have_gnutls" = xyes], [have_serve=yes],
          [test "x$with_serve" = xyes],
          [AC_MSG_ERROR([--with-serve needs libmicrohttpd and GnuTLS (libmicrohttpd-dev, libgnutls28-dev)])])
  ])
  AS_IF([test "x$have_serve" = xyes],
        [AC_DEFINE([WITH_SERVE], [1], [Build `ccautoscale serve`.])])
  AM_CONDITIONAL([WITH_SERVE], [test "x$have_serve" = xyes])
])
