/* SPDX-License-Identifier: MIT */
/* cluster.c: build the model from status + nodes + config; buckets, limits, new nodes
 * (their placement groups: pg.c). */
#include "config.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "model/cluster.h"
#include "model/vmfamily.h"
#include "model/vmsizes.h"
#include "util/arena.h"
#include "util/json.h"
#include "util/log.h"
#include "util/units.h"

#define ARENA(c) ((struct ccas_arena *)(c)->arena)

static int64_t min64 (int64_t a, int64_t b)
{
    return a < b ? a : b;
}

/* ---- nodearrays and buckets ---------------------------------------------------- */

/* nodearrays.NAME.colocated, else the template's slurm.hpc, else the
 * nodearray's PlacementGroupId; -1 when none says (then each bucket's
 * InfiniBand decides). */
static int nodearray_colocated (const struct ccas_config *cfg, const struct ccas_nodearray_status *st)
{
    const struct ccas_nodearray_config *set = ccas_conf_nodearray (cfg, st->name);
    if (set && set->colocated >= 0)
        return set->colocated;
    if (st->template_colocated >= 0)
        return st->template_colocated;
    if (st->placement_group_id)
        return 1;
    return -1;
}

static void init_nodearray (struct ccas_cluster *c, struct ccas_nodearray *na,
                            const struct ccas_nodearray_status *st)
{
    const struct ccas_nodearray_config *set = ccas_conf_nodearray (c->cfg, st->name);
    int64_t active = 0, active_cores = 0;
    na->name = st->name;
    na->st = st;
    na->priority = st->priority;
    if (set && !isnan (set->priority))
        na->priority = (int)set->priority;
    /* a nodearray the cluster does not autoscale (Microsoft's templates mark the
     * login nodes so) takes no new nodes unless the configuration says otherwise */
    na->enabled = st->autoscale_enabled;
    if (set && set->enabled >= 0)
        na->enabled = set->enabled;
    for (size_t i = 0; i < st->nbuckets; i++) {
        active += st->buckets[i].active_count > 0 ? st->buckets[i].active_count : 0;
        active_cores += st->buckets[i].active_core_count > 0 ? st->buckets[i].active_core_count : 0;
    }
    na->limit.what = ccas_arena_printf (ARENA (c), "nodearray %s limit", st->name);
    na->limit.nodes = ccas_limit_left (st->max_count, active);
    na->limit.cores = ccas_limit_left (st->max_core_count, active_cores);
}

/* Where the configuration lists machine types for a nodearray, that order wins. */
static int machine_type_rank (const struct ccas_config *cfg, const char *nodearray, const char *mt)
{
    const struct ccas_nodearray_config *set = ccas_conf_nodearray (cfg, nodearray);
    json_object *list = set ? set->machine_types : NULL;
    if (!list)
        return 0;
    for (size_t i = 0; i < json_object_array_length (list); i++)
        if (strcasecmp (json_object_get_string (json_object_array_get_idx (list, i)), mt) == 0)
            return (int)i;
    return (int)json_object_array_length (list);
}

/* InfiniBand as the status states it, else as the table of sizes knows it. */
static bool bucket_infiniband (const struct ccas_bucket_status *bs)
{
    const struct ccas_vmsize *known = ccas_vmsizes_find (bs->machine_type);
    if (ccas_json_get (ccas_json_get (bs->raw, "virtualMachine"), "infiniband"))
        return bs->vm.infiniband;
    return known && known->rdma;
}

/* The VM a new node of `b` would be: what the status states, the built-in
 * table of sizes filling what it leaves out (the higher GPU count wins). */
