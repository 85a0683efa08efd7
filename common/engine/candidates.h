/* SPDX-License-Identifier: MIT */
/* candidates.h: which nodes and placement groups may still take a slot — the
 * matching engine's indexes, so that a job looks only at candidates that can
 * take it, never at everything placed so far.
 *
 * Indexes (room.h) kept over one model for one pass: one over all nodes, one
 * per bucket over its nodes (for a constraint only a few buckets can meet),
 * one per placement group over its members, one per bucket over its groups.  A request is a struct
 * ccas_room_need: what a node must offer for a constraint (ccas_candidates_need()), or what a group must
 * offer for a whole job.  The next_* functions return the first candidate
 * from a position on, in list order, skipping only entries that cannot take
 * the request: the caller still tests each candidate fully, and gets exactly
 * what looking at every entry in turn would give it.
 *
 * What is skipped fails for good (resources only shrink during a pass, a node
 * an exclusive job owns stays closed, buckets only run down), so a caller may
 * move a cursor past it.  Lifecycle, in the engine's steps:
 *   1. ccas_candidates_create() once the running jobs have taken their share;
 *   2. per job, while trying it: ccas_candidates_node_made() and
 *      ccas_candidates_pg_made() for what it makes (a rollback needs no call
 *      of its own: what they add goes with the undo log or is past the end);
 *      ccas_candidates_commit() once it is placed;
 *   3. ccas_candidates_destroy().
 * Exhaustive mode keeps no index: every entry is a candidate (for tests).
 */
#ifndef CCAS_CANDIDATES_H
#define CCAS_CANDIDATES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/room.h"
#include "model/cluster.h"
#include "model/job.h"

struct ccas_candidates;

/* Index the nodes and groups of `c` (borrowed; must outlive the index), for
 * `jobs` (borrowed; what they ask tunes the summaries).  Caller frees with
 * ccas_candidates_destroy().  NULL when out of memory. */
struct ccas_candidates *ccas_candidates_create (struct ccas_cluster *c, const struct ccas_jobs *jobs,
                                                bool exhaustive);
void ccas_candidates_destroy (struct ccas_candidates *x);

/* What a node must offer to take a slot of `k`.  Borrowed; lives as long as
 * the index. */
const struct ccas_room_need *ccas_candidates_need (struct ccas_candidates *x,
                                                   const struct ccas_constraint *k);

/* Ask memory now for what ccas_candidates_need() reads for `k` (a hint). */
void ccas_candidates_prefetch (const struct ccas_candidates *x, const struct ccas_constraint *k);

/* Whether a node of bucket `b` may meet `need` as far as its bucket goes (a
 * bucket outside ruled out every node of it). */
bool ccas_candidates_bucket_may (const struct ccas_room_need *need, const struct ccas_bucket *b);

/* False when a shared pool `k` requires has run dry for job `job` of queue
 * `queue` (0: none): no node takes a slot of it. */
bool ccas_candidates_pools_hold (const struct ccas_candidates *x, const struct ccas_constraint *k,
                                 int32_t job, int32_t queue);

/* The first node of c->nodes in [from, end) that may take `need`, or end. */
uint32_t ccas_candidates_next_node (struct ccas_candidates *x, const struct ccas_room_need *need,
                                    uint32_t from, uint32_t end);

/* The first member of `pg` in [from, end) that may take `need`, or end. */
uint32_t ccas_candidates_next_member (struct ccas_candidates *x, const struct ccas_pg *pg,
                                      const struct ccas_room_need *need, uint32_t from, uint32_t end);

/* What a group must offer to take job `j` whole, when its bucket may still
 * make `avail` nodes (0: grow nothing): as many distinct nodes as it has
 * slots when scattered (idle or new ones, when every chunk is exclusive),
 * and members with the room its chunks ask or room to grow (new nodes fit:
 * the caller has checked that the bucket fits the job). */
void ccas_candidates_job_need (struct ccas_candidates *x, const struct ccas_job *j, int64_t avail,
                               struct ccas_room_need *out);

/* The first group of `b` (b->pgs) in [from, end) that may take `need`, or end. */
size_t ccas_candidates_next_pg (struct ccas_candidates *x, const struct ccas_bucket *b,
                                const struct ccas_room_need *need, size_t from, size_t end);

/* A node (or group) was made for the job being tried.  What the index adds
 * for a node is undone through `undo` with it.  Returns 0, -1 when out of
 * memory. */
int ccas_candidates_node_made (struct ccas_candidates *x, const struct ccas_node *n, struct ccas_undo *undo);
int ccas_candidates_pg_made (struct ccas_candidates *x, const struct ccas_pg *pg);

/* Job `j` is placed: what it changed is final.  Returns 0, -1 when out of memory. */
int ccas_candidates_commit (struct ccas_candidates *x, const struct ccas_job *j);

#endif /* !CCAS_CANDIDATES_H */
