/* SPDX-License-Identifier: MIT */
/* test_constraint.c: the constraint language — bad input first, each term both ways, decrements. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "model/constraint.h"
#include "model/resources.h"
#include "util/arena.h"

struct fixture {
    struct ccas_arena *arena;
    struct ccas_resdict *dict;
    struct ccas_shared *shared;
    struct ccas_cons_cache *cache;
    struct ccas_rules *rules;
    json_object *rules_json;
    struct ccas_node cpu, gpu, pg; /* an HTC node, a GPU node, a node in a placement group */
};

static void *alloc_cb (void *arg, size_t size)
{
    return ccas_arena_alloc (arg, size);
}

static void make_node (struct fixture *f, struct ccas_node *n, const char *name, const char *na,
                       const char *vm, int vcpu, int gpus, double mem_gb, const char *pg)
{
    memset (n, 0, sizeof (*n));
    n->name = name;
    n->hostname = name;
    n->nodearray = na;
    n->vm_size = vm;
    n->vcpu_count = vcpu;
    n->pcpu_count = vcpu;
    n->gpu_count = gpus;
    n->memory = mem_gb * 1024 * 1024 * 1024;
    n->placement_group = pg;
    n->kind = CCAS_NODE_READY;
    n->last_job = -1;
    n->capfail_age = -1;
    assert_int_equal (ccas_resources_apply (f->rules, n, alloc_cb, f->arena), 0);
}

static int setup (void **state)
{
    static struct fixture f;
    struct ccas_error err = {""};
    memset (&f, 0, sizeof (f));
    f.arena = ccas_arena_create ();
    f.dict = ccas_resdict_create ();
    f.shared = ccas_shared_create ();
    json_object *shared = json_tokener_parse (
        "{\"licenses\": 3, \"version\": \"2.1\", \"seats\": {\"cluster\": 3, \"queues\": {\"workq\": 1}},"
        " \"tier\": {\"cluster\": \"gold\", \"queues\": {\"cheap\": \"bronze\"}}}");
    assert_int_equal (ccas_shared_load (f.shared, shared, "shared_resources", &err), 0);
    json_object_put (shared);
    f.cache = ccas_constraint_cache_create (f.dict, f.shared);
    f.rules_json = json_tokener_parse (
        "[{\"select\": {\"node.nodearray\": \"htc\"}, \"name\": \"slot_type\", \"value\": \"execute\"},"
        " {\"select\": {\"node.nodearray\": \"gpu\"}, \"name\": \"slot_type\", \"value\": \"gpu\"},"
        " {\"select\": {}, \"name\": \"disk\", \"value\": \"size::20g\"}]");
    f.rules = ccas_resources_compile (f.rules_json, true, f.cache, f.dict, "default_resources", &err);
    assert_non_null (f.rules);
    make_node (&f, &f.cpu, "htc-1", "htc", "Standard_F4s_v2", 4, 0, 8, NULL);
    make_node (&f, &f.gpu, "gpu-1", "gpu", "Standard_NC24ads_A100_v4", 24, 1, 220, NULL);
    make_node (&f, &f.pg, "hpc-1", "hpc", "Standard_HB120rs_v3", 120, 0, 456, "hpc_pg0");
    *state = &f;
    return 0;
}

static int teardown (void **state)
{
    struct fixture *f = *state;
    ccas_resources_destroy (f->rules);
    json_object_put (f->rules_json);
    ccas_constraint_cache_destroy (f->cache);
    ccas_shared_destroy (f->shared);
    ccas_resdict_destroy (f->dict);
    ccas_arena_destroy (f->arena);
    return 0;
}

static const struct ccas_constraint *compile (struct fixture *f, const char *text, struct ccas_error *err)
{
    json_object *j = json_tokener_parse (text);
    if (!j)
        fail_msg ("bad test JSON: %s", text);
    const struct ccas_constraint *c = ccas_constraint_compile (f->cache, j, "c", err);
    json_object_put (j);
    return c;
}

