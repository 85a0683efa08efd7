/* SPDX-License-Identifier: MIT */
/* ccapi.c: the CycleCloud endpoints — retries for reads and actions, requestId recovery for creates. */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "ccapi/ccapi.h"
#include "ccapi/http.h"
#include "util/clock.h"
#include "util/failpoint.h"
#include "util/json.h"
#include "util/log.h"
#include "util/metrics.h"

struct ccas_ccapi {
    struct ccas_http *http;
    char *cluster;      /* URL-encoded, for paths */
    char *cluster_name; /* as given, for results */
    int max_retries;
    long backoff_initial_ms, backoff_max_ms, retry_after_max_ms;
    struct ccas_http_failure last;
    struct ccas_ccapi_stats stats;
};

enum retry_policy {
    RETRY_NONE, /* send once */
    RETRY_SAFE, /* reads and idempotent actions */
};

struct ccas_ccapi *ccas_ccapi_create (const struct ccas_ccapi_opts *opts, struct ccas_error *err)
{
    struct ccas_http_opts h = {
        .base_url = opts->url,
        .username = opts->username,
        .password = opts->password,
        .verify_certificates = opts->verify_certificates,
        .ca_file = opts->ca_file,
        .connect_timeout_ms = opts->connect_timeout_ms,
        .request_timeout_ms = opts->request_timeout_ms,
        .max_response_bytes = opts->max_response_bytes,
    };
    struct ccas_ccapi *api = calloc (1, sizeof (*api));
    if (!api) {
        ccas_errorf (err, "out of memory");
        return NULL;
    }
    if (!opts->url || !opts->cluster) {
        ccas_errorf (err, "the client needs a url and a cluster name");
        free (api);
        return NULL;
    }
    if (!(api->http = ccas_http_create (&h, err)) ||
        !(api->cluster = ccas_http_escape (api->http, opts->cluster)) ||
        !(api->cluster_name = strdup (opts->cluster))) {
        ccas_ccapi_destroy (api);
        if (err && !err->text[0])
            ccas_errorf (err, "out of memory");
        return NULL;
    }
    api->max_retries = opts->max_retries >= 0 ? opts->max_retries : 4;
    api->backoff_initial_ms = opts->backoff_initial_ms > 0 ? opts->backoff_initial_ms : 250;
    api->backoff_max_ms = opts->backoff_max_ms > 0 ? opts->backoff_max_ms : 10000;
    api->retry_after_max_ms = opts->retry_after_max_ms > 0 ? opts->retry_after_max_ms : 30000;
    api->last.retry_after_s = -1;
    return api;
}

void ccas_ccapi_destroy (struct ccas_ccapi *api)
{
    if (!api)
        return;
    ccas_http_destroy (api->http);
    free (api->cluster);
    free (api->cluster_name);
    free (api);
}

const struct ccas_http_failure *ccas_ccapi_last_failure (const struct ccas_ccapi *api)
{
    return &api->last;
}

const struct ccas_ccapi_stats *ccas_ccapi_stats (const struct ccas_ccapi *api)
{
    return &api->stats;
}

/* ---- one request, with retries ------------------------------------------------------------ */

static bool retryable_status (long status)
{
    return status == 408 || status == 429 || status == 500 || status == 502 || status == 503 || status == 504;
}

/* The path without its query, for messages: "GET /clusters/hpc/nodes". */
static void request_name (char *buf, size_t size, const char *method, const char *path)
{
    size_t n = strcspn (path, "?");
    snprintf (buf, size, "%s %.*s", method, (int)n, path);
}

/* Sleep before the next attempt: the server's Retry-After when it gave one
 * (retrying sooner only earns another 429), else backoff with jitter.
 * Returns false, saying why in the last failure, when the server asks for a
 * longer wait than retry_after_max: then the caller gives up at once. */
