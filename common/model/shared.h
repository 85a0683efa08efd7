/* SPDX-License-Identifier: MIT */
/* shared.h: cluster-wide resources (licences, versions) that no single node owns.
 *
 * A number is consumable: a job that asks for it takes its amount from one
 * pool once, however many slots ask (scalelib's decrement_once; azpbs's
 * per-node share adds up to the same), and the pool never goes below zero.  A string or boolean is not
 * consumable: a constraint naming it compares with the pool's value.  A resource that is shared shadows any
 * node resource of the same name.
 */
#ifndef CCAS_SHARED_H
#define CCAS_SHARED_H

#include <json-c/json.h>
#include <stdint.h>

#include "model/value.h"
#include "util/error.h"

struct ccas_shared;

/* Caller frees with ccas_shared_destroy(). */
struct ccas_shared *ccas_shared_create (void);
void ccas_shared_destroy (struct ccas_shared *s);

/* Define `name` (copied; a string value is copied too).  Returns 0, -1 when
 * out of memory. */
int ccas_shared_set (struct ccas_shared *s, const char *name, struct ccas_value value);

/* Load {"name": value, ...} (the configuration's shared_resources); numbers,
 * sizes ("100g"), strings and booleans.  `path` names it in errors. */
int ccas_shared_load (struct ccas_shared *s, json_object *obj, const char *path, struct ccas_error *err);

/* The index of `name`, or -1 if it is not shared. */
int ccas_shared_find (const struct ccas_shared *s, const char *name);

/* The current value at `index`: the remaining amount of a consumable.
 * Borrowed; consumables change as slots take from them. */
struct ccas_value *ccas_shared_value (struct ccas_shared *s, int index);

/* The job (its index in the pass) that last took from consumable `index`,
 * -1 for none: the constraint engine takes a job's amount once.  Borrowed;
 * changes are logged in the caller's undo log. */
int32_t *ccas_shared_taker (struct ccas_shared *s, int index);

#endif /* !CCAS_SHARED_H */
