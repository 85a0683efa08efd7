/* SPDX-License-Identifier: MIT */
/* targets.c: count each requested array's nodes, grow it to its target, decide autostops. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/targets.h"
#include "util/json.h"

/* ---- what a node is ------------------------------------------------------------------------- */

static bool node_going (const struct ccas_node *n)
{
    const char *t = n->target_state ? n->target_state : "", *s = n->status ? n->status : "";
    return strcmp (t, "Terminated") == 0 || strcmp (s, "Terminating") == 0 || strcmp (s, "Terminated") == 0;
}

/* Running or booting: what a target counts. */
static bool node_counted (const struct ccas_node *n)
{
    return (n->kind == CCAS_NODE_READY || n->kind == CCAS_NODE_BOOTING) && !n->boot_timed_out &&
           !node_going (n);
}

static int64_t node_cores (const struct ccas_node *n)
{
    return n->vcpu_count > 0 ? n->vcpu_count : 1;
}

static int64_t bucket_cores (const struct ccas_bucket *b)
{
    return b->template_node.vcpu_count > 0 ? b->template_node.vcpu_count : b->cores_per_vm;
}

static bool matches (const struct ccas_targets *t, const struct ccas_target_view *v,
                     const struct ccas_node *n)
{
    if (n->index >= t->cluster->nexisting || !n->nodearray || strcmp (n->nodearray, v->nodearray) != 0)
        return false;
    const char *arr = t->marker_array[n->index], *set = t->marker_set[n->index];
    if (!v->dynamic)
        return arr == NULL;
    return arr && set && strcmp (arr, v->name) == 0 && strcmp (set, v->set->name) == 0;
}

static bool same_array (const struct ccas_target_view *a, const struct ccas_target_view *b)
{
    if (a->dynamic != b->dynamic || strcmp (a->nodearray, b->nodearray) != 0)
        return false;
    return !a->dynamic || (a->set == b->set && strcmp (a->name, b->name) == 0);
}

/* Nodes a whole group of `v` holds in a bucket of `cores` per node. */
static int64_t group_size (const struct ccas_target_view *v, int64_t cores)
{
    if (!v->req || v->req->kind != CCAS_TARGET_GROUPS)
        return 1;
    if (v->req->group_nodes > 0)
        return v->req->group_nodes;
    return (v->req->group_cores + cores - 1) / (cores > 0 ? cores : 1);
}

int ccas_targets_replan_cb (void *arg, struct ccas_plan *plan, struct ccas_node *const *lost, size_t nlost,
                            struct ccas_error *err);

/* ---- building ------------------------------------------------------------------------------ */

static void read_markers (struct ccas_targets *t)
{
    const struct ccas_cluster *c = t->cluster;
    const struct ccas_record *recs = c->nodelist ? c->nodelist->nodes : c->status->nodes;
    size_t n = c->nodelist ? c->nodelist->nnodes : c->status->nnodes;
    for (size_t i = 0; i < n; i++) {
        const struct ccas_record *r = &recs[i];
        struct ccas_node *node = r->name ? ccas_cluster_find_node (c, r->name) : NULL;
        if (!node || node->index >= c->nexisting || !node->name || strcmp (node->name, r->name) != 0)
            continue;
        json_object *mark = ccas_json_get (ccas_json_get (r->raw, "Configuration"), "ccautoscale");
        t->marker_array[node->index] = ccas_json_str (mark, "array");
        t->marker_set[node->index] = ccas_json_str (mark, "request_set");
    }
}

/* {"Configuration": the array's, with its marks, and its other node
 * attributes (ImageName, ...)}: a new object, or NULL when a static array
 * sets nothing. */
