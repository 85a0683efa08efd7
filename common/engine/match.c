/* SPDX-License-Identifier: MIT */
/* match.c: place jobs all-or-nothing on existing and new nodes, explain misses. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/candidates.h"
#include "engine/match.h"
#include "model/resdict.h"
#include "util/log.h"

/* What the engine remembers per constraint shape for the whole pass. */
struct shape {
    uint32_t cursor;              /* nodes before it can no longer take this shape */
    struct ccas_bucket **buckets; /* buckets whose new nodes fit, in preference order */
    uint32_t nbuckets;
    uint32_t bucket_from; /* buckets[0..bucket_from) take no new node of it, for good */
    bool buckets_ready;
    bool prefers_colocated; /* its first bucket is colocated */
    const char *reason;     /* cached explanation of a miss ... */
    uint32_t reason_slots;  /* ... for a job of this many slots */
    bool reason_colocated;
    int32_t reason_queue; /* ... and of this queue (its shared pools) */
};

struct engine {
    struct ccas_cluster *c;
    struct ccas_jobs *jobs;
    struct shape *shapes;
    size_t nshapes;
    struct ccas_undo *undo;
    int32_t job;         /* index of the job being placed */
    int32_t queue;       /* its queue among the shared pools' (0: none) */
    bool outside_groups; /* this attempt takes no node in a placement group */
    bool lone;           /* a job of one slot: no group needed, even in a colocated bucket */
    uint32_t committed;  /* nodes that existed before this job's attempt */
    char why[512];
    /* which nodes and groups may take a slot (candidates.h): a job looks at
     * these only, not at everything placed before it */
    struct ccas_candidates *cand;
    bool exhaustive;              /* no index: look at everything (tests) */
    bool oom;                     /* an index could not be updated */
    struct ranked *ranked;        /* shape_buckets()'s work space */
    struct ccas_resdict *lists;   /* bucket lists, each kept once ... */
    struct ccas_bucket ***list_v; /* ... by id */
    size_t list_cap;
    struct ccas_resdict *reasons; /* miss explanations, each kept once ... */
    const char **reason_text;     /* ... by id, in the jobs' arena */
    size_t reason_cap;
};

static bool exhaustive_matching; /* ccas_match_set_exhaustive() */

void ccas_match_set_exhaustive (bool on)
{
    exhaustive_matching = on;
}

static struct shape *shape_of (struct engine *e, const struct ccas_constraint *k)
{
    return &e->shapes[ccas_constraint_info (k)->id];
}

static bool eval_fits (struct engine *e, const struct ccas_constraint *k, const struct ccas_node *n)
{
    struct ccas_eval ev = {.job = e->job, .queue = e->queue, .undo = e->undo};
    return ccas_constraint_fits (k, n, &ev, NULL, 0);
}

/* ---- bucket preference per shape ------------------------------------------------ */

struct ranked {
    struct ccas_bucket *b;
    uint32_t rank;
};

static int cmp_ranked (const void *pa, const void *pb)
{
    const struct ranked *a = pa, *b = pb;
    if (a->b->na->priority != b->b->na->priority)
        return a->b->na->priority > b->b->na->priority ? -1 : 1;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    return a->b->order < b->b->order ? -1 : a->b->order > b->b->order;
}

/* The list of the `n` buckets of `r`, one copy per distinct list: many
 * shapes have the same (tens of thousands of shapes, tens of lists). */
