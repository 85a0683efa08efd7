/* SPDX-License-Identifier: MIT */
/* test_targets.c: the autoscale API's targets (targets.c) — counting nodes
 * by their marks, growing by nodes, cores and groups (with the
 * machine-type fallback), sets that expire or hold the same array, and
 * every autostop decision.  The nodes are tests/data/targets-nodes.json;
 * the requests themselves are test_request_set.c's. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "engine/plan.h"
#include "engine/request_set.h"
#include "engine/targets.h"
#include "request_fixture.h"
#include "util/json.h"

/* targets-nodes.json: htc-1 (F2s_v2) and htc-2 (F4s_v2) unmarked; htc-3 of
 * array big, htc-4 of old (set standard); htc-5 of big in set other, with
 * KeepAlive; htc-8 of ghost in a set that does not exist; hpc-1 and hpc-2
 * in group g1 and hpc-3 in g2, array hpc:2nodes; htc-6 Deallocated; htc-7
 * Terminating. */

/* A set recorded at `time` for `expiration` s with `request` (and, flagged
 * for removal, the dynamic arrays of `before` it drops). */
static struct ccas_request_set *set_with (struct fixture *f, const char *name, const char *before,
                                          const char *request, double time, double expiration)
{
    struct ccas_error err = {""};
    struct ccas_request_set *s = ccas_request_set_load (f->dir, name, &err);
    assert_non_null (s);
    if (before)
        assert_int_equal (ccas_request_set_replace (s, parse (f, before, &err), time - 1, expiration, &err),
                          0);
    json_object *a = parse (f, request, &err);
    if (!a)
        fail_msg ("%s", err.text);
    assert_int_equal (ccas_request_set_replace (s, a, time, expiration, &err), 0);
    return s;
}

static struct ccas_bucket *fx_bucket_of (struct ccas_cluster *c, const char *na, const char *mt)
{
    struct ccas_bucket *b = ccas_cluster_bucket (c, na, mt);
    if (!b)
        fail_msg ("no bucket %s/%s", na, mt);
    return b;
}

static const struct ccas_target_view *view (const struct ccas_targets *t, const char *set, const char *name)
{
    for (size_t i = 0; i < t->nviews; i++)
        if (strcmp (t->views[i].set->name, set) == 0 && strcmp (t->views[i].name, name) == 0)
            return &t->views[i];
    fail_msg ("no view %s/%s", set, name);
    return NULL;
}

static void test_counts_by_mark (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct fixture *f = setup_cluster ("targets-nodes.json", -1);
    struct ccas_request_set *s = set_with (
        f, "standard", "[{\"Name\": \"old\", \"Extends\": \"htc\", \"Dynamic\": true}]",
        "[{\"Name\": \"htc\", \"TargetCount\": 2}, {\"Name\": \"big\", \"Extends\": \"htc\", \"Dynamic\": "
        "true,"
        " \"TargetCount\": 1}, {\"Name\": \"hpc\", \"TargetGroupCount\": 1, \"GroupInstanceCount\": 2}]",
        1000, 300);
    struct ccas_targets *t = ccas_targets_create (f->c, &s, 1, 1010, &err);
    assert_non_null (t);
    assert_int_equal (t->nviews, 4);
    const struct ccas_target_view *htc = view (t, "standard", "htc"), *big = view (t, "standard", "big");
    const struct ccas_target_view *hpc = view (t, "standard", "hpc:2nodes"),
                                  *old = view (t, "standard", "old");
    /* htc counts its unmarked running nodes: not big's, old's or the other set's, not the deallocated or
     * terminating one */
    assert_int_equal (htc->nodes, 2);
    assert_int_equal (htc->cores, 6);
    assert_int_equal (htc->stopped, 1);
    assert_int_equal (htc->present, 3);
    assert_int_equal (big->nodes, 1);
    assert_int_equal (hpc->nodes, 3);
    assert_int_equal (hpc->whole_groups, 1); /* g1 holds 2, g2 only 1 */
    assert_true (old->removing);
    assert_int_equal (old->present, 1);
    assert_true (htc->live);
    ccas_targets_destroy (t);
    ccas_request_set_destroy (s);
    teardown_cluster (f);
}