static json_object *make_attributes (const struct ccas_target_view *v, const char *group_id)
{
    json_object *cfg = NULL, *attrs = NULL;
    if (!v->dynamic && !v->req->configuration && !v->req->attributes)
        return NULL;
    if (v->req->attributes && json_object_deep_copy (v->req->attributes, &attrs, NULL) < 0)
        return NULL;
    if (!attrs)
        attrs = json_object_new_object ();
    if (!v->dynamic && !v->req->configuration)
        return attrs; /* the nodearray's Configuration, unchanged */
    if (!v->req->configuration || json_object_deep_copy (v->req->configuration, &cfg, NULL) < 0)
        cfg = json_object_new_object ();
    if (v->dynamic) {
        json_object *mark = json_object_new_object ();
        json_object_object_add (mark, "array", json_object_new_string (v->name));
        json_object_object_add (mark, "request_set", json_object_new_string (v->set->name));
        json_object_object_add (cfg, "ccautoscale", mark);
    }
    if (group_id) {
        /* cyclecloud.node.group_id, as CycleCloud gives grouped nodes */
        json_object *cc = ccas_json_get (cfg, "cyclecloud"), *node = NULL;
        if (!json_object_is_type (cc, json_type_object)) {
            cc = json_object_new_object ();
            json_object_object_add (cfg, "cyclecloud", cc);
        }
        node = ccas_json_get (cc, "node");
        if (!json_object_is_type (node, json_type_object)) {
            node = json_object_new_object ();
            json_object_object_add (cc, "node", node);
        }
        json_object_object_add (node, "group_id", json_object_new_string (group_id));
    }
    json_object_object_add (attrs, "Configuration", cfg);
    return attrs;
}

static int tally_group (struct ccas_target_view *v, const struct ccas_node *n)
{
    const char *pg = n->placement_group ? n->placement_group : "";
    for (size_t i = 0; i < v->ngroups; i++)
        if (strcmp (v->groups[i].pg, pg) == 0) {
            v->groups[i].nodes++;
            return 0;
        }
    struct ccas_target_group *g = realloc (v->groups, (v->ngroups + 1) * sizeof (*g));
    if (!g)
        return -1;
    v->groups = g;
    g = &v->groups[v->ngroups++];
    g->pg = pg;
    g->nodes = 1;
    g->size = group_size (v, n->bucket ? bucket_cores (n->bucket) : node_cores (n));
    g->why_size = n->vm_size;
    return 0;
}

static void count_whole (struct ccas_target_view *v)
{
    v->whole_groups = 0;
    for (size_t i = 0; i < v->ngroups; i++)
        v->whole_groups += v->groups[i].pg[0] && v->groups[i].nodes >= v->groups[i].size;
}

static int count_view (struct ccas_targets *t, struct ccas_target_view *v)
{
    const struct ccas_cluster *c = t->cluster;
    for (size_t i = 0; i < c->nexisting; i++) {
        const struct ccas_node *n = c->nodes[i];
        if (!matches (t, v, n))
            continue;
        if (!node_going (n))
            v->present++;
        if (n->kind == CCAS_NODE_STOPPED)
            v->stopped++;
        else if (n->kind == CCAS_NODE_FAILED)
            v->failed++;
        if (!node_counted (n))
            continue;
        v->nodes++;
        v->cores += node_cores (n);
        if (v->req && v->req->kind == CCAS_TARGET_GROUPS && tally_group (v, n) < 0)
            return -1;
    }
    count_whole (v);
    return 0;
}

static struct ccas_target_view *add_view (struct ccas_targets *t, struct ccas_request_set *s,
                                          const char *name, const char *nodearray)
{
    struct ccas_target_view *v = &t->views[t->nviews];
    memset (v, 0, sizeof (*v));
    v->set = s;
    v->live = ccas_request_set_live (s, t->now);
    if (!(v->name = strdup (name)) || !(v->nodearray = strdup (nodearray))) {
        free ((char *)v->name);
        return NULL;
    }
    t->nviews++;
    return v;
}

