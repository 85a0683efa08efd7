# SPDX-License-Identifier: MIT
# CCAS_ENABLE_SANITIZERS: --enable-sanitizers builds everything with ASan and UBSan.
AC_DEFUN([CCAS_ENABLE_SANITIZERS], [
  AC_ARG_ENABLE([sanitizers],
    [AS_HELP_STRING([--enable-sanitizers], [build with -fsanitize=address,undefined])],
    [], [enable_sanitizers=no])
  AS_IF([test "x$enable_sanitizers" = xyes], [
    SAN_FLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
    CFLAGS="$CFLAGS $SAN_FLAGS"
    LDFLAGS="$LDFLAGS $SAN_FLAGS"
  ])
  AM_CONDITIONAL([SANITIZERS], [test "x$enable_sanitizers" = xyes])
])
