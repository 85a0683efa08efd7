/* SPDX-License-Identifier: MIT */
/* json_out.c: node records (PascalCase) and status responses (camelCase), from live state. */
#include "config.h"

#include <math.h>
#include <string.h>

#include "sim.h"

static void add_str (json_object *o, const char *k, const char *v)
{
    if (v)
        json_object_object_add (o, k, json_object_new_string (v));
}

/* Copy the members of `over` into `dst`, objects merged member by member,
 * anything else replaced. */
static void merge_into (json_object *dst, json_object *over)
{
    json_object_object_foreach (over, k, v)
    {
        json_object *have = json_object_object_get (dst, k);
        if (json_object_is_type (have, json_type_object) && json_object_is_type (v, json_type_object)) {
            merge_into (have, v);
            continue;
        }
        json_object *copy = NULL;
        if (json_object_deep_copy (v, &copy, NULL) == 0)
            json_object_object_add (dst, k, copy);
    }
}

/* A node's Configuration, as CycleCloud shows it: its nodearray's, with
 * what its create's nodeAttributes.Configuration set merged over it.  A new
 * reference, or NULL when neither has one. */
static json_object *node_configuration (json_object *nodearray, json_object *node)
{
    json_object *cfg = NULL;
    if (!json_object_is_type (node, json_type_object))
        return nodearray ? json_object_get (nodearray) : NULL;
    if (!json_object_is_type (nodearray, json_type_object) ||
        json_object_deep_copy (nodearray, &cfg, NULL) < 0)
        cfg = json_object_new_object ();
    merge_into (cfg, node);
    return cfg;
}

json_object *sim_node_json (const struct sim_node *n)
{
    json_object *o = json_object_new_object ();
    const struct sim_bucket *b = n->bucket;
    json_object *rec = json_object_object_get (b->na->src, "nodearray");
    add_str (o, "Name", n->name);
    add_str (o, "NodeId", n->id);
    add_str (o, "Template", b->na->name);
    add_str (o, "MachineType", b->machine_type);
    add_str (o, "Status", sim_phase_status (n->phase));
    add_str (o, "TargetState", sim_target_state (n));
    if (n->phase != PH_ACQUIRING || n->ip)
        add_str (o, "State", n->phase == PH_READY ? "Started" : sim_target_state (n));
    add_str (o, "StatusMessage", n->status_message);
    add_str (o, "Hostname", n->hostname);
    add_str (o, "PrivateIp", n->ip);
    add_str (o, "InstanceId", n->instance_id);
    add_str (o, "Region", json_object_get_string (json_object_object_get (rec, "Region")));
    add_str (o, "ClusterName", sim.cluster_name);
    add_str (o, "PlacementGroupId", n->pg);
    add_str (o, "ShutdownPolicy", n->shutdown_policy ? n->shutdown_policy : b->na->shutdown_policy);
    json_object_object_add (o, "KeepAlive", json_object_new_boolean (n->keep_alive));
    json_object_object_add (o, "Fixed", json_object_new_boolean (n->fixed));
    json_object_object_add (o, "Interruptible", json_object_new_boolean (n->interruptible));
    json_object_object_add (o, "CoreCount", json_object_new_int (b->vcpu));
    json_object_object_add (o, "Memory", json_object_new_double (b->memory_gb));
    json_object *cfg = node_configuration (json_object_object_get (rec, "Configuration"),
                                           json_object_object_get (n->extra, "Configuration"));
    if (cfg)
        json_object_object_add (o, "Configuration", cfg);
    if (n->extra) {
        json_object_object_foreach (n->extra, k, v)
        {
            if (!json_object_object_get (o, k))
                json_object_object_add (o, k, json_object_get (v));
        }
    }
    return o;
}

json_object *sim_error_json (const char *exception, const char *message)
{
    json_object *o = json_object_new_object ();
    add_str (o, "Exception", exception);
    add_str (o, "Message", message);
    add_str (o, "Detail", message);
    return o;
}

static json_object *copy (json_object *src)
{
    json_object *dst = NULL;
    if (json_object_deep_copy (src, &dst, NULL) < 0)
        return json_object_new_object ();
    return dst;
}

static void set_i64 (json_object *o, const char *k, int64_t v)
{
    json_object_object_add (o, k, json_object_new_int64 (v));
}