struct ccas_targets *ccas_targets_create (struct ccas_cluster *c, struct ccas_request_set *const *sets,
                                          size_t nsets, double now, struct ccas_error *err)
{
    struct ccas_targets *t = calloc (1, sizeof (*t));
    size_t nviews = 0;
    for (size_t i = 0; i < nsets; i++)
        nviews += sets[i]->narrays + sets[i]->nremoving;
    if (!t || !(t->views = calloc (nviews + 1, sizeof (*t->views))) ||
        !(t->marker_array = calloc (c->nexisting + 1, sizeof (*t->marker_array))) ||
        !(t->marker_set = calloc (c->nexisting + 1, sizeof (*t->marker_set))) ||
        !(t->keep = json_object_new_array ()))
        goto nomem;
    t->cluster = c;
    t->now = now;
    read_markers (t);
    for (size_t i = 0; i < nsets; i++) {
        struct ccas_request_set *s = sets[i];
        for (size_t k = 0; k < s->narrays; k++) {
            struct ccas_target_view *v = add_view (t, s, s->arrays[k].name, s->arrays[k].nodearray);
            if (!v)
                goto nomem;
            v->req = &s->arrays[k];
            v->dynamic = v->req->dynamic;
            if (v->req->kind != CCAS_TARGET_GROUPS && !(v->attributes = make_attributes (v, NULL)) &&
                (v->dynamic || v->req->configuration || v->req->attributes))
                goto nomem;
        }
        for (size_t k = 0; k < s->nremoving; k++) {
            struct ccas_target_view *v = add_view (t, s, s->removing[k].name, s->removing[k].nodearray);
            if (!v)
                goto nomem;
            v->removing = true;
            v->dynamic = true;
            v->since = s->removing[k].since;
        }
    }
    for (size_t i = 0; i < t->nviews; i++)
        if (count_view (t, &t->views[i]) < 0)
            goto nomem;
    return t;
nomem:
    ccas_targets_destroy (t);
    ccas_errorf (err, "out of memory");
    return NULL;
}

void ccas_targets_destroy (struct ccas_targets *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->nviews; i++) {
        free ((char *)t->views[i].name);
        free ((char *)t->views[i].nodearray);
        free (t->views[i].groups);
        json_object_put (t->views[i].attributes);
    }
    free (t->views);
    free (t->marker_array);
    free (t->marker_set);
    json_object_put (t->keep);
    free (t->made_by);
    free (t);
}

/* ---- growing ---------------------------------------------------------------------------------- */

/* New node `n` was made for `v`. */
static int note_made (struct ccas_targets *t, const struct ccas_node *n, const struct ccas_target_view *v)
{
    size_t i = n->index - t->cluster->nexisting;
    if (i >= t->made_cap) {
        size_t cap = t->made_cap ? t->made_cap * 2 : 64;
        while (cap <= i)
            cap *= 2;
        int32_t *m = realloc (t->made_by, cap * sizeof (*m));
        if (!m)
            return -1;
        for (size_t k = t->made_cap; k < cap; k++)
            m[k] = -1;
        t->made_by = m;
        t->made_cap = cap;
    }
    t->made_by[i] = (int32_t)(v - t->views);
    return 0;
}

/* What the pass did for `v` counts for every view of the same array. */
static void add_planned (struct ccas_targets *t, const struct ccas_target_view *v, int64_t started,
                         int64_t made, int64_t cores, int64_t groups)
{
    for (size_t i = 0; i < t->nviews; i++) {
        struct ccas_target_view *o = &t->views[i];
        if (!same_array (o, v))
            continue;
        o->started += started;
        o->new_nodes += made;
        o->new_cores += cores;
        o->new_groups += groups;
    }
}

/* The buckets `v`'s nodes may be made in, in preference order; returns how many. */
static size_t candidates (const struct ccas_targets *t, const struct ccas_target_view *v,
                          struct ccas_bucket **out)
{
    struct ccas_cluster *c = t->cluster;
    size_t n = 0;
    json_object *mts = v->req ? v->req->machine_types : NULL;
    if (mts) {
        for (size_t i = 0; i < json_object_array_length (mts); i++) {
            struct ccas_bucket *b = ccas_cluster_bucket (
                c, v->nodearray, json_object_get_string (json_object_array_get_idx (mts, i)));
            if (b)
                out[n++] = b;
        }
        return n;
    }
    for (size_t i = 0; i < c->nbuckets; i++)
        if (strcmp (c->buckets[i].na->name, v->nodearray) == 0)
            out[n++] = &c->buckets[i];
    return n;
}