static void test_bad_input (void **state)
{
    static const struct {
        const char *json;
        const char *want;
    } cases[] = {
        {"5", "c: expected a constraint object, got 5"},
        {"{\"or\": {}}", "c.or: expected a list of constraints, got {}"},
        {"{\"xor\": [{}]}", "c.xor: xor needs at least two constraints"},
        {"{\"exclusive\": \"yes\"}",
         "c.exclusive: expected true or false (or 1, 0, \"true\", \"false\"), got \"yes\""},
        {"{\"exclusive-task\": 1.5}",
         "c.exclusive-task: expected true or false (or 1, 0, \"true\", \"false\"), got 1.5"},
        {"{\"slot_type\": [[[1]]]}", "c.slot_type[0][0]: expected a number, string or boolean, got [1]"},
        {"{\"node.vmsize\": \"x\"}", "c.node.vmsize: unknown node property 'node.vmsize'"},
        {"{\"ncpus\": -1}", "c.ncpus: a minimum must be a non-negative number"},
        {"{\"mem\": \"4gbb\"}", "c.mem: '4gbb': unknown unit suffix 'gbb'"},
        {"{\"slot_type\": []}", "c.slot_type: an empty list matches nothing; remove the key or give options"},
        {"{\"slot_type\": [{}]}", "c.slot_type[0]: expected a number, string or boolean, got {}"},
        {"{\"ncpus\": {\"min\": 1}}", "c.ncpus: expected a value or a list of values, got an object"},
        {"{\"never\": 1}", "c.never: expected a message, got 1"},
        {"{\"and\": [{\"or\": [{\"ncpus\": null}]}]}", "c.and[0].or[0].ncpus: null is not a constraint"},
        {"{\"in-a-placement-group\": true, \"and\": [{\"in-a-placement-group\": false}]}",
         "c: in-a-placement-group is both true and false"},
        {"{\"capacity-failure-backoff\": -5}", "c.capacity-failure-backoff: seconds cannot be negative"},
    };
    struct fixture *f = *state;
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        struct ccas_error err = {""};
        if (compile (f, cases[i].json, &err))
            fail_msg ("case %zu accepted: %s", i, cases[i].json);
        assert_string_equal (err.text, cases[i].want);
    }
}

static bool fits (struct fixture *f, const char *text, const struct ccas_node *n, char *why, size_t size)
{
    struct ccas_error err = {""};
    const struct ccas_constraint *c = compile (f, text, &err);
    if (!c)
        fail_msg ("%s: %s", text, err.text);
    struct ccas_eval ev = {.job = 0};
    return ccas_constraint_fits (c, n, &ev, why, size);
}

/* Each term both ways: {constraint, node, expected, reason substring on a miss}. */
static void test_terms_both_ways (void **state)
{
    struct fixture *f = *state;
    const struct {
        const char *json;
        const struct ccas_node *node;
        bool want;
        const char *why;
    } cases[] = {
        {"{}", &f->cpu, true, NULL},
        {"{\"ncpus\": 4}", &f->cpu, true, NULL},
        {"{\"ncpus\": 5}", &f->cpu, false, "ncpus: needs 5, node has 4 free"},
        {"{\"mem\": \"8g\"}", &f->cpu, true, NULL},
        {"{\"mem\": \"9g\"}", &f->cpu, false, "mem: needs 9g, node has 8g free"},
        {"{\"memgb\": 8}", &f->cpu, true, NULL},
        {"{\"disk\": \"20g\"}", &f->cpu, true, NULL},
        {"{\"ngpus\": 1}", &f->gpu, true, NULL},
        {"{\"ngpus\": 1}", &f->cpu, false, "ngpus: needs 1, node has 0 free"},
        {"{\"nosuch\": 1}", &f->cpu, false, "nosuch: the node does not define it"},
        {"{\"slot_type\": \"execute\"}", &f->cpu, true, NULL},
        {"{\"slot_type\": \"execute\"}", &f->gpu, false, "slot_type: wants 'execute', node has 'gpu'"},
        {"{\"slot_type\": [\"gpu\", \"execute\"]}", &f->cpu, true, NULL},
        {"{\"node.vm_size\": \"Standard_F*\"}", &f->cpu, true, NULL},
        {"{\"node.vm_size\": \"Standard_F*\"}", &f->gpu, false, "node.vm_size: wants 'Standard_F*', node is"},
        {"{\"node.vm_size\": [\"Standard_NC*\", \"Standard_F4s_v2\"]}", &f->cpu, true, NULL},
        {"{\"node.vcpu_count\": 4}", &f->cpu, true, NULL},
        {"{\"node.nodearray\": \"htc\", \"ncpus\": 2}", &f->cpu, true, NULL},
        {"{\"node.nodearray\": \"htc\", \"ncpus\": 8}", &f->cpu, false, "ncpus: needs 8"},
        {"{\"and\": [{\"ncpus\": 1}, {\"node.nodearray\": \"gpu\"}]}", &f->cpu, false, "node.nodearray"},
        {"{\"or\": [{\"ngpus\": 1}, {\"ncpus\": 2}]}", &f->cpu, true, NULL},
        {"{\"or\": [{\"ngpus\": 1}, {\"ncpus\": 64}]}", &f->cpu, false, "or: none of 2 options match"},
        {"{\"xor\": [{\"ngpus\": 1}, {\"ncpus\": 2}]}", &f->cpu, true, NULL},
        {"{\"xor\": [{\"ngpus\": 1}, {\"ncpus\": 2}]}", &f->gpu, false, "xor: 2 options match"},
        {"{\"not\": {\"ngpus\": 1}}", &f->cpu, true, NULL},
        {"{\"not\": {\"ngpus\": 1}}", &f->gpu, false, "not:"},
        {"{\"exclusive\": true}", &f->cpu, true, NULL},
        {"{\"exclusive-task\": true}", &f->cpu, true, NULL},
        {"{\"in-a-placement-group\": true}", &f->pg, true, NULL},
        {"{\"in-a-placement-group\": true}", &f->cpu, false, "in-a-placement-group: the node is in none"},
        {"{\"in-a-placement-group\": false}", &f->cpu, true, NULL},
        {"{\"in-a-placement-group\": false}", &f->pg, false,
         "in-a-placement-group: the node is in 'hpc_pg0'"},
        {"{\"never\": \"this queue is closed\"}", &f->cpu, false, "this queue is closed"},
        {"{\"licenses\": 2}", &f->cpu, true, NULL},
        {"{\"licenses\": 4}", &f->cpu, false, "licenses: needs 4, 3 left in the cluster"},
        {"{\"version\": \"2.*\"}", &f->cpu, true, NULL},
        {"{\"version\": \"3.0\"}", &f->cpu, false, "version: wants '3.0', the cluster has '2.1'"},
        {"{\"capacity-failure-backoff\": 300}", &f->cpu, true, NULL},
    };
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        char why[256] = "";
        bool got = fits (f, cases[i].json, cases[i].node, why, sizeof (why));
        if (got != cases[i].want)
            fail_msg ("case %zu: %s on %s: got %d (%s)", i, cases[i].json, cases[i].node->name, got, why);
        if (!got && !strstr (why, cases[i].why))
            fail_msg ("case %zu: reason '%s' lacks '%s'", i, why, cases[i].why);
    }
}

