/* SPDX-License-Identifier: MIT */
/* serve.h: the HTTP(S) side of `ccautoscale serve` — listening, requests
 * read and answered, on libmicrohttpd.
 *
 * Paths (GET; HEAD too for the last two):
 *   /autostop?instance=ID | ?node=NAME  a node asks to stop (serve_decide.h)
 *   /healthz                            200 while the service runs
 *   /metrics                            Prometheus text: metrics.file, then the
 *                                       service's own (serve_metrics.h)
 * Bad requests get a 4xx whose JSON body says why, and nothing is stopped:
 * a target longer than SERVE_TARGET_MAX bytes 414, another method 405 (with
 * Allow), a query that is not one `instance` or `node` 400, another path
 * 404.  Each connection has a thread of its own, so a client that never
 * finishes its request holds only its own (until serve.client_timeout);
 * connections are limited in all and per address (serve.max_connections,
 * serve.max_connections_per_address).  TLS (GnuTLS) when a certificate and
 * key are given; plain HTTP only on a loopback address unless allowed.
 */
#ifndef CCAS_SERVE_H
#define CCAS_SERVE_H

#include <stdbool.h>
#include <sys/socket.h>

#include "cli.h"
#include "serve_decide.h"
#include "util/error.h"

#define SERVE_TARGET_MAX 8192 /* bytes of a request's path and query */

struct serve_options {
    const char *listen;    /* "ADDR:PORT", "[ADDR6]:PORT" */
    const char *cert_file; /* both or neither */
    const char *key_file;
    bool plain_http; /* plain HTTP allowed off loopback */
};

struct serve;

/* Listen and serve on the service's own threads; `cli` (configuration,
 * limits) and `decide` are borrowed and must outlive it.  Returns the
 * service (stop it with serve_stop()), or NULL with `err`. */
struct serve *serve_start (struct cli *cli, const struct serve_options *o, struct serve_decide *decide,
                           struct ccas_error *err);

/* The port it listens on (the one the kernel chose for port 0). */
int serve_port (const struct serve *s);

/* "https" or "http". */
const char *serve_scheme (const struct serve *s);

/* Stop listening, let the requests being answered finish, free.  NULL is a no-op. */
void serve_stop (struct serve *s);

#endif /* !CCAS_SERVE_H */