static bool wait_before_retry (struct ccas_ccapi *api, int attempt, long retry_after_s)
{
    long ms = ccas_http_backoff_ms (attempt, api->backoff_initial_ms, api->backoff_max_ms);
    if (retry_after_s >= 0) {
        if (retry_after_s > api->retry_after_max_ms / 1000) {
            size_t len = strlen (api->last.message);
            snprintf (api->last.message + len, sizeof (api->last.message) - len,
                      " (Retry-After %ld s is longer than retry_after_max %ld s: not retried)", retry_after_s,
                      api->retry_after_max_ms / 1000);
            return false;
        }
        ms = retry_after_s * 1000;
    }
    ccas_http_sleep_ms (ms);
    return true;
}

void ccas_ccapi_stats_to_metrics (const struct ccas_ccapi_stats *st)
{
    char labels[64];
    if (!ccas_metrics_on () || !st)
        return;
    for (int e = 0; e < CCAS_EP_COUNT; e++) {
        ccas_metrics_labels (labels, sizeof (labels), "endpoint", ccas_endpoint_name ((enum ccas_endpoint)e),
                             NULL, NULL);
        if (st->endpoint_requests[e])
            ccas_metrics_add ("ccautoscale_requests_total", labels, st->endpoint_requests[e]);
        if (st->endpoint_retries[e])
            ccas_metrics_add ("ccautoscale_retries_total", labels, st->endpoint_retries[e]);
    }
}

const char *ccas_endpoint_name (enum ccas_endpoint e)
{
    static const char *const names[] = {"status", "nodes", "create", "action", "scale", "operation", "other"};
    return e < CCAS_EP_COUNT ? names[e] : "other";
}

static enum ccas_endpoint endpoint_of (const char *path)
{
    if (strstr (path, "/nodes/create"))
        return CCAS_EP_CREATE;
    if (strstr (path, "/scale/"))
        return CCAS_EP_SCALE;
    if (strstr (path, "operation"))
        return CCAS_EP_OPERATION;
    if (strstr (path, "/nodes/"))
        return CCAS_EP_ACTION;
    if (strstr (path, "/nodes"))
        return CCAS_EP_NODES;
    if (strstr (path, "/status"))
        return CCAS_EP_STATUS;
    return CCAS_EP_OTHER;
}

static void count_retry (struct ccas_ccapi *api, const char *path)
{
    api->stats.retries++;
    api->stats.endpoint_retries[endpoint_of (path)]++;
}

/* Send once.  Returns 0 with a 2xx response in `resp`; -1 otherwise, with
 * api->last describing the failure (a non-2xx response is released). */
static int attempt (struct ccas_ccapi *api, const char *method, const char *path, const char *body, bool once,
                    struct ccas_http_response *resp)
{
    double t0 = ccas_clock_monotonic ();
    api->stats.requests++;
    api->stats.endpoint_requests[endpoint_of (path)]++;
    int rc = ccas_http_request (api->http, method, path, body, once, resp, &api->last);
    api->stats.seconds += ccas_clock_monotonic () - t0;
    if (rc < 0)
        return -1;
    if (resp->status >= 200 && resp->status < 300)
        return 0;
    api->last.kind = CCAS_FAIL_HTTP;
    api->last.http_status = (int)resp->status;
    api->last.retry_after_s = resp->retry_after_s;
    ccas_http_error_message (resp->body, resp->len, api->last.message, sizeof (api->last.message));
    if (!api->last.message[0])
        snprintf (api->last.message, sizeof (api->last.message), "HTTP status %ld", resp->status);
    ccas_http_response_release (resp);
    return -1;
}

static int failure_error (struct ccas_ccapi *api, const char *method, const char *path,
                          struct ccas_error *err)
{
    char name[256];
    request_name (name, sizeof (name), method, path);
    if (api->last.kind == CCAS_FAIL_HTTP)
        return ccas_errorf (err, "%s: %d: %s", name, api->last.http_status, api->last.message);
    return ccas_errorf (err, "%s: %s", name, api->last.message);
}

