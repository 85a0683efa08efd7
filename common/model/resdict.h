/* SPDX-License-Identifier: MIT */
/* resdict.h: resource names interned to small integer ids.
 *
 * Nodes keep their resources in arrays indexed by these ids, so that a
 * constraint compiled once looks a resource up in O(1).  Ids are dense and
 * stable for the dictionary's life; a name is copied once.
 */
#ifndef CCAS_RESDICT_H
#define CCAS_RESDICT_H

#include <stddef.h>

struct ccas_resdict;

/* Caller frees with ccas_resdict_destroy(). */
struct ccas_resdict *ccas_resdict_create (void);
void ccas_resdict_destroy (struct ccas_resdict *d);

/* The id of `name`, adding it if new.  Returns -1 only when out of memory. */
int ccas_resdict_intern (struct ccas_resdict *d, const char *name);

/* The id of `name`, or -1 if it was never interned. */
int ccas_resdict_find (const struct ccas_resdict *d, const char *name);

/* The name of `id`.  Borrowed; valid while `d` lives. */
const char *ccas_resdict_name (const struct ccas_resdict *d, int id);

size_t ccas_resdict_count (const struct ccas_resdict *d);

#endif /* !CCAS_RESDICT_H */
