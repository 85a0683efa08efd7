/* SPDX-License-Identifier: MIT */
/* test_limits.c: the limits a bucket draws on — scalelib's own limit tests
 * translated to status responses — placement-group sizes, colocation per
 * bucket, the VM-size fallback and what a bad status does. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <cmocka.h>

#include "conf/conf.h"
#include "model/cluster.h"
#include "model/limits.h"
#include "util/json.h"

/* ---- building a model from a status written inline --------------------------------------- */

static struct ccas_config *config (const char *extra)
{
    struct ccas_error err = {""};
    char text[2048];
    snprintf (text, sizeof (text),
              "{\"url\": \"http://127.0.0.1:1\", \"username\": \"u\", \"password\": \"p\","
              " \"cluster_name\": \"c\"%s%s}",
              extra ? ", " : "", extra ? extra : "");
    struct ccas_config *cfg = ccas_conf_from_json (json_tokener_parse (text), "test", &err);
    if (!cfg)
        fail_msg ("%s", err.text);
    return cfg;
}

/* A bucket: machine type, vcpus, then any fields ("\"availableCount\": 10, ..."). */
static void bucket (char *buf, size_t size, const char *mt, int vcpu, const char *fields)
{
    snprintf (buf, size,
              "{\"bucketId\": \"b-%s\", \"definition\": {\"machineType\": \"%s\"}, \"valid\": true,"
              " \"virtualMachine\": {\"vcpuCount\": %d, \"memory\": 8.0, \"infiniband\": false}%s%s}",
              mt, mt, vcpu, fields && *fields ? ", " : "", fields ? fields : "");
}

struct model {
    struct ccas_config *cfg;
    struct ccas_cluster *c;
};

static void model_build (struct model *m, const char *status, const char *extra_config)
{
    struct ccas_error err = {""};
    json_object *root = json_tokener_parse (status);
    if (!root)
        fail_msg ("status does not parse: %s", status);
    m->cfg = config (extra_config);
    struct ccas_status *st = ccas_status_from_json (root, "c", &err);
    if (!st)
        fail_msg ("%s", err.text);
    m->c = ccas_cluster_create (m->cfg, st, NULL, &err);
    if (!m->c)
        fail_msg ("%s", err.text);
}

static void model_free (struct model *m)
{
    ccas_cluster_destroy (m->c);
    ccas_conf_destroy (m->cfg);
}

static struct ccas_bucket *find (struct model *m, const char *na, const char *mt)
{
    struct ccas_bucket *b = ccas_cluster_bucket (m->c, na, mt);
    if (!b)
        fail_msg ("no bucket %s/%s", na, mt);
    return b;
}

static int64_t avail (struct model *m, const char *na, const char *mt)
{
    return ccas_bucket_available (find (m, na, mt), NULL, 0);
}

/* Make `n` nodes in a bucket; returns how many were made. */
static int64_t take (struct model *m, const char *na, const char *mt, int64_t n)
{
    int64_t made = 0;
    while (made < n && ccas_cluster_new_node (m->c, find (m, na, mt), NULL, NULL))
        made++;
    return made;
}

/* ---- the limit object --------------------------------------------------------------------- */

