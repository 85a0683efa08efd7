/* SPDX-License-Identifier: MIT */
/* fallback.c: move the slots of nodes a create did not make to new nodes of the next bucket. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "engine/fallback.h"
#include "util/log.h"

/* One slot a lost node held. */
struct held {
    uint32_t lost; /* which lost node */
    int32_t job;   /* index in the jobs */
    uint32_t slot; /* index in the job's slots */
    const struct ccas_constraint *cons;
};

struct mover {
    struct ccas_cluster *c;
    struct ccas_jobs *jobs;
    struct ccas_node *const *lost;
    size_t nlost;
    struct held *v; /* sorted by lost node */
    size_t n;
    size_t *first;           /* [lost] -> first entry of v, first[nlost] = n */
    struct ccas_bucket **by; /* buckets in preference order */
    bool *done;              /* [lost]: moved, or given up */
};

static const struct ccas_constraint *chunk_of (const struct ccas_job *j, uint32_t slot)
{
    for (uint32_t ci = 0; ci < j->nchunks; ci++) {
        if (slot < j->chunks[ci].count)
            return j->chunks[ci].cons;
        slot -= j->chunks[ci].count;
    }
    return NULL;
}

static int cmp_held (const void *pa, const void *pb)
{
    const struct held *a = pa, *b = pb;
    if (a->lost != b->lost)
        return a->lost < b->lost ? -1 : 1;
    return a->job != b->job ? (a->job < b->job ? -1 : 1) : (a->slot < b->slot ? -1 : a->slot > b->slot);
}

static int cmp_bucket (const void *pa, const void *pb)
{
    const struct ccas_bucket *a = *(struct ccas_bucket *const *)pa, *b = *(struct ccas_bucket *const *)pb;
    if (a->na->priority != b->na->priority)
        return a->na->priority > b->na->priority ? -1 : 1;
    return a->order < b->order ? -1 : a->order > b->order;
}

/* Every slot a lost node held, by lost node. */
static int collect (struct mover *m)
{
    struct ccas_cluster *c = m->c;
    int32_t *at = malloc ((c->nnodes + 1) * sizeof (*at));
    size_t cap = 0;
    if (!at)
        return -1;
    for (size_t i = 0; i <= c->nnodes; i++)
        at[i] = -1;
    for (size_t i = 0; i < m->nlost; i++)
        at[m->lost[i]->index] = (int32_t)i;
    for (size_t j = 0; j < m->jobs->n; j++) {
        const struct ccas_job *job = &m->jobs->v[j];
        for (uint32_t s = 0; job->matched && !job->running && job->slots && s < job->nslots; s++) {
            const struct ccas_node *n = job->slots[s];
            if (!n || n->index >= c->nnodes || at[n->index] < 0 || c->nodes[n->index] != n)
                continue;
            if (m->n == cap) {
                cap = cap ? cap * 2 : 64;
                struct held *v = realloc (m->v, cap * sizeof (*v));
                if (!v) {
                    free (at);
                    return -1;
                }
                m->v = v;
            }
            m->v[m->n++] = (struct held){(uint32_t)at[n->index], (int32_t)j, s, chunk_of (job, s)};
        }
    }
    free (at);
    if (m->n > 1)
        qsort (m->v, m->n, sizeof (*m->v), cmp_held);
    for (size_t i = 0, k = 0; i <= m->nlost; i++) {
        while (k < m->n && m->v[k].lost < i)
            k++;
        m->first[i] = k;
    }
    return 0;
}

/* Whether every slot lost node `l` held may go to a node of `b`. */
static bool bucket_takes (const struct mover *m, size_t l, const struct ccas_bucket *b)
{
    struct ccas_eval ev = {.job = -1, .template_node = true};
    bool lone = true;
    if (b->hold_reason || ccas_bucket_available (b, NULL, 0) < 1)
        return false;
    for (size_t k = m->first[l]; k < m->first[l + 1]; k++) {
        if (!m->v[k].cons || !ccas_constraint_fits (m->v[k].cons, &b->template_node, &ev, NULL, 0))
            return false;
        lone = lone && m->jobs->v[m->v[k].job].nslots == 1;
    }
    /* outside groups: never into a bucket that keeps jobs of several nodes in groups */
    return m->lost[l]->pg || !b->colocated || lone;
}

/* Put the slots of lost node `l` on new node `n`; false (nothing undone
 * here) when one does not fit. */
static bool fill (struct mover *m, size_t l, struct ccas_node *n, struct ccas_undo *undo)
{
    for (size_t k = m->first[l]; k < m->first[l + 1]; k++) {
        const struct held *h = &m->v[k];
        const struct ccas_job *job = &m->jobs->v[h->job];
        struct ccas_eval ev = {
            .job = h->job, .queue = ccas_shared_queue (m->c->shared, job->queue), .undo = undo};
        if (!ccas_constraint_fits (h->cons, n, &ev, NULL, 0))
            return false;
        ccas_constraint_take (h->cons, n, &ev);
        if (n->last_job != h->job) {
            ccas_undo_u32 (undo, &n->njobs);
            n->njobs++;
            ccas_undo_i32 (undo, &n->last_job);
            n->last_job = h->job;
        }
        ccas_undo_bool (undo, &n->matched);
        n->matched = true;
    }
    n->create_attributes = m->lost[l]->create_attributes;
    return true;
}

