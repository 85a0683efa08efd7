/* SPDX-License-Identifier: MIT */
/* test_report.c: outcomes told to the events file and the metrics at once —
 * the nodes gauge by nodearray and state from the model (new nodes counted
 * once they have names), resume latency observed once a requested node is
 * Ready and forgotten then or when it is gone, and node actions as events
 * and termination counts. */
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

#include "engine/report.h"
#include "model/test/fixture.h"
#include "util/events.h"
#include "util/file.h"
#include "util/metrics.h"

static char dir[] = "/tmp/ccas-test-report.XXXXXX";
static char prom[128], saved[128], events[128];

static void clean (void)
{
    ccas_metrics_close ();
    ccas_events_close ();
    unlink (prom);
    unlink (saved);
    unlink (events);
}

static double series (const char *text, const char *name)
{
    size_t n = strlen (name);
    for (const char *p = text; p && *p; p = strchr (p, '\n') ? strchr (p, '\n') + 1 : NULL)
        if (strncmp (p, name, n) == 0 && p[n] == ' ')
            return strtod (p + n + 1, NULL);
    return -1;
}

static struct ccas_cluster *with_nodes (const struct ccas_config *cfg)
{
    size_t len;
    struct ccas_error err = {""};
    char *text = ccas_file_read (TEST_DATA_DIR "/cluster-nodes.json", 1 << 20, &len, &err);
    assert_non_null (text);
    struct ccas_cluster *c = fx_cluster (cfg, "cluster-status.json", NULL, text);
    free (text);
    return c;
}

/* Metrics off: nothing happens, nothing breaks. */
static void test_off (void **state)
{
    (void)state;
    clean ();
    struct ccas_config *cfg = fx_config (NULL);
    struct ccas_cluster *c = with_nodes (cfg);
    ccas_report_model (c, 1000);
    ccas_report_action (NULL, CCAS_ACTION_TERMINATE, fx_node (c, "htc-1"), NULL, NULL);
    assert_int_equal (access (prom, F_OK), -1);
    ccas_cluster_destroy (c);
    ccas_conf_destroy (cfg);
}

/* The gauge counts the model's nodes by nodearray and state; every pair is
 * set (0 too); a new node without a name yet is not counted, one the
 * server named is booting; nodes of a nodearray the status lacks are not. */
static void test_node_gauge (void **state)
{
    static const struct {
        const char *labels;
        double want;
    } cases[] = {
        {"nodearray=\"htc\",state=\"ready\"", 3},   /* htc-1, dup, dup */
        {"nodearray=\"htc\",state=\"booting\"", 3}, /* htc-2, htc-3, and one new named node */
        {"nodearray=\"htc\",state=\"stopped\"", 1}, {"nodearray=\"htc\",state=\"failed\"", 1},
        {"nodearray=\"htc\",state=\"going\"", 2},   {"nodearray=\"hpc\",state=\"ready\"", 2},
        {"nodearray=\"hpc\",state=\"stopped\"", 1}, {"nodearray=\"hpc\",state=\"going\"", 1},
        {"nodearray=\"hpc\",state=\"booting\"", 0}, {"nodearray=\"gpu\",state=\"ready\"", 1},
        {"nodearray=\"login\",state=\"ready\"", 0}, {"nodearray=\"login\",state=\"failed\"", 0},
    };
    (void)state;
    clean ();
    ccas_metrics_open (prom, dir, "test");
    ccas_metrics_set ("ccautoscale_nodes", "nodearray=\"gone\",state=\"ready\"", 5); /* stale */
    struct ccas_config *cfg = fx_config (NULL);
    struct ccas_cluster *c = with_nodes (cfg);
    struct ccas_bucket *f2 = fx_bucket (c, "htc", "Standard_F2s_v2");
    ccas_cluster_new_node (c, f2, NULL, NULL)->name = "htc-20"; /* created and named */
    ccas_cluster_new_node (c, f2, NULL, NULL);                  /* not created: no name */
    ccas_report_model (c, c->now);
    char *text = ccas_metrics_text ();
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        char name[160];
        snprintf (name, sizeof (name), "ccautoscale_nodes{%s}", cases[i].labels);
        if (series (text, name) != cases[i].want)
            fail_msg ("%s: %g, want %g", name, series (text, name), cases[i].want);
    }
    assert_null (strstr (text, "nodearray=\"gone\""));
    assert_null (strstr (text, "nodearray=\"ghost\""));
    assert_null (strstr (text, "state=\"new\""));
    /* 4 nodearrays x 5 states, no more */
    size_t n = 0;
    for (const char *p = text; (p = strstr (p, "\nccautoscale_nodes{")); p++)
        n++;
    assert_int_equal (n, 20);
    free (text);
    ccas_cluster_destroy (c);
    ccas_conf_destroy (cfg);
    clean ();
}

struct seen {
    char text[256];
};

static bool collect (const char *name, double asked, void *arg)
{
    struct seen *s = arg;
    size_t n = strlen (s->text);
    snprintf (s->text + n, sizeof (s->text) - n, "%s%s@%.0f", n ? " " : "", name, asked);
    return false;
}

/* Latency: observed when Ready, then forgotten; kept while booting; a node
 * gone from the model is forgotten if it was asked for before the model was
 * read; a node still booting after two hours is forgotten. */