/* scalelib limits_test.py::test_shared_limit */
static void test_shared_limit (void **state)
{
    struct ccas_limit l = {"x", CCAS_UNLIMITED, ccas_limit_left (20, 10)};
    char why[128];
    (void)state;
    assert_int_equal (ccas_limit_count (&l, 2), 5);
    assert_int_equal (ccas_limit_count (&l, 3), 3);
    l.cores = ccas_limit_left (100, 45);
    assert_int_equal (ccas_limit_count (&l, 4), 13);
    ccas_limit_take (&l, 4, NULL);
    assert_int_equal (l.cores, 51);
    assert_int_equal (ccas_limit_left (-1, 5), CCAS_UNLIMITED);
    assert_int_equal (ccas_limit_left (10, 50), 0); /* consumed above max: nothing left */
    l.cores = 3;
    assert_string_equal (ccas_limit_explain (&l, 4, why, sizeof (why)), "x: 3 cores left, 4 per node");
    ccas_limit_tighten (&l, 7, -3);
    assert_int_equal (l.cores, 0);
    assert_int_equal (l.nodes, 7);

    struct ccas_limits *r = ccas_limits_create ();
    struct ccas_limit *a = ccas_limits_get (r, "k1", "first");
    assert_ptr_equal (ccas_limits_get (r, "k1", "ignored"), a);
    assert_string_equal (a->what, "first");
    assert_ptr_not_equal (ccas_limits_get (r, "k2", "second"), a);
    assert_int_equal (ccas_limits_count (r), 2);
    ccas_limits_destroy (r);
}

/* ---- quotas -------------------------------------------------------------------------------- */

/* Two buckets of one family share quotaCoreCount: 100 cores, never 192. */
static void test_quota_core_count_shared (void **state)
{
    char b1[1024], b2[1024], status[4096];
    struct model m;
    (void)state;
    bucket (b1, sizeof (b1), "Standard_F4s_v2", 4,
            "\"availableCount\": 24, \"quotaCount\": 25, \"quotaCoreCount\": 100, \"consumedCoreCount\": 0");
    bucket (b2, sizeof (b2), "Standard_F8s_v2", 8,
            "\"availableCount\": 12, \"quotaCount\": 12, \"quotaCoreCount\": 100, \"consumedCoreCount\": 0");
    snprintf (status, sizeof (status),
              "{\"nodearrays\": [{\"name\": \"htc\", \"nodearray\": {\"Region\": \"westeurope\"},"
              " \"buckets\": [%s, %s]}]}",
              b1, b2);
    model_build (&m, status, NULL);
    int64_t cores = take (&m, "htc", "Standard_F4s_v2", 24) * 4;
    assert_int_equal (cores, 96);
    cores += take (&m, "htc", "Standard_F8s_v2", 12) * 8;
    assert_int_equal (cores, 96); /* 4 cores left: no F8 */
    char why[256];
    assert_int_equal (ccas_bucket_available (find (&m, "htc", "Standard_F8s_v2"), why, sizeof (why)), 0);
    assert_string_equal (why, "availableCount 0 (quotaCoreCount of standardFSv2Family in westeurope: 4 cores "
                              "left, 8 per node)");
    model_free (&m);

    /* consumption by other clusters counts */
    bucket (b1, sizeof (b1), "Standard_F4s_v2", 4,
            "\"availableCount\": 24, \"quotaCoreCount\": 100, \"consumedCoreCount\": 92");
    snprintf (status, sizeof (status),
              "{\"nodearrays\": [{\"name\": \"htc\", \"nodearray\": {\"Region\": \"westeurope\"},"
              " \"buckets\": [%s]}]}",
              b1);
    model_build (&m, status, NULL);
    assert_int_equal (avail (&m, "htc", "Standard_F4s_v2"), 2);
    model_free (&m);

    /* quotaCount caps the count even when the cores would allow more */
    bucket (b1, sizeof (b1), "Standard_F4s_v2", 4,
            "\"availableCount\": 24, \"quotaCount\": 3, \"quotaCoreCount\": 100, \"consumedCoreCount\": 4");
    snprintf (status, sizeof (status), "{\"nodearrays\": [{\"name\": \"htc\", \"buckets\": [%s]}]}", b1);
    model_build (&m, status, NULL);
    assert_int_equal (avail (&m, "htc", "Standard_F4s_v2"), 2);
    model_free (&m);
}

/* The room buckets sharing a family quota have together: 8 family cores
 * left make 4 F2 or 2 F4 nodes, never 6 (each bucket's own room added);
 * the smaller VMs count first, whatever the order given.  A pool only one
 * draws on, and a bucket held back, add nothing of the others'. */
