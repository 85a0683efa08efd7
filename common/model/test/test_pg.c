/* SPDX-License-Identifier: MIT */
/* test_pg.c: placement groups (pg.h).
 *
 * Bad inputs first; then each limit on its own and together
 * (maxPlacementGroupSize, maxPlacementGroupCoreSize with the cores a node
 * counts, the counts the status states or the nodes give, the bucket's own
 * availability), each judged by ccas_pg_room() and ccas_pg_too_small() and
 * then by filling the groups node by node; names; and groups made and
 * rolled back through the undo log, after which the model is as it was.
 * The cluster is tests/data/cluster-status.json, whose hpc bucket
 * (Standard_HB120rs_v3, 120 cores, 10 more nodes allowed) holds groups of 4
 * and lists one, hpc-pg-a, with 2 nodes and 240 cores. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model/cluster.h"
#include "model/pg.h"
#include "model/test/fixture.h"
#include "model/undo.h"

#define STATUS "cluster-status.json"
#define UNL CCAS_UNLIMITED

/* The cluster with the hpc bucket patched with `fields` (JSON members, may
 * be NULL), and nodes `nodes` (NULL: none). */
static struct ccas_cluster *hpc_cluster (const struct ccas_config *cfg, const char *fields, const char *nodes)
{
    char patch[2048];
    if (!fields)
        return fx_cluster (cfg, STATUS, NULL, nodes);
    snprintf (patch, sizeof (patch), "{\"hpc/Standard_HB120rs_v3\": {%s}}", fields);
    return fx_cluster (cfg, STATUS, patch, nodes);
}

static struct ccas_bucket *hpc (const struct ccas_cluster *c)
{
    return fx_bucket (c, "hpc", "Standard_HB120rs_v3");
}

/* ---- the model as the groups see it, to compare before and after a rollback ---- */

struct snapshot {
    int64_t v[512];
    char names[64][96];
    size_t n, nnames;
};

static void snap (const struct ccas_cluster *c, struct snapshot *s)
{
    s->n = s->nnames = 0;
#define PUT(x) (s->v[s->n++] = (int64_t)(x))
    PUT (c->nnodes);
    for (size_t i = 0; i < ccas_limits_count (c->limits); i++) {
        PUT (ccas_limits_at (c->limits, i)->nodes);
        PUT (ccas_limits_at (c->limits, i)->cores);
    }
    for (size_t i = 0; i < c->nbuckets; i++) {
        const struct ccas_bucket *b = &c->buckets[i];
        PUT (ccas_bucket_available (b, NULL, 0));
        PUT (b->new_nodes);
        PUT (b->npgs);
        PUT (b->pg_next);
        for (size_t k = 0; k < b->npgs; k++) {
            const struct ccas_pg *pg = b->pgs[k];
            PUT (pg->room);
            PUT (pg->active);
            PUT (pg->nmembers);
            PUT (pg->is_new);
            PUT (pg->id);
            for (uint32_t m = 0; m < pg->nmembers; m++)
                PUT (pg->members[m]->index);
            assert_true (s->nnames < 64);
            snprintf (s->names[s->nnames++], sizeof (s->names[0]), "%s", pg->name);
        }
    }
#undef PUT
    assert_true (s->n < 512);
}

static void same (const struct snapshot *a, const struct snapshot *b)
{
    assert_int_equal (a->n, b->n);
    for (size_t i = 0; i < a->n; i++)
        if (a->v[i] != b->v[i])
            fail_msg ("count %zu: %lld before, %lld after the rollback", i, (long long)a->v[i],
                      (long long)b->v[i]);
    assert_int_equal (a->nnames, b->nnames);
    for (size_t i = 0; i < a->nnames; i++)
        assert_string_equal (a->names[i], b->names[i]);
}

/* Every group of every bucket: found by its name, room never below 0 nor
 * above what the bucket's groups hold, members in the group. */
