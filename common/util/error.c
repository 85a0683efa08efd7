/* SPDX-License-Identifier: MIT */
/* error.c: fill, prefix and clear struct ccas_error. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "util/error.h"
#include "util/log.h"

static void mark_truncated (struct ccas_error *err)
{
    size_t n = sizeof (err->text);
    memcpy (err->text + n - 4, "...", 4);
}

int ccas_verrorf (struct ccas_error *err, const char *fmt, va_list ap)
{
    int saved_errno = errno;
    if (err) {
        int n = vsnprintf (err->text, sizeof (err->text), fmt, ap);
        if (n >= (int)sizeof (err->text))
            mark_truncated (err);
    }
    errno = saved_errno;
    return -1;
}

int ccas_errorf (struct ccas_error *err, const char *fmt, ...)
{
    va_list ap;
    va_start (ap, fmt);
    ccas_verrorf (err, fmt, ap);
    va_end (ap);
    return -1;
}

int ccas_error_prefix (struct ccas_error *err, const char *fmt, ...)
{
    int saved_errno = errno;
    if (err) {
        char prefix[sizeof (err->text)];
        char old[sizeof (err->text)];
        va_list ap;
        va_start (ap, fmt);
        vsnprintf (prefix, sizeof (prefix), fmt, ap);
        va_end (ap);
        memcpy (old, err->text, sizeof (old));
        int n = snprintf (err->text, sizeof (err->text), "%s: %s", prefix, old);
        if (n >= (int)sizeof (err->text))
            mark_truncated (err);
    }
    errno = saved_errno;
    return -1;
}

void ccas_error_clear (struct ccas_error *err)
{
    if (err)
        err->text[0] = '\0';
}

_Noreturn void ccas_bug (const char *file, int line, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start (ap, fmt);
    vsnprintf (msg, sizeof (msg), fmt, ap);
    va_end (ap);
    ccas_log (LOG_CRIT, "BUG at %s:%d: %s", file, line, msg);
    fprintf (stderr, "ccautoscale: BUG at %s:%d: %s\n", file, line, msg);
    abort ();
}
