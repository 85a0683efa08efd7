/* SPDX-License-Identifier: MIT */
/* constraint_eval.c: judge compiled constraints on nodes — whether a slot
 * fits, taking it, ranking and closeness — and what indexes read of them. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "model/constraint.h"
#include "model/constraint_term.h"

/* ---- evaluate ----------------------------------------------------------------- */

struct judge {
    const struct ccas_eval *ev;
    struct ccas_shared *shared;
    bool total; /* inside "not": judge what the node has, not what is free */
    char *why;
    size_t whysize;
};

static void say (struct judge *jg, const char *fmt, ...) __attribute__ ((format (printf, 2, 3)));
static void say (struct judge *jg, const char *fmt, ...)
{
    if (!jg->why)
        return;
    va_list ap;
    va_start (ap, fmt);
    vsnprintf (jg->why, jg->whysize, fmt, ap);
    va_end (ap);
}

static bool fits (struct judge *jg, const struct term *t, const struct ccas_node *n);

static const char *fmt_amount (double a, bool size, char *buf, size_t n);

/* Does pool `p` give the job of `jg` the amount `t` asks: enough left, or
 * taken by this job already (once per job, however many slots ask)? */
static bool pool_holds (struct judge *jg, const struct term *t, const struct ccas_shared_pool *p)
{
    char a[32], b[32], where[120];
    if (p->value.type == CCAS_V_NUM && p->value.u.num + 1e-9 >= t->amount)
        return true;
    if (jg->ev->job >= 0 && p->taker == jg->ev->job)
        return true;
    say (jg, "%s: needs %s, %s left %s", t->key, fmt_amount (t->amount, t->size, a, sizeof (a)),
         p->value.type == CCAS_V_NUM ? fmt_amount (p->value.u.num, t->size, b, sizeof (b)) : "none",
         ccas_shared_pool_where (p, where, sizeof (where)));
    return false;
}

static const char *fmt_amount (double a, bool size, char *buf, size_t n)
{
    struct ccas_value v = ccas_value_num (a);
    v.size = size;
    return ccas_value_format (&v, buf, n);
}

static bool fits_min (struct judge *jg, const struct term *t, const struct ccas_node *n)
{
    const struct ccas_value *v = ccas_node_res (n, t->index);
    char a[32], b[32];
    int word = v->type == CCAS_V_BOOL ? v->u.b : v->type == CCAS_V_STR ? ccas_value_bool_word (v->u.str) : -1;
    if (word >= 0 && !t->size && (t->amount == 0 || t->amount == 1)) {
        /* PBS writes a boolean as 1 or 0 too: a match, not a minimum */
        if (word == (t->amount == 1))
            return true;
        say (jg, "%s: wants %s, node has %s", t->key, t->amount == 1 ? "true" : "false",
             word ? "true" : "false");
        return false;
    }
    if (v->type != CCAS_V_NUM) {
        say (jg, "%s: the node does not define it", t->key);
        return false;
    }
    double have = jg->total ? v->u.num : n->avail[t->index];
    if (have + 1e-9 >= t->amount)
        return true;
    if (jg->why) /* formatting the amounts is most of a miss's cost: only when asked why */
        say (jg, "%s: needs %s, node has %s%s", t->key,
             fmt_amount (t->amount, t->size || v->size, a, sizeof (a)),
             fmt_amount (have, t->size || v->size, b, sizeof (b)), jg->total ? "" : " free");
    return false;
}

static bool any_matches (const struct term *t, const struct ccas_value *v)
{
    for (uint32_t i = 0; i < t->nvalues; i++)
        if (ccas_value_matches (&t->values[i], v))
            return true;
    return false;
}

static void say_mismatch (struct judge *jg, const char *what, const struct term *t,
                          const struct ccas_value *v)
{
    char want[96], have[96];
    if (!jg->why)
        return;
    ccas_value_format (&t->values[0], want, sizeof (want));
    ccas_value_format (v, have, sizeof (have));
    say (jg, "%s: wants %s%s, %s %s", t->key, t->nvalues > 1 ? "one of " : "", want, what, have);
}

static bool fits_list (struct judge *jg, const struct term *t, const struct ccas_node *n)
{
    char why0[256] = "";
    uint32_t matched = 0;
    for (uint32_t i = 0; i < t->nkids; i++) {
        struct judge sub = *jg;
        sub.why = i == 0 && jg->why ? why0 : NULL; /* formatting is most of a miss's cost */
        sub.whysize = sizeof (why0);
        if (fits (&sub, &t->kids[i], n)) {
            if (t->kind == T_OR)
                return true;
            matched++;
        }
    }
    if (t->kind == T_XOR && matched == 1)
        return true;
    if (t->kind == T_XOR && matched > 1)
        say (jg, "xor: %u options match, exactly one must", matched);
    else
        say (jg, "%s: none of %u options match (first: %s)", t->kind == T_OR ? "or" : "xor", t->nkids, why0);
    return false;
}

