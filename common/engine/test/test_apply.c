/* SPDX-License-Identifier: MIT */
/* test_apply.c: a plan carried out through a real ccsim over HTTP.
 *
 * A plan's create sets go in one request with a requestId recorded first;
 * each set's outcome is its own (partial success is recorded, not an
 * error); new nodes learn their names from the server; an answer that is
 * lost is recovered by request id, in the same run or by the next one's
 * reconcile, never by a second create; terminations and starts go in one
 * request each, and still go when a create is refused.  Each case starts
 * its own ccsim on a loopback port and reads its request log. */
#include "config.h"

#include <setjmp.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "ccapi/ccapi.h"
#include "engine/apply.h"
#include "engine/match.h"
#include "engine/plan.h"
#include "model/test/fixture.h"
#include "tests/ccsim/sim_process.h"
#include "util/state.h"

struct sim {
    struct sim_process proc;
    struct ccas_ccapi *api;
    struct ccas_http *ctl; /* for ccsim's own /ccsim endpoints */
    struct ccas_config *cfg;
};

static const char *const state_files[] = {"requests.json", NULL};

static int stop_ccsim (void **state)
{
    struct sim *s = *state;
    ccas_ccapi_destroy (s->api);
    ccas_http_destroy (s->ctl);
    ccas_conf_destroy (s->cfg);
    sim_process_stop (&s->proc, state_files);
    free (s);
    return 0;
}

static int start_ccsim (void **state)
{
    struct sim *s = calloc (1, sizeof (*s));
    struct ccas_error err = {""};
    if (!s || sim_process_start (&s->proc, "apply", CCSIM_CLUSTERS_DIR "/small.json") < 0) {
        free (s);
        return -1;
    }
    *state = s;
    struct ccas_ccapi_opts opts = {.url = s->proc.url,
                                   .username = "u",
                                   .password = "p",
                                   .cluster = "test",
                                   .verify_certificates = true,
                                   .max_retries = 1};
    struct ccas_http_opts hopts = {.base_url = s->proc.url, .username = "u", .password = "p"};
    if (!(s->api = ccas_ccapi_create (&opts, &err)) || !(s->ctl = ccas_http_create (&hopts, &err))) {
        stop_ccsim (state);
        return -1;
    }
    char extra[160];
    snprintf (extra, sizeof (extra), "{\"state_dir\": \"%s\"}", s->proc.dir);
    s->cfg = fx_config (extra);
    return 0;
}

/* ---- talking to ccsim itself ------------------------------------------------------------------ */

static json_object *sim_call (struct sim *s, const char *method, const char *path, const char *body)
{
    struct ccas_http_response resp;
    struct ccas_http_failure fail;
    struct ccas_error err = {""};
    if (ccas_http_request (s->ctl, method, path, body, false, &resp, &fail) < 0)
        fail_msg ("%s %s: %s", method, path, fail.message);
    if (resp.status < 200 || resp.status > 299)
        fail_msg ("%s %s: %ld %s", method, path, resp.status, resp.body);
    json_object *o = ccas_json_parse (resp.body, resp.len, path, &err);
    ccas_http_response_release (&resp);
    if (!o)
        fail_msg ("%s", err.text);
    return o;
}

static void sim_fault (struct sim *s, const char *spec)
{
    json_object_put (sim_call (s, "POST", "/ccsim/faults", spec));
}

static void sim_forget_requests (struct sim *s)
{
    json_object_put (sim_call (s, "DELETE", "/ccsim/requests", NULL));
}

/* How many logged requests have `method` and a path containing `part`; the
 * request id and status of the last of them. */
static int logged (struct sim *s, const char *method, const char *part, char *rid, size_t ridsize,
                   int *status)
{
    json_object *log = sim_call (s, "GET", "/ccsim/requests", NULL);
    int n = 0;
    for (size_t i = 0; i < json_object_array_length (log); i++) {
        json_object *e = json_object_array_get_idx (log, i);
        if (strcmp (ccas_json_str (e, "method"), method) != 0 || !strstr (ccas_json_str (e, "path"), part))
            continue;
        n++;
        if (rid) {
            const char *r = ccas_json_str (e, "request_id");
            snprintf (rid, ridsize, "%s", r ? r : "");
        }
        if (status)
            *status = (int)ccas_json_int (e, "status", -1);
    }
    json_object_put (log);
    return n;
}

/* The node named `name` in ccsim's state (a new reference), or NULL. */
static json_object *sim_node (struct sim *s, const char *name)
{
    json_object *st = sim_call (s, "GET", "/ccsim/state", NULL), *found = NULL;
    json_object *nodes = ccas_json_get (st, "nodes");
    for (size_t i = 0; i < json_object_array_length (nodes); i++) {
        json_object *n = json_object_array_get_idx (nodes, i);
        if (strcmp (ccas_json_str (n, "Name"), name) == 0)
            found = json_object_get (n);
    }
    json_object_put (st);
    return found;
}

static int sim_node_count (struct sim *s)
{
    json_object *st = sim_call (s, "GET", "/ccsim/state", NULL);
    int n = (int)json_object_array_length (ccas_json_get (st, "nodes"));
    json_object_put (st);
    return n;
}

