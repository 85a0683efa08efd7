/* SPDX-License-Identifier: MIT */
/* job.h: pending work in scheduler-neutral form, and what matching made of it.
 *
 * A job is one or more chunks; a chunk is `count` slots that each satisfy the
 * chunk's constraint.  With packing "pack" several slots of a job may share a
 * node; with "scatter" each slot gets its own node.  A job is placed whole or
 * not at all.  Job-level "exclusive" and "colocated" are the same as adding
 * {"exclusive": true} or {"in-a-placement-group": true} to every chunk, and
 * are compiled that way.
 *
 * The JSON form (`ccautoscale demand --jobs`), an array in priority order:
 *   {"id": "42", "node_count": 4, "constraints": {...} | [{...}, ...],
 *    "packing": "pack"|"scatter", "exclusive": false, "colocated": false,
 *    "queue": "workq"}
 * or, for several chunks, "chunks": [{"count": 2, "constraints": {...}}, ...].
 * A job may also say it is running: {"id", "state": "running", "nodes": [...],
 * "constraints"}: its resources are taken from those nodes before matching,
 * and they are never idle.
 */
#ifndef CCAS_JOB_H
#define CCAS_JOB_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

#include "model/constraint.h"
#include "model/node.h"
#include "util/error.h"

enum ccas_packing { CCAS_PACK, CCAS_SCATTER };

struct ccas_chunk {
    uint32_t count;
    const struct ccas_constraint *cons; /* owned by the cache it was compiled in */
};

struct ccas_job {
    const char *id;
    struct ccas_chunk *chunks;
    uint32_t nchunks;
    uint32_t nslots; /* sum of chunk counts */
    enum ccas_packing packing;
    bool colocated;    /* all slots in one placement group */
    bool single_set;   /* all slots in one placement group, or all outside
                        * any (PBS keeps a job in one placement set) */
    bool running;      /* already running on `running_on` */
    bool ignore;       /* leave out of matching (e.g. behind the job analyzed) */
    const char *queue; /* its queue (PBS queue, Slurm partition), or NULL: it draws on
                        * that queue's shared pools beside the cluster's (shared.h) */
    const char **running_on;
    uint32_t nrunning_on;

    /* results of ccas_match() */
    bool matched;
    struct ccas_node **slots; /* node per slot when matched */
    const char *reason;       /* why not, when !matched */
};

struct ccas_jobs {
    struct ccas_job *v;
    size_t n, cap;
    void *arena; /* jobs, chunks and their strings */
};

/* Parse the JSON form.  Takes ownership of `root` (and puts it).  Constraints
 * are compiled in `cache`.  `origin` names the input in errors ("jobs.json:
 * [3].node_count: expected a positive integer").  Caller frees with
 * ccas_jobs_destroy(). */
struct ccas_jobs *ccas_jobs_from_json (json_object *root, struct ccas_cons_cache *cache, const char *origin,
                                       struct ccas_error *err);

/* The same from JSON text, one job at a time: a queue of 100,000 jobs never
 * exists as one json-c tree.  `text` is borrowed. */
struct ccas_jobs *ccas_jobs_from_text (const char *text, size_t len, struct ccas_cons_cache *cache,
                                       const char *origin, struct ccas_error *err);

/* An empty set to which scheduler adapters add jobs with ccas_jobs_add(). */
struct ccas_jobs *ccas_jobs_create (size_t hint);
void ccas_jobs_destroy (struct ccas_jobs *jobs);

/* Add a job with `nchunks` chunks (filled by the caller through the returned
 * pointer); `id` is copied.  Returns NULL when out of memory. */
struct ccas_job *ccas_jobs_add (struct ccas_jobs *jobs, const char *id, uint32_t nchunks);

/* Memory that lives as long as `jobs` (for adapters' strings). */
void *ccas_jobs_alloc (struct ccas_jobs *jobs, size_t size);

#endif /* !CCAS_JOB_H */
