/* SPDX-License-Identifier: MIT */
/* test_names.c: Slurm node names and buckets (names.c) — the layout of
 * index ranges per machine type, sized by maxCount (slurm.max_nodes caps
 * only when set, and says so), for the nodearrays ccautoscale manages only,
 * each with its own prefix; names parsed back (only the ones ccautoscale
 * gives); a name resolved to its bucket by the machine type feature Slurm
 * has, else by the layout; a dynamic node by its features; every refusal
 * saying why.  No slurmctld: the clusters are tests/data/
 * cluster-status.json and stock-slurm-cluster.json. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dynamic.h"
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

/* Ranges follow each nodearray's buckets, from 1, as many as the
 * bucket's and the nodearray's maxCount allow; slurm.max_nodes caps them
 * only when set, with a warning naming each nodearray it cuts, and a bucket
 * CycleCloud states no limit for gets 1000 with a warning; a nodearray
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
    assert_int_equal (w.l->intents->nwarnings, 1);
    assert_string_equal (
        w.l->intents->warnings[0],
        "nodearray 'login' machine type 'Standard_D2s_v3': CycleCloud states no maxCount: 1000 "
        "names (set the nodearray's MaxCount, or slurm.max_nodes)");
    world_free (&w);

    world_make (&w, "{\"slurm\": {\"max_nodes\": 10, \"node_prefix\": \"cc-\"},"
                    " \"nodearrays\": {\"gpu\": {\"enabled\": true}, \"login\": {\"enabled\": false}}}");
    assert_string_equal (layout_text (w.l, text, sizeof (text)),
                         "htc/Standard_F2s_v2:1-10 htc/Standard_F4s_v2:11-20 hpc/Standard_HB120rs_v3:1-10 "
                         "gpu/Standard_NC24ads_A100_v4:1-4");
    assert_int_equal (w.l->intents->nwarnings, 3);
    assert_string_equal (w.l->intents->warnings[0],
                         "nodearray 'htc' machine type 'Standard_F2s_v2': 10 names of "
                         "the 30 CycleCloud allows (slurm.max_nodes)");
    assert_string_equal (w.l->intents->warnings[2], "nodearray 'hpc' machine type 'Standard_HB120rs_v3': 10 "
                                                    "names of the 12 CycleCloud allows (slurm.max_nodes)");
    char name[64];
    assert_string_equal (ccas_slurm_name (w.l, "htc", 7, name, sizeof (name)), "cc-htc-7");
    assert_string_equal (ccas_slurm_name_format (w.l, "hpc", name, sizeof (name)), "cc-hpc-%d");
    world_free (&w);

    /* no cap below 1000 any more: 5000 names where CycleCloud allows them */
    struct ccas_config *cfg = fx_config (NULL);
    struct ccas_cluster *c =
        fx_cluster (cfg, "cluster-status.json",
                    "{\"htc\": {\"maxCount\": 9000}, \"htc/Standard_F2s_v2\":"
                    " {\"maxCount\": 5000}, \"htc/Standard_F4s_v2\": {\"maxCount\": 2500}}",
                    NULL);
    struct ccas_slurm_layout *l = ccas_slurm_layout_create (c);
    assert_string_equal (
        layout_text (l, text, sizeof (text)),
        "htc/Standard_F2s_v2:1-5000 htc/Standard_F4s_v2:5001-7500 hpc/Standard_HB120rs_v3:1-12 "
        "login/Standard_D2s_v3:1-1000");
    ccas_slurm_layout_destroy (l);
    ccas_cluster_destroy (c);
    ccas_conf_destroy (cfg);

    /* a nodearray whose maxCount is 0 has no names; nor has a cluster of none */
    cfg = fx_config ("{\"nodearrays\": {\"hpc\": {\"enabled\": false}, \"login\": {\"enabled\": "
                     "false}}}");
    c = fx_cluster (cfg, "cluster-status.json", "{\"htc\": {\"maxCount\": 0}}", NULL);
    l = ccas_slurm_layout_create (c);
    assert_int_equal (l->nranges, 0);
    ccas_slurm_layout_destroy (l);
    ccas_slurm_layout_destroy (NULL);
    ccas_cluster_destroy (c);
    ccas_conf_destroy (cfg);
}

