/* SPDX-License-Identifier: MIT */
/* test_names.c: Slurm node names and buckets (names.c) — the layout of
 * index ranges per machine type, sized by maxCount and slurm.max_nodes,
 * for the nodearrays ccautoscale manages only; names parsed back (only the
 * ones ccautoscale gives); a name resolved to its bucket by the machine
 * type feature Slurm has, else by the layout; every refusal saying why.
 * No slurmctld: the cluster is tests/data/cluster-status.json. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model/test/fixture.h"
#include "names.h"
#include "slurmapi.h"

/* cluster-status.json: htc (F2s_v2 and F4s_v2, 30 each, 40 for the
 * nodearray), hpc (HB120rs_v3, 12), gpu (autoscale.enabled false in
 * CycleCloud), login (D2s_v3, no maxCount). */
struct world {
    struct ccas_config *cfg;
    struct ccas_cluster *c;
    struct ccas_slurm_layout *l;
};

static void world_make (struct world *w, const char *config)
{
    w->cfg = fx_config (config);
    w->c = fx_cluster (w->cfg, "cluster-status.json", NULL, NULL);
    w->l = ccas_slurm_layout_create (w->c);
    assert_non_null (w->l);
}

static const struct ccas_nodearray *nodearray (const struct world *w, const char *name)
{
    for (size_t i = 0; i < w->c->nnodearrays; i++)
        if (strcmp (w->c->nodearrays[i].name, name) == 0)
            return &w->c->nodearrays[i];
    fail_msg ("no nodearray %s", name);
    return NULL;
}

static void world_free (struct world *w)
{
    ccas_slurm_layout_destroy (w->l);
    ccas_cluster_destroy (w->c);
    ccas_conf_destroy (w->cfg);
}

/* The layout as text: "na/machine_type:first-last" for each range. */
static const char *layout_text (const struct ccas_slurm_layout *l, char *buf, size_t size)
{
    buf[0] = '\0';
    for (size_t r = 0; r < l->nranges; r++) {
        size_t len = strlen (buf);
        snprintf (buf + len, size - len, "%s%s/%s:%ld-%ld", r ? " " : "", l->ranges[r].bucket->na->name,
                  l->ranges[r].bucket->machine_type, l->ranges[r].first, l->ranges[r].last);
    }
    return buf;
}

/* Ranges follow each nodearray's buckets, from 1, sized by the bucket's
 * and the nodearray's maxCount and slurm.max_nodes; a nodearray
 * CycleCloud does not autoscale, or the configuration disables, gets none. */
static void test_layout (void **state)
{
    (void)state;
    char text[512];
    struct world w;
    world_make (&w, NULL);
    assert_string_equal (layout_text (w.l, text, sizeof (text)),
                         "htc/Standard_F2s_v2:1-30 htc/Standard_F4s_v2:31-60 hpc/Standard_HB120rs_v3:1-12 "
                         "login/Standard_D2s_v3:1-1000");
    assert_string_equal (w.l->prefix, "");
    world_free (&w);

    world_make (&w, "{\"slurm\": {\"max_nodes\": 10, \"node_prefix\": \"cc-\"},"
                    " \"nodearrays\": {\"gpu\": {\"enabled\": true}, \"login\": {\"enabled\": false}}}");
    assert_string_equal (layout_text (w.l, text, sizeof (text)),
                         "htc/Standard_F2s_v2:1-10 htc/Standard_F4s_v2:11-20 hpc/Standard_HB120rs_v3:1-10 "
                         "gpu/Standard_NC24ads_A100_v4:1-4");
    assert_string_equal (w.l->prefix, "cc-");
    char name[64];
    assert_string_equal (ccas_slurm_name (w.l, "htc", 7, name, sizeof (name)), "cc-htc-7");
    world_free (&w);

    /* a nodearray whose maxCount is 0 has no names; nor has a cluster of none */
    struct ccas_config *cfg =
        fx_config ("{\"nodearrays\": {\"hpc\": {\"enabled\": false}, \"login\": {\"enabled\": "
                   "false}}}");
    struct ccas_cluster *c = fx_cluster (cfg, "cluster-status.json", "{\"htc\": {\"maxCount\": 0}}", NULL);
    struct ccas_slurm_layout *l = ccas_slurm_layout_create (c);
    assert_int_equal (l->nranges, 0);
    ccas_slurm_layout_destroy (l);
    ccas_slurm_layout_destroy (NULL);
    ccas_cluster_destroy (c);
    ccas_conf_destroy (cfg);
}