static void test_grow_flat (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct fixture *f = setup_cluster ("targets-nodes.json", -1);
    struct ccas_request_set *s =
        set_with (f, "standard", NULL,
                  "[{\"Name\": \"htc\", \"TargetCount\": 4, \"MachineType\": [\"Standard_F4s_v2\", "
                  "\"Standard_F2s_v2\"]},"
                  " {\"Name\": \"big\", \"Extends\": \"htc\", \"Dynamic\": true, \"TargetCoreCount\": 8,"
                  "  \"Configuration\": {\"app\": \"x\"}, \"MachineType\": \"Standard_F4s_v2\"}]",
                  1000, 300);
    struct ccas_targets *t = ccas_targets_create (f->c, &s, 1, 1010, &err);
    assert_int_equal (ccas_targets_grow (t, &err), 0);
    const struct ccas_target_view *htc = view (t, "standard", "htc"), *big = view (t, "standard", "big");
    /* htc: 2 running + the deallocated one started + 1 new in the first machine type */
    assert_int_equal (htc->started, 1);
    assert_int_equal (htc->new_nodes, 1);
    assert_int_equal (htc->short_by, 0);
    /* big: 2 cores running, 8 wanted: two 4-core nodes */
    assert_int_equal (big->new_nodes, 2);
    assert_int_equal (big->new_cores, 8);
    struct ccas_plan *plan = ccas_plan_create (f->c, NULL, &err);
    assert_non_null (plan);
    assert_int_equal (plan->nstarts, 1);
    assert_string_equal (plan->starts[0].node->name, "htc-6");
    assert_int_equal (plan->ncreates, 2); /* one bucket, two sets: different attributes */
    const struct ccas_plan_set *plain =
        plan->creates[0].node_attributes ? &plan->creates[1] : &plan->creates[0];
    const struct ccas_plan_set *marked = plain == &plan->creates[0] ? &plan->creates[1] : &plan->creates[0];
    assert_int_equal (plain->count, 1);
    assert_null (plain->node_attributes);
    assert_string_equal (plain->bucket->machine_type, "Standard_F4s_v2");
    assert_int_equal (marked->count, 2);
    json_object *cfg = ccas_json_get (marked->node_attributes, "Configuration");
    assert_string_equal (ccas_json_str (cfg, "app"), "x");
    assert_string_equal (ccas_json_str (ccas_json_get (cfg, "ccautoscale"), "array"), "big");
    assert_string_equal (ccas_json_str (ccas_json_get (cfg, "ccautoscale"), "request_set"), "standard");
    ccas_plan_destroy (plan);
    ccas_targets_destroy (t);
    ccas_request_set_destroy (s);
    teardown_cluster (f);
}

/* The node attributes an array sets travel with its new nodes, beside
 * its Configuration; MaxCount and MaxCoreCount stop its growth and say
 * so; a dynamic array without Extends grows in the nodearray that hosts it. */