static double avail (struct fixture *f, const struct ccas_node *n, const char *res)
{
    return n->avail[ccas_resdict_find (f->dict, res)];
}

/* "or" consumes only through its first matching child, and rollback restores. */
static void test_or_decrements_first_match (void **state)
{
    struct fixture *f = *state;
    struct ccas_error err = {""};
    struct ccas_undo *u = ccas_undo_create ();
    struct ccas_eval ev = {.job = 1, .undo = u};
    const struct ccas_constraint *c = compile (f, "{\"or\": [{\"ngpus\": 1}, {\"ncpus\": 3}]}", &err);
    assert_non_null (c);
    assert_true (ccas_constraint_fits (c, &f->gpu, &ev, NULL, 0));
    ccas_constraint_take (c, &f->gpu, &ev);
    assert_true (avail (f, &f->gpu, "ngpus") == 0);
    assert_true (avail (f, &f->gpu, "ncpus") == 24);               /* the second child was not charged */
    assert_true (ccas_constraint_fits (c, &f->gpu, &ev, NULL, 0)); /* now the ncpus child matches */
    ccas_constraint_take (c, &f->gpu, &ev);
    assert_true (avail (f, &f->gpu, "ncpus") == 21);
    ccas_undo_rollback (u, 0);
    assert_true (avail (f, &f->gpu, "ngpus") == 1);
    assert_true (avail (f, &f->gpu, "ncpus") == 24);
    ccas_undo_destroy (u);
}

/* {"not": {"ngpus": 1}} judges what the node has, not what is free: a GPU
 * node whose GPU is taken is still a GPU node. */
static void test_not_on_resources (void **state)
{
    struct fixture *f = *state;
    struct ccas_error err = {""};
    struct ccas_undo *u = ccas_undo_create ();
    struct ccas_eval ev = {.job = 1, .undo = u};
    const struct ccas_constraint *take_gpu = compile (f, "{\"ngpus\": 1}", &err);
    const struct ccas_constraint *no_gpu = compile (f, "{\"not\": {\"ngpus\": 1}}", &err);
    ccas_constraint_take (take_gpu, &f->gpu, &ev);
    assert_true (avail (f, &f->gpu, "ngpus") == 0);
    assert_false (ccas_constraint_fits (no_gpu, &f->gpu, &ev, NULL, 0));
    assert_true (ccas_constraint_fits (no_gpu, &f->cpu, &ev, NULL, 0));
    ccas_undo_rollback (u, 0);
    ccas_undo_destroy (u);
}

/* A shared consumable is taken once per job, whatever the number of slots
 * (scalelib's decrement_once), never below zero, restored by rollback; a
 * miss names it. */
