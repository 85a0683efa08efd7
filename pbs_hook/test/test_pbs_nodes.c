/* SPDX-License-Identifier: MIT */
/* test_pbs_nodes.c: PBS's vnodes and what they tell the model (pbs_nodes.c)
 * — read from pbsnodes (a real OpenPBS's output included), tied to the VMs
 * by name and marker, nodes that never reported counted as booting until
 * boot_timeout, and nodes that read down for a moment still counted as
 * capacity. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "engine/match.h"
#include "engine/plan.h"
#include "fixture.h"
#include "pbs_actions.h"
#include "pbs_nodes.h"

/* A Ready VM that does not serve PBS yet — no PBS node (its join fails),
 * still joining, or joined with a mom that has not reported — is capacity
 * that is booting until it has waited boot_timeout (1800 s by default), by
 * ccautoscale's own clock (the times state): then it is given no work and
 * replaced, deleted from PBS without a drain. */
static void test_join_stuck (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct ccas_cluster *c = model ("cyclecloud-nodes.json");
    double now = (double)time (NULL);
    struct ccas_pbs_nodes *pn = pbs_nodes (c, "pbsnodes-stuck.json");
    /* never reported: booting capacity, not down */
    assert_false (ccas_cluster_find_node (c, "htc-3")->sched_offline);
    char text[600];
    snprintf (text, sizeof (text),
              "{\"id1\": {\"first_seen\": 0, \"pbs_waiting\": %.0f}, \"id2\": {\"first_seen\": 0, "
              "\"pbs_waiting\": %.0f},"
              " \"id3\": {\"first_seen\": 0, \"pbs_waiting\": %.0f}, \"id4\": {\"first_seen\": 0, "
              "\"pbs_waiting\": %.0f},"
              " \"id5\": {\"first_seen\": 0, \"pbs_waiting\": %.0f}}",
              now - 60, now - 4000, now - 60, now - 4000, now - 4000);
    json_object *times = json_tokener_parse (text);
    assert_int_equal (ccas_pbs_nodes_judge (pn, c, times, now), 3);
    assert_true (ccas_node_usable (ccas_cluster_find_node (c, "htc-1")));
    assert_false (ccas_node_usable (ccas_cluster_find_node (c, "htc-2")));
    assert_true (ccas_node_usable (ccas_cluster_find_node (c, "htc-3")));
    assert_false (ccas_node_usable (ccas_cluster_find_node (c, "htc-4")));
    assert_false (ccas_node_usable (ccas_cluster_find_node (c, "htc-5"))); /* no PBS node for an hour */
    assert_string_equal (ccas_pbs_nodes_waiting_why (pn, ccas_cluster_find_node (c, "htc-5")),
                         "PBS has no node for it (its create has not been done, or fails)");

    struct ccas_jobs *jobs = ccas_jobs_create (1);
    assert_int_equal (ccas_match (c, jobs, NULL, &err), 0);
    struct ccas_plan *plan = ccas_plan_create (c, jobs, &err);
    struct ccas_pbs_actions a;
    assert_int_equal (ccas_pbs_actions_plan (plan, pn, NULL, &a, &err), 0);
    assert_true (terminated (plan, "htc-2"));
    assert_int_equal (action_for (&a, "htc-2")->kind, CCAS_PBS_DELETE);
    assert_true (terminated (plan, "htc-4"));
    assert_int_equal (action_for (&a, "htc-4")->kind,
                      CCAS_PBS_DELETE); /* no drain: its mom never ran a job */
    assert_true (terminated (plan, "htc-5"));
    assert_null (action_for (&a, "htc-5"));
    assert_false (terminated (plan, "htc-1"));
    assert_false (terminated (plan, "htc-3"));
    for (size_t i = 0; i < plan->nterminates; i++)
        if (strcmp (plan->terminates[i].node->name, "htc-4") == 0)
            assert_non_null (strstr (plan->terminates[i].reason, "its pbs_mom has not reported"));
    ccas_pbs_actions_free (&a);
    ccas_plan_destroy (plan);
    ccas_jobs_destroy (jobs);
    json_object_put (times);
    ccas_pbs_nodes_destroy (pn);
    model_free (c);
}

/* Every node reads down for ~2 s after any `qmgr create node`, and
 * state-unknown,down for seconds after pbs_server starts, with an old
 * last_state_change_time: a node whose mom reported still counts as capacity
 * until ccautoscale has seen it down for CCAS_PBS_DOWN_GRACE seconds. */
