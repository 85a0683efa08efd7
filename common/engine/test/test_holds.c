/* SPDX-License-Identifier: MIT */
/* test_holds.c: capacity windows — added with their class and reason,
 * active until they end, ended early by class, expired with a callback,
 * applied to the model (the held bucket takes no new node and says why),
 * saved and loaded, and shown as the bucket_held gauge. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "engine/holds.h"
#include "model/test/fixture.h"
#include "util/metrics.h"

#define NOW 1000000.0

static char dir[] = "/tmp/ccas-test-holds.XXXXXX";

static void clean (void)
{
    char path[128];
    static const char *const names[] = {"holds.json", "metrics.json", "m.prom"};
    for (size_t i = 0; i < sizeof (names) / sizeof (names[0]); i++) {
        snprintf (path, sizeof (path), "%s/%s", dir, names[i]);
        unlink (path);
    }
}

static struct ccas_holds *load (void)
{
    struct ccas_error err = {""};
    struct ccas_holds *h = ccas_holds_load (dir, &err);
    if (!h)
        fail_msg ("%s", err.text);
    return h;
}

static void test_load_refuses (void **state)
{
    (void)state;
    char path[128];
    struct ccas_error err = {""};
    clean ();
    snprintf (path, sizeof (path), "%s/holds.json", dir);
    FILE *f = fopen (path, "w");
    fputs ("[1, 2]", f);
    fclose (f);
    assert_null (ccas_holds_load (dir, &err));
    assert_non_null (strstr (err.text, "holds.json: state file is not a JSON object"));
    f = fopen (path, "w");
    fputs ("{\"htc/x\": ", f);
    fclose (f);
    assert_null (ccas_holds_load (dir, &err));
    assert_non_null (strstr (err.text, "holds.json"));
    assert_non_null (strstr (err.text, "truncated JSON"));
    clean ();
    ccas_holds_destroy (NULL);
    ccas_holds_metrics (NULL, NOW);
}

/* Active from now until its end, never at or after it. */
static void test_add_and_ask (void **state)
{
    (void)state;
    clean ();
    struct ccas_holds *h = load ();
    assert_null (ccas_holds_reason (h, "htc", "Standard_F2s_v2", NOW));
    assert_true (ccas_holds_remaining (h, "htc", "Standard_F2s_v2", NOW) == 0);
    char reason[64] = "Allocation failed: no capacity";
    ccas_holds_add (h, "htc", "Standard_F2s_v2", NOW, 300, CCAS_CLASS_CAPACITY, reason);
    reason[0] = 'X'; /* copied */
    static const struct {
        double at;
        bool active;
        double left;
    } cases[] = {
        {NOW - 1, true, 301},  {NOW, true, 300},       {NOW + 299.5, true, 0.5},
        {NOW + 300, false, 0}, {NOW + 1000, false, 0},
    };
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        const char *r = ccas_holds_reason (h, "htc", "Standard_F2s_v2", cases[i].at);
        if ((r != NULL) != cases[i].active)
            fail_msg ("case %zu: %s", i, r ? "active" : "not active");
        if (r)
            assert_string_equal (r, "Allocation failed: no capacity");
        assert_true (ccas_holds_remaining (h, "htc", "Standard_F2s_v2", cases[i].at) == cases[i].left);
    }
    /* only that bucket */
    assert_null (ccas_holds_reason (h, "htc", "Standard_F4s_v2", NOW));
    assert_null (ccas_holds_reason (h, "hpc", "Standard_F2s_v2", NOW));
    json_object *rec = ccas_json_get (ccas_holds_json (h), "htc/Standard_F2s_v2");
    assert_string_equal (ccas_json_str (rec, "class"), "capacity");
    assert_true (ccas_json_double (rec, "since", 0) == NOW);
    assert_true (ccas_json_double (rec, "until", 0) == NOW + 300);
    /* added again: the new window replaces the old */
    ccas_holds_add (h, "htc", "Standard_F2s_v2", NOW + 10, 50, CCAS_CLASS_QUOTA, "quota");
    assert_true (ccas_holds_remaining (h, "htc", "Standard_F2s_v2", NOW + 10) == 50);
    assert_string_equal (ccas_holds_reason (h, "htc", "Standard_F2s_v2", NOW + 10), "quota");
    assert_int_equal (json_object_object_length (ccas_holds_json (h)), 1);
    ccas_holds_destroy (h);
}

