/* SPDX-License-Identifier: MIT */
/* test_pbs_validate.c: PBS's configuration against what ccautoscale needs
 * (pbs_validate.c) — CycleCloud's stock server after install-hook passes,
 * with one warning (only_explicit_psets); a server with everything wrong
 * gets each failure with its fix; nothing readable is a failure of its own. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "conf/conf.h"
#include "pbs_qmgr.h"
#include "pbs_validate.h"
#include "util/json.h"

static struct ccas_config *config (const char *extra)
{
    struct ccas_error err = {""};
    char text[2048];
    snprintf (text, sizeof (text),
              "{\"url\": \"http://x\", \"username\": \"u\", \"password\": \"p\", \"cluster_name\": \"c\"%s}",
              extra ? extra : "");
    struct ccas_config *cfg = ccas_conf_from_json (json_tokener_parse (text), "test", &err);
    if (!cfg)
        fail_msg ("%s", err.text);
    return cfg;
}

/* what initialize_pbs.sh and install-hook define */
static const char stock_resources[] = "Resource slot_type\n    type = string\n    flag = h\n\n"
                                      "Resource instance_id\n    type = string\n    flag = h\n\n"
                                      "Resource vm_size\n    type = string\n    flag = h\n\n"
                                      "Resource nodearray\n    type = string\n    flag = h\n\n"
                                      "Resource disk\n    type = size\n    flag = nh\n\n"
                                      "Resource ngpus\n    type = long\n    flag = nh\n\n"
                                      "Resource group_id\n    type = string\n    flag = h\n\n"
                                      "Resource ungrouped\n    type = string\n    flag = h\n\n"
                                      "Resource ccnodeid\n    type = string\n    flag = h\n";
static const char stock_sched_config[] = "resources: \"ncpus, mem, arch, host, vnode, aoe, slot_type, "
                                         "group_id, ungrouped, disk, ngpus, nodearray, "
                                         "vm_size\"\nsmp_cluster_dist: pack\n";
static const char stock_queues[] =
    "{\"Queue\": {\"workq\": {\"queue_type\": \"Execution\", \"enabled\": \"True\", \"started\": \"True\","
    " \"resources_default\": {\"place\": \"scatter:excl\", \"ungrouped\": false}},"
    " \"htcq\": {\"queue_type\": \"Execution\", \"enabled\": \"True\", \"started\": \"True\","
    " \"resources_default\": {\"place\": \"free\", \"ungrouped\": true}}}}";

static const char *level_of (json_object *f, const char *check, const char *what_part)
{
    for (size_t i = 0; i < json_object_array_length (f); i++) {
        json_object *x = json_object_array_get_idx (f, i);
        if (strcmp (ccas_json_str (x, "check"), check) == 0 && strstr (ccas_json_str (x, "what"), what_part))
            return ccas_json_str (x, "level");
    }
    return NULL;
}

static const char *fix_of (json_object *f, const char *check, const char *what_part)
{
    for (size_t i = 0; i < json_object_array_length (f); i++) {
        json_object *x = json_object_array_get_idx (f, i);
        if (strcmp (ccas_json_str (x, "check"), check) == 0 && strstr (ccas_json_str (x, "what"), what_part))
            return ccas_json_str (x, "fix");
    }
    return NULL;
}

static void test_validate_stock (void **state)
{
    (void)state;
    struct ccas_config *cfg = config (NULL);
    struct ccas_pbs_site s = {
        .resources = ccas_pbs_qmgr_parse (stock_resources),
        .server =
            ccas_pbs_qmgr_parse ("Server vm\n    node_group_enable = True\n    node_group_key = group_id\n"),
        .sched = ccas_pbs_qmgr_parse (
            "Sched default\n    only_explicit_psets = True\n    do_not_span_psets = True\n"),
        .hooks = ccas_pbs_qmgr_parse (
            "Hook autoscale\n    enabled = false\n\nHook ccautoscale\n    enabled = true\n"
            "    alarm = 120\n"),
        .queues = json_tokener_parse (stock_queues),
        .sched_config = stock_sched_config,
        .sched_config_path = "/var/spool/pbs/sched_priv/sched_config",
    };
    json_object *f = ccas_pbs_validate (&s, cfg);
    assert_non_null (f);
    for (size_t i = 0; i < json_object_array_length (f); i++) {
        json_object *x = json_object_array_get_idx (f, i);
        if (strcmp (ccas_json_str (x, "level"), "fail") == 0)
            fail_msg ("%s: %s", ccas_json_str (x, "check"), ccas_json_str (x, "what"));
    }
    assert_int_equal (ccas_pbs_validate_count (f, "warn"), 1);
    assert_string_equal (level_of (f, "placement", "only_explicit_psets is True"), "warn");
    assert_string_equal (level_of (f, "resources", "are defined"), "ok");
    assert_string_equal (level_of (f, "hooks", "'ccautoscale' is enabled"), "ok");
    json_object_put (f);
    json_object_put (s.resources);
    json_object_put (s.server);
    json_object_put (s.sched);
    json_object_put (s.hooks);
    json_object_put (s.queues);
    ccas_conf_destroy (cfg);
}

