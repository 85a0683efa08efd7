/* SPDX-License-Identifier: MIT */
/* status.c: the typed view of GET /clusters/{c}/status. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ccapi/status.h"
#include "util/json.h"
#include "util/log.h"

static void warn (struct ccas_status *st, const char *fmt, ...) __attribute__ ((format (printf, 2, 3)));
static void warn (struct ccas_status *st, const char *fmt, ...)
{
    char text[600];
    va_list ap;
    va_start (ap, fmt);
    vsnprintf (text, sizeof (text), fmt, ap);
    va_end (ap);
    ccas_log (LOG_WARNING, "%s", text);
    char **v = realloc (st->warnings, (st->nwarnings + 1) * sizeof (*v));
    if (!v)
        return;
    st->warnings = v;
    if ((v[st->nwarnings] = strdup (text)))
        st->nwarnings++;
}

/* An optional count: absent reads as -1 (not stated); a wrong type is an
 * error naming the path; a negative value is a warning and reads as 0, the
 * tightest a limit can be (`what` names the owner in the warning). */
static int get_count (struct ccas_status *st, json_object *obj, const char *path, const char *what,
                      const char *key, int64_t *out, struct ccas_error *err)
{
    *out = -1;
    json_object *v = ccas_json_get (obj, key);
    if (!v)
        return 0;
    if (json_object_is_type (v, json_type_double))
        *out = ccas_double_to_int64 (json_object_get_double (v)); /* some servers send 12.0 */
    else if (ccas_json_get_int (obj, path, key, out, err) < 0)
        return -1;
    if (*out < 0) {
        warn (st, "%s%s: %s: %lld is negative; read as 0", path, what ? what : "", key, (long long)*out);
        *out = 0;
    }
    return 0;
}

static int get_double (json_object *obj, const char *path, const char *key, double dflt, double *out,
                       struct ccas_error *err)
{
    *out = dflt;
    return ccas_json_get_double (obj, path, key, out, err) < 0 ? -1 : 0;
}

/* Dotted lookup in an open record: "Configuration.autoscale.enabled". */
static json_object *dig (json_object *obj, const char *a, const char *b, const char *c)
{
    obj = ccas_json_get (obj, a);
    if (b)
        obj = ccas_json_get (obj, b);
    if (c)
        obj = ccas_json_get (obj, c);
    return obj;
}

/* The VM a bucket makes.  Every field may be missing: the model fills what
 * it can from its table of Azure sizes (model/vmsizes.h), so absent or
 * negative counts read as 0 (unknown); a wrong type is an error. */
static int parse_vm (struct ccas_status *st, json_object *vm, const char *path, struct ccas_vm_info *out,
                     struct ccas_error *err)
{
    static const char *const keys[] = {"vcpuCount", "pcpuCount", "gpuCount"};
    int *fields[] = {&out->vcpu_count, &out->pcpu_count, &out->gpu_count};
    int64_t v;
    if (!vm)
        return 0;
    if (!json_object_is_type (vm, json_type_object))
        return ccas_errorf (err, "%s: expected an object, got %s", path,
                            json_object_to_json_string_ext (vm, JSON_C_TO_STRING_PLAIN));
    for (size_t i = 0; i < sizeof (keys) / sizeof (keys[0]); i++) {
        v = 0;
        if (ccas_json_get_int (vm, path, keys[i], &v, err) < 0) /* 0.5 of a vCPU is no count */
            return -1;
        if (v < 0)
            warn (st, "%s: %s: %lld is negative; read as unknown", path, keys[i], (long long)v);
        *fields[i] = (int)(v > 0 ? (v < 1000000 ? v : 1000000) : 0);
    }
    if (get_double (vm, path, "memory", 0, &out->memory_gb, err) < 0)
        return -1;
    if (out->memory_gb < 0) {
        warn (st, "%s: memory: %g is negative; read as unknown", path, out->memory_gb);
        out->memory_gb = 0;
    }
    out->infiniband = ccas_json_bool (vm, "infiniband", false);
    if (get_count (st, vm, path, NULL, "vcpuQuotaCount", &out->vcpu_quota_count, err) < 0)
        return -1;
    return 0;
}

