/* SPDX-License-Identifier: MIT */
/* test_pbs_actions.c: the PBS side of a pass (pbs_actions.c) — which nodes to
 * join, drain, delete and forget, decided from the plan: busy nodes kept,
 * idle ones drained before they are deleted, the administrator's left
 * alone, a join never reopening a node; the decisions carried out by a
 * stand-in qmgr (standin.h), a VM whose deletion from PBS failed kept, and
 * the outcomes as JSON. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine/match.h"
#include "engine/plan.h"
#include "engine/scaledown.h"
#include "fixture.h"
#include "pbs_actions.h"
#include "standin.h"

/* pbsnodes-pass.json: htc-1 busy; htc-2 idle and online; htc-3 drained by
 * us; htc-4 offline by the administrator; htc-5 not in PBS; htc-6 failed;
 * old-9 registered for a VM gone; static-1 not ccautoscale's. */
static void test_pass_decisions (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct ccas_cluster *c = model ("cyclecloud-nodes.json");
    struct ccas_pbs_nodes *pn = pbs_nodes (c, "pbsnodes-pass.json");
    struct ccas_node *h1 = ccas_cluster_find_node (c, "htc-1");
    assert_true (h1->busy);
    assert_true (ccas_cluster_find_node (c, "htc-3")->sched_offline);

    struct ccas_jobs *jobs = ccas_jobs_create (1);
    assert_int_equal (ccas_match (c, jobs, NULL, &err), 0);
    struct ccas_plan *plan = ccas_plan_create (c, jobs, &err);
    /* every node has been idle for an hour */
    json_object *times = json_tokener_parse ("{\"id1\": {\"first_seen\": 0, \"last_busy\": 0},"
                                             " \"id2\": {\"first_seen\": 0, \"last_busy\": 0},"
                                             " \"id3\": {\"first_seen\": 0, \"last_busy\": 0},"
                                             " \"id4\": {\"first_seen\": 0, \"last_busy\": 0},"
                                             " \"id5\": {\"first_seen\": 0, \"last_busy\": 0},"
                                             " \"id6\": {\"first_seen\": 0, \"last_busy\": 0}}");
    assert_int_equal (ccas_scaledown_plan (plan, times, 3600, &err), 0);
    struct ccas_pbs_actions a;
    assert_int_equal (ccas_pbs_actions_plan (plan, pn, NULL, &a, &err), 0);

    assert_null (action_for (&a, "htc-1")); /* busy: nothing */
    assert_false (terminated (plan, "htc-1"));
    assert_int_equal (action_for (&a, "htc-2")->kind, CCAS_PBS_DRAIN); /* idle, online: drain first */
    assert_false (terminated (plan, "htc-2"));
    assert_int_equal (action_for (&a, "htc-3")->kind,
                      CCAS_PBS_DELETE); /* drained and idle: delete, terminate */
    assert_true (terminated (plan, "htc-3"));
    assert_null (action_for (&a, "htc-4")); /* the administrator's */
    assert_false (terminated (plan, "htc-4"));
    assert_true (terminated (plan, "htc-5")); /* never joined: terminate only */
    assert_null (action_for (&a, "htc-5"));
    assert_int_equal (action_for (&a, "htc-6")->kind, CCAS_PBS_DELETE); /* failed VM */
    assert_true (terminated (plan, "htc-6"));
    assert_int_equal (action_for (&a, "old-9")->kind, CCAS_PBS_FORGET);
    assert_null (action_for (&a, "static-1")); /* not ours */

    json_object *j = ccas_pbs_actions_json (&a, false);
    assert_int_equal (json_object_array_length (ccas_json_get (j, "drain")), 1);
    assert_int_equal (json_object_array_length (ccas_json_get (j, "delete")), 2);
    assert_int_equal (json_object_array_length (ccas_json_get (j, "forget")), 1);
    assert_int_equal (json_object_array_length (ccas_json_get (j, "join")), 0);
    /* not applied: every action only planned, each saying why */
    json_object *forget = json_object_array_get_idx (ccas_json_get (j, "forget"), 0);
    assert_string_equal (ccas_json_str (forget, "node"), "old-9");
    assert_string_equal (ccas_json_str (forget, "why"), "its VM has gone");
    assert_string_equal (ccas_json_str (forget, "outcome"), "planned");
    assert_null (ccas_json_get (forget, "error"));
    json_object_put (j);
    assert_int_equal (ccas_pbs_actions_failures (&a), 0);
    ccas_pbs_actions_free (&a);
    ccas_pbs_actions_free (&a); /* twice is harmless */
    json_object_put (times);
    ccas_plan_destroy (plan);
    ccas_jobs_destroy (jobs);
    ccas_pbs_nodes_destroy (pn);
    model_free (c);
}