static void test_room_together (void **state)
{
    char f2[1024], f4[1024], d2[1024], status[4096];
    struct model m;
    (void)state;
    bucket (f2, sizeof (f2), "Standard_F2s_v2", 2,
            "\"availableCount\": 20, \"familyConsumedCoreCount\": 32, \"familyQuotaCoreCount\": 40");
    bucket (f4, sizeof (f4), "Standard_F4s_v2", 4,
            "\"availableCount\": 20, \"familyConsumedCoreCount\": 32, \"familyQuotaCoreCount\": 40");
    bucket (d2, sizeof (d2), "Standard_D2s_v3", 2,
            "\"availableCount\": 3, \"familyConsumedCoreCount\": 0, \"familyQuotaCoreCount\": 100");
    snprintf (status, sizeof (status),
              "{\"nodearrays\": [{\"name\": \"htc\", \"nodearray\": {\"Region\": \"westeurope\"},"
              " \"buckets\": [%s, %s, %s]}]}",
              f4, f2, d2);
    model_build (&m, status, NULL);
    struct ccas_bucket *b4 = find (&m, "htc", "Standard_F4s_v2"), *b2 = find (&m, "htc", "Standard_F2s_v2"),
                       *bd = find (&m, "htc", "Standard_D2s_v3");
    assert_int_equal (ccas_bucket_available (b2, NULL, 0) + ccas_bucket_available (b4, NULL, 0), 6);
    struct ccas_bucket *fam[] = {b4, b2}, *fam_rev[] = {b2, b4}, *all[] = {b4, b2, bd};
    assert_int_equal (ccas_cluster_room (fam, 2), 4);
    assert_int_equal (ccas_cluster_room (fam_rev, 2), 4);
    assert_int_equal (ccas_cluster_room (all, 3), 7); /* the D family's own 3 besides */
    assert_int_equal (ccas_cluster_room (all, 0), 0);
    /* nothing charged: each bucket's room is what it was */
    assert_int_equal (ccas_bucket_available (b2, NULL, 0), 4);
    assert_int_equal (take (&m, "htc", "Standard_F2s_v2", 1), 1);
    assert_int_equal (ccas_cluster_room (fam, 2), 3);
    assert_int_equal (ccas_cluster_hold (m.c, b2, "held back"), 0);
    assert_int_equal (ccas_cluster_room (fam, 2), 1); /* 6 cores: one F4 */
    model_free (&m);
}

/* scalelib limits_test.py::test_family_and_spots */
static void test_family_and_spots (void **state)
{
    char f4[1024], d4[1024], spot[1024], status[4096];
    struct model m;
    (void)state;
    bucket (f4, sizeof (f4), "Standard_F4s", 4,
            "\"availableCount\": 10, \"familyConsumedCoreCount\": 40, \"familyQuotaCoreCount\": 80,"
            " \"regionalConsumedCoreCount\": 45, \"regionalQuotaCoreCount\": 100");
    bucket (d4, sizeof (d4), "Standard_D4s_v3", 4,
            "\"availableCount\": 10, \"familyConsumedCoreCount\": 40, \"familyQuotaCoreCount\": 80,"
            " \"regionalConsumedCoreCount\": 45, \"regionalQuotaCoreCount\": 100");
    bucket (spot, sizeof (spot), "Standard_F4s", 4,
            "\"availableCount\": 100, \"familyConsumedCoreCount\": 0, \"familyQuotaCoreCount\": 0,"
            " \"quotaCoreCount\": 0, \"consumedCoreCount\": 0, \"quotaCount\": 0,"
            " \"regionalConsumedCoreCount\": 45, \"regionalQuotaCoreCount\": 100");
    snprintf (
        status, sizeof (status),
        "{\"nodearrays\": [{\"name\": \"htc\", \"maxCount\": 10, \"nodearray\": {\"Region\": \"westus2\"},"
        " \"buckets\": [%s, %s]},"
        " {\"name\": \"htcspot\", \"nodearray\": {\"Region\": \"westus2\", \"Interruptible\": true},"
        " \"buckets\": [%s]}]}",
        f4, d4, spot);
    model_build (&m, status, NULL);
    assert_int_equal (avail (&m, "htc", "Standard_F4s"), 10);
    assert_int_equal (avail (&m, "htc", "Standard_D4s_v3"), 10);
    assert_int_equal (avail (&m, "htcspot", "Standard_F4s"), 13); /* (100 - 45) / 4: the spot region's */
    assert_int_equal (take (&m, "htc", "Standard_F4s", 1), 1);
    assert_int_equal (avail (&m, "htc", "Standard_F4s"), 9);
    assert_int_equal (avail (&m, "htc", "Standard_D4s_v3"), 9);   /* the nodearray's maxCount 10 */
    assert_int_equal (avail (&m, "htcspot", "Standard_F4s"), 13); /* spot and on-demand apart */
    /* the spot bucket's zeros block nothing, and on-demand's family use blocks no spot */
    assert_int_equal (take (&m, "htcspot", "Standard_F4s", 100), 13);
    assert_int_equal (avail (&m, "htc", "Standard_F4s"), 9);
    model_free (&m);
}

