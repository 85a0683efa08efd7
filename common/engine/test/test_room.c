/* SPDX-License-Identifier: MIT */
/* test_room.c: the room index against a plain scan of the same summaries. */
#include "config.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine/room.h"

#define MAXN 3000

/* Rising thresholds from 1 to 128 (set in main()). */
static float stairs[CCAS_ROOM_STAIRS];

/* The entries as they are now (what the callback answers), and what the
 * index should keep: the last update, raised by every raise since. */
struct world {
    struct ccas_room now[MAXN];
    struct ccas_room kept[MAXN];
    uint32_t n;
};

static void leaf (void *arg, uint32_t i, struct ccas_room *out)
{
    struct world *w = arg;
    *out = w->now[i];
}

static uint64_t rng = 88172645463325252ULL;
static uint32_t rnd (uint32_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng % n);
}

static void random_entry (struct ccas_room *s)
{
    ccas_room_closed (s);
    if (rnd (5) == 0)
        return; /* closed */
    s->open = s->open_grow = 1;
    s->res[0] = (float)rnd (130);
    s->res[1] = (float)rnd (600);
    s->res[2] = rnd (3) ? INFINITY : (float)rnd (4);
    s->res[3] = INFINITY;
    s->buckets = (uint64_t)1 << rnd (8);
    s->flags = (uint8_t)(rnd (2) ? CCAS_ROOM_IDLE : 0) | (rnd (2) ? CCAS_ROOM_IN_PG : CCAS_ROOM_NO_PG);
}

static void random_need (struct ccas_room_need *n)
{
    ccas_room_need_any (n);
    if (rnd (4))
        n->res[0] = ccas_room_minimum (1 + rnd (128));
    if (rnd (2))
        n->res[1] = ccas_room_minimum (rnd (600));
    if (rnd (4) == 0)
        n->res[2] = ccas_room_minimum (rnd (4));
    if (n->res[1] > -INFINITY)
        for (int l = CCAS_ROOM_STAIRS - 1; l >= 0; l--)
            if (n->res[0] >= stairs[l]) {
                n->stair = l;
                break;
            }
    if (rnd (3) == 0)
        n->buckets = (uint64_t)1 << rnd (8) | (uint64_t)1 << rnd (8);
    if (rnd (3) == 0)
        n->flags = CCAS_ROOM_IDLE;
    if (rnd (3) == 0)
        n->count_level = (int)rnd (CCAS_ROOM_STAIRS);
    if (rnd (3) == 0) { /* a choice: 2 cores, or 1 of res[2] */
        n->noptions = 2;
        for (int r = 0; r < CCAS_ROOM_NRES; r++)
            n->option[0][r] = n->option[1][r] = -INFINITY;
        n->option[0][0] = ccas_room_minimum (2 + rnd (60));
        n->option[1][2] = ccas_room_minimum (1);
    }
}

/* The entry's kept summary with its own staircase, as the index judges it. */
static bool kept_passes (const struct world *w, uint32_t i, const struct ccas_room_need *n)
{
    struct ccas_room s = w->kept[i];
    for (int l = 0; l < CCAS_ROOM_STAIRS; l++) {
        s.stair[l] = s.res[0] >= stairs[l] ? s.res[1] : -INFINITY;
        s.count[l] = 0; /* this index keeps no counts */
    }
    return ccas_room_passes (&s, n);
}

static int64_t scan (const struct world *w, uint32_t from, uint32_t end, const struct ccas_room_need *n)
{
    for (uint32_t i = from; i < end && i < w->n; i++)
        if (kept_passes (w, i, n))
            return i;
    return -1;
}

static void raise_kept (struct ccas_room *k, const struct ccas_room *s)
{
    for (int r = 0; r < CCAS_ROOM_NRES; r++)
        k->res[r] = k->res[r] > s->res[r] ? k->res[r] : s->res[r];
    k->buckets |= s->buckets;
    k->open = k->open > s->open ? k->open : s->open;
    k->open_grow = k->open_grow > s->open_grow ? k->open_grow : s->open_grow;
    k->grow = k->grow > s->grow ? k->grow : s->grow;
    k->flags |= s->flags;
}

/* Random updates, raises, shrinking and growing; after each step, queries
 * from random places give what a scan gives. */