static struct ccas_bucket **shared_list (struct engine *e, const struct ranked *r, uint32_t n)
{
    char *key = malloc ((size_t)n * 11 + 2), *p = key;
    struct ccas_bucket **list = NULL;
    if (!key || (!e->lists && !(e->lists = ccas_resdict_create ())))
        goto done;
    for (uint32_t i = 0; i < n; i++) { /* the orders, as "12,7,3," */
        char digits[12];
        int d = 0;
        uint32_t v = r[i].b->order;
        do
            digits[d++] = (char)('0' + v % 10);
        while ((v /= 10) > 0);
        while (d > 0)
            *p++ = digits[--d];
        *p++ = ',';
    }
    *p++ = '.'; /* no key is empty */
    *p = '\0';
    int id = ccas_resdict_find (e->lists, key);
    if (id >= 0 && e->list_v) { /* (a known key always has its list) */
        list = e->list_v[id];
        goto done;
    }
    size_t count = ccas_resdict_count (e->lists);
    if (count == e->list_cap) {
        size_t cap = count ? count * 2 : 16;
        struct ccas_bucket ***v = realloc (e->list_v, cap * sizeof (*v));
        if (!v)
            goto done;
        e->list_v = v;
        e->list_cap = cap;
    }
    if (!(list = calloc (n + 1, sizeof (*list))))
        goto done;
    for (uint32_t i = 0; i < n; i++)
        list[i] = r[i].b;
    if (!e->list_v || (id = ccas_resdict_intern (e->lists, key)) < 0) {
        free (list);
        list = NULL;
        goto done;
    }
    e->list_v[id] = list;
done:
    free (key);
    return list;
}

static int shape_buckets (struct engine *e, const struct ccas_constraint *k, struct shape *s)
{
    struct ccas_cluster *c = e->c;
    struct ccas_eval ev = {.job = -1, .template_node = true};
    struct ranked *r = e->ranked;
    if (s->buckets_ready)
        return 0;
    if (!r && !(r = e->ranked = calloc (c->nbuckets + 1, sizeof (*r))))
        return -1;
    uint32_t n = 0;
    const struct ccas_room_need *need = ccas_candidates_need (e->cand, k);
    for (size_t i = 0; i < c->nbuckets; i++) {
        struct ccas_bucket *b = &c->buckets[i];
        /* (a bucket whose properties rule the shape out fails it too) */
        if (!ccas_candidates_bucket_may (need, b) ||
            !ccas_constraint_fits (k, &b->template_node, &ev, NULL, 0))
            continue;
        r[n].b = b;
        r[n].rank = ccas_constraint_rank (k, &b->template_node);
        n++;
    }
    qsort (r, n, sizeof (*r), cmp_ranked);
    if (!(s->buckets = shared_list (e, r, n)))
        return -1;
    s->prefers_colocated = n > 0 && r[0].b->colocated;
    s->nbuckets = n;
    s->buckets_ready = true;
    return 0;
}

/* ---- taking a slot ----------------------------------------------------------------- */

/* Nodes that no job may be given, ever, in this pass (or until a rollback). */
static bool closed_to (const struct engine *e, const struct ccas_node *n)
{
    if (!ccas_node_usable (n) || n->sched_offline || (e->outside_groups && n->pg))
        return true;
    if (n->kind == CCAS_NODE_STOPPED && e->c->closed)
        return true; /* nothing is started in a cluster that is not Started */
    return n->exclusive && n->last_job != e->job;
}

/* A node whose state only jobs already placed have shaped: what it cannot
 * take now it will never take in this pass (resources only shrink), so cursors
 * may move past it for good — no undo, even if the current job fails. */
static bool settled (const struct engine *e, const struct ccas_node *n)
{
    return n->index < e->committed && n->last_job != e->job;
}

static void take_slot (struct engine *e, const struct ccas_constraint *k, struct ccas_node *n)
{
    struct ccas_eval ev = {.job = e->job, .queue = e->queue, .undo = e->undo};
    ccas_constraint_take (k, n, &ev);
    if (n->last_job != e->job) {
        ccas_undo_u32 (e->undo, &n->njobs);
        n->njobs++;
        ccas_undo_i32 (e->undo, &n->last_job);
        n->last_job = e->job;
    }
    if (!n->matched) {
        ccas_undo_bool (e->undo, &n->matched);
        n->matched = true;
    }
}