/* Why a nodearray is not managed: CycleCloud's autoscale flag, or the
 * configuration. */
static void test_managed (void **state)
{
    (void)state;
    char why[256];
    struct world w;
    world_make (&w, "{\"nodearrays\": {\"hpc\": {\"enabled\": false}}}");
    const struct ccas_nodearray *htc = nodearray (&w, "htc");
    const struct ccas_nodearray *hpc = nodearray (&w, "hpc");
    const struct ccas_nodearray *gpu = nodearray (&w, "gpu");
    assert_true (ccas_slurm_nodearray_managed (htc, why, sizeof (why)));
    assert_false (ccas_slurm_nodearray_managed (gpu, why, sizeof (why)));
    assert_string_equal (why,
                         "nodearray 'gpu' is not autoscaled (Configuration.autoscale.enabled is false in "
                         "CycleCloud; nodearrays.gpu.enabled true manages it anyway)");
    assert_false (ccas_slurm_nodearray_managed (hpc, why, sizeof (why)));
    assert_string_equal (why, "nodearray 'hpc' is disabled in the configuration (nodearrays.hpc.enabled)");
    assert_false (ccas_slurm_nodearray_managed (hpc, NULL, 0));
    world_free (&w);
}

/* Only the names ccautoscale gives parse: <prefix><nodearray>-<n>, n from
 * 1, no leading zero, at most nine digits; a nodearray may hold '-'. */
static void test_name_parse (void **state)
{
    (void)state;
    static const struct ccas_slurm_layout plain = {.prefix = ""}, prefixed = {.prefix = "cc-"};
    static const struct {
        const struct ccas_slurm_layout *l;
        const char *name, *nodearray;
        long index;
    } good[] = {
        {&plain, "htc-1", "htc", 1},           {&plain, "htc-60", "htc", 60},
        {&plain, "my-array-7", "my-array", 7}, {&plain, "htc-999999999", "htc", 999999999},
        {&prefixed, "cc-htc-3", "htc", 3},     {&prefixed, "cc-cc-htc-3", "cc-htc", 3},
    };
    for (size_t i = 0; i < sizeof (good) / sizeof (good[0]); i++) {
        char na[64] = "";
        long index = 0;
        if (!ccas_slurm_name_parse (good[i].l, good[i].name, na, sizeof (na), &index))
            fail_msg ("'%s' was refused", good[i].name);
        assert_string_equal (na, good[i].nodearray);
        assert_int_equal (index, good[i].index);
    }
    static const struct {
        const struct ccas_slurm_layout *l;
        const char *name;
    } bad[] = {
        {&plain, "htc"},    {&plain, "htc-"},           {&plain, "htc-0"},    {&plain, "htc-01"},
        {&plain, "-1"},     {&plain, "htc-1x"},         {&plain, "htc-+1"},   {&plain, "htc- 1"},
        {&plain, ""},       {&plain, "htc-1234567890"}, {&prefixed, "htc-1"}, {&prefixed, "cc-1"},
        {&prefixed, "cc-"}, {&plain, "htc--1x"},
    };
    for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
        char na[64] = "untouched";
        long index = -5;
        if (ccas_slurm_name_parse (bad[i].l, bad[i].name, na, sizeof (na), &index))
            fail_msg ("'%s' was taken for a name of ours (nodearray '%s', index %ld)", bad[i].name, na,
                      index);
        assert_string_equal (na, "untouched");
        assert_int_equal (index, -5);
    }
    /* a nodearray longer than the caller's buffer */
    char small[4];
    long index;
    assert_false (ccas_slurm_name_parse (&plain, "long-1", small, sizeof (small), &index));
    assert_true (ccas_slurm_name_parse (&plain, "abc-1", small, sizeof (small), &index));
    assert_string_equal (small, "abc");
}

