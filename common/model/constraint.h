/* SPDX-License-Identifier: MIT */
/* constraint.h: the constraint language — parse from JSON, test a node, take from it.
 *
 * A constraint is a JSON object; several keys in one object are ANDed, a list
 * of objects is ANDed too.  Keys:
 *   "ncpus": 4                 resource minimum; taking a slot consumes it
 *   "mem": "4g"                the same, as a size
 *   "slot_type": "execute"     read-only match of a string or boolean resource
 *   "slot_type": ["a", "b"]    one of (earlier preferred when ordering buckets);
 *                              a list-valued resource matches when one of its
 *                              elements does; [["a", "b"]] asks for the whole list
 *   "node.vm_size": "Standard_F*"   node property match (shell wildcards), or a list
 *   "and" / "or" / "xor": [c, ...]  "or" consumes through its first matching child,
 *                              and prefers buckets by the order of its children
 *                              as a list does; "xor" needs exactly one matching child
 *   "not": c                   c must not hold; judged on what the node has in
 *                              total, so {"not": {"ngpus": 1}} means "not a GPU node"
 *   "exclusive": true          the job owns the whole node, one slot of it a node
 *                              (scalelib: "one and only one iteration of the job
 *                              can run on this node")
 *   "exclusive-task": true     the job owns the whole node, its slots may share it
 *                              (scalelib: "one or more iterations of the same job
 *                              can run on this node"); both also take 1/0 and
 *                              "true"/"false" in any case
 *   "in-a-placement-group": b  true: inside one placement group; false: outside any
 *   "never": "message"         never matches; the message is the reason
 *   "capacity-failure-backoff": s   skip buckets with a capacity failure in the last s seconds
 *   a shared resource (ccas_shared): a minimum consumes once per job from
 *   every pool the job draws on (the cluster's, its queue's), never below
 *   zero; a string or boolean compares with its queue's value, else the
 *   cluster's.
 *
 * Compiled constraints are interned in a ccas_cons_cache: structurally equal
 * JSON compiles once and yields the same pointer, which the matching engine
 * uses as the key of its per-shape caches.  The cache keeps no JSON: a shape
 * costs its compiled terms, copies of their strings and a canonical key.
 *
 * Compiling (the cache, the canonical form, parsing) is constraint_compile.c;
 * judging nodes (fits, take, rank, what indexes read) is constraint_eval.c;
 * the compiled form both share is constraint_term.h, private to them.
 */
#ifndef CCAS_CONSTRAINT_H
#define CCAS_CONSTRAINT_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

#include "model/node.h"
#include "model/resdict.h"
#include "model/shared.h"
#include "model/undo.h"
#include "util/error.h"

struct ccas_constraint;
struct ccas_cons_cache;

/* `dict` and `shared` are borrowed and must outlive the cache.  Caller frees
 * with ccas_constraint_cache_destroy(), which frees every constraint it made. */
struct ccas_cons_cache *ccas_constraint_cache_create (struct ccas_resdict *dict, struct ccas_shared *shared);
void ccas_constraint_cache_destroy (struct ccas_cons_cache *cache);

/* Compile `json` (an object, an array of objects meaning AND, or NULL meaning
 * "anything").  `path` names it in errors ("jobs[3].constraints.or[1]: ...").
 * Returns a constraint owned by the cache, or NULL with `err`.  Does not take
 * a reference to `json`. */
const struct ccas_constraint *ccas_constraint_compile (struct ccas_cons_cache *cache, json_object *json,
                                                       const char *path, struct ccas_error *err);

/* How many shapes the cache holds; ids run from 0 (the always-true
 * constraint) to this number inclusive. */
size_t ccas_constraint_cache_count (const struct ccas_cons_cache *cache);

/* The always-true constraint of this cache. */
const struct ccas_constraint *ccas_constraint_any (struct ccas_cons_cache *cache);

/* Facts about a compiled constraint, for the engine. */
struct ccas_cons_info {
    uint32_t id;             /* dense, per cache: index for per-shape caches */
    bool exclusive;          /* contains a top-level exclusive: true */
    bool exclusive_task;     /* exclusive-task: true */
    bool wants_pg;           /* in-a-placement-group: true at top level */
    bool forbids_pg;         /* in-a-placement-group: false at top level */
    bool monotone;           /* once a node fails it fails for the rest of the pass */
    bool never;              /* can never match */
    bool bucket_terms;       /* requires a bucket property (see ccas_constraint_bucket_may_fit()) */
    bool pools;              /* requires something of a shared resource */
    double capacity_backoff; /* seconds, or 0 */
};
const struct ccas_cons_info *ccas_constraint_info (const struct ccas_constraint *c);