/* Wait (up to 5 s) until node `name` has Status `want` (NULL: until it is gone). */
static void wait_node (struct sim *s, const char *name, const char *want)
{
    char now[64] = "";
    for (int i = 0; i < 250; i++) {
        json_object *n = sim_node (s, name);
        snprintf (now, sizeof (now), "%s", n ? ccas_json_str (n, "Status") : "(gone)");
        json_object_put (n);
        if (want ? strcmp (now, want) == 0 : !n)
            return;
        usleep (20000);
    }
    fail_msg ("%s: '%s', want '%s'", name, now, want ? want : "(gone)");
}

/* Nodes made directly (not through a plan): `count` in htc, named from `format`. */
static void make_nodes (struct sim *s, const char *format, int count)
{
    struct ccas_error err = {""};
    struct ccas_create_set set = {.nodearray = "htc",
                                  .machine_type = "Standard_F2s_v2",
                                  .count = count,
                                  .name_format = format,
                                  .name_offset = 1};
    struct ccas_create_request req = {NULL, &set, 1};
    struct ccas_create_result *res = NULL;
    assert_int_equal (ccas_ccapi_create_nodes (s->api, &req, &res, &err), 0);
    assert_int_equal (res->sets[0].added, count);
    ccas_create_result_destroy (res);
}

/* ---- the model and the plan ---------------------------------------------------------------------- */

/* The cluster as ccsim has it now, with `ghost` (a node record, may be
 * NULL) added to its nodes as if the server had listed it. */
static struct ccas_cluster *model (struct sim *s, const char *ghost)
{
    struct ccas_error err = {""};
    struct ccas_status *st = NULL;
    struct ccas_record_list *l = NULL;
    assert_int_equal (ccas_ccapi_get_status (s->api, false, &st, &err), 0);
    assert_int_equal (ccas_ccapi_get_nodes (s->api, NULL, NULL, &l, &err), 0);
    if (ghost) {
        json_object *arr =
            json_object_is_type (l->root, json_type_array) ? l->root : ccas_json_get (l->root, "nodes");
        json_object *copy = NULL;
        assert_int_equal (json_object_deep_copy (arr, &copy, NULL), 0);
        json_object_array_add (copy, fx_parse (ghost));
        ccas_record_list_destroy (l);
        assert_non_null (l = ccas_record_list_from_json (copy, &err));
    }
    struct ccas_cluster *c = ccas_cluster_create (s->cfg, st, l, &err);
    if (!c)
        fail_msg ("%s", err.text);
    return c;
}

static struct ccas_state *requests_state (struct sim *s)
{
    struct ccas_error err = {""};
    struct ccas_state *st = ccas_state_load (s->proc.dir, "requests", &err);
    if (!st)
        fail_msg ("%s", err.text);
    return st;
}

/* New nodes: `n` in bucket na/mt, in placement group `pg` (NULL none, ""
 * a new one). */
static void add_new (struct ccas_cluster *c, const char *na, const char *mt, const char *pg, int n)
{
    struct ccas_bucket *b = fx_bucket (c, na, mt);
    struct ccas_pg *g = !pg ? NULL : ccas_pg_get (c, b, *pg ? pg : NULL, NULL);
    for (int i = 0; i < n; i++)
        if (!ccas_cluster_new_node (c, b, g, NULL))
            fail_msg ("no room for a new node in %s/%s", na, mt);
}

static const struct ccas_plan_set *set_of (const struct ccas_plan *p, const char *mt)
{
    for (size_t i = 0; i < p->ncreates; i++)
        if (strcmp (p->creates[i].bucket->machine_type, mt) == 0)
            return &p->creates[i];
    fail_msg ("no set of %s", mt);
    return NULL;
}

/* Every node the set asked for is named, by a node ccsim has in that set's
 * nodearray, machine type and placement group. */
static void check_named (struct sim *s, const struct ccas_plan_set *set, uint32_t named)
{
    for (uint32_t k = 0; k < set->count; k++) {
        const struct ccas_node *n = set->nodes[k];
        if (k >= named) {
            assert_null (n->name);
            continue;
        }
        if (!n->name)
            fail_msg ("%s: node %u has no name", set->bucket->machine_type, k);
        assert_non_null (n->node_id);
        json_object *rec = sim_node (s, n->name);
        if (!rec)
            fail_msg ("%s: ccsim has no such node", n->name);
        assert_string_equal (ccas_json_str (rec, "Template"), set->bucket->na->name);
        assert_string_equal (ccas_json_str (rec, "MachineType"), set->bucket->machine_type);
        if (set->pg)
            assert_string_equal (ccas_json_str (rec, "PlacementGroupId"), set->pg->name);
        else
            assert_null (ccas_json_str (rec, "PlacementGroupId"));
        assert_int_equal (ccas_json_bool (rec, "KeepAlive", false), set->keep_alive);
        for (uint32_t j = 0; j < k; j++)
            assert_string_not_equal (set->nodes[j]->name, n->name);
        json_object_put (rec);
    }
}

/* ---- cases ---------------------------------------------------------------------------------------- */

/* Every set in one POST with the recorded requestId; all added and named;
 * the record dropped once the answer is in. */
