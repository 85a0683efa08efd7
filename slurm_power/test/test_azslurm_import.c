/* SPDX-License-Identifier: MIT */
/* test_azslurm_import.c: azslurm's autoscale.json made ccautoscale's
 * (azslurm_import.c) — bad input first, each error naming the key; the file
 * `azslurm initconfig` writes on a stock cluster (init-config.sh) carried
 * over and loading as ccautoscale's; config_dir's default; placement
 * group settings; every key left said, with why. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "azslurm_import.h"
#include "conf/conf.h"
#include "util/json.h"

/* What init-config.sh has `azslurm initconfig` write (cyclecloud-slurm 4.0.9). */
#define STOCK                                                                                                \
    "{\"boot_timeout\": 1800, \"cluster_name\": \"My_Cluster\", \"config_dir\": \"/sched/my-cluster\","      \
    " \"default_resources\": [{\"select\": {}, \"name\": \"slurm_gpus\", \"value\": \"node.gpu_count\"}],"   \
    " \"disable_default_resources\": false, \"idle_timeout\": 300, \"lock_file\":"                           \
    " \"/opt/azurehpc/slurm/scalelib.lock\", \"password\": \"pw-secret\", \"url\": \"https://cc.example\","  \
    " \"username\": \"cc_admin\", \"accounting\": {\"subscription_id\": \"sub\"}, \"azslurmd\":"             \
    " {\"sleep_time\": 15}, \"cost\": {\"cache_root\": \"/opt/azurehpc/slurm/.cache\"}, \"logging\":"        \
    " {\"config_file\": \"/opt/azurehpc/slurm/logging.conf\"}}"

static int convert (const char *text, struct ccas_azslurm_import *imp, struct ccas_error *err)
{
    json_object *az = json_tokener_parse (text);
    if (!az)
        fail_msg ("bad JSON in the test: %s", text);
    int rc = ccas_azslurm_import_convert (az, "az.json", imp, err);
    json_object_put (az);
    return rc;
}

static void test_bad_input (void **state)
{
    (void)state;
    static const struct {
        const char *text, *error;
    } cases[] = {
        {"[]", "az.json: expected a JSON object at the top, got []"},
        {"{\"username\": \"u\", \"password\": \"p\", \"cluster_name\": \"c\"}", "az.json: url: missing"},
        {"{\"url\": \"https://x\", \"password\": \"p\", \"cluster_name\": \"c\"}",
         "az.json: username: missing"},
        {"{\"url\": \"https://x\", \"username\": \"u\", \"cluster_name\": \"c\"}",
         "az.json: password: missing"},
        {"{\"url\": \"https://x\", \"username\": \"u\", \"password\": \"p\"}",
         "az.json: cluster_name: missing"},
        {"{\"url\": 5, \"username\": \"u\", \"password\": \"p\", \"cluster_name\": \"c\"}",
         "az.json: url: expected a string that is not empty"},
        {"{\"url\": \"https://x\", \"username\": \"\", \"password\": \"p\", \"cluster_name\": \"c\"}",
         "az.json: username: expected a string that is not empty"},
        {"{\"url\": \"https://x\", \"username\": \"u\", \"password\": \"p\", \"cluster_name\": \"c\","
         " \"verify_certificates\": \"no\"}",
         "az.json: verify_certificates: expected true or false, got \"no\""},
        {"{\"url\": \"https://x\", \"username\": \"u\", \"password\": \"p\", \"cluster_name\": \"c\","
         " \"default_resources\": {}}",
         "az.json: default_resources: expected an array, got {}"},
    };
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        struct ccas_error err = {""};
        struct ccas_azslurm_import imp;
        if (convert (cases[i].text, &imp, &err) != -1)
            fail_msg ("case %zu was taken", i);
        assert_string_equal (err.text, cases[i].error);
        assert_null (imp.config);
        assert_int_equal (imp.nnotes, 0);
    }
}

/* The stock file: the connection, default_resources and config_dir carried,
 * the rest said; the result loads as ccautoscale's configuration. */