/* scalelib nodemanager_test.py::test_vm_family_limit: spot ignores its 0
 * family quota; on-demand F4 and F2 share 120 cores. */
static void test_vm_family_limit (void **state)
{
    char spot[1024], f4[1024], f2[1024], status[4096];
    struct model m;
    (void)state;
    bucket (spot, sizeof (spot), "Standard_F4", 4,
            "\"availableCount\": 20, \"familyConsumedCoreCount\": 0, \"familyQuotaCoreCount\": 0");
    bucket (f4, sizeof (f4), "Standard_F4", 4,
            "\"availableCount\": 20, \"familyConsumedCoreCount\": 0, \"familyQuotaCoreCount\": 120");
    bucket (f2, sizeof (f2), "Standard_F2", 2,
            "\"availableCount\": 20, \"familyConsumedCoreCount\": 0, \"familyQuotaCoreCount\": 120");
    snprintf (
        status, sizeof (status),
        "{\"nodearrays\": [{\"name\": \"hpc\", \"nodearray\": {\"Interruptible\": true}, \"buckets\": [%s]},"
        " {\"name\": \"htc\", \"buckets\": [%s, %s]}]}",
        spot, f4, f2);
    model_build (&m, status, NULL);
    assert_int_equal (take (&m, "htc", "Standard_F4", 100) + take (&m, "htc", "Standard_F2", 100), 40);
    assert_int_equal (take (&m, "hpc", "Standard_F4", 100), 20);
    model_free (&m);
}