static void test_creates_in_one_request (void **state)
{
    struct sim *s = *state;
    struct ccas_error err = {""};
    struct ccas_apply_stats stats;
    struct ccas_cluster *c = model (s, NULL);
    add_new (c, "htc", "Standard_F2s_v2", NULL, 2);
    add_new (c, "hpc", "Standard_HB120rs_v3", "", 2);
    add_new (c, "htc", "Standard_F4s_v2", NULL, 1);
    add_new (c, "htc", "Standard_F2s_v2", NULL, 1);
    /* the F4 node's create carries a Configuration; its set adds KeepAlive */
    json_object *attrs = fx_parse ("{\"Configuration\": {\"autoscale\": {\"group\": \"g1\"}}}");
    c->nodes[c->nnodes - 2]->create_attributes = attrs;
    struct ccas_plan *p = ccas_plan_create (c, NULL, &err);
    assert_int_equal (p->ncreates, 3);
    ((struct ccas_plan_set *)set_of (p, "Standard_F4s_v2"))->keep_alive = true;
    struct ccas_state *req = requests_state (s);
    sim_forget_requests (s);

    assert_int_equal (ccas_apply (p, s->api, req, &stats, &err), 0);
    char rid[64];
    assert_int_equal (logged (s, "POST", "/nodes/create", rid, sizeof (rid), NULL), 1);
    assert_string_equal (rid, p->request_id);
    assert_true (strlen (p->request_id) >= 32);
    assert_int_equal (logged (s, "GET", "request_id=", NULL, 0, NULL), 0); /* nothing to look up */
    assert_int_equal (logged (s, "POST", "/nodes/", NULL, 0, NULL), 1);    /* and no other action */
    assert_non_null (p->create_operation);
    for (size_t i = 0; i < p->ncreates; i++) {
        const struct ccas_plan_set *set = &p->creates[i];
        assert_int_equal (set->outcome, CCAS_DONE);
        assert_int_equal (set->added, (int)set->count);
        assert_null (set->message);
        check_named (s, set, set->count);
    }
    assert_string_equal (set_of (p, "Standard_HB120rs_v3")->pg->name, "hpc_Standard_HB120rs_v3_pg0");
    /* the attributes reached the server, merged with KeepAlive, and only for that set */
    json_object *rec = sim_node (s, set_of (p, "Standard_F4s_v2")->nodes[0]->name);
    json_object *conf = ccas_json_get (rec, "Configuration");
    assert_string_equal (ccas_json_str (ccas_json_get (conf, "autoscale"), "group"), "g1");
    assert_true (
        ccas_json_bool (ccas_json_get (conf, "autoscale"), "enabled", false)); /* the nodearray's, kept */
    json_object_put (rec);
    rec = sim_node (s, set_of (p, "Standard_F2s_v2")->nodes[0]->name);
    assert_null (ccas_json_get (ccas_json_get (ccas_json_get (rec, "Configuration"), "autoscale"), "group"));
    json_object_put (rec);
    assert_null (ccas_json_get (attrs, "KeepAlive")); /* the node's own attributes untouched */
    assert_int_equal (stats.requested, 6);
    assert_int_equal (stats.created, 6);
    assert_int_equal (stats.failed, 0);
    assert_int_equal (sim_node_count (s), 6);
    /* answered: the record is gone, on disk too */
    ccas_state_destroy (req);
    req = requests_state (s);
    assert_int_equal (json_object_object_length (ccas_state_root (req)), 0);
    ccas_state_destroy (req);
    ccas_plan_destroy (p);
    ccas_cluster_destroy (c);
    json_object_put (attrs);
}

/* Each set has its own outcome: all, some, or none added, with the
 * server's message and its class; the run itself succeeds. */
static void test_partial_success_per_set (void **state)
{
    struct sim *s = *state;
    struct ccas_error err = {""};
    struct ccas_apply_stats stats;
    struct ccas_cluster *c = model (s, NULL);
    /* after the model was read: room for 3 F2 nodes, no F4 capacity */
    sim_fault (s, "{\"kind\": \"quota\", \"machine_type\": \"Standard_F2s_v2\", \"cores\": 6}");
    sim_fault (s, "{\"kind\": \"capacity\", \"machine_type\": \"Standard_F4s_v2\", \"count\": 1}");
    add_new (c, "htc", "Standard_F2s_v2", NULL, 5);
    add_new (c, "htc", "Standard_F4s_v2", NULL, 2);
    add_new (c, "hpc", "Standard_HB120rs_v3", NULL, 1);
    struct ccas_plan *p = ccas_plan_create (c, NULL, &err);
    struct ccas_state *req = requests_state (s);
    assert_int_equal (ccas_apply (p, s->api, req, &stats, &err), 0);

    const struct ccas_plan_set *f2 = set_of (p, "Standard_F2s_v2"), *f4 = set_of (p, "Standard_F4s_v2"),
                               *hb = set_of (p, "Standard_HB120rs_v3");
    assert_int_equal (f2->outcome, CCAS_DONE); /* some added */
    assert_int_equal (f2->added, 3);
    assert_non_null (strstr (f2->message, "3 of 5 nodes added"));
    assert_int_equal (f2->cls, ccas_failure_classify_message (f2->message));
    check_named (s, f2, 3);
    assert_int_equal (f4->outcome, CCAS_FAILED); /* none added */
    assert_int_equal (f4->added, 0);
    assert_non_null (strstr (f4->message, "insufficient capacity"));
    assert_int_equal (f4->cls, CCAS_CLASS_CAPACITY);
    check_named (s, f4, 0);
    assert_int_equal (hb->outcome, CCAS_DONE);
    assert_int_equal (hb->added, 1);
    assert_null (hb->message);
    check_named (s, hb, 1);
    assert_int_equal (stats.requested, 8);
    assert_int_equal (stats.created, 4);
    assert_int_equal (stats.failed, 4);
    assert_int_equal (sim_node_count (s), 4);
    assert_int_equal (logged (s, "POST", "/nodes/create", NULL, 0, NULL), 1);

    /* and the plan says so */
    json_object *o = ccas_plan_to_json (p);
    json_object *cr = ccas_json_get (o, "create");
    for (size_t i = 0; i < json_object_array_length (cr); i++) {
        json_object *e = json_object_array_get_idx (cr, i);
        const char *mt = ccas_json_str (e, "machine_type");
        if (strcmp (mt, "Standard_F4s_v2") == 0) {
            assert_string_equal (ccas_json_str (e, "outcome"), "failed");
            assert_string_equal (ccas_json_str (e, "class"), "capacity");
        } else if (strcmp (mt, "Standard_F2s_v2") == 0)
            assert_int_equal (json_object_array_length (ccas_json_get (e, "names")), 3);
        else
            assert_null (ccas_json_get (e, "class"));
    }
    json_object_put (o);
    ccas_state_destroy (req);
    ccas_plan_destroy (p);
    ccas_cluster_destroy (c);
}

