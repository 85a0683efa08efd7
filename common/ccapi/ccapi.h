/* SPDX-License-Identifier: MIT */
/* ccapi.h: the CycleCloud cluster REST client (libcurl + json-c).
 *
 * One struct ccas_ccapi talks to one cluster on one server.  Each call is one
 * logical request; the client retries what is safe to retry:
 *   - reads (GET) on transport errors and on 429/500/502/503/504, with
 *     exponential backoff and jitter, honouring Retry-After;
 *   - node actions (terminate, start, ...) likewise: they are idempotent;
 *   - a create is sent only with a requestId (the client makes one if the
 *     caller gives none).  After a transport error or 5xx/429 the client asks
 *     GET /clusters/{c}/nodes?request_id=ID: 404 means the create never
 *     happened and it is sent again with the same id; 200 means it happened,
 *     and the result is rebuilt from that answer (`recovered` is set).  A 409
 *     for a reused id is resolved the same way.
 * Response bodies larger than `max_response_bytes` are refused.  Every error
 * names the request ("GET /clusters/hpc/status: 503: <server Message>") and
 * never contains the password.
 *
 * Typed results own the parsed JSON document; their string fields are borrowed
 * from it and live until the result is destroyed.  `raw` members are borrowed
 * views of the record they were read from, so open fields stay reachable.
 */
#ifndef CCAS_CCAPI_H
#define CCAS_CCAPI_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ccapi/http.h"
#include "ccapi/record.h"
#include "ccapi/status.h"
#include "util/error.h"

struct ccas_ccapi;

struct ccas_ccapi_opts {
    const char *url;           /* server root, e.g. https://cc.example.com (borrowed) */
    const char *username;      /* borrowed */
    const char *password;      /* borrowed; the client keeps its own copy and burns it */
    const char *cluster;       /* cluster name; URL-encoded by the client */
    bool verify_certificates;  /* false only when the configuration says so */
    const char *ca_file;       /* PEM bundle for a private CA, or NULL */
    long connect_timeout_ms;   /* 0 = 10 s */
    long request_timeout_ms;   /* total per attempt; 0 = 60 s */
    int max_retries;           /* further attempts after the first; <0 = 4 */
    long backoff_initial_ms;   /* 0 = 250 ms; doubles, with jitter */
    long backoff_max_ms;       /* 0 = 10 s */
    long retry_after_max_ms;   /* a Retry-After up to this is waited in full; a longer
                                * one is not retried (0 = 30 s) */
    size_t max_response_bytes; /* 0 = 256 MiB */
};

/* Counters since creation (for benchmarks, metrics and tests). */
/* REST endpoints, for per-endpoint counts (metrics). */
enum ccas_endpoint {
    CCAS_EP_STATUS,
    CCAS_EP_NODES,
    CCAS_EP_CREATE,
    CCAS_EP_ACTION,
    CCAS_EP_SCALE,
    CCAS_EP_OPERATION,
    CCAS_EP_OTHER,
    CCAS_EP_COUNT
};

/* "status", "nodes", "create", "action", "scale", "operation", "other" (static). */
const char *ccas_endpoint_name (enum ccas_endpoint e);

struct ccas_ccapi_stats {
    unsigned requests;                         /* HTTP requests sent, retries included */
    unsigned retries;                          /* of which were retries */
    unsigned endpoint_requests[CCAS_EP_COUNT]; /* requests by endpoint */
    unsigned endpoint_retries[CCAS_EP_COUNT];  /* retries by endpoint */
    unsigned status_reads, node_reads, creates, actions, scales, operation_reads;
    double seconds; /* wall time spent in HTTP */
};

/* Returns a client (caller frees with ccas_ccapi_destroy()), or NULL with `err`.
 * Nothing is sent until the first call. */
struct ccas_ccapi *ccas_ccapi_create (const struct ccas_ccapi_opts *opts, struct ccas_error *err);
void ccas_ccapi_destroy (struct ccas_ccapi *api);

/* Borrowed; valid while `api` lives.  Reset by each call. */
const struct ccas_http_failure *ccas_ccapi_last_failure (const struct ccas_ccapi *api);
const struct ccas_ccapi_stats *ccas_ccapi_stats (const struct ccas_ccapi *api);

/* Add the requests and retries in `st` to the ccautoscale_requests_total and
 * ccautoscale_retries_total counters (util/metrics.h), by endpoint. */
void ccas_ccapi_stats_to_metrics (const struct ccas_ccapi_stats *st);

/* ---- reads --------------------------------------------------------------- */

/* GET /clusters/{c}/status[?nodes=true].  Caller frees the result. */
int ccas_ccapi_get_status (struct ccas_ccapi *api, bool with_nodes, struct ccas_status **out,
                           struct ccas_error *err);

/* GET /clusters/{c}/nodes, optionally filtered by operation id or request id
 * (at most one of them non-NULL).  A request id the server does not know is
 * an error with last_failure()->http_status 404.  Caller frees the result. */
int ccas_ccapi_get_nodes (struct ccas_ccapi *api, const char *operation_id, const char *request_id,
                          struct ccas_record_list **out, struct ccas_error *err);

/* GET /operations/{id}.  Returns a new json-c reference (caller puts it). */
int ccas_ccapi_get_operation (struct ccas_ccapi *api, const char *operation_id, json_object **out,
                              struct ccas_error *err);

