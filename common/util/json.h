/* SPDX-License-Identifier: MIT */
/* json.h: json-c helpers that report the path of what is wrong.
 *
 * Getters return values borrowed from the json-c object: strings live as long
 * as the object they were read from.  None of them takes a reference.
 * "Absent" and JSON null are the same thing to every getter here.
 */
#ifndef CCAS_JSON_H
#define CCAS_JSON_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

/* Parse `len` bytes of `text`.  `what` names the source for errors ("response
 * of GET /clusters/c/status", a file name).  Non-JSON input that looks like an
 * HTML page is called that.  Returns a new object (caller puts it), or NULL. */
json_object *ccas_json_parse (const char *text, size_t len, const char *what, struct ccas_error *err);

/* Read and parse a whole file, refusing files larger than `max_bytes`.
 * Returns a new object (caller puts it), or NULL with `err` naming the file. */
json_object *ccas_json_load_file (const char *path, size_t max_bytes, struct ccas_error *err);

/* Call `fn` for each element of the JSON array in `text`, parsing one element
 * at a time so that a large array never exists as one tree.  The element is
 * borrowed for the call only.  `fn` returns 0 to go on, -1 to stop (with its
 * own error set); parse errors name `what`:line:col.  Returns 0 or -1. */
typedef int (*ccas_json_each_f) (json_object *elem, size_t index, void *arg);
int ccas_json_array_each (const char *text, size_t len, const char *what, ccas_json_each_f fn, void *arg,
                          struct ccas_error *err);

/* The name of the first member of `obj` that is not among `known` (a list
 * ended by NULL), or NULL when every member is known or `obj` is not an
 * object.  Borrowed from `obj`. */
const char *ccas_json_unknown_key (json_object *obj, const char *const *known);

/* Member `key` of `obj`, or NULL if `obj` is not an object, or the member is
 * absent or null.  Borrowed. */
json_object *ccas_json_get (json_object *obj, const char *key);

/* Lenient readers for server records: a wrong type reads as the default. */
const char *ccas_json_str (json_object *obj, const char *key);           /* NULL if absent */
int64_t ccas_json_int (json_object *obj, const char *key, int64_t dflt); /* also numeric strings */

/* A double as int64_t, saturated at the type's limits (NaN reads as 0):
 * converting an out-of-range double directly is undefined behaviour, and
 * servers and files do send 1e20. */
int64_t ccas_double_to_int64 (double d);
double ccas_json_double (json_object *obj, const char *key, double dflt);
bool ccas_json_bool (json_object *obj, const char *key, bool dflt); /* also "true"/"false" */

/* Strict readers.  Return 1 if present and of the right type (value stored),
 * 0 if absent (nothing stored), -1 on a wrong type with `err` set to
 * "<path>.<key>: expected <type>, got <json text>". */
int ccas_json_get_str (json_object *obj, const char *path, const char *key, const char **out,
                       struct ccas_error *err);
int ccas_json_get_int (json_object *obj, const char *path, const char *key, int64_t *out,
                       struct ccas_error *err);
int ccas_json_get_double (json_object *obj, const char *path, const char *key, double *out,
                          struct ccas_error *err);
int ccas_json_get_bool (json_object *obj, const char *path, const char *key, bool *out,
                        struct ccas_error *err);

/* Describe a value for an error message: "a string", "an object" ... */
const char *ccas_json_type_name (json_object *val);

/* A short rendering of `val` for an error message (at most ~60 bytes, written
 * to `buf`).  Returns `buf`. */
const char *ccas_json_brief (json_object *val, char *buf, size_t size);

/* Join a JSON path and a key or index: ("a.b", "c") -> "a.b.c", ("a", 3) -> "a[3]". */
void ccas_json_path_key (char *buf, size_t size, const char *path, const char *key);
void ccas_json_path_index (char *buf, size_t size, const char *path, size_t index);

#endif /* !CCAS_JSON_H */