/* How a test is judged. */
struct ccas_eval {
    int32_t job;            /* index of the job asking, for exclusivity */
    int32_t queue;          /* the job's queue among the shared pools' (ccas_shared_queue()), 0 none */
    bool template_node;     /* testing a bucket's potential node: placement is decided later */
    struct ccas_undo *undo; /* where ccas_constraint_take() records changes, or NULL */
};

/* Does node `n` have room for one more slot of `c`?  On a miss, when `why` is
 * not NULL, it receives the reason ("ncpus: needs 4, node has 2 free").
 * `whysize` is its size. */
bool ccas_constraint_fits (const struct ccas_constraint *c, const struct ccas_node *n,
                           const struct ccas_eval *ev, char *why, size_t whysize);

/* Take one slot of `c` from `n`: consume minimums (through the first matching
 * "or" child), mark exclusivity, consume shared resources.  Call only after
 * ccas_constraint_fits() said yes.  Changes are recorded in ev->undo. */
void ccas_constraint_take (const struct ccas_constraint *c, struct ccas_node *n, const struct ccas_eval *ev);

/* Preference rank of `n` under `c`: for list-valued matches, the index of the
 * first listed option the node satisfies, summed over the terms; lower is
 * preferred.  Used to order buckets. */
uint32_t ccas_constraint_rank (const struct ccas_constraint *c, const struct ccas_node *n);

/* How close `n` comes to satisfying `c`: its top-level terms that hold count
 * 1 each, an unmet minimum counts have/needed (judged as a bucket's potential
 * node).  For "closest miss" reasons. */
double ccas_constraint_closeness (const struct ccas_constraint *c, const struct ccas_node *n);

/* ---- for indexes ----------------------------------------------------------
 * What every node that takes a slot of `c` must have, read off the terms `c`
 * requires whatever else holds: its own term, or the members of a top-level
 * "and" (nested "and"s too), never those under "or", "xor" or "not".  An
 * index may skip a node that lacks one of these without testing it; a node
 * that has them all must still be tested with ccas_constraint_fits(). */

/* The resource minimums `c` requires: up to `max` resource ids and amounts
 * (the largest amount where one resource is named twice).  Returns how many. */
size_t ccas_constraint_minimums (const struct ccas_constraint *c, int *ids, double *amounts, size_t max);

/* The options of the first "or" (or "xor": one must hold too) `c` requires,
 * each as the resource minimums it requires itself: a node must meet all of
 * one option's.  Up to `max` options of up to 8 minimums; 0 when there is no
 * such choice, when it has more options, or when an option asks no minimum
 * (then it tells nothing). */
struct ccas_cons_option {
    int ids[8];
    double amounts[8];
    size_t n;
};
size_t ccas_constraint_options (const struct ccas_constraint *c, struct ccas_cons_option *opts, size_t max);

/* False when the required terms that judge a bucket's properties (see
 * ccas_node_prop_of_bucket(): node.nodearray, node.vm_size, ...) or a
 * "never" rule out every node of the bucket whose template is `t`. */
bool ccas_constraint_bucket_may_fit (const struct ccas_constraint *c, const struct ccas_node *t);

/* A key naming the terms ccas_constraint_bucket_may_fit() judges: equal keys,
 * equal answers for every bucket (an index may compute them once per key).
 * Writes it into `buf` and returns its length, or 0 if it does not fit. */
size_t ccas_constraint_bucket_key (const struct ccas_constraint *c, char *buf, size_t size);

/* False when a shared resource `c` requires cannot give a slot of job `job`
 * (its index, or -1) of queue `queue` (0: none) what it asks (a pool run dry
 * that the job has not drawn on yet, a value that does not match): then no
 * node fits. */
bool ccas_constraint_pools_hold (const struct ccas_constraint *c, int32_t job, int32_t queue);

/* The compiled constraint of `id` (see ccas_cons_info.id), or NULL.  Borrowed. */
const struct ccas_constraint *ccas_constraint_by_id (const struct ccas_cons_cache *cache, uint32_t id);

/* The constraint as canonical JSON text, for output.  Borrowed; lives as long as the cache. */
const char *ccas_constraint_text (const struct ccas_constraint *c);

#endif /* !CCAS_CONSTRAINT_H */