/* The first existing (or already made) node from `*pos` on that takes a slot
 * of `k`.  The node index skips nodes that cannot (ccas_candidates_need()); the
 * shape's cursor moves past nodes that fail for good. */
static struct ccas_node *scan_nodes (struct engine *e, const struct ccas_job *j,
                                     const struct ccas_constraint *k, uint32_t *pos)
{
    struct ccas_cluster *c = e->c;
    struct shape *s = shape_of (e, k);
    bool monotone = ccas_constraint_info (k)->monotone;
    struct ccas_room_need need = *ccas_candidates_need (e->cand, k);
    uint32_t i = *pos, end = (uint32_t)c->nnodes;
    if (monotone && s->cursor > i)
        i = s->cursor;
    if (!ccas_candidates_pools_hold (e->cand, k, e->job, e->queue)) {
        *pos = end;
        return NULL;
    }
    if (e->outside_groups)
        need.flags |= CCAS_ROOM_UNGROUPED;
    for (; i < end; i++) {
        uint32_t next = ccas_candidates_next_node (e->cand, &need, i, end);
        /* what the index skips cannot take the shape, for good; being in a
         * group only closes a node to this attempt */
        if (monotone && i == s->cursor && !e->outside_groups && s->cursor < e->committed)
            s->cursor = next < e->committed ? next : e->committed;
        if ((i = next) >= end)
            break;
        struct ccas_node *n = c->nodes[i];
        bool used_by_me = n->last_job == e->job;
        if (closed_to (e, n) || (!used_by_me && !eval_fits (e, k, n))) {
            if (monotone && i == s->cursor && settled (e, n) && !(e->outside_groups && n->pg))
                s->cursor++;
            continue;
        }
        if (used_by_me && (j->packing == CCAS_SCATTER || !eval_fits (e, k, n)))
            continue;
        *pos = i;
        return n;
    }
    *pos = i;
    return NULL;
}

/* A node made for the job: indexed at once, in case the job fails (its place
 * is then past the end of the list) or takes it for another slot. */
static struct ccas_node *make_node (struct engine *e, struct ccas_bucket *b, struct ccas_pg *pg)
{
    struct ccas_node *n = ccas_cluster_new_node (e->c, b, pg, e->undo);
    if (n && ccas_candidates_node_made (e->cand, n, e->undo) < 0)
        e->oom = true;
    return n;
}

static struct ccas_node *new_node (struct engine *e, const struct ccas_constraint *k, struct ccas_pg *pg)
{
    struct shape *s = shape_of (e, k);
    if (pg) {
        if (!ccas_candidates_pools_hold (e->cand, k, e->job, e->queue))
            return NULL; /* it would not fit a new node either */
        struct ccas_node *n = make_node (e, pg->bucket, pg);
        return n && eval_fits (e, k, n) ? n : NULL;
    }
    /* (the shape's buckets are chosen now, as they always were: with the
     * shared pools as they are at the first new node it wants) */
    if (shape_buckets (e, k, s) < 0 || !ccas_candidates_pools_hold (e->cand, k, e->job, e->queue))
        return NULL;
    for (uint32_t i = s->bucket_from; i < s->nbuckets; i++) {
        struct ccas_bucket *b = s->buckets[i];
        if (ccas_bucket_available (b, NULL, 0) < 1) {
            /* a bucket that cannot take one while this attempt has made
             * nothing (so charged no limit) never will again */
            if (i == s->bucket_from && e->c->nnodes == e->committed && !e->exhaustive)
                s->bucket_from++;
            continue;
        }
        /* a colocated bucket's new nodes are made in placement groups only,
         * unless the job asks for nodes outside any or is of one node (which
         * differs from job to job of a shape: never a reason to skip for good) */
        if (b->colocated && !ccas_constraint_info (k)->forbids_pg && !e->lone)
            continue;
        struct ccas_node *n = make_node (e, b, NULL);
        if (n && eval_fits (e, k, n))
            return n;
    }
    return NULL;
}