static void test_shared_consumable (void **state)
{
    struct fixture *f = *state;
    struct ccas_error err = {""};
    struct ccas_undo *u = ccas_undo_create ();
    struct ccas_eval ev = {.job = 1, .undo = u}, ev2 = {.job = 2, .undo = u};
    const struct ccas_constraint *c = compile (f, "{\"licenses\": 2}", &err);
    struct ccas_value *lic =
        &ccas_shared_cluster_pool (f->shared, ccas_shared_find (f->shared, "licenses"))->value;
    char why[128];
    assert_true (ccas_constraint_fits (c, &f->cpu, &ev, NULL, 0));
    ccas_constraint_take (c, &f->cpu, &ev);
    assert_true (lic->u.num == 1);
    assert_true (
        ccas_constraint_fits (c, &f->gpu, &ev, NULL, 0)); /* the same job's next slot: taken already */
    ccas_constraint_take (c, &f->gpu, &ev);
    assert_true (lic->u.num == 1);
    assert_false (ccas_constraint_fits (c, &f->gpu, &ev2, why, sizeof (why))); /* another job: 1 left */
    assert_string_equal (why, "licenses: needs 2, 1 left in the cluster");
    assert_true (lic->u.num >= 0);
    ccas_undo_rollback (u, 0);
    assert_true (lic->u.num == 3);
    assert_int_equal (ccas_shared_cluster_pool (f->shared, ccas_shared_find (f->shared, "licenses"))->taker,
                      -1);
    ccas_undo_destroy (u);
}

/* A cluster-wide pool beside a queue's pool of the same name: a job of the
 * queue needs both to hold its amount and takes from both, once; a job of
 * another queue draws on the cluster's alone; a value is the queue's. */
static void test_shared_queue_pools (void **state)
{
    struct fixture *f = *state;
    struct ccas_error err = {""};
    struct ccas_undo *u = ccas_undo_create ();
    int32_t workq = ccas_shared_queue (f->shared, "workq"), cheap = ccas_shared_queue (f->shared, "cheap");
    struct ccas_eval inq = {.job = 1, .queue = workq, .undo = u}, other = {.job = 2, .undo = u},
                     inq2 = {.job = 3, .queue = workq, .undo = u};
    const struct ccas_constraint *two = compile (f, "{\"seats\": 2}", &err),
                                 *one = compile (f, "{\"seats\": 1}", &err);
    int seats = ccas_shared_find (f->shared, "seats");
    struct ccas_shared_pool *p[2];
    char why[128];
    assert_int_equal (ccas_shared_pools (f->shared, seats, workq, p), 2);
    assert_false (ccas_constraint_fits (two, &f->cpu, &inq, why, sizeof (why)));
    assert_string_equal (why, "seats: needs 2, 1 left in queue 'workq'");
    assert_false (ccas_constraint_pools_hold (two, 1, workq));
    assert_true (ccas_constraint_fits (two, &f->cpu, &other, NULL, 0)); /* the cluster's 3 */
    assert_true (ccas_constraint_pools_hold (two, 2, 0));
    ccas_constraint_take (one, &f->cpu, &inq);
    assert_true (p[0]->value.u.num == 2 && p[1]->value.u.num == 0);
    ccas_constraint_take (one, &f->gpu, &inq); /* the same job again: taken once */
    assert_true (p[0]->value.u.num == 2 && p[1]->value.u.num == 0);
    assert_false (ccas_constraint_fits (one, &f->cpu, &inq2, why, sizeof (why)));
    assert_string_equal (why, "seats: needs 1, 0 left in queue 'workq'");
    ccas_constraint_take (two, &f->cpu, &other);
    assert_true (p[0]->value.u.num == 0);
    assert_false (ccas_constraint_fits (one, &f->cpu, &other, why, sizeof (why)) &&
                  ccas_constraint_fits (one, &f->cpu, &(struct ccas_eval){.job = 4}, NULL, 0));
    ccas_undo_rollback (u, 0);
    assert_true (p[0]->value.u.num == 3 && p[1]->value.u.num == 1);
    assert_int_equal (p[1]->taker, -1);
    /* a value: the queue's, else the cluster's */
    const struct ccas_constraint *gold = compile (f, "{\"tier\": \"gold\"}", &err);
    assert_true (ccas_constraint_fits (gold, &f->cpu, &other, NULL, 0));
    assert_false (ccas_constraint_fits (gold, &f->cpu, &(struct ccas_eval){.job = 5, .queue = cheap}, why,
                                        sizeof (why)));
    assert_string_equal (why, "tier: wants 'gold', queue 'cheap' has 'bronze'");
    ccas_undo_destroy (u);
}