static void init_template (struct ccas_cluster *c, struct ccas_bucket *b)
{
    struct ccas_node *t = &b->template_node;
    const struct ccas_bucket_status *st = b->st;
    const struct ccas_vmsize *known = ccas_vmsizes_find (b->machine_type);
    t->kind = CCAS_NODE_NEW;
    t->nodearray = b->na->name;
    t->vm_size = b->machine_type;
    t->vm_family = ccas_vmsizes_family (b->machine_type);
    t->bucket_id = st->bucket_id;
    t->location = b->na->st->region;
    t->vcpu_count = st->vm.vcpu_count > 0 ? st->vm.vcpu_count : known ? known->vcpus : 0;
    t->pcpu_count = st->vm.pcpu_count > 0 ? st->vm.pcpu_count : t->vcpu_count;
    t->cores_per_socket = t->pcpu_count;
    t->gpu_count = ccas_vmsizes_gpus (b->machine_type, st->vm.gpu_count, c->cfg->gpu_counts);
    t->memory = (st->vm.memory_gb > 0 ? st->vm.memory_gb : known ? known->memory_gb : 0) * CCAS_GIB;
    t->infiniband = bucket_infiniband (st);
    t->spot = b->na->st->interruptible;
    t->managed = true;
    t->capfail_age = st->last_capacity_failure;
    t->software_configuration = ccas_json_get (b->na->st->record, "Configuration");
    t->bucket = b;
    t->colocated = b->colocated;
    t->index = UINT32_MAX - b->order; /* a name of its own for node.hostname_or_uuid */
    t->last_job = -1;
}

static int cmp_bucket (const void *pa, const void *pb)
{
    const struct ccas_bucket *a = pa, *b = pb;
    if (a->na->priority != b->na->priority)
        return a->na->priority > b->na->priority ? -1 : 1;
    return a->order < b->order ? -1 : a->order > b->order;
}

static void *arena_cb (void *arg, size_t size)
{
    return ccas_arena_alloc (arg, size);
}

/* A shared pool: one per `kind` and `scope` (region, family ...). */
static struct ccas_limit *shared_limit (struct ccas_cluster *c, const char *kind, const char *region,
                                        const char *family, const char *what)
{
    char key[512];
    snprintf (key, sizeof (key), "%s\x1f%s\x1f%s", kind, region ? region : "", family ? family : "");
    return ccas_limits_get (c->limits, key, what);
}

static void add_limit (struct ccas_bucket *b, struct ccas_limit *l)
{
    if (l && b->nlimits < CCAS_BUCKET_MAX_LIMITS)
        b->limits[b->nlimits++] = l;
}

/* A stated instance count caps the bucket's own count: `count` instances less
 * the ones `consumed` cores already are. */
static void cap_by_count (struct ccas_bucket *b, int64_t count, int64_t consumed)
{
    if (count < 0)
        return;
    int64_t used = consumed > 0 ? (consumed + b->cores_per_vm - 1) / b->cores_per_vm : 0;
    b->available = min64 (b->available, ccas_limit_left (count, used));
}

/* The bucket's own count: availableCount, and what its other own counts allow. */
static void init_own_count (struct ccas_bucket *b)
{
    const struct ccas_bucket_status *st = b->st;
    b->available = st->available_count >= 0 ? st->available_count : CCAS_UNLIMITED;
    if (st->available_core_count >= 0)
        b->available = min64 (b->available, st->available_core_count / b->cores_per_vm);
    b->available = min64 (b->available, ccas_limit_left (st->max_count, st->active_count));
    if (st->max_core_count >= 0)
        b->available =
            min64 (b->available, ccas_limit_left (st->max_core_count,
                                                  st->active_core_count >= 0 ? st->active_core_count : 0) /
                                     b->cores_per_vm);
}

/* The pools the bucket draws on, narrowest first.  On-demand buckets share
 * quotaCoreCount and the family quota with the buckets of their family in
 * their region; a spot bucket's family quota reads 0 (Azure counts spot
 * cores against the region's spot quota instead), so as in scalelib it
 * draws on its region's spot quota and never on the on-demand family's. */
