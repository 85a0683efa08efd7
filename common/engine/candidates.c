/* SPDX-License-Identifier: MIT */
/* candidates.c: the matching engine's indexes over nodes, group members and groups. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/candidates.h"
#include "model/resdict.h"

/* A placement group's member index (by pg->id in its bucket's table). */
struct pgroom {
    struct ccas_candidates *x;
    const struct ccas_bucket *b;
    uint32_t id;
    struct ccas_roomidx *members; /* over b->pgs[id]->members */
    int32_t refreshed;            /* the commit that last updated it */
};

/* The nodes of one bucket (or of none), in node order, and their index: a
 * constraint that only a few buckets can meet looks at their nodes alone. */
struct nodelist {
    struct ccas_candidates *x;
    uint32_t *v; /* node indexes, rising */
    uint32_t n, cap;
    struct ccas_roomidx *idx; /* over v */
};

/* A bucket's group index, and its nodes. */
struct bucketroom {
    struct ccas_candidates *x;
    const struct ccas_bucket *b;
    struct ccas_roomidx *pgs; /* over b->pgs */
    struct pgroom **v;        /* by pg->id */
    size_t cap;
    struct nodelist nodes;
};

/* A constraint that some buckets, at most this many, can meet is looked for in
 * their own node indexes (one query each), not in the index of all nodes
 * (where nodes of other buckets with room make subtrees look promising). */
#define FEW_BUCKETS 8

struct shape_need {
    struct ccas_room_need need;
    bool ready;
};

struct ccas_candidates {
    struct ccas_cluster *c;
    bool exhaustive;
    int32_t commits;                /* jobs placed so far: a stamp for commit() */
    int tracked[CCAS_ROOM_NRES];    /* resource ids the summaries track, -1 none */
    float stairs[CCAS_ROOM_STAIRS]; /* thresholds of tracked[0] (see ccas_room.stair) */
    bool use_stairs;                /* tracked[0] and tracked[1] both exist */
    struct ccas_roomidx *nodes;     /* over c->nodes */
    struct bucketroom *buckets;     /* by bucket order */
    struct nodelist nobucket;       /* nodes in no bucket */
    uint32_t *listpos;              /* by node index: its place in its bucket's list */
    uint64_t all_buckets;           /* the bits of every bucket */
    struct ccas_resdict *masks;     /* bucket masks by bucket key ... */
    uint64_t *mask_v;               /* ... by id */
    size_t mask_cap;
    size_t listposcap;
    struct shape_need *needs; /* by constraint id */
    size_t nneeds;
};

static uint64_t bucket_bit (const struct ccas_bucket *b)
{
    return (uint64_t)1 << (b->order % 64);
}

