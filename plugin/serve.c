/* SPDX-License-Identifier: MIT */
/* serve.c: libmicrohttpd's daemon for `ccautoscale serve`: routes, limits, TLS, answers. */
#include "config.h"

#include <errno.h>
#include <microhttpd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve.h"
#include "serve_listen.h"
#include "serve_metrics.h"
#include "serve_query.h"
#include "util/file.h"
#include "util/log.h"
#include "util/secret.h"

#define PEM_MAX_BYTES (1024 * 1024)
#define METRICS_MAX_BYTES (64 * 1024 * 1024)

struct serve {
    struct MHD_Daemon *daemon;
    struct cli *cli;
    struct serve_decide *decide;
    int port;
    bool tls;
};

/* What the request target was, as the client sent it (MHD gives handlers
 * the path alone, decoded): kept from the URI callback to the answer. */
struct request {
    char *target; /* NULL when longer than SERVE_TARGET_MAX */
    size_t len;
    bool headers_seen; /* the handler's first call is done */
};

enum route { ROUTE_AUTOSTOP, ROUTE_HEALTHZ, ROUTE_METRICS, ROUTE_NONE };

static const char *route_path (enum route r)
{
    static const char *const paths[] = {"/autostop", "/healthz", "/metrics", "other"};
    return paths[r];
}

static enum route route_of (const char *path, size_t len)
{
    for (enum route r = ROUTE_AUTOSTOP; r < ROUTE_NONE; r++)
        if (strlen (route_path (r)) == len && memcmp (path, route_path (r), len) == 0)
            return r;
    return ROUTE_NONE;
}

static void *uri_seen (void *cls, const char *uri, struct MHD_Connection *c)
{
    (void)cls;
    (void)c;
    struct request *r = calloc (1, sizeof (*r));
    if (!r)
        return NULL;
    r->len = strlen (uri);
    if (r->len <= SERVE_TARGET_MAX && !(r->target = strdup (uri))) {
        free (r);
        return NULL;
    }
    return r;
}

static void request_done (void *cls, struct MHD_Connection *c, void **req_cls,
                          enum MHD_RequestTerminationCode toe)
{
    (void)cls;
    (void)c;
    (void)toe;
    struct request *r = *req_cls;
    if (r) {
        free (r->target);
        free (r);
    }
    *req_cls = NULL;
}

static void connection_seen (void *cls, struct MHD_Connection *c, void **socket_context,
                             enum MHD_ConnectionNotificationCode toe)
{
    (void)cls;
    (void)c;
    (void)socket_context;
    serve_metrics_connection (toe == MHD_CONNECTION_NOTIFY_STARTED ? 1 : -1);
}

__attribute__ ((format (printf, 2, 0))) static void mhd_log (void *cls, const char *fmt, va_list ap)
{
    (void)cls;
    char msg[512];
    vsnprintf (msg, sizeof (msg), fmt, ap);
    msg[strcspn (msg, "\r\n")] = '\0';
    ccas_log (LOG_INFO, "serve: %s", msg);
}

