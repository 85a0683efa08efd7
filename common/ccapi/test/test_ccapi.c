/* SPDX-License-Identifier: MIT */
/* test_ccapi.c: every endpoint of the REST client against a real ccsim over
 * HTTP — status, nodes and its filters, create (names, partial results, the
 * request id as idempotency token), each node action, scale, operations. */
#include "config.h"

#include <setjmp.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "ccapi/ccapi.h"
#include "ccapi/http.h"
#include "tests/ccsim/sim_process.h"
#include "util/json.h"

struct sim {
    struct sim_process proc;
    struct ccas_ccapi *api;
};

static int start_ccsim (void **state)
{
    struct sim *s = calloc (1, sizeof (*s));
    struct ccas_error err = {""};
    if (!s || sim_process_start (&s->proc, "ccapi", CCSIM_CLUSTERS_DIR "/small.json") < 0) {
        free (s);
        return -1;
    }
    struct ccas_ccapi_opts opts = {.url = s->proc.url,
                                   .username = "u",
                                   .password = "p",
                                   .cluster = "test",
                                   .verify_certificates = true,
                                   .max_retries = 1};
    if (!(s->api = ccas_ccapi_create (&opts, &err))) {
        sim_process_stop (&s->proc, NULL);
        free (s);
        return -1;
    }
    *state = s;
    return 0;
}

static int stop_ccsim (void **state)
{
    struct sim *s = *state;
    ccas_ccapi_destroy (s->api);
    sim_process_stop (&s->proc, NULL);
    free (s);
    return 0;
}

static const struct ccas_record *find (const struct ccas_record_list *l, const char *name)
{
    for (size_t i = 0; i < l->nnodes; i++)
        if (strcmp (l->nodes[i].name, name) == 0)
            return &l->nodes[i];
    return NULL;
}

/* The node's Status now, or NULL when the server no longer lists it. */
static const char *status_of (struct sim *s, const char *name, char *buf, size_t size)
{
    struct ccas_record_list *l = NULL;
    struct ccas_error err = {""};
    assert_int_equal (ccas_ccapi_get_nodes (s->api, NULL, NULL, &l, &err), 0);
    const struct ccas_record *n = find (l, name);
    if (n)
        snprintf (buf, size, "%s", n->status ? n->status : "");
    ccas_record_list_destroy (l);
    return n ? buf : NULL;
}

/* Wait (up to 5 s) until the node's status is `want`; transitions such as
 * Deallocating take the simulator a moment. */
static void wait_status (struct sim *s, const char *name, const char *want)
{
    char buf[32];
    const char *now = NULL;
    for (int i = 0; i < 250; i++) {
        now = status_of (s, name, buf, sizeof (buf));
        if (now && strcmp (now, want) == 0)
            return;
        usleep (20000);
    }
    fail_msg ("%s: status '%s', want '%s'", name, now ? now : "(gone)", want);
}

static void test_status (void **state)
{
    struct sim *s = *state;
    struct ccas_status *st = NULL;
    struct ccas_error err = {""};
    assert_int_equal (ccas_ccapi_get_status (s->api, false, &st, &err), 0);
    assert_int_equal (st->nnodearrays, 3);
    assert_null (st->nodes);
    ccas_status_destroy (st);
    assert_int_equal (ccas_ccapi_get_status (s->api, true, &st, &err), 0);
    assert_int_equal (st->nnodes, 0); /* nodes=true: the list is there, empty */
    ccas_status_destroy (st);
}

/* Create with a name format; the same request id again makes nothing new;
 * the request id, the operation id and the operations endpoints all find it. */