static void test_join_ready_nodes (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct ccas_cluster *c = model ("cyclecloud-nodes.json");
    /* htc-2 is known to PBS without the marker (a join that failed half-way) */
    struct ccas_pbs_nodes *pn = ccas_pbs_nodes_from_json (
        json_tokener_parse ("{\"nodes\": {\"htc-2\": {\"state\": \"free\", \"resources_available\": {}}}}"),
        &err);
    ccas_pbs_nodes_merge (pn, c);
    struct ccas_jobs *jobs = ccas_jobs_create (1);
    assert_int_equal (ccas_match (c, jobs, NULL, &err), 0);
    struct ccas_plan *plan = ccas_plan_create (c, jobs, &err);
    struct ccas_pbs_actions a;
    assert_int_equal (ccas_pbs_actions_plan (plan, pn, NULL, &a, &err), 0);
    size_t joins = 0;
    for (size_t i = 0; i < a.n; i++)
        joins += a.v[i].kind == CCAS_PBS_JOIN;
    assert_int_equal (joins, 5);                     /* htc-1..5 Ready; htc-6 failed */
    assert_non_null (action_for (&a, "htc-2")->pbs); /* registered, not created again */
    assert_true (action_for (&a, "htc-2")->online);  /* Ready: PBS uses it once its mom reports */
    assert_null (action_for (&a, "htc-1")->pbs);     /* created, offline */
    assert_string_equal (action_for (&a, "htc-1")->why, "ready");
    assert_string_equal (action_for (&a, "htc-2")->why, "ready: its setup has run");
    ccas_pbs_actions_free (&a);
    ccas_plan_destroy (plan);
    ccas_jobs_destroy (jobs);
    ccas_pbs_nodes_destroy (pn);
    model_free (c);
}

/* Putting a node online must never reach a node that is draining or that
 * the administrator took offline, even without the marker; a join an older
 * release left halfway (the node offline with its joining comment) is taken
 * up again; such a node is ours: given back without a drain when idle,
 * forgotten when its VM has gone. */
static void test_join_never_reopens (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct ccas_cluster *c = model ("cyclecloud-nodes.json");
    struct ccas_pbs_nodes *pn = pbs_nodes (c, "pbsnodes-reopen.json");
    /* still joining is not offline for the matching: it is about to take work */
    assert_false (ccas_cluster_find_node (c, "htc-5")->sched_offline);
    assert_true (ccas_cluster_find_node (c, "htc-4")->sched_offline);
    struct ccas_jobs *jobs = ccas_jobs_create (1);
    assert_int_equal (ccas_match (c, jobs, NULL, &err), 0);
    struct ccas_plan *plan = ccas_plan_create (c, jobs, &err);
    /* htc-2 (failed joins: in PBS, no marker) and htc-5 idle for an hour; the others busy a moment ago */
    json_object *times = json_tokener_parse ("{\"id1\": {\"first_seen\": 0, \"last_busy\": 3500},"
                                             " \"id2\": {\"first_seen\": 0, \"last_busy\": 0},"
                                             " \"id3\": {\"first_seen\": 0, \"last_busy\": 3500},"
                                             " \"id4\": {\"first_seen\": 0, \"last_busy\": 3500},"
                                             " \"id5\": {\"first_seen\": 0, \"last_busy\": 0}}");
    assert_int_equal (ccas_scaledown_plan (plan, times, 3600, &err), 0);
    struct ccas_pbs_actions a;
    assert_int_equal (ccas_pbs_actions_plan (plan, pn, NULL, &a, &err), 0);
    size_t per_host[8] = {0};
    for (size_t i = 0; i < a.n; i++)
        if (strncmp (a.v[i].host, "htc-", 4) == 0)
            per_host[a.v[i].host[4] - '0']++;
    for (int h = 1; h <= 6; h++)
        assert_true (per_host[h] <= 1); /* never drained and joined in one pass */
    /* marker set, offline with an older release's joining comment, its mom
     * reported: put online */
    assert_int_equal (action_for (&a, "htc-1")->kind, CCAS_PBS_ONLINE);
    assert_non_null (action_for (&a, "htc-1")->pbs);
    assert_int_equal (action_for (&a, "htc-2")->kind, CCAS_PBS_DRAIN);
    assert_null (action_for (&a, "htc-3"));                             /* draining */
    assert_null (action_for (&a, "htc-4"));                             /* the administrator's */
    assert_int_equal (action_for (&a, "htc-5")->kind, CCAS_PBS_DELETE); /* never online: no drain */
    assert_true (terminated (plan, "htc-5"));
    assert_int_equal (action_for (&a, "old-8")->kind, CCAS_PBS_FORGET);
    assert_null (action_for (&a, "static-1")); /* not our comment */
    ccas_pbs_actions_free (&a);
    json_object_put (times);
    ccas_plan_destroy (plan);
    ccas_jobs_destroy (jobs);
    ccas_pbs_nodes_destroy (pn);
    model_free (c);
}

