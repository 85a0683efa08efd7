/* SPDX-License-Identifier: MIT */
/* file.h: whole files — read under a size cap, replace atomically.
 *
 * Replacing writes a new temporary beside the file (O_EXCL|O_NOFOLLOW, so
 * never through a link someone planted), optionally fsyncs it, renames it
 * over the name and fsyncs the directory: a crash leaves the old content or
 * the new, never half.  ccas_file_write_keep() keeps the replaced file's
 * mode and owner.  Calls nothing above util/.
 */
#ifndef CCAS_FILE_H
#define CCAS_FILE_H

#include <stdbool.h>
#include <stddef.h>

#include "util/error.h"

/* Opens `path` read-only (close-on-exec) and fstats the open descriptor into
 * *st, so that the file checked is the file read.  Returns the descriptor,
 * which the caller closes, or -1 with `err` set (naming `path`). */
struct stat;
int ccas_file_open_stat (const char *path, struct stat *st, struct ccas_error *err);

/* Write all `len` bytes of `data` to `fd`, through short writes and
 * signals.  0, or -1 with errno. */
int ccas_file_write_all (int fd, const char *data, size_t len);

/* Read a whole file (or pipe), refusing more than `max_bytes`.  Returns
 * malloc'ed bytes, NUL-terminated (caller frees), and their length. */
char *ccas_file_read (const char *path, size_t max_bytes, size_t *len, struct ccas_error *err);

/* mkdir -p with mode 0755.  Returns 0 or -1. */
int ccas_file_make_dirs (const char *dir, struct ccas_error *err);

/* Replace `path` with `len` bytes of `data`, mode `mode`, creating its
 * directory; `durable` fsyncs the file and the directory.  Returns 0 or -1. */
int ccas_file_write_replace (const char *path, const char *data, size_t len, unsigned mode, bool durable,
                             struct ccas_error *err);

/* ccas_file_write_replace() with durable true. */
int ccas_file_write_atomic (const char *path, const char *data, size_t len, unsigned mode,
                            struct ccas_error *err);

/* Replace `path` as ccas_file_write_atomic() does, keeping what the site set
 * on the file replaced: its mode, owner and group (an administrator's chmod
 * 0400 or chown slurm survives the rewrite, as azslurm's issue 193 asked of
 * azure.conf).  A new file gets `mode` and the writer's owner.  Where `path`
 * is a symbolic link (/etc/slurm/gres.conf into a shared directory) the
 * file it points to is replaced and the link kept.  Returns 0, or -1 with
 * `err` naming the file: a link to nothing, not a regular file, an owner
 * this process may not give. */
int ccas_file_write_keep (const char *path, const char *data, size_t len, unsigned mode,
                          struct ccas_error *err);

#endif /* !CCAS_FILE_H */
