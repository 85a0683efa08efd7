/* SPDX-License-Identifier: MIT */
/* rest.c: the CycleCloud cluster API — status, nodes, create, node actions, scale, operations, retry. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "sim.h"
#include "util/json.h"

void reply_json (struct reply *r, int status, json_object *j)
{
    size_t len;
    const char *text =
        json_object_to_json_string_length (j, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &len);
    r->status = status;
    r->body = malloc (len + 1);
    if (r->body) {
        memcpy (r->body, text, len + 1);
        r->len = len;
    }
    json_object_put (j);
}

void reply_error (struct reply *r, int status, const char *exception, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start (ap, fmt);
    vsnprintf (msg, sizeof (msg), fmt, ap);
    va_end (ap);
    reply_json (r, status, sim_error_json (exception, msg));
}

const char *sim_query_value (const char *query, const char *key, char *buf, size_t size)
{
    size_t klen = strlen (key);
    for (const char *p = query; p && *p;) {
        if (strncmp (p, key, klen) == 0 && p[klen] == '=') {
            size_t n = strcspn (p + klen + 1, "&");
            if (n >= size)
                n = size - 1;
            memcpy (buf, p + klen + 1, n);
            buf[n] = '\0';
            return buf;
        }
        p = strchr (p, '&');
        if (p)
            p++;
    }
    return NULL;
}

static struct operation *add_operation (const char *action, const char *request_id)
{
    char id[64];
    if (sim.nops == sim.opcap) {
        size_t cap = sim.opcap ? sim.opcap * 2 : 64;
        struct operation *v = realloc (sim.ops, cap * sizeof (*v));
        if (!v)
            return NULL;
        sim.ops = v;
        sim.opcap = cap;
    }
    sim_new_id (id, sizeof (id));
    struct operation *op = &sim.ops[sim.nops++];
    op->id = strdup (id);
    op->action = strdup (action);
    op->request_id = request_id ? strdup (request_id) : NULL;
    op->start = sim_now ();
    sim.dirty = true;
    return op;
}

static struct operation *find_operation (const char *id, const char *request_id)
{
    for (size_t i = 0; i < sim.nops; i++)
        if ((id && strcmp (sim.ops[i].id, id) == 0) ||
            (request_id && sim.ops[i].request_id && strcmp (sim.ops[i].request_id, request_id) == 0))
            return &sim.ops[i];
    return NULL;
}

static json_object *operation_json (const struct operation *op)
{
    char when[64];
    time_t t = (time_t)op->start;
    struct tm tm;
    gmtime_r (&t, &tm);
    strftime (when, sizeof (when), "%Y-%m-%dT%H:%M:%SZ", &tm);
    /* OperationStatus as documented: action and startTime, nothing more (no
     * id, no progress: progress is read from the operation's nodes) */
    json_object *o = json_object_new_object ();
    json_object_object_add (o, "action", json_object_new_string (op->action));
    json_object_object_add (o, "startTime", json_object_new_string (when));
    return o;
}

/* ---- reads ------------------------------------------------------------------------------------- */

static void get_nodes (const char *query, struct reply *r)
{
    char opid[128], rid[128];
    const char *op_id = sim_query_value (query, "operation", opid, sizeof (opid));
    const char *req_id = sim_query_value (query, "request_id", rid, sizeof (rid));
    struct operation *op = NULL;
    if (op_id || req_id) {
        op = find_operation (op_id, req_id);
        if (!op) {
            if (req_id)
                reply_error (r, 404, "NotFound", "No operation found for request id %s", req_id);
            else
                reply_error (r, 404, "NotFound", "No operation found with id %s", op_id);
            return;
        }
    }
    json_object *o = json_object_new_object ();
    json_object *arr = json_object_new_array ();
    for (size_t i = 0; i < sim.nnodes; i++) {
        const struct sim_node *n = sim.nodes[i];
        if (n->removed || (op && (!n->operation_id || strcmp (n->operation_id, op->id) != 0)))
            continue;
        json_object_array_add (arr, sim_node_json (n));
    }
    json_object_object_add (o, "nodes", arr);
    if (op)
        json_object_object_add (o, "operation", operation_json (op));
    reply_json (r, 200, o);
}