static void test_grow_attributes_and_caps (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct fixture *f = setup_cluster (NULL, -1);
    struct ccas_request_set *s = set_with (
        f, "standard", NULL,
        "[{\"Name\": \"htc\", \"TargetCount\": 5, \"MaxCount\": 3, \"Priority\": 7,"
        "  \"ImageName\": \"img\", \"MachineType\": \"Standard_F2s_v2\"},"
        " {\"Name\": \"hpc\", \"TargetCoreCount\": 480, \"MaxCoreCount\": 300},"
        " {\"Name\": \"solo\", \"Dynamic\": true, \"TargetCount\": 1, \"MachineType\": \"Standard_F4s_v2\","
        "  \"SubnetId\": \"rg/vnet/solo\", \"Credentials\": \"azure\", \"ImageName\": \"solo-img\"}]",
        1000, 300);
    struct ccas_targets *t = ccas_targets_create (f->c, &s, 1, 1010, &err);
    assert_int_equal (ccas_targets_grow (t, &err), 2);
    const struct ccas_target_view *htc = view (t, "standard", "htc"), *hpc = view (t, "standard", "hpc"),
                                  *solo = view (t, "standard", "solo");
    assert_int_equal (htc->new_nodes, 3);
    assert_int_equal (htc->short_by, 2);
    assert_string_equal (htc->why, "MaxCount 3 reached");
    assert_int_equal (hpc->new_nodes, 2); /* 240 cores: a third 120-core node would pass 300 */
    assert_int_equal (hpc->short_by, 240);
    assert_string_equal (hpc->why, "MaxCoreCount 300: 240 cores, no room for another node");
    assert_int_equal (solo->new_nodes, 1);
    struct ccas_plan *plan = ccas_plan_create (f->c, NULL, &err);
    assert_int_equal (plan->ncreates, 3);
    for (size_t i = 0; i < plan->ncreates; i++) {
        const struct ccas_plan_set *set = &plan->creates[i];
        json_object *a = set->node_attributes;
        if (strcmp (set->bucket->na->name, "hpc") == 0) {
            assert_null (a);
        } else if (strcmp (set->bucket->machine_type, "Standard_F2s_v2") == 0) {
            assert_int_equal (set->count, 3);
            assert_int_equal (ccas_json_int (a, "Priority", 0), 7);
            assert_string_equal (ccas_json_str (a, "ImageName"), "img");
            assert_null (ccas_json_get (a, "Configuration")); /* the nodearray's, unchanged */
        } else {
            assert_string_equal (set->bucket->na->name, "htc");
            assert_string_equal (set->bucket->machine_type, "Standard_F4s_v2");
            assert_string_equal (ccas_json_str (a, "SubnetId"), "rg/vnet/solo");
            assert_string_equal (ccas_json_str (a, "ImageName"), "solo-img");
            assert_string_equal (
                ccas_json_str (ccas_json_get (ccas_json_get (a, "Configuration"), "ccautoscale"), "array"),
                "solo");
        }
    }
    ccas_plan_destroy (plan);
    ccas_targets_destroy (t);
    ccas_request_set_destroy (s);
    teardown_cluster (f);
}

/* In a cluster that is not Started nothing is started or created, and the
 * array says why once. */
static void test_grow_closed_cluster (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct fixture *f = setup_cluster_state ("targets-nodes.json", -1, "Terminated");
    struct ccas_request_set *s =
        set_with (f, "standard", NULL, "[{\"Name\": \"htc\", \"TargetCount\": 4}]", 1000, 300);
    struct ccas_targets *t = ccas_targets_create (f->c, &s, 1, 1010, &err);
    assert_int_equal (ccas_targets_grow (t, &err), 1);
    const struct ccas_target_view *htc = view (t, "standard", "htc");
    assert_int_equal (htc->started, 0); /* htc-6 stays deallocated */
    assert_int_equal (htc->new_nodes, 0);
    assert_int_equal (htc->short_by, 2);
    assert_string_equal (htc->why,
                         "cluster 'test' is Terminated (targetState Terminated): nothing is created or "
                         "started until it is Started");
    struct ccas_plan *plan = ccas_plan_create (f->c, NULL, &err);
    assert_int_equal (plan->ncreates + plan->nstarts, 0);
    ccas_plan_destroy (plan);
    ccas_targets_destroy (t);
    ccas_request_set_destroy (s);
    teardown_cluster (f);
}

/* After a capacity failure the views whose new nodes were lost grow again
 * in the machine types left: a flat target in the next one, a group in the
 * next bucket with room for it whole, or short with the hold's reason. */