static void test_matches_a_scan (void **state)
{
    static struct world w;
    (void)state;
    struct ccas_roomidx *x = ccas_room_create (0, 4, stairs, leaf, &w);
    assert_non_null (x);
    for (uint32_t i = 0; i < MAXN; i++)
        ccas_room_closed (&w.kept[i]);
    for (int step = 0; step < 6000; step++) {
        uint32_t op = rnd (10), i = w.n ? rnd (w.n) : 0;
        if (op < 3 || w.n == 0) { /* append an entry, committed */
            if (w.n < MAXN) {
                random_entry (&w.now[w.n]);
                w.kept[w.n] = w.now[w.n];
                assert_int_equal (ccas_room_update (x, w.n), 0);
                w.n++;
            }
        } else if (op < 7) { /* an entry shrinks and is committed */
            w.now[i].res[0] = w.now[i].res[0] > 0 ? w.now[i].res[0] - (float)rnd (8) : 0;
            w.now[i].res[1] = w.now[i].res[1] > 0 ? w.now[i].res[1] - (float)rnd (64) : 0;
            if (rnd (6) == 0)
                ccas_room_closed (&w.now[i]);
            w.kept[i] = w.now[i];
            assert_int_equal (ccas_room_update (x, i), 0);
        } else if (op < 9) { /* an entry is made for a try and raised */
            uint32_t j = w.n < MAXN ? w.n : i;
            random_entry (&w.now[j]);
            if (j == w.n) {
                ccas_room_closed (&w.kept[j]);
                w.n++;
            }
            raise_kept (&w.kept[j], &w.now[j]);
            assert_int_equal (ccas_room_raise (x, j), 0);
        } else { /* the list is cut back (a rollback, committed) */
            uint32_t n = w.n - rnd (w.n < 20 ? w.n : 20);
            for (uint32_t k = n; k < w.n; k++) {
                ccas_room_closed (&w.now[k]);
                ccas_room_closed (&w.kept[k]);
            }
            ccas_room_truncate (x, n);
            w.n = n;
        }
        for (int q = 0; q < 4 && rnd (3) == 0; q++) { /* (commits pile up between searches) */
            struct ccas_room_need need;
            random_need (&need);
            uint32_t from = w.n ? rnd (w.n) : 0, end = w.n ? from + rnd (w.n - from + 1) : 0;
            assert_int_equal (ccas_room_first (x, from, end, &need), scan (&w, from, end, &need));
        }
    }
    ccas_room_destroy (x);
}

/* More commits between two searches than the index waits for at once, and
 * a staircase of counts: the search and the root see every one of them. */
static void test_many_commits_before_a_search (void **state)
{
    static struct world w;
    (void)state;
    struct ccas_roomidx *x = ccas_room_create (CCAS_ROOM_SUM | CCAS_ROOM_COUNTS, 4, stairs, leaf, &w);
    assert_non_null (x);
    for (uint32_t i = 0; i < MAXN; i++) {
        random_entry (&w.now[i]);
        w.kept[i] = w.now[i];
        assert_int_equal (ccas_room_update (x, i), 0);
    }
    w.n = MAXN;
    for (int round = 0; round < 3; round++) {
        uint32_t open = 0, big = 0; /* open entries, and those with res[0] >= stairs[3] */
        for (uint32_t i = 0; i < MAXN; i++) {
            open += w.now[i].open;
            big += w.now[i].open && w.now[i].res[0] >= stairs[3];
        }
        const struct ccas_room *root = ccas_room_root (x);
        assert_int_equal (root->open, open);
        assert_int_equal (root->count[3], big);
        for (int q = 0; q < 50; q++) {
            struct ccas_room_need need;
            random_need (&need);
            need.count_level = -1; /* (the scan judges an entry without its counts) */
            uint32_t from = rnd (MAXN);
            assert_int_equal (ccas_room_first (x, from, MAXN, &need), scan (&w, from, MAXN, &need));
        }
        for (uint32_t i = 0; i < MAXN; i++) /* every entry shrinks, or closes */
            if (rnd (2)) {
                if (rnd (4) == 0)
                    ccas_room_closed (&w.now[i]);
                else
                    w.now[i].res[0] = w.now[i].res[0] > 8 ? w.now[i].res[0] - 8 : 0;
                w.kept[i] = w.now[i];
                assert_int_equal (ccas_room_update (x, i), 0);
            }
    }
    ccas_room_destroy (x);
}

/* Two entries, one with cores and no memory, one with memory and no cores:
 * a request for both finds neither, and the tree says so at the root. */
