/* SPDX-License-Identifier: MIT */
/* limits.h: pools of nodes and cores that buckets draw on — the cluster's and
 * a nodearray's maxCount/maxCoreCount, a VM family's quota in a region, the
 * bucket's quotaCoreCount, a region's quota (on-demand and spot apart).
 *
 * A limit holds what is left: its maximum less what is in use, consumption
 * by other clusters included (the status's consumed counts), never below 0.
 * Buckets that share a pool share one limit object, so what one bucket takes
 * lowers what every other may take.  Several buckets may state one pool
 * differently (they should agree): the tightest statement wins.
 *
 * A registry (struct ccas_limits) finds shared limits by key and owns them;
 * pointers it returns stay valid until it is destroyed.  Depends on undo.h
 * only: charges made while placing a job are logged there.
 */
#ifndef CCAS_LIMITS_H
#define CCAS_LIMITS_H

#include <stddef.h>
#include <stdint.h>

#include "model/undo.h"

#define CCAS_UNLIMITED INT64_MAX

struct ccas_limit {
    const char *what; /* "cluster limit", "nodearray hpc limit", "family quota standardFSv2Family in
                       * westeurope", "regional quota in westeurope", "spot regional quota in westeurope" */
    int64_t nodes;    /* left, or CCAS_UNLIMITED */
    int64_t cores;    /* left, or CCAS_UNLIMITED */
};

/* What is left of `max` when `used` is taken: CCAS_UNLIMITED when `max` is
 * negative (not stated), else max - used, never below 0. */
int64_t ccas_limit_left (int64_t max, int64_t used);

/* Lower `l` to at most `nodes` and `cores` left. */
void ccas_limit_tighten (struct ccas_limit *l, int64_t nodes, int64_t cores);

/* How many VMs of `cores_per_vm` cores (>= 1) fit in what `l` has left. */
int64_t ccas_limit_count (const struct ccas_limit *l, int64_t cores_per_vm);

/* Take one VM of `cores_per_vm` cores from `l`, logging the old values in
 * `undo` (may be NULL: final). */
void ccas_limit_take (struct ccas_limit *l, int64_t cores_per_vm, struct ccas_undo *undo);

/* Give back one VM of `cores_per_vm` cores taken for good (a VM that was
 * never made). */
void ccas_limit_give (struct ccas_limit *l, int64_t cores_per_vm);

/* Why `l` allows no VM of `cores_per_vm` cores: "family quota X in R: 8
 * cores left, 120 per node" or "nodearray hpc limit: 0 nodes left". */
const char *ccas_limit_explain (const struct ccas_limit *l, int64_t cores_per_vm, char *buf, size_t size);

/* What one bucket draws on, for ccas_limits_room(). */
struct ccas_limit_draw {
    int64_t own;          /* its own room in nodes (availableCount ...), or CCAS_UNLIMITED */
    int64_t cores_per_vm; /* >= 1 */
    struct ccas_limit *const *limits;
    unsigned nlimits;
};

/* The most VMs the `n` draws can take together: the ones of fewer cores
 * first, each as many as every limit it draws on allows, a pool several
 * share charged once for all (two buckets of one family never both count
 * the family's room).  Changes no limit.  CCAS_UNLIMITED when nothing
 * bounds them; -1 when out of memory. */
int64_t ccas_limits_room (const struct ccas_limit_draw *draws, size_t n);

struct ccas_limits;

/* Caller frees with ccas_limits_destroy(). NULL when out of memory. */
struct ccas_limits *ccas_limits_create (void);
void ccas_limits_destroy (struct ccas_limits *r);

/* The limit kept under `key`, made unlimited and named `what` (copied) the
 * first time.  Returns a pointer owned by the registry, or NULL when out of
 * memory. */
struct ccas_limit *ccas_limits_get (struct ccas_limits *r, const char *key, const char *what);

/* How many limits the registry holds, and limit `i` of them (in the order made). */
size_t ccas_limits_count (const struct ccas_limits *r);
const struct ccas_limit *ccas_limits_at (const struct ccas_limits *r, size_t i);

#endif /* !CCAS_LIMITS_H */