static bool fits (struct judge *jg, const struct term *t, const struct ccas_node *n)
{
    switch (t->kind) {
    case T_TRUE:
        return true;
    case T_AND:
        for (uint32_t i = 0; i < t->nkids; i++)
            if (!fits (jg, &t->kids[i], n))
                return false;
        return true;
    case T_OR:
    case T_XOR:
        return fits_list (jg, t, n);
    case T_NOT: {
        struct judge sub = *jg;
        sub.total = true;
        sub.why = NULL;
        if (!fits (&sub, t->kids, n))
            return true;
        say (jg, "not: the node satisfies what is excluded");
        return false;
    }
    case T_MIN:
        return fits_min (jg, t, n);
    case T_RES_MATCH: {
        const struct ccas_value *v = ccas_node_res (n, t->index);
        if (any_matches (t, v))
            return true;
        say_mismatch (jg, "node has", t, v);
        return false;
    }
    case T_PROP: {
        char buf[64];
        struct ccas_value v = ccas_node_prop (n, (enum ccas_node_prop)t->index, buf, sizeof (buf));
        if (any_matches (t, &v))
            return true;
        say_mismatch (jg, "node is", t, &v);
        return false;
    }
    case T_EXCLUSIVE:
        /* scalelib: one and only one iteration of the job on the node, so
         * even its own earlier slot closes it */
        if (!t->flag || jg->total || jg->ev->template_node || (!n->busy && n->njobs == 0))
            return true;
        if (!n->busy && n->exclusive && n->last_job == jg->ev->job)
            say (jg, "exclusive: one iteration of the job per node, and the node has one");
        else
            say (jg, "exclusive: the node already has other work");
        return false;
    case T_EXCL_TASK:
        /* the job owns the node; its own slots (scalelib's iterations of
         * the same job) may share it */
        if (!t->flag || jg->total || jg->ev->template_node)
            return true;
        if (!n->busy && (n->njobs == 0 || (n->exclusive && n->last_job == jg->ev->job)))
            return true;
        say (jg, "exclusive-task: the node already has other work");
        return false;
    case T_IN_PG:
        if (jg->ev->template_node)
            return true;
        if ((n->placement_group != NULL) == t->flag)
            return true;
        say (jg,
             t->flag ? "in-a-placement-group: the node is in none"
                     : "in-a-placement-group: the node is in '%s'",
             n->placement_group ? n->placement_group : "");
        return false;
    case T_NEVER:
        say (jg, "%s", t->message);
        return false;
    case T_SHARED_MIN: {
        /* every pool the job draws on (the cluster's, its queue's) must hold it */
        struct ccas_shared_pool *p[2];
        size_t np = ccas_shared_pools (jg->shared, t->index, jg->ev->queue, p);
        for (size_t i = 0; i < np; i++)
            if (!pool_holds (jg, t, p[i]))
                return false;
        return true;
    }
    case T_SHARED_MATCH: {
        struct ccas_shared_pool *p[2];
        struct ccas_value none = {.type = CCAS_V_NONE};
        size_t np = ccas_shared_pools (jg->shared, t->index, jg->ev->queue, p);
        const struct ccas_value *v = np ? &p[0]->value : &none;
        char where[120];
        if (any_matches (t, v))
            return true;
        if (np && p[0]->queue)
            snprintf (where, sizeof (where), "queue '%s' has", p[0]->queue);
        else
            snprintf (where, sizeof (where), "the cluster has");
        say_mismatch (jg, where, t, v);
        return false;
    }
    case T_CAPFAIL:
        if (!jg->ev->template_node || n->capfail_age < 0 || n->capfail_age >= t->amount)
            return true;
        say (jg, "capacity failure %.0f s ago (back-off %.0f s)", n->capfail_age, t->amount);
        return false;
    }
    return false;
}

bool ccas_constraint_fits (const struct ccas_constraint *c, const struct ccas_node *n,
                           const struct ccas_eval *ev, char *why, size_t whysize)
{
    struct judge jg = {ev, c->shared, false, why, whysize};
    if (why && whysize)
        why[0] = '\0';
    return fits (&jg, &c->root, n);
}

/* ---- take ------------------------------------------------------------------------ */