/* scalelib nodemanager_test.py::test_mock_bindings2, and regional quota kept per region. */
static void test_regions (void **state)
{
    char e2[1024], e4[1024], d8[1024], east[1024], status[4096];
    struct model m;
    (void)state;
    const char *fam = "\"familyConsumedCoreCount\": 144, \"familyQuotaCoreCount\": 160";
    char f[512];
    snprintf (f, sizeof (f), "\"availableCount\": 8, %s, \"regionalQuotaCoreCount\": 1000", fam);
    bucket (e2, sizeof (e2), "Standard_E2_v3", 2, f);
    snprintf (f, sizeof (f), "\"availableCount\": 4, %s, \"regionalQuotaCoreCount\": 1000", fam);
    bucket (e4, sizeof (e4), "Standard_E4_v3", 4, f);
    bucket (d8, sizeof (d8), "Standard_D8s_v3", 8, "\"availableCount\": 8, \"regionalQuotaCoreCount\": 1000");
    /* eastus is nearly out of regional quota; westus2 must not inherit it */
    bucket (east, sizeof (east), "Standard_E2_v3", 2,
            "\"availableCount\": 4, \"familyQuotaCoreCount\": 160, \"regionalQuotaCoreCount\": 100,"
            " \"regionalConsumedCoreCount\": 96");
    snprintf (status, sizeof (status),
              "{\"nodearrays\": [{\"name\": \"w\", \"maxCount\": 8, \"nodearray\": {\"Region\": \"westus2\"},"
              " \"buckets\": [%s, %s, %s]},"
              " {\"name\": \"e\", \"nodearray\": {\"Region\": \"eastus\"}, \"buckets\": [%s]}]}",
              e2, e4, d8, east);
    model_build (&m, status, NULL);
    assert_int_equal (avail (&m, "w", "Standard_E2_v3"), 8);
    assert_int_equal (avail (&m, "w", "Standard_E4_v3"), 4);
    assert_int_equal (avail (&m, "w", "Standard_D8s_v3"), 8);
    assert_int_equal (avail (&m, "e", "Standard_E2_v3"), 2);
    assert_int_equal (take (&m, "w", "Standard_E4_v3", 1), 1);
    assert_int_equal (avail (&m, "w", "Standard_E2_v3"), 6); /* (160 - 148) / 2 */
    assert_int_equal (avail (&m, "w", "Standard_E4_v3"), 3);
    assert_int_equal (avail (&m, "w", "Standard_D8s_v3"), 7); /* the nodearray's */
    assert_int_equal (avail (&m, "e", "Standard_E2_v3"), 2);  /* another region's family */
    char why[256];
    assert_int_equal (take (&m, "e", "Standard_E2_v3", 5), 2);
    assert_int_equal (ccas_bucket_available (find (&m, "e", "Standard_E2_v3"), why, sizeof (why)), 0);
    assert_string_equal (why, "availableCount 0 (regional quota in eastus: 0 cores left, 2 per node)");
    model_free (&m);
}

/* Cluster and nodearray limits, own counts (availableCoreCount, maxCount - activeCount). */
static void test_cluster_and_own_counts (void **state)
{
    char b1[1024], b2[1024], status[4096];
    struct model m;
    (void)state;
    bucket (b1, sizeof (b1), "Standard_F4s_v2", 4,
            "\"availableCount\": 50, \"availableCoreCount\": 20, \"activeCount\": 2, \"activeCoreCount\": 8");
    bucket (b2, sizeof (b2), "Standard_F2s_v2", 2,
            "\"availableCount\": 50, \"maxCount\": 10, \"activeCount\": 7, \"activeCoreCount\": 14");
    snprintf (status, sizeof (status),
              "{\"maxCoreCount\": 40, \"nodearrays\": [{\"name\": \"a\", \"buckets\": [%s]},"
              " {\"name\": \"b\", \"buckets\": [%s]}]}",
              b1, b2);
    model_build (&m, status, NULL);
    assert_int_equal (avail (&m, "a", "Standard_F4s_v2"), 4); /* cluster: 40 - 22 = 18 cores; own: 20 cores */
    assert_int_equal (avail (&m, "b", "Standard_F2s_v2"), 3); /* maxCount 10 less 7 active */
    assert_int_equal (take (&m, "a", "Standard_F4s_v2", 9), 4);
    assert_int_equal (avail (&m, "b", "Standard_F2s_v2"), 1); /* 2 cores of the cluster's left */
    model_free (&m);
}

