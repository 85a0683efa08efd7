/* SPDX-License-Identifier: MIT */
/* metrics.c: accumulate in a state file, write Prometheus's text format atomically. */
#include "config.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/file.h"
#include "util/log.h"
#include "util/metrics.h"
#include "util/state.h"

enum kind { COUNTER, GAUGE, HISTOGRAM };

static const struct family {
    const char *name;
    enum kind kind;
    const char *help;
} families[] = {
    {"ccautoscale_nodes", GAUGE, "Nodes by nodearray and state (ready, booting, stopped, failed, going)."},
    {"ccautoscale_nodes_created_total", COUNTER, "Nodes CycleCloud added at ccautoscale's request."},
    {"ccautoscale_create_failures_total", COUNTER,
     "Nodes asked for and not had, by failure class (capacity, quota, throttling, permanent, transient)."},
    {"ccautoscale_nodes_terminated_total", COUNTER, "Nodes ccautoscale terminated or shut down."},
    {"ccautoscale_resume_latency_seconds", HISTOGRAM,
     "Seconds from a node's create request to the first run that saw it Ready."},
    {"ccautoscale_run_duration_seconds", GAUGE, "Duration of the last run of each program."},
    {"ccautoscale_runs_total", COUNTER, "Runs of each program by result."},
    {"ccautoscale_pbs_command_seconds", GAUGE,
     "Seconds the last PBS pass waited on PBS's own commands (qstat, pbsnodes, qmgr)."},
    {"ccautoscale_requests_total", COUNTER, "CycleCloud REST requests by endpoint, retries included."},
    {"ccautoscale_retries_total", COUNTER, "CycleCloud REST requests that were retries, by endpoint."},
    {"ccautoscale_bucket_held", GAUGE, "1 while a bucket is held back after a capacity or quota failure."},
    {"ccautoscale_breaker_open", GAUGE, "1 while a nodearray's breaker is open (boot failures)."},
};
#define NFAMILIES (sizeof (families) / sizeof (families[0]))

static const double latency_bounds[] = {30, 60, 120, 180, 300, 600, 900, 1800, 3600};
#define NBOUNDS (sizeof (latency_bounds) / sizeof (latency_bounds[0]))

static struct {
    struct ccas_state *st;
    char path[4096];
    const char *program;
    bool on;
} mx;

static json_object *section (const char *key)
{
    json_object *root = ccas_state_root (mx.st), *o = NULL;
    if (!json_object_object_get_ex (root, key, &o) || !o || !json_object_is_type (o, json_type_object)) {
        o = json_object_new_object ();
        json_object_object_add (root, key, o);
    }
    return o;
}

static json_object *series_of (const char *sec, const char *name)
{
    json_object *s = section (sec), *o = NULL;
    if (!json_object_object_get_ex (s, name, &o) || !o || !json_object_is_type (o, json_type_object)) {
        o = json_object_new_object ();
        json_object_object_add (s, name, o);
    }
    return o;
}

void ccas_metrics_open (const char *path, const char *state_dir, const char *program)
{
    struct ccas_error err = {""};
    ccas_metrics_close ();
    mx.program = program;
    if (!path || !*path)
        return;
    snprintf (mx.path, sizeof (mx.path), "%s", path);
    if (!(mx.st = ccas_state_load (state_dir, "metrics", &err))) {
        ccas_log (LOG_WARNING, "metrics off for this run: %s", err.text);
        return;
    }
    mx.on = true;
}

bool ccas_metrics_on (void)
{
    return mx.on;
}

void ccas_metrics_close (void)
{
    ccas_state_destroy (mx.st);
    mx.st = NULL;
    mx.on = false;
}

void ccas_metrics_add (const char *name, const char *labels, double by)
{
    if (!mx.on)
        return;
    json_object *s = series_of ("counters", name), *v = NULL;
    const char *key = labels ? labels : "";
    double old = json_object_object_get_ex (s, key, &v) && v ? json_object_get_double (v) : 0;
    json_object_object_add (s, key, json_object_new_double (old + by));
}

void ccas_metrics_set (const char *name, const char *labels, double value)
{
    if (mx.on)
        json_object_object_add (series_of ("gauges", name), labels ? labels : "",
                                json_object_new_double (value));
}

void ccas_metrics_clear (const char *name)
{
    if (mx.on)
        json_object_object_del (section ("gauges"), name);
}

static void escape (char *out, size_t size, const char *v)
{
    size_t n = 0;
    for (; v && *v && n + 3 < size; v++) {
        if (*v == '\\' || *v == '"' || *v == '\n') {
            out[n++] = '\\';
            out[n++] = *v == '\n' ? 'n' : *v;
        } else
            out[n++] = *v;
    }
    out[n] = '\0';
}

const char *ccas_metrics_labels (char *buf, size_t size, const char *k1, const char *v1, const char *k2,
                                 const char *v2)
{
    char e1[256], e2[256];
    escape (e1, sizeof (e1), v1);
    escape (e2, sizeof (e2), v2);
    if (k2)
        snprintf (buf, size, "%s=\"%s\",%s=\"%s\"", k1, e1, k2, e2);
    else
        snprintf (buf, size, "%s=\"%s\"", k1, e1);
    return buf;
}

