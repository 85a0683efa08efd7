/* SPDX-License-Identifier: MIT */
/* test_metrics.c: the Prometheus text file — nothing while closed, every
 * family's HELP and TYPE, counters that accumulate across runs, gauges that
 * keep the last value, the latency histogram, label escaping, and the nodes
 * remembered until a caller forgets them. */
#include "config.h"

#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "util/file.h"
#include "util/log.h"
#include "util/metrics.h"

static char dir[] = "/tmp/ccas-test-metrics.XXXXXX";
static char prom[128], saved[128];

static char *slurp (const char *path)
{
    size_t len;
    return ccas_file_read (path, 1 << 20, &len, NULL);
}

/* The value of the series line that starts with `series` ("name{labels}"), or -1. */
static double series_value (const char *text, const char *series)
{
    size_t n = strlen (series);
    for (const char *p = text; p && *p; p = strchr (p, '\n') ? strchr (p, '\n') + 1 : NULL)
        if (strncmp (p, series, n) == 0 && p[n] == ' ')
            return strtod (p + n + 1, NULL);
    return -1;
}

static void reset (void)
{
    ccas_metrics_close ();
    unlink (prom);
    unlink (saved);
}

/* Closed (never opened, or opened with no file): every call is a no-op. */
static void test_closed (void **state)
{
    static const char *const paths[] = {NULL, ""};
    (void)state;
    for (size_t i = 0; i < sizeof (paths) / sizeof (paths[0]) + 1; i++) {
        reset ();
        if (i > 0)
            ccas_metrics_open (paths[i - 1], dir, "test");
        assert_false (ccas_metrics_on ());
        ccas_metrics_add ("ccautoscale_runs_total", "x=\"1\"", 1);
        ccas_metrics_set ("ccautoscale_nodes", NULL, 3);
        ccas_metrics_clear ("ccautoscale_nodes");
        ccas_metrics_observe_latency (5);
        ccas_metrics_node_requested ("n1", 10);
        assert_null (ccas_metrics_text ());
        struct ccas_error err = {""};
        assert_int_equal (ccas_metrics_flush ("ok", 1, &err), 0);
        assert_int_equal (access (prom, F_OK), -1);
        assert_int_equal (access (saved, F_OK), -1);
    }
}

static int warnings;

static void count_warnings (int level, const char *msg, void *arg)
{
    (void)arg;
    if (level == LOG_WARNING && strstr (msg, "metrics off for this run"))
        warnings++;
}

/* Unreadable saved values turn metrics off with a warning, not a failure. */
static void test_corrupt_state_turns_off (void **state)
{
    (void)state;
    reset ();
    FILE *f = fopen (saved, "w");
    assert_non_null (f);
    fputs ("{not json", f);
    fclose (f);
    warnings = 0;
    ccas_log_set_watch (count_warnings, NULL);
    ccas_metrics_open (prom, dir, "test");
    ccas_log_set_watch (NULL, NULL);
    assert_int_equal (warnings, 1);
    assert_false (ccas_metrics_on ());
    assert_null (ccas_metrics_text ());
    unlink (saved);
}

/* Every family has HELP and TYPE, even with no series. */
static void test_every_family_declared (void **state)
{
    static const struct {
        const char *name, *type;
    } families[] = {
        {"ccautoscale_nodes", "gauge"},
        {"ccautoscale_nodes_created_total", "counter"},
        {"ccautoscale_create_failures_total", "counter"},
        {"ccautoscale_nodes_terminated_total", "counter"},
        {"ccautoscale_resume_latency_seconds", "histogram"},
        {"ccautoscale_run_duration_seconds", "gauge"},
        {"ccautoscale_runs_total", "counter"},
        {"ccautoscale_requests_total", "counter"},
        {"ccautoscale_retries_total", "counter"},
        {"ccautoscale_bucket_held", "gauge"},
        {"ccautoscale_breaker_open", "gauge"},
    };
    (void)state;
    reset ();
    ccas_metrics_open (prom, dir, "test");
    assert_true (ccas_metrics_on ());
    char *text = ccas_metrics_text ();
    assert_non_null (text);
    for (size_t i = 0; i < sizeof (families) / sizeof (families[0]); i++) {
        char want[160];
        snprintf (want, sizeof (want), "# HELP %s ", families[i].name);
        assert_non_null (strstr (text, want));
        snprintf (want, sizeof (want), "# TYPE %s %s\n", families[i].name, families[i].type);
        if (!strstr (text, want))
            fail_msg ("missing '%s'", want);
    }
    /* an empty histogram still has every bucket, at 0 */
    assert_true (series_value (text, "ccautoscale_resume_latency_seconds_bucket{le=\"+Inf\"}") == 0);
    assert_true (series_value (text, "ccautoscale_resume_latency_seconds_count") == 0);
    free (text);
    ccas_metrics_close ();
}