static void check_groups (struct ccas_cluster *c)
{
    for (size_t i = 0; i < c->nbuckets; i++) {
        struct ccas_bucket *b = &c->buckets[i];
        for (size_t k = 0; k < b->npgs; k++) {
            struct ccas_pg *pg = b->pgs[k];
            int64_t room = ccas_pg_room (b, pg, CCAS_PG_ALONE);
            assert_ptr_equal (pg->bucket, b);
            assert_int_equal (pg->id, k);
            assert_ptr_equal (ccas_pg_get (c, b, pg->name, NULL), pg);
            assert_true (room >= 0);
            assert_true (room <= b->max_pg_size);
            assert_true (ccas_pg_room (b, pg, CCAS_PG_WITH_BUCKET) <= room);
            assert_true (ccas_pg_room (b, pg, CCAS_PG_WITH_BUCKET) <= ccas_bucket_available (b, NULL, 0));
            for (uint32_t m = 0; m < pg->nmembers; m++) {
                assert_ptr_equal (pg->members[m]->pg, pg);
                assert_int_equal (pg->members[m]->member, m);
            }
        }
    }
}

/* ---- bad input -------------------------------------------------------------------------- */

static void test_bad_input (void **state)
{
    (void)state;
    struct ccas_config *cfg = fx_config (NULL);
    struct ccas_cluster *c = hpc_cluster (cfg, NULL, NULL);
    struct ccas_bucket *b = hpc (c), *f2 = fx_bucket (c, "htc", "Standard_F2s_v2");
    struct ccas_pg *a = ccas_pg_get (c, b, "hpc-pg-a", NULL);
    assert_non_null (a);

    /* no model, no bucket */
    assert_null (ccas_pg_get (NULL, b, "hpc-pg-a", NULL));
    assert_null (ccas_pg_get (NULL, b, NULL, NULL));
    assert_null (ccas_pg_get (c, NULL, "hpc-pg-a", NULL));
    assert_null (ccas_pg_get (c, NULL, NULL, NULL));
    assert_int_equal (ccas_pg_room (NULL, NULL, CCAS_PG_ALONE), 0);
    assert_int_equal (ccas_pg_room (NULL, a, CCAS_PG_WITH_BUCKET), 0);
    assert_false (ccas_pg_too_small (NULL, 1000));
    /* no nodes, or fewer than none, always fit */
    assert_false (ccas_pg_too_small (b, 0));
    assert_false (ccas_pg_too_small (b, -1));
    assert_int_equal (b->npgs, 1); /* nothing was made */

    /* a name is a group of one bucket: the same name elsewhere is another group */
    struct ccas_pg *other = ccas_pg_get (c, f2, "hpc-pg-a", NULL);
    assert_non_null (other);
    assert_ptr_not_equal (other, a);
    assert_ptr_equal (other->bucket, f2);
    assert_false (other->is_new);
    assert_int_equal (ccas_pg_room (f2, other, CCAS_PG_ALONE), 100);
    assert_ptr_equal (ccas_pg_get (c, b, "hpc-pg-a", NULL), a);

    /* long names (CycleCloud sets no length): two that differ only at their
     * end are two groups, each found again as itself */
    char *long1 = malloc (401), *long2 = malloc (401);
    memset (long1, 'x', 400);
    long1[400] = '\0';
    memcpy (long2, long1, 401);
    long2[399] = 'y';
    struct ccas_pg *l1 = ccas_pg_get (c, b, ccas_cluster_strdup (c, long1), NULL);
    struct ccas_pg *l2 = ccas_pg_get (c, b, ccas_cluster_strdup (c, long2), NULL);
    assert_non_null (l1);
    assert_non_null (l2);
    assert_ptr_not_equal (l1, l2);
    assert_ptr_equal (ccas_pg_get (c, b, long1, NULL), l1);
    assert_ptr_equal (ccas_pg_get (c, b, long2, NULL), l2);
    assert_int_equal (b->npgs, 3);
    free (long1);
    free (long2);
    check_groups (c);
    ccas_cluster_destroy (c);

    /* a long nodearray name: the groups made there still get names of their own */
    char patch[512];
    char na[301];
    memset (na, 'n', 300);
    na[300] = '\0';
    snprintf (patch, sizeof (patch), "{\"hpc\": {\"name\": \"%s\"}}", na);
    c = fx_cluster (cfg, STATUS, patch, NULL);
    b = fx_bucket (c, na, "Standard_HB120rs_v3");
    struct ccas_pg *n0 = ccas_pg_get (c, b, NULL, NULL), *n1 = ccas_pg_get (c, b, NULL, NULL);
    assert_non_null (n0);
    assert_non_null (n1);
    assert_int_equal (strlen (n0->name), 300 + strlen ("_Standard_HB120rs_v3_pg0"));
    assert_string_equal (n0->name + 300, "_Standard_HB120rs_v3_pg0");
    assert_string_equal (n1->name + 300, "_Standard_HB120rs_v3_pg1");
    assert_int_equal (strncmp (n1->name, na, 300), 0);
    check_groups (c);
    ccas_cluster_destroy (c);
    ccas_conf_destroy (cfg);
}

