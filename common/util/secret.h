/* SPDX-License-Identifier: MIT */
/* secret.h: passwords in memory and on disk.
 *
 * A secret is a heap string that is zeroed before it is freed.  Files that
 * hold one must not be readable by group or others; the check names the
 * file, its mode and the command that fixes it.
 */
#ifndef CCAS_SECRET_H
#define CCAS_SECRET_H

#include <stddef.h>

#include "util/error.h"

/* Zero `s` and free it.  NULL is a no-op. */
void ccas_secret_free (char *s);

/* Make this process hold secrets safely: no core file (a crash would write
 * the password to disk) and no ptrace or /proc/PID/mem by other processes
 * of the same user.  Call before the first secret is read. */
void ccas_secret_no_dump (void);

/* Zero `len` bytes at `p`. */
void ccas_secret_burn (void *p, size_t len);

/* Refuse a file that group or others may read.  `what` says what the file
 * holds ("the password"), for the message.  Returns 0 or -1 with `err`. */
int ccas_secret_check_mode (const char *path, const char *what, struct ccas_error *err);

/* Read the first line of `path` (mode-checked) as a secret.
 * Returns a string the caller frees with ccas_secret_free(), or NULL with `err`. */
char *ccas_secret_read_file (const char *path, struct ccas_error *err);

#endif /* !CCAS_SECRET_H */