static void test_labels (void **state)
{
    static const struct {
        const char *k1, *v1, *k2, *v2;
        const char *want;
    } cases[] = {
        {"nodearray", "hpc", NULL, NULL, "nodearray=\"hpc\""},
        {"nodearray", "hpc", "class", "capacity", "nodearray=\"hpc\",class=\"capacity\""},
        {"n", "a\"b", NULL, NULL, "n=\"a\\\"b\""},
        {"n", "a\\b", NULL, NULL, "n=\"a\\\\b\""},
        {"n", "a\nb", NULL, NULL, "n=\"a\\nb\""},
        {"n", NULL, NULL, NULL, "n=\"\""},
        {"n", "", "m", NULL, "n=\"\",m=\"\""},
    };
    (void)state;
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        char buf[128];
        assert_ptr_equal (
            ccas_metrics_labels (buf, sizeof (buf), cases[i].k1, cases[i].v1, cases[i].k2, cases[i].v2), buf);
        assert_string_equal (buf, cases[i].want);
    }
    char small[12];
    ccas_metrics_labels (small, sizeof (small), "nodearray", "hpc", NULL, NULL);
    assert_int_equal (strlen (small), sizeof (small) - 1);
}

/* Counters add up, across a flush and a new open; gauges keep the last
 * value; a cleared gauge loses every series. */
static void test_counters_and_gauges (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    char labels[128];
    reset ();
    ccas_metrics_open (prom, dir, "sync");
    ccas_metrics_labels (labels, sizeof (labels), "nodearray", "hpc", NULL, NULL);
    ccas_metrics_add ("ccautoscale_nodes_created_total", labels, 2);
    ccas_metrics_add ("ccautoscale_nodes_created_total", labels, 3);
    ccas_metrics_add ("ccautoscale_nodes_terminated_total", NULL, 1);
    ccas_metrics_set ("ccautoscale_nodes", "nodearray=\"hpc\",state=\"ready\"", 4);
    ccas_metrics_set ("ccautoscale_nodes", "nodearray=\"hpc\",state=\"ready\"", 7);
    ccas_metrics_set ("ccautoscale_nodes", "nodearray=\"htc\",state=\"ready\"", 1.5);
    char *text = ccas_metrics_text ();
    assert_true (series_value (text, "ccautoscale_nodes_created_total{nodearray=\"hpc\"}") == 5);
    assert_true (series_value (text, "ccautoscale_nodes_terminated_total") == 1);
    assert_true (series_value (text, "ccautoscale_nodes{nodearray=\"hpc\",state=\"ready\"}") == 7);
    assert_non_null (strstr (text, "ccautoscale_nodes{nodearray=\"htc\",state=\"ready\"} 1.5\n"));
    assert_non_null (strstr (text, "ccautoscale_nodes{nodearray=\"hpc\",state=\"ready\"} 7\n"));
    free (text);
    assert_int_equal (ccas_metrics_flush ("ok", 2.25, &err), 0);
    assert_false (ccas_metrics_on ()); /* a flush closes */

    /* the file: mode 0644, the run counted, its duration a gauge */
    struct stat st;
    assert_int_equal (stat (prom, &st), 0);
    assert_int_equal (st.st_mode & 0777, 0644);
    text = slurp (prom);
    assert_true (series_value (text, "ccautoscale_runs_total{program=\"sync\",result=\"ok\"}") == 1);
    assert_true (series_value (text, "ccautoscale_run_duration_seconds{program=\"sync\"}") == 2.25);
    assert_true (series_value (text, "ccautoscale_nodes_created_total{nodearray=\"hpc\"}") == 5);
    free (text);

    /* a second run of another program: counters go on, gauges stay */
    ccas_metrics_open (prom, dir, "resume");
    ccas_metrics_add ("ccautoscale_nodes_created_total", labels, 1);
    ccas_metrics_clear ("ccautoscale_nodes");
    ccas_metrics_clear ("no_such_gauge");
    assert_int_equal (ccas_metrics_flush ("failed", 0.5, &err), 0);
    text = slurp (prom);
    assert_true (series_value (text, "ccautoscale_nodes_created_total{nodearray=\"hpc\"}") == 6);
    assert_true (series_value (text, "ccautoscale_runs_total{program=\"sync\",result=\"ok\"}") == 1);
    assert_true (series_value (text, "ccautoscale_runs_total{program=\"resume\",result=\"failed\"}") == 1);
    assert_true (series_value (text, "ccautoscale_run_duration_seconds{program=\"sync\"}") == 2.25);
    assert_null (strstr (text, "ccautoscale_nodes{")); /* cleared */
    free (text);
}