/* ---- create ------------------------------------------------------------------------------------- */

static bool expand_name (const char *fmt, long index, char *buf, size_t size)
{
    const char *pct = strstr (fmt, "%d");
    if (!pct) {
        snprintf (buf, size, "%s", fmt);
        return false; /* a literal name */
    }
    snprintf (buf, size, "%.*s%ld%s", (int)(pct - fmt), fmt, index, pct + 2);
    return true;
}

static void auto_name (const struct sim_bucket *b, char *buf, size_t size)
{
    for (long i = 1;; i++) {
        snprintf (buf, size, "%s-%ld", b->na->name, i);
        if (!sim_node_find (buf))
            return;
    }
}

struct set_in {
    struct sim_bucket *bucket; /* NULL: no machine type named; chosen when the set is made */
    const char *nodearray;
    long count, offset;
    const char *format, *pg;
    json_object *attrs;
};

static int parse_set (json_object *s, size_t i, struct set_in *in, char *err, size_t errsize)
{
    const char *na = ccas_json_str (s, "nodearray");
    json_object *count = ccas_json_get (s, "count");
    if (!na) {
        snprintf (err, errsize, "sets[%zu].nodearray: missing", i);
        return -1;
    }
    if (!sim_nodearray_find (na)) {
        snprintf (err, errsize, "sets[%zu].nodearray: cluster %s has no nodearray '%s'", i, sim.cluster_name,
                  na);
        return -1;
    }
    if (!count || !json_object_is_type (count, json_type_int) || json_object_get_int64 (count) < 0) {
        snprintf (err, errsize, "sets[%zu].count: expected a non-negative integer", i);
        return -1;
    }
    const char *mt = ccas_json_str (ccas_json_get (s, "definition"), "machineType");
    in->nodearray = na;
    in->bucket = mt ? sim_bucket_find (na, mt) : NULL;
    if (mt ? !in->bucket : !sim_bucket_find (na, NULL)) {
        if (mt)
            snprintf (err, errsize,
                      "sets[%zu].definition.machineType: '%s' is not a machine type of nodearray '%s'", i, mt,
                      na);
        else
            snprintf (err, errsize, "sets[%zu].nodearray: '%s' has no valid bucket", i, na);
        return -1;
    }
    in->count = json_object_get_int64 (count);
    in->format = ccas_json_str (s, "nameFormat");
    in->offset = ccas_json_int (s, "nameOffset", 1);
    in->pg = ccas_json_str (s, "placementGroupId");
    in->attrs = ccas_json_get (s, "nodeAttributes");
    return 0;
}

/* Add what fits of one set, their names to `made`; returns how many were
 * added and why not all. */
