/* SPDX-License-Identifier: MIT */
/* test_fallback.c: the jobs of nodes a create did not make for want of
 * capacity, placed again in the same pass (fallback.c) — a node's slots on
 * one new node of the next bucket they allow, a placement group's nodes
 * into one new group of another bucket, a group whose job also has a node
 * that exists left short, and a node no other bucket fits left short. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "engine/fallback.h"
#include "engine/match.h"
#include "model/test/fixture.h"

#define STATUS "match-status.json"

struct world {
    struct ccas_config *cfg;
    struct ccas_cluster *c;
    struct ccas_jobs *jobs;
};

/* The cluster (htc's buckets colocated when `colocated`), `nodes`, the jobs
 * matched. */
static void world (struct world *w, bool colocated, const char *nodes, const char *jobs)
{
    struct ccas_error err = {""};
    w->cfg = fx_config (colocated ? "{\"nodearrays\": {\"htc\": {\"colocated\": true}}}" : NULL);
    w->c = fx_cluster (w->cfg, STATUS, NULL, nodes);
    w->jobs = ccas_jobs_from_text (jobs, strlen (jobs), w->c->cons, "jobs", &err);
    if (!w->jobs)
        fail_msg ("%s", err.text);
    assert_int_equal (ccas_match (w->c, w->jobs, NULL, &err), 0);
}

static void world_free (struct world *w)
{
    ccas_jobs_destroy (w->jobs);
    ccas_cluster_destroy (w->c);
    ccas_conf_destroy (w->cfg);
}

/* Capacity failed in bucket na/mt: held, its new nodes dropped; they go
 * into lost[] (at most `max`).  Returns how many. */
static size_t fail_bucket (struct world *w, const char *na, const char *mt, struct ccas_node **lost,
                           size_t max)
{
    struct ccas_bucket *b = fx_bucket (w->c, na, mt);
    size_t n = 0;
    assert_int_equal (ccas_cluster_hold (w->c, b, "capacity failure in this pass"), 0);
    for (size_t i = w->c->nexisting; i < w->c->nnodes && n < max; i++)
        if (w->c->nodes[i]->bucket == b && w->c->nodes[i]->kind == CCAS_NODE_NEW) {
            ccas_cluster_drop_node (w->c, w->c->nodes[i]);
            lost[n++] = w->c->nodes[i];
        }
    return n;
}

static void test_node_moves (void **state)
{
    (void)state;
    struct world w;
    struct ccas_error err = {""};
    struct ccas_node *lost[8];
    world (&w, false, NULL,
           "[{\"id\": \"a\", \"exclusive\": true, \"node_count\": 2, \"constraints\": {\"ncpus\": 1, "
           "\"node.nodearray\": \"htc\"}},"
           " {\"id\": \"b\", \"constraints\": {\"ncpus\": 2, \"node.vm_size\": \"Standard_F2s_v2\"}}]");
    size_t nlost = fail_bucket (&w, "htc", "Standard_F2s_v2", lost, 8);
    assert_int_equal (nlost, 3);
    size_t before = w.c->nnodes;
    assert_int_equal (ccas_fallback_jobs (w.c, w.jobs, lost, nlost, &err), 2);
    assert_int_equal (w.c->nnodes - before, 2);
    const struct ccas_job *a = &w.jobs->v[0], *b = &w.jobs->v[1];
    /* exclusive: still one slot a node, each on a new F4s_v2 node */
    assert_string_equal (a->slots[0]->vm_size, "Standard_F4s_v2");
    assert_string_equal (a->slots[1]->vm_size, "Standard_F4s_v2");
    assert_ptr_not_equal (a->slots[0], a->slots[1]);
    assert_int_equal (a->slots[0]->kind, CCAS_NODE_NEW);
    assert_true (a->slots[0]->matched && a->slots[0]->exclusive);
    /* b asks for F2s_v2: nowhere else, it stays on its lost node */
    assert_int_equal (b->slots[0]->kind, CCAS_NODE_GOING);
    assert_int_equal (ccas_fallback_jobs (w.c, w.jobs, NULL, 0, &err), 0);
    world_free (&w);
}

/* A group's nodes move together into one new group of another bucket. */
static void test_group_moves_whole (void **state)
{
    (void)state;
    struct world w;
    struct ccas_error err = {""};
    struct ccas_node *lost[8];
    world (&w, true, NULL,
           "[{\"id\": \"g\", \"colocated\": true, \"node_count\": 3, \"packing\": \"scatter\","
           " \"constraints\": {\"ncpus\": 1, \"node.nodearray\": \"htc\"}}]");
    const struct ccas_job *g = &w.jobs->v[0];
    assert_true (g->matched);
    assert_non_null (g->slots[0]->pg);
    const char *old_pg = g->slots[0]->pg->name;
    size_t nlost = fail_bucket (&w, "htc", "Standard_F2s_v2", lost, 8);
    assert_int_equal (nlost, 3);
    assert_int_equal (ccas_fallback_jobs (w.c, w.jobs, lost, nlost, &err), 3);
    assert_string_equal (g->slots[0]->vm_size, "Standard_F4s_v2");
    assert_non_null (g->slots[0]->pg);
    assert_ptr_equal (g->slots[0]->pg, g->slots[1]->pg);
    assert_ptr_equal (g->slots[0]->pg, g->slots[2]->pg);
    assert_string_not_equal (g->slots[0]->pg->name, old_pg);
    world_free (&w);
}

/* A group whose job also holds a node that exists cannot move apart from it. */
static void test_group_split_stays (void **state)
{
    (void)state;
    struct world w;
    struct ccas_error err = {""};
    struct ccas_node *lost[8];
    world (&w, false,
           "[{\"Name\": \"hpc-1\", \"Template\": \"hpc\", \"MachineType\": \"Standard_HB120rs_v3\","
           " \"PlacementGroupId\": \"hpc_Standard_HB120rs_v3_pg0\"}]",
           "[{\"id\": \"g\", \"colocated\": true, \"node_count\": 3, \"packing\": \"scatter\","
           " \"constraints\": {\"node.nodearray\": \"hpc\"}}]");
    const struct ccas_job *g = &w.jobs->v[0];
    assert_true (g->matched);
    assert_string_equal (g->slots[0]->name, "hpc-1");
    size_t nlost = fail_bucket (&w, "hpc", "Standard_HB120rs_v3", lost, 8);
    assert_int_equal (nlost, 2);
    size_t before = w.c->nnodes;
    assert_int_equal (ccas_fallback_jobs (w.c, w.jobs, lost, nlost, &err), 0);
    assert_int_equal (w.c->nnodes, before);
    assert_ptr_equal (g->slots[1], lost[0]);
    world_free (&w);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_node_moves),
        cmocka_unit_test (test_group_moves_whole),
        cmocka_unit_test (test_group_split_stays),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
