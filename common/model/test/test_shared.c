/* SPDX-License-Identifier: MIT */
/* test_shared.c: shared resources — loaded from the configuration's
 * shared_resources with errors naming the entry, defined and redefined
 * with their strings copied, found by name; a cluster-wide pool beside
 * pools per queue of the same name, and which of them a job draws on. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "model/shared.h"

/* The cluster-wide pool of `name` (the test fails if there is none). */
static struct ccas_shared_pool *value_of (struct ccas_shared *s, const char *name)
{
    int i = ccas_shared_find (s, name);
    struct ccas_shared_pool *p = i >= 0 ? ccas_shared_cluster_pool (s, i) : NULL;
    if (!p)
        fail_msg ("no cluster-wide pool of '%s'", name);
    return p;
}

static void test_load_refuses (void **state)
{
    static const struct {
        const char *json;
        const char *want;
    } cases[] = {
        {"[]", "shared_resources: expected an object of name: value"},
        {"\"lic\"", "shared_resources: expected an object of name: value"},
        {"{\"lic\": -1}", "shared_resources.lic: a shared amount cannot be negative"},
        {"{\"a\": 1, \"lic\": -0.5}", "shared_resources.lic: a shared amount cannot be negative"},
        {"{\"lic\": [1]}", "shared_resources.lic: expected a number, string, boolean or {\"cluster\", "
                           "\"queues\"}, got an array"},
        {"{\"lic\": null}",
         "shared_resources.lic: expected a number, string, boolean or {\"cluster\", \"queues\"}, got null"},
        {"{\"lic\": {}}", "shared_resources.lic: give \"cluster\", \"queues\" or both"},
        {"{\"lic\": {\"cluster\": 4, \"queue\": {}}}",
         "shared_resources.lic.queue: unknown key (known: cluster, queues)"},
        {"{\"lic\": {\"cluster\": {}}}",
         "shared_resources.lic.cluster: expected a number, string or boolean, got an object"},
        {"{\"lic\": {\"queues\": [4]}}", "shared_resources.lic.queues: expected an object of queue: value"},
        {"{\"lic\": {\"queues\": {\"workq\": -2}}}",
         "shared_resources.lic.queues.workq: a shared amount cannot be negative"},
        {"{\"lic\": {\"queues\": {\"\": 2}}}", "shared_resources.lic.queues: a queue needs a name"},
        {"{\"lic\": {\"cluster\": 4, \"queues\": {\"workq\": \"v1\"}}}",
         "shared_resources.lic.queues.workq: every pool of 'lic' is an amount, or none is"},
        {"{\"scratch\": \"4gbb\"}", "shared_resources.scratch: '4gbb': unknown unit suffix 'gbb'"},
    };
    (void)state;
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        struct ccas_error err = {""};
        struct ccas_shared *s = ccas_shared_create ();
        json_object *o = json_tokener_parse (cases[i].json);
        assert_int_equal (ccas_shared_load (s, o, "shared_resources", &err), -1);
        if (strcmp (err.text, cases[i].want) != 0)
            fail_msg ("case %zu: '%s', want '%s'", i, err.text, cases[i].want);
        json_object_put (o);
        ccas_shared_destroy (s);
    }
    ccas_shared_destroy (NULL);
}

static void test_load (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct ccas_shared *s = ccas_shared_create ();
    assert_int_equal (ccas_shared_load (s, NULL, "shared_resources", &err), 0); /* none configured */
    assert_int_equal (ccas_shared_find (s, "matlab"), -1);
    json_object *o = json_tokener_parse ("{\"matlab\": 5, \"scratch\": \"100g\", \"version\": \"2.1\","
                                         " \"licensed\": true, \"zero\": 0}");
    assert_int_equal (ccas_shared_load (s, o, "shared_resources", &err), 0);
    json_object_put (o); /* strings were copied */
    struct ccas_value *v = &value_of (s, "matlab")->value;
    assert_int_equal (v->type, CCAS_V_NUM);
    assert_true (v->u.num == 5);
    v = &value_of (s, "scratch")->value;
    assert_int_equal (v->type, CCAS_V_NUM);
    assert_true (v->size);
    assert_true (v->u.num == 100.0 * 1024 * 1024 * 1024);
    v = &value_of (s, "version")->value;
    assert_int_equal (v->type, CCAS_V_STR);
    assert_string_equal (v->u.str, "2.1");
    v = &value_of (s, "licensed")->value;
    assert_int_equal (v->type, CCAS_V_BOOL);
    assert_true (v->u.b);
    assert_true (value_of (s, "zero")->value.u.num == 0);
    assert_int_equal (value_of (s, "zero")->taker, -1);
    assert_null (value_of (s, "zero")->queue);
    assert_int_equal (ccas_shared_find (s, "MATLAB"), -1);
    assert_int_equal (ccas_shared_find (NULL, "matlab"), -1);

    /* a consumable is changed through its value */
    value_of (s, "matlab")->value.u.num -= 2;
    assert_true (value_of (s, "matlab")->value.u.num == 3);
    ccas_shared_destroy (s);
}