/* ---- placing a whole job ---------------------------------------------------------------- */

static bool place_spread (struct engine *e, struct ccas_job *j)
{
    uint32_t slot = 0;
    for (uint32_t ci = 0; ci < j->nchunks; ci++) {
        const struct ccas_chunk *ch = &j->chunks[ci];
        uint32_t pos = 0;
        struct ccas_node *last = NULL;
        for (uint32_t k = 0; k < ch->count; k++) {
            struct ccas_node *n = NULL;
            if (last && j->packing == CCAS_PACK && !closed_to (e, last) && eval_fits (e, ch->cons, last))
                n = last;
            if (!n)
                n = scan_nodes (e, j, ch->cons, &pos);
            if (!n)
                n = new_node (e, ch->cons, NULL);
            if (!n)
                return false;
            take_slot (e, ch->cons, n);
            j->slots[slot++] = n;
            last = n;
            if (j->packing == CCAS_SCATTER)
                pos = n->index + 1 < pos ? pos : n->index + 1;
        }
    }
    return true;
}

/* A slot inside placement group `pg`: a member first, else (if `grow`) a new
 * node there.  `left`: slots of this chunk still to place, this one included. */
static struct ccas_node *pg_slot (struct engine *e, const struct ccas_job *j, const struct ccas_constraint *k,
                                  struct ccas_pg *pg, uint32_t *pos, bool grow, uint32_t left)
{
    const struct ccas_room_need *need = ccas_candidates_need (e->cand, k);
    if (!ccas_candidates_pools_hold (e->cand, k, e->job, e->queue)) {
        *pos = pg->nmembers;
        return NULL;
    }
    for (uint32_t i = *pos > pg->closed_prefix ? *pos : pg->closed_prefix; i < pg->nmembers; i++) {
        if ((i = ccas_candidates_next_member (e->cand, pg, need, i, pg->nmembers)) >= pg->nmembers)
            break;
        struct ccas_node *n = pg->members[i];
        if (closed_to (e, n)) {
            if (i == pg->closed_prefix && settled (e, n))
                pg->closed_prefix++;
            continue;
        }
        if (n->last_job == e->job && j->packing == CCAS_SCATTER)
            continue;
        if (eval_fits (e, k, n)) {
            *pos = i;
            return n;
        }
    }
    *pos = pg->nmembers;
    /* no member takes this slot, nor any later one of the chunk when they
     * must each have a node: the group cannot grow by them all, the try has
     * failed (before making nodes only to undo them) */
    if (grow && j->packing == CCAS_SCATTER && left > 1 &&
        (int64_t)left > ccas_pg_room (pg->bucket, pg, CCAS_PG_WITH_BUCKET))
        return NULL;
    return grow ? new_node (e, k, pg) : NULL;
}

static bool try_pg (struct engine *e, struct ccas_job *j, struct ccas_pg *pg, bool grow)
{
    size_t mark = ccas_undo_mark (e->undo);
    uint32_t slot = 0;
    for (uint32_t ci = 0; ci < j->nchunks; ci++) {
        const struct ccas_chunk *ch = &j->chunks[ci];
        uint32_t pos = 0;
        for (uint32_t k = 0; k < ch->count; k++) {
            struct ccas_node *n = pg_slot (e, j, ch->cons, pg, &pos, grow, ch->count - k);
            if (!n) {
                ccas_undo_rollback (e->undo, mark);
                return false;
            }
            take_slot (e, ch->cons, n);
            j->slots[slot++] = n;
        }
    }
    return true;
}

static bool bucket_fits_all (struct engine *e, const struct ccas_job *j, struct ccas_bucket *b)
{
    struct ccas_eval ev = {.job = -1, .template_node = true};
    for (uint32_t ci = 0; ci < j->nchunks; ci++)
        if (!ccas_constraint_fits (j->chunks[ci].cons, &b->template_node, &ev, NULL, 0))
            return false;
    (void)e;
    return true;
}

