/* SPDX-License-Identifier: MIT */
/* pbs_json.h: read the JSON that `qstat -F json` and `pbsnodes -F json` print,
 * repairing what PBS gets wrong.
 *
 * PBS writes string values without escaping quotes (a pset of group_id=""
 * comes out as "group_id="""), and may print warnings before the first '{'.
 * PBS prints one attribute per line, so a value's unescaped quotes are
 * escaped line by line.  An entry of the top-level object `section` ("Jobs",
 * "nodes") that still cannot be parsed is cut out and named through `skipped`,
 * so one bad job never costs the whole pass.
 */
#ifndef CCAS_PBS_JSON_H
#define CCAS_PBS_JSON_H

#include <json-c/json.h>
#include <stddef.h>

#include "error.h"

/* Called once per entry left out: `key` is its name (or "?"), `why` json-c's error. */
typedef void (*ccas_pbs_skipped_f) (const char *key, const char *why, void *arg);

/* Parse `len` bytes of `text` (`what` names it in errors: "qstat").  Returns
 * a new object (caller puts it), or NULL with `err` when the document as a
 * whole is not JSON even after repair. */
json_object *ccas_pbs_json_parse (const char *text, size_t len, const char *what, const char *section,
                                  ccas_pbs_skipped_f skipped, void *arg, struct ccas_error *err);

#endif /* !CCAS_PBS_JSON_H */
