/* SPDX-License-Identifier: MIT */
/* test_scaledown.c: which nodes a pass gives back — failed ones, ones
 * booting past boot_timeout, ones idle past idle_timeout, each timeout per
 * nodearray — never a node with work, never a KeepAlive node (listed as
 * kept instead); node times entered, refreshed and dropped with the node. */
#include "config.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine/plan.h"
#include "engine/scaledown.h"
#include "model/test/fixture.h"
#include "util/file.h"

#define NOW 1000000.0
/* htc: idle 100 s (the map's entry), boot 1800 s; hpc: idle 300 s (the
 * map's default), boot 600 s (its own) */
#define CONFIG                                                                                               \
    "{\"idle_timeout\": {\"default\": 300, \"htc\": 100}, \"boot_timeout\": 1800,"                           \
    " \"nodearrays\": {\"hpc\": {\"boot_timeout\": 600}}}"

/* first_seen / last_busy, seconds before NOW (-1: not in the times) */
static const struct {
    const char *name;
    double first, busy;
} times_of[] = {
    {"failed-1", 50, -1},          {"failed-kept", 50, -1},      {"boot-htc-slow", 2000, -1},
    {"boot-htc-ok", 1000, -1},     {"boot-hpc-slow", 700, -1},   {"boot-hpc-ok", 500, -1},
    {"boot-busy", 5000, -1},       {"idle-htc", 5000, 150},      {"idle-htc-recent", 5000, 50},
    {"idle-hpc-short", 5000, 150}, {"idle-hpc-long", 5000, 400}, {"idle-kept", 5000, 5000},
    {"busy", 5000, 5000},          {"matched", 5000, 5000},      {"given-jobs", 5000, 5000},
    {"stopped-idle", 5000, 200},   {"going", 5000, 5000},        {"new-sight", -1, -1},
    {"no-busy-time", 120, -1},
};

static json_object *make_times (void)
{
    json_object *t = json_object_new_object ();
    for (size_t i = 0; i < sizeof (times_of) / sizeof (times_of[0]); i++) {
        if (times_of[i].first < 0)
            continue;
        json_object *o = json_object_new_object ();
        json_object_object_add (o, "first_seen", json_object_new_double (NOW - times_of[i].first));
        if (times_of[i].busy >= 0)
            json_object_object_add (o, "last_busy", json_object_new_double (NOW - times_of[i].busy));
        json_object_object_add (t, times_of[i].name, o); /* NodeId is the Name */
    }
    /* a node CycleCloud no longer has */
    json_object_object_add (t, "departed", fx_parse ("{\"first_seen\": 1, \"last_busy\": 2}"));
    return t;
}

static struct ccas_cluster *make_cluster (const struct ccas_config *cfg)
{
    size_t len;
    struct ccas_error err = {""};
    char *text = ccas_file_read (TEST_DATA_DIR "/scaledown-nodes.json", 1 << 20, &len, &err);
    assert_non_null (text);
    struct ccas_cluster *c = fx_cluster (cfg, "cluster-status.json", NULL, text);
    free (text);
    /* the scheduler's view and this pass's matching */
    fx_node (c, "busy")->busy = true;
    fx_node (c, "boot-busy")->busy = true;
    fx_node (c, "matched")->matched = true;
    fx_node (c, "given-jobs")->njobs = 2;
    return c;
}

static const struct ccas_plan_action *find_action (const struct ccas_plan_action *v, size_t n,
                                                   const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp (v[i].node->name, name) == 0)
            return &v[i];
    return NULL;
}