static int init_limits (struct ccas_cluster *c, struct ccas_bucket *b)
{
    const struct ccas_bucket_status *st = b->st;
    const char *region = b->na->st->region;
    const char *in = region ? " in " : "", *rname = region ? region : "";
    const char *kind = b->spot ? "spot" : "ondemand";
    char what[400];

    b->nlimits = 0;
    /* a spot bucket's quota fields read 0 as its family's do: not a limit */
    bool quota_stated = st->quota_core_count >= 0 && !(b->spot && st->quota_core_count == 0);
    if (!(b->spot && st->quota_count == 0))
        cap_by_count (b, st->quota_count, st->consumed_core_count);
    if (quota_stated) {
        snprintf (what, sizeof (what), "%squotaCoreCount of %s%s%s", b->spot ? "spot " : "", b->family, in,
                  rname);
        struct ccas_limit *q = shared_limit (c, b->spot ? "spotquota" : "quota", region, b->family, what);
        if (!q)
            return -1;
        ccas_limit_tighten (q, CCAS_UNLIMITED,
                            ccas_limit_left (st->quota_core_count, st->consumed_core_count));
        add_limit (b, q);
    }
    if (!b->spot && st->family_quota_core_count >= 0) {
        snprintf (what, sizeof (what), "family quota %s%s%s", b->family, in, rname);
        struct ccas_limit *f = shared_limit (c, "family", region, b->family, what);
        if (!f)
            return -1;
        ccas_limit_tighten (f, CCAS_UNLIMITED,
                            ccas_limit_left (st->family_quota_core_count, st->family_consumed_core_count));
        cap_by_count (b, st->family_quota_count, st->family_consumed_core_count);
        add_limit (b, f);
    }
    add_limit (b, &b->na->limit);
    snprintf (what, sizeof (what), "%sregional quota%s%s", b->spot ? "spot " : "", in, rname);
    struct ccas_limit *r = shared_limit (c, kind, region, NULL, what);
    if (!r)
        return -1;
    if (st->regional_quota_core_count >= 0) {
        ccas_limit_tighten (
            r, CCAS_UNLIMITED,
            ccas_limit_left (st->regional_quota_core_count, st->regional_consumed_core_count));
        cap_by_count (b, st->regional_quota_count, st->regional_consumed_core_count);
    }
    add_limit (b, r);
    add_limit (b, &c->cluster_limit);
    return 0;
}

static int init_bucket (struct ccas_cluster *c, struct ccas_bucket *b, struct ccas_nodearray *na,
                        const struct ccas_bucket_status *bs, int na_colocated)
{
    char family[128];
    const struct ccas_vmsize *known = ccas_vmsizes_find (bs->machine_type);
    int vcpus = bs->vm.vcpu_count > 0 ? bs->vm.vcpu_count : known ? known->vcpus : 0;
    b->na = na;
    b->st = bs;
    b->machine_type = bs->machine_type;
    b->family = ccas_arena_strdup (ARENA (c), ccas_vmfamily_of (bs->machine_type, family, sizeof (family)));
    b->spot = na->st->interruptible;
    b->cores_per_vm = bs->vm.vcpu_quota_count > 0 ? bs->vm.vcpu_quota_count : vcpus;
    if (b->cores_per_vm <= 0) {
        b->cores_per_vm = 1;
        b->hold_reason = ccas_arena_printf (ARENA (c),
                                            "virtualMachine.vcpuCount not stated, and %s is not in the "
                                            "built-in table of sizes",
                                            bs->machine_type);
        ccas_log (LOG_WARNING, "bucket %s/%s: %s; no nodes are made there", na->name, bs->machine_type,
                  b->hold_reason);
    }
    if (na_colocated >= 0)
        b->colocated = na_colocated;
    else
        b->colocated = bucket_infiniband (bs);
    na->colocated = na->colocated || b->colocated;
    init_own_count (b);
    ccas_pg_size_bucket (c, b);
    return init_limits (c, b);
}