static int parse_pgs (struct ccas_status *st, json_object *arr, const char *path,
                      struct ccas_bucket_status *b, struct ccas_error *err)
{
    if (!arr)
        return 0;
    if (!json_object_is_type (arr, json_type_array))
        return ccas_errorf (err, "%s: expected an array", path);
    size_t n = json_object_array_length (arr);
    if (!(b->pgs = calloc (n + 1, sizeof (*b->pgs))))
        return ccas_errorf (err, "out of memory");
    for (size_t i = 0; i < n; i++) {
        json_object *pg = json_object_array_get_idx (arr, i);
        char sub[512];
        snprintf (sub, sizeof (sub), "%s[%zu]", path, i);
        const char *name = ccas_json_str (pg, "name");
        if (!name)
            return ccas_errorf (err, "%s.name: missing", sub);
        b->pgs[b->npgs].name = name;
        if (get_count (st, pg, sub, NULL, "activeCount", &b->pgs[b->npgs].active_count, err) < 0 ||
            get_count (st, pg, sub, NULL, "activeCoreCount", &b->pgs[b->npgs].active_core_count, err) < 0)
            return -1;
        if (b->pgs[b->npgs].active_count < 0)
            b->pgs[b->npgs].active_count = 0;
        b->npgs++;
    }
    return 0;
}

static int parse_active_nodes (json_object *arr, struct ccas_bucket_status *b)
{
    if (!arr || !json_object_is_type (arr, json_type_array))
        return 0;
    size_t n = json_object_array_length (arr);
    if (!(b->active_nodes = calloc (n + 1, sizeof (*b->active_nodes))))
        return -1;
    for (size_t i = 0; i < n; i++) {
        const char *s = json_object_get_string (json_object_array_get_idx (arr, i));
        if (s)
            b->active_nodes[b->nactive_nodes++] = s;
    }
    return 0;
}

static const struct {
    const char *key;
    size_t offset;
} bucket_counts[] = {
#define C(k, f)                                                                                              \
    {                                                                                                        \
        k, offsetof (struct ccas_bucket_status, f)                                                           \
    }
    C ("maxCount", max_count),
    C ("maxCoreCount", max_core_count),
    C ("activeCount", active_count),
    C ("activeCoreCount", active_core_count),
    C ("availableCount", available_count),
    C ("availableCoreCount", available_core_count),
    C ("quotaCount", quota_count),
    C ("quotaCoreCount", quota_core_count),
    C ("consumedCoreCount", consumed_core_count),
    C ("familyQuotaCount", family_quota_count),
    C ("familyQuotaCoreCount", family_quota_core_count),
    C ("familyConsumedCoreCount", family_consumed_core_count),
    C ("regionalQuotaCount", regional_quota_count),
    C ("regionalQuotaCoreCount", regional_quota_core_count),
    C ("regionalConsumedCoreCount", regional_consumed_core_count),
    C ("maxPlacementGroupSize", max_pg_size),
    C ("maxPlacementGroupCoreSize", max_pg_core_size),
#undef C
};

/* Limits that contradict each other: a warning naming the bucket and the
 * fields.  The model reads every limit as stated, so the tightest wins. */
static void check_bucket (struct ccas_status *st, const char *path, const char *what,
                          const struct ccas_bucket_status *b)
{
    static const struct {
        const char *used, *max;
        size_t uoff, moff;
    } pairs[] = {
#define P(u, uf, m, mf)                                                                                      \
    {u, m, offsetof (struct ccas_bucket_status, uf), offsetof (struct ccas_bucket_status, mf)}
        P ("consumedCoreCount", consumed_core_count, "quotaCoreCount", quota_core_count),
        P ("familyConsumedCoreCount", family_consumed_core_count, "familyQuotaCoreCount",
           family_quota_core_count),
        P ("regionalConsumedCoreCount", regional_consumed_core_count, "regionalQuotaCoreCount",
           regional_quota_core_count),
        P ("availableCount", available_count, "maxCount", max_count),
        P ("availableCoreCount", available_core_count, "maxCoreCount", max_core_count),
        P ("activeCount", active_count, "maxCount", max_count),
        P ("activeCoreCount", active_core_count, "maxCoreCount", max_core_count),
#undef P
    };
    for (size_t i = 0; i < sizeof (pairs) / sizeof (pairs[0]); i++) {
        int64_t u = *(const int64_t *)((const char *)b + pairs[i].uoff);
        int64_t m = *(const int64_t *)((const char *)b + pairs[i].moff);
        if (u >= 0 && m >= 0 && u > m)
            warn (st, "%s%s: %s %lld is above %s %lld; nothing more is planned there", path, what,
                  pairs[i].used, (long long)u, pairs[i].max, (long long)m);
    }
    if (b->available_count >= 0 && b->max_count >= 0 && b->active_count >= 0 &&
        b->available_count > b->max_count - b->active_count && b->active_count <= b->max_count)
        warn (st, "%s%s: availableCount %lld is above maxCount %lld less activeCount %lld; the lower is used",
              path, what, (long long)b->available_count, (long long)b->max_count, (long long)b->active_count);
}