/* The answer to the create is lost: the client asks by request id, learns
 * what was made and names the nodes; nothing is sent twice. */
static void test_lost_answer_recovered (void **state)
{
    struct sim *s = *state;
    struct ccas_error err = {""};
    struct ccas_apply_stats stats;
    setenv ("CCAS_TEST_NO_SLEEP", "1", 1);
    struct ccas_cluster *c = model (s, NULL);
    add_new (c, "htc", "Standard_F2s_v2", NULL, 2);
    add_new (c, "hpc", "Standard_HB120rs_v3", "", 1);
    struct ccas_plan *p = ccas_plan_create (c, NULL, &err);
    struct ccas_state *req = requests_state (s);
    sim_fault (s, "{\"kind\": \"drop\", \"when\": \"after\", \"match\": \"/nodes/create\", \"count\": 1}");
    sim_forget_requests (s);
    assert_int_equal (ccas_apply (p, s->api, req, &stats, &err), 0);
    int status = -1;
    assert_int_equal (logged (s, "POST", "/nodes/create", NULL, 0, &status), 1);
    assert_int_equal (status, 0); /* carried out, its answer dropped */
    char rid[64];
    char part[96];
    snprintf (part, sizeof (part), "request_id=%s", p->request_id);
    assert_int_equal (logged (s, "GET", part, rid, sizeof (rid), &status), 1);
    assert_int_equal (status, 200);
    for (size_t i = 0; i < p->ncreates; i++) {
        assert_int_equal (p->creates[i].outcome, CCAS_DONE);
        assert_int_equal (p->creates[i].added, (int)p->creates[i].count);
        check_named (s, &p->creates[i], p->creates[i].count);
    }
    assert_int_equal (stats.created, 3);
    assert_int_equal (sim_node_count (s), 3);
    ccas_state_destroy (req);
    req = requests_state (s);
    assert_int_equal (json_object_object_length (ccas_state_root (req)), 0);
    ccas_state_destroy (req);
    ccas_plan_destroy (p);
    ccas_cluster_destroy (c);
    unsetenv ("CCAS_TEST_NO_SLEEP");
}

/* The group a named node of set `set` was made with (its Configuration's
 * autoscale.group), as ccsim has it. */
static void check_group (struct sim *s, const struct ccas_plan_set *set, const char *group)
{
    for (uint32_t k = 0; k < set->count && set->nodes[k]->name; k++) {
        json_object *rec = sim_node (s, set->nodes[k]->name);
        const char *g =
            ccas_json_str (ccas_json_get (ccas_json_get (rec, "Configuration"), "autoscale"), "group");
        if (!g || strcmp (g, group) != 0)
            fail_msg ("%s was made for group %s, named for a node of group %s", set->nodes[k]->name,
                      g ? g : "(none)", group);
        json_object_put (rec);
    }
}

/* Two sets in one nodearray, type and group, told apart only by their
 * Configuration: the first gets no capacity, the second its nodes.  Each
 * planned node is named after a node made for its own set — whether the
 * create's answer arrives or is lost and rebuilt from the request id. */
