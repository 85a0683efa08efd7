/* SPDX-License-Identifier: MIT */
/* test_dynamic.c: Slurm dynamic nodes (dynamic.c) — a nodearray's feature
 * from its Configuration (slurm.dynamic_feature, the older
 * slurm.dynamic_config, nested or flat, wrong types ignored); a node's
 * bucket from its features (the dynamic feature exactly, the machine type
 * in any case, else the nodearray's first; several nodearrays sharing one
 * feature; unmanaged nodearrays refused with the reason); the fallback to
 * the <prefix><nodearray>-N layout; names split for create sets.  No
 * slurmctld: the cluster is tests/data/cluster-status.json, patched. */
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
#include "slurmapi.h"

/* cluster-status.json: htc (F2s_v2 and F4s_v2), hpc (HB120rs_v3), gpu
 * (autoscale.enabled false in CycleCloud), login (D2s_v3). */
struct world {
    struct ccas_config *cfg;
    struct ccas_cluster *c;
    struct ccas_slurm_layout *l;
};

static void world_make (struct world *w, const char *patch)
{
    w->cfg = fx_config (NULL);
    w->c = fx_cluster (w->cfg, "cluster-status.json", patch, NULL);
    w->l = ccas_slurm_layout_create (w->c);
    assert_non_null (w->l);
}

static void world_free (struct world *w)
{
    ccas_slurm_layout_destroy (w->l);
    ccas_cluster_destroy (w->c);
    ccas_conf_destroy (w->cfg);
}

static const struct ccas_nodearray *nodearray (const struct world *w, const char *name)
{
    for (size_t i = 0; i < w->c->nnodearrays; i++)
        if (strcmp (w->c->nodearrays[i].name, name) == 0)
            return &w->c->nodearrays[i];
    fail_msg ("no nodearray %s", name);
    return NULL;
}

/* "na/machine type" of the bucket, or "none: WHY". */
static const char *bucket_text (const struct ccas_bucket *b, const char *why, char *buf, size_t size)
{
    if (b)
        snprintf (buf, size, "%s/%s", b->na->name, b->machine_type);
    else
        snprintf (buf, size, "none: %s", why);
    return buf;
}

/* The feature comes from slurm.dynamic_feature (its first item), else from
 * slurm.dynamic_config's Feature= token; a nodearray without them, or with
 * a value that is not a string, is not dynamic. */
static void test_feature (void **state)
{
    (void)state;
    static const struct {
        const char *conf; /* the nodearray's Configuration */
        const char *feature;
    } cases[] = {
        {"{\"slurm\": {\"dynamic_feature\": \"dyn\"}}", "dyn"},
        {"{\"slurm\": {\"dynamic_feature\": \" mydyn,other\"}}", "mydyn"},
        {"{\"slurm\": {\"dynamic_config\": \"-Z --conf \\\"Feature=mydyn\\\"\"}}", "mydyn"},
        {"{\"slurm\": {\"dynamic_config\": \"-Z --conf 'feature=a,b'\"}}", "a"},
        {"{\"slurm\": {\"dynamic_config\": \"-Z --conf \\\"Gres=gpu:2 Feature=x\\\"\"}}", "x"},
        {"{\"slurm\": {\"dynamic_config\": \"-Z\"}}", NULL},
        {"{\"slurm\": {\"dynamic_feature\": \"dyn\", \"dynamic_config\": \"-Z --conf Feature=old\"}}", "dyn"},
        {"{\"slurm.dynamic_feature\": \"flat\"}", "flat"},
        {"{\"slurm\": {\"dynamic_feature\": 7}}", NULL},
        {"{\"slurm\": {\"dynamic_feature\": \"\"}}", NULL},
        {"{\"slurm\": {\"dynamic_feature\": \",\"}}", NULL},
        {"{\"slurm\": {\"hpc\": false}}", NULL},
        {"{}", NULL},
    };
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        char patch[512], buf[64];
        struct world w;
        snprintf (patch, sizeof (patch), "{\"htc.nodearray\": {\"Configuration\": %s}}", cases[i].conf);
        world_make (&w, patch);
        const char *f = ccas_slurm_dynamic_feature (nodearray (&w, "htc"), buf, sizeof (buf));
        if (cases[i].feature) {
            if (!f)
                fail_msg ("%s: no feature, wanted '%s'", cases[i].conf, cases[i].feature);
            assert_string_equal (f, cases[i].feature);
            assert_true (ccas_slurm_dynamic_nodearray (w.c, "htc"));
        } else {
            if (f)
                fail_msg ("%s: feature '%s', wanted none", cases[i].conf, f);
            assert_false (ccas_slurm_dynamic_nodearray (w.c, "htc"));
        }
        assert_false (ccas_slurm_dynamic_nodearray (w.c, "hpc"));
        assert_false (ccas_slurm_dynamic_nodearray (w.c, NULL));
        world_free (&w);
    }
}