static void why_add (struct ccas_target_view *v, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

static void why_add (struct ccas_target_view *v, const char *fmt, ...)
{
    size_t len = strlen (v->why);
    va_list ap;
    if (len && len + 2 < sizeof (v->why)) {
        memcpy (v->why + len, "; ", 3);
        len += 2;
    }
    va_start (ap, fmt);
    vsnprintf (v->why + len, sizeof (v->why) - len, fmt, ap);
    va_end (ap);
}

static void explain_flat (const struct ccas_targets *t, struct ccas_target_view *v, struct ccas_bucket **cand,
                          size_t ncand)
{
    char why[300];
    if (t->cluster->closed) {
        why_add (v, "%s", t->cluster->closed);
        return;
    }
    if (!ncand)
        why_add (v, "nodearray '%s' has no machine type to create in", v->nodearray);
    for (size_t i = 0; i < ncand; i++) {
        ccas_bucket_available (cand[i], why, sizeof (why));
        why_add (v, "%s: %s", cand[i]->machine_type, why);
    }
}

/* Whether `v` may take `nodes` more nodes of `cores` cores each under its
 * MaxCount and MaxCoreCount (what it has and what this pass made count). */
static bool under_caps (const struct ccas_target_view *v, int64_t nodes, int64_t cores)
{
    const struct ccas_array_request *r = v->req;
    if (r->max_nodes >= 0 && v->nodes + v->started + v->new_nodes + nodes > r->max_nodes)
        return false;
    return r->max_cores < 0 || v->cores + v->new_cores + nodes * cores <= r->max_cores;
}

/* Why `v` stops short of its target by its caps, when it does. */
static void explain_caps (struct ccas_target_view *v)
{
    const struct ccas_array_request *r = v->req;
    if (r->max_nodes >= 0 && v->nodes + v->started + v->new_nodes >= r->max_nodes)
        why_add (v, "MaxCount %lld reached", (long long)r->max_nodes);
    else if (r->max_cores >= 0)
        why_add (v, "MaxCoreCount %lld: %lld cores, no room for another node", (long long)r->max_cores,
                 (long long)v->cores + (long long)v->new_cores);
}

static int grow_flat (struct ccas_targets *t, struct ccas_target_view *v)
{
    struct ccas_cluster *c = t->cluster;
    struct ccas_bucket **cand = calloc (c->nbuckets + 1, sizeof (*cand));
    if (!cand)
        return -1;
    size_t ncand = candidates (t, v, cand);
    const struct ccas_array_request *r = v->req;
    int64_t need_nodes =
        r->kind == CCAS_TARGET_NODES ? r->target - (v->nodes + v->started + v->new_nodes) : 0;
    int64_t need_cores = r->kind == CCAS_TARGET_CORES ? r->target - (v->cores + v->new_cores) : 0;
    /* deallocated nodes of the array first: they count once they run (and
     * never in a cluster that is not Started: every bucket says why) */
    for (size_t i = 0; !c->closed && i < c->nexisting && (need_nodes > 0 || need_cores > 0); i++) {
        struct ccas_node *n = c->nodes[i];
        if (n->kind != CCAS_NODE_STOPPED || !ccas_node_usable (n) || n->matched || !matches (t, v, n) ||
            !under_caps (v, 1, node_cores (n)))
            continue;
        n->njobs = 1;
        n->matched = true;
        add_planned (t, v, 1, 0, node_cores (n), 0);
        need_nodes--;
        need_cores -= node_cores (n);
    }
    bool capped = false;
    for (size_t i = 0; i < ncand && (need_nodes > 0 || need_cores > 0); i++) {
        struct ccas_node *n;
        while ((need_nodes > 0 || need_cores > 0) && !(capped = !under_caps (v, 1, bucket_cores (cand[i]))) &&
               (n = ccas_cluster_new_node (c, cand[i], NULL, NULL))) {
            n->create_attributes = v->attributes;
            if (note_made (t, n, v) < 0) {
                free (cand);
                return -1;
            }
            add_planned (t, v, 0, 1, bucket_cores (cand[i]), 0);
            need_nodes--;
            need_cores -= bucket_cores (cand[i]);
        }
    }
    if (need_nodes > 0 || need_cores > 0) {
        v->short_by = need_nodes > 0 ? need_nodes : need_cores;
        if (capped)
            explain_caps (v);
        else
            explain_flat (t, v, cand, ncand);
    }
    free (cand);
    return 0;
}

/* One new placement group of `size` nodes in bucket `b`, whole or not at all. */
static bool make_group (struct ccas_targets *t, struct ccas_target_view *v, struct ccas_bucket *b,
                        int64_t size)
{
    struct ccas_cluster *c = t->cluster;
    struct ccas_undo *undo = ccas_undo_create ();
    struct ccas_pg *pg = undo ? ccas_pg_get (c, b, NULL, undo) : NULL;
    json_object *attrs = pg ? make_attributes (v, pg->name) : NULL;
    int64_t k = 0;
    while (attrs && k < size && ccas_cluster_new_node (c, b, pg, undo))
        k++;
    if (k < size) {
        ccas_undo_rollback (undo, 0);
        ccas_undo_destroy (undo);
        json_object_put (attrs);
        return false;
    }
    ccas_undo_destroy (undo);
    json_object_array_add (t->keep, attrs);
    for (size_t i = c->nnodes - (size_t)size; i < c->nnodes; i++) {
        c->nodes[i]->create_attributes = attrs;
        (void)note_made (t, c->nodes[i], v); /* out of memory: only a fallback would miss it */
    }
    add_planned (t, v, 0, size, size * bucket_cores (b), 1);
    return true;
}

static void explain_groups (const struct ccas_targets *t, struct ccas_target_view *v,
                            struct ccas_bucket **cand, size_t ncand)
{
    char why[300];
    if (t->cluster->closed) {
        why_add (v, "%s", t->cluster->closed);
        return;
    }
    if (!ncand)
        why_add (v, "nodearray '%s' has no machine type to create in", v->nodearray);
    for (size_t i = 0; i < ncand; i++) {
        int64_t size = group_size (v, bucket_cores (cand[i]));
        int64_t room = ccas_bucket_available (cand[i], why, sizeof (why));
        if (ccas_pg_too_small (cand[i], size))
            why_add (v, "%s: a placement group holds at most %lld nodes (%s), a group needs %lld",
                     cand[i]->machine_type, (long long)cand[i]->max_pg_size, cand[i]->pg_limit,
                     (long long)size);
        else if (room == 0)
            why_add (v, "%s: %s", cand[i]->machine_type, why);
        else
            why_add (v, "%s: room for %lld more nodes, a group needs %lld", cand[i]->machine_type,
                     (long long)room, (long long)size);
    }
}

static int grow_groups (struct ccas_targets *t, struct ccas_target_view *v)
{
    struct ccas_bucket **cand = calloc (t->cluster->nbuckets + 1, sizeof (*cand));
    if (!cand)
        return -1;
    size_t ncand = candidates (t, v, cand);
    int64_t need = v->req->target - (v->whole_groups + v->new_groups);
    bool capped = false;
    for (; need > 0; need--) {
        bool made = false;
        /* each group is of one machine type: the first in order with room for all of it */
        for (size_t i = 0; i < ncand && !made; i++) {
            int64_t size = group_size (v, bucket_cores (cand[i]));
            if (!under_caps (v, size, bucket_cores (cand[i])))
                capped = true;
            else if (ccas_pg_room (cand[i], NULL, CCAS_PG_WITH_BUCKET) >= size)
                made = make_group (t, v, cand[i], size);
        }
        if (!made)
            break;
    }
    if (need > 0) {
        v->short_by = need;
        if (capped)
            explain_caps (v);
        explain_groups (t, v, cand, ncand);
    }
    free (cand);
    return 0;
}

int ccas_targets_grow (struct ccas_targets *t, struct ccas_error *err)
{
    int nshort = 0, rc = 0;
    for (size_t i = 0; i < t->nviews && rc == 0; i++) {
        struct ccas_target_view *v = &t->views[i];
        if (!v->req || !v->live)
            continue;
        if (v->req->kind == CCAS_TARGET_NODES || v->req->kind == CCAS_TARGET_CORES)
            rc = grow_flat (t, v);
        else if (v->req->kind == CCAS_TARGET_GROUPS)
            rc = grow_groups (t, v);
        nshort += v->short_by > 0;
    }
    if (rc < 0)
        return ccas_errorf (err, "out of memory");
    return nshort;
}

struct ccas_plan *ccas_targets_plan (struct ccas_targets *t, struct ccas_error *err)
{
    struct ccas_plan *plan = ccas_plan_create (t->cluster, NULL, err);
    if (plan) {
        plan->replan = ccas_targets_replan_cb;
        plan->replan_arg = t;
    }
    return plan;
}

/* Whether `pg` was seen already (else it is added to seen[]). */
static bool seen_pg (const struct ccas_pg **seen, size_t *n, const struct ccas_pg *pg)
{
    for (size_t i = 0; i < *n; i++)
        if (seen[i] == pg)
            return true;
    seen[(*n)++] = pg;
    return false;
}

int ccas_targets_replan (struct ccas_targets *t, struct ccas_node *const *lost, size_t nlost,
                         struct ccas_error *err)
{
    bool *again = calloc (t->nviews + 1, sizeof (*again));
    const struct ccas_pg **seen = calloc (nlost + 1, sizeof (*seen));
    size_t nseen = 0;
    int rc = 0;
    if (!again || !seen) {
        rc = -1;
        goto done;
    }
    for (size_t i = 0; i < nlost; i++) {
        const struct ccas_node *n = lost[i];
        size_t k = n->index - t->cluster->nexisting;
        if (n->index < t->cluster->nexisting || k >= t->made_cap || t->made_by[k] < 0)
            continue;
        struct ccas_target_view *v = &t->views[t->made_by[k]];
        bool group = n->pg && v->req && v->req->kind == CCAS_TARGET_GROUPS;
        add_planned (t, v, 0, -1, -bucket_cores (n->bucket),
                     group && !seen_pg (seen, &nseen, n->pg) ? -1 : 0);
        again[t->made_by[k]] = true;
    }
    for (size_t i = 0; i < t->nviews && rc == 0; i++) {
        struct ccas_target_view *v = &t->views[i];
        if (!again[i])
            continue;
        v->short_by = 0;
        v->why[0] = '\0';
        rc = v->req->kind == CCAS_TARGET_GROUPS ? grow_groups (t, v) : grow_flat (t, v);
    }
done:
    free (again);
    free (seen);
    return rc < 0 ? ccas_errorf (err, "out of memory") : 0;
}

int ccas_targets_replan_cb (void *arg, struct ccas_plan *plan, struct ccas_node *const *lost, size_t nlost,
                            struct ccas_error *err)
{
    (void)plan;
    return ccas_targets_replan (arg, lost, nlost, err);
}

/* ---- autostop ---------------------------------------------------------------------------------- */

static void decide (struct ccas_autostop *out, enum ccas_autostop_decision d, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));

