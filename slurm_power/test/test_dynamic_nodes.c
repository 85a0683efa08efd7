/* SPDX-License-Identifier: MIT */
/* test_dynamic_nodes.c: the dynamic node records ccautoscale makes
 * (dynamic_nodes.c) — default names per machine type, names refused that
 * cannot be hostnames, the node line (the bucket's CPUs, cores, threads,
 * memory less the margin, GPUs, the feature and machine type; loopback
 * ports for a cluster on one machine), and the record of what was made.
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

#include "dynamic_nodes.h"
#include "model/test/fixture.h"

static void test_stem (void **state)
{
    (void)state;
    char buf[128];
    struct ccas_config *cfg = fx_config ("{\"slurm\": {\"node_prefix\": \"cc-\"}}");
    struct ccas_cluster *c = fx_cluster (cfg, "cluster-status.json", NULL, NULL);
    assert_string_equal (
        ccas_slurm_dynamic_nodes_stem (cfg, fx_bucket (c, "htc", "Standard_F4s_v2"), buf, sizeof (buf)),
        "cc-htc-f4s-v2-");
    assert_string_equal (
        ccas_slurm_dynamic_nodes_stem (cfg, fx_bucket (c, "hpc", "Standard_HB120rs_v3"), buf, sizeof (buf)),
        "cc-hpc-hb120rs-v3-");
    ccas_cluster_destroy (c);
    ccas_conf_destroy (cfg);
}

static void test_stem_ok (void **state)
{
    (void)state;
    char why[256];
    static const char *const good[] = {"f4-", "dynamic-f4s-v2-", "a", "A9-"};
    for (size_t i = 0; i < sizeof (good) / sizeof (good[0]); i++)
        if (!ccas_slurm_dynamic_nodes_stem_ok (good[i], why, sizeof (why)))
            fail_msg ("'%s' refused: %s", good[i], why);
    static const struct {
        const char *stem, *why;
    } bad[] = {
        {"", "'' does not start with a letter"},
        {"9f-", "'9f-' does not start with a letter"},
        {"-f", "'-f' does not start with a letter"},
        {"f4_", "'f4_' holds '_': a node name is also a hostname (letters, digits, '-')"},
        {"f4.", "'f4.' holds '.': a node name is also a hostname (letters, digits, '-')"},
        {"f[1-2]", "'f[1-2]' holds '[': a node name is also a hostname (letters, digits, '-')"},
        {"abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxy",
         "'abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxy' is longer than 50 characters (a node name "
         "is also a hostname)"},
    };
    for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
        assert_false (ccas_slurm_dynamic_nodes_stem_ok (bad[i].stem, why, sizeof (why)));
        assert_string_equal (why, bad[i].why);
    }
}

static void test_names (void **state)
{
    (void)state;
    char **names = ccas_slurm_dynamic_nodes_names (NULL, "f4-", 3);
    assert_non_null (names);
    assert_string_equal (names[0], "f4-1");
    assert_string_equal (names[2], "f4-3");
    assert_null (names[3]);
    ccas_slurm_names_free (names, 3);
}

/* The line: what `slurm conf` would write for the machine type, with the
 * dynamic feature first; GPUs from gpu_counts; ports on one machine. */