static void test_create_and_operations (void **state)
{
    struct sim *s = *state;
    struct ccas_error err = {""};
    char id[64];
    ccas_ccapi_new_request_id (id, sizeof (id));
    struct ccas_create_set set = {.nodearray = "htc",
                                  .machine_type = "Standard_F2s_v2",
                                  .count = 2,
                                  .name_format = "htc-%d",
                                  .name_offset = 10};
    struct ccas_create_request req = {id, &set, 1};
    struct ccas_create_result *res = NULL;
    assert_int_equal (ccas_ccapi_create_nodes (s->api, &req, &res, &err), 0);
    assert_int_equal (res->nsets, 1);
    assert_int_equal (res->sets[0].added, 2);
    assert_non_null (res->operation_id);
    assert_string_equal (res->request_id, id);
    char op[64];
    snprintf (op, sizeof (op), "%s", res->operation_id);
    ccas_create_result_destroy (res);

    struct ccas_record_list *l = NULL;
    assert_int_equal (ccas_ccapi_get_nodes (s->api, op, NULL, &l, &err), 0);
    assert_int_equal (l->nnodes, 2);
    assert_non_null (find (l, "htc-10"));
    assert_non_null (find (l, "htc-11"));
    ccas_record_list_destroy (l);
    assert_int_equal (ccas_ccapi_get_nodes (s->api, NULL, id, &l, &err), 0);
    assert_int_equal (l->nnodes, 2);
    ccas_record_list_destroy (l);

    /* the same id again: the server says 409, the client finds what it made */
    assert_int_equal (ccas_ccapi_create_nodes (s->api, &req, &res, &err), 0);
    assert_true (res->recovered);
    assert_int_equal (res->sets[0].added, 2);
    ccas_create_result_destroy (res);
    assert_int_equal (ccas_ccapi_get_nodes (s->api, NULL, NULL, &l, &err), 0);
    assert_int_equal (l->nnodes, 2);
    ccas_record_list_destroy (l);

    json_object *o = NULL;
    assert_int_equal (ccas_ccapi_get_operation (s->api, op, &o, &err), 0);
    assert_non_null (ccas_json_get (o, "action"));
    json_object_put (o);
    assert_int_equal (ccas_ccapi_find_operation (s->api, id, &o, &err), 1);
    json_object_put (o);
    assert_int_equal (ccas_ccapi_find_operation (s->api, "no-such-request", &o, &err), 0);
    assert_int_equal (ccas_ccapi_get_operation (s->api, "no-such-operation", &o, &err), -1);
    assert_int_equal (ccas_ccapi_last_failure (s->api)->http_status, 404);
    /* an unknown request id: 404, which a caller reads as "never happened" */
    assert_int_equal (ccas_ccapi_get_nodes (s->api, NULL, "no-such-request", &l, &err), -1);
    assert_int_equal (ccas_ccapi_last_failure (s->api)->http_status, 404);
}

/* A set asking for more than fits: added < count with a message, not an error. */
static void test_create_partial (void **state)
{
    struct sim *s = *state;
    struct ccas_error err = {""};
    struct ccas_create_set set = {.nodearray = "gpu", .count = 5};
    struct ccas_create_request req = {NULL, &set, 1};
    struct ccas_create_result *res = NULL;
    assert_int_equal (ccas_ccapi_create_nodes (s->api, &req, &res, &err), 0);
    assert_true (res->sets[0].added < 5);
    assert_non_null (res->sets[0].message);
    assert_true (strlen (res->request_id) > 0); /* the client made one */
    ccas_create_result_destroy (res);
}

static struct ccas_action_result *act (struct sim *s, enum ccas_node_action a, const char *name)
{
    struct ccas_error err = {""};
    struct ccas_action_result *res = NULL;
    const char *names[] = {name, "no-such-node"};
    struct ccas_node_selector sel = {.names = names, .nnames = 2};
    assert_int_equal (ccas_ccapi_node_action (s->api, a, &sel, NULL, &res, &err), 0);
    assert_non_null (res->operation_id);
    assert_int_equal (res->nnodes, 1); /* unknown nodes are left out, not an error */
    assert_string_equal (res->nodes[0].name, name);
    return res;
}

