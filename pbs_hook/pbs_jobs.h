/* SPDX-License-Identifier: MIT */
/* pbs_jobs.h: PBS's queued jobs as core jobs.
 *
 * From `qstat -f -t -F json`: every queued job and array subjob (the array's
 * parent is skipped, its subjobs stand for it), in PBS's order (Priority,
 * then submission); those of pbs.ignore_queues are left out.  Each chunk of
 * `schedselect` (the select after default_chunk) becomes a chunk of the core
 * job with its own count.  The server's and queue's resources_default land in
 * the job's Resource_List, not its select: a value there of ungrouped,
 * group_id or slot_type, or of another resource default_resources gives the
 * nodes as a word (not an amount: Resource_List's amounts are the job's
 * totals), is the value of every chunk that does not set it, as PBS's
 * scheduler takes it (the stock workq's ungrouped=false, htcq's
 * ungrouped=true); another such word is logged, once a pass for each queue
 * and resource, and not asked of the VMs.  A chunk's
 * resources become minimums (ncpus=4, mem=8gb) or matches (slot_type=execute,
 * vm_size=...); slot_type names the nodearray unless default_resources
 * defines a slot_type resource.  place=scatter|vscatter spreads slots over
 * nodes, free lets them share; pack puts every chunk on one host, so the job
 * becomes one node request holding the chunks' summed amounts (numbers and
 * sizes; other values must agree, else the job can never match and says
 * why); excl|exclhost makes the job exclusive.  group=group_id or
 * ungrouped=false keeps the job in one placement group; ungrouped=true keeps
 * it outside any (a node joined in a placement group has ungrouped=false, and
 * PBS would never run the job there).
 * A chunk's group_id=V must be the group of an existing node (the nodes
 * ccautoscale makes get "_none_" or the name of the placement group it makes
 * for them); "_none_" asks for nodes outside any.  A job PBS will not start
 * because of a queue or server limit (pbs_limits.h) is a job that never
 * matches, with the limit as its reason.
 * A job whose select or place cannot be read stops neither the pass nor the
 * jobs behind it: it becomes a job that never matches, its reason ("PBS job
 * cannot be read: select: chunk 1: 'ncpus': expected resource=value ...")
 * shown by demand and analyze, and logged.
 */
#ifndef CCAS_PBS_JOBS_H
#define CCAS_PBS_JOBS_H

#include <json-c/json.h>

#include "model/cluster.h"
#include "model/job.h"
#include "pbs_json.h"

/* group_id of a node outside any placement group: PBS's placement sets (as
 * install-hook sets them: do_not_span_psets) keep a job inside one group_id
 * value, and this is the one of every node outside a placement group. */
#define CCAS_PBS_NO_GROUP "_none_"

struct ccas_pbs_jobs_stats {
    size_t seen;    /* entries in Jobs */
    size_t queued;  /* made into core jobs */
    size_t ignored; /* queued in a queue of pbs.ignore_queues: no core job */
    size_t skipped; /* unreadable: kept as jobs that never match, reason logged */
    size_t limited; /* of those queued, held back by a PBS limit: never matched (pbs_limits.h) */
};

/* Queued jobs read from qstat, one entry at a time, before translation. */
struct ccas_pbs_queue;

/* Caller frees with ccas_pbs_queue_destroy(); NULL when out of memory. */
struct ccas_pbs_queue *ccas_pbs_queue_create (void);
void ccas_pbs_queue_destroy (struct ccas_pbs_queue *q);

/* Leave out the queued jobs of the queues `names` lists (pbs.ignore_queues: a
 * JSON array of strings, borrowed; may be NULL); before the jobs are added.
 * 0, or -1 when out of memory. */
int ccas_pbs_queue_ignore_queues (struct ccas_pbs_queue *q, json_object *names);

/* Take one entry of qstat's Jobs: `job` is borrowed (what is kept is
 * copied), NULL for an entry the repair left out.  Jobs not queued, and
 * array parents, are counted and dropped.  -1 with `err` when out of memory. */
int ccas_pbs_queue_add (struct ccas_pbs_queue *q, const char *id, json_object *job, struct ccas_error *err);

/* Read what `qstat -f -t -F json` printed (`len` bytes of `text`) into `q`,
 * entry by entry, repairing PBS's quirks (pbs_json.h); an entry that cannot
 * be read goes to `skipped` (may be NULL).  0, or -1 with `err`. */
int ccas_pbs_queue_read (struct ccas_pbs_queue *q, const char *text, size_t len, ccas_pbs_skipped_f skipped,
                         void *arg, struct ccas_error *err);

/* Hand the queue PBS's limits: the documents of qstat -Q -f -F json and
 * qstat -B -f -F json (borrowed; either may be NULL), before the jobs are
 * added (running jobs are counted as they come).  0, or -1 with `err`. */
int ccas_pbs_queue_limits (struct ccas_pbs_queue *q, json_object *queues, json_object *server,
                           struct ccas_error *err);

/* After ccas_pbs_queue_jobs(): the comment PBS shows on core job `job` (its
 * index in the jobs made), or NULL.  Borrowed; valid while `q` lives. */
const char *ccas_pbs_queue_comment (const struct ccas_pbs_queue *q, size_t job);

/* Translate the queue (sorting it into PBS's order).  Constraints are
 * compiled in c->cons.  Caller frees with ccas_jobs_destroy().  NULL with
 * `err` only when out of memory. */
struct ccas_jobs *ccas_pbs_queue_jobs (struct ccas_cluster *c, struct ccas_pbs_queue *q,
                                       struct ccas_pbs_jobs_stats *stats, struct ccas_error *err);

#endif /* !CCAS_PBS_JOBS_H */
