/* SPDX-License-Identifier: MIT */
/* plan.h: one pass's decisions — what to create, start and terminate, and why.
 *
 * A plan is built from a matched model: new nodes grouped into create sets
 * (one per bucket, placement group and node attributes), stopped nodes that were given work
 * (to start), and terminations decided by scale-down.  It says what would
 * happen; ccas_apply() makes it happen and records the outcome per set and
 * per node.  The plan borrows the model and the jobs; it must not outlive them.
 */
#ifndef CCAS_PLAN_H
#define CCAS_PLAN_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ccapi/failure.h"
#include "model/cluster.h"
#include "model/job.h"
#include "util/error.h"

enum ccas_outcome {
    CCAS_PLANNED = 0, /* not carried out (dry run) */
    CCAS_DONE,
    CCAS_FAILED,
};

struct ccas_plan_set {
    struct ccas_bucket *bucket;
    struct ccas_pg *pg; /* or NULL */
    uint32_t count;
    struct ccas_node **nodes;     /* the potential nodes, in the order made */
    json_object *node_attributes; /* the nodes' create_attributes (borrowed), or NULL */
    bool keep_alive;
    bool cyclecloud_chooses; /* sent without a machine type: CycleCloud takes the first bucket
                              * of the nodearray that fits; `bucket` is the one whose room
                              * ccautoscale counted, and the nodes' vm_size is what they got */
    unsigned round;          /* 0: the pass's create request; 1: its fallback (apply.h) */
    /* after apply */
    enum ccas_outcome outcome;
    int added;
    const char *message;         /* the server's, when added < count */
    enum ccas_failure_class cls; /* when added < count: from the HTTP status when the
                                  * request failed, else from the server's message */
    uint32_t replaced;           /* of the nodes not added, how many the fallback made elsewhere */
    const char *request_id;      /* the request it went in, once sent */
    const char *operation;       /* that request's operation, once answered */
};

struct ccas_plan_action {
    struct ccas_node *node;
    const char *reason; /* why this node is started or terminated */
    enum ccas_outcome outcome;
    const char *error; /* when failed */
};

struct ccas_plan;

/* Re-plan elsewhere what the potential nodes `lost` were for: their create
 * came back short for want of capacity, their buckets are held for this
 * pass and they are dropped from the model (ccas_cluster_drop_node()).  Add
 * to the model the new potential nodes that serve the same jobs or
 * targets in other buckets.  Returns 0, or -1 with `err`. */
typedef int (*ccas_plan_replan_f) (void *arg, struct ccas_plan *plan, struct ccas_node *const *lost,
                                   size_t nlost, struct ccas_error *err);

struct ccas_plan {
    struct ccas_cluster *cluster; /* borrowed */
    struct ccas_jobs *jobs;       /* borrowed, may be NULL */
    struct ccas_plan_set *creates;
    size_t ncreates;
    struct ccas_plan_action *starts;
    size_t nstarts;
    struct ccas_plan_action *terminates;
    size_t nterminates;
    bool *terminating;             /* by node index (existing nodes): asked for by ccas_plan_terminate() */
    struct ccas_plan_action *kept; /* would be terminated but KeepAlive */
    size_t nkept;
    ccas_plan_replan_f replan; /* how apply falls back after a capacity failure, or NULL
                                * (then a plan with jobs re-places them: fallback.h) */
    void *replan_arg;
    /* after apply */
    char request_id[64]; /* the first create request's */
    const char *create_operation;
    const char *start_operation;
    const char *terminate_operation;
    void *arena;
};

/* Gather the model's new nodes into create sets and its stopped nodes that
 * were given work into starts.  Caller frees with ccas_plan_destroy(). */
struct ccas_plan *ccas_plan_create (struct ccas_cluster *c, struct ccas_jobs *jobs, struct ccas_error *err);
void ccas_plan_destroy (struct ccas_plan *plan);

/* Gather the model's new nodes from node index `from` on (made after the
 * plan) into create sets of `round`, appended to the plan's.  Returns 0, or
 * -1 with `err` (out of memory). */
int ccas_plan_extend (struct ccas_plan *plan, size_t from, unsigned round, struct ccas_error *err);

/* Add a termination by hand (the terminate command).  `reason` is copied. */
int ccas_plan_terminate (struct ccas_plan *plan, struct ccas_node *n, const char *reason);

/* Memory that lives as long as the plan. */
char *ccas_plan_strdup (struct ccas_plan *plan, const char *s);

/* The plan's actions as JSON (caller puts it); "cluster_closed" says why
 * nothing is created or started when the cluster is not Started. */
json_object *ccas_plan_to_json (const struct ccas_plan *plan);

/* The same with a summary and the jobs, written to `f` as it goes, one set,
 * action or job a line (a plan of a million jobs is never a second time in
 * memory): per job the nodes it was given (existing names or new-node
 * placeholders) or its reason.  The members of `extra` (borrowed; may be
 * NULL) come before "jobs".  Returns -1 if writing failed. */
int ccas_plan_write_json (const struct ccas_plan *plan, json_object *extra, FILE *f);

/* Counts for summaries. */
uint32_t ccas_plan_new_nodes (const struct ccas_plan *plan);

#endif /* !CCAS_PLAN_H */