static void take (struct judge *jg, const struct term *t, struct ccas_node *n)
{
    struct ccas_undo *u = jg->ev->undo;
    switch (t->kind) {
    case T_AND:
        for (uint32_t i = 0; i < t->nkids; i++)
            take (jg, &t->kids[i], n);
        break;
    case T_OR:
    case T_XOR:
        /* the first child that fits is the one that consumes */
        for (uint32_t i = 0; i < t->nkids; i++)
            if (fits (jg, &t->kids[i], n)) {
                take (jg, &t->kids[i], n);
                break;
            }
        break;
    case T_MIN:
        if (ccas_node_res (n, t->index)->type != CCAS_V_NUM)
            break; /* a boolean asked as 1 or 0: nothing to consume */
        ccas_undo_double (u, &n->avail[t->index]);
        n->avail[t->index] -= t->amount;
        break;
    case T_SHARED_MIN: {
        /* from every pool the job draws on, once per job however many slots ask */
        struct ccas_shared_pool *p[2];
        size_t np = ccas_shared_pools (jg->shared, t->index, jg->ev->queue, p);
        for (size_t i = 0; i < np; i++) {
            if ((jg->ev->job >= 0 && p[i]->taker == jg->ev->job) || p[i]->value.type != CCAS_V_NUM)
                continue;
            ccas_undo_double (u, &p[i]->value.u.num);
            p[i]->value.u.num -= t->amount;
            if (p[i]->value.u.num < 0)
                p[i]->value.u.num = 0; /* never below zero, even through rounding */
            if (jg->ev->job >= 0) {
                ccas_undo_i32 (u, &p[i]->taker);
                p[i]->taker = jg->ev->job;
            }
        }
        break;
    }
    case T_EXCLUSIVE:
    case T_EXCL_TASK:
        if (t->flag && !n->exclusive) {
            ccas_undo_bool (u, &n->exclusive);
            n->exclusive = true;
        }
        break;
    default:
        break;
    }
}

void ccas_constraint_take (const struct ccas_constraint *c, struct ccas_node *n, const struct ccas_eval *ev)
{
    struct judge jg = {ev, c->shared, false, NULL, 0};
    take (&jg, &c->root, n);
}

static uint32_t rank (struct judge *jg, const struct term *t, const struct ccas_node *n)
{
    uint32_t r = 0;
    switch (t->kind) {
    case T_AND:
        for (uint32_t i = 0; i < t->nkids; i++)
            r += rank (jg, &t->kids[i], n);
        return r;
    case T_OR:
        /* the options in the order written, as a list's (scalelib's weights) */
        for (uint32_t i = 0; i < t->nkids; i++)
            if (fits (jg, &t->kids[i], n))
                return i + rank (jg, &t->kids[i], n);
        return t->nkids;
    case T_PROP: {
        char buf[64];
        struct ccas_value v = ccas_node_prop (n, (enum ccas_node_prop)t->index, buf, sizeof (buf));
        for (uint32_t i = 0; i < t->nvalues; i++)
            if (ccas_value_matches (&t->values[i], &v))
                return i;
        return t->nvalues;
    }
    case T_RES_MATCH: {
        const struct ccas_value *v = ccas_node_res (n, t->index);
        for (uint32_t i = 0; i < t->nvalues; i++)
            if (ccas_value_matches (&t->values[i], v))
                return i;
        return t->nvalues;
    }
    default:
        return 0;
    }
}

uint32_t ccas_constraint_rank (const struct ccas_constraint *c, const struct ccas_node *n)
{
    struct ccas_eval ev = {.job = -1, .template_node = true};
    struct judge jg = {&ev, c->shared, false, NULL, 0};
    return rank (&jg, &c->root, n);
}

/* A term's share of being satisfied: 1 if it holds, have/needed for an
 * unmet minimum, else 0. */
static double term_closeness (struct judge *jg, const struct term *t, const struct ccas_node *n)
{
    if (fits (jg, t, n))
        return 1;
    if (t->kind == T_MIN && t->amount > 0) {
        const struct ccas_value *v = ccas_node_res (n, t->index);
        return v->type == CCAS_V_NUM && v->u.num > 0 ? v->u.num / t->amount : 0;
    }
    return 0;
}

double ccas_constraint_closeness (const struct ccas_constraint *c, const struct ccas_node *n)
{
    struct ccas_eval ev = {.job = -1, .template_node = true};
    struct judge jg = {&ev, c->shared, false, NULL, 0};
    if (c->root.kind != T_AND)
        return term_closeness (&jg, &c->root, n);
    double k = 0;
    for (uint32_t i = 0; i < c->root.nkids; i++)
        k += term_closeness (&jg, &c->root.kids[i], n);
    return k;
}

/* ---- for indexes ------------------------------------------------------------------ */

/* Call fn on each term `t` requires: itself, or the members of an "and". */
static void each_required (const struct term *t, void (*fn) (const struct term *, void *), void *arg)
{
    if (t->kind == T_AND) {
        for (uint32_t i = 0; i < t->nkids; i++)
            each_required (&t->kids[i], fn, arg);
    } else
        fn (t, arg);
}

struct minimums {
    int *ids;
    double *amounts;
    size_t n, max;
};