static int build_buckets (struct ccas_cluster *c, struct ccas_error *err)
{
    const struct ccas_status *st = c->status;
    size_t nb = 0, k = 0;
    int64_t active = 0, active_cores = 0;

    for (size_t i = 0; i < st->nnodearrays; i++)
        nb += st->nodearrays[i].nbuckets;
    c->nodearrays = ccas_arena_alloc (ARENA (c), (st->nnodearrays + 1) * sizeof (*c->nodearrays));
    c->buckets = ccas_arena_alloc (ARENA (c), (nb + 1) * sizeof (*c->buckets));
    if (!c->nodearrays || !c->buckets)
        return ccas_errorf (err, "out of memory");
    c->nnodearrays = st->nnodearrays;
    for (size_t i = 0; i < st->nnodearrays; i++)
        for (size_t j = 0; j < st->nodearrays[i].nbuckets; j++) {
            active +=
                st->nodearrays[i].buckets[j].active_count > 0 ? st->nodearrays[i].buckets[j].active_count : 0;
            active_cores += st->nodearrays[i].buckets[j].active_core_count > 0
                                ? st->nodearrays[i].buckets[j].active_core_count
                                : 0;
        }
    c->cluster_limit = (struct ccas_limit){"cluster limit", ccas_limit_left (st->max_count, active),
                                           ccas_limit_left (st->max_core_count, active_cores)};
    for (size_t i = 0; i < st->nnodearrays; i++) {
        const struct ccas_nodearray_status *nas = &st->nodearrays[i];
        int na_colocated = nodearray_colocated (c->cfg, nas);
        init_nodearray (c, &c->nodearrays[i], nas);
        for (size_t j = 0; j < nas->nbuckets; j++, k++) {
            struct ccas_bucket *b = &c->buckets[k];
            if (init_bucket (c, b, &c->nodearrays[i], &nas->buckets[j], na_colocated) < 0)
                return ccas_errorf (err, "out of memory");
            b->order =
                (uint32_t)(i * 1000000 +
                           machine_type_rank (c->cfg, nas->name, nas->buckets[j].machine_type) * 1000 + j);
        }
    }
    c->nbuckets = nb;
    qsort (c->buckets, nb, sizeof (*c->buckets), cmp_bucket);
    for (size_t i = 0; i < nb; i++) {
        struct ccas_bucket *b = &c->buckets[i];
        b->order = (uint32_t)i;
        init_template (c, b);
        if (ccas_resources_apply (c->rules, &b->template_node, arena_cb, ARENA (c)) < 0 ||
            ccas_pg_load_status (c, b) < 0)
            return ccas_errorf (err, "out of memory");
    }
    return 0;
}

/* ---- existing nodes ------------------------------------------------------------- */

static enum ccas_node_kind node_kind (const struct ccas_record *r)
{
    const char *s = r->status ? r->status : "";
    const char *t = r->target_state ? r->target_state : "";
    if (ccas_record_is_failed (r))
        return CCAS_NODE_FAILED;
    if (strcmp (t, "Terminated") == 0 || strcmp (s, "Terminating") == 0 || strcmp (s, "Terminated") == 0)
        return CCAS_NODE_GOING;
    if (strcmp (s, "Deallocated") == 0 || strcmp (t, "Deallocated") == 0 || strcmp (s, "Off") == 0)
        return CCAS_NODE_STOPPED;
    if (strcmp (s, "Deallocating") == 0)
        return CCAS_NODE_GOING;
    if (ccas_record_is_ready (r))
        return CCAS_NODE_READY;
    return CCAS_NODE_BOOTING;
}

static void node_from_record (struct ccas_cluster *c, struct ccas_node *n, const struct ccas_record *r)
{
    struct ccas_bucket *b = ccas_cluster_bucket (c, r->nodearray, r->machine_type);
    if (b)
        *n = b->template_node; /* sizes and properties of the bucket */
    else {
        const struct ccas_vmsize *known = ccas_vmsizes_find (r->machine_type);
        memset (n, 0, sizeof (*n));
        n->vcpu_count = r->core_count > 0 ? r->core_count : known ? known->vcpus : 0;
        n->pcpu_count = n->vcpu_count;
        n->memory = (r->memory_gb > 0 ? r->memory_gb : known ? known->memory_gb : 0) * CCAS_GIB;
        n->gpu_count = ccas_vmsizes_gpus (r->machine_type, 0, c->cfg->gpu_counts);
        n->infiniband = known && known->rdma;
        n->nodearray = r->nodearray;
        n->vm_size = r->machine_type;
        n->vm_family = ccas_vmsizes_family (r->machine_type);
    }
    n->res = NULL;
    n->avail = NULL;
    n->nres = 0;
    n->name = r->name;
    n->hostname = r->hostname;
    n->node_id = r->node_id;
    n->instance_id = r->instance_id;
    n->private_ip = r->private_ip;
    n->status = r->status;
    n->state = r->state;
    n->target_state = r->target_state;
    n->status_message = r->status_message;
    n->placement_group = r->placement_group_id;
    n->keep_alive = r->keep_alive;
    n->spot = r->interruptible || n->spot;
    n->colocated = r->placement_group_id != NULL;
    n->create_time = c->now; /* until the node times say when it was first seen */
    if (r->raw && ccas_json_get (r->raw, "Configuration"))
        n->software_configuration = ccas_json_get (r->raw, "Configuration");
    if (r->region)
        n->location = r->region;
    n->kind = node_kind (r);
    n->managed = true;
    n->capfail_age = -1;
    n->bucket = b;
    n->last_job = -1;
    if (b && n->placement_group)
        n->pg = ccas_pg_get (c, b, n->placement_group, NULL);
}