static long create_set (const struct set_in *in, struct operation *op, const char *request_id,
                        json_object *made, char *msg, size_t msgsize)
{
    /* no machine type: "the first bucket that matches the given items is used" */
    struct sim_bucket *b = in->bucket ? in->bucket : sim_bucket_first_fit (in->nodearray, in->count);
    long added = 0;
    msg[0] = '\0';
    if (in->count > 0 && sim_fault_capacity (b->machine_type)) {
        b->last_capacity_failure = sim_now ();
        snprintf (msg, msgsize,
                  "Allocation failed: OverconstrainedAllocationRequest: insufficient capacity for %s in"
                  " this region (ccsim)",
                  b->machine_type);
        return 0;
    }
    for (long i = 0; i < in->count; i++) {
        char name[256], why[256];
        int64_t avail = sim_bucket_available (b, why, sizeof (why));
        if (avail < 1) {
            snprintf (msg, msgsize, "%ld of %ld nodes added: %s", added, in->count, why);
            break;
        }
        if (in->pg && b->max_pg_size >= 0 && sim_pg_active (b, in->pg) >= b->max_pg_size) {
            snprintf (msg, msgsize,
                      "%ld of %ld nodes added: placement group %s limit reached (maxPlacementGroupSize %lld)",
                      added, in->count, in->pg, (long long)b->max_pg_size);
            break;
        }
        if (in->pg && b->max_pg_core_size >= 0 &&
            (sim_pg_active (b, in->pg) + 1) * b->vcpu > b->max_pg_core_size) {
            snprintf (
                msg, msgsize,
                "%ld of %ld nodes added: placement group %s limit reached (maxPlacementGroupCoreSize %lld)",
                added, in->count, in->pg, (long long)b->max_pg_core_size);
            break;
        }
        if (in->format) {
            bool pattern = expand_name (in->format, in->offset + i, name, sizeof (name));
            if (!pattern && in->count > 1) {
                snprintf (msg, msgsize, "nameFormat '%s' has no %%d for %ld nodes", in->format, in->count);
                break;
            }
        } else
            auto_name (b, name, sizeof (name));
        if (sim_node_find (name)) {
            snprintf (msg, msgsize, "node %s already exists", name);
            continue;
        }
        struct sim_node *n = sim_node_add (b, name, in->pg, in->attrs);
        if (!n)
            break;
        n->operation_id = strdup (op->id);
        n->request_id = request_id ? strdup (request_id) : NULL;
        bool hang = false;
        if (sim_fault_boot (b, &hang)) {
            n->hang = hang;
            n->fail_on_boot = !hang;
        }
        json_object_array_add (made, json_object_new_string (name));
        added++;
    }
    return added;
}

/* The sets of a create as the client asked, for the request log. */
static json_object *asked (json_object *sets)
{
    json_object *out = json_object_new_array ();
    for (size_t i = 0; i < json_object_array_length (sets); i++) {
        json_object *s = json_object_array_get_idx (sets, i), *o = json_object_new_object ();
        const char *na = ccas_json_str (s, "nodearray");
        const char *mt = ccas_json_str (ccas_json_get (s, "definition"), "machineType");
        const char *pg = ccas_json_str (s, "placementGroupId");
        json_object *attrs = ccas_json_get (s, "nodeAttributes");
        json_object_object_add (o, "nodearray", na ? json_object_new_string (na) : NULL);
        json_object_object_add (o, "machine_type", mt ? json_object_new_string (mt) : NULL);
        json_object_object_add (o, "count", json_object_get (ccas_json_get (s, "count")));
        json_object_object_add (o, "placement_group", pg ? json_object_new_string (pg) : NULL);
        json_object_object_add (o, "node_attributes", json_object_get (attrs));
        json_object_array_add (out, o);
    }
    return out;
}

static void create (const char *body, struct reply *r)
{
    char err[512];
    json_object *req = body ? json_tokener_parse (body) : NULL;
    json_object *sets = ccas_json_get (req, "sets");
    if (!req || !json_object_is_type (req, json_type_object)) {
        reply_error (r, 400, "BadRequest", "the body is not a JSON object");
        goto done;
    }
    if (!sets || !json_object_is_type (sets, json_type_array)) {
        reply_error (r, 409, "InvalidInput", "sets: expected an array");
        goto done;
    }
    const char *request_id = ccas_json_str (req, "requestId");
    if (request_id && find_operation (NULL, request_id)) {
        reply_error (r, 409, "Conflict", "request id %s has already been used", request_id);
        goto done;
    }
    char closed[300];
    if (sim_cluster_closed (closed, sizeof (closed))) {
        reply_error (r, 400, "BadRequest", "%s: nodes cannot be created", closed);
        goto done;
    }
    size_t n = json_object_array_length (sets);
    r->sets = asked (sets);
    struct set_in *in = calloc (n + 1, sizeof (*in));
    for (size_t i = 0; in && i < n; i++)
        if (parse_set (json_object_array_get_idx (sets, i), i, &in[i], err, sizeof (err)) < 0) {
            reply_error (r, 409, "InvalidInput", "%s", err);
            free (in);
            goto done;
        }
    struct operation *op = add_operation ("create", request_id);
    json_object *out = json_object_new_object ();
    r->nodes = json_object_new_array ();
    json_object *results = json_object_new_array ();
    for (size_t i = 0; in && op && i < n; i++) {
        char msg[512];
        long added = create_set (&in[i], op, request_id, r->nodes, msg, sizeof (msg));
        json_object *res = json_object_new_object ();
        json_object_object_add (res, "added", json_object_new_int64 (added));
        if (added < in[i].count && msg[0])
            json_object_object_add (res, "message", json_object_new_string (msg));
        json_object_array_add (results, res);
    }
    free (in);
    json_object_object_add (out, "operationId", json_object_new_string (op ? op->id : ""));
    json_object_object_add (out, "sets", results);
    if (op)
        snprintf (r->location, sizeof (r->location), "/operations/%s", op->id);
    reply_json (r, 202, out);
done:
    json_object_put (req);
}

