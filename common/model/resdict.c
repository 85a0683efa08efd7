/* SPDX-License-Identifier: MIT */
/* resdict.c: an open-addressing hash from resource name to dense id. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/resdict.h"

struct ccas_resdict {
    char **names; /* by id */
    size_t count, cap;
    int *slots;    /* hash slots holding id + 1, 0 = empty */
    size_t nslots; /* a power of two */
};

static uint64_t hash_name (const char *s)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

struct ccas_resdict *ccas_resdict_create (void)
{
    struct ccas_resdict *d = calloc (1, sizeof (*d));
    if (!d)
        return NULL;
    d->nslots = 64;
    if (!(d->slots = calloc (d->nslots, sizeof (*d->slots)))) {
        free (d);
        return NULL;
    }
    return d;
}

void ccas_resdict_destroy (struct ccas_resdict *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->count; i++)
        free (d->names[i]);
    free (d->names);
    free (d->slots);
    free (d);
}

static size_t probe (const struct ccas_resdict *d, const char *name)
{
    size_t mask = d->nslots - 1;
    size_t i = (size_t)hash_name (name) & mask;
    while (d->slots[i] && strcmp (d->names[d->slots[i] - 1], name) != 0)
        i = (i + 1) & mask;
    return i;
}

static int rehash (struct ccas_resdict *d)
{
    size_t nslots = d->nslots * 2;
    int *slots = calloc (nslots, sizeof (*slots));
    if (!slots)
        return -1;
    free (d->slots);
    d->slots = slots;
    d->nslots = nslots;
    for (size_t id = 0; id < d->count; id++)
        d->slots[probe (d, d->names[id])] = (int)id + 1;
    return 0;
}

int ccas_resdict_find (const struct ccas_resdict *d, const char *name)
{
    int slot = d->slots[probe (d, name)];
    return slot ? slot - 1 : -1;
}

int ccas_resdict_intern (struct ccas_resdict *d, const char *name)
{
    size_t i = probe (d, name);
    if (d->slots[i])
        return d->slots[i] - 1;
    if (d->count == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 16;
        char **names = realloc (d->names, cap * sizeof (*names));
        if (!names)
            return -1;
        d->names = names;
        d->cap = cap;
    }
    if (!(d->names[d->count] = strdup (name)))
        return -1;
    d->slots[i] = (int)d->count + 1;
    d->count++;
    if (d->count * 2 > d->nslots && rehash (d) < 0)
        return -1;
    return (int)d->count - 1;
}

const char *ccas_resdict_name (const struct ccas_resdict *d, int id)
{
    return id >= 0 && (size_t)id < d->count ? d->names[id] : "?";
}

size_t ccas_resdict_count (const struct ccas_resdict *d)
{
    return d->count;
}