static void test_features_have (void **state)
{
    (void)state;
    assert_true (ccas_slurm_features_have ("dyn,Standard_F4s_v2", "dyn", false));
    assert_true (ccas_slurm_features_have ("dyn,Standard_F4s_v2", "Standard_F4s_v2", false));
    assert_false (ccas_slurm_features_have ("dyn,Standard_F4s_v2", "standard_f4s_v2", false));
    assert_true (ccas_slurm_features_have ("dyn,Standard_F4s_v2", "standard_f4s_v2", true));
    assert_false (ccas_slurm_features_have ("dynx,xdyn", "dyn", false));
    assert_false (ccas_slurm_features_have ("dy", "dyn", false));
    assert_false (ccas_slurm_features_have ("", "dyn", false));
    assert_false (ccas_slurm_features_have (NULL, "dyn", false));
    assert_false (ccas_slurm_features_have ("dyn", "", false));
}

/* A dynamic node's bucket: its nodearray by the feature, its machine type
 * by the features (any case), else the nodearray's first. */
static void test_bucket (void **state)
{
    (void)state;
    static const struct {
        const char *features, *bucket;
    } cases[] = {
        {"dyn,Standard_F4s_v2", "htc/Standard_F4s_v2"},
        {"Standard_F2s_v2,dyn", "htc/Standard_F2s_v2"},
        {"dyn,standard_f4s_V2", "htc/Standard_F4s_v2"},
        {"dyn", "htc/Standard_F2s_v2"},
        {"dyn,Standard_HB120rs_v3", "htc/Standard_F2s_v2"}, /* another nodearray's size: htc's first */
        {"Dyn,Standard_F4s_v2", "none: features 'Dyn,Standard_F4s_v2' hold no nodearray's "
                                "slurm.dynamic_feature"},
        {"Standard_F4s_v2", "none: features 'Standard_F4s_v2' hold no nodearray's slurm.dynamic_feature"},
        {"", "none: features '' hold no nodearray's slurm.dynamic_feature"},
    };
    struct world w;
    char text[256], why[256];
    world_make (&w, "{\"htc.nodearray\": {\"Configuration\": {\"slurm\": {\"dynamic_feature\": \"dyn\"}}}}");
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        struct ccas_bucket *b = ccas_slurm_dynamic_bucket (w.c, cases[i].features, why, sizeof (why));
        assert_string_equal (bucket_text (b, why, text, sizeof (text)), cases[i].bucket);
    }
    assert_null (ccas_slurm_dynamic_bucket (w.c, NULL, NULL, 0));
    world_free (&w);
}

/* Two nodearrays with one feature: the one with the node's machine type,
 * else the first in the status; an unmanaged nodearray's feature is
 * refused with the reason. */
static void test_shared_feature (void **state)
{
    (void)state;
    struct world w;
    char text[256], why[256];
    world_make (&w, "{\"htc.nodearray\": {\"Configuration\": {\"slurm\": {\"dynamic_feature\": \"dyn\"}}},"
                    " \"hpc.nodearray\": {\"Configuration\": {\"slurm\": {\"dynamic_feature\": \"dyn\"}}},"
                    " \"gpu.nodearray\": {\"Configuration\": {\"autoscale\": {\"enabled\": false},"
                    "                                         \"slurm\": {\"dynamic_feature\": \"gdyn\"}}}}");
    struct ccas_bucket *b = ccas_slurm_dynamic_bucket (w.c, "dyn,Standard_HB120rs_v3", why, sizeof (why));
    assert_string_equal (bucket_text (b, why, text, sizeof (text)), "hpc/Standard_HB120rs_v3");
    b = ccas_slurm_dynamic_bucket (w.c, "dyn,Standard_F4s_v2", why, sizeof (why));
    assert_string_equal (bucket_text (b, why, text, sizeof (text)), "htc/Standard_F4s_v2");
    b = ccas_slurm_dynamic_bucket (w.c, "dyn", why, sizeof (why));
    assert_string_equal (bucket_text (b, why, text, sizeof (text)), "htc/Standard_F2s_v2");
    b = ccas_slurm_dynamic_bucket (w.c, "gdyn,Standard_NC24ads_A100_v4", why, sizeof (why));
    assert_null (b);
    assert_non_null (strstr (why, "nodearray 'gpu' is not autoscaled"));
    assert_false (ccas_slurm_dynamic_nodearray (w.c, "gpu"));
    world_free (&w);
}