static int parse_bucket (struct ccas_status *st, json_object *bj, const char *path, const char *nodearray,
                         struct ccas_bucket_status *b, struct ccas_error *err)
{
    char sub[512], brief[64], what[300];
    if (!json_object_is_type (bj, json_type_object))
        return ccas_errorf (err, "%s: expected a bucket object, got %s", path,
                            ccas_json_brief (bj, brief, sizeof (brief)));
    b->raw = bj;
    b->bucket_id = ccas_json_str (bj, "bucketId");
    b->machine_type = ccas_json_str (ccas_json_get (bj, "definition"), "machineType");
    if (!b->machine_type)
        return ccas_errorf (err, "%s.definition.machineType: missing", path);
    snprintf (what, sizeof (what), " (%s/%s)", nodearray, b->machine_type);
    b->valid = ccas_json_bool (bj, "valid", true);
    b->invalid_reason = ccas_json_str (bj, "invalidReason");
    for (size_t i = 0; i < sizeof (bucket_counts) / sizeof (bucket_counts[0]); i++)
        if (get_count (st, bj, path, what, bucket_counts[i].key,
                       (int64_t *)((char *)b + bucket_counts[i].offset), err) < 0)
            return -1;
    if (get_double (bj, path, "lastCapacityFailure", -1, &b->last_capacity_failure, err) < 0)
        return -1;
    b->spot_placement_score = ccas_json_double (bj, "spotPlacementScore", -1);
    snprintf (sub, sizeof (sub), "%s.virtualMachine", path);
    if (parse_vm (st, ccas_json_get (bj, "virtualMachine"), sub, &b->vm, err) < 0)
        return -1;
    if (b->vm.vcpu_quota_count <= 0)
        b->vm.vcpu_quota_count = b->vm.vcpu_count;
    snprintf (sub, sizeof (sub), "%s.placementGroups", path);
    if (parse_pgs (st, ccas_json_get (bj, "placementGroups"), sub, b, err) < 0)
        return -1;
    if (parse_active_nodes (ccas_json_get (bj, "activeNodes"), b) < 0)
        return ccas_errorf (err, "out of memory");
    check_bucket (st, path, what, b);
    return 0;
}

/* Configuration slurm.hpc, nested or dotted: true or false, as a boolean or
 * the word (azslurm compares the text); anything else reads as unset. */
static int template_colocated (json_object *conf)
{
    json_object *v = ccas_json_get (ccas_json_get (conf, "slurm"), "hpc");
    if (!v)
        v = ccas_json_get (conf, "slurm.hpc");
    if (json_object_is_type (v, json_type_boolean))
        return json_object_get_boolean (v);
    if (json_object_is_type (v, json_type_string) && strcasecmp (json_object_get_string (v), "true") == 0)
        return 1;
    if (json_object_is_type (v, json_type_string) && strcasecmp (json_object_get_string (v), "false") == 0)
        return 0;
    return -1;
}

static void parse_nodearray_record (json_object *rec, struct ccas_nodearray_status *na)
{
    json_object *v;
    na->record = rec;
    na->region = ccas_json_str (rec, "Region");
    na->subnet_id = ccas_json_str (rec, "SubnetId");
    na->placement_group_id = ccas_json_str (rec, "PlacementGroupId");
    if (na->placement_group_id && !*na->placement_group_id)
        na->placement_group_id = NULL;
    na->priority = (int)ccas_json_int (rec, "Priority", 0);
    na->interruptible = ccas_json_bool (rec, "Interruptible", false);
    na->shutdown_policy = ccas_json_str (rec, "ShutdownPolicy");
    na->autoscale_enabled = true;
    if ((v = dig (rec, "Configuration", "autoscale", "enabled")))
        na->autoscale_enabled = json_object_get_boolean (v);
    na->template_colocated = template_colocated (ccas_json_get (rec, "Configuration"));
    na->max_scaleset_size = -1;
    if ((v = dig (rec, "Azure", "MaxScalesetSize", NULL)) ||
        (v = ccas_json_get (rec, "Azure.MaxScalesetSize")))
        na->max_scaleset_size = json_object_get_int64 (v);
}