static void test_line (void **state)
{
    (void)state;
    char line[1024];
    struct ccas_config *cfg = fx_config ("{\"gpu_counts\": {\"Standard_F4s_v2\": 2}}");
    struct ccas_cluster *c = fx_cluster (cfg, "cluster-status.json", NULL, NULL);
    ccas_slurm_dynamic_nodes_line (cfg, fx_bucket (c, "htc", "Standard_F2s_v2"), "dyn", "f2-[1-3]", 3, 0,
                                   NULL, line, sizeof (line));
    assert_string_equal (line,
                         "NodeName=f2-[1-3] State=CLOUD CPUs=2 Boards=1 SocketsPerBoard=1 CoresPerSocket=1"
                         " ThreadsPerCore=2 RealMemory=3072 Feature=dyn,Standard_F2s_v2");
    ccas_slurm_dynamic_nodes_line (cfg, fx_bucket (c, "htc", "Standard_F4s_v2"), "dyn", "f4-1", 1, 0,
                                   "default:sw1", line, sizeof (line));
    assert_string_equal (
        line,
        "NodeName=f4-1 State=CLOUD CPUs=4 Boards=1 SocketsPerBoard=1 CoresPerSocket=2"
        " ThreadsPerCore=2 RealMemory=7168 Feature=dyn,Standard_F4s_v2 Gres=gpu:2 Topology=default:sw1");
    assert_string_equal (
        ccas_slurm_dynamic_nodes_topology (fx_bucket (c, "htc", "Standard_F4s_v2"), line, sizeof (line)),
        "default:htc");
    ccas_cluster_destroy (c);
    ccas_conf_destroy (cfg);

    cfg = fx_config ("{\"slurm\": {\"node_port_base\": 20000, \"memory_margin_percent\": 50}}");
    c = fx_cluster (cfg, "cluster-status.json", NULL, NULL);
    ccas_slurm_dynamic_nodes_line (cfg, fx_bucket (c, "htc", "Standard_F2s_v2"), "dyn", "f2-[1-2]", 2, 20031,
                                   NULL, line, sizeof (line));
    assert_string_equal (line,
                         "NodeName=f2-[1-2] State=CLOUD CPUs=2 Boards=1 SocketsPerBoard=1 CoresPerSocket=1"
                         " ThreadsPerCore=2 RealMemory=2048 Feature=dyn,Standard_F2s_v2"
                         " NodeAddr=127.0.0.1 NodeHostname=localhost Port=[20031-20032]");
    ccas_slurm_dynamic_nodes_line (cfg, fx_bucket (c, "htc", "Standard_F2s_v2"), "dyn", "f2-3", 1, 20033,
                                   NULL, line, sizeof (line));
    assert_non_null (strstr (line, " Port=20033"));
    assert_int_equal (ccas_slurm_dynamic_nodes_port (cfg, NULL), 20001);
    ccas_cluster_destroy (c);
    ccas_conf_destroy (cfg);
}

/* What was made is remembered, and forgotten, by name. */
static void test_record (void **state)
{
    (void)state;
    char dir[] = "/tmp/test_dynamic_nodes.XXXXXX";
    struct ccas_error err = {""};
    char *made[] = {"f4-1", "f4-2", "f4-3"};
    fx_dir_make (dir);
    struct ccas_config *cfg = fx_config (NULL);
    struct ccas_cluster *c = fx_cluster (cfg, "cluster-status.json", NULL, NULL);
    assert_int_equal (
        ccas_slurm_dynamic_nodes_remember (dir, fx_bucket (c, "htc", "Standard_F4s_v2"), made, 3, 100, &err),
        0);
    assert_int_equal (ccas_slurm_dynamic_nodes_forget (dir, made + 1, 1, 200, &err), 0);
    struct ccas_state *st = ccas_slurm_dynamic_nodes_load (dir, &err);
    assert_true (ccas_slurm_dynamic_nodes_ours (st, "f4-1"));
    assert_false (ccas_slurm_dynamic_nodes_ours (st, "f4-2"));
    assert_true (ccas_slurm_dynamic_nodes_ours (st, "f4-3"));
    assert_false (ccas_slurm_dynamic_nodes_ours (st, "admin-1"));
    assert_false (ccas_slurm_dynamic_nodes_ours (NULL, "f4-1"));
    assert_true (ccas_slurm_dynamic_nodes_deleted (st) == 200);
    assert_true (ccas_slurm_dynamic_nodes_deleted (NULL) == 0);
    json_object *nodes = NULL, *e = NULL;
    assert_true (json_object_object_get_ex (ccas_state_root (st), "nodes", &nodes));
    assert_true (json_object_object_get_ex (nodes, "f4-3", &e));
    assert_string_equal (ccas_json_str (e, "nodearray"), "htc");
    assert_string_equal (ccas_json_str (e, "machine_type"), "Standard_F4s_v2");
    ccas_state_destroy (st);
    assert_int_equal (ccas_slurm_dynamic_nodes_forget (dir, made, 0, 300, &err), 0);
    ccas_cluster_destroy (c);
    ccas_conf_destroy (cfg);
    fx_dir_remove (dir);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_stem), cmocka_unit_test (test_stem_ok), cmocka_unit_test (test_names),
        cmocka_unit_test (test_line), cmocka_unit_test (test_record),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
