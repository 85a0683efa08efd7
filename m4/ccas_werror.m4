# SPDX-License-Identifier: MIT
# CCAS_ENABLE_WERROR: warnings are errors unless --disable-werror (CI never disables it).
AC_DEFUN([CCAS_ENABLE_WERROR], [
  AC_ARG_ENABLE([werror],
    [AS_HELP_STRING([--disable-werror], [do not turn warnings into errors])],
    [], [enable_werror=yes])
  # -Wno-format-truncation: messages and JSON paths are built in fixed buffers
  # on purpose; a path longer than the buffer is cut, never overflowed.
  # (clang has no such warning: asked only of compilers that know it)
  WARN_CFLAGS="-std=c11 -Wall -Wextra -Wshadow -Wformat=2 -Wmissing-prototypes -Wstrict-prototypes -Wno-unused-parameter"
  ccas_saved_CFLAGS=$CFLAGS
  CFLAGS="$CFLAGS -Werror -Wformat-truncation"
  AC_COMPILE_IFELSE([AC_LANG_PROGRAM([], [])], [WARN_CFLAGS="$WARN_CFLAGS -Wno-format-truncation"])
  CFLAGS=$ccas_saved_CFLAGS
  AS_IF([test "x$enable_werror" = xyes], [WARN_CFLAGS="$WARN_CFLAGS -Werror"])
  AC_SUBST([WARN_CFLAGS])
])