void ccas_metrics_observe_latency (double seconds)
{
    if (!mx.on)
        return;
    json_object *h = section ("latency"), *b = NULL, *v = NULL;
    if (!json_object_object_get_ex (h, "buckets", &b) || !json_object_is_type (b, json_type_array)) {
        b = json_object_new_array ();
        for (size_t i = 0; i < NBOUNDS; i++)
            json_object_array_add (b, json_object_new_int64 (0));
        json_object_object_add (h, "buckets", b);
    }
    for (size_t i = 0; i < NBOUNDS && i < json_object_array_length (b); i++)
        if (seconds <= latency_bounds[i]) {
            int64_t c = json_object_get_int64 (json_object_array_get_idx (b, i));
            json_object_array_put_idx (b, i, json_object_new_int64 (c + 1));
        }
    double sum = json_object_object_get_ex (h, "sum", &v) ? json_object_get_double (v) : 0;
    int64_t count = json_object_object_get_ex (h, "count", &v) ? json_object_get_int64 (v) : 0;
    json_object_object_add (h, "sum", json_object_new_double (sum + seconds));
    json_object_object_add (h, "count", json_object_new_int64 (count + 1));
}

void ccas_metrics_node_requested (const char *name, double now)
{
    if (mx.on && name)
        /* whole seconds: a thousand doubles cost a millisecond to print and parse again */
        json_object_object_add (section ("requested"), name, json_object_new_int64 ((int64_t)now));
}

void ccas_metrics_requested_each (ccas_metrics_requested_f fn, void *arg)
{
    if (!mx.on)
        return;
    json_object *req = section ("requested");
    size_t cap = (size_t)json_object_object_length (req) + 1, ndone = 0;
    const char **done = calloc (cap, sizeof (*done));
    if (!done)
        return;
    json_object_object_foreach (req, name, t)
    {
        if (fn (name, json_object_get_double (t), arg))
            done[ndone++] = name;
    }
    for (size_t i = 0; i < ndone; i++)
        json_object_object_del (req, done[i]);
    free (done);
}

static void put (char **buf, size_t *len, size_t *cap, const char *fmt, ...)
    __attribute__ ((format (printf, 4, 5)));

static void put (char **buf, size_t *len, size_t *cap, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start (ap, fmt);
        int n = *buf ? vsnprintf (*buf + *len, *cap - *len, fmt, ap) : -1;
        va_end (ap);
        if (n >= 0 && (size_t)n < *cap - *len) {
            *len += (size_t)n;
            return;
        }
        size_t want = *cap ? *cap * 2 : 8192;
        while (n >= 0 && want < *len + (size_t)n + 1)
            want *= 2;
        char *p = realloc (*buf, want);
        if (!p)
            return;
        *buf = p;
        *cap = want;
    }
}

static void put_value (char **buf, size_t *len, size_t *cap, const char *name, const char *labels, double v)
{
    if (v == (double)(int64_t)v)
        put (buf, len, cap, "%s%s%s%s %lld\n", name, *labels ? "{" : "", labels, *labels ? "}" : "",
             (long long)v);
    else
        put (buf, len, cap, "%s%s%s%s %.6g\n", name, *labels ? "{" : "", labels, *labels ? "}" : "", v);
}

static void put_histogram (char **buf, size_t *len, size_t *cap, const char *name)
{
    json_object *h = section ("latency"), *b = NULL, *v = NULL;
    bool have = json_object_object_get_ex (h, "buckets", &b) && json_object_is_type (b, json_type_array);
    int64_t count = json_object_object_get_ex (h, "count", &v) ? json_object_get_int64 (v) : 0;
    double sum = json_object_object_get_ex (h, "sum", &v) ? json_object_get_double (v) : 0;
    for (size_t i = 0; i < NBOUNDS; i++) {
        int64_t c = have && i < json_object_array_length (b)
                        ? json_object_get_int64 (json_object_array_get_idx (b, i))
                        : 0;
        put (buf, len, cap, "%s_bucket{le=\"%g\"} %lld\n", name, latency_bounds[i], (long long)c);
    }
    put (buf, len, cap, "%s_bucket{le=\"+Inf\"} %lld\n", name, (long long)count);
    put (buf, len, cap, "%s_sum %.6g\n%s_count %lld\n", name, sum, name, (long long)count);
}

char *ccas_metrics_text (void)
{
    char *buf = NULL;
    size_t len = 0, cap = 0;
    if (!mx.on)
        return NULL;
    put (&buf, &len, &cap, "%s", "");
    for (size_t f = 0; f < NFAMILIES; f++) {
        const struct family *fam = &families[f];
        static const char *const kinds[] = {"counter", "gauge", "histogram"};
        put (&buf, &len, &cap, "# HELP %s %s\n# TYPE %s %s\n", fam->name, fam->help, fam->name,
             kinds[fam->kind]);
        if (fam->kind == HISTOGRAM) {
            put_histogram (&buf, &len, &cap, fam->name);
            continue;
        }
        json_object *s = series_of (fam->kind == COUNTER ? "counters" : "gauges", fam->name);
        json_object_object_foreach (s, labels, v)
            put_value (&buf, &len, &cap, fam->name, labels, json_object_get_double (v));
    }
    return buf;
}

int ccas_metrics_flush (const char *result, double seconds, struct ccas_error *err)
{
    char labels[200];
    if (!mx.on)
        return 0;
    ccas_metrics_add ("ccautoscale_runs_total",
                      ccas_metrics_labels (labels, sizeof (labels), "program", mx.program, "result", result),
                      1);
    ccas_metrics_set ("ccautoscale_run_duration_seconds",
                      ccas_metrics_labels (labels, sizeof (labels), "program", mx.program, NULL, NULL),
                      seconds);
    char *text = ccas_metrics_text ();
    int rc = 0;
    if (!text)
        rc = ccas_errorf (err, "out of memory");
    /* no fsync: a crash may cost the last run's counts, never a half-written file */
    else if (ccas_file_write_replace (mx.path, text, strlen (text), 0644, false, err) < 0 ||
             ccas_state_save_ex (mx.st, false, err) < 0)
        rc = -1;
    free (text);
    ccas_metrics_close ();
    return rc;
}
