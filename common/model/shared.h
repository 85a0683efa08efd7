/* SPDX-License-Identifier: MIT */
/* shared.h: resources no single node owns (licences, versions), in pools:
 * one cluster-wide, and one per queue, of the same name.
 *
 * A number is consumable: a job that asks for it takes its amount once,
 * however many slots ask (scalelib's decrement_once; azpbs's per-node share
 * adds up to the same), from every pool that applies to it — the cluster's
 * and its own queue's, both of which must hold the amount (scalelib's
 * SharedConsumableConstraint over a list of resources, as azpbs builds it
 * from the server's and a queue's resources_available) — and no pool goes
 * below zero.  A job of a queue without a pool of that name draws on the
 * cluster's alone; with no pool at all for it, nothing limits it.  A string or
 * boolean is not consumable: a constraint naming it compares with the
 * job's queue's value, else the cluster's.  A resource that is shared
 * shadows any node resource of the same name.
 *
 * Queues are numbered from 1 (ccas_shared_queue()); 0 is "no queue".
 */
#ifndef CCAS_SHARED_H
#define CCAS_SHARED_H

#include <json-c/json.h>
#include <stddef.h>
#include <stdint.h>

#include "model/value.h"
#include "util/error.h"

struct ccas_shared;

/* One pool of a shared resource. */
struct ccas_shared_pool {
    const char *queue;       /* NULL: the cluster-wide pool */
    struct ccas_value value; /* what is left of a consumable; the value of a string or boolean */
    int32_t taker;           /* the job (its index in the pass) that last took from it, -1 none */
};

/* Caller frees with ccas_shared_destroy(). */
struct ccas_shared *ccas_shared_create (void);
void ccas_shared_destroy (struct ccas_shared *s);

/* Define the cluster-wide pool of `name` (both copied; a string value is
 * copied too).  Returns 0, -1 when out of memory. */
int ccas_shared_set (struct ccas_shared *s, const char *name, struct ccas_value value);

/* Define queue `queue`'s pool of `name` (all copied).  0 or -1 (out of memory). */
int ccas_shared_set_queue (struct ccas_shared *s, const char *name, const char *queue,
                           struct ccas_value value);

/* Load the configuration's shared_resources: {"name": V, ...} where V is a
 * number, a size ("100g"), a string or a boolean (the cluster-wide pool),
 * or {"cluster": V, "queues": {"QUEUE": V, ...}} (either member may be
 * left out) for pools per queue beside it.  `path` names it in errors. */
int ccas_shared_load (struct ccas_shared *s, json_object *obj, const char *path, struct ccas_error *err);

/* The index of `name`, or -1 if it is not shared. */
int ccas_shared_find (const struct ccas_shared *s, const char *name);

/* The number of queue `name` (1 and up), or 0 when no pool names it (NULL:
 * 0): a job of it draws on the cluster-wide pools only. */
int32_t ccas_shared_queue (const struct ccas_shared *s, const char *name);

/* The cluster-wide pool of resource `index`, or NULL when it has none.
 * Borrowed; consumables change as slots take from them. */
struct ccas_shared_pool *ccas_shared_cluster_pool (struct ccas_shared *s, int index);

/* The pools of resource `index` a job of queue `queue` (0: none) draws on,
 * into out[0..1]: for a consumable the cluster's and the queue's, for a
 * string or boolean the one whose value it is compared with (the queue's,
 * else the cluster's).  Returns how many (0 to 2).  Borrowed. */
size_t ccas_shared_pools (struct ccas_shared *s, int index, int32_t queue, struct ccas_shared_pool *out[2]);

/* Where a pool is, for a reason: "in the cluster", "in queue 'workq'". */
const char *ccas_shared_pool_where (const struct ccas_shared_pool *p, char *buf, size_t size);

#endif /* !CCAS_SHARED_H */
