/* SPDX-License-Identifier: MIT */
/* serve_query.h: the request target of a call to `ccautoscale serve` — its
 * path and the autostop query string, parsed strictly.
 *
 * The query names the node asking to stop: `instance=ID` (its
 * cyclecloud.instance.id, CycleCloud's InstanceId or NodeId) or `node=NAME`,
 * exactly one of them, once.  Values are percent-decoded (`+` stays a plus:
 * this is not a form) and must then be printable ASCII; the raw query may
 * hold only the characters RFC 3986 allows there.  Empty parameters
 * (`a=1&&b=2`, a trailing `&`) are skipped; anything else that is not
 * `key=value` with a known key is an error that says what is wrong, so a
 * caller gets a 400 with a reason, never a guess.
 *
 * Pure: no allocation, no I/O, no global state (the fuzz target
 * tests/fuzz/fuzz_serve_query.c runs it on any bytes); safe from any thread.
 */
#ifndef CCAS_SERVE_QUERY_H
#define CCAS_SERVE_QUERY_H

#include <stddef.h>

#include "util/error.h"

#define SERVE_QUERY_VALUE_MAX 1024 /* decoded bytes of one value */

struct serve_query {
    char instance[SERVE_QUERY_VALUE_MAX + 1]; /* "" when not given */
    char node[SERVE_QUERY_VALUE_MAX + 1];     /* "" when not given */
};

/* Split a request target ("/autostop?instance=x") at its first '?': the
 * path in [*path, *path + *path_len), the query in [*query, *query +
 * *query_len) (*query NULL when there is no '?').  Borrowed from `target`,
 * which need not be NUL-terminated. */
void serve_query_split (const char *target, size_t len, const char **path, size_t *path_len,
                        const char **query, size_t *query_len);

/* Parse `len` bytes of `query` (NULL: no query at all) into `out`.
 * Returns 0, or -1 with `err` ("'instance' given twice", "malformed percent
 * escape '%zz' in 'instance'", ...); `out` is then undefined. */
int serve_query_parse (const char *query, size_t len, struct serve_query *out, struct ccas_error *err);

#endif /* !CCAS_SERVE_QUERY_H */