static uint32_t clamp32 (int64_t v)
{
    return v <= 0 ? 0 : v >= (int64_t)UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

/* ---- summaries ------------------------------------------------------------------------ */

/* What `n` offers now, to jobs not yet placed (the amounts of resources no
 * summary tracks: any). */
static void node_room (const struct ccas_candidates *x, const struct ccas_node *n, struct ccas_room *s)
{
    ccas_room_closed (s);
    /* closed to every later job: see closed_to() in match.c (an exclusive
     * node's owner is placed by the time the node is summarised) */
    if (!ccas_node_usable (n) || n->sched_offline || n->exclusive)
        return;
    s->open = s->open_grow = 1;
    s->buckets = n->bucket ? bucket_bit (n->bucket) : ~(uint64_t)0;
    s->flags = (n->placement_group ? CCAS_ROOM_IN_PG : CCAS_ROOM_NO_PG) | (n->pg ? 0 : CCAS_ROOM_UNGROUPED);
    if (!n->busy && n->njobs == 0) {
        s->flags |= CCAS_ROOM_IDLE;
        s->idle = s->idle_grow = 1;
    }
    for (int r = 0; r < CCAS_ROOM_NRES; r++) {
        int id = x->tracked[r];
        if (id < 0)
            s->res[r] = INFINITY;
        else if (ccas_node_res (n, id)->type == CCAS_V_NUM)
            s->res[r] = ccas_room_bound (n->avail[id]);
    }
}

static void list_leaf (void *arg, uint32_t i, struct ccas_room *s)
{
    const struct nodelist *l = arg;
    if (i < l->n && l->v[i] < l->x->c->nnodes)
        node_room (l->x, l->x->c->nodes[l->v[i]], s);
    else
        ccas_room_closed (s);
}

static void node_leaf (void *arg, uint32_t i, struct ccas_room *s)
{
    struct ccas_candidates *x = arg;
    if (i < x->c->nnodes)
        node_room (x, x->c->nodes[i], s);
    else
        ccas_room_closed (s);
}

static const struct ccas_pg *pg_of (const struct pgroom *pr)
{
    return pr->id < pr->b->npgs ? pr->b->pgs[pr->id] : NULL;
}

static void member_leaf (void *arg, uint32_t i, struct ccas_room *s)
{
    struct pgroom *pr = arg;
    const struct ccas_pg *pg = pg_of (pr);
    if (pg && i < pg->nmembers)
        node_room (pr->x, pg->members[i], s);
    else
        ccas_room_closed (s);
}

/* A group: its members' room, and how many more nodes it may take. */
static void pg_leaf (void *arg, uint32_t p, struct ccas_room *s)
{
    struct bucketroom *br = arg;
    if (p >= br->b->npgs || p >= br->cap || !br->v[p]) {
        ccas_room_closed (s);
        return;
    }
    *s = *ccas_room_root (br->v[p]->members);
    s->buckets = ~(uint64_t)0;
    s->grow = clamp32 (ccas_pg_room (br->b, br->b->pgs[p], CCAS_PG_ALONE));
    s->open_grow = s->open > UINT32_MAX - s->grow ? UINT32_MAX : s->open + s->grow;
    s->idle_grow = s->idle > UINT32_MAX - s->grow ? UINT32_MAX : s->idle + s->grow;
}

/* ---- building ---------------------------------------------------------------------------- */

static const float *stairs_of (const struct ccas_candidates *x)
{
    return x->use_stairs ? x->stairs : NULL;
}

/* The list of the nodes of `n`'s bucket (or of none). */
static struct nodelist *list_of (struct ccas_candidates *x, const struct ccas_node *n)
{
    return n->bucket ? &x->buckets[n->bucket->order].nodes : &x->nobucket;
}

static int list_init (struct ccas_candidates *x, struct nodelist *l, uint32_t hint)
{
    l->x = x;
    l->idx = ccas_room_create (0, hint, stairs_of (x), list_leaf, l);
    return l->idx ? 0 : -1;
}

static void list_release (struct nodelist *l)
{
    free (l->v);
    ccas_room_destroy (l->idx);
}

/* Append node `n` (the last so far) to its bucket's list. */
static struct nodelist *list_add (struct ccas_candidates *x, const struct ccas_node *n)
{
    struct nodelist *l = list_of (x, n);
    if (l->n == l->cap) {
        uint32_t cap = l->cap ? l->cap * 2 : 64;
        uint32_t *v = realloc (l->v, cap * sizeof (*v));
        if (!v)
            return NULL;
        l->v = v;
        l->cap = cap;
    }
    if (n->index >= x->listposcap) {
        size_t cap = x->listposcap ? x->listposcap : 1024;
        while (cap <= n->index)
            cap *= 2;
        uint32_t *v = realloc (x->listpos, cap * sizeof (*v));
        if (!v)
            return NULL;
        x->listpos = v;
        x->listposcap = cap;
    }
    x->listpos[n->index] = l->n;
    l->v[l->n++] = n->index;
    return l;
}

/* Undo of list_add() for a node a rollback drops. */
static void list_pop (void *arg)
{
    struct nodelist *l = arg;
    l->n--;
}

/* The member index of slot `id` of `b`'s groups, made if need be. */
static struct pgroom *pg_room (struct ccas_candidates *x, const struct ccas_bucket *b, uint32_t id)
{
    struct bucketroom *br = &x->buckets[b->order];
    if (id >= br->cap) {
        size_t cap = br->cap ? br->cap * 2 : 8;
        while (cap <= id)
            cap *= 2;
        struct pgroom **v = realloc (br->v, cap * sizeof (*v));
        if (!v)
            return NULL;
        memset (v + br->cap, 0, (cap - br->cap) * sizeof (*v));
        br->v = v;
        br->cap = cap;
    }
    if (!br->v[id]) {
        struct pgroom *pr = calloc (1, sizeof (*pr));
        int64_t size = ccas_pg_room (b, NULL, CCAS_PG_ALONE); /* (a hint) */
        if (!pr)
            return NULL;
        *pr = (struct pgroom){x, b, id, NULL, -1};
        if (!(pr->members =
                  ccas_room_create (CCAS_ROOM_SUM | CCAS_ROOM_COUNTS, size < 64 ? (uint32_t)size : 64,
                                    stairs_of (x), member_leaf, pr))) {
            free (pr);
            return NULL;
        }
        br->v[id] = pr;
    }
    return br->v[id];
}

static void choose_stairs (struct ccas_candidates *x, const struct ccas_jobs *jobs);

/* The resources summaries track: those the most constraints ask a minimum of;
 * and the thresholds of the staircase over the first (see struct ccas_room). */
static void choose_tracked (struct ccas_candidates *x, const struct ccas_jobs *jobs)
{
    struct ccas_cluster *c = x->c;
    size_t nres = ccas_resdict_count (c->dict);
    size_t *count = calloc (nres + 1, sizeof (*count));
    int ids[16];
    double amounts[16];
    for (int r = 0; r < CCAS_ROOM_NRES; r++)
        x->tracked[r] = -1;
    if (!count)
        return;
    for (size_t id = 0; id < x->nneeds; id++) {
        const struct ccas_constraint *k = ccas_constraint_by_id (c->cons, (uint32_t)id);
        size_t n = k ? ccas_constraint_minimums (k, ids, amounts, 16) : 0;
        for (size_t i = 0; i < n; i++)
            if (ids[i] >= 0 && (size_t)ids[i] < nres)
                count[ids[i]]++;
        struct ccas_cons_option opts[CCAS_ROOM_OPTIONS]; /* and the resources of a choice */
        size_t nopts = k ? ccas_constraint_options (k, opts, CCAS_ROOM_OPTIONS) : 0;
        for (size_t o = 0; o < nopts; o++)
            for (size_t i = 0; i < opts[o].n; i++)
                if (opts[o].ids[i] >= 0 && (size_t)opts[o].ids[i] < nres)
                    count[opts[o].ids[i]]++;
    }
    for (int r = 0; r < CCAS_ROOM_NRES; r++) {
        size_t best = 0;
        for (size_t id = 0; id < nres; id++)
            if (count[id] > best) {
                best = count[id];
                x->tracked[r] = (int)id;
            }
        if (best == 0)
            break;
        count[x->tracked[r]] = 0;
    }
    free (count);
    choose_stairs (x, jobs);
}

struct amount {
    float v;
    double weight;
};

static int cmp_amount (const void *pa, const void *pb)
{
    float a = ((const struct amount *)pa)->v, b = ((const struct amount *)pb)->v;
    return a < b ? -1 : a > b;
}

/* The staircase's thresholds (see struct ccas_room): amounts of the first
 * tracked resource the pending jobs ask, at quantiles of their slots (a
 * threshold just below what a job asks counts nodes that cannot take it; an
 * amount many slots ask is a threshold of its own).  Thresholds are rounded
 * as minimums are, so that a request for exactly a threshold uses it. */
static void choose_stairs (struct ccas_candidates *x, const struct ccas_jobs *jobs)
{
    int ids[16];
    double amounts[16], total = 0;
    size_t n = 0;
    /* the slots of each constraint first: a million chunks have far fewer
     * constraints, and each constraint one amount to sort */
    double *slots = x->tracked[0] >= 0 ? calloc (x->nneeds, sizeof (*slots)) : NULL;
    struct amount *v = slots ? calloc (x->nneeds, sizeof (*v)) : NULL;
    for (size_t i = 0; v && i < jobs->n; i++) {
        const struct ccas_job *j = &jobs->v[i];
        for (uint32_t ci = 0; !j->running && !j->ignore && ci < j->nchunks; ci++)
            slots[ccas_constraint_info (j->chunks[ci].cons)->id] += j->chunks[ci].count;
    }
    for (uint32_t id = 0; v && id < x->nneeds; id++) {
        const struct ccas_constraint *k = slots[id] > 0 ? ccas_constraint_by_id (x->c->cons, id) : NULL;
        size_t m = k ? ccas_constraint_minimums (k, ids, amounts, 16) : 0;
        for (size_t a = 0; a < m; a++)
            if (ids[a] == x->tracked[0]) { /* (a constraint names a resource once) */
                v[n].v = ccas_room_minimum (amounts[a]);
                v[n++].weight = slots[id];
                total += slots[id];
            }
    }
    x->use_stairs = n > 0; /* (levels count nodes even when no second resource is tracked) */
    if (x->use_stairs) {
        qsort (v, n, sizeof (*v), cmp_amount);
        double sum = 0;
        int l = 0;
        for (size_t i = 0; i < n && l < CCAS_ROOM_STAIRS; i++) {
            sum += v[i].weight;
            /* the amount where the slots so far first pass the next quantile
             * (of equal amounts, the last: what they weigh together) */
            if (i + 1 < n && v[i + 1].v == v[i].v)
                continue;
            if (sum >= total * l / CCAS_ROOM_STAIRS && (l == 0 || v[i].v > x->stairs[l - 1]))
                x->stairs[l++] = v[i].v;
        }
        for (; l < CCAS_ROOM_STAIRS; l++) /* fewer amounts than levels: the last repeated */
            x->stairs[l] = x->stairs[l - 1];
    }
    free (v);
    free (slots);
}

struct ccas_candidates *ccas_candidates_create (struct ccas_cluster *c, const struct ccas_jobs *jobs,
                                                bool exhaustive)
{
    struct ccas_candidates *x = calloc (1, sizeof (*x));
    if (!x)
        return NULL;
    x->c = c;
    x->exhaustive = exhaustive;
    x->commits = -1;
    x->nneeds = ccas_constraint_cache_count (c->cons) + 1;
    if (!(x->needs = calloc (x->nneeds, sizeof (*x->needs))))
        goto error;
    if (exhaustive)
        return x;
    choose_tracked (x, jobs);
    if (!(x->nodes = ccas_room_create (0, (uint32_t)c->nnodes * 2, stairs_of (x), node_leaf, x)) ||
        !(x->buckets = calloc (c->nbuckets + 1, sizeof (*x->buckets))) || list_init (x, &x->nobucket, 16) < 0)
        goto error;
    for (size_t i = 0; i < c->nbuckets; i++) {
        struct bucketroom *br = &x->buckets[c->buckets[i].order];
        x->all_buckets |= bucket_bit (&c->buckets[i]);
        br->x = x;
        br->b = &c->buckets[i];
        if (list_init (x, &br->nodes, (uint32_t)(c->nnodes / (c->nbuckets + 1)) * 2) < 0)
            goto error;
    }
    for (size_t i = 0; i < c->nnodes; i++) {
        struct nodelist *l = list_add (x, c->nodes[i]);
        if (!l || ccas_room_update (x->nodes, (uint32_t)i) < 0 || ccas_room_update (l->idx, l->n - 1) < 0)
            goto error;
    }
    for (size_t i = 0; i < c->nbuckets; i++) {
        const struct ccas_bucket *b = &c->buckets[i];
        struct bucketroom *br = &x->buckets[b->order];
        if (!(br->pgs = ccas_room_create (CCAS_ROOM_COUNTS, (uint32_t)b->npgs + 8, NULL, pg_leaf, br)))
            goto error;
        for (uint32_t p = 0; p < b->npgs; p++) {
            struct pgroom *pr = pg_room (x, b, p);
            if (!pr)
                goto error;
            for (uint32_t m = 0; m < b->pgs[p]->nmembers; m++)
                if (ccas_room_update (pr->members, m) < 0)
                    goto error;
            if (ccas_room_update (br->pgs, p) < 0)
                goto error;
        }
    }
    return x;
error:
    ccas_candidates_destroy (x);
    return NULL;
}

void ccas_candidates_destroy (struct ccas_candidates *x)
{
    if (!x)
        return;
    for (size_t i = 0; x->buckets && i < x->c->nbuckets; i++) {
        struct bucketroom *br = &x->buckets[i];
        for (size_t p = 0; p < br->cap; p++)
            if (br->v[p]) {
                ccas_room_destroy (br->v[p]->members);
                free (br->v[p]);
            }
        free (br->v);
        ccas_room_destroy (br->pgs);
        list_release (&br->nodes);
    }
    free (x->buckets);
    list_release (&x->nobucket);
    free (x->listpos);
    ccas_resdict_destroy (x->masks);
    free (x->mask_v);
    ccas_room_destroy (x->nodes);
    free (x->needs);
    free (x);
}

/* ---- requests -------------------------------------------------------------------------- */

/* The bits of the buckets whose properties may suit `k`: judged once per
 * distinct set of bucket terms (many shapes name the same nodearray). */
static uint64_t bucket_mask (struct ccas_candidates *x, const struct ccas_constraint *k)
{
    char key[512];
    uint64_t mask = 0;
    if (!ccas_constraint_info (k)->bucket_terms)
        return ~(uint64_t)0;
    size_t len = ccas_constraint_bucket_key (k, key, sizeof (key));
    int id = len && x->masks ? ccas_resdict_find (x->masks, key) : -1;
    if (id >= 0)
        return x->mask_v[id];
    for (size_t i = 0; i < x->c->nbuckets; i++)
        if (ccas_constraint_bucket_may_fit (k, &x->c->buckets[i].template_node))
            mask |= bucket_bit (&x->c->buckets[i]);
    if (!len || (!x->masks && !(x->masks = ccas_resdict_create ())))
        return mask;
    size_t n = ccas_resdict_count (x->masks);
    if (n == x->mask_cap) {
        size_t cap = n ? n * 2 : 16;
        uint64_t *v = realloc (x->mask_v, cap * sizeof (*v));
        if (!v)
            return mask;
        x->mask_v = v;
        x->mask_cap = cap;
    }
    if ((id = ccas_resdict_intern (x->masks, key)) >= 0)
        x->mask_v[id] = mask;
    return mask;
}

const struct ccas_room_need *ccas_candidates_need (struct ccas_candidates *x, const struct ccas_constraint *k)
{
    struct shape_need *sn = &x->needs[ccas_constraint_info (k)->id];
    struct ccas_room_need *n = &sn->need;
    int ids[16];
    double amounts[16];
    if (sn->ready)
        return n;
    ccas_room_need_any (n);
    size_t m = ccas_constraint_minimums (k, ids, amounts, 16);
    for (size_t i = 0; i < m; i++)
        for (int r = 0; r < CCAS_ROOM_NRES; r++)
            if (x->tracked[r] == ids[i])
                n->res[r] = ccas_room_minimum (amounts[i]);
    /* the highest step of the staircase the minimum of tracked[0] reaches */
    for (int l = CCAS_ROOM_STAIRS - 1; x->use_stairs && n->res[1] > -INFINITY && l >= 0; l--)
        if (n->res[0] >= x->stairs[l]) {
            n->stair = l;
            break;
        }
    n->buckets = bucket_mask (x, k);
    /* a choice ("or"): a node meets one of its options */
    struct ccas_cons_option opts[CCAS_ROOM_OPTIONS];
    size_t nopts = ccas_constraint_options (k, opts, CCAS_ROOM_OPTIONS);
    for (size_t o = 0; o < nopts; o++) {
        for (int r = 0; r < CCAS_ROOM_NRES; r++)
            n->option[o][r] = -INFINITY;
        for (size_t i = 0; i < opts[o].n; i++)
            for (int r = 0; r < CCAS_ROOM_NRES; r++)
                if (x->tracked[r] == opts[o].ids[i])
                    n->option[o][r] = ccas_room_minimum (opts[o].amounts[i]);
    }
    n->noptions = (uint32_t)nopts;
    const struct ccas_cons_info *info = ccas_constraint_info (k);
    if (!info->bucket_terms)
        n->buckets = ~(uint64_t)0;
    if (info->exclusive || info->exclusive_task)
        n->flags |= CCAS_ROOM_IDLE;
    if (info->wants_pg)
        n->flags |= CCAS_ROOM_IN_PG;
    if (info->forbids_pg)
        n->flags |= CCAS_ROOM_NO_PG;
    sn->ready = true;
    return n;
}

void ccas_candidates_prefetch (const struct ccas_candidates *x, const struct ccas_constraint *k)
{
    __builtin_prefetch (&x->needs[ccas_constraint_info (k)->id]);
}

bool ccas_candidates_bucket_may (const struct ccas_room_need *need, const struct ccas_bucket *b)
{
    return need->buckets & bucket_bit (b);
}

bool ccas_candidates_pools_hold (const struct ccas_candidates *x, const struct ccas_constraint *k,
                                 int32_t job, int32_t queue)
{
    return x->exhaustive || ccas_constraint_pools_hold (k, job, queue);
}

/* The first node of list `l` in [from, end) that may take `need`, or end. */
static uint32_t list_next (const struct nodelist *l, const struct ccas_room_need *need, uint32_t from,
                           uint32_t end)
{
    uint32_t lo = 0, hi = l->n; /* the first place holding a node >= from */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (l->v[mid] < from)
            lo = mid + 1;
        else
            hi = mid;
    }
    int64_t p = ccas_room_first (l->idx, lo, l->n, need);
    return p >= 0 && l->v[p] < end ? l->v[p] : end;
}