/* ---- node actions -------------------------------------------------------------------------------- */

static bool collect (json_object *req, const char *key, struct sim_node **found, size_t *n, size_t cap)
{
    json_object *arr = ccas_json_get (req, key);
    if (!arr)
        return false;
    for (size_t i = 0; i < json_object_array_length (arr); i++) {
        const char *v = json_object_get_string (json_object_array_get_idx (arr, i));
        struct sim_node *node = v ? sim_node_find_any (v) : NULL;
        if (node && !node->mark && *n < cap) {
            node->mark = true;
            found[(*n)++] = node;
        }
    }
    return true;
}

static const char *act (const char *action, struct sim_node *n)
{
    if (strcmp (action, "terminate") == 0)
        sim_node_terminate (n);
    else if (strcmp (action, "deallocate") == 0)
        sim_node_deallocate (n);
    else if (strcmp (action, "start") == 0)
        sim_node_start (n);
    else if (strcmp (action, "shutdown") == 0) {
        const char *policy = n->shutdown_policy ? n->shutdown_policy : n->bucket->na->shutdown_policy;
        if (policy && strcasecmp (policy, "Deallocate") == 0)
            sim_node_deallocate (n);
        else
            sim_node_terminate (n);
    } else if (strcmp (action, "remove") == 0) {
        if (n->phase != PH_TERMINATED && n->phase != PH_OFF && n->phase != PH_DEALLOCATED)
            return "the node is still running; terminate it first";
        n->removed = true;
        sim.dirty = true;
    } else if (strcmp (action, "restart") == 0 || strcmp (action, "reimage") == 0) {
        n->phase = PH_PREPARING;
        n->next = sim_now () + sim.boot_delay / 2;
        sim.dirty = true;
    }
    return NULL;
}

static void node_action (const char *action, const char *body, struct reply *r)
{
    json_object *req = body ? json_tokener_parse (body) : NULL;
    if (!req || !json_object_is_type (req, json_type_object)) {
        reply_error (r, 400, "BadRequest", "the body is not a JSON object");
        json_object_put (req);
        return;
    }
    if (ccas_json_get (req, "filter")) {
        reply_error (r, 400, "BadRequest",
                     "filter expressions are not supported by ccsim; use names, ids, hostnames"
                     " or ip_addresses");
        json_object_put (req);
        return;
    }
    char closed[300];
    if (strcmp (action, "start") == 0 && sim_cluster_closed (closed, sizeof (closed))) {
        reply_error (r, 400, "BadRequest", "%s: nodes cannot be started", closed);
        json_object_put (req);
        return;
    }
    struct sim_node **found = calloc (sim.nnodes + 1, sizeof (*found));
    size_t n = 0;
    bool any = false;
    any |= collect (req, "names", found, &n, sim.nnodes);
    any |= collect (req, "ids", found, &n, sim.nnodes);
    any |= collect (req, "hostnames", found, &n, sim.nnodes);
    any |= collect (req, "ip_addresses", found, &n, sim.nnodes);
    for (size_t i = 0; i < n; i++)
        found[i]->mark = false;
    if (!any) {
        reply_error (r, 409, "InvalidInput", "name nodes by names, ids, hostnames or ip_addresses");
        free (found);
        json_object_put (req);
        return;
    }
    struct operation *op = add_operation (action, ccas_json_str (req, "requestId"));
    json_object *out = json_object_new_object ();
    json_object *arr = json_object_new_array ();
    r->nodes = json_object_new_array ();
    for (size_t i = 0; i < n; i++) {
        json_object *o = json_object_new_object ();
        json_object_object_add (o, "name", json_object_new_string (found[i]->name));
        json_object_object_add (o, "id", json_object_new_string (found[i]->id));
        const char *error = act (action, found[i]);
        json_object_object_add (o, "status", json_object_new_string (error ? "Error" : "OK"));
        if (error)
            json_object_object_add (o, "error", json_object_new_string (error));
        else
            json_object_array_add (r->nodes, json_object_new_string (found[i]->name));
        json_object_array_add (arr, o);
    }
    json_object_object_add (out, "operationId", json_object_new_string (op ? op->id : ""));
    json_object_object_add (out, "nodes", arr);
    reply_json (r, 202, out);
    free (found);
    json_object_put (req);
}