static int send_request (struct ccas_ccapi *api, const char *method, const char *path, const char *body,
                         enum retry_policy policy, struct ccas_http_response *resp, struct ccas_error *err)
{
    int tries = policy == RETRY_SAFE ? api->max_retries + 1 : 1;
    for (int i = 0; i < tries; i++) {
        if (i > 0) {
            count_retry (api, path);
            char name[256];
            request_name (name, sizeof (name), method, path);
            ccas_log (LOG_INFO, "%s: retrying (%d of %d) after: %s", name, i, tries - 1, api->last.message);
        }
        if (attempt (api, method, path, body, false, resp) == 0)
            return 0;
        bool again = api->last.kind == CCAS_FAIL_TRANSPORT ? !api->last.tls
                     : api->last.kind == CCAS_FAIL_HTTP    ? retryable_status (api->last.http_status)
                                                           : false;
        if (!again || i + 1 == tries || !wait_before_retry (api, i, api->last.retry_after_s))
            break;
    }
    return failure_error (api, method, path, err);
}

static json_object *parse_body (struct ccas_ccapi *api, const char *method, const char *path,
                                struct ccas_http_response *resp, struct ccas_error *err)
{
    char what[300];
    request_name (what, sizeof (what), method, path);
    json_object *j = ccas_json_parse (resp->body, resp->len, what, err);
    ccas_http_response_release (resp);
    if (!j) {
        api->last.kind = CCAS_FAIL_RESPONSE;
        snprintf (api->last.message, sizeof (api->last.message), "%s", err ? err->text : "bad JSON");
    }
    return j;
}

/* GET or POST and parse the JSON answer; a new reference in *out. */
static int request_json (struct ccas_ccapi *api, const char *method, const char *path, const char *body,
                         enum retry_policy policy, json_object **out, struct ccas_error *err)
{
    struct ccas_http_response resp = {0};
    memset (&api->last, 0, sizeof (api->last));
    api->last.retry_after_s = -1;
    if (send_request (api, method, path, body, policy, &resp, err) < 0)
        return -1;
    return (*out = parse_body (api, method, path, &resp, err)) ? 0 : -1;
}

/* ---- reads ------------------------------------------------------------------------------------ */

int ccas_ccapi_get_status (struct ccas_ccapi *api, bool with_nodes, struct ccas_status **out,
                           struct ccas_error *err)
{
    char path[512];
    json_object *root;
    snprintf (path, sizeof (path), "/clusters/%s/status%s", api->cluster, with_nodes ? "?nodes=true" : "");
    api->stats.status_reads++;
    if (request_json (api, "GET", path, NULL, RETRY_SAFE, &root, err) < 0)
        return -1;
    if (!(*out = ccas_status_from_json (root, api->cluster_name, err))) {
        api->last.kind = CCAS_FAIL_RESPONSE;
        return ccas_error_prefix (err, "GET /clusters/%s/status", api->cluster);
    }
    return 0;
}

static int nodes_path (struct ccas_ccapi *api, char *path, size_t size, const char *operation_id,
                       const char *request_id)
{
    char *q = NULL;
    if (operation_id || request_id)
        q = ccas_http_escape (api->http, operation_id ? operation_id : request_id);
    if ((operation_id || request_id) && !q)
        return -1;
    snprintf (path, size, "/clusters/%s/nodes%s%s", api->cluster,
              operation_id ? "?operation="
              : request_id ? "?request_id="
                           : "",
              q ? q : "");
    free (q);
    return 0;
}

int ccas_ccapi_get_nodes (struct ccas_ccapi *api, const char *operation_id, const char *request_id,
                          struct ccas_record_list **out, struct ccas_error *err)
{
    char path[1024];
    json_object *root;
    if (nodes_path (api, path, sizeof (path), operation_id, request_id) < 0)
        return ccas_errorf (err, "out of memory");
    api->stats.node_reads++;
    if (request_json (api, "GET", path, NULL, RETRY_SAFE, &root, err) < 0)
        return -1;
    if (!(*out = ccas_record_list_from_json (root, err))) {
        api->last.kind = CCAS_FAIL_RESPONSE;
        return ccas_error_prefix (err, "GET /clusters/%s/nodes", api->cluster);
    }
    return 0;
}