static void test_replan_after_capacity (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct fixture *f = setup_cluster (NULL, -1);
    struct ccas_request_set *s =
        set_with (f, "standard", NULL,
                  "[{\"Name\": \"htc\", \"TargetCount\": 3, \"MachineType\": [\"Standard_F4s_v2\", "
                  "\"Standard_F2s_v2\"]},"
                  " {\"Name\": \"hpc\", \"TargetGroupCount\": 1, \"GroupInstanceCount\": 2}]",
                  1000, 300);
    struct ccas_targets *t = ccas_targets_create (f->c, &s, 1, 1010, &err);
    assert_int_equal (ccas_targets_grow (t, &err), 0);
    struct ccas_plan *plan = ccas_targets_plan (t, &err);
    assert_non_null (plan);
    assert_ptr_equal (plan->replan_arg, t);
    struct ccas_cluster *c = f->c;
    size_t mark = c->nnodes;
    struct ccas_node *lost[5];
    size_t nlost = 0;
    for (size_t i = c->nexisting; i < c->nnodes; i++)
        lost[nlost++] = c->nodes[i];
    assert_int_equal (nlost, 5);
    assert_int_equal (
        ccas_cluster_hold (c, fx_bucket_of (c, "htc", "Standard_F4s_v2"), "capacity: none left"), 0);
    assert_int_equal (
        ccas_cluster_hold (c, fx_bucket_of (c, "hpc", "Standard_HB120rs_v3"), "capacity: none left"), 0);
    for (size_t i = 0; i < nlost; i++)
        ccas_cluster_drop_node (c, lost[i]);
    assert_int_equal (ccas_targets_replan (t, lost, nlost, &err), 0);
    const struct ccas_target_view *htc = view (t, "standard", "htc"),
                                  *hpc = view (t, "standard", "hpc:2nodes");
    assert_int_equal (htc->new_nodes, 3);
    assert_int_equal (htc->short_by, 0);
    assert_int_equal (c->nnodes - mark, 3);
    for (size_t i = mark; i < c->nnodes; i++)
        assert_string_equal (c->nodes[i]->vm_size, "Standard_F2s_v2");
    assert_int_equal (hpc->new_groups, 0);
    assert_int_equal (hpc->new_nodes, 0);
    assert_int_equal (hpc->short_by, 1);
    assert_string_equal (hpc->why, "Standard_HB120rs_v3: capacity: none left");
    assert_int_equal (ccas_plan_extend (plan, mark, 1, &err), 0);
    assert_int_equal (plan->ncreates, 3);
    assert_int_equal (plan->creates[2].round, 1);
    assert_int_equal (plan->creates[2].count, 3);
    ccas_plan_destroy (plan);
    ccas_targets_destroy (t);
    ccas_request_set_destroy (s);
    teardown_cluster (f);
}

static void test_grow_short_and_expired (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct fixture *f = setup_cluster (NULL, -1);
    /* gpu holds 2 nodes (maxCount); the expired set asks for htc and gets nothing */
    struct ccas_request_set *sets[2] = {
        set_with (f, "a", NULL, "[{\"Name\": \"gpu\", \"TargetCount\": 5}]", 1000, 300),
        set_with (f, "b", NULL, "[{\"Name\": \"htc\", \"TargetCount\": 5}]", 500, 300),
    };
    struct ccas_targets *t = ccas_targets_create (f->c, sets, 2, 1010, &err);
    assert_int_equal (ccas_targets_grow (t, &err), 1);
    const struct ccas_target_view *gpu = view (t, "a", "gpu"), *htc = view (t, "b", "htc");
    assert_int_equal (gpu->new_nodes, 2);
    assert_int_equal (gpu->short_by, 3);
    assert_non_null (strstr (gpu->why, "Standard_NC24ads_A100_v4: availableCount 0"));
    assert_false (htc->live);
    assert_int_equal (htc->new_nodes, 0);
    assert_int_equal (htc->short_by, 0);
    struct ccas_plan *plan = ccas_plan_create (f->c, NULL, &err);
    assert_int_equal (ccas_plan_new_nodes (plan), 2);
    ccas_plan_destroy (plan);
    ccas_targets_destroy (t);
    ccas_request_set_destroy (sets[0]);
    ccas_request_set_destroy (sets[1]);
    teardown_cluster (f);
}

static void test_two_sets_hold_the_highest (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct fixture *f = setup_cluster (NULL, -1);
    struct ccas_request_set *sets[2] = {
        set_with (f, "a", NULL, "[{\"Name\": \"htc\", \"TargetCount\": 3}]", 1000, 300),
        set_with (f, "b", NULL, "[{\"Name\": \"htc\", \"TargetCount\": 5}]", 1000, 300),
    };
    struct ccas_targets *t = ccas_targets_create (f->c, sets, 2, 1010, &err);
    assert_int_equal (ccas_targets_grow (t, &err), 0);
    assert_int_equal (view (t, "a", "htc")->new_nodes, 5);
    assert_int_equal (view (t, "b", "htc")->new_nodes, 5);
    struct ccas_plan *plan = ccas_plan_create (f->c, NULL, &err);
    assert_int_equal (ccas_plan_new_nodes (plan), 5); /* not 8 */
    ccas_plan_destroy (plan);
    ccas_targets_destroy (t);
    ccas_request_set_destroy (sets[0]);
    ccas_request_set_destroy (sets[1]);
    teardown_cluster (f);
}