/* The stock template's cluster: each nodearray's prefix from its
 * Configuration; the dynamic nodearray has no names of its own. */
static void test_layout_stock (void **state)
{
    (void)state;
    char text[512], name[64];
    struct ccas_config *cfg = fx_config (NULL);
    struct ccas_cluster *c = fx_cluster (cfg, "stock-slurm-cluster.json", NULL, NULL);
    struct ccas_slurm_layout *l = ccas_slurm_layout_create (c);
    assert_string_equal (layout_text (l, text, sizeof (text)),
                         "hpc/Standard_F2s_v2:1-16 htc/Standard_F2s_v2:1-100 gpu/Standard_NC24rs_v3:1-8");
    assert_string_equal (ccas_slurm_name (l, "gpu", 8, name, sizeof (name)), "mycluster-gpu-8");
    assert_int_equal (l->intents->nerrors, 0);
    ccas_slurm_layout_destroy (l);
    ccas_cluster_destroy (c);
    ccas_conf_destroy (cfg);

    /* a name longer than a hostname can be */
    cfg = fx_config (NULL);
    c = fx_cluster (cfg, "stock-slurm-cluster.json",
                    "{\"htc.nodearray\": {\"Configuration\": {\"slurm\": {\"node_prefix\":"
                    " \"a-prefix-of-fifty-seven-characters-that-is-not-yet-63xxx-\"}}}}",
                    NULL);
    l = ccas_slurm_layout_create (c);
    assert_int_equal (l->intents->nerrors, 1);
    assert_string_equal (
        l->intents->errors[0],
        "nodearray 'htc': slurm.node_prefix: names such as "
        "'a-prefix-of-fifty-seven-characters-that-is-not-yet-63xxx-htc-100' are longer than a "
        "hostname's 63 characters");
    ccas_slurm_layout_destroy (l);
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

/* A layout of cluster-status.json under `config`, its status patched. */
static struct ccas_slurm_layout *layout_of (struct world *w, const char *config, const char *patch)
{
    w->cfg = fx_config (config);
    w->c = fx_cluster (w->cfg, "cluster-status.json", patch, NULL);
    w->l = ccas_slurm_layout_create (w->c);
    assert_non_null (w->l);
    return w->l;
}

/* Only the names ccautoscale gives parse: <prefix><nodearray>-<n> with the
 * nodearray's own prefix, n from 1, no leading zero, at most nine digits; a
 * nodearray may hold '-'. */
static void test_name_parse (void **state)
{
    (void)state;
    struct world plain, prefixed, own;
    layout_of (&plain, NULL, "{\"htc\": {\"name\": \"my-array\"}}");
    layout_of (&prefixed, "{\"slurm\": {\"node_prefix\": \"cc-\"}}", "{\"htc\": {\"name\": \"cc-htc\"}}");
    layout_of (&own, NULL,
               "{\"htc.nodearray\": {\"Configuration\": {\"slurm\": {\"node_prefix\": \"mycluster-\"}}},"
               " \"hpc.nodearray\": {\"Configuration\": {\"slurm.node_prefix\": \"other-\"}}}");
    const struct {
        const struct ccas_slurm_layout *l;
        const char *name, *nodearray;
        long index;
    } good[] = {
        {plain.l, "hpc-1", "hpc", 1},           {plain.l, "hpc-60", "hpc", 60},
        {plain.l, "my-array-7", "my-array", 7}, {plain.l, "hpc-999999999", "hpc", 999999999},
        {prefixed.l, "cc-hpc-3", "hpc", 3},     {prefixed.l, "cc-cc-htc-3", "cc-htc", 3},
        {own.l, "mycluster-htc-2", "htc", 2},   {own.l, "other-hpc-4", "hpc", 4},
        {own.l, "login-1", "login", 1},
    };
    for (size_t i = 0; i < sizeof (good) / sizeof (good[0]); i++) {
        char na[64] = "";
        long index = 0;
        if (!ccas_slurm_name_parse (good[i].l, good[i].name, na, sizeof (na), &index))
            fail_msg ("'%s' was refused", good[i].name);
        assert_string_equal (na, good[i].nodearray);
        assert_int_equal (index, good[i].index);
    }
    const struct {
        const struct ccas_slurm_layout *l;
        const char *name;
    } bad[] = {
        {plain.l, "hpc"},
        {plain.l, "hpc-"},
        {plain.l, "hpc-0"},
        {plain.l, "hpc-01"},
        {plain.l, "-1"},
        {plain.l, "hpc-1x"},
        {plain.l, "hpc-+1"},
        {plain.l, "hpc- 1"},
        {plain.l, ""},
        {plain.l, "hpc-1234567890"},
        {prefixed.l, "hpc-1"},
        {prefixed.l, "cc-1"},
        {prefixed.l, "cc-"},
        {plain.l, "hpc--1x"},
        {plain.l, "nope-1"},
        {own.l, "htc-2"},
        {own.l, "mycluster-hpc-4"},
        {own.l, "other-htc-1"},
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
    assert_false (ccas_slurm_name_parse (plain.l, "login-1", small, sizeof (small), &index));
    assert_true (ccas_slurm_name_parse (plain.l, "hpc-1", small, sizeof (small), &index));
    assert_string_equal (small, "hpc");
    world_free (&plain);
    world_free (&prefixed);
    world_free (&own);
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

/* A Slurm dynamic node, of any name, belongs to the dynamic nodearray
 * whose feature it has (as Slurm, in its case); its machine type is the
 * feature naming one (in any case), else the nodearray's first.  The stock
 * template's dynamic nodearray, through dynamic.c. */
static void test_dynamic_bucket_of (void **state)
{
    (void)state;
    char why[256];
    struct world w;
    w.cfg = fx_config (NULL);
    w.c = fx_cluster (w.cfg, "stock-slurm-cluster.json", NULL, NULL);
    w.l = ccas_slurm_layout_create (w.c);
    struct ccas_bucket *f2 = fx_bucket (w.c, "dynamic", "Standard_F2s_v2");
    struct ccas_bucket *f4 = fx_bucket (w.c, "dynamic", "Standard_F4s_v2");
    assert_ptr_equal (ccas_slurm_dynamic_bucket (w.c, "dyn,Standard_F4s_v2", why, sizeof (why)), f4);
    assert_ptr_equal (ccas_slurm_dynamic_bucket (w.c, "standard_f4s_v2,dyn", why, sizeof (why)), f4);
    assert_ptr_equal (ccas_slurm_dynamic_bucket (w.c, "dyn", why, sizeof (why)), f2);
    assert_ptr_equal (ccas_slurm_dynamic_bucket (w.c, "dyn,Standard_F8s_v2", why, sizeof (why)), f2);
    assert_null (ccas_slurm_dynamic_bucket (w.c, "Standard_F2s_v2,cloud", why, sizeof (why)));
    assert_string_equal (why, "features 'Standard_F2s_v2,cloud' hold no nodearray's slurm.dynamic_feature");
    assert_null (ccas_slurm_dynamic_bucket (w.c, NULL, why, sizeof (why)));
    assert_null (ccas_slurm_dynamic_bucket (w.c, "dyna", why, sizeof (why)));
    world_free (&w);

    w.cfg = fx_config ("{\"nodearrays\": {\"dynamic\": {\"enabled\": false}}}");
    w.c = fx_cluster (w.cfg, "stock-slurm-cluster.json", NULL, NULL);
    w.l = ccas_slurm_layout_create (w.c);
    assert_null (ccas_slurm_dynamic_bucket (w.c, "dyn", why, sizeof (why)));
    assert_string_equal (why,
                         "nodearray 'dynamic' is disabled in the configuration (nodearrays.dynamic.enabled)");
    world_free (&w);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_layout),
        cmocka_unit_test (test_layout_stock),
        cmocka_unit_test (test_managed),
        cmocka_unit_test (test_name_parse),
        cmocka_unit_test (test_nodearray_of),
        cmocka_unit_test (test_bucket_of),
        cmocka_unit_test (test_dynamic_bucket_of),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