/* Carried out: deletions, drains and forgets before the plan is applied,
 * joins after; a node whose deletion from PBS failed is taken out of the
 * plan's terminations (never a VM gone behind a registered node); each
 * action's outcome and error in the JSON. */
static void test_pass_apply (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct ccas_cluster *c = model ("cyclecloud-nodes.json");
    struct ccas_pbs_nodes *pn = pbs_nodes (c, "pbsnodes-pass.json");
    struct ccas_jobs *jobs = ccas_jobs_create (1);
    assert_int_equal (ccas_match (c, jobs, NULL, &err), 0);
    struct ccas_plan *plan = ccas_plan_create (c, jobs, &err);
    json_object *times = json_tokener_parse ("{\"id2\": {\"first_seen\": 0, \"last_busy\": 0},"
                                             " \"id3\": {\"first_seen\": 0, \"last_busy\": 0},"
                                             " \"id6\": {\"first_seen\": 0, \"last_busy\": 0}}");
    assert_int_equal (ccas_scaledown_plan (plan, times, 3600, &err), 0);
    struct ccas_pbs_actions a;
    assert_int_equal (ccas_pbs_actions_plan (plan, pn, NULL, &a, &err), 0);
    assert_true (terminated (plan, "htc-3"));
    assert_true (terminated (plan, "htc-6"));
    /* PBS refuses to delete htc-3; old-9 is gone already */
    standin_reset ();
    standin_set ("qmgr.err", "qmgr obj=htc-3 svr=default: Request invalid for state of node\n"
                             "qmgr obj=old-9 svr=default: Unknown node\n");
    standin_set ("qmgr.status", "1");
    ccas_pbs_actions_before (&a, plan);
    char *calls = standin_calls ();
    assert_non_null (
        strstr (calls, "< set node htc-2 state += offline, comment = \"ccautoscale: draining: "));
    assert_non_null (strstr (calls, "< delete node htc-3\n"));
    assert_non_null (strstr (calls, "< delete node htc-6\n"));
    assert_non_null (strstr (calls, "< delete node old-9\n"));
    assert_null (strstr (calls, "create node")); /* creates come after the plan */
    free (calls);
    assert_int_equal (action_for (&a, "htc-2")->outcome, CCAS_DONE);
    assert_int_equal (action_for (&a, "htc-3")->outcome, CCAS_FAILED);
    assert_string_equal (action_for (&a, "htc-3")->error, "qmgr: Request invalid for state of node");
    assert_int_equal (action_for (&a, "old-9")->outcome, CCAS_DONE);
    assert_false (terminated (plan, "htc-3")); /* still in PBS: the VM stays */
    assert_true (terminated (plan, "htc-6"));
    assert_int_equal (ccas_pbs_actions_failures (&a), 1);
    json_object *j = ccas_pbs_actions_json (&a, true);
    json_object *del = ccas_json_get (j, "delete");
    for (size_t i = 0; i < json_object_array_length (del); i++) {
        json_object *e = json_object_array_get_idx (del, i);
        bool h3 = strcmp (ccas_json_str (e, "node"), "htc-3") == 0;
        assert_string_equal (ccas_json_str (e, "outcome"), h3 ? "failed" : "done");
        if (h3)
            assert_string_equal (ccas_json_str (e, "error"), "qmgr: Request invalid for state of node");
    }
    json_object_put (j);
    ccas_pbs_actions_free (&a);
    ccas_plan_destroy (plan);
    ccas_jobs_destroy (jobs);
    json_object_put (times);
    ccas_pbs_nodes_destroy (pn);
    model_free (c);

    /* joins, after the plan: htc-1..5 Ready and not in PBS; qmgr refuses htc-4's resources */
    c = model ("cyclecloud-nodes.json");
    pn = ccas_pbs_nodes_from_json (json_tokener_parse ("{\"nodes\": {}}"), &err);
    ccas_pbs_nodes_merge (pn, c);
    jobs = ccas_jobs_create (1);
    assert_int_equal (ccas_match (c, jobs, NULL, &err), 0);
    plan = ccas_plan_create (c, jobs, &err);
    assert_int_equal (ccas_pbs_actions_plan (plan, pn, NULL, &a, &err), 0);
    standin_reset ();
    ccas_pbs_actions_before (&a, plan);
    char *none = standin_calls ();
    assert_string_equal (none, ""); /* nothing to do before: no qmgr */
    free (none);
    standin_set ("qmgr.1.err", "qmgr obj=htc-4 svr=default: Illegal attribute or resource value\n");
    standin_set ("qmgr.1.status", "1");
    static const char *const names[] = {"ncpus", NULL};
    ccas_pbs_actions_after (&a, c, names);
    assert_int_equal (ccas_pbs_actions_failures (&a), 1);
    assert_int_equal (action_for (&a, "htc-4")->outcome, CCAS_FAILED);
    assert_int_equal (action_for (&a, "htc-5")->outcome, CCAS_DONE);
    calls = standin_calls ();
    /* one create with everything; the name of the refused create of htc-4 deleted */
    assert_non_null (strstr (calls, "< create node htc-5 state = offline, comment = \"cyclecloud joined\", "
                                    "resources_available.ncpus = 2,"));
    assert_non_null (strstr (calls, "qmgr\n< delete node htc-4\n"));
    assert_null (strstr (calls, "set node htc-5"));
    free (calls);
    ccas_pbs_actions_free (&a);
    ccas_plan_destroy (plan);
    ccas_jobs_destroy (jobs);
    ccas_pbs_nodes_destroy (pn);
    model_free (c);
}

