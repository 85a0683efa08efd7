/* SPDX-License-Identifier: MIT */
/* pbs_json.h: read the JSON that `qstat -F json` and `pbsnodes -F json` print,
 * repairing what PBS gets wrong.
 *
 * PBS prints one attribute a line, after the colon a space (PBS Professional)
 * or a tab (OpenPBS 23).  Older releases write string values without escaping
 * quotes (a pset of group_id="" comes out as "group_id="""), and may print
 * warnings before the first '{': a value's unescaped quotes are escaped line
 * by line.  OpenPBS prints any value that parses as JSON typed (true, 123,
 * 1e5, null): read values with ccas_pbs_json_text().  An entry of the top-level object `section` ("Jobs",
 * "nodes") that still cannot be parsed is cut out and named through `skipped`,
 * so one bad job never costs the whole pass.
 */
#ifndef CCAS_PBS_JSON_H
#define CCAS_PBS_JSON_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

#include "util/error.h"

/* Called once per entry left out: `key` is its name (or "?"), `why` json-c's error. */
typedef void (*ccas_pbs_skipped_f) (const char *key, const char *why, void *arg);

/* What to do with a document, for ccas_pbs_json_each(). */
struct ccas_pbs_scan_cb {
    const char *section; /* "Jobs", "nodes": the object whose entries are handed on one by one */
    /* Called for each top-level key but `section` (in_section false) and each
     * entry of `section` (in_section true).  `value` is borrowed until the
     * call returns (json_object_get() to keep it); NULL for JSON null and for
     * an entry left out (after `skipped`).  Returns 0, or -1 with `err` to
     * stop the scan. */
    int (*entry) (const char *key, json_object *value, bool in_section, void *arg, struct ccas_error *err);
    void *arg;
    ccas_pbs_skipped_f skipped; /* may be NULL */
    void *skipped_arg;
};

/* Scan `len` bytes of `text` (`what` names it in errors: "qstat"), parsing
 * each entry of the section alone.  Returns 0, or -1 with `err` when the
 * document as a whole is not JSON even after repair, or `entry` failed
 * (entries before the fault have been handed on). */
int ccas_pbs_json_each (const char *text, size_t len, const char *what, const struct ccas_pbs_scan_cb *cb,
                        struct ccas_error *err);

/* The same, as one object (caller puts it), an entry left out being null;
 * NULL with `err` when the document is not JSON even after repair. */
json_object *ccas_pbs_json_parse (const char *text, size_t len, const char *what, const char *section,
                                  ccas_pbs_skipped_f skipped, void *arg, struct ccas_error *err);

/* The value of `key` in `obj` as text: a string as it is, a number as PBS
 * printed it ("123", "1e5"), a boolean as "true"/"false"; NULL when missing,
 * null, an object or an array.  Borrowed; valid while `obj` lives. */
const char *ccas_pbs_json_text (json_object *obj, const char *key);

#endif /* !CCAS_PBS_JSON_H */