/* exclusive and exclusive-task: the node must be free of other jobs' work;
 * the owning job's own slots may share it (scalelib's "one or more
 * iterations of the same job"); the flags read as scalelib reads them. */
static void test_exclusivity (void **state)
{
    struct fixture *f = *state;
    struct ccas_error err = {""};
    struct ccas_undo *u = ccas_undo_create ();
    struct ccas_eval ev1 = {.job = 1, .undo = u}, ev2 = {.job = 2, .undo = u};
    const struct ccas_constraint *excl = compile (f, "{\"ncpus\": 1, \"exclusive\": true}", &err);
    const struct ccas_constraint *task = compile (f, "{\"ncpus\": 1, \"exclusive-task\": true}", &err);
    struct ccas_node *n = &f->cpu;

    ccas_constraint_take (excl, n, &ev1);
    n->njobs = 1;
    n->last_job = 1;
    char why[128];
    /* scalelib: one and only one iteration of the job on the node, its own second one neither */
    assert_false (ccas_constraint_fits (excl, n, &ev1, why, sizeof (why)));
    assert_string_equal (why, "exclusive: one iteration of the job per node, and the node has one");
    assert_false (ccas_constraint_fits (excl, n, &ev2, why, sizeof (why))); /* another job may not */
    assert_string_equal (why, "exclusive: the node already has other work");
    assert_true (ccas_constraint_fits (task, n, &ev1, NULL, 0)); /* the owner's tasks share it */
    assert_false (ccas_constraint_fits (task, n, &ev2, NULL, 0));
    ccas_undo_rollback (u, 0);
    n->njobs = 0;
    n->last_job = -1;
    assert_false (n->exclusive);
    ccas_constraint_take (task, n, &ev1);
    n->njobs = 1;
    n->last_job = 1;
    assert_true (ccas_constraint_fits (task, n, &ev1, NULL, 0));
    assert_false (ccas_constraint_fits (excl, n, &ev2, NULL, 0));
    ccas_undo_rollback (u, 0);
    n->njobs = 0;
    n->last_job = -1;
    assert_true (ccas_constraint_fits (task, n, &ev2, NULL, 0));
    n->busy = true; /* the scheduler runs something here */
    assert_false (ccas_constraint_fits (excl, n, &ev2, NULL, 0));
    n->busy = false;
    /* scalelib's constraints_test.py::test_exclusive_node_parsing: True, "true" and 1 are one constraint */
    static const char *const same[] = {"true", "\"true\"", "\"TRUE\"", "1", "\"1\"", "7"};
    static const char *const off[] = {"false", "\"False\"", "0", "\"0\"", "\"00\""};
    for (size_t i = 0; i < sizeof (same) / sizeof (same[0]); i++) {
        char text[64];
        snprintf (text, sizeof (text), "{\"exclusive\": %s}", same[i]);
        assert_true (ccas_constraint_info (compile (f, text, &err))->exclusive);
    }
    for (size_t i = 0; i < sizeof (off) / sizeof (off[0]); i++) {
        char text[64];
        snprintf (text, sizeof (text), "{\"exclusive-task\": %s}", off[i]);
        assert_false (ccas_constraint_info (compile (f, text, &err))->exclusive_task);
    }
    ccas_undo_destroy (u);
}

/* Equal JSON compiles once, whatever the key order. */
static void test_interning (void **state)
{
    struct fixture *f = *state;
    struct ccas_error err = {""};
    const struct ccas_constraint *a = compile (f, "{\"ncpus\": 2, \"node.nodearray\": \"htc\"}", &err);
    const struct ccas_constraint *b = compile (f, "{\"node.nodearray\": \"htc\", \"ncpus\": 2}", &err);
    const struct ccas_constraint *c = compile (f, "{\"node.nodearray\": \"htc\", \"ncpus\": 3}", &err);
    assert_ptr_equal (a, b);
    assert_ptr_not_equal (a, c);
    assert_true (ccas_constraint_info (a)->monotone);
    assert_false (
        ccas_constraint_info (compile (f, "{\"xor\": [{\"ncpus\": 1}, {\"ngpus\": 1}]}", &err))->monotone);
    assert_ptr_equal (ccas_constraint_compile (f->cache, NULL, "c", &err), ccas_constraint_any (f->cache));
}

