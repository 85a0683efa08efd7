# SPDX-License-Identifier: MIT
# CCAS_ENABLE_FUZZING: --enable-fuzzing builds everything with coverage for
# libFuzzer (clang only) plus ASan and UBSan, and the fuzz targets as fuzzers.
# Without it the targets are built with a small driver that replays their
# corpus and regression inputs, as part of `make check`.
AC_DEFUN([CCAS_ENABLE_FUZZING], [
  AC_ARG_ENABLE([fuzzing],
    [AS_HELP_STRING([--enable-fuzzing], [build libFuzzer targets (needs clang: CC=clang)])],
    [], [enable_fuzzing=no])
  AS_IF([test "x$enable_fuzzing" = xyes], [
    FUZZ_FLAGS="-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
    saved_CFLAGS=$CFLAGS
    CFLAGS="$CFLAGS -fsanitize=fuzzer"
    AC_MSG_CHECKING([whether $CC links libFuzzer targets])
    AC_LINK_IFELSE([AC_LANG_SOURCE([[
#include <stddef.h>
#include <stdint.h>
int LLVMFuzzerTestOneInput (const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }
]])], [AC_MSG_RESULT([yes])],
      [AC_MSG_RESULT([no])
       AC_MSG_ERROR([--enable-fuzzing needs clang with libFuzzer: CC=clang, Debian package libclang-rt-dev])])
    CFLAGS="$saved_CFLAGS $FUZZ_FLAGS"
    LDFLAGS="$LDFLAGS -fsanitize=address,undefined"
  ])
  AC_SUBST([enable_fuzzing])
  AM_CONDITIONAL([FUZZING], [test "x$enable_fuzzing" = xyes])
])