/* ---- the limits -------------------------------------------------------------------------- */

static void test_limits (void **state)
{
    static const struct {
        const char *fields; /* the hpc bucket's, over the file's */
        int64_t size;       /* b->max_pg_size */
        const char *says;   /* b->pg_limit */
        int64_t old_room;   /* hpc-pg-a's own room */
        int64_t avail;      /* what the bucket may make */
    } cases[] = {
        /* maxPlacementGroupSize 4, of which hpc-pg-a has 2 */
        {NULL, 4, "maxPlacementGroupSize 4", 2, 10},
        {"\"maxPlacementGroupSize\": null", UNL, "no placement group limit", UNL, 10},
        {"\"maxPlacementGroupSize\": 0", UNL, "no placement group limit", UNL, 10}, /* 0: not stated */
        {"\"maxPlacementGroupSize\": 2", 2, "maxPlacementGroupSize 2", 0, 10},
        /* a group the status says is over its size has no room, not less than none */
        {"\"placementGroups\": [{\"name\": \"hpc-pg-a\", \"activeCount\": 6, \"activeCoreCount\": 720}]", 4,
         "maxPlacementGroupSize 4", 0, 10},
        /* maxPlacementGroupCoreSize alone: 480 cores of 120 a node; hpc-pg-a has 240 */
        {"\"maxPlacementGroupSize\": null, \"maxPlacementGroupCoreSize\": 480", 4,
         "maxPlacementGroupCoreSize 480 (120 cores per node)", 2, 10},
        /* not a multiple of a node's cores: whole nodes only */
        {"\"maxPlacementGroupSize\": null, \"maxPlacementGroupCoreSize\": 500", 4,
         "maxPlacementGroupCoreSize 500 (120 cores per node)", 2, 10},
        /* fewer cores than one node: no group holds a node */
        {"\"maxPlacementGroupSize\": null, \"maxPlacementGroupCoreSize\": 100", 0,
         "maxPlacementGroupCoreSize 100 (120 cores per node)", 0, 10},
        /* no activeCoreCount stated: the group's nodes count a node's cores each */
        {"\"maxPlacementGroupSize\": null, \"maxPlacementGroupCoreSize\": 480,"
         " \"placementGroups\": [{\"name\": \"hpc-pg-a\", \"activeCount\": 3}]",
         4, "maxPlacementGroupCoreSize 480 (120 cores per node)", 1, 10},
        /* both: the tighter holds, and is the one named */
        {"\"maxPlacementGroupSize\": 8, \"maxPlacementGroupCoreSize\": 720", 6,
         "maxPlacementGroupCoreSize 720 (120 cores per node)", 4, 10},
        {"\"maxPlacementGroupSize\": 3, \"maxPlacementGroupCoreSize\": 720", 3, "maxPlacementGroupSize 3", 1,
         10},
        {"\"maxPlacementGroupSize\": 6, \"maxPlacementGroupCoreSize\": 720", 6, "maxPlacementGroupSize 6", 4,
         10},
        /* the cores a node counts are its quota's (vcpuQuotaCount), as the bucket's limits count them */
        {"\"maxPlacementGroupSize\": null, \"maxPlacementGroupCoreSize\": 960, \"virtualMachine\":"
         " {\"vcpuCount\": 120, \"vcpuQuotaCount\": 240, \"memory\": 456.0, \"infiniband\": true}",
         4, "maxPlacementGroupCoreSize 960 (240 cores per node)", 3, 5},
        /* the bucket: fewer than a group holds, or none */
        {"\"availableCount\": 3", 4, "maxPlacementGroupSize 4", 2, 3},
        {"\"availableCount\": 1", 4, "maxPlacementGroupSize 4", 2, 1},
        {"\"availableCount\": 0", 4, "maxPlacementGroupSize 4", 2, 0},
        {"\"valid\": false", 4, "maxPlacementGroupSize 4", 2, 0},
    };
    (void)state;
    struct ccas_config *cfg = fx_config (NULL);
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        struct ccas_cluster *c = hpc_cluster (cfg, cases[i].fields, NULL);
        struct ccas_bucket *b = hpc (c);
        struct ccas_pg *a = ccas_pg_get (c, b, "hpc-pg-a", NULL);
        int64_t size = cases[i].size, avail = cases[i].avail;
        int64_t old_with = cases[i].old_room < avail ? cases[i].old_room : avail;
        int64_t new_with = size < avail ? size : avail;
        if (b->max_pg_size != size || strcmp (b->pg_limit, cases[i].says) != 0)
            fail_msg ("case %zu: groups of %lld (%s), want %lld (%s)", i, (long long)b->max_pg_size,
                      b->pg_limit, (long long)size, cases[i].says);
        assert_int_equal (ccas_bucket_available (b, NULL, 0), avail);
        if (ccas_pg_room (b, a, CCAS_PG_ALONE) != cases[i].old_room)
            fail_msg ("case %zu: hpc-pg-a has room for %lld, want %lld", i,
                      (long long)ccas_pg_room (b, a, CCAS_PG_ALONE), (long long)cases[i].old_room);
        assert_int_equal (ccas_pg_room (b, a, CCAS_PG_WITH_BUCKET), old_with);
        assert_int_equal (ccas_pg_room (b, NULL, CCAS_PG_ALONE), size);
        assert_int_equal (ccas_pg_room (b, NULL, CCAS_PG_WITH_BUCKET), new_with);
        /* a job of `size` nodes may share a group; one more never does, whatever the bucket has */
        assert_false (ccas_pg_too_small (b, size == UNL ? 1000000 : size));
        if (size != UNL)
            assert_true (ccas_pg_too_small (b, size + 1));

        /* a new group takes what ccas_pg_room() said, one less each time, then no more */
        struct ccas_pg *pg = ccas_pg_get (c, b, NULL, NULL);
        assert_int_equal (ccas_pg_room (b, pg, CCAS_PG_ALONE), size);
        int64_t made = 0;
        while (ccas_cluster_new_node (c, b, pg, NULL)) {
            made++;
            assert_int_equal (ccas_pg_room (b, pg, CCAS_PG_WITH_BUCKET), new_with - made);
            if (size != UNL)
                assert_int_equal (ccas_pg_room (b, pg, CCAS_PG_ALONE), size - made);
            check_groups (c);
        }
        if (made != new_with)
            fail_msg ("case %zu: %lld nodes made in a new group, want %lld", i, (long long)made,
                      (long long)new_with);
        assert_int_equal (pg->nmembers, made);
        ccas_cluster_destroy (c);

        /* and the status's group, likewise */
        c = hpc_cluster (cfg, cases[i].fields, NULL);
        b = hpc (c);
        a = ccas_pg_get (c, b, "hpc-pg-a", NULL);
        for (made = 0; ccas_cluster_new_node (c, b, a, NULL); made++)
            check_groups (c);
        if (made != old_with)
            fail_msg ("case %zu: %lld nodes added to hpc-pg-a, want %lld", i, (long long)made,
                      (long long)old_with);
        assert_int_equal (ccas_pg_room (b, a, CCAS_PG_WITH_BUCKET), 0);
        ccas_cluster_destroy (c);
    }
    ccas_conf_destroy (cfg);
}