static void test_down_grace (void **state)
{
    (void)state;
    struct ccas_cluster *c = model ("cyclecloud-nodes.json");
    double now = (double)time (NULL);
    struct ccas_pbs_nodes *pn = pbs_nodes (c, "pbsnodes-down.json");
    assert_true (ccas_cluster_find_node (c, "htc-1")->sched_offline); /* merge alone: down is down */
    char text[300];
    snprintf (text, sizeof (text),
              "{\"id3\": {\"first_seen\": 0, \"pbs_down\": %.0f}, \"id4\": {\"pbs_down\": 5}}", now - 600);
    json_object *times = json_tokener_parse (text);
    assert_int_equal (ccas_pbs_nodes_judge (pn, c, times, now), 0);
    assert_false (ccas_cluster_find_node (c, "htc-1")->sched_offline); /* first seen down now */
    assert_false (ccas_cluster_find_node (c, "htc-2")->sched_offline);
    assert_true (ccas_cluster_find_node (c, "htc-3")->sched_offline); /* down for 10 minutes */
    assert_false (ccas_cluster_find_node (c, "htc-4")->sched_offline);
    json_object *t1 = ccas_json_get (times, "id1");
    assert_non_null (ccas_json_get (t1, "pbs_down"));
    assert_null (ccas_json_get (ccas_json_get (times, "id4"), "pbs_down")); /* up again: forgotten */
    json_object_put (times);
    ccas_pbs_nodes_destroy (pn);
    model_free (c);
}

/* What a real OpenPBS printed: vnodes made by `qmgr create node` whose mom
 * never reported (state-unknown,down, pbs_version "unavailable", no pcpus),
 * and the mom's own node running jobs. */
static void test_nodes_openpbs_capture (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    size_t len;
    char *text = pf_text ("openpbs/pbsnodes-joined.json", &len);
    json_object *doc = ccas_pbs_json_parse (text, len, "pbsnodes", "nodes", NULL, NULL, &err);
    free (text);
    struct ccas_pbs_nodes *pn = ccas_pbs_nodes_from_json (doc, &err);
    assert_non_null (pn);
    assert_int_equal (pn->n, 8);
    /* the server's own mom, reported and free */
    assert_string_equal (pn->v[0].name, "vm");
    assert_true (pn->v[0].reported);
    assert_false (pn->v[0].down);
    assert_null (pn->v[0].ccnodeid);
    for (size_t i = 1; i < pn->n; i++) {
        const struct ccas_pbs_node *p = &pn->v[i];
        assert_true (p->down);
        assert_false (p->offline);
        assert_false (p->reported);
        assert_int_equal (p->njobs, 0);
        assert_non_null (p->ccnodeid);
        assert_false (ccas_pbs_node_joining (p));
        assert_false (ccas_pbs_node_draining (p));
    }
    assert_string_equal (pn->v[1].name, "execute-1");
    assert_string_equal (pn->v[1].ccnodeid, "3884c6f6-0a72-61e1-6901-23a849b342d0");
    ccas_pbs_nodes_destroy (pn);

    text = pf_text ("openpbs/pbsnodes-av-json-running.json", &len);
    doc = ccas_pbs_json_parse (text, len, "pbsnodes", "nodes", NULL, NULL, &err);
    free (text);
    pn = ccas_pbs_nodes_from_json (doc, &err);
    assert_non_null (pn);
    assert_int_equal (pn->n, 1);
    assert_string_equal (pn->v[0].name, "vm");
    assert_int_equal (pn->v[0].njobs, 5);
    assert_true (pn->v[0].reported);
    assert_false (pn->v[0].down);
    assert_true (pn->v[0].changed == 1795658621);
    assert_null (pn->v[0].ccnodeid);
    assert_null (pn->v[0].comment);
    ccas_pbs_nodes_destroy (pn);
}

/* A pbsnodes document of the wrong shape is an error naming it; no nodes
 * at all (PBS then prints no "nodes") is none; an entry that is not an
 * object is left out. */