static void test_rank_prefers_earlier_options (void **state)
{
    struct fixture *f = *state;
    struct ccas_error err = {""};
    const struct ccas_constraint *c =
        compile (f, "{\"node.vm_size\": [\"Standard_NC*\", \"Standard_F*\"]}", &err);
    assert_true (ccas_constraint_rank (c, &f->gpu) < ccas_constraint_rank (c, &f->cpu));
    /* "or" prefers its options in the order written, both ways (scalelib's test_or_ordering) */
    c = compile (f, "{\"or\": [{\"node.nodearray\": \"gpu\"}, {\"node.nodearray\": \"htc\"}]}", &err);
    assert_true (ccas_constraint_rank (c, &f->gpu) < ccas_constraint_rank (c, &f->cpu));
    c = compile (f, "{\"or\": [{\"node.nodearray\": \"htc\"}, {\"node.nodearray\": \"gpu\"}]}", &err);
    assert_true (ccas_constraint_rank (c, &f->cpu) < ccas_constraint_rank (c, &f->gpu));
}

/* Values as PBS and scalelib write them: boolean words, 1/0 for a boolean,
 * list-valued resources. */
static void test_values (void **state)
{
    struct fixture *f = *state;
    struct ccas_value t = ccas_value_bool (true), fl = ccas_value_bool (false);
    static const char *const yes[] = {"T", "t", "Y", "y", "1", "true", "True", "TRUE"};
    static const char *const no[] = {"F", "f", "N", "n", "0", "false", "False", "FALSE"};
    (void)state;
    for (size_t i = 0; i < sizeof (yes) / sizeof (yes[0]); i++) {
        struct ccas_value y = ccas_value_str (yes[i]), n = ccas_value_str (no[i]);
        assert_int_equal (ccas_value_bool_word (yes[i]), 1);
        assert_int_equal (ccas_value_bool_word (no[i]), 0);
        assert_true (ccas_value_matches (&y, &t));
        assert_false (ccas_value_matches (&y, &fl));
        assert_true (ccas_value_matches (&n, &fl));
        assert_true (ccas_value_matches (&t, &y)); /* a node that says "Y" is true */
    }
    assert_int_equal (ccas_value_bool_word ("yes"), -1);
    struct ccas_value one = ccas_value_num (1), zero = ccas_value_num (0);
    assert_true (ccas_value_matches (&one, &t));
    assert_true (ccas_value_matches (&zero, &fl));
    assert_false (ccas_value_matches (&one, &fl));

    /* lists: an element matches; a nested list is the whole list */
    struct ccas_error err = {""};
    json_object *j =
        json_tokener_parse ("[{\"select\": {}, \"name\": \"features\", \"value\": [\"ib\", \"ssd\"]},"
                            " {\"select\": {}, \"name\": \"ssd\", \"value\": \"T\"}]");
    struct ccas_rules *r = ccas_resources_compile (j, false, f->cache, f->dict, "dr", &err);
    assert_non_null (r);
    struct ccas_node n;
    memset (&n, 0, sizeof (n));
    n.kind = CCAS_NODE_READY;
    n.last_job = -1;
    assert_int_equal (ccas_resources_apply (r, &n, alloc_cb, f->arena), 0);
    char why[256];
    assert_true (fits (f, "{\"features\": \"ssd\"}", &n, why, sizeof (why)));
    assert_true (fits (f, "{\"features\": [\"gpu\", \"ib\"]}", &n, why, sizeof (why)));
    assert_true (fits (f, "{\"features\": [[\"ib\", \"ssd\"]]}", &n, why, sizeof (why)));
    assert_false (fits (f, "{\"features\": [[\"ib\"]]}", &n, why, sizeof (why)));
    assert_false (fits (f, "{\"features\": \"gpu\"}", &n, why, sizeof (why)));
    assert_string_equal (why, "features: wants 'gpu', node has ['ib', 'ssd']");
    /* scalelib's test_xor: A and B both in the list: not exactly one */
    assert_false (
        fits (f, "{\"xor\": [{\"features\": \"ib\"}, {\"features\": \"ssd\"}]}", &n, why, sizeof (why)));
    /* a boolean resource asked as 1 (PBS) or "y" */
    assert_true (fits (f, "{\"ssd\": 1}", &n, why, sizeof (why)));
    assert_true (fits (f, "{\"ssd\": true}", &n, why, sizeof (why)));
    assert_false (fits (f, "{\"ssd\": 0}", &n, why, sizeof (why)));
    assert_string_equal (why, "ssd: wants false, node has true");
    ccas_resources_destroy (r);
    json_object_put (j);
}

static void test_capacity_backoff_on_templates (void **state)
{
    struct fixture *f = *state;
    struct ccas_error err = {""};
    const struct ccas_constraint *c = compile (f, "{\"capacity-failure-backoff\": 300}", &err);
    struct ccas_node t = f->cpu;
    struct ccas_eval ev = {.job = -1, .template_node = true};
    t.kind = CCAS_NODE_NEW;
    t.capfail_age = 40;
    char why[128];
    assert_false (ccas_constraint_fits (c, &t, &ev, why, sizeof (why)));
    assert_string_equal (why, "capacity failure 40 s ago (back-off 300 s)");
    t.capfail_age = 400;
    assert_true (ccas_constraint_fits (c, &t, &ev, NULL, 0));
}

