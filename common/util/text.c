/* SPDX-License-Identifier: MIT */
/* text.c: a growing text buffer that printf appends to. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "util/text.h"

void ccas_text_printf (struct ccas_text *t, const char *fmt, ...)
{
    va_list ap;
    va_start (ap, fmt);
    int n = vsnprintf (NULL, 0, fmt, ap);
    va_end (ap);
    if (n < 0 || t->oom)
        return;
    if (t->len + (size_t)n + 1 > t->cap) {
        size_t cap = (t->len + (size_t)n + 1) * 2; /* doubling: appends stay O(1) amortised */
        char *p = realloc (t->p, cap);
        if (!p) {
            t->oom = true;
            return;
        }
        t->p = p;
        t->cap = cap;
    }
    va_start (ap, fmt);
    vsnprintf (t->p + t->len, t->cap - t->len, fmt, ap);
    va_end (ap);
    t->len += (size_t)n;
}
