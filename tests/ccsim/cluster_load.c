/* SPDX-License-Identifier: MIT */
/* cluster_load.c: read CLUSTER.json (the shape of a status response) into ccsim's buckets. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/vmfamily.h"
#include "sim.h"
#include "util/error.h"
#include "util/json.h"

static int get_i64 (json_object *o, const char *path, const char *key, int64_t dflt, int64_t *out,
                    struct ccas_error *err)
{
    *out = dflt;
    json_object *v = ccas_json_get (o, key);
    if (v && json_object_is_type (v, json_type_double)) {
        *out = (int64_t)json_object_get_double (v);
        return 0;
    }
    return ccas_json_get_int (o, path, key, out, err) < 0 ? -1 : 0;
}

static int load_bucket (struct sim_bucket *b, struct sim_nodearray *na, json_object *bj, const char *path,
                        struct ccas_error *err)
{
    char sub[512];
    int64_t v;
    b->na = na;
    b->src = bj;
    const char *mt = ccas_json_str (ccas_json_get (bj, "definition"), "machineType");
    if (!mt)
        return ccas_errorf (err, "%s.definition.machineType: missing", path);
    b->machine_type = strdup (mt);
    const char *fam = ccas_json_str (bj, "family");
    if (fam)
        snprintf (b->family, sizeof (b->family), "%s", fam);
    else
        ccas_vmfamily_of (mt, b->family, sizeof (b->family));
    b->valid = ccas_json_bool (bj, "valid", true);
    json_object *vm = ccas_json_get (bj, "virtualMachine");
    snprintf (sub, sizeof (sub), "%s.virtualMachine", path);
    if (!vm)
        return ccas_errorf (err, "%s: missing", sub);
    if (ccas_json_get_int (vm, sub, "vcpuCount", &v, err) <= 0)
        return err->text[0] ? -1 : ccas_errorf (err, "%s.vcpuCount: missing", sub);
    if (v < 1)
        return ccas_errorf (err, "%s.vcpuCount: must be at least 1", sub);
    b->vcpu = (int)v;
    b->memory_gb = ccas_json_double (vm, "memory", 0);
    if (get_i64 (bj, path, "maxCount", -1, &b->max_count, err) < 0 ||
        get_i64 (bj, path, "maxCoreCount", -1, &b->max_core_count, err) < 0 ||
        get_i64 (bj, path, "quotaCoreCount", -1, &b->quota_core_count, err) < 0 ||
        get_i64 (bj, path, "familyQuotaCoreCount", -1, &b->family_quota_cores, err) < 0 ||
        get_i64 (bj, path, "familyConsumedCoreCount", 0, &b->family_base_consumed, err) < 0 ||
        get_i64 (bj, path, "consumedCoreCount", b->family_base_consumed, &b->quota_base_consumed, err) < 0 ||
        get_i64 (bj, path, "regionalQuotaCoreCount", -1, &b->regional_quota_cores, err) < 0 ||
        get_i64 (bj, path, "regionalConsumedCoreCount", 0, &b->regional_base_consumed, err) < 0 ||
        get_i64 (bj, path, "maxPlacementGroupSize", -1, &b->max_pg_size, err) < 0 ||
        get_i64 (bj, path, "maxPlacementGroupCoreSize", -1, &b->max_pg_core_size, err) < 0)
        return -1;
    /* the file states what CycleCloud would: limits are not negative, and
     * nothing is consumed above its quota */
    const struct {
        const char *key;
        int64_t v;
    } counts[] = {{"quotaCoreCount", b->quota_core_count},
                  {"consumedCoreCount", b->quota_base_consumed},
                  {"familyConsumedCoreCount", b->family_base_consumed},
                  {"regionalConsumedCoreCount", b->regional_base_consumed}};
    for (size_t i = 0; i < sizeof (counts) / sizeof (counts[0]); i++)
        if (counts[i].v < -1 || (counts[i].v < 0 && strstr (counts[i].key, "onsumed")))
            return ccas_errorf (err, "%s.%s: %lld is negative", path, counts[i].key, (long long)counts[i].v);
    json_object *rec = ccas_json_get (na->src, "nodearray");
    b->region = ccas_json_str (rec, "Region");
    if (!b->region)
        b->region = "";
    b->spot = ccas_json_bool (rec, "Interruptible", false);
    double lcf = ccas_json_double (bj, "lastCapacityFailure", -1);
    b->last_capacity_failure = lcf >= 0 ? sim_now () - lcf : -1;
    return 0;
}

static int load_nodearray (struct sim_nodearray *na, json_object *nj, const char *path, size_t *nb,
                           struct ccas_error *err)
{
    na->src = nj;
    const char *name = ccas_json_str (nj, "name");
    if (!name)
        return ccas_errorf (err, "%s.name: missing", path);
    na->name = strdup (name);
    if (get_i64 (nj, path, "maxCount", -1, &na->max_count, err) < 0 ||
        get_i64 (nj, path, "maxCoreCount", -1, &na->max_core_count, err) < 0)
        return -1;
    const char *policy = ccas_json_str (ccas_json_get (nj, "nodearray"), "ShutdownPolicy");
    na->shutdown_policy = strdup (policy ? policy : "Terminate");
    json_object *buckets = ccas_json_get (nj, "buckets");
    if (!buckets || !json_object_is_type (buckets, json_type_array))
        return ccas_errorf (err, "%s.buckets: expected an array", path);
    for (size_t i = 0; i < json_object_array_length (buckets); i++) {
        char sub[512];
        snprintf (sub, sizeof (sub), "%s.buckets[%zu]", path, i);
        if (load_bucket (&sim.buckets[*nb], na, json_object_array_get_idx (buckets, i), sub, err) < 0)
            return -1;
        (*nb)++;
    }
    return 0;
}