static void test_rules_errors (void **state)
{
    static const struct {
        const char *json;
        const char *want;
    } cases[] = {
        {"{}", "dr: expected an array of rules, got {}"},
        {"[1]", "dr[0]: expected a rule {select, name, value}, got 1"},
        {"[{\"select\": {}, \"value\": 1}]", "dr[0].name: missing"},
        {"[{\"select\": {}, \"name\": \"x\", \"value\": \"node.vmsize\"}]",
         "dr[0].value: unknown node property 'node.vmsize'"},
        {"[{\"select\": {}, \"name\": \"x\", \"value\": \"size::4gbb\"}]",
         "dr[0].value: 'size::4gbb': unknown unit suffix 'gbb'"},
        {"[{\"select\": {\"node.bogus\": 1}, \"name\": \"x\", \"value\": 1}]",
         "dr[0].select.node.bogus: unknown node property 'node.bogus'"},
        {"[{\"select\": {}, \"name\": \"x\", \"value\": 1, \"divide\": 0}]",
         "dr[0].divide: cannot divide by zero"},
        {"[{\"select\": {}, \"name\": \"x\", \"value\": 1, \"add\": 1, \"subtract\": 1}]",
         "dr[0].subtract: only one of add, subtract, multiply, divide, divide_floor"},
        {"[{\"select\": {}, \"name\": \"x\", \"value\": 1, \"sum\": 1}]",
         "dr[0].sum: unknown key (a rule has select, name, value and one modifier)"},
        {"[{\"select\": {}, \"name\": \"x\", \"value\": \"abc\", \"add\": 1}]",
         "dr[0]: a modifier needs a numeric value"},
        {"[{\"select\": {}, \"name\": \"x\", \"value\": \"node.resources.\"}]",
         "dr[0].value: 'node.resources.' names no resource"},
        {"[{\"select\": {}, \"name\": \"x\", \"value\": \"node.software_configuration.\"}]",
         "dr[0].value: 'node.software_configuration.' names no configuration key"},
        {"[{\"select\": {}, \"name\": \"x\", \"value\": [1, {}]}]",
         "dr[0].value[1]: a list holds numbers, strings and booleans, got {}"},
    };
    struct fixture *f = *state;
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        struct ccas_error err = {""};
        json_object *j = json_tokener_parse (cases[i].json);
        struct ccas_rules *r = ccas_resources_compile (j, false, f->cache, f->dict, "dr", &err);
        json_object_put (j);
        if (r)
            fail_msg ("case %zu accepted", i);
        assert_string_equal (err.text, cases[i].want);
    }
}

/* First rule per name wins; modifiers; disable_default_resources leaves only configured ones. */
static void test_rules_semantics (void **state)
{
    struct fixture *f = *state;
    struct ccas_error err = {""};
    json_object *j = json_tokener_parse (
        "[{\"select\": {\"node.vm_size\": \"Standard_F4*\"}, \"name\": \"ncpus\", \"value\": "
        "\"node.vcpu_count\", \"subtract\": 1},"
        " {\"select\": {}, \"name\": \"ncpus\", \"value\": 99},"
        " {\"select\": {}, \"name\": \"half\", \"value\": \"node.vcpu_count\", \"divide_floor\": 3},"
        " {\"select\": {}, \"name\": \"memx\", \"value\": \"node.memory\", \"multiply\": 0.5}]");
    struct ccas_rules *r = ccas_resources_compile (j, false, f->cache, f->dict, "dr", &err);
    assert_non_null (r);
    struct ccas_node n;
    memset (&n, 0, sizeof (n));
    n.vm_size = "Standard_F4s_v2";
    n.vcpu_count = 4;
    n.memory = 8.0 * 1024 * 1024 * 1024;
    assert_int_equal (ccas_resources_apply (r, &n, alloc_cb, f->arena), 0);
    assert_true (ccas_node_res (&n, ccas_resdict_find (f->dict, "ncpus"))->u.num == 3);
    assert_true (ccas_node_res (&n, ccas_resdict_find (f->dict, "half"))->u.num == 1);
    assert_true (ccas_node_res (&n, ccas_resdict_find (f->dict, "memx"))->u.num == 4.0 * 1024 * 1024 * 1024);
    assert_int_equal (ccas_node_res (&n, ccas_resdict_find (f->dict, "ngpus"))->type, CCAS_V_NONE);
    n.vm_size = "Standard_D2";
    memset (&n.res, 0, sizeof (n.res));
    assert_int_equal (ccas_resources_apply (r, &n, alloc_cb, f->arena), 0);
    assert_true (ccas_node_res (&n, ccas_resdict_find (f->dict, "ncpus"))->u.num == 99);
    ccas_resources_destroy (r);
    json_object_put (j);
}