static void test_verdicts (void **state)
{
    static const struct {
        const char *name;
        char verdict; /* 't' terminated, 'k' kept (KeepAlive), '-' left alone */
        const char *reason;
    } cases[] = {
        {"failed-1", 't', "failed: VM failed to boot"},
        {"failed-kept", 'k', "failed: no message"},
        {"boot-htc-slow", 't', "boot timeout: Acquiring for 2000 s (boot_timeout 1800 s)"},
        {"boot-htc-ok", '-', NULL},
        {"boot-hpc-slow", 't', "boot timeout: Acquiring for 700 s (boot_timeout 600 s)"},
        {"boot-hpc-ok", '-', NULL},
        {"boot-busy", '-', NULL},
        {"idle-htc", 't', "idle for 150 s (idle_timeout 100 s)"},
        {"idle-htc-recent", '-', NULL},
        {"idle-hpc-short", '-', NULL},
        {"idle-hpc-long", 't', "idle for 400 s (idle_timeout 300 s)"},
        {"idle-kept", 'k', "idle for 5000 s (idle_timeout 100 s)"},
        {"busy", '-', NULL},
        {"matched", '-', NULL},
        {"given-jobs", '-', NULL},
        {"stopped-idle", 't', "idle for 200 s (idle_timeout 100 s)"},
        {"going", '-', NULL},
        {"new-sight", '-', NULL},
        {"no-busy-time", 't', "idle for 120 s (idle_timeout 100 s)"}, /* idle since first seen */
    };
    (void)state;
    struct ccas_error err = {""};
    struct ccas_config *cfg = fx_config (CONFIG);
    struct ccas_cluster *c = make_cluster (cfg);
    struct ccas_plan *p = ccas_plan_create (c, NULL, &err);
    json_object *times = make_times ();
    assert_int_equal (ccas_scaledown_plan (p, times, NOW, &err), 0);
    assert_int_equal (sizeof (cases) / sizeof (cases[0]), c->nexisting); /* every node judged here */
    size_t nt = 0, nk = 0;
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        const struct ccas_plan_action *t = find_action (p->terminates, p->nterminates, cases[i].name);
        const struct ccas_plan_action *k = find_action (p->kept, p->nkept, cases[i].name);
        char got = t ? 't' : k ? 'k' : '-';
        if (got != cases[i].verdict)
            fail_msg ("%s: '%c', want '%c'", cases[i].name, got, cases[i].verdict);
        if (t || k) {
            assert_string_equal ((t ? t : k)->reason, cases[i].reason);
            nt += t != NULL;
            nk += k != NULL;
        }
    }
    assert_int_equal (p->nterminates, nt);
    assert_int_equal (p->nkept, nk);

    /* never a node with work, never KeepAlive, never one already going */
    for (size_t i = 0; i < p->nterminates; i++) {
        const struct ccas_node *n = p->terminates[i].node;
        assert_false (n->busy || n->matched || n->njobs > 0 || n->keep_alive);
        assert_int_not_equal (n->kind, CCAS_NODE_GOING);
    }
    for (size_t i = 0; i < p->nkept; i++)
        assert_true (p->kept[i].node->keep_alive);
    ccas_plan_destroy (p);
    json_object_put (times);
    ccas_cluster_destroy (c);
    ccas_conf_destroy (cfg);
}

/* The times: busy nodes refreshed to now, new nodes entered, departed
 * nodes dropped, nodes going left as they were. */
static void test_times_kept (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct ccas_config *cfg = fx_config (CONFIG);
    struct ccas_cluster *c = make_cluster (cfg);
    struct ccas_plan *p = ccas_plan_create (c, NULL, &err);
    json_object *times = make_times ();
    assert_int_equal (ccas_scaledown_plan (p, times, NOW, &err), 0);
    static const char *const busy_now[] = {"busy", "boot-busy", "matched", "given-jobs"};
    for (size_t i = 0; i < sizeof (busy_now) / sizeof (busy_now[0]); i++)
        assert_true (ccas_json_double (ccas_json_get (times, busy_now[i]), "last_busy", 0) == NOW);
    assert_true (ccas_json_double (ccas_json_get (times, "idle-htc"), "last_busy", 0) == NOW - 150);
    json_object *fresh = ccas_json_get (times, "new-sight");
    assert_non_null (fresh);
    assert_true (ccas_json_double (fresh, "first_seen", 0) == NOW);
    assert_null (ccas_json_get (fresh, "last_busy"));
    assert_null (ccas_json_get (times, "departed"));
    assert_non_null (ccas_json_get (times, "going")); /* still CycleCloud's: kept */
    assert_int_equal (json_object_object_length (times), (int)c->nexisting);
    ccas_plan_destroy (p);

    /* a second pass later: the new node is now old enough to be idle */
    p = ccas_plan_create (c, NULL, &err);
    assert_int_equal (ccas_scaledown_plan (p, times, NOW + 101, &err), 0);
    assert_non_null (find_action (p->terminates, p->nterminates, "new-sight"));
    ccas_plan_destroy (p);
    json_object_put (times);
    ccas_cluster_destroy (c);
    ccas_conf_destroy (cfg);
}