/* A group the status does not list counts its nodes, departing ones aside,
 * against both limits; its usable nodes are its members. */
static void test_groups_from_nodes (void **state)
{
    static const char *nodes =
        "[{\"Name\": \"z-1\", \"Template\": \"hpc\", \"MachineType\": \"Standard_HB120rs_v3\","
        " \"PlacementGroupId\": \"hpc-pg-z\"},"
        " {\"Name\": \"z-2\", \"Template\": \"hpc\", \"MachineType\": \"Standard_HB120rs_v3\","
        " \"PlacementGroupId\": \"hpc-pg-z\", \"Status\": \"Off\", \"TargetState\": \"Off\"},"
        " {\"Name\": \"z-3\", \"Template\": \"hpc\", \"MachineType\": \"Standard_HB120rs_v3\","
        " \"PlacementGroupId\": \"hpc-pg-z\", \"Status\": \"Terminating\", \"TargetState\": \"Terminated\"},"
        " {\"Name\": \"z-4\", \"Template\": \"hpc\", \"MachineType\": \"Standard_HB120rs_v3\","
        " \"PlacementGroupId\": \"hpc-pg-z\", \"Status\": \"Failed\"}]";
    static const struct {
        const char *fields;
        int64_t room;
    } cases[] = {
        {NULL, 1}, /* z-1, z-2 and z-4 of 4 */
        {"\"maxPlacementGroupSize\": null, \"maxPlacementGroupCoreSize\": 600", 2},
        {"\"maxPlacementGroupSize\": 2", 0},
        {"\"maxPlacementGroupSize\": null", UNL},
    };
    (void)state;
    struct ccas_config *cfg = fx_config (NULL);
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        struct ccas_cluster *c = hpc_cluster (cfg, cases[i].fields, nodes);
        struct ccas_bucket *b = hpc (c);
        struct ccas_pg *z = ccas_pg_get (c, b, "hpc-pg-z", NULL);
        assert_int_equal (b->npgs, 2);
        assert_false (z->from_status);
        assert_false (z->is_new);
        assert_int_equal (z->active, 3);
        if (ccas_pg_room (b, z, CCAS_PG_ALONE) != cases[i].room)
            fail_msg ("case %zu: room for %lld, want %lld", i, (long long)ccas_pg_room (b, z, CCAS_PG_ALONE),
                      (long long)cases[i].room);
        /* members: the ready and the stopped node, not the departing or failed ones */
        assert_int_equal (z->nmembers, 2);
        assert_string_equal (z->members[0]->name, "z-1");
        assert_string_equal (z->members[1]->name, "z-2");
        assert_ptr_equal (fx_node (c, "z-3")->pg, z);
        check_groups (c);
        ccas_cluster_destroy (c);
    }
    ccas_conf_destroy (cfg);
}

