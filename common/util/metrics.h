/* SPDX-License-Identifier: MIT */
/* metrics.h: what the autoscaler did, as Prometheus metrics in a text file
 * (node_exporter's textfile collector convention).
 *
 * Process-wide, like logging: a program opens the metrics once; any code
 * counts with ccas_metrics_add() and friends (no-ops when closed); the
 * program flushes once, while it still holds the lock.  Counters and the
 * histogram accumulate across runs and programs in state_dir/metrics.json;
 * gauges keep the last value any program set.  Flushing rewrites
 * metrics.file (default state_dir/ccautoscale.prom; "" turns metrics off)
 * atomically, so a collector never reads half a file.
 *
 * The families (every name is declared here, with its help text, so the
 * file always has HELP and TYPE lines):
 *   ccautoscale_nodes{nodearray,state}                 gauge
 *   ccautoscale_nodes_created_total{nodearray}         counter
 *   ccautoscale_create_failures_total{nodearray,class} counter (nodes asked for and not had)
 *   ccautoscale_nodes_terminated_total{nodearray}      counter
 *   ccautoscale_resume_latency_seconds                 histogram (create request to Ready)
 *   ccautoscale_run_duration_seconds{program}          gauge
 *   ccautoscale_runs_total{program,result}             counter
 *   ccautoscale_requests_total{endpoint}               counter (REST requests, retries included)
 *   ccautoscale_retries_total{endpoint}                counter
 *   ccautoscale_bucket_held{nodearray,machine_type}    gauge (1 in a capacity window)
 *   ccautoscale_breaker_open{nodearray}                gauge (1 while the breaker is open)
 */
#ifndef CCAS_METRICS_H
#define CCAS_METRICS_H

#include <json-c/json.h>

#include "util/error.h"
#include <stdbool.h>

/* Write the metrics to `path` (copied; NULL or "": metrics off), keeping the
 * accumulated values in `state_dir`/metrics.json; `program` is borrowed and
 * must outlive the calls.  Failing to read the values turns metrics off for
 * this run with a warning (never fails the run). */
void ccas_metrics_open (const char *path, const char *state_dir, const char *program);

/* True between a successful open and the flush or close. */
bool ccas_metrics_on (void);

/* Add to a counter; `labels` is the Prometheus label text without braces
 * ('nodearray="hpc"'), or NULL. */
void ccas_metrics_add (const char *name, const char *labels, double by);

/* Set a gauge. */
void ccas_metrics_set (const char *name, const char *labels, double value);

/* Drop every series of gauge `name` (before setting the ones that exist now). */
void ccas_metrics_clear (const char *name);

/* 'k1="v1",k2="v2"' with the values escaped as Prometheus wants; k2 may be
 * NULL.  Returns `buf`. */
const char *ccas_metrics_labels (char *buf, size_t size, const char *k1, const char *v1, const char *k2,
                                 const char *v2);

/* One observation of the resume latency histogram. */
void ccas_metrics_observe_latency (double seconds);

/* A node was asked for now: remember when, to observe its latency once Ready. */
void ccas_metrics_node_requested (const char *name, double now);

/* For each node remembered by ccas_metrics_node_requested(): fn(name, when
 * it was asked for, arg); a true return forgets the node.  `name` is
 * borrowed for the call. */
typedef bool (*ccas_metrics_requested_f) (const char *name, double asked, void *arg);
void ccas_metrics_requested_each (ccas_metrics_requested_f fn, void *arg);

/* Count the run (result "ok" or "failed"), its duration, write the file and
 * save the state.  Returns 0 or -1 with `err`; closes the metrics. */
int ccas_metrics_flush (const char *result, double seconds, struct ccas_error *err);

/* The metrics file's text as flushing would write it (caller frees), or NULL
 * when metrics are off. */
char *ccas_metrics_text (void);

/* Close without writing. */
void ccas_metrics_close (void);

#endif /* !CCAS_METRICS_H */