static int kind_order (enum ccas_node_kind k)
{
    switch (k) {
    case CCAS_NODE_READY:
        return 0;
    case CCAS_NODE_BOOTING:
        return 1;
    case CCAS_NODE_STOPPED:
        return 2;
    case CCAS_NODE_NEW:
        return 3;
    case CCAS_NODE_FAILED:
        return 4;
    case CCAS_NODE_GOING:
        return 5;
    }
    return 6;
}

static int cmp_node (const void *pa, const void *pb)
{
    const struct ccas_node *a = *(struct ccas_node *const *)pa, *b = *(struct ccas_node *const *)pb;
    int ka = kind_order (a->kind), kb = kind_order (b->kind);
    if (ka != kb)
        return ka - kb;
    uint32_t oa = a->bucket ? a->bucket->order : UINT32_MAX, ob = b->bucket ? b->bucket->order : UINT32_MAX;
    if (oa != ob)
        return oa < ob ? -1 : 1;
    return strcmp (a->name ? a->name : "", b->name ? b->name : "");
}

static void lower (const char *s, char *buf, size_t size)
{
    size_t i = 0;
    for (; s[i] && i + 1 < size; i++)
        buf[i] = (char)tolower ((unsigned char)s[i]);
    buf[i] = '\0';
}

/* First node of a name wins, as a linear search in node order would. */
static int index_one (struct ccas_resdict *d, struct ccas_node **v, const char *key, struct ccas_node *n)
{
    size_t before = ccas_resdict_count (d);
    int id = ccas_resdict_intern (d, key);
    if (id < 0)
        return -1;
    if ((size_t)id == before)
        v[id] = n;
    return 0;
}

static int index_nodes (struct ccas_cluster *c, struct ccas_error *err)
{
    char host[256];
    if (!(c->names = ccas_resdict_create ()) || !(c->hosts = ccas_resdict_create ()) ||
        !(c->by_name = calloc (c->nexisting + 1, sizeof (*c->by_name))) ||
        !(c->by_host = calloc (c->nexisting + 1, sizeof (*c->by_host))))
        return ccas_errorf (err, "out of memory");
    for (size_t i = 0; i < c->nexisting; i++) {
        struct ccas_node *n = c->nodes[i];
        if (n->name && index_one (c->names, c->by_name, n->name, n) < 0)
            return ccas_errorf (err, "out of memory");
        if (n->hostname) {
            lower (n->hostname, host, sizeof (host));
            if (index_one (c->hosts, c->by_host, host, n) < 0)
                return ccas_errorf (err, "out of memory");
        }
    }
    return 0;
}

