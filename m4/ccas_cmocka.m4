# SPDX-License-Identifier: MIT
# CCAS_WITH_CMOCKA: unit tests need cmocka; make check fails loudly without it rather than pass silently.
AC_DEFUN([CCAS_WITH_CMOCKA], [
  PKG_CHECK_MODULES([CMOCKA], [cmocka >= 1.1], [have_cmocka=yes], [have_cmocka=no])
  AM_CONDITIONAL([HAVE_CMOCKA], [test "x$have_cmocka" = xyes])
])