static void two_configured_sets (struct sim *s, bool lose_answer)
{
    struct ccas_error err = {""};
    struct ccas_apply_stats stats;
    setenv ("CCAS_TEST_NO_SLEEP", "1", 1);
    struct ccas_cluster *c = model (s, NULL);
    add_new (c, "htc", "Standard_F2s_v2", NULL, 4);
    json_object *g1 = fx_parse ("{\"Configuration\": {\"autoscale\": {\"group\": \"g1\"}}}");
    json_object *g2 = fx_parse ("{\"Configuration\": {\"autoscale\": {\"group\": \"g2\"}}}");
    for (size_t i = c->nnodes - 4; i < c->nnodes; i++)
        c->nodes[i]->create_attributes = i < c->nnodes - 2 ? g1 : g2;
    struct ccas_plan *p = ccas_plan_create (c, NULL, &err);
    assert_int_equal (p->ncreates, 2);
    struct ccas_plan_set *first = &p->creates[0], *second = &p->creates[1];
    bool first_is_g1 =
        ccas_json_get (first->node_attributes, "Configuration") == ccas_json_get (g1, "Configuration");
    struct ccas_state *req = requests_state (s);
    sim_fault (s, "{\"kind\": \"capacity\", \"machine_type\": \"Standard_F2s_v2\", \"count\": 1}");
    if (lose_answer)
        sim_fault (s,
                   "{\"kind\": \"drop\", \"when\": \"after\", \"match\": \"/nodes/create\", \"count\": 1}");
    assert_int_equal (ccas_apply (p, s->api, req, &stats, &err), 0);

    assert_int_equal (first->added, 0);
    assert_int_equal (second->added, 2);
    check_named (s, first, 0);
    check_named (s, second, 2);
    check_group (s, second, first_is_g1 ? "g2" : "g1");
    assert_int_equal (stats.created, 2);
    assert_int_equal (sim_node_count (s), 2);
    ccas_state_destroy (req);
    ccas_plan_destroy (p);
    ccas_cluster_destroy (c);
    json_object_put (g1);
    json_object_put (g2);
    unsetenv ("CCAS_TEST_NO_SLEEP");
}

static void test_sets_told_apart_by_configuration (void **state)
{
    two_configured_sets (*state, false);
}

static void test_sets_told_apart_after_lost_answer (void **state)
{
    two_configured_sets (*state, true);
}

/* The answer is lost and so is every lookup: the run fails without
 * creating again, keeps the request recorded and sends nothing after it;
 * the next run's reconcile finds the nodes by request id. */
static void test_lost_answer_reconciled_next_run (void **state)
{
    struct sim *s = *state;
    struct ccas_error err = {""};
    struct ccas_apply_stats stats;
    setenv ("CCAS_TEST_NO_SLEEP", "1", 1);
    make_nodes (s, "htc-old-%d", 1);
    wait_node (s, "htc-old-1", "Ready");
    struct ccas_cluster *c = model (s, NULL);
    add_new (c, "htc", "Standard_F2s_v2", NULL, 2);
    struct ccas_plan *p = ccas_plan_create (c, NULL, &err);
    assert_int_equal (ccas_plan_terminate (p, fx_node (c, "htc-old-1"), "idle"), 0);
    struct ccas_state *req = requests_state (s);
    sim_fault (s, "{\"kind\": \"drop\", \"when\": \"after\", \"match\": \"/nodes/create\", \"count\": 1}");
    sim_fault (s, "{\"kind\": \"drop\", \"match\": \"request_id=\", \"count\": -1}");
    sim_forget_requests (s);

    assert_int_equal (ccas_apply (p, s->api, req, &stats, &err), -1);
    assert_non_null (strstr (err.text, "the outcome is unknown"));
    assert_int_equal (p->creates[0].outcome, CCAS_FAILED);
    assert_int_equal (p->terminates[0].outcome, CCAS_FAILED);
    assert_non_null (strstr (p->terminates[0].error, "not sent: "));
    assert_int_equal (logged (s, "POST", "/nodes/create", NULL, 0, NULL), 1);
    assert_int_equal (logged (s, "POST", "/nodes/terminate", NULL, 0, NULL), 0);
    char id[64];
    snprintf (id, sizeof (id), "%s", p->request_id);
    ccas_state_destroy (req);
    req = requests_state (s); /* on disk, for the next run */
    assert_non_null (ccas_json_get (ccas_state_root (req), id));
    assert_int_equal (json_object_object_length (ccas_state_root (req)), 1);
    ccas_plan_destroy (p);
    ccas_cluster_destroy (c);

    /* the next run, the server answering again */
    json_object_put (sim_call (s, "DELETE", "/ccsim/faults", NULL));
    sim_forget_requests (s);
    assert_int_equal (ccas_apply_reconcile (s->api, req, &err), 0);
    assert_int_equal (json_object_object_length (ccas_state_root (req)), 0);
    ccas_state_destroy (req);
    req = requests_state (s);
    assert_int_equal (json_object_object_length (ccas_state_root (req)), 0);
    char part[96];
    int status = -1;
    snprintf (part, sizeof (part), "request_id=%s", id);
    assert_int_equal (logged (s, "GET", part, NULL, 0, &status), 1);
    assert_int_equal (status, 200);
    assert_int_equal (logged (s, "POST", "/nodes/create", NULL, 0, NULL), 0); /* never sent twice */
    assert_int_equal (sim_node_count (s), 3);
    ccas_state_destroy (req);
    unsetenv ("CCAS_TEST_NO_SLEEP");
}

/* Reconcile: a request the server never saw (404) is dropped; one whose
 * lookup fails stays pending, until a lookup succeeds. */
