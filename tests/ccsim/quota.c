/* SPDX-License-Identifier: MIT */
/* quota.c: how many more nodes a bucket may take — bucket, nodearray, cluster, family and region. */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "sim.h"

struct sim_bucket *sim_bucket_find (const char *nodearray, const char *machine_type)
{
    for (size_t i = 0; i < sim.nbuckets; i++) {
        struct sim_bucket *b = &sim.buckets[i];
        if (strcmp (b->na->name, nodearray) != 0)
            continue;
        if (!machine_type ? b->valid : strcasecmp (b->machine_type, machine_type) == 0)
            return b;
    }
    return NULL;
}

struct sim_nodearray *sim_nodearray_find (const char *name)
{
    for (size_t i = 0; i < sim.nnas; i++)
        if (strcmp (sim.nas[i].name, name) == 0)
            return &sim.nas[i];
    return NULL;
}

int64_t sim_bucket_active (const struct sim_bucket *b)
{
    int64_t n = 0;
    for (size_t i = 0; i < sim.nnodes; i++)
        n += sim.nodes[i]->bucket == b && sim_node_active (sim.nodes[i]);
    return n;
}

int64_t sim_pg_active (const struct sim_bucket *b, const char *pg)
{
    int64_t n = 0;
    for (size_t i = 0; i < sim.nnodes; i++) {
        const struct sim_node *x = sim.nodes[i];
        n += x->bucket == b && x->pg && strcmp (x->pg, pg) == 0 && sim_node_active (x);
    }
    return n;
}

static bool same_region (const struct sim_bucket *a, const struct sim_bucket *b)
{
    return strcmp (a->region, b->region) == 0;
}

struct usage {
    int64_t bucket_nodes, na_nodes, na_cores, cluster_nodes, cluster_cores, family_cores, regional_cores;
};

static void usage_of (const struct sim_bucket *b, struct usage *u)
{
    memset (u, 0, sizeof (*u));
    for (size_t i = 0; i < sim.nnodes; i++) {
        const struct sim_node *n = sim.nodes[i];
        const struct sim_bucket *nb = n->bucket;
        if (!sim_node_active (n))
            continue;
        int64_t cores = nb->vcpu;
        u->cluster_nodes++;
        u->cluster_cores += cores;
        if (same_region (nb, b) && nb->spot == b->spot)
            u->regional_cores += cores;
        if (nb == b)
            u->bucket_nodes++;
        if (nb->na == b->na) {
            u->na_nodes++;
            u->na_cores += cores;
        }
        if (!b->spot && !nb->spot && same_region (nb, b) && strcmp (nb->family, b->family) == 0)
            u->family_cores += cores;
    }
}

int64_t sim_family_consumed (const struct sim_bucket *b)
{
    struct usage u;
    if (b->spot)
        return 0;
    usage_of (b, &u);
    return b->family_base_consumed + u.family_cores;
}

int64_t sim_quota_consumed (const struct sim_bucket *b)
{
    struct usage u;
    if (b->spot)
        return 0;
    usage_of (b, &u);
    return b->quota_base_consumed + u.family_cores;
}

int64_t sim_regional_consumed (const struct sim_bucket *b)
{
    struct usage u;
    usage_of (b, &u);
    return b->regional_base_consumed + u.regional_cores;
}

/* Take the tighter of `*best` and `left`, remembering why. */
static void limit (int64_t left, const char *what, int64_t *best, const char **why)
{
    if (left < 0)
        left = 0;
    if (left < *best) {
        *best = left;
        *why = what;
    }
}

int64_t sim_bucket_available (const struct sim_bucket *b, char *why, size_t whysize)
{
    struct usage u;
    int64_t best = INT64_MAX;
    const char *reason = NULL;
    char text[256], rtext[256];
    if (!b->valid) {
        if (why)
            snprintf (why, whysize, "bucket %s/%s is not valid", b->na->name, b->machine_type);
        return 0;
    }
    usage_of (b, &u);
    if (b->max_count >= 0)
        limit (b->max_count - u.bucket_nodes, "the bucket's maxCount", &best, &reason);
    if (b->max_core_count >= 0)
        limit ((b->max_core_count - u.bucket_nodes * b->vcpu) / b->vcpu, "the bucket's maxCoreCount", &best,
               &reason);
    if (b->na->max_count >= 0)
        limit (b->na->max_count - u.na_nodes, "the nodearray's maxCount", &best, &reason);
    if (b->na->max_core_count >= 0)
        limit ((b->na->max_core_count - u.na_cores) / b->vcpu, "the nodearray's maxCoreCount", &best,
               &reason);
    if (sim.max_count >= 0)
        limit (sim.max_count - u.cluster_nodes, "the cluster's maxCount", &best, &reason);
    if (sim.max_core_count >= 0)
        limit ((sim.max_core_count - u.cluster_cores) / b->vcpu, "the cluster's maxCoreCount", &best,
               &reason);
    if (!b->spot && b->quota_core_count >= 0)
        limit ((b->quota_core_count - b->quota_base_consumed - u.family_cores) / b->vcpu,
               "the subscription quota (quotaCoreCount)", &best, &reason);
    if (!b->spot && b->family_quota_cores >= 0) {
        snprintf (text, sizeof (text), "the %s family quota (%lld cores)", b->family,
                  (long long)b->family_quota_cores);
        limit ((b->family_quota_cores - b->family_base_consumed - u.family_cores) / b->vcpu, text, &best,
               &reason);
    }
    if (b->regional_quota_cores >= 0) {
        snprintf (rtext, sizeof (rtext), "the %sregional quota", b->spot ? "spot " : "");
        limit ((b->regional_quota_cores - b->regional_base_consumed - u.regional_cores) / b->vcpu, rtext,
               &best, &reason);
    }
    if (why) {
        if (reason)
            snprintf (why, whysize, "%s limit reached", reason);
        else
            why[0] = '\0';
    }
    return best;
}

struct sim_bucket *sim_bucket_first_fit (const char *nodearray, int64_t count)
{
    struct sim_bucket *first = NULL;
    for (size_t i = 0; i < sim.nbuckets; i++) {
        struct sim_bucket *b = &sim.buckets[i];
        if (strcmp (b->na->name, nodearray) != 0 || !b->valid)
            continue;
        if (!first)
            first = b;
        if (sim_bucket_available (b, NULL, 0) >= count)
            return b;
    }
    return first;
}