/* GET /operations/?request_id=ID: 1 and *out set (new reference) if found,
 * 0 if not, -1 on error. */
int ccas_ccapi_find_operation (struct ccas_ccapi *api, const char *request_id, json_object **out,
                               struct ccas_error *err);

/* ---- create -------------------------------------------------------------- */

struct ccas_create_set {
    const char *nodearray;        /* required */
    const char *machine_type;     /* definition.machineType, or NULL for the first valid bucket */
    const char *placement_group;  /* placementGroupId, or NULL */
    int count;                    /* > 0 */
    const char *name_format;      /* e.g. "hpc-%d", or NULL to let the server name nodes */
    int name_offset;              /* with name_format */
    json_object *node_attributes; /* borrowed, or NULL (e.g. {"KeepAlive": true}) */
};

struct ccas_create_request {
    const char *request_id; /* NULL: the client makes a UUID */
    const struct ccas_create_set *sets;
    size_t nsets;
};

struct ccas_create_set_result {
    int added;
    const char *message; /* why fewer than count, or NULL */
};

struct ccas_create_result {
    const char *operation_id;            /* may be NULL when recovered from a lookup */
    char request_id[64];                 /* the id actually sent */
    struct ccas_create_set_result *sets; /* one per request set, in order */
    size_t nsets;
    bool recovered;                 /* learned from a request_id lookup after an error */
    struct ccas_record_list *nodes; /* when recovered: the nodes the request made; else NULL */
    json_object *root;              /* owned */
};

/* The id the client would send, generated now (a random UUID), written to `buf`
 * (at least 37 bytes).  Callers that must record the id before sending get it
 * here and pass it in the request. */
void ccas_ccapi_new_request_id (char *buf, size_t size);

/* POST /clusters/{c}/nodes/create.  Partial success (added < count) is not an
 * error.  Caller frees the result with ccas_create_result_destroy(). */
int ccas_ccapi_create_nodes (struct ccas_ccapi *api, const struct ccas_create_request *req,
                             struct ccas_create_result **out, struct ccas_error *err);
void ccas_create_result_destroy (struct ccas_create_result *res);

/* Parse a create or scale answer, {"operationId", "sets": [{"added",
 * "message"}]}, for a request of `nsets` sets sent with `request_id`.  Takes
 * ownership of `root`; missing or mistyped members read as 0 / NULL. */
struct ccas_create_result *ccas_create_result_from_json (json_object *root, const char *request_id,
                                                         size_t nsets, struct ccas_error *err);

/* ---- node actions -------------------------------------------------------- */

enum ccas_node_action {
    CCAS_ACTION_TERMINATE,
    CCAS_ACTION_DEALLOCATE,
    CCAS_ACTION_SHUTDOWN,
    CCAS_ACTION_START,
    CCAS_ACTION_REMOVE,
    CCAS_ACTION_RESTART,
    CCAS_ACTION_REIMAGE,
};

/* "terminate", "deallocate", ... */
const char *ccas_node_action_name (enum ccas_node_action action);

/* Which nodes: any non-empty combination (the server takes the union). */
struct ccas_node_selector {
    const char *const *names;
    size_t nnames;
    const char *const *ids;
    size_t nids;
    const char *const *hostnames;
    size_t nhostnames;
    const char *const *ip_addresses;
    size_t nip_addresses;
    const char *filter; /* or NULL */
};

struct ccas_action_node {
    const char *name;
    const char *id;
    bool ok;           /* status "OK" */
    const char *error; /* when !ok, or NULL */
};

struct ccas_action_result {
    const char *operation_id;
    struct ccas_action_node *nodes; /* nodes the server acted on; unknown ones are absent */
    size_t nnodes;
    json_object *root; /* owned */
};

/* POST /clusters/{c}/nodes/<action>.  An empty selector is an error (nothing
 * is sent).  Caller frees the result with ccas_action_result_destroy(). */
int ccas_ccapi_node_action (struct ccas_ccapi *api, enum ccas_node_action action,
                            const struct ccas_node_selector *sel, const char *request_id,
                            struct ccas_action_result **out, struct ccas_error *err);
void ccas_action_result_destroy (struct ccas_action_result *res);

/* Parse a node action answer, {"operationId", "nodes": [{"name", "id",
 * "status", "error"}]}.  Takes ownership of `root`. */
struct ccas_action_result *ccas_action_result_from_json (json_object *root, struct ccas_error *err);

/* ---- scale ----------------------------------------------------------------- */

/* POST /clusters/{c}/scale/{nodearray}?totalNodeCount=N (by_cores false) or
 * ?totalCoreCount=N.  Grows only.  Caller frees the result (sets may be empty). */
int ccas_ccapi_scale (struct ccas_ccapi *api, const char *nodearray, bool by_cores, int64_t total,
                      struct ccas_create_result **out, struct ccas_error *err);

/* ---- retry ---------------------------------------------------------------- */

/* POST /cloud/actions/retry/{c}: CycleCloud boots the cluster's Failed nodes
 * again (their cluster-init runs again), as azpbs's retry_failed_nodes did.
 * The answer carries nothing ccautoscale reads. */
int ccas_ccapi_retry_failed (struct ccas_ccapi *api, struct ccas_error *err);

#endif /* !CCAS_CCAPI_H */