static void test_reconcile (void **state)
{
    struct sim *s = *state;
    struct ccas_error err = {""};
    setenv ("CCAS_TEST_NO_SLEEP", "1", 1);
    struct ccas_create_set set = {.nodearray = "htc", .count = 1};
    struct ccas_create_request creq = {"made-by-an-earlier-run", &set, 1};
    struct ccas_create_result *res = NULL;
    assert_int_equal (ccas_ccapi_create_nodes (s->api, &creq, &res, &err), 0);
    ccas_create_result_destroy (res);
    struct ccas_state *req = requests_state (s);
    json_object_object_add (ccas_state_root (req), "made-by-an-earlier-run", fx_parse ("{\"time\": 1}"));
    json_object_object_add (ccas_state_root (req), "never-sent", fx_parse ("{\"time\": 1}"));
    assert_int_equal (ccas_apply_reconcile (s->api, NULL, &err), 0); /* no records: nothing to do */
    sim_fault (s, "{\"kind\": \"http\", \"status\": 500, \"match\": \"request_id=made-by\", \"count\": 2}");
    sim_forget_requests (s);

    assert_int_equal (ccas_apply_reconcile (s->api, req, &err), 1);
    assert_non_null (strstr (err.text, "500"));
    assert_non_null (ccas_json_get (ccas_state_root (req), "made-by-an-earlier-run"));
    assert_null (ccas_json_get (ccas_state_root (req), "never-sent"));
    assert_int_equal (ccas_apply_reconcile (s->api, req, &err), 0);
    assert_int_equal (json_object_object_length (ccas_state_root (req)), 0);
    assert_int_equal (logged (s, "POST", "/nodes/create", NULL, 0, NULL), 0); /* only looked up */
    assert_int_equal (sim_node_count (s), 1);
    ccas_state_destroy (req);
    unsetenv ("CCAS_TEST_NO_SLEEP");
}

/* Terminations and starts: one request each, by node id; a node the
 * server does not know fails alone. */
static void test_terminations_and_starts (void **state)
{
    struct sim *s = *state;
    struct ccas_error err = {""};
    struct ccas_apply_stats stats;
    make_nodes (s, "htc-a%d", 3);
    for (int i = 1; i <= 3; i++) {
        char name[16];
        snprintf (name, sizeof (name), "htc-a%d", i);
        wait_node (s, name, "Ready");
    }
    struct ccas_action_result *ares = NULL;
    const char *names[] = {"htc-a3"};
    struct ccas_node_selector sel = {.names = names, .nnames = 1};
    assert_int_equal (ccas_ccapi_node_action (s->api, CCAS_ACTION_DEALLOCATE, &sel, NULL, &ares, &err), 0);
    ccas_action_result_destroy (ares);
    wait_node (s, "htc-a3", "Deallocated");

    struct ccas_cluster *c = model (
        s, "{\"Name\": \"ghost-1\", \"NodeId\": \"ghost-id\", \"Template\": \"htc\","
           " \"MachineType\": \"Standard_F2s_v2\", \"Status\": \"Ready\", \"PrivateIp\": \"10.9.9.9\"}");
    fx_node (c, "htc-a3")->njobs = 1; /* stopped, given work: started */
    struct ccas_plan *p = ccas_plan_create (c, NULL, &err);
    assert_int_equal (p->nstarts, 1);
    assert_int_equal (ccas_plan_terminate (p, fx_node (c, "htc-a1"), "idle for 400 s"), 0);
    assert_int_equal (ccas_plan_terminate (p, fx_node (c, "ghost-1"), "failed"), 0);
    struct ccas_state *req = requests_state (s);
    sim_forget_requests (s);

    assert_int_equal (ccas_apply (p, s->api, req, &stats, &err), 0);
    assert_int_equal (logged (s, "POST", "/nodes/terminate", NULL, 0, NULL), 1);
    assert_int_equal (logged (s, "POST", "/nodes/start", NULL, 0, NULL), 1);
    assert_int_equal (logged (s, "POST", "/nodes/create", NULL, 0, NULL), 0); /* nothing to create */
    assert_int_equal (p->starts[0].outcome, CCAS_DONE);
    assert_int_equal (p->terminates[0].outcome, CCAS_DONE);
    assert_null (p->terminates[0].error);
    assert_int_equal (p->terminates[1].outcome, CCAS_FAILED);
    assert_string_equal (p->terminates[1].error, "the server does not know this node");
    assert_non_null (p->terminate_operation);
    assert_non_null (p->start_operation);
    assert_int_equal (stats.terminated, 1);
    assert_int_equal (stats.started, 1);
    assert_int_equal (stats.failed, 1);
    wait_node (s, "htc-a1", NULL);
    wait_node (s, "htc-a3", "Ready");
    json_object *left = sim_node (s, "htc-a2");
    assert_non_null (left); /* untouched */
    json_object_put (left);
    ccas_state_destroy (req);
    ccas_plan_destroy (p);
    ccas_cluster_destroy (c);
}

/* A create the server refuses fails every set with the class of the
 * refusal, and the record is dropped (it made nothing); the pass still
 * gives back its failed node. */
