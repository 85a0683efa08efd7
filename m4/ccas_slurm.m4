# SPDX-License-Identifier: MIT
# CCAS_WITH_SLURM: find libslurm by header and library; --without-slurm skips slurm_power/.
AC_DEFUN([CCAS_WITH_SLURM], [
  AC_ARG_WITH([slurm],
    [AS_HELP_STRING([--without-slurm], [build without the Slurm programs (slurm_power/)])],
    [], [with_slurm=check])
  SLURM_LIBS=
  AS_IF([test "x$with_slurm" != xno], [
    ccas_save_LIBS=$LIBS
    AC_CHECK_HEADER([slurm/slurm.h],
      [AC_CHECK_LIB([slurm], [slurm_load_node],
         [SLURM_LIBS=-lslurm; with_slurm=yes],
         [AS_IF([test "x$with_slurm" = xyes],
                [AC_MSG_ERROR([libslurm not found (install libslurm-dev)])], [with_slurm=no])])],
      [AS_IF([test "x$with_slurm" = xyes],
             [AC_MSG_ERROR([slurm/slurm.h not found (install libslurm-dev)])], [with_slurm=no])])
    LIBS=$ccas_save_LIBS
  ])
  AC_SUBST([SLURM_LIBS])
  AM_CONDITIONAL([WITH_SLURM], [test "x$with_slurm" = xyes])
  AS_IF([test "x$with_slurm" = xyes], [AC_DEFINE([WITH_SLURM], [1], [Build the Slurm side])])
])
