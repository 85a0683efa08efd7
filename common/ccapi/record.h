/* SPDX-License-Identifier: MIT */
/* record.h: CycleCloud's node records as the REST API returns them.
 *
 * A record is PascalCase and open (unknown fields are kept in `raw`); these
 * are the fields ccautoscale reads.  Records are CycleCloud's view of a VM:
 * the cluster model's nodes (model/node.h, ccas_node_*) are built from them.
 * Every string is borrowed from the JSON the record was parsed from.
 */
#ifndef CCAS_RECORD_H
#define CCAS_RECORD_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

#include "util/error.h"

struct ccas_record {
    const char *name;
    const char *node_id;
    const char *nodearray; /* Template */
    const char *machine_type;
    const char *status; /* Off Acquiring Preparing Ready Deallocated Terminated Failed ... */
    const char *target_state;
    const char *state;
    const char *status_message;
    const char *hostname;
    const char *private_ip;
    const char *instance_id;
    const char *region;
    const char *placement_group_id;
    const char *shutdown_policy;
    bool keep_alive;
    bool interruptible;
    bool fixed;
    int core_count;
    double memory_gb;
    json_object *raw; /* borrowed */
};

struct ccas_record_list {
    struct ccas_record *nodes;
    size_t nnodes;
    const char *operation_id; /* the `operation` member's id, when filtered */
    json_object *root;        /* owned */
};

/* Node lifecycle predicates, from cyclecloud-api.md. */
bool ccas_record_is_ready (const struct ccas_record *n);   /* Status Ready with a PrivateIp */
bool ccas_record_is_failed (const struct ccas_record *n);  /* Status Failed */
bool ccas_record_is_settled (const struct ccas_record *n); /* Status equals TargetState */

/* Whether node `n` was made with `node_attributes` (a create set's, may be
 * NULL): its Configuration holds every setting of theirs, nested objects
 * compared key by key, since CycleCloud merges a create's Configuration over
 * the nodearray's.  True when they carry no Configuration. */
bool ccas_record_made_with (const struct ccas_record *n, json_object *node_attributes);

/* Take ownership of `root`, a nodes response: `{"nodes": [...], "operation": {...}}`, or a
 * bare array of node records.  Takes ownership of `root`. */
struct ccas_record_list *ccas_record_list_from_json (json_object *root, struct ccas_error *err);
void ccas_record_list_destroy (struct ccas_record_list *list);

/* Parse one node record in place (fields borrowed from `rec`). */
int ccas_record_parse (json_object *rec, struct ccas_record *out, struct ccas_error *err);

/* Parse a JSON array of node records at `path` (for errors) into a new
 * array (caller frees it; the records borrow from `arr`).  Returns 0 or -1. */
int ccas_record_parse_array (json_object *arr, const char *path, struct ccas_record **out, size_t *n,
                             struct ccas_error *err);

#endif /* !CCAS_RECORD_H */