/* Before matching: booting nodes past their nodearray's boot_timeout are
 * marked, so no job waits on them; busy ones are not. */
static void test_mark_stuck (void **state)
{
    (void)state;
    struct ccas_config *cfg = fx_config (CONFIG);
    struct ccas_cluster *c = make_cluster (cfg);
    json_object *times = make_times ();
    json_object_object_del (times, "boot-htc-ok"); /* first seen now */
    assert_int_equal (ccas_scaledown_mark_stuck (c, times, NOW), 2);
    static const struct {
        const char *name;
        bool stuck;
    } cases[] = {
        {"boot-htc-slow", true}, {"boot-hpc-slow", true}, {"boot-htc-ok", false}, {"boot-hpc-ok", false},
        {"boot-busy", false},    {"failed-1", false},     {"idle-htc", false},
    };
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        struct ccas_node *n = fx_node (c, cases[i].name);
        if (n->boot_timed_out != cases[i].stuck)
            fail_msg ("%s: %d", cases[i].name, n->boot_timed_out);
        if (cases[i].stuck)
            assert_false (ccas_node_usable (n));
    }
    assert_true (ccas_json_double (ccas_json_get (times, "boot-htc-ok"), "first_seen", 0) == NOW);
    /* an hour later every booting node but the busy one is stuck */
    assert_int_equal (ccas_scaledown_mark_stuck (c, times, NOW + 3600), 4);
    json_object_put (times);
    ccas_cluster_destroy (c);
    ccas_conf_destroy (cfg);
}

/* A global boot_timeout in a map; nodes of a nodearray the configuration
 * does not name take the default. */
static void test_timeouts_per_nodearray (void **state)
{
    static const struct {
        const char *config;
        const char *name;
        bool terminated;
    } cases[] = {
        {"{\"boot_timeout\": {\"default\": 2500}}", "boot-htc-slow", false},
        {"{\"boot_timeout\": {\"default\": 2500, \"htc\": 1500}}", "boot-htc-slow", true},
        {"{\"boot_timeout\": 1000}", "boot-htc-ok", false},
        {"{\"boot_timeout\": 999}", "boot-htc-ok", true},
        {"{\"idle_timeout\": 149}", "idle-htc", true},
        {"{\"idle_timeout\": 150}", "idle-htc", false}, /* past, not at */
        {"{\"nodearrays\": {\"htc\": {\"idle_timeout\": 10000}}, \"idle_timeout\": 1}", "idle-htc", false},
        {"{}", "idle-hpc-long", true},  /* the built-in default 300 */
        {"{}", "boot-hpc-slow", false}, /* the built-in default 1800 */
    };
    (void)state;
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        struct ccas_error err = {""};
        struct ccas_config *cfg = fx_config (cases[i].config);
        struct ccas_cluster *c = make_cluster (cfg);
        struct ccas_plan *p = ccas_plan_create (c, NULL, &err);
        json_object *times = make_times ();
        assert_int_equal (ccas_scaledown_plan (p, times, NOW, &err), 0);
        bool got = find_action (p->terminates, p->nterminates, cases[i].name) != NULL;
        if (got != cases[i].terminated)
            fail_msg ("case %zu (%s): %s", i, cases[i].name, got ? "terminated" : "kept");
        json_object_put (times);
        ccas_plan_destroy (p);
        ccas_cluster_destroy (c);
        ccas_conf_destroy (cfg);
    }
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_verdicts),
        cmocka_unit_test (test_times_kept),
        cmocka_unit_test (test_mark_stuck),
        cmocka_unit_test (test_timeouts_per_nodearray),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