static int parse_nodearray (struct ccas_status *st, json_object *nj, const char *path,
                            struct ccas_nodearray_status *na, struct ccas_error *err)
{
    char brief[64];
    if (!json_object_is_type (nj, json_type_object))
        return ccas_errorf (err, "%s: expected a nodearray object, got %s", path,
                            ccas_json_brief (nj, brief, sizeof (brief)));
    na->raw = nj;
    na->name = ccas_json_str (nj, "name");
    if (!na->name)
        return ccas_errorf (err, "%s.name: missing", path);
    char what[300];
    snprintf (what, sizeof (what), " (nodearray %s)", na->name);
    if (get_count (st, nj, path, what, "maxCount", &na->max_count, err) < 0 ||
        get_count (st, nj, path, what, "maxCoreCount", &na->max_core_count, err) < 0)
        return -1;
    parse_nodearray_record (ccas_json_get (nj, "nodearray"), na);
    json_object *buckets = ccas_json_get (nj, "buckets");
    if (!buckets)
        return 0;
    if (!json_object_is_type (buckets, json_type_array))
        return ccas_errorf (err, "%s.buckets: expected an array, got %s", path,
                            ccas_json_brief (buckets, brief, sizeof (brief)));
    size_t n = json_object_array_length (buckets);
    if (!(na->buckets = calloc (n + 1, sizeof (*na->buckets))))
        return ccas_errorf (err, "out of memory");
    na->nbuckets = n;
    for (size_t i = 0; i < n; i++) {
        char sub[512];
        snprintf (sub, sizeof (sub), "%s.buckets[%zu]", path, i);
        if (parse_bucket (st, json_object_array_get_idx (buckets, i), sub, na->name, &na->buckets[i], err) <
            0)
            return -1;
    }
    return 0;
}

struct ccas_status *ccas_status_from_json (json_object *root, const char *cluster, struct ccas_error *err)
{
    char brief[64];
    struct ccas_status *st = calloc (1, sizeof (*st));
    if (!st) {
        json_object_put (root);
        ccas_errorf (err, "out of memory");
        return NULL;
    }
    st->root = root;
    st->name = cluster;
    if (!json_object_is_type (root, json_type_object)) {
        ccas_errorf (err, "status: expected an object, got %s",
                     ccas_json_brief (root, brief, sizeof (brief)));
        goto error;
    }
    st->state = ccas_json_str (root, "state");
    st->target_state = ccas_json_str (root, "targetState");
    if (get_count (st, root, "status", NULL, "maxCount", &st->max_count, err) < 0 ||
        get_count (st, root, "status", NULL, "maxCoreCount", &st->max_core_count, err) < 0)
        goto error;
    json_object *nas = ccas_json_get (root, "nodearrays");
    if (!nas || !json_object_is_type (nas, json_type_array)) {
        ccas_errorf (err, "status: nodearrays: %s", nas ? "expected an array" : "missing");
        goto error;
    }
    size_t n = json_object_array_length (nas);
    if (!(st->nodearrays = calloc (n + 1, sizeof (*st->nodearrays)))) {
        ccas_errorf (err, "out of memory");
        goto error;
    }
    st->nnodearrays = n;
    for (size_t i = 0; i < n; i++) {
        char path[64];
        snprintf (path, sizeof (path), "status: nodearrays[%zu]", i);
        if (parse_nodearray (st, json_object_array_get_idx (nas, i), path, &st->nodearrays[i], err) < 0)
            goto error;
    }
    json_object *nodes = ccas_json_get (root, "nodes");
    if (nodes && json_object_is_type (nodes, json_type_array) &&
        ccas_record_parse_array (nodes, "status: nodes", &st->nodes, &st->nnodes, err) < 0)
        goto error;
    return st;
error:
    ccas_status_destroy (st);
    return NULL;
}

void ccas_status_destroy (struct ccas_status *st)
{
    if (!st)
        return;
    for (size_t i = 0; st->nodearrays && i < st->nnodearrays; i++) {
        for (size_t j = 0; st->nodearrays[i].buckets && j < st->nodearrays[i].nbuckets; j++) {
            free (st->nodearrays[i].buckets[j].pgs);
            free (st->nodearrays[i].buckets[j].active_nodes);
        }
        free (st->nodearrays[i].buckets);
    }
    free (st->nodearrays);
    free (st->nodes);
    for (size_t i = 0; i < st->nwarnings; i++)
        free (st->warnings[i]);
    free (st->warnings);
    json_object_put (st->root);
    free (st);
}

const char *ccas_status_not_started (const struct ccas_status *st, char *buf, size_t size)
{
    bool state_ok = !st->state || strcmp (st->state, "Started") == 0;
    bool target_ok = !st->target_state || strcmp (st->target_state, "Started") == 0;
    if (state_ok && target_ok)
        return NULL;
    const char *name = st->name ? st->name : "?";
    if (st->state && st->target_state)
        snprintf (buf, size, "cluster '%s' is %s (targetState %s)", name, st->state, st->target_state);
    else if (st->state)
        snprintf (buf, size, "cluster '%s' is %s", name, st->state);
    else
        snprintf (buf, size, "cluster '%s' has targetState %s", name, st->target_state);
    return buf;
}