static int build_nodes (struct ccas_cluster *c, struct ccas_error *err)
{
    /* a nodes response wins; else the nodes a status?nodes=true carried */
    const struct ccas_record *recs = c->nodelist ? c->nodelist->nodes : c->status->nodes;
    size_t n = c->nodelist ? c->nodelist->nnodes : c->status->nnodes;
    c->nodecap = n + 64;
    if (!(c->nodes = calloc (c->nodecap, sizeof (*c->nodes))))
        return ccas_errorf (err, "out of memory");
    struct ccas_node *pool = n ? ccas_arena_alloc (ARENA (c), n * sizeof (*pool)) : NULL;
    if (n && !pool)
        return ccas_errorf (err, "out of memory");
    for (size_t i = 0; i < n; i++) {
        const struct ccas_record *r = &recs[i];
        if (!r->name)
            continue;
        node_from_record (c, &pool[i], r);
        if (ccas_resources_apply (c->rules, &pool[i], arena_cb, ARENA (c)) < 0)
            return ccas_errorf (err, "out of memory");
        c->nodes[c->nnodes++] = &pool[i];
    }
    qsort (c->nodes, c->nnodes, sizeof (*c->nodes), cmp_node);
    for (size_t i = 0; i < c->nnodes; i++) {
        struct ccas_node *node = c->nodes[i];
        node->index = (uint32_t)i;
        if (node->pg && ccas_pg_add_existing (c, node) < 0)
            return ccas_errorf (err, "out of memory");
    }
    c->nexisting = c->nnodes;
    return index_nodes (c, err);
}

/* ---- create / destroy ------------------------------------------------------------- */

static int build_engines (struct ccas_cluster *c, struct ccas_error *err)
{
    const struct ccas_config *cfg = c->cfg;
    c->arena = ccas_arena_create ();
    c->dict = ccas_resdict_create ();
    c->shared = ccas_shared_create ();
    c->limits = ccas_limits_create ();
    if (!c->arena || !c->dict || !c->shared || !c->limits)
        return ccas_errorf (err, "out of memory");
    if (ccas_shared_load (c->shared, cfg->shared_resources, "shared_resources", err) < 0)
        return -1;
    if (!(c->cons = ccas_constraint_cache_create (c->dict, c->shared)))
        return ccas_errorf (err, "out of memory");
    c->rules = ccas_resources_compile (cfg->default_resources, !cfg->disable_default_resources, c->cons,
                                       c->dict, "default_resources", err);
    return c->rules ? 0 : -1;
}

/* A cluster that is not Started takes no node: every bucket says why. */
static int judge_state (struct ccas_cluster *c, struct ccas_error *err)
{
    char why[300];
    if (!ccas_status_not_started (c->status, why, sizeof (why)))
        return 0;
    if (!(c->closed =
              ccas_arena_printf (ARENA (c), "%s: nothing is created or started until it is Started", why)))
        return ccas_errorf (err, "out of memory");
    for (size_t i = 0; i < c->nbuckets; i++)
        c->buckets[i].hold_reason = c->closed;
    ccas_log (LOG_NOTICE, "%s", c->closed);
    return 0;
}

struct ccas_cluster *ccas_cluster_create (const struct ccas_config *cfg, struct ccas_status *status,
                                          struct ccas_record_list *nodes, struct ccas_error *err)
{
    struct ccas_cluster *c = calloc (1, sizeof (*c));
    if (!c) {
        ccas_status_destroy (status);
        ccas_record_list_destroy (nodes);
        ccas_errorf (err, "out of memory");
        return NULL;
    }
    c->cfg = cfg;
    c->status = status;
    c->nodelist = nodes;
    c->now = (double)time (NULL);
    if (build_engines (c, err) < 0 || build_buckets (c, err) < 0 || judge_state (c, err) < 0 ||
        build_nodes (c, err) < 0) {
        ccas_cluster_destroy (c);
        return NULL;
    }
    return c;
}

void ccas_cluster_destroy (struct ccas_cluster *c)
{
    if (!c)
        return;
    ccas_pg_release (c);
    free (c->nodes);
    free (c->by_name);
    free (c->by_host);
    ccas_resdict_destroy (c->names);
    ccas_resdict_destroy (c->hosts);
    ccas_limits_destroy (c->limits);
    ccas_resources_destroy (c->rules);
    ccas_constraint_cache_destroy (c->cons);
    ccas_shared_destroy (c->shared);
    ccas_resdict_destroy (c->dict);
    ccas_arena_destroy (c->arena);
    ccas_record_list_destroy (c->nodelist);
    ccas_status_destroy (c->status);
    free (c);
}

/* ---- queries -------------------------------------------------------------------------- */