static json_object *pgs_json (const struct sim_bucket *b)
{
    json_object *arr = json_object_new_array ();
    for (size_t i = 0; i < sim.nnodes; i++) {
        const struct sim_node *n = sim.nodes[i];
        if (n->bucket != b || !n->pg || !sim_node_active (n))
            continue;
        bool seen = false;
        for (size_t k = 0; k < json_object_array_length (arr) && !seen; k++)
            seen = strcmp (json_object_get_string (
                               json_object_object_get (json_object_array_get_idx (arr, k), "name")),
                           n->pg) == 0;
        if (seen)
            continue;
        int64_t active = sim_pg_active (b, n->pg);
        json_object *pg = json_object_new_object ();
        add_str (pg, "name", n->pg);
        set_i64 (pg, "activeCount", active);
        set_i64 (pg, "activeCoreCount", active * b->vcpu);
        json_object_array_add (arr, pg);
    }
    return arr;
}

static void set_count (json_object *o, const char *k, int64_t v, int64_t per_vm)
{
    if (v >= 0)
        set_i64 (o, k, per_vm > 0 ? v / per_vm : v);
}

/* A bucket as CycleCloud's status shows it: the file's static fields, the
 * counts computed from the nodes (active, available, consumed: other
 * clusters' base included), the quotas in cores and in VMs.  A spot
 * bucket's family quota and quotaCoreCount read 0, as in CycleCloud. */
static json_object *bucket_json (const struct sim_bucket *b, bool with_nodes)
{
    json_object *o = copy (b->src);
    int64_t active = sim_bucket_active (b);
    int64_t avail = sim_bucket_available (b, NULL, 0);
    int64_t quota = b->spot ? 0 : b->quota_core_count >= 0 ? b->quota_core_count : b->family_quota_cores;
    int64_t family = b->spot ? 0 : b->family_quota_cores;
    if (avail == INT64_MAX)
        avail = 1000000;
    set_i64 (o, "activeCount", active);
    set_i64 (o, "activeCoreCount", active * b->vcpu);
    set_i64 (o, "availableCount", avail);
    set_i64 (o, "availableCoreCount", avail * b->vcpu);
    set_count (o, "quotaCoreCount", quota, 0);
    set_count (o, "quotaCount", quota, b->vcpu);
    set_i64 (o, "consumedCoreCount", sim_quota_consumed (b));
    set_count (o, "familyQuotaCoreCount", family, 0);
    set_count (o, "familyQuotaCount", family, b->vcpu);
    set_i64 (o, "familyConsumedCoreCount", sim_family_consumed (b));
    set_count (o, "regionalQuotaCoreCount", b->regional_quota_cores, 0);
    set_count (o, "regionalQuotaCount", b->regional_quota_cores, b->vcpu);
    set_i64 (o, "regionalConsumedCoreCount", sim_regional_consumed (b));
    set_count (o, "maxPlacementGroupSize", b->max_pg_size, 0);
    set_count (o, "maxPlacementGroupCoreSize", b->max_pg_core_size, 0);
    json_object_object_add (o, "valid", json_object_new_boolean (b->valid));
    json_object_object_add (o, "lastCapacityFailure",
                            json_object_new_double (b->last_capacity_failure < 0
                                                        ? -1
                                                        : floor (sim_now () - b->last_capacity_failure)));
    json_object_object_add (o, "placementGroups", pgs_json (b));
    if (with_nodes) {
        json_object *names = json_object_new_array ();
        for (size_t i = 0; i < sim.nnodes; i++)
            if (sim.nodes[i]->bucket == b && sim_node_active (sim.nodes[i]))
                json_object_array_add (names, json_object_new_string (sim.nodes[i]->name));
        json_object_object_add (o, "activeNodes", names);
    }
    return o;
}

json_object *sim_status_json (bool with_nodes)
{
    json_object *o = json_object_new_object ();
    json_object *nas = json_object_new_array ();
    add_str (o, "state", sim.state);
    add_str (o, "targetState", sim.target_state);
    if (sim.max_count >= 0)
        set_i64 (o, "maxCount", sim.max_count);
    if (sim.max_core_count >= 0)
        set_i64 (o, "maxCoreCount", sim.max_core_count);
    for (size_t a = 0; a < sim.nnas; a++) {
        json_object *na = copy (sim.nas[a].src);
        json_object *buckets = json_object_new_array ();
        for (size_t i = 0; i < sim.nbuckets; i++)
            if (sim.buckets[i].na == &sim.nas[a])
                json_object_array_add (buckets, bucket_json (&sim.buckets[i], with_nodes));
        json_object_object_add (na, "buckets", buckets);
        json_object_array_add (nas, na);
    }
    json_object_object_add (o, "nodearrays", nas);
    if (with_nodes) {
        json_object *nodes = json_object_new_array_ext ((int)sim.nnodes);
        for (size_t i = 0; i < sim.nnodes; i++)
            json_object_array_add (nodes, sim_node_json (sim.nodes[i]));
        json_object_object_add (o, "nodes", nodes);
    }
    return o;
}
