/* SPDX-License-Identifier: MIT */
/* request_set.h: the CycleCloud autoscale API's requests — node array
 * definitions with targets, grouped into request sets that expire.
 *
 * A request is the API's own document: a JSON list of node array definitions
 * (request.h).  ccas_request_parse() checks it against the cluster entry by
 * entry and turns it into ccautoscale's normalized form, one entry per array:
 *   - a static array is a nodearray of the cluster, its nodes every node of
 *     the nodearray that no dynamic array claims;
 *   - a dynamic array (`Dynamic: true`, `Extends: NODEARRAY`) is a set of
 *     nodes of NODEARRAY that carry its name and request set in their
 *     Configuration (ccautoscale.array, ccautoscale.request_set); one
 *     without Extends is made in the nodearray request.h says;
 *   - a grouped target on array A is the dynamic array "A:<GroupCoreCount>"
 *     (or "A:<GroupInstanceCount>nodes"), as CycleCloud names it, made in A's
 *     nodearray.
 * Each request set is one state file, state_dir/autoscale-<set>.json, written
 * atomically: its latest request, when it was recorded, its expiration, and
 * the dynamic arrays that have dropped out of it and wait for their nodes to
 * stop ("removing").  A request replaces the set's previous one whole.
 *
 * Every string and json-c object a set hands out is borrowed from its state
 * document: valid until the set changes (replace, forget) or is destroyed.
 * This module only reads the cluster model; it never talks to CycleCloud.
 */
#ifndef CCAS_REQUEST_SET_H
#define CCAS_REQUEST_SET_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/cluster.h"
#include "util/error.h"
#include "util/state.h"

#define CCAS_REQUEST_SET_DEFAULT "standard"
#define CCAS_REQUEST_EXPIRATION_DEFAULT 300.0

enum ccas_target_kind {
    CCAS_TARGET_NONE,   /* no target: nothing is created, every node may stop */
    CCAS_TARGET_NODES,  /* TargetCount */
    CCAS_TARGET_CORES,  /* TargetCoreCount */
    CCAS_TARGET_GROUPS, /* TargetGroupCount */
};

/* One node array of a request, normalized. */
struct ccas_array_request {
    const char *name;      /* the array: Name, or "Name:64" for a grouped target */
    const char *requested; /* Name as the request gave it */
    const char *nodearray; /* where its nodes are made: Name, or Extends */
    bool dynamic;          /* its nodes carry its name (Dynamic, or grouped) */
    enum ccas_target_kind kind;
    int64_t target;             /* nodes, cores or groups */
    int64_t group_cores;        /* grouped: cores per group, or 0 */
    int64_t group_nodes;        /* grouped: nodes per group, or 0 */
    json_object *machine_types; /* array of strings in preference order, or NULL: the nodearray's */
    json_object *configuration; /* object sent as the nodes' Configuration, or NULL */
    json_object *attributes;    /* other node attributes sent with them (ImageName, ...), or NULL */
    int64_t max_nodes;          /* MaxCount: the array grows to no more nodes; -1 none */
    int64_t max_cores;          /* MaxCoreCount: ... no more cores; -1 none */
    bool standalone;            /* dynamic without Extends: `nodearray` only hosts its nodes */
};

/* A dynamic array no longer in its set's latest request. */
struct ccas_array_removing {
    const char *name;
    const char *nodearray;
    double since; /* when it dropped out */
};

struct ccas_request_set {
    const char *name;
    double time;       /* when the latest request was recorded; 0: never */
    double expiration; /* seconds after `time` that it is pursued */
    struct ccas_array_request *arrays;
    size_t narrays;
    struct ccas_array_removing *removing;
    size_t nremoving;
    bool changed; /* differs from its file */
    struct ccas_state *state;
};

/* 0 if `name` may name a request set (1-64 of [A-Za-z0-9_.-], not starting
 * with '.'), else -1 with `err`. */
int ccas_request_set_check_name (const char *name, struct ccas_error *err);

/* Load request set `name` from `dir` (a set never recorded is empty).
 * Caller frees with ccas_request_set_destroy().  NULL with `err` naming the
 * file when it cannot be read or is not a request set's. */
struct ccas_request_set *ccas_request_set_load (const char *dir, const char *name, struct ccas_error *err);
void ccas_request_set_destroy (struct ccas_request_set *s);

/* Every request set recorded in `dir`, in name order.  *out (caller frees
 * with ccas_request_set_destroy_all()) may be empty.  Returns 0 or -1. */
int ccas_request_set_load_all (const char *dir, struct ccas_request_set ***out, size_t *n,
                               struct ccas_error *err);
void ccas_request_set_destroy_all (struct ccas_request_set **v, size_t n);

/* Make `arrays` (from ccas_request_parse(); takes ownership) the set's
 * latest request, recorded at `now`, pursued for `expiration` seconds.  The
 * dynamic arrays of the previous request (and those already removing) that
 * it does not name are flagged for removal; one it names again is simply
 * requested again.  In memory only: ccas_request_set_save() records it.
 * Returns 0 or -1 (out of memory). */
int ccas_request_set_replace (struct ccas_request_set *s, json_object *arrays, double now, double expiration,
                              struct ccas_error *err);

/* The entries of a request that were refused (`refused`, from
 * ccas_request_parse()) keep what the set's latest request asked of their
 * Name: its arrays of that Name are copied into `arrays` (unless there
 * already), so that a mistake in one entry does not drop an array, nor flag
 * a dynamic one for removal.  Each refusal gets "kept": how many.  Call
 * before ccas_request_set_replace().  Returns how many arrays were kept. */
int ccas_request_set_keep (const struct ccas_request_set *s, json_object *arrays, json_object *refused);

/* Forget the removing array `name` in `nodearray` (its nodes are gone).
 * Removing entries are re-read, so earlier pointers into them are stale;
 * arrays stay valid.  Returns 1 if it was removing, 0 if not. */
int ccas_request_set_forget (struct ccas_request_set *s, const char *name, const char *nodearray);

/* Write the set's file atomically.  Returns 0 or -1 with `err`. */
int ccas_request_set_save (struct ccas_request_set *s, struct ccas_error *err);

/* True while the latest request is pursued: recorded and not expired. */
bool ccas_request_set_live (const struct ccas_request_set *s, double now);

/* The requested array `name` made in `nodearray` (NULL: any), or NULL. */
const struct ccas_array_request *ccas_request_set_find (const struct ccas_request_set *s, const char *name,
                                                        const char *nodearray);

/* "3 nodes", "128 cores", "2 groups of 64 cores", "none" into `buf`. */
const char *ccas_array_request_target_text (const struct ccas_array_request *a, char *buf, size_t size);

/* "none", "nodes", "cores", "groups" (static). */
const char *ccas_target_kind_name (enum ccas_target_kind kind);

#endif /* !CCAS_REQUEST_SET_H */