static enum MHD_Result send_answer (struct MHD_Connection *c, enum route route, unsigned status,
                                    const char *body, const char *type, const char *allow, bool retry_later)
{
    struct MHD_Response *resp =
        MHD_create_response_from_buffer (strlen (body), (void *)body, MHD_RESPMEM_MUST_COPY);
    if (!resp)
        return MHD_NO;
    MHD_add_response_header (resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    MHD_add_response_header (resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    if (allow)
        MHD_add_response_header (resp, MHD_HTTP_HEADER_ALLOW, allow);
    if (retry_later)
        MHD_add_response_header (resp, MHD_HTTP_HEADER_RETRY_AFTER, "10");
    enum MHD_Result rc = MHD_queue_response (c, status, resp);
    MHD_destroy_response (resp);
    serve_metrics_request (route_path (route), status);
    return rc;
}

static enum MHD_Result send_json (struct MHD_Connection *c, enum route route, struct serve_answer *a,
                                  const char *allow)
{
    enum MHD_Result rc = send_answer (
        c, route, a->status, a->body ? a->body : "{\"stopped\": false, \"reason\": \"out of memory\"}",
        "application/json", allow, a->retry_later);
    serve_answer_release (a);
    return rc;
}

static enum MHD_Result healthz (struct serve *s, struct MHD_Connection *c)
{
    json_object *o = json_object_new_object ();
    double age = serve_decide_status_age (s->decide);
    json_object_object_add (o, "status", json_object_new_string ("ok"));
    json_object_object_add (o, "cluster", json_object_new_string (s->cli->cfg->cluster_name));
    json_object_object_add (o, "status_age", age < 0 ? NULL : json_object_new_double (age));
    enum MHD_Result rc =
        send_answer (c, ROUTE_HEALTHZ, 200, json_object_to_json_string_ext (o, JSON_C_TO_STRING_PLAIN),
                     "application/json", NULL, false);
    json_object_put (o);
    return rc;
}

/* metrics.file as the last acting run wrote it, then the service's own */
static enum MHD_Result metrics (struct serve *s, struct MHD_Connection *c)
{
    struct ccas_error err = {""};
    const char *path = s->cli->cfg->metrics.path;
    size_t len = 0;
    char *file = path ? ccas_file_read (path, METRICS_MAX_BYTES, &len, &err) : NULL;
    char *own = serve_metrics_text ();
    char *text = NULL;
    if (path && !file && errno != ENOENT)
        ccas_log (LOG_WARNING, "serve: metrics: %s", err.text);
    if (own && asprintf (&text, "%s%s", file ? file : "", own) < 0)
        text = NULL;
    enum MHD_Result rc =
        text ? send_answer (c, ROUTE_METRICS, 200, text, "text/plain; version=0.0.4", NULL, false)
             : send_answer (c, ROUTE_METRICS, 500, "out of memory\n", "text/plain", NULL, false);
    free (text);
    free (own);
    free (file);
    return rc;
}

static enum MHD_Result autostop (struct serve *s, struct MHD_Connection *c, const char *query, size_t qlen)
{
    struct ccas_error err = {""};
    struct serve_answer a = {0};
    struct serve_query q;
    const union MHD_ConnectionInfo *peer = MHD_get_connection_info (c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (serve_query_parse (query, qlen, &q, &err) < 0) {
        char from[64];
        ccas_log (LOG_NOTICE, "serve: bad autostop request from %s: %s",
                  serve_auth_address_text (peer ? peer->client_addr : NULL, from, sizeof (from)), err.text);
        serve_answer_set (&a, 400, false, NULL, "%s", err.text);
        return send_json (c, ROUTE_AUTOSTOP, &a, NULL);
    }
    const char *authorization =
        MHD_lookup_connection_value (c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
    serve_decide_autostop (s->decide, &q, peer ? peer->client_addr : NULL, authorization, &a);
    return send_json (c, ROUTE_AUTOSTOP, &a, NULL);
}

static enum MHD_Result handle (void *cls, struct MHD_Connection *c, const char *url, const char *method,
                               const char *version, const char *upload_data, size_t *upload_data_size,
                               void **req_cls)
{
    struct serve *s = cls;
    struct request *r = *req_cls;
    struct serve_answer a = {0};
    const char *path, *query;
    size_t plen, qlen;
    (void)url;
    (void)version;
    (void)upload_data;
    if (!r) {
        serve_answer_set (&a, 500, false, NULL, "out of memory");
        return send_json (c, ROUTE_NONE, &a, NULL);
    }
    if (!r->target) {
        serve_answer_set (&a, 414, false, NULL, "the request target is %zu bytes long, more than %d", r->len,
                          SERVE_TARGET_MAX);
        return send_json (c, ROUTE_NONE, &a, NULL);
    }
    serve_query_split (r->target, r->len, &path, &plen, &query, &qlen);
    enum route route = route_of (path, plen);
    bool get = strcmp (method, MHD_HTTP_METHOD_GET) == 0, head = strcmp (method, MHD_HTTP_METHOD_HEAD) == 0;
    /* GET and HEAD are answered once the request is read whole, which keeps
     * the connection open for the next; any other method at once (and the
     * connection is closed, its body unread) */
    if ((get || head) && !r->headers_seen) {
        r->headers_seen = true;
        return MHD_YES;
    }
    if ((get || head) && *upload_data_size) {
        *upload_data_size = 0; /* a body on a GET is read and ignored */
        return MHD_YES;
    }
    if (route == ROUTE_NONE) {
        serve_answer_set (&a, 404, false, NULL,
                          "no such path: ask GET /autostop?instance=ID (or /healthz, /metrics)");
        return send_json (c, route, &a, NULL);
    }
    if (!get && !(head && route != ROUTE_AUTOSTOP)) {
        const char *allow = route == ROUTE_AUTOSTOP ? "GET" : "GET, HEAD";
        serve_answer_set (&a, 405, false, NULL, "method '%.16s' is not allowed here: use %s", method, allow);
        return send_json (c, route, &a, allow);
    }
    if (route == ROUTE_HEALTHZ)
        return healthz (s, c);
    if (route == ROUTE_METRICS)
        return metrics (s, c);
    return autostop (s, c, query, qlen);
}

static char *read_pem (const char *path, bool secret, struct ccas_error *err)
{
    size_t len;
    if (secret && ccas_secret_check_mode (path, "a TLS private key", err) < 0)
        return NULL;
    return ccas_file_read (path, PEM_MAX_BYTES, &len, err);
}

static void burn_free (char *s)
{
    if (s)
        ccas_secret_burn (s, strlen (s));
    free (s);
}

struct serve *serve_start (struct cli *cli, const struct serve_options *o, struct serve_decide *decide,
                           struct ccas_error *err)
{
    const struct ccas_config *cfg = cli->cfg;
    struct sockaddr_storage addr;
    bool loopback = false;
    char *cert = NULL, *key = NULL;
    struct serve *s = NULL;
    unsigned flags =
        MHD_USE_THREAD_PER_CONNECTION | MHD_USE_AUTO | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG;

    if (serve_listen_parse (o->listen, &addr, &loopback, err) < 0)
        return NULL;
    if (!o->cert_file != !o->key_file) {
        ccas_errorf (err, "a certificate and its key go together: give both or neither");
        return NULL;
    }
    if (!o->cert_file && !loopback && !o->plain_http) {
        ccas_errorf (err,
                     "'%s' is not a loopback address: give a certificate and key for HTTPS "
                     "(serve.cert_file, serve.key_file), or allow plain HTTP (serve.plain_http)",
                     o->listen);
        return NULL;
    }
    if (o->cert_file) {
        if (MHD_is_feature_supported (MHD_FEATURE_TLS) != MHD_YES) {
            ccas_errorf (err, "this libmicrohttpd has no TLS");
            return NULL;
        }
        if (!(cert = read_pem (o->cert_file, false, err)) || !(key = read_pem (o->key_file, true, err)))
            goto error;
        flags |= MHD_USE_TLS;
    }
    if (addr.ss_family == AF_INET6)
        flags |= MHD_USE_IPv6;
    if (!(s = calloc (1, sizeof (*s)))) {
        ccas_errorf (err, "out of memory");
        goto error;
    }
    s->cli = cli;
    s->decide = decide;
    s->tls = cert != NULL;
    /* MHD reads the options up to MHD_OPTION_END; TLS's come last, or not at all */
    s->daemon = MHD_start_daemon (
        flags, 0, NULL, NULL, handle, s, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
        MHD_OPTION_URI_LOG_CALLBACK, uri_seen, NULL, MHD_OPTION_NOTIFY_COMPLETED, request_done, NULL,
        MHD_OPTION_NOTIFY_CONNECTION, connection_seen, NULL, MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)cfg->serve.client_timeout, MHD_OPTION_CONNECTION_LIMIT,
        (unsigned)cfg->serve.max_connections, MHD_OPTION_PER_IP_CONNECTION_LIMIT,
        (unsigned)cfg->serve.max_connections_per_address, MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)32768,
        MHD_OPTION_LISTEN_BACKLOG_SIZE, (unsigned)1024, cert ? MHD_OPTION_HTTPS_MEM_CERT : MHD_OPTION_END,
        cert, MHD_OPTION_HTTPS_MEM_KEY, key, MHD_OPTION_END);
    if (!s->daemon) {
        ccas_errorf (err, "cannot listen on %s: %s", o->listen,
                     errno ? strerror (errno) : "libmicrohttpd refused");
        goto error;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info (s->daemon, MHD_DAEMON_INFO_BIND_PORT);
    s->port = info ? info->port : 0;
    burn_free (key);
    free (cert);
    return s;
error:
    burn_free (key);
    free (cert);
    free (s);
    return NULL;
}

int serve_port (const struct serve *s)
{
    return s->port;
}

const char *serve_scheme (const struct serve *s)
{
    return s->tls ? "https" : "http";
}

void serve_stop (struct serve *s)
{
    if (!s)
        return;
    MHD_stop_daemon (s->daemon);
    free (s);
}