/* ---- names --------------------------------------------------------------------------------- */

static void test_names (void **state)
{
    (void)state;
    struct ccas_config *cfg = fx_config (NULL);
    /* the status holds "..._pg1": new groups take pg0, then pg2 */
    struct ccas_cluster *c = hpc_cluster (
        cfg, "\"placementGroups\": [{\"name\": \"hpc_Standard_HB120rs_v3_pg1\", \"activeCount\": 1}]", NULL);
    struct ccas_bucket *b = hpc (c);
    struct ccas_pg *p0 = ccas_pg_get (c, b, NULL, NULL), *p2 = ccas_pg_get (c, b, NULL, NULL);
    assert_string_equal (p0->name, "hpc_Standard_HB120rs_v3_pg0");
    assert_string_equal (p2->name, "hpc_Standard_HB120rs_v3_pg2");
    assert_true (p0->is_new);
    assert_false (b->pgs[0]->is_new);
    /* found again by name, in O(1), and not made twice */
    assert_ptr_equal (ccas_pg_get (c, b, "hpc_Standard_HB120rs_v3_pg2", NULL), p2);
    assert_int_equal (b->npgs, 3);
    /* each bucket numbers its own */
    struct ccas_pg *f = ccas_pg_get (c, fx_bucket (c, "htc", "Standard_F2s_v2"), NULL, NULL);
    assert_string_equal (f->name, "htc_Standard_F2s_v2_pg0");
    check_groups (c);
    ccas_cluster_destroy (c);
    ccas_conf_destroy (cfg);
}

