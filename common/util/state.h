/* SPDX-License-Identifier: MIT */
/* state.h: small JSON state files under state_dir, replaced atomically.
 *
 * What must survive between runs — when a node was last busy, which create
 * requests were sent, which buckets are held back — lives in one JSON document
 * per concern (state_dir/<name>.json).  Saving writes a temporary file,
 * fsyncs it, renames it over the old one and fsyncs the directory, so a crash
 * leaves either the old document or the new one, never half of one.
 * A missing file reads as an empty object; a corrupt one is an error that
 * names it (it is never silently replaced), unless the caller salvages it
 * (ccas_state_load_salvage).
 *
 * Each document carries the format it was written in, as the first key
 * "ccautoscale_format" (CCAS_STATE_FORMAT_KEY), which the loaded document
 * does not show: a file without it is format 1, as written before the key
 * existed.  A file of a newer format than CCAS_STATE_FORMAT is refused, so
 * that this ccautoscale neither misreads nor replaces what a newer one
 * (on the other controller of an HA pair, sharing state_dir) wrote.
 */
#ifndef CCAS_STATE_H
#define CCAS_STATE_H

#include <json-c/json.h>
#include <stdbool.h>

#include "util/error.h"

/* The format this ccautoscale reads and writes, and its key in the file. */
#define CCAS_STATE_FORMAT 1
#define CCAS_STATE_FORMAT_KEY "ccautoscale_format"

struct ccas_state;

/* Load state_dir/<name>.json.  The directory is created (0755) on save, not
 * here.  Caller frees with ccas_state_destroy().  On failure errno is
 * ENOTSUP for a file of a newer format, EBADMSG for one that does not
 * parse (cut short by a crash, or not JSON), else the I/O error. */
struct ccas_state *ccas_state_load (const char *dir, const char *name, struct ccas_error *err);

/* What ccas_state_load_salvage() found. */
struct ccas_state_salvage {
    bool broken;      /* the file did not parse */
    size_t bytes;     /* its size */
    size_t kept;      /* the entries read back from it */
    char aside[4200]; /* where it was kept: <name>.json.broken-<time> */
};

/* Load as ccas_state_load(), but a file that does not parse — a write cut
 * short, as a crash of the NFS server or client can leave one, or an empty
 * file — is salvaged: its complete top-level entries (those before the
 * last one cut off) are read back, the file is kept aside (renamed to
 * `out->aside`) and replaced by what was read back.  `out` says what
 * happened (out->broken false: a whole file, or none).  A file of a newer
 * format is refused as by ccas_state_load(), never salvaged.  Caller frees
 * with ccas_state_destroy(). */
struct ccas_state *ccas_state_load_salvage (const char *dir, const char *name, struct ccas_state_salvage *out,
                                            struct ccas_error *err);
void ccas_state_destroy (struct ccas_state *st);

/* The document, to read and change.  Borrowed; valid while `st` lives. */
json_object *ccas_state_root (struct ccas_state *st);

/* Write the document atomically.  Returns 0 or -1 with `err` naming the file. */
int ccas_state_save (struct ccas_state *st, struct ccas_error *err);

/* The same without fsync when `durable` is false: a crash may leave the old
 * file, never half of one (for metrics, which are not worth two fsyncs). */
int ccas_state_save_ex (struct ccas_state *st, bool durable, struct ccas_error *err);

#endif /* !CCAS_STATE_H */