uint32_t ccas_candidates_next_node (struct ccas_candidates *x, const struct ccas_room_need *need,
                                    uint32_t from, uint32_t end)
{
    if (x->exhaustive)
        return from < end ? from : end;
    const struct ccas_cluster *c = x->c;
    uint64_t mine = need->buckets & x->all_buckets;
    if (mine != x->all_buckets && __builtin_popcountll (mine) <= FEW_BUCKETS) {
        /* the first in the lists of the buckets that may have it, and of none */
        uint32_t best = list_next (&x->nobucket, need, from, end);
        for (size_t i = 0; i < c->nbuckets; i++)
            if (need->buckets & bucket_bit (&c->buckets[i]))
                best = list_next (&x->buckets[c->buckets[i].order].nodes, need, from, best);
        return best;
    }
    int64_t i = ccas_room_first (x->nodes, from, end, need);
    return i < 0 ? end : (uint32_t)i;
}

uint32_t ccas_candidates_next_member (struct ccas_candidates *x, const struct ccas_pg *pg,
                                      const struct ccas_room_need *need, uint32_t from, uint32_t end)
{
    struct pgroom *pr = x->exhaustive ? NULL : pg_room (x, pg->bucket, pg->id);
    if (!pr)
        return from < end ? from : end; /* out of memory: look at them all */
    int64_t i = ccas_room_first (pr->members, from, end, need);
    return i < 0 ? end : (uint32_t)i;
}