/* A status that contradicts itself or goes negative plans within the tightest limit. */
static void test_bad_limits (void **state)
{
    char b1[1024], status[4096];
    struct model m;
    char why[256];
    (void)state;
    bucket (b1, sizeof (b1), "Standard_F4s_v2", 4,
            "\"availableCount\": 10, \"familyQuotaCoreCount\": 40, \"familyConsumedCoreCount\": 60");
    snprintf (status, sizeof (status), "{\"nodearrays\": [{\"name\": \"htc\", \"buckets\": [%s]}]}", b1);
    model_build (&m, status, NULL);
    assert_int_equal (ccas_bucket_available (find (&m, "htc", "Standard_F4s_v2"), why, sizeof (why)), 0);
    assert_string_equal (why, "availableCount 0 (family quota standardFSv2Family: 0 cores left, 4 per node)");
    assert_int_equal (m.c->status->nwarnings, 1);
    model_free (&m);

    bucket (b1, sizeof (b1), "Standard_F4s_v2", 4, "\"availableCount\": 10, \"regionalQuotaCoreCount\": -8");
    snprintf (status, sizeof (status), "{\"nodearrays\": [{\"name\": \"htc\", \"buckets\": [%s]}]}", b1);
    model_build (&m, status, NULL);
    assert_int_equal (avail (&m, "htc", "Standard_F4s_v2"), 0);
    model_free (&m);

    bucket (b1, sizeof (b1), "Standard_F4s_v2", 4,
            "\"availableCount\": 30, \"maxCount\": 10, \"activeCount\": 4");
    snprintf (status, sizeof (status), "{\"nodearrays\": [{\"name\": \"htc\", \"buckets\": [%s]}]}", b1);
    model_build (&m, status, NULL);
    assert_int_equal (avail (&m, "htc", "Standard_F4s_v2"), 6);
    model_free (&m);
}

/* ---- placement groups and colocation ------------------------------------------------------ */

static void test_pg_core_size (void **state)
{
    char hc[1024], status[4096];
    struct model m;
    (void)state;
    bucket (hc, sizeof (hc), "Standard_HC44rs", 44,
            "\"availableCount\": 20, \"maxPlacementGroupSize\": 100, \"maxPlacementGroupCoreSize\": 88,"
            " \"placementGroups\": [{\"name\": \"old\", \"activeCount\": 1, \"activeCoreCount\": 44}]");
    snprintf (status, sizeof (status), "{\"nodearrays\": [{\"name\": \"hpc\", \"buckets\": [%s]}]}", hc);
    model_build (&m, status, NULL);
    struct ccas_bucket *b = find (&m, "hpc", "Standard_HC44rs");
    assert_int_equal (b->max_pg_size, 2);
    assert_string_equal (b->pg_limit, "maxPlacementGroupCoreSize 88 (44 cores per node)");
    struct ccas_pg *old = ccas_pg_get (m.c, b, "old", NULL);
    assert_int_equal (old->room, 1);
    struct ccas_pg *pg = ccas_pg_get (m.c, b, NULL, NULL);
    assert_int_equal (pg->room, 2);
    assert_non_null (ccas_cluster_new_node (m.c, b, pg, NULL));
    assert_non_null (ccas_cluster_new_node (m.c, b, pg, NULL));
    assert_null (ccas_cluster_new_node (m.c, b, pg, NULL)); /* 88 cores: two nodes of 44 */
    model_free (&m);

    bucket (hc, sizeof (hc), "Standard_HC44rs", 44,
            "\"availableCount\": 20, \"maxPlacementGroupSize\": 3, \"maxPlacementGroupCoreSize\": 440");
    snprintf (status, sizeof (status), "{\"nodearrays\": [{\"name\": \"hpc\", \"buckets\": [%s]}]}", hc);
    model_build (&m, status, NULL);
    assert_int_equal (find (&m, "hpc", "Standard_HC44rs")->max_pg_size, 3);
    assert_string_equal (find (&m, "hpc", "Standard_HC44rs")->pg_limit, "maxPlacementGroupSize 3");
    model_free (&m);
}

/* One InfiniBand bucket no longer makes its whole nodearray colocated; the
 * template's slurm.hpc decides for every bucket, the site's key over it. */
