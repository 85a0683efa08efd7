/* SPDX-License-Identifier: MIT */
/* room.c: a max-tree over groups of entries; the first entry from a position that passes a need. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine/room.h"

#define G CCAS_ROOM_GROUP
/* Children of a tree node: a power of two.  Four children, contiguous, are
 * read about as fast as two, and a tree of a million entries is then 9
 * levels deep, not 17: half as many nodes to recompute above a commit, and
 * to wait for on the way down. */
#define LOGW 2
#define W (1u << LOGW)
/* Levels below the root at most (W^14 groups: 2^31 entries). */
#define MAX_DEPTH 14

/* An entry's kept summary: a struct ccas_room without the staircase, which
 * res[0] and res[1] give.  With thresholds, `level` is how many of them
 * res[0] reaches and `clevel` the same for the counts (0 unless open), so
 * that its staircase is res[1] below `level` and its count 1 below
 * `clevel`; an index that keeps counts without thresholds keeps the leaf's
 * counts beside (struct ccas_roomidx.cnt). */
struct slot {
    float res[CCAS_ROOM_NRES];
    uint64_t buckets;
    uint32_t open, idle, grow, open_grow, idle_grow;
    uint8_t flags;
    uint8_t level, clevel;
};

struct ccas_roomidx {
    /* t[0] is the root, node k's children are t[W*k + 1 .. W*k + W], level
     * by level; group g (entries g*G..) is t[base + g], the deepest level */
    struct ccas_room *t;
    struct slot *e;                    /* entries (room for gcap * G; only the first n are set) */
    uint16_t (*cnt)[CCAS_ROOM_STAIRS]; /* the entries' counts, if kept without thresholds */
    uint32_t gcap;                     /* groups: a power of W */
    uint32_t depth;                    /* gcap = W^depth */
    uint32_t base;                     /* the first group's node */
    uint32_t n;                        /* entries the tree covers */
    bool sum_open;
    bool use_stairs;
    bool use_counts;
    float stairs[CCAS_ROOM_STAIRS];
    ccas_room_leaf_f leaf;
    void *arg;
    /* groups whose entries changed and whose tree nodes wait to be
     * recomputed (see flush(), which every reader of the tree calls first) */
    uint32_t *dirty;
    uint32_t ndirty, dirtycap;
    struct ccas_room closed; /* a closed summary, to start unions from */
};

/* Groups a flush waits for at most. */
#define DIRTY_MAX 1024

void ccas_room_closed (struct ccas_room *s)
{
    memset (s, 0, sizeof (*s));
    for (int r = 0; r < CCAS_ROOM_NRES; r++)
        s->res[r] = -INFINITY;
    for (int l = 0; l < CCAS_ROOM_STAIRS; l++)
        s->stair[l] = -INFINITY;
}

void ccas_room_need_any (struct ccas_room_need *n)
{
    memset (n, 0, sizeof (*n));
    for (int r = 0; r < CCAS_ROOM_NRES; r++)
        n->res[r] = -INFINITY;
    n->stair = -1;
    n->count_level = -1;
    n->buckets = ~(uint64_t)0;
    n->nodes = 1;
}

float ccas_room_bound (double v)
{
    float f = (float)v;
    if ((double)f < v)
        f = nextafterf (f, INFINITY);
    return f;
}

float ccas_room_minimum (double v)
{
    double m = v - 1e-9; /* ccas_constraint_fits(): have + 1e-9 >= amount */
    float f = (float)m;
    if ((double)f > m)
        f = nextafterf (f, -INFINITY);
    return f;
}

static uint32_t sat_add (uint32_t a, uint32_t b)
{
    return a > UINT32_MAX - b ? UINT32_MAX : a + b;
}

static uint32_t max32 (uint32_t a, uint32_t b)
{
    return a > b ? a : b;
}

static uint16_t add16 (uint16_t a, uint16_t b)
{
    return a > UINT16_MAX - b ? UINT16_MAX : (uint16_t)(a + b);
}

static float maxf (float a, float b)
{
    return a > b ? a : b;
}

/* *p = the union of *p and *s.  Fixed-length loops without tests inside: a
 * staircase or counts an index does not keep are -INFINITY or 0 everywhere,
 * which a union leaves as they are. */