static void test_grow_groups_fallback (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    /* F4s_v2 has room for 1 node: a group of 2 falls back to F2s_v2, whole */
    struct fixture *f = setup_cluster (NULL, 1);
    struct ccas_request_set *s = set_with (f, "standard", NULL,
                                           "[{\"Name\": \"htc\", \"TargetGroupCount\": 2, "
                                           "\"GroupCoreCount\": 8, \"MachineType\": [\"Standard_F4s_v2\","
                                           " \"Standard_F2s_v2\"]}]",
                                           1000, 300);
    struct ccas_targets *t = ccas_targets_create (f->c, &s, 1, 1010, &err);
    assert_int_equal (ccas_targets_grow (t, &err), 0);
    const struct ccas_target_view *v = view (t, "standard", "htc:8");
    assert_int_equal (v->new_groups, 2);
    assert_int_equal (v->new_nodes, 8); /* 8 cores of 2-core nodes, twice */
    struct ccas_plan *plan = ccas_plan_create (f->c, NULL, &err);
    assert_int_equal (plan->ncreates, 2);
    for (size_t i = 0; i < 2; i++) {
        const struct ccas_plan_set *set = &plan->creates[i];
        assert_string_equal (set->bucket->machine_type, "Standard_F2s_v2");
        assert_int_equal (set->count, 4);
        assert_non_null (set->pg);
        json_object *cfg = ccas_json_get (set->node_attributes, "Configuration");
        assert_string_equal (
            ccas_json_str (ccas_json_get (ccas_json_get (cfg, "cyclecloud"), "node"), "group_id"),
            set->pg->name);
        assert_string_equal (ccas_json_str (ccas_json_get (cfg, "ccautoscale"), "array"), "htc:8");
    }
    assert_string_not_equal (plan->creates[0].pg->name, plan->creates[1].pg->name);
    ccas_plan_destroy (plan);
    ccas_targets_destroy (t);
    ccas_request_set_destroy (s);
    teardown_cluster (f);

    /* no machine type has room: short, each type says why */
    f = setup_cluster (NULL, 1);
    s = set_with (f, "standard", NULL,
                  "[{\"Name\": \"htc\", \"TargetGroupCount\": 1, \"GroupInstanceCount\": 200}]", 1000, 300);
    t = ccas_targets_create (f->c, &s, 1, 1010, &err);
    assert_int_equal (ccas_targets_grow (t, &err), 1);
    v = view (t, "standard", "htc:200nodes");
    assert_int_equal (v->short_by, 1);
    assert_non_null (strstr (
        v->why, "a placement group holds at most 100 nodes (maxPlacementGroupSize 100), a group needs 200"));
    ccas_targets_destroy (t);
    ccas_request_set_destroy (s);
    teardown_cluster (f);
}

static const struct ccas_node *node (struct fixture *f, const char *name)
{
    const struct ccas_node *n = ccas_cluster_find_node (f->c, name);
    assert_non_null (n);
    return n;
}

static enum ccas_autostop_decision ask (const struct ccas_targets *t, struct fixture *f, const char *name,
                                        const char *reason)
{
    struct ccas_autostop a;
    ccas_targets_autostop (t, node (f, name), &a);
    if (!strstr (a.reason, reason))
        fail_msg ("%s: want a reason with '%s', got '%s'", name, reason, a.reason);
    return a.decision;
}