static void test_nodes_shapes (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    assert_null (ccas_pbs_nodes_from_json (json_tokener_parse ("{\"nodes\": [1]}"), &err));
    assert_string_equal (err.text, "pbsnodes: nodes: expected an object, got an array");
    struct ccas_pbs_nodes *pn = ccas_pbs_nodes_from_json (json_tokener_parse ("{\"timestamp\": 1}"), &err);
    assert_non_null (pn);
    assert_int_equal (pn->n, 0);
    ccas_pbs_nodes_destroy (pn);
    pn = ccas_pbs_nodes_from_json (json_tokener_parse ("{\"nodes\": {\"a\": 3, \"b\": null, \"c\": {}}}"),
                                   &err);
    assert_non_null (pn);
    assert_int_equal (pn->n, 1);
    assert_string_equal (pn->v[0].name, "c");
    ccas_pbs_nodes_destroy (pn);
    ccas_pbs_nodes_destroy (NULL);
}

/* Merging: a PBS node is a VM's by its name, or the short form of a
 * qualified name, unless its marker names another VM; what its state says
 * (busy, offline by the administrator, still joining, down) reaches the
 * model; ccautoscale's comments are told apart from others. */
static void test_nodes_merge (void **state)
{
    (void)state;
    struct ccas_cluster *c = model ("cyclecloud-nodes.json");
    struct ccas_pbs_nodes *pn = pbs_nodes (c, "pbsnodes-pass.json");
    assert_true (ccas_cluster_find_node (c, "htc-1")->busy);
    assert_int_equal (ccas_cluster_find_node (c, "htc-1")->sched_jobs, 1);
    assert_false (ccas_cluster_find_node (c, "htc-2")->busy);
    assert_true (ccas_cluster_find_node (c, "htc-3")->sched_offline); /* drained */
    assert_true (ccas_cluster_find_node (c, "htc-4")->sched_offline); /* the administrator's */
    const struct ccas_pbs_node *p3 = ccas_pbs_nodes_find (pn, ccas_cluster_find_node (c, "htc-3"));
    assert_non_null (p3);
    assert_true (ccas_pbs_node_draining (p3));
    assert_false (ccas_pbs_node_joining (p3));
    assert_false (ccas_pbs_node_draining (ccas_pbs_nodes_find (pn, ccas_cluster_find_node (c, "htc-4"))));
    assert_null (ccas_pbs_nodes_find (pn, ccas_cluster_find_node (c, "htc-5"))); /* not in PBS */
    for (size_t i = 0; i < pn->n; i++)
        if (strcmp (pn->v[i].name, "old-9") == 0 || strcmp (pn->v[i].name, "static-1") == 0)
            assert_null (pn->v[i].cc);
    ccas_pbs_nodes_destroy (pn);
    model_free (c);

    struct ccas_error err = {""};
    c = model ("cyclecloud-nodes.json");
    pn = ccas_pbs_nodes_from_json (
        json_tokener_parse (
            "{\"nodes\": {"
            " \"htc-1.internal.cloudapp.net\": {\"state\": \"job-busy\", \"jobs\": [\"1.s\"],"
            "   \"resources_available\": {\"ccnodeid\": \"id1\"}},"
            " \"htc-2\": {\"state\": \"free\", \"resources_available\": {\"ccnodeid\": \"id9\"}},"
            " \"htc-3\": {\"state\": \"offline\", \"comment\": \"ccautoscale: joining\"}}}"),
        &err);
    assert_non_null (pn);
    ccas_pbs_nodes_merge (pn, c);
    assert_true (ccas_cluster_find_node (c, "htc-1")->busy);                     /* by its short name */
    assert_null (ccas_pbs_nodes_find (pn, ccas_cluster_find_node (c, "htc-2"))); /* another VM's marker */
    assert_false (ccas_cluster_find_node (c, "htc-3")->sched_offline);           /* joining: about to work */
    assert_true (ccas_pbs_node_joining (ccas_pbs_nodes_find (pn, ccas_cluster_find_node (c, "htc-3"))));
    assert_string_equal (ccas_pbs_nodes_waiting_why (pn, ccas_cluster_find_node (c, "htc-3")),
                         "its join has not finished");
    assert_string_equal (ccas_pbs_nodes_waiting_why (pn, ccas_cluster_find_node (c, "htc-2")),
                         "PBS has no node for it (its create has not been done, or fails)");
    assert_null (ccas_pbs_nodes_waiting_why (pn, ccas_cluster_find_node (c, "htc-1")));
    ccas_pbs_nodes_destroy (pn);
    model_free (c);
}

