/* SPDX-License-Identifier: MIT */
/* serve_metrics.h: what `ccautoscale serve` has done since it started, as
 * Prometheus metrics (beside the accumulated ones of util/metrics.h, which
 * GET /metrics serves from metrics.file).
 *
 * Process-wide and in memory: they describe this process, and start at 0
 * with it, as a Prometheus counter may.  Every function is safe from any
 * thread.  The families:
 *   ccautoscale_serve_requests_total{path,code}   counter (path: /autostop,
 *                                                  /healthz, /metrics or other)
 *   ccautoscale_serve_autostop_total{decision}    counter (granted, refused,
 *                                                  going, failed)
 *   ccautoscale_serve_autostop_seconds            histogram (a request
 *                                                  received to its answer)
 *   ccautoscale_serve_status_reads_total          counter (cluster status reads)
 *   ccautoscale_serve_connections                 gauge (open now)
 *   ccautoscale_serve_connections_peak            gauge (most open at once)
 */
#ifndef CCAS_SERVE_METRICS_H
#define CCAS_SERVE_METRICS_H

/* One request answered with `code` on `path` (the request's path). */
void serve_metrics_request (const char *path, unsigned code);

/* One autostop decided ("granted", "refused", "going", "failed") in `seconds`. */
void serve_metrics_autostop (const char *decision, double seconds);

/* One read of the cluster's status. */
void serve_metrics_status_read (void);

/* A connection opened (+1) or closed (-1). */
void serve_metrics_connection (int delta);

/* The families as Prometheus text (caller frees), or NULL (out of memory). */
char *serve_metrics_text (void);

#endif /* !CCAS_SERVE_METRICS_H */