struct ended {
    char text[4096];
    int calls;
};

static void on_end (const char *na, const char *mt, void *arg)
{
    struct ended *e = arg;
    size_t n = strlen (e->text);
    snprintf (e->text + n, sizeof (e->text) - n, "%s%s|%s", n ? " " : "", na, mt);
    e->calls++;
}

static void test_expire (void **state)
{
    (void)state;
    clean ();
    struct ccas_holds *h = load ();
    ccas_holds_add (h, "htc", "Standard_F2s_v2", NOW, 100, CCAS_CLASS_CAPACITY, "a");
    ccas_holds_add (h, "hpc", "Standard_HB120rs_v3", NOW, 200, CCAS_CLASS_QUOTA, "b");
    ccas_holds_add_class (h, "gpu", "Standard_NC24ads_A100_v4", NOW, 1e9, "breaker", "c");
    struct ended e = {"", 0};
    assert_int_equal (ccas_holds_expire (h, NOW + 50, on_end, &e), 0);
    assert_int_equal (e.calls, 0);
    assert_int_equal (ccas_holds_expire (h, NOW + 100, on_end, &e), 1); /* an end is inclusive */
    assert_string_equal (e.text, "htc|Standard_F2s_v2");
    assert_null (ccas_json_get (ccas_holds_json (h), "htc/Standard_F2s_v2"));
    assert_int_equal (ccas_holds_expire (h, NOW + 1000, NULL, NULL), 1); /* no callback */
    assert_int_equal (json_object_object_length (ccas_holds_json (h)), 1);
    ccas_holds_destroy (h);
}

/* However many end at once, every one is removed and reported. */
static void test_expire_many (void **state)
{
    (void)state;
    clean ();
    struct ccas_holds *h = load ();
    enum { N = 300 };
    char mt[32];
    for (int i = 0; i < N; i++) {
        snprintf (mt, sizeof (mt), "Standard_T%d", i);
        ccas_holds_add (h, "htc", mt, NOW, 10, CCAS_CLASS_CAPACITY, "r");
    }
    ccas_holds_add (h, "htc", "Standard_Long", NOW, 1000, CCAS_CLASS_CAPACITY, "stays");
    struct ended e = {"", 0};
    assert_int_equal (ccas_holds_expire (h, NOW + 10, on_end, &e), N);
    assert_int_equal (e.calls, N);
    assert_int_equal (json_object_object_length (ccas_holds_json (h)), 1);
    assert_non_null (ccas_holds_reason (h, "htc", "Standard_Long", NOW + 10));
    ccas_holds_destroy (h);
}

/* end_class: only that nodearray's holds of that class end (now). */
static void test_end_class (void **state)
{
    (void)state;
    clean ();
    struct ccas_holds *h = load ();
    ccas_holds_add_class (h, "hpc", "Standard_HB120rs_v3", NOW, 1e9, "breaker", "boot failures");
    ccas_holds_add_class (h, "hpc", "Standard_HB176rs_v4", NOW, 1e9, "breaker", "boot failures");
    ccas_holds_add (h, "hpc", "Standard_HB60rs", NOW, 500, CCAS_CLASS_CAPACITY, "capacity");
    ccas_holds_add_class (h, "hpcx", "Standard_HB120rs_v3", NOW, 1e9, "breaker", "another nodearray");
    ccas_holds_add_class (h, "hp", "Standard_HB120rs_v3", NOW, 1e9, "breaker", "a prefix of the name");
    ccas_holds_end_class (h, "hpc", "breaker", NOW + 5);
    assert_null (ccas_holds_reason (h, "hpc", "Standard_HB120rs_v3", NOW + 5));
    assert_null (ccas_holds_reason (h, "hpc", "Standard_HB176rs_v4", NOW + 5));
    assert_non_null (ccas_holds_reason (h, "hpc", "Standard_HB60rs", NOW + 5));
    assert_non_null (ccas_holds_reason (h, "hpcx", "Standard_HB120rs_v3", NOW + 5));
    assert_non_null (ccas_holds_reason (h, "hp", "Standard_HB120rs_v3", NOW + 5));
    struct ended e = {"", 0};
    assert_int_equal (ccas_holds_expire (h, NOW + 5, on_end, &e), 2); /* the next expiry releases them */
    ccas_holds_destroy (h);
}