static void test_latency (void **state)
{
    (void)state;
    clean ();
    ccas_metrics_open (prom, dir, "test");
    struct ccas_config *cfg = fx_config (NULL);
    struct ccas_cluster *c = with_nodes (cfg);
    double now = c->now + 10;
    ccas_metrics_node_requested ("htc-1", now - 100);     /* Ready: 100 s */
    ccas_metrics_node_requested ("hpc-1", now - 45);      /* Ready: 45 s */
    ccas_metrics_node_requested ("htc-2", now - 600);     /* booting: kept */
    ccas_metrics_node_requested ("htc-3", now - 8000);    /* booting for hours: forgotten */
    ccas_metrics_node_requested ("vanished", c->now - 5); /* gone: forgotten */
    ccas_metrics_node_requested ("just-asked", now);      /* not in this model yet: kept */
    ccas_report_model (c, now);
    struct seen s = {""};
    ccas_metrics_requested_each (collect, &s);
    char want[256];
    snprintf (want, sizeof (want), "htc-2@%.0f just-asked@%.0f", (double)(int64_t)(now - 600),
              (double)(int64_t)now);
    assert_string_equal (s.text, want);
    char *text = ccas_metrics_text ();
    assert_true (series (text, "ccautoscale_resume_latency_seconds_count") == 2);
    assert_true (series (text, "ccautoscale_resume_latency_seconds_bucket{le=\"30\"}") == 0);
    assert_true (series (text, "ccautoscale_resume_latency_seconds_bucket{le=\"60\"}") == 1);
    assert_true (series (text, "ccautoscale_resume_latency_seconds_bucket{le=\"120\"}") == 2);
    free (text);
    ccas_cluster_destroy (c);
    ccas_conf_destroy (cfg);
    clean ();
}

/* Actions: one event line each; terminations (not starts) counted per nodearray. */
static void test_actions (void **state)
{
    (void)state;
    clean ();
    ccas_metrics_open (prom, dir, "test");
    ccas_events_open (events, 64, 3, "test");
    struct ccas_config *cfg = fx_config (NULL);
    struct ccas_cluster *c = with_nodes (cfg);
    ccas_report_action (NULL, CCAS_ACTION_TERMINATE, fx_node (c, "htc-5"), "failed: boot failed", "op-1");
    ccas_report_action (NULL, CCAS_ACTION_SHUTDOWN, fx_node (c, "htc-1"), NULL, NULL);
    ccas_report_action (NULL, CCAS_ACTION_START, fx_node (c, "htc-4"), "deallocated node given work", "op-2");
    ccas_report_action ("orphan_reaped", CCAS_ACTION_TERMINATE, fx_node (c, "hpc-1"), "orphan", NULL);
    ccas_events_close ();
    char *text = ccas_metrics_text ();
    assert_true (series (text, "ccautoscale_nodes_terminated_total{nodearray=\"htc\"}") == 2);
    assert_true (series (text, "ccautoscale_nodes_terminated_total{nodearray=\"hpc\"}") == 1);
    free (text);

    size_t len;
    char *lines = ccas_file_read (events, 1 << 20, &len, NULL);
    assert_non_null (lines);
    static const struct {
        const char *event, *node, *action, *reason, *operation;
    } want[] = {
        {"terminated", "htc-5", "terminate", "failed: boot failed", "op-1"},
        {"terminated", "htc-1", "shutdown", NULL, NULL},
        {"started", "htc-4", "start", "deallocated node given work", "op-2"},
        {"orphan_reaped", "hpc-1", "terminate", "orphan", NULL},
    };
    char *save = NULL, *line = strtok_r (lines, "\n", &save);
    for (size_t i = 0; i < sizeof (want) / sizeof (want[0]); i++, line = strtok_r (NULL, "\n", &save)) {
        assert_non_null (line);
        json_object *o = json_tokener_parse (line);
        assert_non_null (o);
        assert_string_equal (ccas_json_str (o, "event"), want[i].event);
        assert_string_equal (ccas_json_str (o, "node"), want[i].node);
        assert_string_equal (ccas_json_str (o, "node_id"), want[i].node);
        assert_string_equal (ccas_json_str (o, "action"), want[i].action);
        assert_non_null (ccas_json_str (o, "nodearray"));
        if (want[i].reason)
            assert_string_equal (ccas_json_str (o, "reason"), want[i].reason);
        else
            assert_null (ccas_json_get (o, "reason"));
        if (want[i].operation)
            assert_string_equal (ccas_json_str (o, "operation_id"), want[i].operation);
        else
            assert_null (ccas_json_get (o, "operation_id"));
        json_object_put (o);
    }
    assert_null (line);
    free (lines);
    ccas_cluster_destroy (c);
    ccas_conf_destroy (cfg);
    clean ();
}

static int setup (void **state)
{
    (void)state;
    if (!mkdtemp (dir))
        return -1;
    snprintf (prom, sizeof (prom), "%s/ccautoscale.prom", dir);
    snprintf (saved, sizeof (saved), "%s/metrics.json", dir);
    snprintf (events, sizeof (events), "%s/events.jsonl", dir);
    return 0;
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
        cmocka_unit_test (test_off),
        cmocka_unit_test (test_node_gauge),
        cmocka_unit_test (test_latency),
        cmocka_unit_test (test_actions),
    };
    return cmocka_run_group_tests (tests, setup, teardown);
}