void ccas_candidates_job_need (struct ccas_candidates *x, const struct ccas_job *j, int64_t avail,
                               struct ccas_room_need *out)
{
    ccas_room_need_any (out);
    out->nodes = j->packing == CCAS_SCATTER ? j->nslots : 1;
    out->avail = clamp32 (avail);
    out->idle_only = true;
    float smallest = INFINITY; /* the least of res[0] a slot asks */
    for (uint32_t ci = 0; ci < j->nchunks; ci++) {
        const struct ccas_room_need *cn = ccas_candidates_need (x, j->chunks[ci].cons);
        /* some member must reach each chunk's amount: the largest of them */
        for (int r = 0; r < CCAS_ROOM_NRES; r++)
            if (cn->res[r] > out->res[r])
                out->res[r] = cn->res[r];
        out->flags |= cn->flags;
        /* a slot that must have a node of its own: an idle member, or a new node */
        out->idle_only = out->idle_only && (cn->flags & CCAS_ROOM_IDLE);
        if (cn->res[0] < smallest)
            smallest = cn->res[0];
    }
    /* each slot a node: members big enough for the least of them, or new ones */
    for (int l = CCAS_ROOM_STAIRS - 1; x->use_stairs && j->packing == CCAS_SCATTER && l >= 0; l--)
        if (smallest >= x->stairs[l]) {
            out->count_level = l;
            break;
        }
}