static void test_validate_wrong (void **state)
{
    (void)state;
    /* default_resources gives "scratch", which pbs.node_resources sets */
    struct ccas_config *cfg =
        config (", \"default_resources\": [{\"select\": {}, \"name\": \"scratch\", "
                "\"value\": \"size::100g\"}], \"pbs\": {\"node_resources\": [\"ncpus\", "
                "\"scratch\"], \"ignore_queues\": [\"htcq\"]}");
    struct ccas_pbs_site s = {
        .resources = ccas_pbs_qmgr_parse ("Resource slot_type\n    type = string\n    flag = h\n\n"
                                          "Resource ungrouped\n    type = boolean\n    flag = h\n\n"
                                          "Resource fabric\n    type = string\n    flag = h\n\n"
                                          "Resource licences\n    type = long\n    flag = q\n"),
        .server = ccas_pbs_qmgr_parse ("Server vm\n    node_group_enable = False\n"),
        .sched = ccas_pbs_qmgr_parse ("Sched default\n    do_not_span_psets = False\n"),
        .hooks = ccas_pbs_qmgr_parse ("Hook autoscale\n    enabled = true\n"),
        .queues = json_tokener_parse (
            "{\"Queue\": {\"workq\": {\"queue_type\": \"Execution\", \"enabled\": \"True\", \"started\": "
            "\"False\","
            " \"resources_default\": {\"ungrouped\": \"True\", \"fabric\": \"hdr\", \"licences\": 2}},"
            " \"htcq\": {\"queue_type\": \"Execution\", \"enabled\": \"True\", \"started\": \"True\"}}}"),
        .sched_config = "resources: \"ncpus, mem, arch, host, vnode\"\n",
        .sched_config_path = "/var/spool/pbs/sched_priv/sched_config",
        .azpbs_cron = "/etc/cron.d/azpbs_autoscale",
    };
    json_object *f = ccas_pbs_validate (&s, cfg);
    assert_string_equal (level_of (f, "resources", "resource group_id is not defined"), "fail");
    assert_non_null (strstr (fix_of (f, "resources", "resource group_id is not defined"),
                             "create resource group_id type=string, flag=h"));
    assert_string_equal (level_of (f, "resources", "resource scratch is not defined"), "fail");
    assert_string_equal (level_of (f, "resources", "resource ungrouped is of type boolean"), "fail");
    assert_string_equal (level_of (f, "placement", "node_group_enable is False"), "fail");
    assert_string_equal (level_of (f, "placement", "do_not_span_psets is False"), "fail");
    assert_string_equal (level_of (f, "sched_config", "leaves out slot_type, group_id, ungrouped"), "fail");
    assert_string_equal (level_of (f, "queues", "workq: resources_default.ungrouped = True"), "fail");
    assert_non_null (strstr (fix_of (f, "queues", "ungrouped = True"), "resources_default.ungrouped = true"));
    assert_string_equal (level_of (f, "queues", "workq: resources_default.fabric = hdr: no node"), "fail");
    assert_null (level_of (f, "queues", "licences")); /* a queue-level resource: no node needs it */
    assert_string_equal (level_of (f, "queues", "workq is not enabled and started"), "warn");
    assert_string_equal (level_of (f, "queues", "htcq is in pbs.ignore_queues"), "warn");
    assert_string_equal (level_of (f, "hooks", "'ccautoscale' is not installed"), "fail");
    assert_string_equal (level_of (f, "hooks", "periodic hook 'autoscale'"), "fail");
    assert_string_equal (level_of (f, "hooks", "from cron"), "fail");
    json_object_put (f);
    json_object_put (s.resources);
    json_object_put (s.server);
    json_object_put (s.sched);
    json_object_put (s.hooks);
    json_object_put (s.queues);

    /* nothing could be read: each part says so */
    struct ccas_pbs_site none = {0};
    f = ccas_pbs_validate (&none, cfg);
    assert_int_equal (ccas_pbs_validate_count (f, "fail"), 4);
    assert_int_equal (ccas_pbs_validate_count (f, "warn"), 1); /* sched_config */
    json_object_put (f);
    ccas_conf_destroy (cfg);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_validate_stock),
        cmocka_unit_test (test_validate_wrong),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