/* node.resources.NAME and node.software_configuration.NAME (scalelib's
 * test_node_resources_alias, test_node_software_configuration_alias), with
 * the referenced resource defined whatever the rules' order. */
static void test_rules_references (void **state)
{
    struct fixture *f = *state;
    struct ccas_error err = {""};
    json_object *j = json_tokener_parse (
        "[{\"select\": {}, \"name\": \"memgb_alias\", \"value\": \"node.resources.memgb\"},"
        " {\"select\": {}, \"name\": \"mem_number\", \"value\": \"node.resources.mem.value\", \"divide\": 2},"
        " {\"select\": {}, \"name\": \"custom\", \"value\": \"node.software_configuration.custom_int\"},"
        " {\"select\": {}, \"name\": \"slurm_ver\", \"value\": "
        "\"node.software_configuration.slurm.version\"},"
        " {\"select\": {}, \"name\": \"dotted\", \"value\": \"node.software_configuration.a.b\"},"
        " {\"select\": {}, \"name\": \"queues\", \"value\": \"node.software_configuration.queues\"},"
        " {\"select\": {}, \"name\": \"absent\", \"value\": \"node.software_configuration.nosuch\"},"
        " {\"select\": {}, \"name\": \"absent\", \"value\": \"fallback\"},"
        " {\"select\": {}, \"name\": \"loop1\", \"value\": \"node.resources.loop2\"},"
        " {\"select\": {}, \"name\": \"loop2\", \"value\": \"node.resources.loop1\"},"
        " {\"select\": {}, \"name\": \"uuid\", \"value\": \"node.hostname_or_uuid\"}]");
    struct ccas_rules *r = ccas_resources_compile (j, true, f->cache, f->dict, "dr", &err);
    assert_non_null (r);
    json_object *conf =
        json_tokener_parse ("{\"custom_int\": 100, \"slurm\": {\"version\": \"23.11\"},"
                            " \"a.b\": true, \"a\": {\"b\": false}, \"queues\": [\"q1\", \"q2\"]}");
    struct ccas_node n;
    memset (&n, 0, sizeof (n));
    n.kind = CCAS_NODE_NEW;
    n.vcpu_count = 4;
    n.memory = 8.0 * 1024 * 1024 * 1024;
    n.software_configuration = conf;
    assert_int_equal (ccas_resources_apply (r, &n, alloc_cb, f->arena), 0);
#define RES(name) ccas_node_res (&n, ccas_resdict_find (f->dict, name))
    assert_true (RES ("memgb_alias")->u.num == 8);
    assert_true (RES ("mem_number")->u.num == 4.0 * 1024 * 1024 * 1024);
    assert_false (RES ("mem_number")->size);
    assert_true (RES ("custom")->u.num == 100);
    assert_string_equal (RES ("slurm_ver")->u.str, "23.11");
    assert_true (RES ("dotted")->type == CCAS_V_BOOL && RES ("dotted")->u.b); /* the whole key first */
    assert_int_equal (RES ("queues")->type, CCAS_V_LIST);
    assert_int_equal (RES ("queues")->u.list->n, 2);
    assert_string_equal (RES ("queues")->u.list->v[1].u.str, "q2");
    assert_string_equal (RES ("absent")->u.str, "fallback");
    assert_int_equal (RES ("loop1")->type, CCAS_V_NONE);
    assert_int_equal (RES ("loop2")->type, CCAS_V_NONE);
    assert_int_equal (strlen (RES ("uuid")->u.str), 36); /* a new node has no hostname */
#undef RES
    ccas_resources_destroy (r);
    json_object_put (j);
    json_object_put (conf);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_bad_input),
        cmocka_unit_test (test_terms_both_ways),
        cmocka_unit_test (test_or_decrements_first_match),
        cmocka_unit_test (test_not_on_resources),
        cmocka_unit_test (test_shared_consumable),
        cmocka_unit_test (test_shared_queue_pools),
        cmocka_unit_test (test_exclusivity),
        cmocka_unit_test (test_interning),
        cmocka_unit_test (test_rank_prefers_earlier_options),
        cmocka_unit_test (test_values),
        cmocka_unit_test (test_capacity_backoff_on_templates),
        cmocka_unit_test (test_rules_errors),
        cmocka_unit_test (test_rules_semantics),
        cmocka_unit_test (test_rules_references),
    };
    return cmocka_run_group_tests (tests, setup, teardown);
}