static void test_refused_create_still_terminates (void **state)
{
    struct sim *s = *state;
    struct ccas_error err = {""};
    struct ccas_apply_stats stats;
    make_nodes (s, "htc-b%d", 1);
    wait_node (s, "htc-b1", "Ready");
    struct ccas_cluster *c = model (s, NULL);
    add_new (c, "htc", "Standard_F2s_v2", NULL, 1);
    add_new (c, "htc", "Standard_F4s_v2", NULL, 1);
    struct ccas_plan *p = ccas_plan_create (c, NULL, &err);
    assert_int_equal (ccas_plan_terminate (p, fx_node (c, "htc-b1"), "failed"), 0);
    struct ccas_state *req = requests_state (s);
    sim_fault (s, "{\"kind\": \"http\", \"status\": 400, \"match\": \"/nodes/create\", \"count\": 1}");
    sim_forget_requests (s);

    assert_int_equal (ccas_apply (p, s->api, req, &stats, &err), -1);
    assert_non_null (strstr (err.text, "POST /clusters/test/nodes/create"));
    assert_non_null (strstr (err.text, "400"));
    for (size_t i = 0; i < p->ncreates; i++) {
        assert_int_equal (p->creates[i].outcome, CCAS_FAILED);
        assert_int_equal (p->creates[i].cls, CCAS_CLASS_PERMANENT);
        assert_non_null (strstr (p->creates[i].message, "400"));
    }
    assert_int_equal (json_object_object_length (ccas_state_root (req)), 0);
    assert_int_equal (p->terminates[0].outcome, CCAS_DONE);
    assert_int_equal (logged (s, "POST", "/nodes/create", NULL, 0, NULL), 1);
    assert_int_equal (logged (s, "POST", "/nodes/terminate", NULL, 0, NULL), 1);
    assert_int_equal (stats.requested, 2);
    assert_int_equal (stats.created, 0);
    assert_int_equal (stats.terminated, 1);
    wait_node (s, "htc-b1", NULL);
    ccas_state_destroy (req);
    ccas_plan_destroy (p);
    ccas_cluster_destroy (c);
}

/* A plan made by hand for a cluster that has stopped being Started (the
 * model gives such a cluster no node) sends no create and no start, says
 * why in every set and start, and still gives back a failed node. */
static void test_closed_cluster_sends_nothing (void **state)
{
    struct sim *s = *state;
    struct ccas_error err = {""};
    struct ccas_apply_stats stats;
    make_nodes (s, "htc-c%d", 2);
    wait_node (s, "htc-c1", "Ready");
    wait_node (s, "htc-c2", "Ready");
    struct ccas_action_result *ares = NULL;
    const char *names[] = {"htc-c2"};
    struct ccas_node_selector sel = {.names = names, .nnames = 1};
    assert_int_equal (ccas_ccapi_node_action (s->api, CCAS_ACTION_DEALLOCATE, &sel, NULL, &ares, &err), 0);
    ccas_action_result_destroy (ares);
    wait_node (s, "htc-c2", "Deallocated");
    struct ccas_cluster *c = model (s, NULL);
    add_new (c, "htc", "Standard_F2s_v2", NULL, 2);
    fx_node (c, "htc-c2")->njobs = 1; /* stopped, given work: started */
    struct ccas_plan *p = ccas_plan_create (c, NULL, &err);
    assert_int_equal (ccas_plan_terminate (p, fx_node (c, "htc-c1"), "failed"), 0);
    c->closed = "cluster 'test' is Terminating (targetState Terminated): nothing is created or started until "
                "it is Started";
    json_object_put (sim_call (s, "POST", "/ccsim/cluster",
                               "{\"state\": \"Terminating\", \"targetState\": \"Terminated\"}"));
    struct ccas_state *req = requests_state (s);
    sim_forget_requests (s);

    assert_int_equal (ccas_apply (p, s->api, req, &stats, &err), 0);
    assert_int_equal (logged (s, "POST", "/nodes/create", NULL, 0, NULL), 0);
    assert_int_equal (logged (s, "POST", "/nodes/start", NULL, 0, NULL), 0);
    assert_int_equal (logged (s, "POST", "/nodes/terminate", NULL, 0, NULL), 1);
    assert_int_equal (p->creates[0].outcome, CCAS_FAILED);
    assert_int_equal (p->creates[0].cls, CCAS_CLASS_PERMANENT);
    assert_string_equal (p->creates[0].message, c->closed);
    assert_int_equal (p->starts[0].outcome, CCAS_FAILED);
    assert_non_null (strstr (p->starts[0].error, "is Terminating"));
    assert_int_equal (p->terminates[0].outcome, CCAS_DONE);
    assert_int_equal (json_object_object_length (ccas_state_root (req)), 0); /* no request recorded */
    assert_int_equal (stats.failed, 3);
    assert_int_equal (stats.terminated, 1);
    ccas_state_destroy (req);
    ccas_plan_destroy (p);
    ccas_cluster_destroy (c);
}

/* A capacity failure falls back in the same pass: the jobs of the nodes the
 * first create did not make are placed on new nodes of the next bucket they
 * allow, sent in a second create request of its own id (recorded, then
 * forgotten), and the jobs' slots are the nodes made; a job that fits no
 * other bucket stays short.  A second capacity failure falls back no more. */
