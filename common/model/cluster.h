/* SPDX-License-Identifier: MIT */
/* cluster.h: the cluster as the engine sees it — nodearrays, buckets, limits,
 * placement groups and nodes — built from one status read, one nodes read and
 * the configuration.
 *
 * Invariants:
 *   - ccas_bucket_available() is never above any limit the bucket draws on:
 *     its own availableCount (and availableCoreCount, maxCount less
 *     activeCount, quotaCount ...), its nodearray's and the cluster's node and
 *     core limits, the quotaCoreCount and the VM family's quota it shares with
 *     the buckets of its family in its region, and its region's quota (spot
 *     buckets: the region's spot quota, in place of the family quota Azure
 *     zeroes for them), consumption by other clusters counted, less what this
 *     pass has already promised anywhere (limits.h);
 *   - a placement group never holds more than maxPlacementGroupSize nodes nor
 *     more than maxPlacementGroupCoreSize cores: pg.h holds these limits;
 *   - every change made while placing a job is logged in the undo log passed
 *     in, so a job that cannot be placed whole leaves the model as it was;
 *   - nodes are ordered ready, booting, stopped (startable), then new nodes in
 *     the order they were made; failed and departing nodes come last and are
 *     never given work;
 *   - in a cluster that is not Started (`closed`) no bucket takes a node and
 *     no stopped node is given work: every program that plans from the model
 *     creates and starts nothing there, and says why.
 * The model owns the status and node list it was built from; every string in
 * it is borrowed from them, from the configuration, or from its own arena.
 */
#ifndef CCAS_CLUSTER_H
#define CCAS_CLUSTER_H

#include <stdbool.h>
#include <stdint.h>

#include "ccapi/ccapi.h"
#include "conf/conf.h"
#include "model/constraint.h"
#include "model/limits.h"
#include "model/node.h"
#include "model/pg.h"
#include "model/resources.h"
#include "model/undo.h"
#include "util/error.h"

struct ccas_nodearray {
    const char *name;
    const struct ccas_nodearray_status *st;
    int priority;
    bool enabled;   /* the configuration allows creating here */
    bool colocated; /* some bucket of it is colocated (see struct ccas_bucket) */
    struct ccas_limit limit;
};

#define CCAS_BUCKET_MAX_LIMITS 6

struct ccas_bucket {
    struct ccas_nodearray *na;
    const struct ccas_bucket_status *st;
    const char *machine_type;
    const char *family;   /* quota family key (vmfamily.h) */
    bool spot;            /* the nodearray is Interruptible */
    bool colocated;       /* a job of several nodes here keeps them in one placement
                           * group: nodearrays.NAME.colocated, else the nodearray's
                           * PlacementGroupId, else the machine type's InfiniBand */
    int64_t cores_per_vm; /* charged against core limits and quotas */
    int64_t available;    /* the bucket's own count, less what was promised */
    int64_t max_pg_size;  /* nodes one placement group holds, or CCAS_UNLIMITED (pg.h) */
    const char *pg_limit; /* what sets it: "maxPlacementGroupSize 4",
                           * "maxPlacementGroupCoreSize 88 (44 cores per node)" */
    struct ccas_limit *limits[CCAS_BUCKET_MAX_LIMITS]; /* shared pools, narrowest first */
    unsigned nlimits;
    struct ccas_node template_node; /* what a new node here would look like */
    struct ccas_pg **pgs;           /* its placement groups (pg.h); pgs[npgs..pgcap) are
                                     * NULL or groups a rollback dropped */
    size_t npgs, pgcap;
    uint32_t pg_next;        /* every "<na>_<mt>_pg<i>" name below it is taken */
    uint32_t order;          /* position in preference order */
    uint32_t new_nodes;      /* nodes this pass made here */
    const char *hold_reason; /* held back (capacity window, breaker): takes no new nodes */
};

struct ccas_cluster {
    const struct ccas_config *cfg;
    struct ccas_status *status;        /* owned */
    struct ccas_record_list *nodelist; /* owned, may be NULL */
    struct ccas_resdict *dict;         /* owned */
    struct ccas_shared *shared;        /* owned */
    struct ccas_cons_cache *cons;      /* owned */
    struct ccas_rules *rules;          /* owned */

    struct ccas_nodearray *nodearrays;
    size_t nnodearrays;
    struct ccas_bucket *buckets; /* in preference order */
    size_t nbuckets;
    struct ccas_limit cluster_limit;
    struct ccas_limits *limits; /* owned: quota pools shared by buckets */

