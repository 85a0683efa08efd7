/* SPDX-License-Identifier: MIT */
/* serve_metrics.c: the service's own counters, histogram and gauges, under one mutex. */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve_metrics.h"
#include "util/metrics.h"

static const char *const paths[] = {"/autostop", "/healthz", "/metrics", "other"};
#define NPATHS (sizeof (paths) / sizeof (paths[0]))
static const char *const decisions[] = {"granted", "refused", "going", "failed"};
#define NDECISIONS (sizeof (decisions) / sizeof (decisions[0]))
static const double bounds[] = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
#define NBOUNDS (sizeof (bounds) / sizeof (bounds[0]))
#define MAX_CODES 32 /* distinct (path, code) pairs kept; HTTP has few that serve answers */

static struct {
    pthread_mutex_t mu;
    struct {
        unsigned path, code;
        double count;
    } codes[MAX_CODES];
    size_t ncodes;
    double autostops[NDECISIONS];
    double buckets[NBOUNDS], sum, count;
    double status_reads;
    long connections, peak;
} sm = {.mu = PTHREAD_MUTEX_INITIALIZER};

static unsigned path_index (const char *path)
{
    for (unsigned i = 0; i + 1 < NPATHS; i++)
        if (path && strcmp (path, paths[i]) == 0)
            return i;
    return NPATHS - 1;
}

void serve_metrics_request (const char *path, unsigned code)
{
    unsigned p = path_index (path);
    pthread_mutex_lock (&sm.mu);
    size_t i = 0;
    while (i < sm.ncodes && (sm.codes[i].path != p || sm.codes[i].code != code))
        i++;
    if (i == sm.ncodes && sm.ncodes < MAX_CODES) {
        sm.codes[i].path = p;
        sm.codes[i].code = code;
        sm.codes[i].count = 0;
        sm.ncodes++;
    }
    if (i < sm.ncodes)
        sm.codes[i].count++;
    pthread_mutex_unlock (&sm.mu);
}

void serve_metrics_autostop (const char *decision, double seconds)
{
    pthread_mutex_lock (&sm.mu);
    for (size_t i = 0; i < NDECISIONS; i++)
        if (strcmp (decision, decisions[i]) == 0)
            sm.autostops[i]++;
    for (size_t i = 0; i < NBOUNDS; i++)
        if (seconds <= bounds[i])
            sm.buckets[i]++;
    sm.sum += seconds;
    sm.count++;
    pthread_mutex_unlock (&sm.mu);
}

void serve_metrics_status_read (void)
{
    pthread_mutex_lock (&sm.mu);
    sm.status_reads++;
    pthread_mutex_unlock (&sm.mu);
}

void serve_metrics_connection (int delta)
{
    pthread_mutex_lock (&sm.mu);
    sm.connections += delta;
    if (sm.connections > sm.peak)
        sm.peak = sm.connections;
    pthread_mutex_unlock (&sm.mu);
}

static void family (FILE *f, const char *name, const char *type, const char *help)
{
    fprintf (f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

char *serve_metrics_text (void)
{
    char *buf = NULL, labels[128];
    size_t len = 0;
    FILE *f = open_memstream (&buf, &len);
    if (!f)
        return NULL;
    pthread_mutex_lock (&sm.mu);
    family (f, "ccautoscale_serve_requests_total", "counter",
            "Requests 'ccautoscale serve' answered, by path and HTTP status.");
    for (size_t i = 0; i < sm.ncodes; i++) {
        char code[16];
        snprintf (code, sizeof (code), "%u", sm.codes[i].code);
        fprintf (f, "ccautoscale_serve_requests_total{%s} %.0f\n",
                 ccas_metrics_labels (labels, sizeof (labels), "path", paths[sm.codes[i].path], "code", code),
                 sm.codes[i].count);
    }
    family (f, "ccautoscale_serve_autostop_total", "counter", "Autostop requests decided, by decision.");
    for (size_t i = 0; i < NDECISIONS; i++)
        fprintf (f, "ccautoscale_serve_autostop_total{decision=\"%s\"} %.0f\n", decisions[i],
                 sm.autostops[i]);
    family (f, "ccautoscale_serve_autostop_seconds", "histogram",
            "Seconds from an autostop request received to its answer.");
    for (size_t i = 0; i < NBOUNDS; i++)
        fprintf (f, "ccautoscale_serve_autostop_seconds_bucket{le=\"%g\"} %.0f\n", bounds[i], sm.buckets[i]);
    fprintf (f, "ccautoscale_serve_autostop_seconds_bucket{le=\"+Inf\"} %.0f\n", sm.count);
    fprintf (f,
             "ccautoscale_serve_autostop_seconds_sum %.6f\nccautoscale_serve_autostop_seconds_count %.0f\n",
             sm.sum, sm.count);
    family (f, "ccautoscale_serve_status_reads_total", "counter",
            "Reads of the cluster's status for autostop decisions.");
    fprintf (f, "ccautoscale_serve_status_reads_total %.0f\n", sm.status_reads);
    family (f, "ccautoscale_serve_connections", "gauge", "Connections open now.");
    fprintf (f, "ccautoscale_serve_connections %ld\n", sm.connections);
    family (f, "ccautoscale_serve_connections_peak", "gauge",
            "Most connections open at once since the start.");
    fprintf (f, "ccautoscale_serve_connections_peak %ld\n", sm.peak);
    pthread_mutex_unlock (&sm.mu);
    if (fclose (f) != 0) {
        free (buf);
        return NULL;
    }
    return buf;
}