/* The stock execute setup waits, while its VM boots, for a vnode carrying
 * its node id: a booting VM whose hostname and address CycleCloud reports
 * gets its vnode (created, offline), one without them waits; a node its setup
 * offlined ("cyclecloud offline") goes online once Ready with its mom
 * reported; "cyclecloud keep offline" is the administrator's; a placement
 * group member waits for the group; pbs.valid_hostnames and the kept-out
 * list keep VMs out; a vnode outside CycleCloud is left alone. */
static void test_join_at_boot (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct ccas_cluster *c = model ("cyclecloud-booting.json");
    struct ccas_pbs_nodes *pn = pbs_nodes (c, "pbsnodes-booting.json");
    /* a VM being joined still counts as capacity: not offline for the matching */
    assert_false (ccas_cluster_find_node (c, "htc-3")->sched_offline);
    assert_false (ccas_cluster_find_node (c, "hpc-2")->sched_offline);
    assert_true (ccas_cluster_find_node (c, "htc-4")->sched_offline);
    json_object *removed = json_tokener_parse ("{\"id6\": {\"by\": \"ccautoscale\"}}");
    assert_int_equal (ccas_pbs_nodes_keep_out (pn, c, removed), 1);
    assert_true (ccas_pbs_nodes_kept_out (pn, ccas_cluster_find_node (c, "htc-6")));
    assert_true (ccas_cluster_find_node (c, "htc-6")->keep_alive);
    /* what `pbs nodes` says of each */
    static const struct {
        const char *vm, *role;
    } roles[] = {
        {"htc-1", "booting, no vnode yet"},
        {"htc-2", "booting, no address yet"},
        {"htc-3", "to be put online"},
        {"htc-4", "offline (the administrator's)"},
        {"htc-6", "kept out (pbs remove-nodes --permanent)"},
        {"hpc-1", "to be put online"},
        {"hpc-2", "booting, vnode made"},
    };
    for (size_t i = 0; i < sizeof (roles) / sizeof (roles[0]); i++) {
        const struct ccas_node *n = ccas_cluster_find_node (c, roles[i].vm);
        assert_string_equal (ccas_pbs_nodes_role (pn, n, ccas_pbs_nodes_find (pn, n)), roles[i].role);
    }
    for (size_t i = 0; i < pn->n; i++)
        if (strcmp (pn->v[i].name, "onprem-7") == 0)
            assert_string_equal (ccas_pbs_nodes_role (pn, NULL, &pn->v[i]), "not CycleCloud's");
    regex_t valid;
    assert_int_equal (regcomp (&valid, "htc-[1-4]|hpc-", REG_EXTENDED), 0);
    struct ccas_pbs_join_rules rules = {&valid, 1};

    struct ccas_jobs *jobs = ccas_jobs_create (1);
    assert_int_equal (ccas_match (c, jobs, NULL, &err), 0);
    struct ccas_plan *plan = ccas_plan_create (c, jobs, &err);
    struct ccas_pbs_actions a;
    assert_int_equal (ccas_pbs_actions_plan (plan, pn, &rules, &a, &err), 0);
    const struct ccas_pbs_action *x = action_for (&a, "htc-1");
    assert_int_equal (x->kind, CCAS_PBS_JOIN); /* booting, hostname and address known: created */
    assert_null (x->pbs);
    assert_string_equal (x->why, "booting: CycleCloud reports its hostname and address");
    assert_null (action_for (&a, "htc-2")); /* no hostname, no address yet */
    assert_int_equal (action_for (&a, "htc-3")->kind, CCAS_PBS_ONLINE);
    assert_null (action_for (&a, "htc-4")); /* the administrator's */
    assert_null (action_for (&a, "htc-5")); /* pbs.valid_hostnames */
    assert_null (action_for (&a, "htc-6")); /* kept out */
    assert_null (action_for (&a, "hpc-1")); /* its placement group is not whole: hpc-2 boots */
    assert_null (action_for (&a, "hpc-2"));
    assert_null (action_for (&a, "onprem-7"));
    assert_int_equal (a.n, 2);
    json_object *j = ccas_pbs_actions_json (&a, false);
    assert_int_equal (json_object_array_length (ccas_json_get (j, "online")), 1);
    assert_int_equal (json_object_array_length (ccas_json_get (j, "join")), 1);
    json_object_put (j);

    /* carried out: one qmgr, a booting VM the server cannot resolve yet is no failure */
    standin_reset ();
    standin_set ("qmgr.1.err", "qmgr obj=htc-1 svr=default: Unknown node \n");
    standin_set ("qmgr.1.status", "214");
    ccas_pbs_actions_after (&a, c, NULL);
    char *calls = standin_calls ();
    assert_non_null (
        strstr (calls, "< set node htc-3 state -= offline, comment = \"cyclecloud restored\"\n"));
    assert_null (strstr (calls, "delete"));
    free (calls);
    assert_int_equal (action_for (&a, "htc-1")->outcome, CCAS_PLANNED);
    assert_non_null (strstr (action_for (&a, "htc-1")->error, "cannot resolve its name yet"));
    assert_int_equal (action_for (&a, "htc-3")->outcome, CCAS_DONE);
    assert_int_equal (ccas_pbs_actions_failures (&a), 0);
    ccas_pbs_actions_free (&a);

    /* pbs join-nodes: only those named */
    assert_int_equal (ccas_pbs_actions_joins (c, pn, NULL, (const char *const[]){"htc-5", NULL}, &a, &err),
                      0);
    assert_int_equal (a.n, 1);
    assert_int_equal (action_for (&a, "htc-5")->kind, CCAS_PBS_JOIN);
    ccas_pbs_actions_free (&a);
    ccas_plan_destroy (plan);
    ccas_jobs_destroy (jobs);
    regfree (&valid);
    json_object_put (removed);
    ccas_pbs_nodes_destroy (pn);
    model_free (c);
}

int main (int argc, char **argv)
{
    standin_main (argc, argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_pass_decisions),     cmocka_unit_test (test_join_ready_nodes),
        cmocka_unit_test (test_join_never_reopens), cmocka_unit_test (test_pass_apply),
        cmocka_unit_test (test_join_at_boot),
    };
    return cmocka_run_group_tests (tests, standin_setup, standin_teardown);
}