/* A name's nodearray: one of the cluster's, managed, or why not. */
static void test_nodearray_of (void **state)
{
    (void)state;
    char why[256];
    long index = 0;
    struct world w;
    world_make (&w, "{\"nodearrays\": {\"login\": {\"enabled\": false}}}");
    const struct ccas_nodearray *na = ccas_slurm_nodearray_of (w.c, w.l, "hpc-12", &index, why, sizeof (why));
    assert_non_null (na);
    assert_string_equal (na->name, "hpc");
    assert_int_equal (index, 12);
    assert_null (ccas_slurm_nodearray_of (w.c, w.l, "hpc12", &index, why, sizeof (why)));
    assert_string_equal (why, "'hpc12' is not a ccautoscale name (<nodearray>-<n>)");
    assert_null (ccas_slurm_nodearray_of (w.c, w.l, "nope-1", &index, why, sizeof (why)));
    assert_string_equal (why, "cluster 'test' has no nodearray 'nope'");
    assert_null (ccas_slurm_nodearray_of (w.c, w.l, "gpu-1", &index, why, sizeof (why)));
    assert_non_null (strstr (why, "nodearray 'gpu' is not autoscaled"));
    assert_null (ccas_slurm_nodearray_of (w.c, w.l, "login-1", &index, why, sizeof (why)));
    assert_string_equal (why,
                         "nodearray 'login' is disabled in the configuration (nodearrays.login.enabled)");
    world_free (&w);
}

/* The bucket of a name: the machine type feature Slurm has for the node
 * (of the name's own nodearray), else the layout's range. */
static void test_bucket_of (void **state)
{
    (void)state;
    char why[256];
    struct world w;
    world_make (&w, NULL);
    struct ccas_bucket *f2 = ccas_cluster_bucket (w.c, "htc", "Standard_F2s_v2");
    struct ccas_bucket *f4 = ccas_cluster_bucket (w.c, "htc", "Standard_F4s_v2");
    assert_ptr_equal (ccas_slurm_bucket_of (w.c, w.l, "htc-1", NULL, why, sizeof (why)), f2);
    assert_ptr_equal (ccas_slurm_bucket_of (w.c, w.l, "htc-30", NULL, why, sizeof (why)), f2);
    assert_ptr_equal (ccas_slurm_bucket_of (w.c, w.l, "htc-31", NULL, why, sizeof (why)), f4);
    assert_null (ccas_slurm_bucket_of (w.c, w.l, "htc-61", NULL, why, sizeof (why)));
    assert_string_equal (
        why, "'htc-61': no machine type feature in Slurm and index 61 is past nodearray 'htc''s ranges");
    /* Slurm's feature wins over the layout (ranges renamed in slurm.conf) */
    struct ccas_slurm_node sn = {.name = "htc-1", .features = "htc,Standard_F4s_v2"};
    assert_ptr_equal (ccas_slurm_bucket_of (w.c, w.l, "htc-1", &sn, why, sizeof (why)), f4);
    sn.name = "htc-61";
    assert_ptr_equal (ccas_slurm_bucket_of (w.c, w.l, "htc-61", &sn, why, sizeof (why)), f4);
    /* a feature that is no machine type of this nodearray, or none: the layout */
    sn.features = "Standard_HB120rs_v3,Standard_F4s_v2x";
    assert_ptr_equal (ccas_slurm_bucket_of (w.c, w.l, "htc-1", &sn, why, sizeof (why)), f2);
    sn.features = NULL;
    assert_ptr_equal (ccas_slurm_bucket_of (w.c, w.l, "htc-2", &sn, why, sizeof (why)), f2);
    /* not ours at all */
    assert_null (ccas_slurm_bucket_of (w.c, w.l, "gpu-1", &sn, why, sizeof (why)));
    assert_non_null (strstr (why, "is not autoscaled"));

    /* every range's first and last name come back to its bucket */
    for (size_t r = 0; r < w.l->nranges; r++) {
        const struct ccas_slurm_range *rg = &w.l->ranges[r];
        char name[64];
        long ends[] = {rg->first, rg->last};
        for (int e = 0; e < 2; e++) {
            ccas_slurm_name (w.l, rg->bucket->na->name, ends[e], name, sizeof (name));
            if (ccas_slurm_bucket_of (w.c, w.l, name, NULL, why, sizeof (why)) != rg->bucket)
                fail_msg ("%s: not back to %s/%s: %s", name, rg->bucket->na->name, rg->bucket->machine_type,
                          why);
        }
    }
    world_free (&w);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_layout),     cmocka_unit_test (test_managed),
        cmocka_unit_test (test_name_parse), cmocka_unit_test (test_nodearray_of),
        cmocka_unit_test (test_bucket_of),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