static void decide (struct ccas_autostop *out, enum ccas_autostop_decision d, const char *fmt, ...)
{
    va_list ap;
    out->decision = d;
    va_start (ap, fmt);
    vsnprintf (out->reason, sizeof (out->reason), fmt, ap);
    va_end (ap);
}

/* Does `v` stay at its target without `n`?  If not, why in `why`. */
static bool holds_without (const struct ccas_target_view *v, const struct ccas_node *n, char *why,
                           size_t size)
{
    const struct ccas_array_request *r = v->req;
    long long target = (long long)r->target;
    switch (r->kind) {
    case CCAS_TARGET_NODES:
        snprintf (why, size, "array '%s' of request set '%s' wants %lld node%s and has %lld", v->name,
                  v->set->name, target, target == 1 ? "" : "s", (long long)v->nodes);
        return v->nodes - 1 >= r->target;
    case CCAS_TARGET_CORES:
        snprintf (why, size,
                  "array '%s' of request set '%s' wants %lld cores and has %lld (this node holds %lld)",
                  v->name, v->set->name, target, (long long)v->cores, (long long)node_cores (n));
        return v->cores - node_cores (n) >= r->target;
    case CCAS_TARGET_GROUPS: {
        const char *pg = n->placement_group ? n->placement_group : "";
        int64_t others = v->whole_groups;
        for (size_t i = 0; i < v->ngroups; i++)
            if (strcmp (v->groups[i].pg, pg) == 0 && pg[0] && v->groups[i].nodes >= v->groups[i].size)
                others--;
        snprintf (
            why, size,
            "array '%s' of request set '%s' wants %lld group%s; without this node's it keeps %lld whole",
            v->name, v->set->name, target, target == 1 ? "" : "s", (long long)others);
        return others >= r->target;
    }
    case CCAS_TARGET_NONE:
        break;
    }
    snprintf (why, size, "array '%s' of request set '%s' has no target", v->name, v->set->name);
    return true;
}

