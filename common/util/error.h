/* SPDX-License-Identifier: MIT */
/* error.h: a fixed-size error message that travels as the last parameter.
 *
 * Deep code says what failed with ccas_errorf(); callers add where with
 * ccas_error_prefix(), so the user reads "FILE: KEY: what failed".  Messages
 * are lowercase, without a full stop, values in single quotes, and never hold
 * a secret.  Every function here accepts a NULL error and keeps errno.
 */
#ifndef CCAS_ERROR_H
#define CCAS_ERROR_H

#include <stdarg.h>

struct ccas_error {
    char text[512];
};

/* Fill `err` (may be NULL) from a printf format.  Marks truncation with "...".
 * Always returns -1 so that failure is one line: `return ccas_errorf (...)`. */
int ccas_errorf (struct ccas_error *err, const char *fmt, ...) __attribute__ ((format (printf, 2, 3)));

int ccas_verrorf (struct ccas_error *err, const char *fmt, va_list ap)
    __attribute__ ((format (printf, 2, 0)));

/* Prepend "<prefix>: " to the message already in `err`.  Returns -1. */
int ccas_error_prefix (struct ccas_error *err, const char *fmt, ...) __attribute__ ((format (printf, 2, 3)));

/* Clear the message. */
void ccas_error_clear (struct ccas_error *err);

/* An impossible state: log it and abort.  The only abort() in common/. */
#define CCAS_BUG(...) ccas_bug (__FILE__, __LINE__, __VA_ARGS__)
_Noreturn void ccas_bug (const char *file, int line, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));

#endif /* !CCAS_ERROR_H */
