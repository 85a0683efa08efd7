/* SPDX-License-Identifier: MIT */
/* pbs_jobs.h: PBS's queued jobs as core jobs.
 *
 * From `qstat -f -t -F json`: every queued job and array subjob (the array's
 * parent is skipped, its subjobs stand for it), in PBS's order (Priority,
 * then submission).  Each chunk of `schedselect` (the select after queue
 * defaults) becomes a chunk of the core job with its own count; its
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
 * Jobs that cannot be read are skipped with a logged reason, never the pass.
 */
#ifndef CCAS_PBS_JOBS_H
#define CCAS_PBS_JOBS_H

#include <json-c/json.h>

#include "cluster.h"
#include "job.h"

struct ccas_pbs_jobs_stats {
    size_t seen;       /* entries in Jobs */
    size_t queued;     /* made into core jobs */
    size_t skipped;    /* unreadable: reason logged */
};

/* Translate the parsed qstat document `doc` (borrowed).  Constraints are
 * compiled in c->cons.  Caller frees with ccas_jobs_destroy().  NULL with
 * `err` only when out of memory or `doc` has no usable shape. */
struct ccas_jobs *ccas_pbs_jobs_from_qstat (struct ccas_cluster *c, json_object *doc,
                                            struct ccas_pbs_jobs_stats *stats, struct ccas_error *err);

#endif /* !CCAS_PBS_JOBS_H */
