# SPDX-License-Identifier: MIT
# CCAS_SYSTEMD: where the sync service and timer go.
AC_DEFUN([CCAS_SYSTEMD], [
  AC_ARG_WITH([systemdsystemunitdir],
    [AS_HELP_STRING([--with-systemdsystemunitdir=DIR], [systemd units @<:@PREFIX/lib/systemd/system@:>@])],
    [], [with_systemdsystemunitdir='${prefix}/lib/systemd/system'])
  AC_SUBST([systemdsystemunitdir], [$with_systemdsystemunitdir])
])