/* ---- scale ---------------------------------------------------------------------------------------- */

static void scale (const char *nodearray, const char *query, struct reply *r)
{
    char buf[64];
    const char *nodes = sim_query_value (query, "totalNodeCount", buf, sizeof (buf));
    const char *cores = nodes ? NULL : sim_query_value (query, "totalCoreCount", buf, sizeof (buf));
    struct sim_bucket *b = sim_nodearray_find (nodearray) ? sim_bucket_find (nodearray, NULL) : NULL;
    if (!b) {
        reply_error (r, 404, "NotFound", "cluster %s has no nodearray '%s' with a valid bucket",
                     sim.cluster_name, nodearray);
        return;
    }
    if (!nodes && !cores) {
        reply_error (r, 400, "BadRequest", "give totalNodeCount or totalCoreCount");
        return;
    }
    long target = atol (nodes ? nodes : cores);
    long have = 0, have_cores = 0;
    for (size_t i = 0; i < sim.nnodes; i++)
        if (sim.nodes[i]->bucket->na == b->na && sim_node_active (sim.nodes[i])) {
            have++;
            have_cores += sim.nodes[i]->bucket->vcpu;
        }
    long need = nodes ? target - have : (target - have_cores + b->vcpu - 1) / b->vcpu;
    struct operation *op = add_operation ("create", NULL);
    struct set_in in = {.bucket = sim_bucket_first_fit (nodearray, need > 0 ? need : 0),
                        .count = need > 0 ? need : 0};
    char msg[512];
    r->nodes = json_object_new_array ();
    long added = op ? create_set (&in, op, NULL, r->nodes, msg, sizeof (msg)) : 0;
    json_object *out = json_object_new_object ();
    json_object *sets = json_object_new_array ();
    json_object *res = json_object_new_object ();
    json_object_object_add (res, "added", json_object_new_int64 (added));
    if (added < in.count)
        json_object_object_add (res, "message", json_object_new_string (msg));
    json_object_array_add (sets, res);
    json_object_object_add (out, "operationId", json_object_new_string (op ? op->id : ""));
    json_object_object_add (out, "sets", sets);
    reply_json (r, 202, out);
}

/* ---- routing -------------------------------------------------------------------------------------- */

static void operations (const char *method, const char *rest, const char *query, struct reply *r)
{
    char rid[128];
    if (strcmp (method, "GET") != 0) {
        reply_error (r, 405, "MethodNotAllowed", "%s is not allowed here", method);
        return;
    }
    if (*rest == '\0') {
        const char *req_id = sim_query_value (query, "request_id", rid, sizeof (rid));
        json_object *arr = json_object_new_array ();
        struct operation *op = req_id ? find_operation (NULL, req_id) : NULL;
        if (op)
            json_object_array_add (arr, operation_json (op));
        reply_json (r, 200, arr);
        return;
    }
    struct operation *op = find_operation (rest, NULL);
    if (!op)
        reply_error (r, 404, "NotFound", "no operation %s", rest);
    else
        reply_json (r, 200, operation_json (op));
}