/* A flush that cannot write fails with the file named, and still closes. */
static void test_flush_fails (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    char plain[160], bad[200];
    reset ();
    snprintf (plain, sizeof (plain), "%s/plain", dir);
    FILE *f = fopen (plain, "w"); /* a file where a directory is needed */
    assert_non_null (f);
    fclose (f);
    snprintf (bad, sizeof (bad), "%s/x.prom", plain);
    ccas_metrics_open (bad, dir, "test");
    assert_true (ccas_metrics_on ());
    assert_int_equal (ccas_metrics_flush ("ok", 1, &err), -1);
    assert_non_null (strstr (err.text, "/plain: cannot create directory"));
    assert_false (ccas_metrics_on ());
    unlink (plain);
    unlink (saved);
}

static void test_histogram (void **state)
{
    static const struct {
        const char *le;
        double want;
    } buckets[] = {
        {"30", 1},  {"60", 2},  {"120", 2},  {"180", 2},  {"300", 3},
        {"600", 3}, {"900", 3}, {"1800", 3}, {"3600", 4}, {"+Inf", 5},
    };
    (void)state;
    reset ();
    ccas_metrics_open (prom, dir, "test");
    const double seen[] = {30, 45.5, 250, 3600, 5000}; /* a bound is inclusive */
    for (size_t i = 0; i < sizeof (seen) / sizeof (seen[0]); i++)
        ccas_metrics_observe_latency (seen[i]);
    char *text = ccas_metrics_text ();
    for (size_t i = 0; i < sizeof (buckets) / sizeof (buckets[0]); i++) {
        char series[128];
        snprintf (series, sizeof (series), "ccautoscale_resume_latency_seconds_bucket{le=\"%s\"}",
                  buckets[i].le);
        if (series_value (text, series) != buckets[i].want)
            fail_msg ("%s: %g, want %g", series, series_value (text, series), buckets[i].want);
    }
    assert_true (series_value (text, "ccautoscale_resume_latency_seconds_sum") == 8925.5);
    assert_true (series_value (text, "ccautoscale_resume_latency_seconds_count") == 5);
    free (text);
    ccas_metrics_close ();
}

struct forget {
    const char *name; /* forget this one */
    char seen[256];
};

static bool forget_one (const char *name, double asked, void *arg)
{
    struct forget *f = arg;
    size_t n = strlen (f->seen);
    snprintf (f->seen + n, sizeof (f->seen) - n, "%s%s@%.0f", n ? " " : "", name, asked);
    return f->name && strcmp (name, f->name) == 0;
}

/* Requested nodes are remembered (whole seconds) until the callback forgets
 * them, across runs. */
static void test_requested_each (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    reset ();
    ccas_metrics_open (prom, dir, "test");
    ccas_metrics_node_requested ("hpc-1", 1000.9);
    ccas_metrics_node_requested ("hpc-2", 1001);
    ccas_metrics_node_requested ("hpc-3", 1002);
    ccas_metrics_node_requested (NULL, 1003);    /* ignored */
    ccas_metrics_node_requested ("hpc-2", 1005); /* asked again: the later time */
    struct forget f = {"hpc-2", ""};
    ccas_metrics_requested_each (forget_one, &f);
    assert_string_equal (f.seen, "hpc-1@1000 hpc-2@1005 hpc-3@1002");
    f = (struct forget){NULL, ""};
    ccas_metrics_requested_each (forget_one, &f);
    assert_string_equal (f.seen, "hpc-1@1000 hpc-3@1002");
    assert_int_equal (ccas_metrics_flush ("ok", 1, &err), 0);

    ccas_metrics_open (prom, dir, "test");
    f = (struct forget){"hpc-1", ""};
    ccas_metrics_requested_each (forget_one, &f);
    assert_string_equal (f.seen, "hpc-1@1000 hpc-3@1002");
    f = (struct forget){"hpc-3", ""};
    ccas_metrics_requested_each (forget_one, &f);
    assert_string_equal (f.seen, "hpc-3@1002");
    f = (struct forget){NULL, ""};
    ccas_metrics_requested_each (forget_one, &f);
    assert_string_equal (f.seen, "");
    ccas_metrics_close ();
}

static int setup (void **state)
{
    (void)state;
    if (!mkdtemp (dir))
        return -1;
    snprintf (prom, sizeof (prom), "%s/ccautoscale.prom", dir);
    snprintf (saved, sizeof (saved), "%s/metrics.json", dir);
    return 0;
}

static int teardown (void **state)
{
    (void)state;
    reset ();
    return rmdir (dir);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_closed),
        cmocka_unit_test (test_corrupt_state_turns_off),
        cmocka_unit_test (test_every_family_declared),
        cmocka_unit_test (test_labels),
        cmocka_unit_test (test_counters_and_gauges),
        cmocka_unit_test (test_flush_fails),
        cmocka_unit_test (test_histogram),
        cmocka_unit_test (test_requested_each),
    };
    return cmocka_run_group_tests (tests, setup, teardown);
}