static void test_capacity_fallback_jobs (void **state)
{
    struct sim *s = *state;
    struct ccas_error err = {""};
    struct ccas_apply_stats stats;
    struct ccas_cluster *c = model (s, NULL);
    static const char jobs_text[] =
        "[{\"id\": \"a\", \"node_count\": 2, \"packing\": \"scatter\", \"constraints\": {\"ncpus\": 1, "
        "\"node.nodearray\": \"htc\"}},"
        " {\"id\": \"b\", \"constraints\": {\"ncpus\": 2, \"node.vm_size\": \"Standard_F2s_v2\"}},"
        " {\"id\": \"g\", \"constraints\": {\"node.nodearray\": \"gpu\"}}]";
    struct ccas_jobs *jobs = ccas_jobs_from_text (jobs_text, strlen (jobs_text), c->cons, "jobs", &err);
    assert_non_null (jobs);
    assert_int_equal (ccas_match (c, jobs, NULL, &err), 0);
    struct ccas_plan *p = ccas_plan_create (c, jobs, &err);
    assert_int_equal (p->ncreates, 2); /* 3 F2 nodes, 1 gpu node */
    struct ccas_state *req = requests_state (s);
    sim_fault (s, "{\"kind\": \"capacity\", \"machine_type\": \"Standard_F2s_v2\", \"count\": -1}");
    sim_forget_requests (s);

    assert_int_equal (ccas_apply (p, s->api, req, &stats, &err), 0);
    assert_int_equal (logged (s, "POST", "/nodes/create", NULL, 0, NULL), 2);
    assert_int_equal (p->ncreates, 3);
    const struct ccas_plan_set *f2 = set_of (p, "Standard_F2s_v2"), *f4 = set_of (p, "Standard_F4s_v2");
    assert_int_equal (f2->round, 0);
    assert_int_equal (f2->added, 0);
    assert_int_equal (f2->cls, CCAS_CLASS_CAPACITY);
    assert_int_equal (f2->replaced, 2); /* job a's two slots; b asks for F2s_v2 itself */
    assert_int_equal (f4->round, 1);
    assert_int_equal (f4->count, 2);
    assert_int_equal (f4->added, 2);
    assert_string_not_equal (f4->request_id, f2->request_id);
    assert_string_equal (p->request_id, f2->request_id);
    check_named (s, f4, 2);
    const struct ccas_job *a = &jobs->v[0], *b = &jobs->v[1];
    assert_ptr_equal (a->slots[0], f4->nodes[0]);
    assert_ptr_equal (a->slots[1], f4->nodes[1]);
    assert_string_equal (a->slots[0]->vm_size, "Standard_F4s_v2");
    assert_non_null (a->slots[0]->name);
    assert_int_equal (b->slots[0]->kind, CCAS_NODE_GOING); /* nothing else it allows: short */
    assert_int_equal (json_object_object_length (ccas_state_root (req)), 0);
    assert_int_equal (stats.created, 3);
    json_object *o = ccas_plan_to_json (p);
    json_object *fb = json_object_array_get_idx (ccas_json_get (o, "create"), 2);
    assert_true (ccas_json_bool (fb, "fallback", false));
    json_object_put (o);
    ccas_plan_destroy (p);

    /* the F4 bucket fails too: one fallback a pass, no more (the two F4
     * nodes made above take two slots, four new F2 ones the rest) */
    static const char more[] = "[{\"id\": \"z\", \"node_count\": 6, \"packing\": \"scatter\","
                               " \"constraints\": {\"ncpus\": 1, \"node.nodearray\": \"htc\"}}]";
    struct ccas_cluster *c2 = model (s, NULL);
    struct ccas_jobs *jobs2 = ccas_jobs_from_text (more, strlen (more), c2->cons, "jobs", &err);
    assert_int_equal (ccas_match (c2, jobs2, NULL, &err), 0);
    struct ccas_plan *p2 = ccas_plan_create (c2, jobs2, &err);
    assert_int_equal (ccas_plan_new_nodes (p2), 4);
    sim_fault (s, "{\"kind\": \"capacity\", \"machine_type\": \"Standard_F4s_v2\", \"count\": -1}");
    sim_forget_requests (s);
    assert_int_equal (ccas_apply (p2, s->api, req, &stats, &err), 0);
    assert_int_equal (logged (s, "POST", "/nodes/create", NULL, 0, NULL), 2);
    assert_int_equal (p2->ncreates, 2);
    assert_int_equal (p2->creates[1].round, 1);
    assert_int_equal (p2->creates[1].added, 0);
    assert_int_equal (p2->creates[1].cls, CCAS_CLASS_CAPACITY);
    assert_int_equal (p2->creates[0].replaced, 0);
    ccas_state_destroy (req);
    ccas_plan_destroy (p2);
    ccas_jobs_destroy (jobs2);
    ccas_cluster_destroy (c2);
    ccas_jobs_destroy (jobs);
    ccas_cluster_destroy (c);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown (test_creates_in_one_request, start_ccsim, stop_ccsim),
        cmocka_unit_test_setup_teardown (test_partial_success_per_set, start_ccsim, stop_ccsim),
        cmocka_unit_test_setup_teardown (test_lost_answer_recovered, start_ccsim, stop_ccsim),
        cmocka_unit_test_setup_teardown (test_sets_told_apart_by_configuration, start_ccsim, stop_ccsim),
        cmocka_unit_test_setup_teardown (test_sets_told_apart_after_lost_answer, start_ccsim, stop_ccsim),
        cmocka_unit_test_setup_teardown (test_lost_answer_reconciled_next_run, start_ccsim, stop_ccsim),
        cmocka_unit_test_setup_teardown (test_reconcile, start_ccsim, stop_ccsim),
        cmocka_unit_test_setup_teardown (test_terminations_and_starts, start_ccsim, stop_ccsim),
        cmocka_unit_test_setup_teardown (test_refused_create_still_terminates, start_ccsim, stop_ccsim),
        cmocka_unit_test_setup_teardown (test_closed_cluster_sends_nothing, start_ccsim, stop_ccsim),
        cmocka_unit_test_setup_teardown (test_capacity_fallback_jobs, start_ccsim, stop_ccsim),
    };
    if (!getenv ("CCSIM")) {
        printf ("1..0 # SKIP CCSIM is not set\n");
        return 0;
    }
    return cmocka_run_group_tests (tests, NULL, NULL);
}