size_t ccas_candidates_next_pg (struct ccas_candidates *x, const struct ccas_bucket *b,
                                const struct ccas_room_need *need, size_t from, size_t end)
{
    if (x->exhaustive)
        return from < end ? from : end;
    int64_t p = ccas_room_first (x->buckets[b->order].pgs, (uint32_t)from, (uint32_t)end, need);
    return p < 0 ? end : (size_t)p;
}

/* ---- changes ---------------------------------------------------------------------------- */

/* The member index of `n`'s group, if it is a member (a node of a group that
 * is not usable is not). */
static struct pgroom *member_room (struct ccas_candidates *x, const struct ccas_node *n, int *err)
{
    const struct ccas_pg *pg = n->pg;
    if (!pg || n->member >= pg->nmembers || pg->members[n->member] != n)
        return NULL;
    struct pgroom *pr = pg_room (x, pg->bucket, pg->id);
    if (!pr)
        *err = -1;
    return pr;
}

int ccas_candidates_node_made (struct ccas_candidates *x, const struct ccas_node *n, struct ccas_undo *undo)
{
    int err = 0;
    if (x->exhaustive)
        return 0;
    struct nodelist *l = list_add (x, n);
    if (!l || ccas_room_raise (x->nodes, n->index) < 0 || ccas_room_raise (l->idx, l->n - 1) < 0)
        return -1;
    ccas_undo_call (undo, list_pop, l);
    /* (the group's own summary is left as it was: no group is looked for
     * while one has grown for a job not yet placed) */
    struct pgroom *pr = member_room (x, n, &err);
    if (pr && ccas_room_raise (pr->members, n->member) < 0)
        return -1;
    return err;
}