/* The ways to place a colocated job, in this order. */
enum { PG_EXISTING = 1, PG_GROW = 2 };

/* `colocated_nodearrays_only`: for a job colocated only because its preferred
 * nodearray is.  With PG_EXISTING, existing members of existing groups in any
 * bucket the job allows come first, so that idle nodes are used before a node
 * is made anywhere (a preferred bucket without such nodes would otherwise
 * open a new group); with PG_GROW, then, bucket by bucket, an existing group
 * grown with new nodes, then a new group. */
static bool place_colocated (struct engine *e, struct ccas_job *j, bool colocated_nodearrays_only, int ways)
{
    const struct ccas_constraint *k0 = j->chunks[0].cons;
    struct shape *s = shape_of (e, k0);
    struct ccas_room_need need;
    if (shape_buckets (e, k0, s) < 0)
        return false;
    /* the group indexes offer only groups that may take the job whole: a full
     * group, one whose members are all taken, or one that could only grow in
     * a bucket that has run out, is never tried */
    for (uint32_t bi = 0; bi < s->nbuckets && (ways & PG_EXISTING); bi++) {
        struct ccas_bucket *b = s->buckets[bi];
        if (!bucket_fits_all (e, j, b) || (colocated_nodearrays_only && !b->colocated))
            continue;
        ccas_candidates_job_need (e->cand, j, 0, &need);
        for (size_t p = 0; (p = ccas_candidates_next_pg (e->cand, b, &need, p, b->npgs)) < b->npgs; p++)
            if (b->pgs[p]->nmembers > b->pgs[p]->closed_prefix && try_pg (e, j, b->pgs[p], false))
                return true;
    }
    if (!(ways & PG_GROW))
        return false;
    for (uint32_t bi = 0; bi < s->nbuckets; bi++) {
        struct ccas_bucket *b = s->buckets[bi];
        if (!bucket_fits_all (e, j, b) || (colocated_nodearrays_only && !b->colocated))
            continue;
        int64_t avail = ccas_bucket_available (b, NULL, 0);
        size_t npgs = b->npgs;
        ccas_candidates_job_need (e->cand, j, avail, &need);
        for (size_t p = 0; (p = ccas_candidates_next_pg (e->cand, b, &need, p, npgs)) < npgs; p++)
            if (try_pg (e, j, b->pgs[p], true))
                return true;
        /* a new group takes new nodes only: a scattered job, one each, at
         * most what the bucket and the group's size allow (the bucket's
         * count is at hand: ccas_pg_room (b, NULL, CCAS_PG_WITH_BUCKET)
         * would read it again) */
        if (avail < 1 || (j->packing == CCAS_SCATTER && !e->exhaustive &&
                          ((int64_t)j->nslots > avail || ccas_pg_too_small (b, j->nslots))))
            continue;
        size_t mark = ccas_undo_mark (e->undo);
        struct ccas_pg *pg = ccas_pg_get (e->c, b, NULL, e->undo);
        if (pg && ccas_candidates_pg_made (e->cand, pg) < 0)
            e->oom = true;
        if (pg && try_pg (e, j, pg, true))
            return true;
        ccas_undo_rollback (e->undo, mark);
    }
    return false;
}

/* ---- explaining a miss --------------------------------------------------------------- */

/* `text` for a job's reason: one copy per distinct text, however many jobs. */
static const char *keep (struct engine *e, const char *text)
{
    if (!e->reasons && !(e->reasons = ccas_resdict_create ()))
        return "out of memory";
    int id = ccas_resdict_find (e->reasons, text);
    if (id >= 0 && e->reason_text) /* (a known text always has its copy) */
        return e->reason_text[id];
    size_t n = ccas_resdict_count (e->reasons);
    if (n == e->reason_cap) {
        size_t cap = n ? n * 2 : 16;
        const char **v = realloc (e->reason_text, cap * sizeof (*v));
        if (!v)
            return "out of memory";
        e->reason_text = v;
        e->reason_cap = cap;
    }
    size_t size = strlen (text) + 1;
    char *p = ccas_jobs_alloc (e->jobs, size);
    if (!p || !e->reason_text || (id = ccas_resdict_intern (e->reasons, text)) < 0)
        return "out of memory";
    memcpy (p, text, size);
    return e->reason_text[id] = p;
}

