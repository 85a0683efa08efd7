/* SPDX-License-Identifier: MIT */
/* text.h: a growing text buffer that printf appends to.
 *
 * For generated files and reports built line by line (slurm conf, its
 * comparison with what Slurm has).  An allocation that fails marks the
 * buffer `oom` and every later append is dropped, so a caller checks once,
 * at the end.  The caller owns `p` (NUL-terminated once anything was
 * appended; NULL before) and frees it.
 */
#ifndef CCAS_UTIL_TEXT_H
#define CCAS_UTIL_TEXT_H

#include <stdbool.h>
#include <stddef.h>

struct ccas_text {
    char *p;
    size_t len, cap;
    bool oom; /* an append failed: the text is incomplete */
};

/* Append printf's output of `fmt` to `t`. */
void ccas_text_printf (struct ccas_text *t, const char *fmt, ...) __attribute__ ((format (printf, 2, 3)));

#endif /* !CCAS_UTIL_TEXT_H */