static void test_set (void **state)
{
    (void)state;
    struct ccas_shared *s = ccas_shared_create ();
    char name[16] = "lic", str[16] = "v1";
    assert_int_equal (ccas_shared_set (s, name, ccas_value_str (str)), 0);
    name[0] = 'X';
    str[0] = 'X';
    int i = ccas_shared_find (s, "lic");
    assert_int_equal (i, 0);
    assert_string_equal (ccas_shared_cluster_pool (s, i)->value.u.str, "v1"); /* copied */
    /* redefined: the same index, the new value, the old string freed */
    assert_int_equal (ccas_shared_set (s, "lic", ccas_value_num (8)), 0);
    assert_int_equal (ccas_shared_find (s, "lic"), 0);
    assert_int_equal (ccas_shared_cluster_pool (s, 0)->value.type, CCAS_V_NUM);
    assert_int_equal (ccas_shared_set (s, "lic", ccas_value_str ("v2")), 0);
    assert_int_equal (ccas_shared_set (s, "lic", ccas_value_str ("v3")), 0);
    assert_string_equal (ccas_shared_cluster_pool (s, 0)->value.u.str, "v3");
    assert_int_equal (ccas_shared_set (s, "other", ccas_value_bool (false)), 0);
    assert_int_equal (ccas_shared_find (s, "other"), 1);
    ccas_shared_destroy (s);
}

/* A cluster-wide pool beside pools per queue of the same name (scalelib's
 * shared consumable over a list of resources, as azpbs builds it from the
 * server's and a queue's resources_available): a consumable draws on the
 * cluster's and the job's queue's; a value compares with the queue's,
 * else the cluster's; a queue no pool names draws on the cluster's. */
static void test_queue_pools (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct ccas_shared *s = ccas_shared_create ();
    struct ccas_shared_pool *p[2];
    char where[64];
    json_object *o =
        json_tokener_parse ("{\"lic\": {\"cluster\": 10, \"queues\": {\"workq\": 4, \"htcq\": 1}},"
                            " \"qonly\": {\"queues\": {\"htcq\": 2}},"
                            " \"version\": {\"cluster\": \"2.1\", \"queues\": {\"old\": \"1.9\"}}}");
    assert_int_equal (ccas_shared_load (s, o, "shared_resources", &err), 0);
    json_object_put (o);
    int32_t workq = ccas_shared_queue (s, "workq"), htcq = ccas_shared_queue (s, "htcq"),
            old = ccas_shared_queue (s, "old");
    assert_true (workq > 0 && htcq > 0 && old > 0 && workq != htcq);
    assert_int_equal (ccas_shared_queue (s, "other"), 0);
    assert_int_equal (ccas_shared_queue (s, NULL), 0);
    int lic = ccas_shared_find (s, "lic"), qonly = ccas_shared_find (s, "qonly"),
        version = ccas_shared_find (s, "version");
    /* a job of workq: the cluster's 10 and workq's 4 */
    assert_int_equal (ccas_shared_pools (s, lic, workq, p), 2);
    assert_null (p[0]->queue);
    assert_true (p[0]->value.u.num == 10);
    assert_string_equal (p[1]->queue, "workq");
    assert_true (p[1]->value.u.num == 4);
    assert_string_equal (ccas_shared_pool_where (p[1], where, sizeof (where)), "in queue 'workq'");
    assert_string_equal (ccas_shared_pool_where (p[0], where, sizeof (where)), "in the cluster");
    /* a job of no queue, or of one no pool names: the cluster's alone */
    assert_int_equal (ccas_shared_pools (s, lic, 0, p), 1);
    assert_null (p[0]->queue);
    assert_int_equal (ccas_shared_pools (s, lic, old, p), 1);
    /* only htcq has a pool of qonly: nothing limits the others */
    assert_null (ccas_shared_cluster_pool (s, qonly));
    assert_int_equal (ccas_shared_pools (s, qonly, workq, p), 0);
    assert_int_equal (ccas_shared_pools (s, qonly, htcq, p), 1);
    assert_true (p[0]->value.u.num == 2);
    /* a value: the queue's wins */
    assert_int_equal (ccas_shared_pools (s, version, old, p), 1);
    assert_string_equal (p[0]->value.u.str, "1.9");
    assert_int_equal (ccas_shared_pools (s, version, workq, p), 1);
    assert_string_equal (p[0]->value.u.str, "2.1");
    ccas_shared_destroy (s);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_load_refuses),
        cmocka_unit_test (test_load),
        cmocka_unit_test (test_set),
        cmocka_unit_test (test_queue_pools),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