/* The comments that make a node ccautoscale's to put online: the stock
 * setup's and azpbs's (as prefixes, as azpbs read them) and an older
 * release's joining comment; never the administrator's, "cyclecloud keep
 * offline" included.  pbs.ignore_hostnames drops nodes by a regular
 * expression matched from the start of the name. */
static void test_nodes_markers (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    static const struct {
        const char *comment;
        bool marked;
    } cases[] = {
        {"cyclecloud offline", true},
        {"cyclecloud joined", true},
        {"cyclecloud restored", true},
        {"cyclecloud restored: back from maintenance", true},
        {"ccautoscale: joining", true},
        {"ccautoscale: joining soon", false},
        {"ccautoscale: joined", false},
        {"ccautoscale: draining: idle for 400 s", false},
        {"cyclecloud keep offline", false},
        {"cyclecloud keep offline: bad DIMM", false},
        {"bad DIMM, ticket 42", false},
        {"", false},
        {NULL, false},
    };
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++)
        if (ccas_pbs_comment_marked (cases[i].comment) != cases[i].marked)
            fail_msg ("'%s': marked should be %d", cases[i].comment ? cases[i].comment : "(null)",
                      cases[i].marked);
    struct ccas_pbs_node online = {.name = "x", .comment = "cyclecloud offline", .offline = false};
    assert_false (ccas_pbs_node_joining (&online)); /* online already */

    struct ccas_pbs_nodes *pn = ccas_pbs_nodes_from_json (pf_json ("pbsnodes-booting.json"), &err);
    assert_non_null (pn);
    regex_t re;
    assert_int_equal (regcomp (&re, "onprem-|hpc", REG_EXTENDED), 0);
    assert_int_equal (ccas_pbs_nodes_ignore (pn, &re), 3);
    assert_int_equal (pn->n, 2);
    regfree (&re);
    assert_int_equal (regcomp (&re, "tc-", REG_EXTENDED), 0); /* from the start only */
    assert_int_equal (ccas_pbs_nodes_ignore (pn, &re), 0);
    regfree (&re);
    assert_int_equal (ccas_pbs_nodes_ignore (pn, NULL), 0);
    ccas_pbs_nodes_destroy (pn);
}

/* The stock setup starts a VM's mom while it boots; right after, its vnode
 * reads down for a moment (every node does after a create node): a booting
 * VM so still counts as capacity within CCAS_PBS_DOWN_GRACE, as a Ready
 * one does (a job waiting for it made a second VM). */
static void test_down_grace_booting (void **state)
{
    (void)state;
    struct ccas_cluster *c = model ("cyclecloud-booting.json");
    struct ccas_pbs_nodes *pn = pbs_nodes (c, "pbsnodes-booting.json");
    struct ccas_pbs_node *p = ccas_pbs_nodes_find (pn, ccas_cluster_find_node (c, "hpc-2"));
    assert_non_null (p);
    p->down = p->reported = true; /* reported, then down a moment */
    ccas_pbs_nodes_merge (pn, c);
    assert_true (ccas_cluster_find_node (c, "hpc-2")->sched_offline);
    double now = (double)time (NULL);
    json_object *times = json_object_new_object ();
    assert_int_equal (ccas_pbs_nodes_judge (pn, c, times, now), 0);
    assert_false (ccas_cluster_find_node (c, "hpc-2")->sched_offline);
    assert_true (ccas_node_usable (ccas_cluster_find_node (c, "hpc-2")));
    /* down past the grace: no longer capacity */
    json_object_object_add (json_object_object_get (times, "id12"), "pbs_down",
                            json_object_new_double (now - CCAS_PBS_DOWN_GRACE - 1));
    ccas_pbs_nodes_merge (pn, c);
    assert_int_equal (ccas_pbs_nodes_judge (pn, c, times, now), 0);
    assert_true (ccas_cluster_find_node (c, "hpc-2")->sched_offline);
    json_object_put (times);
    ccas_pbs_nodes_destroy (pn);
    model_free (c);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_join_stuck),
        cmocka_unit_test (test_down_grace),
        cmocka_unit_test (test_nodes_openpbs_capture),
        cmocka_unit_test (test_nodes_shapes),
        cmocka_unit_test (test_nodes_merge),
        cmocka_unit_test (test_nodes_markers),
        cmocka_unit_test (test_down_grace_booting),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