int ccas_ccapi_get_operation (struct ccas_ccapi *api, const char *operation_id, json_object **out,
                              struct ccas_error *err)
{
    char path[512];
    char *id = ccas_http_escape (api->http, operation_id);
    if (!id)
        return ccas_errorf (err, "out of memory");
    snprintf (path, sizeof (path), "/operations/%s", id);
    free (id);
    api->stats.operation_reads++;
    return request_json (api, "GET", path, NULL, RETRY_SAFE, out, err);
}

int ccas_ccapi_find_operation (struct ccas_ccapi *api, const char *request_id, json_object **out,
                               struct ccas_error *err)
{
    char path[512];
    json_object *list;
    char *id = ccas_http_escape (api->http, request_id);
    if (!id)
        return ccas_errorf (err, "out of memory");
    snprintf (path, sizeof (path), "/operations/?request_id=%s", id);
    free (id);
    api->stats.operation_reads++;
    if (request_json (api, "GET", path, NULL, RETRY_SAFE, &list, err) < 0)
        return -1;
    json_object *first = json_object_is_type (list, json_type_array) && json_object_array_length (list) > 0
                             ? json_object_array_get_idx (list, 0)
                             : NULL;
    *out = first ? json_object_get (first) : NULL;
    json_object_put (list);
    return first ? 1 : 0;
}

/* ---- create ------------------------------------------------------------------------------------ */