static void autostop_dynamic (const struct ccas_targets *t, const struct ccas_node *n, const char *arr,
                              const char *set, struct ccas_autostop *out)
{
    char why[400];
    const struct ccas_target_view *v = NULL;
    for (size_t i = 0; i < t->nviews && !v; i++)
        if (matches (t, &t->views[i], n) && t->views[i].dynamic)
            v = &t->views[i];
    out->array = arr;
    out->request_set = set;
    if (!v)
        return decide (out, CCAS_AUTOSTOP_GRANTED, "dynamic array '%s' of request set '%s' is not requested",
                       arr, set ? set : "?");
    if (v->removing)
        return decide (
            out, CCAS_AUTOSTOP_GRANTED,
            "dynamic array '%s' of request set '%s' is no longer requested (it dropped out %.0f s ago)", arr,
            set, t->now - v->since);
    if (!v->live)
        return decide (out, CCAS_AUTOSTOP_GRANTED, "the request of set '%s' expired %.0f s ago", set,
                       t->now - (v->set->time + v->set->expiration));
    if (!node_counted (n))
        return decide (out, CCAS_AUTOSTOP_GRANTED, "it does not count toward array '%s' (it is %s)", arr,
                       n->status ? n->status : "not running");
    bool ok = holds_without (v, n, why, sizeof (why));
    decide (out, ok ? CCAS_AUTOSTOP_GRANTED : CCAS_AUTOSTOP_REFUSED, "%s", why);
}