/* The slots of lost node `l` now on `n`. */
static void repoint (struct mover *m, size_t l, struct ccas_node *n)
{
    for (size_t k = m->first[l]; k < m->first[l + 1]; k++)
        m->jobs->v[m->v[k].job].slots[m->v[k].slot] = n;
    m->done[l] = true;
}

/* Move the lost nodes `unit` (`nunit` of them: one outside groups, or a
 * group's) into new nodes of one bucket, a new group for a group.  Returns
 * 1 when moved, 0 when no bucket takes them, -1 when out of memory. */
static int move_unit (struct mover *m, const size_t *unit, size_t nunit)
{
    struct ccas_cluster *c = m->c;
    bool grouped = m->lost[unit[0]]->pg != NULL;
    struct ccas_node **made = calloc (nunit + 1, sizeof (*made));
    int moved = 0;
    if (!made)
        return -1;
    for (size_t bi = 0; bi < c->nbuckets && !moved; bi++) {
        struct ccas_bucket *b = m->by[bi];
        bool ok = !grouped || ccas_pg_room (b, NULL, CCAS_PG_WITH_BUCKET) >= (int64_t)nunit;
        for (size_t u = 0; ok && u < nunit; u++)
            ok = bucket_takes (m, unit[u], b);
        if (!ok)
            continue;
        struct ccas_undo *undo = ccas_undo_create ();
        struct ccas_pg *pg = grouped && undo ? ccas_pg_get (c, b, NULL, undo) : NULL;
        ok = undo && (!grouped || pg);
        for (size_t u = 0; ok && u < nunit; u++)
            ok = (made[u] = ccas_cluster_new_node (c, b, pg, undo)) && fill (m, unit[u], made[u], undo);
        if (ok) {
            for (size_t u = 0; u < nunit; u++)
                repoint (m, unit[u], made[u]);
            moved = 1;
        } else if (undo)
            ccas_undo_rollback (undo, 0);
        ccas_undo_destroy (undo);
        if (!undo) {
            moved = -1;
            break;
        }
    }
    free (made);
    return moved;
}

/* Whether a job with a slot on one of the lost nodes `unit` also has one
 * elsewhere (a node that was made, or exists): a group cannot move then. */
static bool split_jobs (const struct mover *m, const size_t *unit, size_t nunit)
{
    for (size_t u = 0; u < nunit; u++)
        for (size_t k = m->first[unit[u]]; k < m->first[unit[u] + 1]; k++) {
            const struct ccas_job *job = &m->jobs->v[m->v[k].job];
            for (uint32_t s = 0; s < job->nslots; s++) {
                bool on_unit = false;
                for (size_t w = 0; w < nunit && !on_unit; w++)
                    on_unit = job->slots[s] == m->lost[unit[w]];
                if (!on_unit)
                    return true;
            }
        }
    return false;
}

static int move_all (struct mover *m)
{
    size_t *unit = calloc (m->nlost + 1, sizeof (*unit));
    int moved = 0;
    if (!unit)
        return -1;
    for (size_t l = 0; l < m->nlost; l++) {
        size_t nunit = 0;
        if (m->done[l] || m->first[l] == m->first[l + 1])
            continue; /* moved with its group, or held no slot */
        const struct ccas_pg *pg = m->lost[l]->pg;
        for (size_t o = l; o < m->nlost; o++)
            if (o == l || (pg && m->lost[o]->pg == pg && !m->done[o]))
                unit[nunit++] = o;
        for (size_t u = 0; u < nunit; u++)
            m->done[unit[u]] = true; /* tried once, moved or not */
        if (pg && split_jobs (m, unit, nunit))
            continue;
        int rc = move_unit (m, unit, nunit);
        if (rc < 0) {
            free (unit);
            return -1;
        }
        moved += rc ? (int)nunit : 0;
    }
    free (unit);
    return moved;
}

int ccas_fallback_jobs (struct ccas_cluster *c, struct ccas_jobs *jobs, struct ccas_node *const *lost,
                        size_t nlost, struct ccas_error *err)
{
    struct mover m = {.c = c, .jobs = jobs, .lost = lost, .nlost = nlost};
    int moved = -1;
    if (!jobs || !nlost)
        return 0;
    if (!(m.first = calloc (nlost + 1, sizeof (*m.first))) ||
        !(m.done = calloc (nlost + 1, sizeof (*m.done))) ||
        !(m.by = calloc (c->nbuckets + 1, sizeof (*m.by))) || collect (&m) < 0)
        goto done;
    for (size_t i = 0; i < c->nbuckets; i++)
        m.by[i] = &c->buckets[i];
    qsort (m.by, c->nbuckets, sizeof (*m.by), cmp_bucket);
    moved = move_all (&m);
    if (moved >= 0)
        ccas_log (LOG_INFO, "fallback: %d of %zu node%s lost to capacity placed again elsewhere", moved,
                  nlost, nlost == 1 ? "" : "s");
done:
    free (m.v);
    free (m.first);
    free (m.done);
    free (m.by);
    if (moved < 0)
        return ccas_errorf (err, "out of memory");
    return moved;
}

int ccas_fallback_jobs_cb (void *arg, struct ccas_plan *plan, struct ccas_node *const *lost, size_t nlost,
                           struct ccas_error *err)
{
    return ccas_fallback_jobs (plan->cluster, arg, lost, nlost, err) < 0 ? -1 : 0;
}