static inline void add (const struct ccas_roomidx *x, struct ccas_room *p, const struct ccas_room *s)
{
    for (int r = 0; r < CCAS_ROOM_NRES; r++)
        p->res[r] = maxf (p->res[r], s->res[r]);
    for (int l = 0; l < CCAS_ROOM_STAIRS; l++)
        p->stair[l] = maxf (p->stair[l], s->stair[l]);
    p->buckets |= s->buckets;
    p->flags |= s->flags;
    p->grow = max32 (p->grow, s->grow);
    if (x->sum_open) {
        for (int l = 0; l < CCAS_ROOM_STAIRS; l++)
            p->count[l] = add16 (p->count[l], s->count[l]);
        p->open = sat_add (p->open, s->open);
        p->idle = sat_add (p->idle, s->idle);
        p->open_grow = sat_add (p->open_grow, s->open_grow);
        p->idle_grow = sat_add (p->idle_grow, s->idle_grow);
    } else {
        for (int l = 0; l < CCAS_ROOM_STAIRS; l++)
            p->count[l] = p->count[l] > s->count[l] ? p->count[l] : s->count[l];
        p->open = max32 (p->open, s->open);
        p->idle = max32 (p->idle, s->idle);
        p->open_grow = max32 (p->open_grow, s->open_grow);
        p->idle_grow = max32 (p->idle_grow, s->idle_grow);
    }
}

/* *p = the union of the kept summaries of entries [first, last), p closed
 * before.  A staircase is a running maximum down from the highest level, so
 * each entry adds to the level it reaches only (and likewise the counts). */
static void union_slots (const struct ccas_roomidx *x, uint32_t first, uint32_t last, struct ccas_room *p)
{
    float top[CCAS_ROOM_STAIRS + 1];   /* the largest res[1] of an entry at each level */
    uint32_t at[CCAS_ROOM_STAIRS + 1]; /* open entries at each count level */
    for (int l = 0; l <= CCAS_ROOM_STAIRS; l++) {
        top[l] = -INFINITY;
        at[l] = 0;
    }
    for (uint32_t i = first; i < last; i++) {
        const struct slot *e = &x->e[i];
        for (int r = 0; r < CCAS_ROOM_NRES; r++)
            p->res[r] = maxf (p->res[r], e->res[r]);
        top[e->level] = maxf (top[e->level], e->res[1]);
        at[e->clevel]++;
        p->buckets |= e->buckets;
        p->flags |= e->flags;
        p->grow = max32 (p->grow, e->grow);
        if (x->sum_open) {
            p->open = sat_add (p->open, e->open);
            p->idle = sat_add (p->idle, e->idle);
            p->open_grow = sat_add (p->open_grow, e->open_grow);
            p->idle_grow = sat_add (p->idle_grow, e->idle_grow);
        } else {
            p->open = max32 (p->open, e->open);
            p->idle = max32 (p->idle, e->idle);
            p->open_grow = max32 (p->open_grow, e->open_grow);
            p->idle_grow = max32 (p->idle_grow, e->idle_grow);
        }
        if (x->cnt)
            for (int l = 0; l < CCAS_ROOM_STAIRS; l++)
                p->count[l] = x->sum_open ? add16 (p->count[l], x->cnt[i][l])
                                          : (p->count[l] > x->cnt[i][l] ? p->count[l] : x->cnt[i][l]);
    }
    if (!x->use_stairs)
        return;
    float best = -INFINITY;
    uint32_t n = 0;
    for (int l = CCAS_ROOM_STAIRS - 1; l >= 0; l--) {
        best = maxf (best, top[l + 1]);
        p->stair[l] = best;
        n += at[l + 1];
        if (x->use_counts)
            p->count[l] = !x->sum_open ? n > 0 : n > UINT16_MAX ? UINT16_MAX : (uint16_t)n;
    }
}

/* Member by member: a bytewise compare of the whole struct would read its
 * padding, and the arrays hold floats that == judges (no NaN is stored). */