static const char *why_no_bucket (struct engine *e, const struct ccas_constraint *k)
{
    struct ccas_cluster *c = e->c;
    struct ccas_eval ev = {.job = -1, .template_node = true};
    const struct ccas_bucket *best = NULL;
    double best_score = 0;
    char text[800];

    if (c->nbuckets == 0)
        return keep (e, "the cluster has no buckets");
    for (size_t i = 0; i < c->nbuckets; i++) {
        double score = ccas_constraint_closeness (k, &c->buckets[i].template_node);
        if (!best || score > best_score) {
            best = &c->buckets[i];
            best_score = score;
        }
    }
    if (!best)
        return keep (e, "the cluster has no buckets");
    ccas_constraint_fits (k, &best->template_node, &ev, e->why, sizeof (e->why));
    if (ccas_constraint_info (k)->never)
        return keep (e, e->why);
    snprintf (text, sizeof (text), "no bucket fits; closest %s/%s: %s", best->na->name, best->machine_type,
              e->why);
    return keep (e, text);
}

static const char *why_no_room (struct engine *e, struct ccas_job *j, const struct ccas_constraint *k,
                                struct shape *s)
{
    char text[640], avail_why[400];
    int64_t total = 0;
    struct ccas_bucket *first = s->buckets[0];
    struct ccas_eval ev = {.job = -1, .queue = e->queue, .template_node = true};
    /* what changed since the shape's buckets were chosen: a shared pool ran dry */
    if (!ccas_constraint_fits (k, &first->template_node, &ev, e->why, sizeof (e->why)))
        return keep (e, e->why);
    /* what the buckets take together: two of one family never count its quota twice */
    if ((total = ccas_cluster_room (s->buckets, s->nbuckets)) < 0)
        return keep (e, "out of memory");
    if ((j->colocated || (s->prefers_colocated && j->nslots > 1)) && first->colocated) {
        /* never spread over groups: say what one group holds, and why */
        struct ccas_bucket *b = first;
        if (j->packing == CCAS_SCATTER && ccas_pg_too_small (b, j->nslots)) {
            snprintf (text, sizeof (text),
                      "needs %u nodes in one placement group of %s/%s; one holds %lld (%s)", j->nslots,
                      b->na->name, b->machine_type, (long long)b->max_pg_size, b->pg_limit);
            return keep (e, text);
        }
    }
    ccas_bucket_available (first, avail_why, sizeof (avail_why));
    if (total == 0)
        snprintf (text, sizeof (text), "%s/%s: %s", first->na->name, first->machine_type, avail_why);
    else
        snprintf (text, sizeof (text), "needs %u slot%s, room for fewer: %lld more node%s allowed in %s/%s%s",
                  j->nslots, j->nslots == 1 ? "" : "s", (long long)total, total == 1 ? "" : "s",
                  first->na->name, first->machine_type, s->nbuckets > 1 ? " and others" : "");
    return keep (e, text);
}

static const char *explain (struct engine *e, struct ccas_job *j)
{
    const struct ccas_constraint *k = j->chunks[0].cons;
    for (uint32_t ci = 0; ci < j->nchunks; ci++) {
        struct shape *cs = shape_of (e, j->chunks[ci].cons);
        if (shape_buckets (e, j->chunks[ci].cons, cs) == 0 && cs->nbuckets == 0) {
            k = j->chunks[ci].cons;
            break;
        }
    }
    struct shape *s = shape_of (e, k);
    if (s->reason && s->reason_slots == j->nslots && s->reason_colocated == j->colocated &&
        s->reason_queue == e->queue)
        return s->reason;
    const char *r = s->nbuckets == 0 ? why_no_bucket (e, k) : why_no_room (e, j, k, s);
    s->reason = r;
    s->reason_slots = j->nslots;
    s->reason_colocated = j->colocated;
    s->reason_queue = e->queue;
    return r;
}

