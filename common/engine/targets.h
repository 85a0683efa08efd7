/* SPDX-License-Identifier: MIT */
/* targets.h: reconcile the autoscale API's request sets with the cluster —
 * count each array's nodes, grow it to its target, and decide autostops.
 *
 * Built from a cluster model (with its node records) and request sets
 * (request_set.h), a struct ccas_targets holds one view per array of each
 * set — requested, or removing — with the nodes it has now:
 *   - a node counts toward an array while it is running or booting (not
 *     deallocated, failed or on its way out); a static array's nodes are its
 *     nodearray's nodes that carry no ccautoscale.array marker, a dynamic
 *     array's those whose Configuration carries its name and request set;
 *   - a grouped array counts whole groups: placement groups holding at least
 *     a group's size of its nodes;
 *   - a request that has expired holds nothing: nothing is created for it and
 *     its nodes may stop;
 *   - several live sets that name one static array each hold it at or above
 *     their own target (the highest wins, they are not added).
 * ccas_targets_grow() adds to the model what reaching the live targets takes
 * (deallocated nodes of the array started, new nodes in machine-type order,
 * each group in one placement group of one machine type), within every limit
 * the model knows; ccas_plan_create() then turns it into creates that carry
 * each array's Configuration as nodeAttributes.  Nothing here terminates a
 * node: nodes stop only through ccas_targets_autostop(), asked by the node.
 *
 * The targets borrow the model and the sets; they must not outlive either.
 * Nodes made by grow borrow their create_attributes from the targets: destroy
 * the plan before the targets.
 */
#ifndef CCAS_TARGETS_H
#define CCAS_TARGETS_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/plan.h"
#include "engine/request_set.h"
#include "model/cluster.h"
#include "util/error.h"

struct ccas_target_group {
    const char *pg;       /* placement group ("" for nodes in none) */
    int64_t nodes;        /* counted nodes in it */
    int64_t size;         /* nodes a whole group of its machine type holds */
    const char *why_size; /* machine type the size came from */
};

struct ccas_target_view {
    struct ccas_request_set *set;         /* borrowed */
    const struct ccas_array_request *req; /* the requested array; NULL when removing */
    const char *name;                     /* the array (owned) */
    const char *nodearray;                /* where its nodes are (owned) */
    bool dynamic;                         /* its nodes carry its name */
    bool removing;                        /* no longer requested: waits for its nodes to stop */
    double since;                         /* removing: when it dropped out */
    bool live;                            /* its set's request is pursued now */
    /* the cluster now */
    int64_t nodes, cores; /* counted: running or booting */
    int64_t whole_groups; /* grouped: groups holding a whole group's nodes */
    int64_t stopped;      /* deallocated */
    int64_t failed;
    int64_t present; /* nodes not on their way out (a removing array is forgotten at 0) */
    struct ccas_target_group *groups;
    size_t ngroups;
    /* this pass (ccas_targets_grow) */
    int64_t started;         /* deallocated nodes started */
    int64_t new_nodes;       /* nodes created */
    int64_t new_cores;       /* cores of both */
    int64_t new_groups;      /* grouped: new placement groups */
    int64_t short_by;        /* what the target still lacks after this pass, in its unit */
    char why[400];           /* why it is short */
    json_object *attributes; /* nodeAttributes of its new nodes (flat targets), or NULL */
};

struct ccas_targets {
    struct ccas_cluster *cluster; /* borrowed */
    struct ccas_target_view *views;
    size_t nviews;
    double now;
    const char **marker_array; /* per existing node index: ccautoscale.array, or NULL */
    const char **marker_set;   /* ... ccautoscale.request_set */
    json_object *keep;         /* owns attributes made for groups */
    int32_t *made_by;          /* per new node (index - nexisting): the view it was made for, -1 */
    size_t made_cap;
};

enum ccas_autostop_decision {
    CCAS_AUTOSTOP_REFUSED,
    CCAS_AUTOSTOP_GRANTED,
    CCAS_AUTOSTOP_GOING, /* already on its way out: nothing to do */
};

struct ccas_autostop {
    enum ccas_autostop_decision decision;
    char reason[600];
    const char *array;       /* the array the node belongs to (borrowed), or NULL */
    const char *request_set; /* the set whose view decided, or NULL */
};

/* Count the arrays of `sets` (borrowed, `nsets` of them) in `c` at `now`.
 * Caller frees with ccas_targets_destroy().  NULL with `err` (out of memory). */
struct ccas_targets *ccas_targets_create (struct ccas_cluster *c, struct ccas_request_set *const *sets,
                                          size_t nsets, double now, struct ccas_error *err);
void ccas_targets_destroy (struct ccas_targets *t);

/* Add to the model what reaching every live target takes.  Views record
 * what was planned and what is still short, and why.  Returns the number of
 * views left short, or -1 with `err` (out of memory). */
int ccas_targets_grow (struct ccas_targets *t, struct ccas_error *err);

/* The plan of what grow added (ccas_plan_create()), set to fall back with
 * ccas_targets_replan() when a create comes back short for want of
 * capacity.  Caller frees with ccas_plan_destroy(), before the targets. */
struct ccas_plan *ccas_targets_plan (struct ccas_targets *t, struct ccas_error *err);

/* The new nodes `lost` (dropped from the model, their buckets held: see
 * ccas_plan_replan_f) no longer count for the views they were made for;
 * those views grow again, in the machine types left.  Returns 0, or -1
 * with `err` (out of memory). */
int ccas_targets_replan (struct ccas_targets *t, struct ccas_node *const *lost, size_t nlost,
                         struct ccas_error *err);

/* Should existing node `n` stop?  Fills `out`; granted when the node does
 * not count toward any live target, or its array stays at or above every
 * live target without it.  KeepAlive nodes are refused. */
void ccas_targets_autostop (const struct ccas_targets *t, const struct ccas_node *n,
                            struct ccas_autostop *out);

/* Node `n` was asked to stop: it no longer counts, nor keeps its array. */
void ccas_targets_node_gone (struct ccas_targets *t, const struct ccas_node *n);

/* Forget the removing arrays that have no node left (in their sets, which
 * are marked changed).  Returns how many were forgotten. */
int ccas_targets_forget (struct ccas_targets *t);

/* The dynamic array node `n` is marked with, or NULL; its set in *set. */
const char *ccas_targets_marker (const struct ccas_targets *t, const struct ccas_node *n, const char **set);

/* One view as JSON (new object). */
json_object *ccas_target_view_to_json (const struct ccas_target_view *v);

#endif /* !CCAS_TARGETS_H */