static void test_node_actions (void **state)
{
    struct sim *s = *state;
    struct ccas_error err = {""};
    struct ccas_action_result *res;
    char buf[32];

    res = act (s, CCAS_ACTION_DEALLOCATE, "htc-10");
    assert_true (res->nodes[0].ok);
    ccas_action_result_destroy (res);
    wait_status (s, "htc-10", "Deallocated");

    res = act (s, CCAS_ACTION_START, "htc-10");
    assert_true (res->nodes[0].ok);
    ccas_action_result_destroy (res);
    wait_status (s, "htc-10", "Ready");

    /* remove fails, per node, while the node runs */
    res = act (s, CCAS_ACTION_REMOVE, "htc-11");
    assert_false (res->nodes[0].ok);
    assert_non_null (res->nodes[0].error);
    ccas_action_result_destroy (res);

    /* shutdown follows the nodearray's ShutdownPolicy (htc: Terminate) */
    res = act (s, CCAS_ACTION_SHUTDOWN, "htc-11");
    assert_true (res->nodes[0].ok);
    ccas_action_result_destroy (res);
    res = act (s, CCAS_ACTION_TERMINATE, "htc-10");
    assert_true (res->nodes[0].ok);
    ccas_action_result_destroy (res);
    for (int i = 0; i < 200 && (status_of (s, "htc-10", buf, sizeof (buf)) ||
                                status_of (s, "htc-11", buf, sizeof (buf)));
         i++)
        usleep (20000);
    assert_null (status_of (s, "htc-10", buf, sizeof (buf)));
    assert_null (status_of (s, "htc-11", buf, sizeof (buf)));

    /* an empty selector is refused before anything is sent */
    unsigned before = ccas_ccapi_stats (s->api)->requests;
    struct ccas_node_selector none = {0};
    assert_int_equal (ccas_ccapi_node_action (s->api, CCAS_ACTION_TERMINATE, &none, NULL, &res, &err), -1);
    assert_int_equal (ccas_ccapi_stats (s->api)->requests, before);
}

static int64_t htc_nodes (struct sim *s)
{
    struct ccas_record_list *l = NULL;
    struct ccas_error err = {""};
    int64_t n = 0;
    assert_int_equal (ccas_ccapi_get_nodes (s->api, NULL, NULL, &l, &err), 0);
    for (size_t i = 0; i < l->nnodes; i++)
        n += l->nodes[i].nodearray && strcmp (l->nodes[i].nodearray, "htc") == 0 &&
             (!l->nodes[i].target_state || strcmp (l->nodes[i].target_state, "Terminated") != 0);
    ccas_record_list_destroy (l);
    return n;
}

/* Scale grows a nodearray to a total and never shrinks it. */
static void test_scale (void **state)
{
    struct sim *s = *state;
    struct ccas_error err = {""};
    struct ccas_create_result *res = NULL;
    assert_int_equal (ccas_ccapi_scale (s->api, "htc", false, 3, &res, &err), 0);
    assert_non_null (res->operation_id);
    ccas_create_result_destroy (res);
    assert_int_equal (htc_nodes (s), 3);
    assert_int_equal (ccas_ccapi_scale (s->api, "htc", false, 1, &res, &err), 0);
    ccas_create_result_destroy (res);
    assert_int_equal (htc_nodes (s), 3);
    /* by cores: 3 nodes of 2 cores are 6; 10 cores need at least 2 more of the first machine type */
    assert_int_equal (ccas_ccapi_scale (s->api, "htc", true, 10, &res, &err), 0);
    ccas_create_result_destroy (res);
    assert_true (htc_nodes (s) >= 5);
    assert_int_equal (ccas_ccapi_scale (s->api, "nope", false, 1, &res, &err), -1);
    assert_non_null (strstr (err.text, "nope"));
}

/* ccsim serves the cluster's state and targetState from its cluster file
 * and changes them through its control API; while the cluster is not
 * Started it refuses a create, and the status says so. */