void ccas_ccapi_new_request_id (char *buf, size_t size)
{
    unsigned char b[16];
    if (getrandom (b, sizeof (b), 0) != (ssize_t)sizeof (b)) {
        /* getrandom only fails before the pool is ready; time and pid still differ per call */
        struct timespec ts;
        clock_gettime (CLOCK_REALTIME, &ts);
        for (size_t i = 0; i < sizeof (b); i++)
            b[i] = (unsigned char)((ts.tv_nsec >> (i % 8)) ^ (getpid () >> (i % 4)) ^ (i * 37));
    }
    b[6] = (unsigned char)((b[6] & 0x0f) | 0x40); /* version 4 */
    b[8] = (unsigned char)((b[8] & 0x3f) | 0x80); /* RFC 4122 variant */
    snprintf (buf, size, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
              b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
}

static json_object *create_body (const struct ccas_create_request *req, const char *id)
{
    json_object *body = json_object_new_object ();
    json_object *sets = json_object_new_array ();
    json_object_object_add (body, "requestId", json_object_new_string (id));
    for (size_t i = 0; i < req->nsets; i++) {
        const struct ccas_create_set *s = &req->sets[i];
        json_object *o = json_object_new_object ();
        json_object_object_add (o, "nodearray", json_object_new_string (s->nodearray));
        json_object_object_add (o, "count", json_object_new_int (s->count));
        if (s->machine_type) {
            json_object *def = json_object_new_object ();
            json_object_object_add (def, "machineType", json_object_new_string (s->machine_type));
            json_object_object_add (o, "definition", def);
        }
        if (s->placement_group)
            json_object_object_add (o, "placementGroupId", json_object_new_string (s->placement_group));
        if (s->name_format) {
            json_object_object_add (o, "nameFormat", json_object_new_string (s->name_format));
            json_object_object_add (o, "nameOffset", json_object_new_int (s->name_offset));
        }
        if (s->node_attributes)
            json_object_object_add (o, "nodeAttributes", json_object_get (s->node_attributes));
        json_object_array_add (sets, o);
    }
    json_object_object_add (body, "sets", sets);
    return body;
}

void ccas_create_result_destroy (struct ccas_create_result *res)
{
    if (!res)
        return;
    free (res->sets);
    ccas_record_list_destroy (res->nodes);
    json_object_put (res->root);
    free (res);
}

struct ccas_create_result *ccas_create_result_from_json (json_object *root, const char *id, size_t nsets,
                                                         struct ccas_error *err)
{
    struct ccas_create_result *res = calloc (1, sizeof (*res));
    if (!res || !(res->sets = calloc (nsets + 1, sizeof (*res->sets)))) {
        free (res);
        json_object_put (root);
        ccas_errorf (err, "out of memory");
        return NULL;
    }
    res->root = root;
    res->nsets = nsets;
    snprintf (res->request_id, sizeof (res->request_id), "%s", id);
    res->operation_id = ccas_json_str (root, "operationId");
    json_object *sets = ccas_json_get (root, "sets");
    /* a server that answers "sets": {} (or a string) has added nothing we can count */
    size_t nanswered = json_object_is_type (sets, json_type_array) ? json_object_array_length (sets) : 0;
    for (size_t i = 0; i < nsets; i++) {
        json_object *s = i < nanswered ? json_object_array_get_idx (sets, i) : NULL;
        res->sets[i].added = (int)ccas_json_int (s, "added", 0);
        res->sets[i].message = ccas_json_str (s, "message");
    }
    return res;
}

static bool record_in_set (const struct ccas_record *r, const struct ccas_create_set *s)
{
    if (!r->nodearray || strcmp (r->nodearray, s->nodearray) != 0)
        return false;
    if (s->machine_type && r->machine_type && strcasecmp (r->machine_type, s->machine_type) != 0)
        return false;
    if (s->placement_group &&
        (!r->placement_group_id || strcmp (r->placement_group_id, s->placement_group) != 0))
        return false;
    return ccas_record_made_with (r, s->node_attributes);
}

/* Rebuild a result from the nodes a request made, after its answer was lost. */
static struct ccas_create_result *recovered_result (const struct ccas_create_request *req, const char *id,
                                                    struct ccas_record_list *nodes, struct ccas_error *err)
{
    struct ccas_create_result *res =
        ccas_create_result_from_json (json_object_new_object (), id, req->nsets, err);
    bool *used = calloc (nodes->nnodes + 1, sizeof (*used));
    if (!res || !used) {
        free (used);
        ccas_create_result_destroy (res);
        ccas_record_list_destroy (nodes);
        ccas_errorf (err, "out of memory");
        return NULL;
    }
    /* sets with a Configuration first: a set without one would take their
     * nodes too, and two sets may share a nodearray, type and group */
    for (int round = 0; round < 2; round++)
        for (size_t i = 0; i < req->nsets; i++) {
            bool configured = ccas_json_get (req->sets[i].node_attributes, "Configuration") != NULL;
            for (size_t k = 0;
                 configured == (round == 0) && k < nodes->nnodes && res->sets[i].added < req->sets[i].count;
                 k++)
                if (!used[k] && record_in_set (&nodes->nodes[k], &req->sets[i])) {
                    used[k] = true;
                    res->sets[i].added++;
                }
        }
    free (used);
    res->recovered = true;
    res->nodes = nodes;
    res->operation_id = nodes->operation_id;
    return res;
}

/* What happened to request `id`?  1: it made nodes (*nodes set); 0: the
 * server never saw it; -1: we cannot tell (the lookup itself failed). */
static int lookup_request (struct ccas_ccapi *api, const char *id, struct ccas_record_list **nodes,
                           struct ccas_error *err)
{
    struct ccas_http_failure saved = api->last;
    int rc = ccas_ccapi_get_nodes (api, NULL, id, nodes, err);
    if (rc == 0)
        return 1;
    if (api->last.kind == CCAS_FAIL_HTTP && api->last.http_status == 404) {
        api->last = saved;
        return 0;
    }
    return -1;
}

int ccas_ccapi_create_nodes (struct ccas_ccapi *api, const struct ccas_create_request *req,
                             struct ccas_create_result **out, struct ccas_error *err)
{
    char path[512], id[64];
    struct ccas_http_response resp;
    struct ccas_record_list *made = NULL;

    if (!req->nsets)
        return ccas_errorf (err, "a create request needs at least one set");
    if (req->request_id)
        snprintf (id, sizeof (id), "%s", req->request_id);
    else
        ccas_ccapi_new_request_id (id, sizeof (id));
    snprintf (path, sizeof (path), "/clusters/%s/nodes/create", api->cluster);
    json_object *body = create_body (req, id);
    const char *text = json_object_to_json_string_ext (body, JSON_C_TO_STRING_PLAIN);
    int rc = -1;

    for (int i = 0; i <= api->max_retries; i++) {
        memset (&api->last, 0, sizeof (api->last));
        api->last.retry_after_s = -1;
        api->stats.creates++;
        if (i > 0)
            count_retry (api, path);
        ccas_failpoint ("create:before-send");
        if (attempt (api, "POST", path, text, true, &resp) == 0) {
            json_object *root = parse_body (api, "POST", path, &resp, err);
            if (root && (*out = ccas_create_result_from_json (root, id, req->nsets, err)))
                rc = 0;
            if (rc == 0)
                ccas_failpoint ("create:after-reply");
            goto done;
        }
        bool lost = api->last.kind == CCAS_FAIL_TRANSPORT || api->last.kind == CCAS_FAIL_RESPONSE ||
                    (api->last.kind == CCAS_FAIL_HTTP &&
                     (retryable_status (api->last.http_status) || api->last.http_status == 409));
        if (!lost || api->last.tls)
            break;
        struct ccas_http_failure why = api->last;
        int seen = lookup_request (api, id, &made, err);
        if (seen == 1 && made) {
            ccas_log (LOG_NOTICE,
                      "create request %s: the answer was lost (%s); recovered %zu node%s by request id", id,
                      why.message, made->nnodes, made->nnodes == 1 ? "" : "s");
            if ((*out = recovered_result (req, id, made, err)))
                rc = 0;
            goto done;
        }
        api->last = why;
        if (seen < 0) {
            ccas_errorf (err,
                         "POST /clusters/%s/nodes/create: request %s: the outcome is unknown (%s), and the"
                         " lookup by request id failed; not sending it again",
                         api->cluster, id, why.message);
            goto done;
        }
        if (why.kind == CCAS_FAIL_HTTP && why.http_status == 409)
            break; /* a 409 for a request that never happened: the input was refused */
        if (i < api->max_retries) {
            if (!wait_before_retry (api, i, why.retry_after_s))
                break;
            ccas_log (LOG_INFO, "create request %s never reached the server (%s); sending it again", id,
                      why.message);
        }
    }
    failure_error (api, "POST", path, err);
done:
    json_object_put (body);
    return rc;
}

/* ---- node actions -------------------------------------------------------------------------------- */

const char *ccas_node_action_name (enum ccas_node_action action)
{
    static const char *const names[] = {
        [CCAS_ACTION_TERMINATE] = "terminate", [CCAS_ACTION_DEALLOCATE] = "deallocate",
        [CCAS_ACTION_SHUTDOWN] = "shutdown",   [CCAS_ACTION_START] = "start",
        [CCAS_ACTION_REMOVE] = "remove",       [CCAS_ACTION_RESTART] = "restart",
        [CCAS_ACTION_REIMAGE] = "reimage",
    };
    return action <= CCAS_ACTION_REIMAGE ? names[action] : "?";
}

static void add_strings (json_object *body, const char *key, const char *const *v, size_t n)
{
    if (!n)
        return;
    json_object *arr = json_object_new_array_ext ((int)n);
    for (size_t i = 0; i < n; i++)
        json_object_array_add (arr, json_object_new_string (v[i]));
    json_object_object_add (body, key, arr);
}

void ccas_action_result_destroy (struct ccas_action_result *res)
{
    if (!res)
        return;
    free (res->nodes);
    json_object_put (res->root);
    free (res);
}

struct ccas_action_result *ccas_action_result_from_json (json_object *root, struct ccas_error *err)
{
    struct ccas_action_result *res = calloc (1, sizeof (*res));
    json_object *nodes = ccas_json_get (root, "nodes");
    size_t n = nodes && json_object_is_type (nodes, json_type_array) ? json_object_array_length (nodes) : 0;
    if (!res || !(res->nodes = calloc (n + 1, sizeof (*res->nodes)))) {
        free (res);
        json_object_put (root);
        ccas_errorf (err, "out of memory");
        return NULL;
    }
    res->root = root;
    res->operation_id = ccas_json_str (root, "operationId");
    for (size_t i = 0; i < n; i++) {
        json_object *o = json_object_array_get_idx (nodes, i);
        struct ccas_action_node *a = &res->nodes[res->nnodes++];
        a->name = ccas_json_str (o, "name");
        a->id = ccas_json_str (o, "id");
        const char *status = ccas_json_str (o, "status");
        a->ok = status && strcasecmp (status, "OK") == 0;
        a->error = ccas_json_str (o, "error");
    }
    return res;
}

int ccas_ccapi_node_action (struct ccas_ccapi *api, enum ccas_node_action action,
                            const struct ccas_node_selector *sel, const char *request_id,
                            struct ccas_action_result **out, struct ccas_error *err)
{
    char path[512];
    json_object *root = NULL;
    if (!sel || (!sel->nnames && !sel->nids && !sel->nhostnames && !sel->nip_addresses && !sel->filter))
        return ccas_errorf (err, "%s: no nodes selected; nothing sent", ccas_node_action_name (action));
    json_object *body = json_object_new_object ();
    add_strings (body, "names", sel->names, sel->nnames);
    add_strings (body, "ids", sel->ids, sel->nids);
    add_strings (body, "hostnames", sel->hostnames, sel->nhostnames);
    add_strings (body, "ip_addresses", sel->ip_addresses, sel->nip_addresses);
    if (sel->filter)
        json_object_object_add (body, "filter", json_object_new_string (sel->filter));
    if (request_id)
        json_object_object_add (body, "requestId", json_object_new_string (request_id));
    snprintf (path, sizeof (path), "/clusters/%s/nodes/%s", api->cluster, ccas_node_action_name (action));
    api->stats.actions++;
    ccas_failpoint ("action:before-send");
    /* node actions are idempotent: terminating twice terminates once */
    int rc = request_json (api, "POST", path, json_object_to_json_string_ext (body, JSON_C_TO_STRING_PLAIN),
                           RETRY_SAFE, &root, err);
    json_object_put (body);
    if (rc < 0)
        return -1;
    ccas_failpoint ("action:after-reply");
    return (*out = ccas_action_result_from_json (root, err)) ? 0 : -1;
}

/* ---- scale ----------------------------------------------------------------------------------------- */

int ccas_ccapi_scale (struct ccas_ccapi *api, const char *nodearray, bool by_cores, int64_t total,
                      struct ccas_create_result **out, struct ccas_error *err)
{
    char path[512];
    json_object *root = NULL;
    char *na = ccas_http_escape (api->http, nodearray);
    if (!na)
        return ccas_errorf (err, "out of memory");
    snprintf (path, sizeof (path), "/clusters/%s/scale/%s?%s=%lld", api->cluster, na,
              by_cores ? "totalCoreCount" : "totalNodeCount", (long long)total);
    free (na);
    api->stats.scales++;
    /* a scale to a total is idempotent, so a lost answer may be asked again */
    if (request_json (api, "POST", path, NULL, RETRY_SAFE, &root, err) < 0)
        return -1;
    json_object *sets = ccas_json_get (root, "sets");
    size_t n = sets && json_object_is_type (sets, json_type_array) ? json_object_array_length (sets) : 0;
    return (*out = ccas_create_result_from_json (root, "", n, err)) ? 0 : -1;
}

/* ---- retry ---------------------------------------------------------------------------------------- */

int ccas_ccapi_retry_failed (struct ccas_ccapi *api, struct ccas_error *err)
{
    char path[512];
    json_object *root = NULL;
    snprintf (path, sizeof (path), "/cloud/actions/retry/%s", api->cluster);
    api->stats.actions++;
    /* asked twice, Failed nodes already booting again are left as they are */
    if (request_json (api, "POST", path, NULL, RETRY_SAFE, &root, err) < 0)
        return -1;
    json_object_put (root);
    return 0;
}
