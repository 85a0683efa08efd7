/* SPDX-License-Identifier: MIT */
/* status.h: the typed view of GET /clusters/{c}/status — the cluster's
 * nodearrays, their buckets (one per machine type) with every count and
 * quota the server states, and with nodes=true the node records.
 * Every string is borrowed from the response, which the status owns.
 */
#ifndef CCAS_STATUS_H
#define CCAS_STATUS_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ccapi/record.h"
#include "util/error.h"

/* Any count the server did not state reads as 0 (memory too). */
struct ccas_vm_info {
    int vcpu_count;
    int pcpu_count;
    int gpu_count;
    double memory_gb;
    bool infiniband;
    int64_t vcpu_quota_count; /* cores charged against quota per VM; = vcpu_count if absent */
};

struct ccas_pg_status {
    const char *name;
    int64_t active_count;
    int64_t active_core_count;
};

/* Counts the server did not send read as -1 (unknown, no limit); a
 * negative count it did send reads as 0, with a warning. */
struct ccas_bucket_status {
    const char *bucket_id;
    const char *machine_type; /* definition.machineType */
    bool valid;
    const char *invalid_reason; /* or NULL */
    int64_t max_count, max_core_count;
    int64_t active_count, active_core_count;
    int64_t available_count, available_core_count;
    int64_t quota_count, quota_core_count, consumed_core_count;
    int64_t family_quota_count, family_quota_core_count, family_consumed_core_count;
    int64_t regional_quota_count, regional_quota_core_count, regional_consumed_core_count;
    int64_t max_pg_size, max_pg_core_size; /* maxPlacementGroupSize / ...CoreSize */
    double last_capacity_failure;          /* seconds since; <0 never */
    double spot_placement_score;           /* <0 if absent */
    struct ccas_vm_info vm;
    struct ccas_pg_status *pgs; /* placementGroups */
    size_t npgs;
    const char **active_nodes; /* names, with nodes=true; NULL otherwise */
    size_t nactive_nodes;
    json_object *raw; /* borrowed */
};

struct ccas_nodearray_status {
    const char *name;
    int64_t max_count, max_core_count; /* -1 if absent */
    /* from the PascalCase `nodearray` record */
    const char *region;
    const char *subnet_id;
    const char *placement_group_id; /* nodearray-level PlacementGroupId, or NULL */
    int priority;                   /* Priority; 0 if absent */
    bool interruptible;             /* spot */
    bool autoscale_enabled;         /* Configuration.autoscale.enabled, default true */
    int template_colocated;         /* Configuration slurm.hpc, where CycleCloud's Slurm
                                     * template says whether the nodearray's jobs keep
                                     * to a placement group: 1, 0, or -1 unset */
    int64_t max_scaleset_size;      /* Azure.MaxScalesetSize, or -1 */
    const char *shutdown_policy;    /* ShutdownPolicy ("Terminate"|"Deallocate"), or NULL */
    json_object *record;            /* borrowed `nodearray` record */
    struct ccas_bucket_status *buckets;
    size_t nbuckets;
    json_object *raw; /* borrowed */
};

struct ccas_status {
    const char *name;                  /* the cluster asked for */
    const char *state, *target_state;  /* "Started", "Terminating" ...; NULL when not stated */
    int64_t max_count, max_core_count; /* -1 if absent */
    struct ccas_nodearray_status *nodearrays;
    size_t nnodearrays;
    struct ccas_record *nodes; /* with nodes=true; else NULL, 0 */
    size_t nnodes;
    char **warnings; /* owned: limits that are negative or contradict each other,
                      * naming the bucket and field (also logged) */
    size_t nwarnings;
    json_object *root; /* owned */
};

/* Take ownership of `root` (a parsed status response) and build the typed view.
 * Returns the status (caller frees with ccas_status_destroy()), or NULL
 * with `err` naming the field; `root` is put in both cases. */
struct ccas_status *ccas_status_from_json (json_object *root, const char *cluster, struct ccas_error *err);
void ccas_status_destroy (struct ccas_status *st);

/* NULL when the cluster is Started: its `state` and `targetState` are both
 * "Started" (one CycleCloud leaves out is not judged: the API states them
 * only once the cluster has started).  Otherwise why nothing may be created
 * or started in it, written into `buf`: "cluster 'hpc' is Terminating
 * (targetState Terminated)". */
const char *ccas_status_not_started (const struct ccas_status *st, char *buf, size_t size);

#endif /* !CCAS_STATUS_H */