static void test_cluster_state (void **state)
{
    struct sim *s = *state;
    struct ccas_error err = {""};
    struct ccas_http_opts hopts = {.base_url = s->proc.url,
                                   .username = "u",
                                   .password = "p",
                                   .connect_timeout_ms = 5000,
                                   .request_timeout_ms = 5000,
                                   .max_response_bytes = 1 << 20};
    struct ccas_http *h = ccas_http_create (&hopts, &err);
    struct ccas_http_response resp;
    struct ccas_http_failure fail;
    struct ccas_status *st = NULL;
    char why[200];
    assert_non_null (h);
    assert_int_equal (ccas_ccapi_get_status (s->api, false, &st, &err), 0);
    assert_string_equal (st->state, "Started");
    assert_null (ccas_status_not_started (st, why, sizeof (why)));
    ccas_status_destroy (st);

    assert_int_equal (ccas_http_request (h, "POST", "/ccsim/cluster",
                                         "{\"state\": \"Terminating\", \"targetState\": \"Terminated\"}",
                                         false, &resp, &fail),
                      0);
    assert_int_equal (resp.status, 200);
    ccas_http_response_release (&resp);
    assert_int_equal (ccas_ccapi_get_status (s->api, false, &st, &err), 0);
    assert_string_equal (ccas_status_not_started (st, why, sizeof (why)),
                         "cluster 'test' is Terminating (targetState Terminated)");
    ccas_status_destroy (st);
    struct ccas_create_set set = {.nodearray = "htc", .count = 1};
    struct ccas_create_request req = {NULL, &set, 1};
    struct ccas_create_result *res = NULL;
    assert_int_equal (ccas_ccapi_create_nodes (s->api, &req, &res, &err), -1);
    assert_int_equal (ccas_ccapi_last_failure (s->api)->http_status, 400);
    assert_non_null (strstr (err.text, "is Terminating"));

    assert_int_equal (ccas_http_request (h, "POST", "/ccsim/cluster", "{\"state\": 3}", false, &resp, &fail),
                      0);
    assert_int_equal (resp.status, 400);
    ccas_http_response_release (&resp);
    assert_int_equal (ccas_http_request (h, "POST", "/ccsim/cluster",
                                         "{\"state\": \"Started\", \"targetState\": \"Started\"}", false,
                                         &resp, &fail),
                      0);
    ccas_http_response_release (&resp);
    assert_int_equal (ccas_ccapi_create_nodes (s->api, &req, &res, &err), 0);
    assert_int_equal (res->sets[0].added, 1);
    ccas_create_result_destroy (res);
    ccas_http_destroy (h);
}

/* ccsim's control API: POST `path` (no body); its HTTP status. */
static long control (struct sim *s, const char *path)
{
    struct ccas_error err = {""};
    struct ccas_http_opts o = {
        .base_url = s->proc.url, .request_timeout_ms = 5000, .max_response_bytes = 1 << 20};
    struct ccas_http *h = ccas_http_create (&o, &err);
    struct ccas_http_response resp = {0};
    struct ccas_http_failure f = {0};
    assert_non_null (h);
    assert_int_equal (ccas_http_request (h, "POST", path, NULL, true, &resp, &f), 0);
    long status = resp.status;
    ccas_http_response_release (&resp);
    ccas_http_destroy (h);
    return status;
}

/* CycleCloud's retry of Failed nodes (POST /cloud/actions/retry/{c}): a
 * Failed node boots again and comes up Ready. */
static void test_retry_failed (void **state)
{
    struct sim *s = *state;
    struct ccas_error err = {""};
    struct ccas_create_set set = {.nodearray = "htc", .count = 1, .name_format = "htc-%d", .name_offset = 30};
    struct ccas_create_request req = {NULL, &set, 1};
    struct ccas_create_result *res = NULL;
    assert_int_equal (ccas_ccapi_create_nodes (s->api, &req, &res, &err), 0);
    ccas_create_result_destroy (res);
    wait_status (s, "htc-30", "Ready");
    assert_int_equal (control (s, "/ccsim/nodes/htc-30/fail"), 200);
    wait_status (s, "htc-30", "Failed");
    assert_int_equal (ccas_ccapi_retry_failed (s->api, &err), 0);
    wait_status (s, "htc-30", "Ready");
    struct ccas_action_result *ar = act (s, CCAS_ACTION_TERMINATE, "htc-30");
    ccas_action_result_destroy (ar);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_status),         cmocka_unit_test (test_create_and_operations),
        cmocka_unit_test (test_create_partial), cmocka_unit_test (test_node_actions),
        cmocka_unit_test (test_scale),          cmocka_unit_test (test_cluster_state),
        cmocka_unit_test (test_retry_failed),
    };
    if (!getenv ("CCSIM")) {
        printf ("1..0 # SKIP CCSIM is not set\n");
        return 0;
    }
    return cmocka_run_group_tests (tests, start_ccsim, stop_ccsim);
}