static void test_colocation_per_bucket (void **state)
{
    char hb[1024], d4[2048], status[8192];
    struct model m;
    (void)state;
    snprintf (hb, sizeof (hb),
              "{\"definition\": {\"machineType\": \"Standard_HB120rs_v3\"},"
              " \"virtualMachine\": {\"vcpuCount\": 120, \"infiniband\": true}}");
    bucket (d4, sizeof (d4), "Standard_D4s_v3", 4, NULL);
    snprintf (status, sizeof (status), "{\"nodearrays\": [{\"name\": \"mixed\", \"buckets\": [%s, %s]}]}", hb,
              d4);
    model_build (&m, status, NULL);
    assert_true (find (&m, "mixed", "Standard_HB120rs_v3")->colocated);
    assert_false (find (&m, "mixed", "Standard_D4s_v3")->colocated);
    assert_true (find (&m, "mixed", "Standard_D4s_v3")->na->colocated); /* some bucket is */
    model_free (&m);

    model_build (&m, status, "\"nodearrays\": {\"mixed\": {\"colocated\": false}}");
    assert_false (find (&m, "mixed", "Standard_HB120rs_v3")->colocated);
    model_free (&m);
    model_build (&m, status, "\"nodearrays\": {\"mixed\": {\"colocated\": true}}");
    assert_true (find (&m, "mixed", "Standard_D4s_v3")->colocated);
    model_free (&m);

    /* CycleCloud's Slurm template says it in Configuration slurm.hpc (a
     * boolean, or azslurm's word in any case): over InfiniBand and the
     * nodearray's PlacementGroupId, under the site's own key */
    static const struct {
        const char *record, *config;
        bool hb, d4;
    } cases[] = {
        {"\"Configuration\": {\"slurm\": {\"hpc\": true}}", NULL, true, true},
        {"\"Configuration\": {\"slurm\": {\"hpc\": false}}", NULL, false, false},
        {"\"Configuration\": {\"slurm\": {\"hpc\": \"False\"}}", NULL, false, false},
        {"\"Configuration\": {\"slurm.hpc\": \"TRUE\"}", NULL, true, true},
        {"\"Configuration\": {\"slurm\": {\"hpc\": false}}, \"PlacementGroupId\": \"pg\"", NULL, false,
         false},
        {"\"Configuration\": {\"slurm\": {\"hpc\": 1}}", NULL, true, false}, /* not a boolean: unset */
        {"\"Configuration\": {\"slurm\": {\"hpc\": false}}",
         "\"nodearrays\": {\"mixed\": {\"colocated\": true}}", true, true},
    };
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        snprintf (status, sizeof (status),
                  "{\"nodearrays\": [{\"name\": \"mixed\", \"nodearray\": {%s}, \"buckets\": [%s, %s]}]}",
                  cases[i].record, hb, d4);
        model_build (&m, status, cases[i].config);
        if (find (&m, "mixed", "Standard_HB120rs_v3")->colocated != cases[i].hb ||
            find (&m, "mixed", "Standard_D4s_v3")->colocated != cases[i].d4)
            fail_msg ("case %zu: %s", i, cases[i].record);
        model_free (&m);
    }
}

/* ---- the VM-size fallback and node properties ---------------------------------------------- */