    struct ccas_node **nodes; /* existing, then new; nodes[nnodes..nodecap) are NULL
                               * or new nodes a rollback dropped, kept for reuse */
    size_t nnodes, nodecap;
    size_t nexisting;                      /* nodes[0..nexisting) came from CycleCloud */
    struct ccas_resdict *names, *hosts;    /* owned: existing nodes by name, by lower-case hostname */
    struct ccas_node **by_name, **by_host; /* indexed by those ids */
    struct ccas_resdict *pg_names;         /* owned (pg.c): "<bucket order>/<group name>" */
    struct ccas_pg **pg_by_name;           /* indexed by those ids (stale once dropped) */
    size_t pg_by_name_cap;
    double now;         /* wall clock at build time */
    const char *closed; /* why nothing may be created or started: "cluster 'hpc' is
                         * Terminating (targetState Terminated): nothing is created or
                         * started until it is Started"; NULL when it is Started */
    void *arena;
};

/* Build the model.  Takes ownership of `status` and `nodes` (either may be
 * freed on failure too).  `nodes` may be NULL (no existing nodes considered).
 * `cfg` is borrowed and must outlive the model.  Returns the model (caller
 * frees with ccas_cluster_destroy()) or NULL with `err` naming what is wrong
 * (a bad default_resources rule, a bad shared resource ...). */
/* The model's own nodes are also found by name in O(1): see ccas_cluster_find_node(). */
struct ccas_cluster *ccas_cluster_create (const struct ccas_config *cfg, struct ccas_status *status,
                                          struct ccas_record_list *nodes, struct ccas_error *err);
void ccas_cluster_destroy (struct ccas_cluster *c);

/* How many more nodes `b` may take now, and if 0, why ("availableCount 0",
 * "family quota: 8 cores left, 120 per node"); `why` may be NULL. */
int64_t ccas_bucket_available (const struct ccas_bucket *b, char *why, size_t whysize);

/* The most new nodes the `n` buckets can take together now (pools they
 * share counted once, smaller VMs first; see ccas_limits_room()): the room
 * a reason may state.  Held, invalid and disabled buckets take none.
 * CCAS_UNLIMITED when nothing bounds them; -1 when out of memory. */
int64_t ccas_cluster_room (struct ccas_bucket *const *buckets, size_t n);

/* Hold a bucket back: it takes no new nodes this pass; `reason` is copied.
 * In a closed cluster the bucket keeps saying why the cluster is closed. */
int ccas_cluster_hold (struct ccas_cluster *c, struct ccas_bucket *b, const char *reason);

/* Find a bucket by nodearray and machine type; NULL if none. */
struct ccas_bucket *ccas_cluster_bucket (const struct ccas_cluster *c, const char *nodearray,
                                         const char *machine_type);

/* Find an existing node by name or hostname (case-insensitive for
 * hostnames); NULL if none.  Borrowed. */
struct ccas_node *ccas_cluster_find_node (const struct ccas_cluster *c, const char *name);

/* Make a potential node in bucket `b` (in `pg`, may be NULL: see
 * ccas_pg_get()), charging one node against every limit it draws on, the
 * group's too, and append it to the node list.  Logged in `undo`.  Returns
 * the node, or NULL if the bucket or the group has no room (or no memory).
 * The memory of a node (or group) a rollback drops is reused for the next one
 * made, so that trying and failing costs no memory. */
struct ccas_node *ccas_cluster_new_node (struct ccas_cluster *c, struct ccas_bucket *b, struct ccas_pg *pg,
                                         struct ccas_undo *undo);

/* A potential node the server did not make (its create came back short):
 * every limit it was charged against gets it back, and it is never given
 * work again (its kind becomes CCAS_NODE_GOING).  It stays in the node
 * list and in its placement group.  A no-op for any other node. */
void ccas_cluster_drop_node (struct ccas_cluster *c, struct ccas_node *n);

/* Subtract `amount` of resource `name` from an existing node's free amount
 * (the scheduler reports it in use).  Unknown resources are ignored. */
void ccas_node_use (struct ccas_cluster *c, struct ccas_node *n, const char *name, double amount);

/* A copy of `s` that lives as long as the model (e.g. a placement group name
 * for ccas_pg_get(), which borrows it).  NULL when out of memory. */
char *ccas_cluster_strdup (struct ccas_cluster *c, const char *s);

/* A short label for a potential node: "new hpc/Standard_HB120rs_v3 in pg0". */
const char *ccas_node_label (const struct ccas_node *n, char *buf, size_t size);

#endif /* !CCAS_CLUSTER_H */