static int load_nodes (json_object *nodes, struct ccas_error *err)
{
    for (size_t i = 0; nodes && i < json_object_array_length (nodes); i++) {
        json_object *r = json_object_array_get_idx (nodes, i);
        char path[64];
        snprintf (path, sizeof (path), "nodes[%zu]", i);
        const char *name = ccas_json_str (r, "Name");
        const char *na = ccas_json_str (r, "Template");
        const char *mt = ccas_json_str (r, "MachineType");
        if (!name || !na)
            return ccas_errorf (err, "%s: Name and Template are required", path);
        struct sim_bucket *b = sim_bucket_find (na, mt);
        if (!b)
            return ccas_errorf (err, "%s: no bucket for nodearray '%s' machine type '%s'", path, na,
                                mt ? mt : "-");
        struct sim_node *n = sim_node_add (b, name, ccas_json_str (r, "PlacementGroupId"), NULL);
        if (!n)
            return ccas_errorf (err, "%s: duplicate or bad node", path);
        const char *status = ccas_json_str (r, "Status");
        n->keep_alive = ccas_json_bool (r, "KeepAlive", false);
        n->fixed = ccas_json_bool (r, "Fixed", false);
        if (!status || strcmp (status, "Ready") == 0) {
            /* existing nodes become Ready on the first tick (with an address,
             * and the ready hook run), as a saved cluster's would be */
            n->phase = PH_PREPARING;
            n->next = sim_now ();
        } else if (strcmp (status, "Deallocated") == 0)
            n->phase = PH_DEALLOCATED;
        else if (strcmp (status, "Failed") == 0)
            sim_node_fail (n, ccas_json_str (r, "StatusMessage"));
        else if (strcmp (status, "Off") == 0)
            n->phase = PH_OFF;
    }
    return 0;
}

int sim_load_cluster (const char *path, const char *name_override, char *errbuf, size_t errsize)
{
    struct ccas_error err = {""};
    json_object *root = ccas_json_load_file (path, (size_t)1 << 30, &err);
    size_t nb = 0, total = 0;
    if (!root)
        goto fail;
    if (!json_object_is_type (root, json_type_object)) {
        ccas_errorf (&err, "%s: expected a status object", path);
        goto fail;
    }
    sim.file = root;
    const char *name = name_override ? name_override : ccas_json_str (root, "clusterName");
    if (!name) {
        ccas_errorf (&err, "%s: clusterName: missing (or pass --name)", path);
        goto fail;
    }
    sim.cluster_name = strdup (name);
    sim.state = strdup (ccas_json_str (root, "state") ? ccas_json_str (root, "state") : "Started");
    sim.target_state =
        strdup (ccas_json_str (root, "targetState") ? ccas_json_str (root, "targetState") : "Started");
    if (get_i64 (root, "", "maxCount", -1, &sim.max_count, &err) < 0 ||
        get_i64 (root, "", "maxCoreCount", -1, &sim.max_core_count, &err) < 0)
        goto prefixed;
    json_object *nas = ccas_json_get (root, "nodearrays");
    if (!nas || !json_object_is_type (nas, json_type_array)) {
        ccas_errorf (&err, "nodearrays: expected an array");
        goto prefixed;
    }
    sim.nnas = json_object_array_length (nas);
    for (size_t i = 0; i < sim.nnas; i++)
        total += json_object_array_length (ccas_json_get (json_object_array_get_idx (nas, i), "buckets"));
    sim.nas = calloc (sim.nnas + 1, sizeof (*sim.nas));
    sim.buckets = calloc (total + 1, sizeof (*sim.buckets));
    for (size_t i = 0; i < sim.nnas; i++) {
        char sub[64];
        snprintf (sub, sizeof (sub), "nodearrays[%zu]", i);
        if (load_nodearray (&sim.nas[i], json_object_array_get_idx (nas, i), sub, &nb, &err) < 0)
            goto prefixed;
    }
    sim.nbuckets = nb;
    if (load_nodes (ccas_json_get (root, "nodes"), &err) < 0)
        goto prefixed;
    return 0;
prefixed:
    ccas_error_prefix (&err, "%s", path);
fail:
    snprintf (errbuf, errsize, "%s", err.text);
    return -1;
}

const char *sim_cluster_closed (char *buf, size_t size)
{
    if (strcmp (sim.state, "Started") == 0 && strcmp (sim.target_state, "Started") == 0)
        return NULL;
    snprintf (buf, size, "cluster %s is %s (targetState %s)", sim.cluster_name, sim.state, sim.target_state);
    return buf;
}