static void autostop_static (const struct ccas_targets *t, const struct ccas_node *n,
                             struct ccas_autostop *out)
{
    char why[400], held[400] = "";
    size_t holders = 0;
    out->array = n->nodearray;
    for (size_t i = 0; i < t->nviews; i++) {
        const struct ccas_target_view *v = &t->views[i];
        if (v->dynamic || !v->live || !v->req || v->req->kind == CCAS_TARGET_NONE ||
            strcmp (v->nodearray, n->nodearray) != 0)
            continue;
        holders++;
        if (!node_counted (n))
            continue;
        if (!holds_without (v, n, why, sizeof (why))) {
            out->request_set = v->set->name;
            return decide (out, CCAS_AUTOSTOP_REFUSED, "%s", why);
        }
        size_t len = strlen (held);
        snprintf (held + len, sizeof (held) - len, "%s%s", len ? "; " : "", why);
    }
    if (!holders)
        return decide (out, CCAS_AUTOSTOP_GRANTED, "no live request asks for nodes of nodearray '%s'",
                       n->nodearray);
    if (!node_counted (n))
        return decide (out, CCAS_AUTOSTOP_GRANTED, "it does not count toward nodearray '%s' (it is %s)",
                       n->nodearray, n->status ? n->status : "not running");
    decide (out, CCAS_AUTOSTOP_GRANTED, "above every live target without it: %s", held);
}

void ccas_targets_autostop (const struct ccas_targets *t, const struct ccas_node *n,
                            struct ccas_autostop *out)
{
    memset (out, 0, sizeof (*out));
    if (n->index >= t->cluster->nexisting || !n->nodearray)
        return decide (out, CCAS_AUTOSTOP_REFUSED, "not a node of the cluster's nodearrays");
    if (node_going (n))
        return decide (out, CCAS_AUTOSTOP_GOING, "already on its way out (%s)",
                       n->status ? n->status : "Terminating");
    if (n->keep_alive)
        return decide (out, CCAS_AUTOSTOP_REFUSED,
                       "KeepAlive is set on it: it is never stopped for want of demand");
    const char *arr = t->marker_array[n->index];
    if (arr)
        return autostop_dynamic (t, n, arr, t->marker_set[n->index], out);
    autostop_static (t, n, out);
}