struct ccas_bucket *ccas_cluster_bucket (const struct ccas_cluster *c, const char *nodearray,
                                         const char *machine_type)
{
    if (!nodearray || !machine_type)
        return NULL;
    for (size_t i = 0; i < c->nbuckets; i++)
        if (strcmp (c->buckets[i].na->name, nodearray) == 0 &&
            strcasecmp (c->buckets[i].machine_type, machine_type) == 0)
            return &c->buckets[i];
    return NULL;
}

struct ccas_node *ccas_cluster_find_node (const struct ccas_cluster *c, const char *name)
{
    char host[256];
    int id = ccas_resdict_find (c->names, name);
    if (id >= 0)
        return c->by_name[id];
    lower (name, host, sizeof (host));
    id = ccas_resdict_find (c->hosts, host);
    return id >= 0 ? c->by_host[id] : NULL;
}

/* The server said 0 and our limits do not say why: read its counts. */
static void explain_server_zero (const struct ccas_bucket *b, char *why, size_t whysize)
{
    const struct ccas_bucket_status *st = b->st;
    const char *cause = NULL;
    if (st->max_count >= 0 && st->active_count >= st->max_count)
        cause = "bucket maxCount";
    else if (st->quota_count == 0 || (st->quota_core_count == 0 && !b->spot))
        cause = "quota";
    else if (st->last_capacity_failure >= 0)
        cause = "recent capacity failure";
    if (cause)
        snprintf (why, whysize, "availableCount 0 (%s)", cause);
    else
        snprintf (why, whysize, "availableCount 0");
}

int64_t ccas_bucket_available (const struct ccas_bucket *b, char *why, size_t whysize)
{
    const struct ccas_limit *which = NULL;
    int64_t m = CCAS_UNLIMITED;

    if (b->hold_reason) {
        if (why)
            snprintf (why, whysize, "%s", b->hold_reason);
        return 0;
    }
    if (!b->st->valid) {
        if (why)
            snprintf (why, whysize, "bucket not valid: %s",
                      b->st->invalid_reason ? b->st->invalid_reason : "no reason given");
        return 0;
    }
    if (!b->na->enabled) {
        if (why)
            snprintf (why, whysize, "%s",
                      b->na->st->autoscale_enabled
                          ? "nodearray disabled in the configuration"
                          : "nodearray not autoscaled (its Configuration.autoscale.enabled is false)");
        return 0;
    }
    /* narrower limits first: on a tie the narrower one explains better */
    for (unsigned i = 0; i < b->nlimits; i++) {
        int64_t n = ccas_limit_count (b->limits[i], b->cores_per_vm);
        if (n < m) {
            m = n;
            which = b->limits[i];
        }
    }
    int64_t n = min64 (b->available, m);
    if (n <= 0) {
        if (why && which && m <= 0) {
            char text[400];
            snprintf (why, whysize, "availableCount 0 (%s)",
                      ccas_limit_explain (which, b->cores_per_vm, text, sizeof (text)));
        } else if (why)
            explain_server_zero (b, why, whysize);
        return 0;
    }
    return n;
}

int64_t ccas_cluster_room (struct ccas_bucket *const *buckets, size_t n)
{
    struct ccas_limit_draw *d = calloc (n + 1, sizeof (*d));
    if (!d)
        return -1;
    for (size_t i = 0; i < n; i++) {
        const struct ccas_bucket *b = buckets[i];
        d[i] = (struct ccas_limit_draw){
            .own = ccas_bucket_available (b, NULL, 0) > 0 ? b->available : 0,
            .cores_per_vm = b->cores_per_vm,
            .limits = b->limits,
            .nlimits = b->nlimits,
        };
    }
    int64_t room = ccas_limits_room (d, n);
    free (d);
    return room;
}

int ccas_cluster_hold (struct ccas_cluster *c, struct ccas_bucket *b, const char *reason)
{
    if (c->closed)
        return 0; /* it already takes nothing, and says why the cluster is closed */
    char *r = ccas_arena_strdup (ARENA (c), reason);
    if (!r)
        return -1;
    b->hold_reason = r;
    return 0;
}

/* ---- new nodes ------------------------------------------------------------------------ */

