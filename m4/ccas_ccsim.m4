# SPDX-License-Identifier: MIT
# CCAS_WITH_CCSIM: the CycleCloud simulator needs libmicrohttpd; without it tests that need ccsim are skipped.
AC_DEFUN([CCAS_WITH_CCSIM], [
  PKG_CHECK_MODULES([MHD], [libmicrohttpd >= 0.9.70], [have_ccsim=yes], [have_ccsim=no])
  AM_CONDITIONAL([HAVE_CCSIM], [test "x$have_ccsim" = xyes])
])