/* ---- running jobs --------------------------------------------------------------------- */

static void apply_running (struct engine *e, struct ccas_job *j)
{
    for (uint32_t i = 0; i < j->nrunning_on; i++) {
        struct ccas_node *n = ccas_cluster_find_node (e->c, j->running_on[i]);
        if (!n) {
            ccas_log (LOG_INFO, "job %s: runs on '%s', which CycleCloud does not know", j->id,
                      j->running_on[i]);
            continue;
        }
        struct ccas_eval ev = {.job = e->job, .queue = e->queue};
        for (uint32_t ci = 0; ci < j->nchunks; ci++)
            if (ccas_constraint_fits (j->chunks[ci].cons, n, &ev, NULL, 0))
                ccas_constraint_take (j->chunks[ci].cons, n, &ev);
        n->busy = true;
        n->matched = true;
        n->sched_jobs++;
    }
}

/* ---- the pass --------------------------------------------------------------------------- */

/* Try the job as colocated; undone, and not colocated, when it fails. */
static bool attempt_colocated (struct engine *e, struct ccas_job *j, bool colocated_nodearrays_only, int ways)
{
    size_t mark = ccas_undo_mark (e->undo);
    j->colocated = true;
    if (place_colocated (e, j, colocated_nodearrays_only, ways))
        return true;
    ccas_undo_rollback (e->undo, mark);
    j->colocated = false;
    return false;
}

/* Spread over nodes outside any placement group only (PBS's "_none_" set). */
static bool place_outside_groups (struct engine *e, struct ccas_job *j)
{
    size_t mark = ccas_undo_mark (e->undo);
    e->outside_groups = true;
    bool ok = place_spread (e, j);
    e->outside_groups = false;
    if (!ok)
        ccas_undo_rollback (e->undo, mark);
    return ok;
}

/* A job is colocated when it asks to be.  One whose preferred bucket is
 * colocated (InfiniBand, or its nodearray configured so) is placed as
 * colocated too — its nodes there share one placement group whether it said
 * so or not — and, failing that, spread over the other buckets (spreading
 * never makes a colocated bucket's nodes outside a group, unless the job asks
 * for in-a-placement-group false).  A job of one slot that did not ask is
 * never colocated: one node has nothing to share a group with.  A job that
 * must keep its nodes in one placement set (single_set: one group, or none)
 * takes idle members of an existing group, else nodes outside any group,
 * else a group grown or made. */
static bool place (struct engine *e, struct ccas_job *j)
{
    bool forbids = false;
    for (uint32_t ci = 0; ci < j->nchunks; ci++) {
        if (ccas_constraint_info (j->chunks[ci].cons)->wants_pg)
            j->colocated = true;
        forbids = forbids || ccas_constraint_info (j->chunks[ci].cons)->forbids_pg;
    }
    if (j->colocated)
        return place_colocated (e, j, false, PG_EXISTING | PG_GROW);
    if (j->nslots == 1) {
        e->lone = true;
        bool ok = place_spread (e, j);
        e->lone = false;
        return ok;
    }
    struct shape *s = shape_of (e, j->chunks[0].cons);
    if (!forbids && shape_buckets (e, j->chunks[0].cons, s) == 0 && s->prefers_colocated) {
        if (attempt_colocated (e, j, true, PG_EXISTING | PG_GROW))
            return true;
        return j->single_set ? place_outside_groups (e, j) : place_spread (e, j);
    }
    if (j->single_set)
        return attempt_colocated (e, j, false, PG_EXISTING) || place_outside_groups (e, j) ||
               attempt_colocated (e, j, false, PG_GROW);
    return place_spread (e, j);
}