static void pop_node (void *arg)
{
    struct ccas_cluster *c = arg;
    c->nnodes--;
}

static bool grow_nodes (struct ccas_cluster *c)
{
    if (c->nnodes < c->nodecap)
        return true;
    size_t cap = c->nodecap * 2;
    struct ccas_node **v = realloc (c->nodes, cap * sizeof (*v));
    if (!v)
        return false;
    memset (v + c->nodecap, 0, (cap - c->nodecap) * sizeof (*v));
    c->nodes = v;
    c->nodecap = cap;
    return true;
}

struct ccas_node *ccas_cluster_new_node (struct ccas_cluster *c, struct ccas_bucket *b, struct ccas_pg *pg,
                                         struct ccas_undo *undo)
{
    if (ccas_bucket_available (b, NULL, 0) < 1 || (pg && ccas_pg_room (b, pg, CCAS_PG_ALONE) < 1) ||
        !grow_nodes (c))
        return NULL;
    const struct ccas_node *t = &b->template_node;
    /* a node a rollback dropped (still in the slot past nnodes), or a new one */
    struct ccas_node *n = c->nodes[c->nnodes];
    double *avail = n ? n->avail : NULL;
    uint32_t availcap = n ? n->nres : 0;
    if (!n && !(n = ccas_arena_alloc (ARENA (c), sizeof (*n))))
        return NULL;
    *n = *t; /* what the node has (res) is the template's, shared: nothing changes it */
    n->avail = avail;
    if (t->nres > availcap && !(n->avail = ccas_arena_alloc (ARENA (c), t->nres * sizeof (*n->avail)))) {
        c->nodes[c->nnodes] = NULL;
        return NULL;
    }
    if (t->nres)
        memcpy (n->avail, t->avail, t->nres * sizeof (*n->avail));
    n->pg = pg;
    n->placement_group = pg ? pg->name : NULL;
    n->colocated = pg != NULL || b->colocated;
    n->index = (uint32_t)c->nnodes;
    n->last_job = -1;

    if (b->available != CCAS_UNLIMITED) {
        ccas_undo_i64 (undo, &b->available);
        b->available--;
    }
    ccas_undo_u32 (undo, &b->new_nodes);
    b->new_nodes++;
    for (unsigned i = 0; i < b->nlimits; i++)
        ccas_limit_take (b->limits[i], b->cores_per_vm, undo);
    if (pg && ccas_pg_add_new (c, pg, n, undo) < 0)
        return NULL; /* everything charged above is undone by the caller's rollback */
    c->nodes[c->nnodes++] = n;
    ccas_undo_call (undo, pop_node, c);
    return n;
}

void ccas_cluster_drop_node (struct ccas_cluster *c, struct ccas_node *n)
{
    struct ccas_bucket *b = n->bucket;
    (void)c;
    if (n->kind != CCAS_NODE_NEW || !b)
        return;
    if (b->available != CCAS_UNLIMITED)
        b->available++;
    if (b->new_nodes > 0)
        b->new_nodes--;
    for (unsigned i = 0; i < b->nlimits; i++)
        ccas_limit_give (b->limits[i], b->cores_per_vm);
    n->kind = CCAS_NODE_GOING;
}

void ccas_node_use (struct ccas_cluster *c, struct ccas_node *n, const char *name, double amount)
{
    int id = ccas_resdict_find (c->dict, name);
    if (id < 0 || (uint32_t)id >= n->nres || n->res[id].type != CCAS_V_NUM)
        return;
    n->avail[id] -= amount;
}

const char *ccas_node_label (const struct ccas_node *n, char *buf, size_t size)
{
    if (n->kind != CCAS_NODE_NEW && n->name)
        snprintf (buf, size, "%s", n->name);
    else
        snprintf (buf, size, "new %s/%s%s%s", n->nodearray ? n->nodearray : "?",
                  n->vm_size ? n->vm_size : "?", n->placement_group ? " in " : "",
                  n->placement_group ? n->placement_group : "");
    return buf;
}

char *ccas_cluster_strdup (struct ccas_cluster *c, const char *s)
{
    return ccas_arena_strdup (ARENA (c), s);
}