/* POST /cloud/actions/retry/{cluster}: CycleCloud's retry of the cluster's
 * Failed nodes (scalelib's retry_failed_nodes): each boots again, the fault
 * that failed it spent; no selection, an empty object in the answer. */
static void retry_failed (const char *method, const char *cluster, struct reply *r)
{
    if (strcmp (method, "POST") != 0) {
        reply_error (r, 405, "MethodNotAllowed", "%s is not allowed here", method);
        return;
    }
    if (strcmp (cluster, sim.cluster_name) != 0) {
        reply_error (r, 404, "NotFound", "no cluster named %s", cluster);
        return;
    }
    r->nodes = json_object_new_array ();
    for (size_t i = 0; i < sim.nnodes; i++)
        if (!sim.nodes[i]->removed && sim.nodes[i]->phase == PH_FAILED) {
            sim.nodes[i]->fail_on_boot = false;
            sim.nodes[i]->hang = false;
            sim_node_start (sim.nodes[i]);
            json_object_array_add (r->nodes, json_object_new_string (sim.nodes[i]->name));
        }
    reply_json (r, 200, json_object_new_object ());
}

void sim_rest (const char *method, const char *url, const char *query, const char *body, struct reply *r)
{
    char cluster[256], what[64], action[64];
    bool get = strcmp (method, "GET") == 0, post = strcmp (method, "POST") == 0;
    if (strncmp (url, "/operations/", 12) == 0) {
        operations (method, url + 12, query, r);
        return;
    }
    if (strncmp (url, "/cloud/actions/retry/", 21) == 0) {
        retry_failed (method, url + 21, r);
        return;
    }
    if (sscanf (url, "/clusters/%255[^/]/%63[^/]/%63s", cluster, what, action) < 2) {
        reply_error (r, 404, "NotFound", "no such resource: %s", url);
        return;
    }
    if (strcmp (cluster, sim.cluster_name) != 0) {
        reply_error (r, 404, "NotFound", "no cluster named %s", cluster);
        return;
    }
    int parts = sscanf (url, "/clusters/%255[^/]/%63[^/]/%63s", cluster, what, action);
    if (strcmp (what, "status") == 0 && parts == 2) {
        char v[16];
        const char *nodes = sim_query_value (query, "nodes", v, sizeof (v));
        if (!get)
            reply_error (r, 405, "MethodNotAllowed", "%s is not allowed here", method);
        else
            reply_json (r, 200, sim_status_json (nodes && strcmp (nodes, "true") == 0));
    } else if (strcmp (what, "nodes") == 0 && parts == 2) {
        if (!get)
            reply_error (r, 405, "MethodNotAllowed", "%s is not allowed here", method);
        else
            get_nodes (query, r);
    } else if (strcmp (what, "nodes") == 0 && parts == 3) {
        static const char *const actions[] = {"terminate", "deallocate", "shutdown", "start",
                                              "remove",    "restart",    "reimage"};
        bool known = strcmp (action, "create") == 0;
        for (size_t i = 0; i < sizeof (actions) / sizeof (actions[0]); i++)
            known = known || strcmp (action, actions[i]) == 0;
        if (!known)
            reply_error (r, 404, "NotFound", "no such node action: %s", action);
        else if (!post)
            reply_error (r, 405, "MethodNotAllowed", "%s is not allowed here", method);
        else if (strcmp (action, "create") == 0)
            create (body, r);
        else
            node_action (action, body, r);
    } else if (strcmp (what, "scale") == 0 && parts == 3) {
        if (!post)
            reply_error (r, 405, "MethodNotAllowed", "%s is not allowed here", method);
        else
            scale (action, query, r);
    } else
        reply_error (r, 404, "NotFound", "no such resource: %s", url);
}