static bool same (const struct ccas_room *a, const struct ccas_room *b)
{
    if (a->buckets != b->buckets || a->open != b->open || a->idle != b->idle || a->grow != b->grow ||
        a->open_grow != b->open_grow || a->idle_grow != b->idle_grow || a->flags != b->flags)
        return false;
    for (int r = 0; r < CCAS_ROOM_NRES; r++)
        if (a->res[r] != b->res[r])
            return false;
    for (int l = 0; l < CCAS_ROOM_STAIRS; l++)
        if (a->stair[l] != b->stair[l] || a->count[l] != b->count[l])
            return false;
    return true;
}

static void slot_closed (struct slot *e)
{
    memset (e, 0, sizeof (*e));
    for (int r = 0; r < CCAS_ROOM_NRES; r++)
        e->res[r] = -INFINITY;
}

/* Keep `s` (at least what is kept already, when `raise`) as entry i. */
static void keep (struct ccas_roomidx *x, uint32_t i, const struct ccas_room *s, bool raise)
{
    struct slot *e = &x->e[i];
    uint8_t level = 0;
    while (x->use_stairs && level < CCAS_ROOM_STAIRS && s->res[0] >= x->stairs[level])
        level++;
    uint8_t clevel = x->use_counts && s->open ? level : 0;
    if (!raise) {
        if (x->cnt)
            memcpy (x->cnt[i], s->count, sizeof (x->cnt[i]));
        memcpy (e->res, s->res, sizeof (e->res));
        e->buckets = s->buckets;
        e->open = s->open;
        e->idle = s->idle;
        e->grow = s->grow;
        e->open_grow = s->open_grow;
        e->idle_grow = s->idle_grow;
        e->flags = s->flags;
        e->level = level;
        e->clevel = clevel;
        return;
    }
    for (int l = 0; x->cnt && l < CCAS_ROOM_STAIRS; l++)
        x->cnt[i][l] = x->cnt[i][l] > s->count[l] ? x->cnt[i][l] : s->count[l];
    for (int r = 0; r < CCAS_ROOM_NRES; r++)
        e->res[r] = maxf (e->res[r], s->res[r]);
    e->buckets |= s->buckets;
    e->open = max32 (e->open, s->open);
    e->idle = max32 (e->idle, s->idle);
    e->grow = max32 (e->grow, s->grow);
    e->open_grow = max32 (e->open_grow, s->open_grow);
    e->idle_grow = max32 (e->idle_grow, s->idle_grow);
    e->flags |= s->flags;
    e->level = level > e->level ? level : e->level; /* (res[0] is the larger of the two) */
    e->clevel = clevel > e->clevel ? clevel : e->clevel;
}

/* The first tree node of level d (the root's is 0). */
static size_t level_first (uint32_t d)
{
    return (((size_t)1 << (LOGW * d)) - 1) / (W - 1);
}

/* Recompute tree node k from its children (or its entries); true if it changed.
 * Summaries are copied whole (padding too) so that same() compares them. */
static bool recompute (struct ccas_roomidx *x, uint32_t k)
{
    struct ccas_room s;
    if (k >= x->base) {
        uint32_t first = (k - x->base) * G, last = first + G < x->n ? first + G : x->n;
        memcpy (&s, &x->closed, sizeof (s));
        union_slots (x, first, last, &s);
    } else {
        const struct ccas_room *c = &x->t[W * k + 1];
        memcpy (&s, c, sizeof (s));
        for (uint32_t j = 1; j < W; j++)
            add (x, &s, &c[j]);
    }
    if (same (&s, &x->t[k]))
        return false;
    memcpy (&x->t[k], &s, sizeof (s));
    return true;
}

/* Group g's entries changed (committed, raised, or no longer covered): its
 * tree nodes are recomputed at the next flush(), which every search and
 * ccas_room_root() make first. */
static void flush (struct ccas_roomidx *x);

static void mark (struct ccas_roomidx *x, uint32_t g)
{
    if (x->ndirty > 0 && x->dirty[x->ndirty - 1] == g)
        return;
    if (x->ndirty == x->dirtycap) {
        uint32_t cap = x->dirtycap ? x->dirtycap * 2 : 16;
        uint32_t *v = cap <= DIRTY_MAX ? realloc (x->dirty, cap * sizeof (*v)) : NULL;
        if (v) {
            x->dirty = v;
            x->dirtycap = cap;
        } else
            flush (x);
    }
    if (x->ndirty < x->dirtycap)
        x->dirty[x->ndirty++] = g;
    else /* no list at all (out of memory): recompute it now */
        for (uint32_t k = x->base + g; recompute (x, k) && k > 0; k = (k - 1) / W)
            ;
}