static void test_staircase_keeps_resources_together (void **state)
{
    static struct world w;
    struct ccas_room_need need;
    (void)state;
    struct ccas_roomidx *x = ccas_room_create (0, 2, stairs, leaf, &w);
    assert_non_null (x);
    for (uint32_t i = 0; i < 2; i++) {
        ccas_room_closed (&w.now[i]);
        w.now[i].open = w.now[i].open_grow = 1;
        w.now[i].buckets = 1;
    }
    w.now[0].res[0] = 32, w.now[0].res[1] = 1;
    w.now[1].res[0] = 1, w.now[1].res[1] = 500;
    w.n = 2;
    for (int r = 2; r < CCAS_ROOM_NRES; r++)
        w.now[0].res[r] = w.now[1].res[r] = INFINITY;
    assert_int_equal (ccas_room_update (x, 0), 0);
    assert_int_equal (ccas_room_update (x, 1), 0);
    ccas_room_need_any (&need);
    need.res[0] = ccas_room_minimum (16);
    need.res[1] = ccas_room_minimum (100);
    for (int l = 0; l < CCAS_ROOM_STAIRS; l++) /* the highest threshold 16 cores reach */
        if (stairs[l] <= 16)
            need.stair = l;
    assert_false (ccas_room_passes (ccas_room_root (x), &need));
    assert_int_equal (ccas_room_first (x, 0, 2, &need), -1);
    need.res[1] = ccas_room_minimum (1);
    assert_int_equal (ccas_room_first (x, 0, 2, &need), 0);
    ccas_room_destroy (x);
}

/* A group of members: the root counts open members; a raise of the same
 * entry twice counts it once; truncating drops what a rollback removed. */
static void test_sum_counts_open_members (void **state)
{
    static struct world w;
    (void)state;
    struct ccas_roomidx *x = ccas_room_create (CCAS_ROOM_SUM, 8, NULL, leaf, &w);
    assert_non_null (x);
    for (uint32_t i = 0; i < 10; i++) {
        ccas_room_closed (&w.now[i]);
        w.now[i].open = w.now[i].open_grow = i % 3 != 0; /* 1, 2, 4, 5, 7, 8 open */
    }
    w.n = 10;
    for (uint32_t i = 0; i < 10; i++)
        assert_int_equal (ccas_room_update (x, i), 0);
    assert_int_equal (ccas_room_root (x)->open, 6);
    w.now[10].open = w.now[10].open_grow = 1;
    assert_int_equal (ccas_room_raise (x, 10), 0);
    assert_int_equal (ccas_room_raise (x, 10), 0);
    assert_int_equal (ccas_room_root (x)->open, 7);
    ccas_room_truncate (x, 8);
    assert_int_equal (ccas_room_root (x)->open, 5);
    ccas_room_clear (x);
    assert_int_equal (ccas_room_root (x)->open, 0);
    ccas_room_destroy (x);
}

/* A group that may grow passes a request for more nodes than it has open,
 * up to what the bucket still allows. */
static void test_groups_that_may_grow (void **state)
{
    static struct world w;
    struct ccas_room_need need;
    (void)state;
    struct ccas_roomidx *x = ccas_room_create (CCAS_ROOM_COUNTS, 4, NULL, leaf, &w);
    assert_non_null (x);
    for (uint32_t i = 0; i < 3; i++) {
        ccas_room_closed (&w.now[i]);
        w.now[i].open = i;     /* 0, 1, 2 open members */
        w.now[i].grow = 2 - i; /* room for 2, 1, 0 more */
        w.now[i].open_grow = 2;
        w.now[i].buckets = ~(uint64_t)0; /* as the engine's group summaries */
        assert_int_equal (ccas_room_update (x, i), 0);
    }
    w.n = 3;
    ccas_room_need_any (&need);
    need.nodes = 2;
    need.avail = 5; /* grow: each has 2 in all */
    assert_int_equal (ccas_room_first (x, 0, 3, &need), 0);
    need.avail = 0; /* none may grow: only the one with 2 open members */
    assert_int_equal (ccas_room_first (x, 0, 3, &need), 2);
    need.nodes = 3;
    need.avail = 5;
    assert_int_equal (ccas_room_first (x, 0, 3, &need), -1);
    ccas_room_destroy (x);
}

int main (void)
{
    for (int l = 0; l < CCAS_ROOM_STAIRS; l++)
        stairs[l] = roundf (powf (2, (float)l * 7 / (CCAS_ROOM_STAIRS - 1)));
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_matches_a_scan),
        cmocka_unit_test (test_many_commits_before_a_search),
        cmocka_unit_test (test_staircase_keeps_resources_together),
        cmocka_unit_test (test_sum_counts_open_members),
        cmocka_unit_test (test_groups_that_may_grow),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