/* ---- rollback ------------------------------------------------------------------------------ */

/* Groups made, named and grown while trying a job, then rolled back: the
 * model is as it was, names are given back, and the groups made next start
 * empty with a full room. */
static void test_rollback (void **state)
{
    (void)state;
    struct ccas_config *cfg = fx_config (NULL);
    struct ccas_cluster *c = hpc_cluster (cfg, NULL, NULL);
    struct ccas_bucket *b = hpc (c);
    struct ccas_pg *a = ccas_pg_get (c, b, "hpc-pg-a", NULL);
    struct ccas_undo *undo = ccas_undo_create ();
    struct snapshot before, middle, after;
    snap (c, &before);

    assert_non_null (ccas_cluster_new_node (c, b, a, undo)); /* the status's group grows */
    struct ccas_pg *p0 = ccas_pg_get (c, b, NULL, undo);
    assert_string_equal (p0->name, "hpc_Standard_HB120rs_v3_pg0");
    for (int i = 0; i < 3; i++)
        assert_non_null (ccas_cluster_new_node (c, b, p0, undo));
    size_t mark = ccas_undo_mark (undo);
    snap (c, &middle);
    char name[] = "tried";
    struct ccas_pg *tried = ccas_pg_get (c, b, ccas_cluster_strdup (c, name), undo);
    assert_false (tried->is_new);
    struct ccas_pg *p1 = ccas_pg_get (c, b, NULL, undo);
    assert_string_equal (p1->name, "hpc_Standard_HB120rs_v3_pg1");
    assert_non_null (ccas_cluster_new_node (c, b, tried, undo));
    assert_non_null (ccas_cluster_new_node (c, b, p1, undo));
    assert_int_equal (b->npgs, 4);
    check_groups (c);

    /* back to the mark: the groups before it stand as they were */
    ccas_undo_rollback (undo, mark);
    snap (c, &after);
    same (&middle, &after);
    assert_int_equal (p0->nmembers, 3);
    check_groups (c);

    /* back to the start */
    ccas_undo_rollback (undo, 0);
    snap (c, &after);
    same (&before, &after);
    assert_int_equal (b->npgs, 1);
    assert_int_equal (a->nmembers, 0);
    assert_int_equal (ccas_pg_room (b, a, CCAS_PG_ALONE), 2);
    check_groups (c);

    /* the names are free again, the groups made next are empty and whole */
    struct ccas_pg *again = ccas_pg_get (c, b, NULL, undo);
    assert_string_equal (again->name, "hpc_Standard_HB120rs_v3_pg0");
    assert_int_equal (again->nmembers, 0);
    assert_int_equal (ccas_pg_room (b, again, CCAS_PG_ALONE), 4);
    struct ccas_pg *t2 = ccas_pg_get (c, b, "tried", undo);
    assert_int_equal (t2->nmembers, 0);
    assert_int_equal (ccas_pg_room (b, t2, CCAS_PG_ALONE), 4);
    assert_int_equal (b->npgs, 3);
    check_groups (c);
    ccas_undo_rollback (undo, 0);
    snap (c, &after);
    same (&before, &after);

    /* a group found, not made, logs nothing */
    assert_ptr_equal (ccas_pg_get (c, b, "hpc-pg-a", undo), a);
    assert_int_equal (ccas_undo_mark (undo), 0);
    ccas_undo_destroy (undo);
    ccas_cluster_destroy (c);
    ccas_conf_destroy (cfg);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_bad_input),         cmocka_unit_test (test_limits),
        cmocka_unit_test (test_groups_from_nodes), cmocka_unit_test (test_names),
        cmocka_unit_test (test_rollback),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