static int cmp_u32 (const void *pa, const void *pb)
{
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    return a < b ? -1 : a > b;
}

/* Recompute the marked groups and their ancestors, level by level: groups
 * of one job's new nodes are neighbours, and share every ancestor but the
 * first few, which are then recomputed once, not once per entry. */
static void flush (struct ccas_roomidx *x)
{
    uint32_t *v = x->dirty, n = x->ndirty, m = 0;
    if (n == 0)
        return;
    if (n > 1)
        qsort (v, n, sizeof (*v), cmp_u32);
    for (uint32_t i = 0; i < n; i++) /* tree nodes, each once */
        if (m == 0 || v[m - 1] != x->base + v[i])
            v[m++] = x->base + v[i];
    for (n = m; n > 0; n = m) {
        m = 0;
        for (uint32_t i = 0; i < n; i++) { /* (v[m] is written after v[i] is read) */
            uint32_t k = v[i];
            if (recompute (x, k) && k > 0 && (m == 0 || v[m - 1] != (k - 1) / W))
                v[m++] = (k - 1) / W;
        }
    }
    x->ndirty = 0;
}

struct ccas_roomidx *ccas_room_create (int mode, uint32_t hint, const float *stairs, ccas_room_leaf_f leaf,
                                       void *arg)
{
    struct ccas_roomidx *x = calloc (1, sizeof (*x));
    if (!x)
        return NULL;
    x->sum_open = mode & CCAS_ROOM_SUM;
    x->use_counts = mode & CCAS_ROOM_COUNTS;
    x->leaf = leaf;
    x->arg = arg;
    ccas_room_closed (&x->closed);
    if ((x->use_stairs = stairs != NULL))
        memcpy (x->stairs, stairs, sizeof (x->stairs));
    x->gcap = 1;
    while ((uint64_t)x->gcap * G < hint && x->depth < MAX_DEPTH) {
        x->gcap *= W;
        x->depth++;
    }
    x->base = (uint32_t)level_first (x->depth);
    x->t = malloc (((size_t)x->base + x->gcap) * sizeof (*x->t));
    x->e = malloc ((size_t)x->gcap * G * sizeof (*x->e));
    if (x->use_counts && !x->use_stairs && !(x->cnt = malloc ((size_t)x->gcap * G * sizeof (*x->cnt))))
        x->e = (free (x->e), NULL);
    if (!x->t || !x->e) {
        ccas_room_destroy (x);
        return NULL;
    }
    for (size_t k = 0; k < (size_t)x->base + x->gcap; k++)
        ccas_room_closed (&x->t[k]);
    return x;
}

void ccas_room_destroy (struct ccas_roomidx *x)
{
    if (!x)
        return;
    free (x->t);
    free (x->e);
    free (x->cnt);
    free (x->dirty);
    free (x);
}

/* Multiply the groups by W until entry `i` fits, in place: the old tree
 * becomes the new root's first subtree (the node at place p of level d moves
 * to place p of level d + 1, deepest level first, each into space the level
 * below has left).  The new entries are left unwritten (cover() sets them as
 * n reaches them): an index that grows touches what it uses, which at a
 * million nodes is what the kernel spends its time zeroing. */
static int grow_to (struct ccas_roomidx *x, uint32_t i)
{
    while (i / G >= x->gcap) {
        if (x->depth >= MAX_DEPTH)
            return -1;
        uint32_t gcap = x->gcap * W;
        struct slot *e = realloc (x->e, (size_t)gcap * G * sizeof (*e));
        if (!e)
            return -1;
        x->e = e;
        if (x->cnt) {
            uint16_t (*cnt)[CCAS_ROOM_STAIRS] = realloc (x->cnt, (size_t)gcap * G * sizeof (*cnt));
            if (!cnt)
                return -1;
            x->cnt = cnt;
        }
        struct ccas_room *t = realloc (x->t, (level_first (x->depth + 1) + gcap) * sizeof (*t));
        if (!t)
            return -1; /* the entries have room to spare: harmless */
        x->t = t;
        for (uint32_t d = x->depth + 1; d-- > 0;) {
            size_t from = level_first (d), to = level_first (d + 1), count = (size_t)1 << (LOGW * d);
            memmove (&t[to], &t[from], count * sizeof (*t));
            for (size_t k = to + count; k < to + count * W; k++)
                ccas_room_closed (&t[k]);
        }
        x->gcap = gcap;
        x->depth++;
        x->base = (uint32_t)level_first (x->depth);
        ccas_room_closed (&t[0]);
        add (x, &t[0], &t[1]);
    }
    return 0;
}