static void add_minimum (const struct term *t, void *arg)
{
    struct minimums *m = arg;
    if (t->kind != T_MIN)
        return;
    for (size_t i = 0; i < m->n; i++)
        if (m->ids[i] == t->index) {
            if (t->amount > m->amounts[i])
                m->amounts[i] = t->amount;
            return;
        }
    if (m->n < m->max) {
        m->ids[m->n] = t->index;
        m->amounts[m->n++] = t->amount;
    }
}

size_t ccas_constraint_minimums (const struct ccas_constraint *c, int *ids, double *amounts, size_t max)
{
    struct minimums m = {ids, amounts, 0, max};
    each_required (&c->root, add_minimum, &m);
    return m.n;
}

struct options {
    struct ccas_cons_option *v;
    size_t n, max;
    bool done;
};

static void find_options (const struct term *t, void *arg)
{
    struct options *o = arg;
    if ((t->kind != T_OR && t->kind != T_XOR) || o->done)
        return;
    o->done = true;
    if (t->nkids > o->max)
        return;
    for (uint32_t i = 0; i < t->nkids; i++) {
        struct minimums m = {o->v[i].ids, o->v[i].amounts, 0, 8};
        each_required (&t->kids[i], add_minimum, &m);
        if ((o->v[i].n = m.n) == 0)
            return; /* an option that asks nothing: no choice to tell */
    }
    o->n = t->nkids;
}

size_t ccas_constraint_options (const struct ccas_constraint *c, struct ccas_cons_option *opts, size_t max)
{
    struct options o = {opts, 0, max, false};
    each_required (&c->root, find_options, &o);
    return o.n;
}

struct bucket_test {
    const struct ccas_node *t;
    bool ok;
};

static void test_bucket_term (const struct term *t, void *arg)
{
    struct bucket_test *bt = arg;
    if (t->kind == T_NEVER)
        bt->ok = false;
    else if (t->kind == T_PROP && ccas_node_prop_of_bucket ((enum ccas_node_prop)t->index)) {
        char buf[64];
        struct ccas_value v = ccas_node_prop (bt->t, (enum ccas_node_prop)t->index, buf, sizeof (buf));
        bt->ok = bt->ok && any_matches (t, &v);
    }
}

bool ccas_constraint_bucket_may_fit (const struct ccas_constraint *c, const struct ccas_node *t)
{
    struct bucket_test bt = {t, true};
    if (!c->info.bucket_terms)
        return true;
    each_required (&c->root, test_bucket_term, &bt);
    return bt.ok;
}

struct bucket_key {
    char *p, *end;
    bool full;
};

static void key_put (struct bucket_key *k, const char *s, size_t n)
{
    if ((size_t)(k->end - k->p) <= n) {
        k->full = true;
        return;
    }
    memcpy (k->p, s, n);
    k->p += n;
}

static void key_term (const struct term *t, void *arg)
{
    struct bucket_key *k = arg;
    if (t->kind == T_NEVER)
        key_put (k, "N;", 2);
    if (t->kind != T_PROP || !ccas_node_prop_of_bucket ((enum ccas_node_prop)t->index))
        return;
    char head[16];
    int n = snprintf (head, sizeof (head), "P%d", t->index);
    key_put (k, head, (size_t)n);
    for (uint32_t i = 0; i < t->nvalues; i++) {
        const struct ccas_value *v = &t->values[i];
        char num[40];
        key_put (k, ":", 1);
        if (v->type == CCAS_V_STR)
            key_put (k, v->u.str, strlen (v->u.str));
        else {
            n = snprintf (num, sizeof (num), "%d/%.17g/%d", (int)v->type, v->u.num, (int)v->u.b);
            key_put (k, num, (size_t)n);
        }
        key_put (k, "\x1f", 1); /* no value holds it */
    }
    key_put (k, ";", 1);
}

size_t ccas_constraint_bucket_key (const struct ccas_constraint *c, char *buf, size_t size)
{
    struct bucket_key k = {buf, buf + size, false};
    if (size == 0)
        return 0;
    each_required (&c->root, key_term, &k);
    if (k.full)
        return 0;
    *k.p = '\0';
    return (size_t)(k.p - buf);
}

struct pools_test {
    struct judge jg; /* as fits() judges them */
    bool ok;
};

static void test_pool_term (const struct term *t, void *arg)
{
    struct pools_test *pt = arg;
    if (pt->ok && (t->kind == T_SHARED_MIN || t->kind == T_SHARED_MATCH))
        pt->ok = fits (&pt->jg, t, NULL);
}

bool ccas_constraint_pools_hold (const struct ccas_constraint *c, int32_t job, int32_t queue)
{
    struct ccas_eval ev = {.job = job, .queue = queue};
    struct pools_test pt = {{&ev, c->shared, false, NULL, 0}, true};
    if (!c->info.pools)
        return true;
    each_required (&c->root, test_pool_term, &pt);
    return pt.ok;
}