static void test_stock_file (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct ccas_azslurm_import imp;
    assert_int_equal (convert (STOCK, &imp, &err), 0);
    json_object *c = imp.config;
    assert_string_equal (ccas_json_str (c, "url"), "https://cc.example");
    assert_string_equal (ccas_json_str (c, "username"), "cc_admin");
    assert_string_equal (ccas_json_str (c, "password"), "pw-secret");
    assert_string_equal (ccas_json_str (c, "cluster_name"), "My_Cluster");
    assert_null (ccas_json_get (c, "verify_certificates")); /* ccautoscale's default: verify */
    assert_null (ccas_json_get (c, "idle_timeout"));
    assert_null (ccas_json_get (c, "lock_file"));
    assert_string_equal (
        json_object_to_json_string_ext (ccas_json_get (c, "default_resources"), JSON_C_TO_STRING_PLAIN),
        "[{\"select\":{},\"name\":\"slurm_gpus\",\"value\":\"node.gpu_count\"}]");
    json_object *slurm = ccas_json_get (c, "slurm");
    assert_string_equal (ccas_json_str (slurm, "conf_dir"), "/sched/my-cluster");
    assert_string_equal (ccas_json_str (slurm, "nodes_file"), "azure.conf");
    assert_string_equal (ccas_json_str (slurm, "keepalive_file"), "keep_alive.conf");
    assert_string_equal (imp.conf_dir, "/sched/my-cluster");

    static const char *const said[] = {
        "url, username, password, cluster_name: carried (the file is written mode 0600)",
        "verify_certificates: azslurm did not verify CycleCloud's certificate",
        "default_resources: 1 rule carried",
        "config_dir '/sched/my-cluster': slurm.conf_dir",
        "boot_timeout: not carried: under Slurm, ResumeTimeout",
        "idle_timeout: not carried: under Slurm, SuspendTime",
        "lock_file: not carried",
        "accounting: not carried",
        "azslurmd: not carried: there is no daemon",
        "cost: not carried",
        "logging: not carried",
    };
    assert_int_equal (imp.nnotes, sizeof (said) / sizeof (said[0]));
    for (size_t i = 0; i < sizeof (said) / sizeof (said[0]); i++) {
        bool found = false;
        for (size_t j = 0; j < imp.nnotes && !found; j++)
            found = strncmp (imp.notes[j], said[i], strlen (said[i])) == 0;
        if (!found)
            fail_msg ("no note '%s'", said[i]);
    }
    for (size_t j = 0; j < imp.nnotes; j++)
        assert_null (strstr (imp.notes[j], "pw-secret"));

    json_object *copy = NULL;
    assert_int_equal (json_object_deep_copy (c, &copy, NULL), 0);
    struct ccas_config *cfg = ccas_conf_from_json (copy, "imported", &err);
    if (!cfg)
        fail_msg ("%s", err.text);
    assert_string_equal (cfg->slurm.nodes_file, "azure.conf");
    assert_true (cfg->verify_certificates);
    ccas_conf_destroy (cfg);
    ccas_azslurm_import_release (&imp);
    assert_null (imp.config);
    ccas_azslurm_import_release (&imp); /* twice is harmless */
}

/* No config_dir: azslurm's own, /sched/ and the cluster's name made a
 * hostname in lower case; certificates as azslurm was told; placement
 * groups as colocation; keys ccautoscale does not know said. */
static void test_other_settings (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct ccas_azslurm_import imp;
    assert_int_equal (
        convert ("{\"url\": \"https://x\", \"username\": \"u\", \"password\": \"p\","
                 " \"cluster_name\": \"Big Cluster.1\", \"verify_certificates\": false,"
                 " \"nodearrays\": {\"hpc\": {\"max_placement_groups\": 1,"
                 " \"generated_placement_group_buffer\": 1}, \"htc\": {\"max_placement_groups\": 0}},"
                 " \"return-to-idle\": {\"terminate-zombie-nodes\": true}, \"mystery\": 1}",
                 &imp, &err),
        0);
    assert_string_equal (imp.conf_dir, "/sched/big-cluster-1");
    assert_false (ccas_json_bool (imp.config, "verify_certificates", true));
    json_object *nas = ccas_json_get (imp.config, "nodearrays");
    assert_true (ccas_json_bool (ccas_json_get (nas, "hpc"), "colocated", false));
    assert_false (ccas_json_bool (ccas_json_get (nas, "htc"), "colocated", true));
    static const char *const said[] = {
        "config_dir '/sched/big-cluster-1' (azslurm's default): slurm.conf_dir",
        "nodearrays.hpc.max_placement_groups 1: nodearrays.hpc.colocated true",
        "nodearrays.hpc.generated_placement_group_buffer: not carried",
        "nodearrays.htc.max_placement_groups 0: nodearrays.htc.colocated false",
        "return-to-idle: not carried",
        "mystery: not carried: ccautoscale has no such setting",
    };
    for (size_t i = 0; i < sizeof (said) / sizeof (said[0]); i++) {
        bool found = false;
        for (size_t j = 0; j < imp.nnotes && !found; j++)
            found = strncmp (imp.notes[j], said[i], strlen (said[i])) == 0;
        if (!found)
            fail_msg ("no note '%s'", said[i]);
    }
    ccas_azslurm_import_release (&imp);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_bad_input),
        cmocka_unit_test (test_stock_file),
        cmocka_unit_test (test_other_settings),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