/* Applied to the model: the held bucket takes nothing and says for how long. */
static void test_apply (void **state)
{
    (void)state;
    clean ();
    struct ccas_holds *h = load ();
    struct ccas_config *cfg = fx_config (NULL);
    struct ccas_cluster *c = fx_cluster (cfg, "cluster-status.json", NULL, NULL);
    ccas_holds_add (h, "htc", "Standard_F2s_v2", NOW, 300, CCAS_CLASS_CAPACITY, "no capacity");
    ccas_holds_add_class (h, "hpc", "Standard_HB120rs_v3", NOW, 2 * 365 * 86400.0, "breaker",
                          "boot failures");
    ccas_holds_add (h, "gpu", "Standard_NC24ads_A100_v4", NOW - 1000, 10, CCAS_CLASS_QUOTA, "ended");
    ccas_holds_add (h, "nowhere", "Standard_X", NOW, 300, CCAS_CLASS_QUOTA, "no such bucket");
    assert_int_equal (ccas_holds_apply (h, c, NOW + 100), 0);
    char why[256];
    assert_int_equal (ccas_bucket_available (fx_bucket (c, "htc", "Standard_F2s_v2"), why, sizeof (why)), 0);
    assert_string_equal (why, "held back 200 s more: no capacity");
    assert_null (ccas_cluster_new_node (c, fx_bucket (c, "htc", "Standard_F2s_v2"), NULL, NULL));
    assert_int_equal (ccas_bucket_available (fx_bucket (c, "hpc", "Standard_HB120rs_v3"), why, sizeof (why)),
                      0);
    assert_string_equal (why, "held back until reset: boot failures");
    assert_null (fx_bucket (c, "gpu", "Standard_NC24ads_A100_v4")->hold_reason);
    assert_int_equal (ccas_bucket_available (fx_bucket (c, "htc", "Standard_F4s_v2"), NULL, 0), 29);
    ccas_cluster_destroy (c);
    ccas_conf_destroy (cfg);
    ccas_holds_destroy (h);
}

static void test_save_and_load (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    clean ();
    struct ccas_holds *h = load ();
    ccas_holds_add (h, "htc", "Standard_F2s_v2", NOW, 300, CCAS_CLASS_QUOTA, "family quota");
    assert_int_equal (ccas_holds_save (h, &err), 0);
    ccas_holds_destroy (h);
    h = load ();
    assert_string_equal (ccas_holds_reason (h, "htc", "Standard_F2s_v2", NOW + 1), "family quota");
    assert_true (ccas_holds_remaining (h, "htc", "Standard_F2s_v2", NOW + 1) == 299);
    ccas_holds_destroy (h);
    clean ();
}

/* The gauge: 1 for each active hold, nothing for ended ones; stale series go. */
static void test_metrics (void **state)
{
    (void)state;
    char prom[128];
    clean ();
    snprintf (prom, sizeof (prom), "%s/m.prom", dir);
    ccas_metrics_open (prom, dir, "test");
    ccas_metrics_set ("ccautoscale_bucket_held", "nodearray=\"old\",machine_type=\"x\"", 1);
    struct ccas_holds *h = load ();
    ccas_holds_add (h, "htc", "Standard_F2s_v2", NOW, 300, CCAS_CLASS_CAPACITY, "a");
    ccas_holds_add (h, "hpc", "Standard_HB120rs_v3", NOW - 500, 300, CCAS_CLASS_CAPACITY, "ended");
    ccas_holds_metrics (h, NOW);
    char *text = ccas_metrics_text ();
    assert_non_null (
        strstr (text, "ccautoscale_bucket_held{nodearray=\"htc\",machine_type=\"Standard_F2s_v2\"} 1\n"));
    assert_null (strstr (text, "nodearray=\"hpc\""));
    assert_null (strstr (text, "nodearray=\"old\""));
    free (text);
    ccas_metrics_close ();
    ccas_holds_destroy (h);
    clean ();
}

static int setup (void **state)
{
    (void)state;
    return mkdtemp (dir) ? 0 : -1;
}

static int teardown (void **state)
{
    (void)state;
    clean ();
    return rmdir (dir);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_load_refuses),  cmocka_unit_test (test_add_and_ask),
        cmocka_unit_test (test_expire),        cmocka_unit_test (test_expire_many),
        cmocka_unit_test (test_end_class),     cmocka_unit_test (test_apply),
        cmocka_unit_test (test_save_and_load), cmocka_unit_test (test_metrics),
    };
    return cmocka_run_group_tests (tests, setup, teardown);
}
