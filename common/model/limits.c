/* SPDX-License-Identifier: MIT */
/* limits.c: shared pools of nodes and cores, and a registry that finds them by key. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/limits.h"
#include "model/resdict.h"

int64_t ccas_limit_left (int64_t max, int64_t used)
{
    if (max < 0)
        return CCAS_UNLIMITED;
    if (used <= 0)
        return max;
    return used >= max ? 0 : max - used;
}

void ccas_limit_tighten (struct ccas_limit *l, int64_t nodes, int64_t cores)
{
    if (nodes < l->nodes)
        l->nodes = nodes < 0 ? 0 : nodes;
    if (cores < l->cores)
        l->cores = cores < 0 ? 0 : cores;
}

int64_t ccas_limit_count (const struct ccas_limit *l, int64_t cores_per_vm)
{
    int64_t n = l->nodes;
    if (l->cores != CCAS_UNLIMITED && cores_per_vm > 0 && l->cores / cores_per_vm < n)
        n = l->cores / cores_per_vm;
    return n < 0 ? 0 : n;
}

void ccas_limit_take (struct ccas_limit *l, int64_t cores_per_vm, struct ccas_undo *undo)
{
    if (l->nodes != CCAS_UNLIMITED) {
        ccas_undo_i64 (undo, &l->nodes);
        l->nodes--;
    }
    if (l->cores != CCAS_UNLIMITED) {
        ccas_undo_i64 (undo, &l->cores);
        l->cores -= cores_per_vm;
    }
}

/* The copies of the limits the draws share, found by the original's address. */
struct scratch {
    const struct ccas_limit *of;
    struct ccas_limit copy;
};

static struct ccas_limit *copy_of (struct scratch *v, size_t *n, const struct ccas_limit *l)
{
    for (size_t i = 0; i < *n; i++)
        if (v[i].of == l)
            return &v[i].copy;
    v[*n] = (struct scratch){l, *l};
    return &v[(*n)++].copy;
}

static int cmp_draw_cores (const void *pa, const void *pb)
{
    const struct ccas_limit_draw *a = *(const struct ccas_limit_draw *const *)pa;
    const struct ccas_limit_draw *b = *(const struct ccas_limit_draw *const *)pb;
    if (a->cores_per_vm != b->cores_per_vm)
        return a->cores_per_vm < b->cores_per_vm ? -1 : 1;
    return a < b ? -1 : a > b; /* stable: the order given */
}

int64_t ccas_limits_room (const struct ccas_limit_draw *draws, size_t n)
{
    size_t nlimits = 0, ncopies = 0;
    int64_t total = 0;
    for (size_t i = 0; i < n; i++)
        nlimits += draws[i].nlimits;
    const struct ccas_limit_draw **order = calloc (n + 1, sizeof (*order));
    struct scratch *copies = calloc (nlimits + 1, sizeof (*copies));
    if (!order || !copies) {
        free (order);
        free (copies);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        order[i] = &draws[i];
    qsort (order, n, sizeof (*order), cmp_draw_cores);
    for (size_t i = 0; i < n && total != CCAS_UNLIMITED; i++) {
        const struct ccas_limit_draw *d = order[i];
        int64_t k = d->own < 0 ? 0 : d->own;
        for (unsigned j = 0; j < d->nlimits; j++) {
            int64_t m = ccas_limit_count (copy_of (copies, &ncopies, d->limits[j]), d->cores_per_vm);
            k = m < k ? m : k;
        }
        if (k == CCAS_UNLIMITED) {
            total = CCAS_UNLIMITED;
            break;
        }
        for (unsigned j = 0; j < d->nlimits; j++) {
            struct ccas_limit *l = copy_of (copies, &ncopies, d->limits[j]);
            if (l->nodes != CCAS_UNLIMITED)
                l->nodes -= k;
            if (l->cores != CCAS_UNLIMITED)
                l->cores -= k * d->cores_per_vm;
        }
        total = k > CCAS_UNLIMITED - 1 - total ? CCAS_UNLIMITED : total + k;
    }
    free (order);
    free (copies);
    return total;
}

void ccas_limit_give (struct ccas_limit *l, int64_t cores_per_vm)
{
    if (l->nodes != CCAS_UNLIMITED)
        l->nodes++;
    if (l->cores != CCAS_UNLIMITED)
        l->cores += cores_per_vm;
}

const char *ccas_limit_explain (const struct ccas_limit *l, int64_t cores_per_vm, char *buf, size_t size)
{
    if (l->cores != CCAS_UNLIMITED && cores_per_vm > 0 && l->cores / cores_per_vm <= l->nodes)
        snprintf (buf, size, "%s: %lld cores left, %lld per node", l->what, (long long)l->cores,
                  (long long)cores_per_vm);
    else
        snprintf (buf, size, "%s: %lld nodes left", l->what, (long long)l->nodes);
    return buf;
}

/* ---- the registry --------------------------------------------------------------- */

struct ccas_limits {
    struct ccas_resdict *keys;
    struct ccas_limit **v;
    size_t n, cap;
};

struct ccas_limits *ccas_limits_create (void)
{
    struct ccas_limits *r = calloc (1, sizeof (*r));
    if (r && !(r->keys = ccas_resdict_create ())) {
        free (r);
        r = NULL;
    }
    return r;
}

void ccas_limits_destroy (struct ccas_limits *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n; i++) {
        free ((char *)r->v[i]->what);
        free (r->v[i]);
    }
    free (r->v);
    ccas_resdict_destroy (r->keys);
    free (r);
}

struct ccas_limit *ccas_limits_get (struct ccas_limits *r, const char *key, const char *what)
{
    int id = ccas_resdict_intern (r->keys, key);
    if (id < 0)
        return NULL;
    if ((size_t)id < r->n)
        return r->v[id];
    if ((size_t)id != r->n)
        return NULL; /* an earlier call ran out of memory after interning the key */
    if (r->n == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 16;
        struct ccas_limit **v = realloc (r->v, cap * sizeof (*v));
        if (!v)
            return NULL;
        r->v = v;
        r->cap = cap;
    }
    struct ccas_limit *l = calloc (1, sizeof (*l));
    char *name = strdup (what);
    if (!l || !name) {
        free (l);
        free (name);
        return NULL;
    }
    l->what = name;
    l->nodes = CCAS_UNLIMITED;
    l->cores = CCAS_UNLIMITED;
    r->v[r->n++] = l;
    return l;
}

size_t ccas_limits_count (const struct ccas_limits *r)
{
    return r->n;
}

const struct ccas_limit *ccas_limits_at (const struct ccas_limits *r, size_t i)
{
    return i < r->n ? r->v[i] : NULL;
}