/* Make the tree cover entry i: entries it reaches anew start closed. */
static int cover (struct ccas_roomidx *x, uint32_t i)
{
    if (grow_to (x, i) < 0)
        return -1;
    for (; x->n <= i; x->n++) {
        slot_closed (&x->e[x->n]);
        if (x->cnt)
            memset (x->cnt[x->n], 0, sizeof (x->cnt[x->n]));
    }
    return 0;
}

int ccas_room_update (struct ccas_roomidx *x, uint32_t i)
{
    struct ccas_room s;
    if (cover (x, i) < 0)
        return -1;
    x->leaf (x->arg, i, &s);
    keep (x, i, &s, false);
    mark (x, i / G);
    return 0;
}

int ccas_room_raise (struct ccas_roomidx *x, uint32_t i)
{
    struct ccas_room s;
    if (cover (x, i) < 0)
        return -1;
    x->leaf (x->arg, i, &s);
    /* the entry's own summary only goes up: raising it twice (or an entry
     * made again where a rolled-back one was) counts it once; the tree is
     * recomputed above it at the next search, with the entries committed
     * meanwhile (a job's new node is raised, then committed) */
    keep (x, i, &s, true);
    mark (x, i / G);
    return 0;
}

void ccas_room_truncate (struct ccas_roomidx *x, uint32_t n)
{
    if (n >= x->n)
        return;
    uint32_t old = x->n;
    x->n = n; /* the entries past it are closed again when covered */
    for (uint32_t g = n / G; g <= (old - 1) / G; g++)
        mark (x, g);
}

void ccas_room_clear (struct ccas_roomidx *x)
{
    x->n = 0;
    x->ndirty = 0;
    for (size_t k = 0; k < (size_t)x->base + x->gcap; k++)
        ccas_room_closed (&x->t[k]);
}

const struct ccas_room *ccas_room_root (struct ccas_roomidx *x)
{
    flush (x);
    return &x->t[0];
}

/* Whether res meets all of one of the request's options (if it has any). */
static bool some_option (const float *res, const struct ccas_room_need *n)
{
    for (uint32_t o = 0; o < n->noptions; o++) {
        int r = 0;
        while (r < CCAS_ROOM_NRES && res[r] >= n->option[o][r])
            r++;
        if (r == CCAS_ROOM_NRES)
            return true;
    }
    return n->noptions == 0;
}

/* Whether an entry below may have `nodes` nodes: an upper bound of
 * open + min(grow, avail) (idle ones, when only idle nodes will do). */
static bool enough (uint32_t open, uint32_t idle, uint32_t open_grow, uint32_t idle_grow,
                    const struct ccas_room_need *n)
{
    uint32_t have = n->idle_only ? idle : open, have_grow = n->idle_only ? idle_grow : open_grow;
    uint32_t most = have_grow < sat_add (have, n->avail) ? have_grow : sat_add (have, n->avail);
    return most >= n->nodes;
}

/* The same for nodes with enough of res[0] (count: see struct ccas_room). */
static bool enough_big (uint16_t count, uint32_t grow, const struct ccas_room_need *n)
{
    uint32_t c = count == UINT16_MAX ? UINT32_MAX : count;
    return sat_add (c, grow < n->avail ? grow : n->avail) >= n->nodes;
}

/* What a summary must have unless it is a group that may grow: the amounts,
 * a bucket and the flags (the tests that fail most, first and without
 * branches between them). */
static inline bool core (const float *res, uint64_t buckets, uint8_t flags, const struct ccas_room_need *n)
{
    bool amounts =
        (res[0] >= n->res[0]) & (res[1] >= n->res[1]) & (res[2] >= n->res[2]) & (res[3] >= n->res[3]);
    return amounts && (buckets & n->buckets) && (flags & n->flags) == n->flags;
}

