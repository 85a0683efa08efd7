/* SPDX-License-Identifier: MIT */
/* state.h: small JSON state files under state_dir, replaced atomically.
 *
 * What must survive between runs — when a node was last busy, which create
 * requests were sent, which buckets are held back — lives in one JSON document
 * per concern (state_dir/<name>.json).  Saving writes a temporary file,
 * fsyncs it, renames it over the old one and fsyncs the directory, so a crash
 * leaves either the old document or the new one, never half of one.
 * A missing file reads as an empty object; a corrupt one is an error that
 * names it (it is never silently replaced).
 */
#ifndef CCAS_STATE_H
#define CCAS_STATE_H

#include <json-c/json.h>
#include <stdbool.h>

#include "util/error.h"

struct ccas_state;

/* Load state_dir/<name>.json.  The directory is created (0755) on save, not
 * here.  Caller frees with ccas_state_destroy(). */
struct ccas_state *ccas_state_load (const char *dir, const char *name, struct ccas_error *err);
void ccas_state_destroy (struct ccas_state *st);

/* The document, to read and change.  Borrowed; valid while `st` lives. */
json_object *ccas_state_root (struct ccas_state *st);

/* Write the document atomically.  Returns 0 or -1 with `err` naming the file. */
int ccas_state_save (struct ccas_state *st, struct ccas_error *err);

/* The same without fsync when `durable` is false: a crash may leave the old
 * file, never half of one (for metrics, which are not worth two fsyncs). */
int ccas_state_save_ex (struct ccas_state *st, bool durable, struct ccas_error *err);

#endif /* !CCAS_STATE_H */