static void test_fallback_and_properties (void **state)
{
    char status[4096];
    struct model m;
    char buf[64], why[256];
    (void)state;
    snprintf (status, sizeof (status),
              "{\"nodearrays\": [{\"name\": \"gpu\", \"nodearray\": {\"Configuration\": {\"custom\": 7}},"
              " \"buckets\": [{\"definition\": {\"machineType\": \"Standard_ND96isr_H100_v5\"},"
              " \"virtualMachine\": {\"vcpuCount\": 96, \"gpuCount\": 1}},"
              " {\"definition\": {\"machineType\": \"Standard_F8s_v2\"}},"
              " {\"definition\": {\"machineType\": \"Standard_Unknown9\"}}]}]}");
    model_build (&m, status, NULL);
    struct ccas_bucket *nd = find (&m, "gpu", "Standard_ND96isr_H100_v5");
    struct ccas_bucket *f8 = find (&m, "gpu", "Standard_F8s_v2");
    struct ccas_bucket *unk = find (&m, "gpu", "Standard_Unknown9");
    assert_int_equal (nd->template_node.gpu_count, 8);
    assert_true (nd->template_node.memory == 1900.0 * 1024 * 1024 * 1024); /* the status left it out */
    assert_true (nd->colocated);                                           /* RDMA by the table */
    assert_int_equal (f8->template_node.vcpu_count, 8);
    assert_int_equal (f8->cores_per_vm, 8);
    assert_int_equal (ccas_bucket_available (unk, why, sizeof (why)), 0);
    assert_string_equal (why, "virtualMachine.vcpuCount not stated, and Standard_Unknown9 is not in the "
                              "built-in table of sizes");
    const struct ccas_node *t = &f8->template_node;
    struct {
        const char *prop;
        const char *want;
    } props[] = {
        {"state", "'Off'"},
        {"target_state", "'Off'"},
        {"vm_family", "'standardFSv2Family'"},
        {"exists", "false"},
        {"colocated", "false"},
        {"version", "'7.9'"},
        {"create_time_unix", "0"},
        {"delete_time_unix", "0"},
        {"last_match_time_unix", "0"},
        {"create_time_remaining", "0"},
    };
    for (size_t i = 0; i < sizeof (props) / sizeof (props[0]); i++) {
        int p = ccas_node_prop_parse (props[i].prop);
        if (p < 0)
            fail_msg ("property %s does not resolve", props[i].prop);
        struct ccas_value v = ccas_node_prop (t, (enum ccas_node_prop)p, buf, sizeof (buf));
        char text[64];
        assert_string_equal (ccas_value_format (&v, text, sizeof (text)), props[i].want);
    }
    assert_string_equal (ccas_value_format (&(struct ccas_value){0}, buf, sizeof (buf)), "undefined");
    struct ccas_value v = ccas_node_prop (&nd->template_node, CCAS_PROP_COLOCATED, buf, sizeof (buf));
    assert_true (v.u.b); /* a new node in a colocated bucket */
    v = ccas_node_prop (t, CCAS_PROP_HOSTNAME_OR_UUID, buf, sizeof (buf));
    assert_int_equal (strlen (v.u.str), 36);
    char first[64];
    snprintf (first, sizeof (first), "%s", v.u.str);
    v = ccas_node_prop (t, CCAS_PROP_HOSTNAME_OR_UUID, buf, sizeof (buf));
    assert_string_equal (v.u.str, first); /* stable for one node */
    v = ccas_node_prop (&nd->template_node, CCAS_PROP_HOSTNAME_OR_UUID, buf, sizeof (buf));
    assert_string_not_equal (v.u.str, first);
    v = ccas_node_prop (t, CCAS_PROP_CREATE_TIME, buf, sizeof (buf));
    assert_int_equal (strlen (v.u.str), 19); /* "1970-01-01 00:00:00", local */
    assert_ptr_equal (t->software_configuration,
                      ccas_json_get (m.c->status->nodearrays[0].record, "Configuration"));
    model_free (&m);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_shared_limit),
        cmocka_unit_test (test_quota_core_count_shared),
        cmocka_unit_test (test_family_and_spots),
        cmocka_unit_test (test_room_together),
        cmocka_unit_test (test_vm_family_limit),
        cmocka_unit_test (test_regions),
        cmocka_unit_test (test_cluster_and_own_counts),
        cmocka_unit_test (test_bad_limits),
        cmocka_unit_test (test_pg_core_size),
        cmocka_unit_test (test_colocation_per_bucket),
        cmocka_unit_test (test_fallback_and_properties),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