void ccas_targets_node_gone (struct ccas_targets *t, const struct ccas_node *n)
{
    for (size_t i = 0; i < t->nviews; i++) {
        struct ccas_target_view *v = &t->views[i];
        if (!matches (t, v, n))
            continue;
        if (!node_going (n) && v->present > 0)
            v->present--;
        if (!node_counted (n))
            continue;
        v->nodes--;
        v->cores -= node_cores (n);
        const char *pg = n->placement_group ? n->placement_group : "";
        for (size_t k = 0; k < v->ngroups; k++)
            if (strcmp (v->groups[k].pg, pg) == 0)
                v->groups[k].nodes--;
        count_whole (v);
    }
}

int ccas_targets_forget (struct ccas_targets *t)
{
    int n = 0;
    for (size_t i = 0; i < t->nviews; i++) {
        struct ccas_target_view *v = &t->views[i];
        if (v->removing && v->present == 0)
            n += ccas_request_set_forget (v->set, v->name, v->nodearray);
    }
    return n;
}

const char *ccas_targets_marker (const struct ccas_targets *t, const struct ccas_node *n, const char **set)
{
    bool ok = n->index < t->cluster->nexisting;
    if (set)
        *set = ok ? t->marker_set[n->index] : NULL;
    return ok ? t->marker_array[n->index] : NULL;
}

/* ---- JSON ----------------------------------------------------------------------------------- */

json_object *ccas_target_view_to_json (const struct ccas_target_view *v)
{
    json_object *o = json_object_new_object ();
    const struct ccas_array_request *r = v->req;
    json_object_object_add (o, "request_set", json_object_new_string (v->set->name));
    json_object_object_add (o, "name", json_object_new_string (v->name));
    json_object_object_add (o, "nodearray", json_object_new_string (v->nodearray));
    json_object_object_add (o, "dynamic", json_object_new_boolean (v->dynamic));
    json_object_object_add (o, "removing", json_object_new_boolean (v->removing));
    if (v->removing)
        json_object_object_add (o, "removing_since", json_object_new_double (v->since));
    json_object_object_add (o, "live", json_object_new_boolean (v->live));
    if (r) {
        json_object_object_add (o, "requested", json_object_new_string (r->requested));
        json_object_object_add (o, "kind", json_object_new_string (ccas_target_kind_name (r->kind)));
        json_object_object_add (o, "target", json_object_new_int64 (r->target));
        if (r->group_cores > 0)
            json_object_object_add (o, "group_cores", json_object_new_int64 (r->group_cores));
        if (r->group_nodes > 0)
            json_object_object_add (o, "group_nodes", json_object_new_int64 (r->group_nodes));
        if (r->machine_types)
            json_object_object_add (o, "machine_types", json_object_get (r->machine_types));
        if (r->configuration)
            json_object_object_add (o, "configuration", json_object_get (r->configuration));
        if (r->attributes)
            json_object_object_add (o, "attributes", json_object_get (r->attributes));
        if (r->max_nodes >= 0)
            json_object_object_add (o, "max_nodes", json_object_new_int64 (r->max_nodes));
        if (r->max_cores >= 0)
            json_object_object_add (o, "max_cores", json_object_new_int64 (r->max_cores));
        if (r->standalone)
            json_object_object_add (o, "standalone", json_object_new_boolean (true));
    }
    json_object_object_add (o, "nodes", json_object_new_int64 (v->nodes));
    json_object_object_add (o, "cores", json_object_new_int64 (v->cores));
    if (r && r->kind == CCAS_TARGET_GROUPS)
        json_object_object_add (o, "whole_groups", json_object_new_int64 (v->whole_groups));
    json_object_object_add (o, "stopped", json_object_new_int64 (v->stopped));
    json_object_object_add (o, "failed", json_object_new_int64 (v->failed));
    json_object_object_add (o, "present", json_object_new_int64 (v->present));
    json_object_object_add (o, "started", json_object_new_int64 (v->started));
    json_object_object_add (o, "new_nodes", json_object_new_int64 (v->new_nodes));
    json_object_object_add (o, "new_cores", json_object_new_int64 (v->new_cores));
    if (r && r->kind == CCAS_TARGET_GROUPS)
        json_object_object_add (o, "new_groups", json_object_new_int64 (v->new_groups));
    json_object_object_add (o, "short", json_object_new_int64 (v->short_by));
    if (v->why[0])
        json_object_object_add (o, "why", json_object_new_string (v->why));
    return o;
}