static void test_autostop (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct fixture *f = setup_cluster ("targets-nodes.json", -1);
    struct ccas_request_set *sets[2] = {
        set_with (f, "standard", "[{\"Name\": \"old\", \"Extends\": \"htc\", \"Dynamic\": true}]",
                  "[{\"Name\": \"htc\", \"TargetCoreCount\": 4}, {\"Name\": \"big\", \"Extends\": \"htc\","
                  " \"Dynamic\": true, \"TargetCount\": 1}, {\"Name\": \"hpc\", \"TargetGroupCount\": 1,"
                  " \"GroupInstanceCount\": 2}]",
                  1000, 300),
        set_with (f, "other", NULL, "[{\"Name\": \"htc\", \"TargetCount\": 1}]", 1000, 300),
    };
    struct ccas_targets *t = ccas_targets_create (f->c, sets, 2, 1010, &err);
    /* htc has 2 nodes, 6 cores; standard wants 4 cores, other 1 node */
    assert_int_equal (ask (t, f, "htc-1", "above every live target without it"), CCAS_AUTOSTOP_GRANTED);
    assert_int_equal (
        ask (t, f, "htc-2",
             "array 'htc' of request set 'standard' wants 4 cores and has 6 (this node holds 4)"),
        CCAS_AUTOSTOP_REFUSED);
    assert_int_equal (ask (t, f, "htc-3", "array 'big' of request set 'standard' wants 1 node and has 1"),
                      CCAS_AUTOSTOP_REFUSED);
    assert_int_equal (
        ask (t, f, "htc-4", "dynamic array 'old' of request set 'standard' is no longer requested"),
        CCAS_AUTOSTOP_GRANTED);
    assert_int_equal (ask (t, f, "htc-5", "KeepAlive"), CCAS_AUTOSTOP_REFUSED);
    assert_int_equal (ask (t, f, "htc-6", "it does not count toward nodearray 'htc' (it is Deallocated)"),
                      CCAS_AUTOSTOP_GRANTED);
    assert_int_equal (ask (t, f, "htc-7", "already on its way out"), CCAS_AUTOSTOP_GOING);
    /* hpc: g1 is whole, g2 not: g2's node may go, g1's may not */
    assert_int_equal (ask (t, f, "hpc-3", "keeps 1 whole"), CCAS_AUTOSTOP_GRANTED);
    assert_int_equal (ask (t, f, "hpc-1", "keeps 0 whole"), CCAS_AUTOSTOP_REFUSED);
    assert_int_equal (ask (t, f, "htc-8", "dynamic array 'ghost' of request set 'nowhere' is not requested"),
                      CCAS_AUTOSTOP_GRANTED);
    ccas_targets_destroy (t);

    /* later: the requests have expired; nothing holds any node */
    t = ccas_targets_create (f->c, sets, 2, 2000, &err);
    assert_int_equal (ask (t, f, "htc-3", "the request of set 'standard' expired 700 s ago"),
                      CCAS_AUTOSTOP_GRANTED);
    assert_int_equal (ask (t, f, "htc-2", "no live request asks for nodes of nodearray 'htc'"),
                      CCAS_AUTOSTOP_GRANTED);
    ccas_targets_destroy (t);

    /* the last node of a removing array gone: the array is forgotten */
    t = ccas_targets_create (f->c, sets, 2, 1010, &err);
    assert_int_equal (ccas_targets_forget (t), 0);
    ccas_targets_node_gone (t, node (f, "htc-4"));
    assert_int_equal (ccas_targets_forget (t), 1);
    assert_int_equal (sets[0]->nremoving, 0);
    assert_true (sets[0]->changed);
    ccas_targets_destroy (t);

    /* the marks are read from the node records */
    ccas_request_set_destroy (sets[1]);
    t = ccas_targets_create (f->c, sets, 1, 1010, &err);
    const char *set = NULL;
    assert_string_equal (ccas_targets_marker (t, node (f, "htc-5"), &set), "big");
    assert_string_equal (set, "other");
    ccas_targets_destroy (t);
    ccas_request_set_destroy (sets[0]);
    teardown_cluster (f);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_counts_by_mark),           cmocka_unit_test (test_grow_flat),
        cmocka_unit_test (test_grow_short_and_expired),   cmocka_unit_test (test_two_sets_hold_the_highest),
        cmocka_unit_test (test_grow_groups_fallback),     cmocka_unit_test (test_autostop),
        cmocka_unit_test (test_grow_attributes_and_caps), cmocka_unit_test (test_grow_closed_cluster),
        cmocka_unit_test (test_replan_after_capacity),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