/* Any node: by its dynamic feature first, by the layout otherwise; a node
 * with the feature of a nodearray that cannot take it is refused, never
 * taken for a static name. */
static void test_node_bucket (void **state)
{
    (void)state;
    struct world w;
    char text[256], why[256];
    world_make (&w, "{\"htc.nodearray\": {\"Configuration\": {\"slurm\": {\"dynamic_feature\": \"dyn\"}}},"
                    " \"gpu.nodearray\": {\"Configuration\": {\"autoscale\": {\"enabled\": false},"
                    "                                         \"slurm\": {\"dynamic_feature\": \"gdyn\"}}}}");
    static const struct {
        const char *name, *features, *bucket;
    } cases[] = {
        {"f4-1", "dyn,Standard_F4s_v2", "htc/Standard_F4s_v2"},
        {"hpc-1", "dyn,Standard_F4s_v2", "htc/Standard_F4s_v2"}, /* the feature wins over the name */
        {"hpc-3", NULL, "hpc/Standard_HB120rs_v3"},
        {"htc-31", "Standard_F4s_v2,htc", "htc/Standard_F4s_v2"},
        {"f4-1", NULL, "none: cluster 'test' has no nodearray 'f4'"},
        {"mynode", "", "none: 'mynode' is not a ccautoscale name (<nodearray>-<n>)"},
        {"hpc-2", "gdyn",
         "none: nodearray 'gpu' is not autoscaled (Configuration.autoscale.enabled is "
         "false in CycleCloud; nodearrays.gpu.enabled true manages it anyway)"},
    };
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        struct ccas_slurm_node sn = {.name = cases[i].name, .features = cases[i].features};
        struct ccas_bucket *b = ccas_slurm_node_bucket (w.c, w.l, cases[i].name, &sn, why, sizeof (why));
        assert_string_equal (bucket_text (b, why, text, sizeof (text)), cases[i].bucket);
    }
    /* no Slurm node at all: the layout alone */
    struct ccas_bucket *b = ccas_slurm_node_bucket (w.c, w.l, "hpc-4", NULL, why, sizeof (why));
    assert_string_equal (bucket_text (b, why, text, sizeof (text)), "hpc/Standard_HB120rs_v3");
    world_free (&w);
}

/* Names for create sets: a trailing number without leading zeros is the
 * offset of "<stem>%d"; any other name is made alone under its own name;
 * '%' cannot be in a nameFormat. */
static void test_name_split (void **state)
{
    (void)state;
    static const struct {
        const char *name, *stem;
        long number;
    } good[] = {
        {"f4-17", "f4-", 17},   {"hpc-1", "hpc-", 1},
        {"node0", "node", 0},   {"cc-dyn-node-test", "cc-dyn-node-test", -1},
        {"f4-07", "f4-07", -1}, {"x1234567890", "x1234567890", -1},
        {"42", "", 42},         {"a-999999999", "a-", 999999999},
    };
    for (size_t i = 0; i < sizeof (good) / sizeof (good[0]); i++) {
        char stem[64] = "";
        long number = -7;
        if (!ccas_slurm_name_split (good[i].name, stem, sizeof (stem), &number))
            fail_msg ("'%s' refused", good[i].name);
        assert_string_equal (stem, good[i].stem);
        assert_int_equal (number, good[i].number);
    }
    char small[4];
    long number;
    assert_false (ccas_slurm_name_split ("a%d-1", small, sizeof (small), &number));
    assert_false (ccas_slurm_name_split ("toolong-1", small, sizeof (small), &number));
    assert_false (ccas_slurm_name_split ("", small, sizeof (small), &number));
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_feature),     cmocka_unit_test (test_features_have),
        cmocka_unit_test (test_bucket),      cmocka_unit_test (test_shared_feature),
        cmocka_unit_test (test_node_bucket), cmocka_unit_test (test_name_split),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