int ccas_candidates_pg_made (struct ccas_candidates *x, const struct ccas_pg *pg)
{
    if (x->exhaustive)
        return 0;
    struct pgroom *pr = pg_room (x, pg->bucket, pg->id);
    if (!pr)
        return -1;
    ccas_room_clear (pr->members); /* the slot may have held a group a rollback dropped */
    pr->refreshed = -1;
    return ccas_room_raise (x->buckets[pg->bucket->order].pgs, pg->id);
}

int ccas_candidates_commit (struct ccas_candidates *x, const struct ccas_job *j)
{
    int err = 0;
    int32_t stamp = ++x->commits; /* each group is updated once */
    if (x->exhaustive)
        return 0;
    for (uint32_t i = 0; i < j->nslots && err == 0; i++) {
        const struct ccas_node *n = j->slots[i];
        struct pgroom *pr = member_room (x, n, &err);
        if (ccas_room_update (x->nodes, n->index) < 0 ||
            ccas_room_update (list_of (x, n)->idx, x->listpos[n->index]) < 0 ||
            (pr && ccas_room_update (pr->members, n->member) < 0))
            err = -1;
    }
    for (uint32_t i = 0; i < j->nslots && err == 0; i++) {
        const struct ccas_pg *pg = j->slots[i]->pg;
        struct pgroom *pr = member_room (x, j->slots[i], &err);
        if (!pr || pr->refreshed == stamp)
            continue;
        pr->refreshed = stamp;
        /* members past the end were made for attempts that failed */
        ccas_room_truncate (pr->members, pg->nmembers);
        if (ccas_room_update (x->buckets[pg->bucket->order].pgs, pg->id) < 0)
            err = -1;
    }
    return err;
}