/* What the jobs a few places ahead will read first, asked of memory now:
 * their constraints, then (once those have come) what the pass keeps for
 * them.  Jobs of many shapes read each its own, scattered over a hundred
 * megabytes at a million jobs, and waited for each in turn. */
static const struct ccas_constraint *first_constraint (const struct ccas_job *j)
{
    return j->nchunks ? j->chunks[0].cons : NULL;
}

static void prefetch_job (struct engine *e, size_t i)
{
    enum { AHEAD = 8 };
    const struct ccas_constraint *k;
    if (i + 2 * AHEAD < e->jobs->n && (k = first_constraint (&e->jobs->v[i + 2 * AHEAD])))
        __builtin_prefetch (ccas_constraint_info (k));
    if (i + AHEAD < e->jobs->n && (k = first_constraint (&e->jobs->v[i + AHEAD]))) {
        __builtin_prefetch (shape_of (e, k));
        ccas_candidates_prefetch (e->cand, k);
    }
}

int ccas_match (struct ccas_cluster *c, struct ccas_jobs *jobs, struct ccas_match_stats *stats,
                struct ccas_error *err)
{
    struct engine e = {.c = c, .jobs = jobs, .exhaustive = exhaustive_matching};
    struct ccas_match_stats st = {0};
    int rc = -1;

    e.nshapes = ccas_constraint_cache_count (c->cons) + 1;
    if (!(e.shapes = calloc (e.nshapes, sizeof (*e.shapes))) || !(e.undo = ccas_undo_create ())) {
        ccas_errorf (err, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < jobs->n; i++)
        if (jobs->v[i].running) {
            e.job = (int32_t)i;
            e.queue = ccas_shared_queue (c->shared, jobs->v[i].queue);
            apply_running (&e, &jobs->v[i]);
        }
    if (!(e.cand = ccas_candidates_create (c, jobs, e.exhaustive))) {
        ccas_errorf (err, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < jobs->n; i++) {
        struct ccas_job *j = &jobs->v[i];
        prefetch_job (&e, i);
        if (j->running || j->ignore)
            continue;
        st.jobs++;
        e.job = (int32_t)i;
        e.queue = ccas_shared_queue (c->shared, j->queue);
        e.committed = (uint32_t)c->nnodes;
        if (!(j->slots = ccas_jobs_alloc (jobs, j->nslots * sizeof (*j->slots)))) {
            ccas_errorf (err, "out of memory");
            goto done;
        }
        size_t mark = ccas_undo_mark (e.undo);
        j->matched = place (&e, j);
        if (j->matched) {
            st.matched++;
            st.slots += j->nslots;
            if (ccas_candidates_commit (e.cand, j) < 0)
                e.oom = true;
        } else {
            ccas_undo_rollback (e.undo, mark);
            j->reason = explain (&e, j);
            st.unmatched++;
        }
        ccas_undo_clear (e.undo);
        if (e.oom) {
            ccas_errorf (err, "out of memory");
            goto done;
        }
    }
    for (size_t i = 0; stats && i < c->nnodes; i++) { /* (a read of every node: only when asked) */
        if (c->nodes[i]->kind == CCAS_NODE_NEW)
            st.new_nodes++;
        else if (c->nodes[i]->njobs > 0)
            st.existing_nodes++;
    }
    if (stats)
        *stats = st;
    rc = 0;
done:
    for (size_t i = 0; e.lists && e.list_v && i < ccas_resdict_count (e.lists); i++)
        free (e.list_v[i]);
    free (e.list_v);
    ccas_resdict_destroy (e.lists);
    free (e.ranked);
    free (e.shapes);
    ccas_candidates_destroy (e.cand);
    ccas_resdict_destroy (e.reasons);
    free (e.reason_text);
    ccas_undo_destroy (e.undo);
    return rc;
}
