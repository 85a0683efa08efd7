/* SPDX-License-Identifier: MIT */
/* pg.h: placement groups — the groups of one bucket whose VMs CycleCloud
 * keeps together (one InfiniBand fabric) — their names, their members, and
 * the one answer to "how many more nodes fit in this group".
 *
 * The limits, all enforced here and nowhere else (the engine asks
 * ccas_pg_room() and ccas_pg_too_small()):
 *   - a group never holds more than its bucket's maxPlacementGroupSize nodes;
 *   - nor more than its maxPlacementGroupCoreSize cores, a node counting the
 *     bucket's cores per VM (cores_per_vm, as its quotas do);
 *   - so every group of a bucket holds at most b->max_pg_size nodes, the
 *     smaller of the two in nodes (CCAS_UNLIMITED when neither is stated),
 *     and b->pg_limit says which sets it ("maxPlacementGroupSize 4",
 *     "maxPlacementGroupCoreSize 88 (44 cores per node)");
 *   - a new node in a group is also a new node of its bucket: what a group
 *     may take now is never more than ccas_bucket_available() (cluster.h).
 * A group's count: what the status states for it (activeCount and
 * activeCoreCount) when it lists the group, else its nodes that are not
 * departing.  pg->room, what its own limits leave, never goes below 0.
 *
 * Names: a group made by this pass is "<nodearray>_<machine type>_pg<i>",
 * the smallest i that no group of the bucket has taken.  Groups of one
 * bucket are found by name in O(1).
 *
 * Every group made and every node added while placing a job is logged in the
 * undo log passed in: a rollback drops them (the structs are kept, to be
 * reused by the next group made) and gives their names back, so a job that
 * cannot be placed whole leaves the groups as they were.  Groups live as
 * long as the model; their names are borrowed from it.
 */
#ifndef CCAS_PG_H
#define CCAS_PG_H

#include <stdbool.h>
#include <stdint.h>

#include "model/undo.h"

struct ccas_bucket;
struct ccas_cluster;
struct ccas_node;

struct ccas_pg {
    const char *name;
    struct ccas_bucket *bucket;
    int64_t active;             /* nodes in it when the pass began */
    int64_t room;               /* how many more its own limits let join, or CCAS_UNLIMITED:
                                 * read it through ccas_pg_room() */
    bool is_new;                /* named by this pass */
    bool from_status;           /* counts came from the status read (else from its nodes) */
    struct ccas_node **members; /* its usable nodes, existing then new (node->member) */
    uint32_t nmembers, memcap;
    uint32_t closed_prefix; /* matching: members before it are closed to every later job */
    uint32_t id;            /* its position in bucket->pgs: index of per-group tables */
};

/* What ccas_pg_room() counts. */
enum ccas_pg_scope {
    CCAS_PG_ALONE,       /* the group's own limits (what an index may keep: it
                          * does not change when other buckets take nodes) */
    CCAS_PG_WITH_BUCKET, /* and what its bucket may make now */
};

/* How many more nodes fit in group `pg` of bucket `b` (`pg` NULL: in a new
 * group of `b`; else `b` is pg->bucket): what maxPlacementGroupSize and
 * maxPlacementGroupCoreSize leave it, and with CCAS_PG_WITH_BUCKET no more
 * than ccas_bucket_available(b).  CCAS_UNLIMITED when nothing bounds it; 0
 * when `b` is NULL. */
int64_t ccas_pg_room (const struct ccas_bucket *b, const struct ccas_pg *pg, enum ccas_pg_scope scope);

/* Count one node that a caller asks for in `pg` without adding it to the
 * model (the Slurm resume names its nodes itself): the room of `pg` shrinks
 * by one.  Returns false, changing nothing, when `pg` has no room left. */
bool ccas_pg_reserve (struct ccas_pg *pg);

/* Whether `nodes` nodes can never share one group of `b`, however many the
 * bucket may make: more than b->max_pg_size.  False when `b` is NULL. */
bool ccas_pg_too_small (const struct ccas_bucket *b, int64_t nodes);

/* Find or make the group of `b` named `name` (NULL: make one with a new
 * name, see above).  A group made is logged in `undo` (NULL: final).
 * `name` is borrowed and must live as long as the model (see
 * ccas_cluster_strdup()).  O(1).  Borrowed; valid while the model lives (a
 * group a rollback dropped: until the next group of `b` is made).  NULL when
 * `c` or `b` is NULL or out of memory. */
struct ccas_pg *ccas_pg_get (struct ccas_cluster *c, struct ccas_bucket *b, const char *name,
                             struct ccas_undo *undo);

/* ---- for cluster.c, as it builds and grows the model ---- */

/* Set b->max_pg_size and b->pg_limit from the bucket's status (its
 * cores_per_vm set first). */
void ccas_pg_size_bucket (struct ccas_cluster *c, struct ccas_bucket *b);

/* Make the groups the status lists for `b`, with the counts it states.
 * Returns 0, -1 when out of memory. */
int ccas_pg_load_status (struct ccas_cluster *c, struct ccas_bucket *b);

/* Count existing node `n` (n->pg set, nodes in model order) in its group: a
 * group the status did not list counts its nodes that are not departing;
 * usable nodes become members.  Returns 0, -1 when out of memory. */
int ccas_pg_add_existing (struct ccas_cluster *c, struct ccas_node *n);

/* Add new node `n` to `pg` (room checked by the caller), logged in `undo`.
 * Returns 0, -1 when out of memory (what was logged is undone by the
 * caller's rollback). */
int ccas_pg_add_new (struct ccas_cluster *c, struct ccas_pg *pg, struct ccas_node *n, struct ccas_undo *undo);

/* Free the group tables of the model (the groups live in its arena). */
void ccas_pg_release (struct ccas_cluster *c);

#endif /* !CCAS_PG_H */