bool ccas_room_passes (const struct ccas_room *s, const struct ccas_room_need *n)
{
    if (n->avail >= 1 && s->grow >= 1) /* a group that can grow takes new nodes, which fit */
        return enough (s->open, s->idle, s->open_grow, s->idle_grow, n) &&
               (n->count_level < 0 || enough_big (s->count[n->count_level], s->grow, n));
    if (!core (s->res, s->buckets, s->flags, n) || s->open < 1 ||
        !enough (s->open, s->idle, s->open_grow, s->idle_grow, n) ||
        (n->count_level >= 0 && !enough_big (s->count[n->count_level], s->grow, n)))
        return false;
    return (n->stair < 0 || s->stair[n->stair] >= n->res[1]) && some_option (s->res, n);
}

/* Whether entry i passes (one entry: its res[0] and res[1] are its staircase). */
static bool slot_passes (const struct ccas_roomidx *x, const struct slot *e, const struct ccas_room_need *n)
{
    uint16_t count = 0;
    if (n->count_level >= 0)
        count = x->cnt ? x->cnt[e - x->e][n->count_level] : n->count_level < e->clevel;
    if (n->avail >= 1 && e->grow >= 1)
        return enough (e->open, e->idle, e->open_grow, e->idle_grow, n) &&
               (n->count_level < 0 || enough_big (count, e->grow, n));
    if (!core (e->res, e->buckets, e->flags, n) || e->open < 1 ||
        !enough (e->open, e->idle, e->open_grow, e->idle_grow, n) ||
        (n->count_level >= 0 && !enough_big (count, e->grow, n)))
        return false;
    return some_option (e->res, n);
}

/* The first entry in [from, end) of group g that passes, or -1. */
static int64_t scan_group (const struct ccas_roomidx *x, uint32_t g, uint32_t from, uint32_t end,
                           const struct ccas_room_need *n)
{
    for (uint32_t i = g * G > from ? g * G : from; i < (g + 1) * G && i < end; i++)
        if (slot_passes (x, &x->e[i], n))
            return i;
    return -1;
}

/* The first entry of the subtree of tree node k, at level d. */
static uint64_t subtree_start (const struct ccas_roomidx *x, uint32_t k, uint32_t d)
{
    return ((uint64_t)(k - level_first (d)) << (LOGW * (x->depth - d))) * G;
}

/* The first entry below tree node k (which passes), at level d, in [.., end)
 * that passes, or -1. */
static int64_t descend (const struct ccas_roomidx *x, uint32_t k, uint32_t d, uint32_t end,
                        const struct ccas_room_need *n)
{
    if (d == x->depth)
        return scan_group (x, k - x->base, 0, end, n);
    for (uint32_t c = W * k + 1; c <= W * k + W; c++) /* (read in parallel, not in turn) */
        __builtin_prefetch (&x->t[c]);
    for (uint32_t c = W * k + 1; c <= W * k + W; c++) {
        if (subtree_start (x, c, d + 1) >= end)
            return -1;
        if (ccas_room_passes (&x->t[c], n)) {
            int64_t r = descend (x, c, d + 1, end, n);
            if (r >= 0)
                return r;
        }
    }
    return -1;
}

int64_t ccas_room_first (struct ccas_roomidx *x, uint32_t from, uint32_t end, const struct ccas_room_need *n)
{
    flush (x);
    if (end > x->n)
        end = x->n;
    if (from >= end)
        return -1;
    uint32_t k = x->base + from / G;
    if (ccas_room_passes (&x->t[k], n)) {
        int64_t r = scan_group (x, from / G, from, end, n);
        if (r >= 0)
            return r;
    }
    /* up from the group: the siblings to the right on the way cover what comes next */
    for (uint32_t d = x->depth; d > 0; d--, k = (k - 1) / W) {
        for (uint32_t s = k + 1; (s - 1) / W == (k - 1) / W; s++) {
            if (subtree_start (x, s, d) >= end)
                return -1;
            if (ccas_room_passes (&x->t[s], n)) {
                int64_t r = descend (x, s, d, end, n);
                if (r >= 0)
                    return r;
            }
        }
    }
    return -1;
}
