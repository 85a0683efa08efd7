/* SPDX-License-Identifier: MIT */
/* test_resources.c: default_resources — each bad rule refused with its path,
 * then the rules of tests/data/resources-rules.json applied to nodes: for
 * each name the first rule whose select matches defines it (specific before
 * general), selects read properties and resources defined earlier, values
 * are literals, sizes or node properties with one modifier, and the
 * built-in rules follow unless disabled. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "model/constraint.h"
#include "model/resources.h"
#include "model/test/fixture.h"
#include "util/arena.h"

#define GiB (1024.0 * 1024 * 1024)

struct world {
    struct ccas_arena *arena;
    struct ccas_resdict *dict;
    struct ccas_shared *shared;
    struct ccas_cons_cache *cache;
};

static void world_init (struct world *w)
{
    w->arena = ccas_arena_create ();
    w->dict = ccas_resdict_create ();
    w->shared = ccas_shared_create ();
    w->cache = ccas_constraint_cache_create (w->dict, w->shared);
    assert_true (w->arena && w->dict && w->shared && w->cache);
}

static void world_release (struct world *w)
{
    ccas_constraint_cache_destroy (w->cache);
    ccas_shared_destroy (w->shared);
    ccas_resdict_destroy (w->dict);
    ccas_arena_destroy (w->arena);
}

static void *alloc_cb (void *arg, size_t size)
{
    return ccas_arena_alloc (arg, size);
}

static void make_node (struct ccas_node *n, const char *na, const char *vm, int vcpu, double mem_gb, bool ib,
                       bool spot)
{
    memset (n, 0, sizeof (*n));
    n->name = "n";
    n->nodearray = na;
    n->vm_size = vm;
    n->vcpu_count = vcpu;
    n->pcpu_count = vcpu / 2;
    n->gpu_count = 0;
    n->memory = mem_gb * GiB;
    n->infiniband = ib;
    n->spot = spot;
    n->kind = CCAS_NODE_READY;
    n->last_job = -1;
}

static const struct ccas_value *res (const struct world *w, const struct ccas_node *n, const char *name)
{
    return ccas_node_res (n, ccas_resdict_find (w->dict, name));
}

/* ---- bad rules ----------------------------------------------------------------------------- */

static void test_compile_refuses (void **state)
{
    static const struct {
        const char *json;
        const char *want;
    } cases[] = {
        {"{}", "dr: expected an array of rules, got {}"},
        {"[3]", "dr[0]: expected a rule {select, name, value}, got 3"},
        {"[{\"select\": {}, \"name\": \"a\", \"value\": 1}, {\"name\": \"b\", \"value\": 1, \"vaule\": 2}]",
         "dr[1].vaule: unknown key (a rule has select, name, value and one modifier)"},
        {"[{\"select\": {}, \"value\": 1}]", "dr[0].name: missing"},
        {"[{\"select\": {}, \"name\": \"\", \"value\": 1}]", "dr[0].name: missing"},
        {"[{\"select\": {}, \"name\": 4, \"value\": 1}]", "dr[0].name: expected a string, got 4"},
        {"[{\"select\": {}, \"name\": \"node.vm_size\", \"value\": 1}]",
         "dr[0].name: 'node.vm_size' is a node property, not a resource name"},
        {"[{\"select\": {}, \"name\": \"a\"}]",
         "dr[0].value: expected a number, string, boolean, list or node.<property>, got nothing"},
        {"[{\"select\": {}, \"name\": \"a\", \"value\": {}}]",
         "dr[0].value: expected a number, string, boolean, list or node.<property>, got {}"},
        {"[{\"select\": {}, \"name\": \"a\", \"value\": [[1]]}]",
         "dr[0].value[0]: a list holds numbers, strings and booleans, got [1]"},
        {"[{\"select\": {}, \"name\": \"a\", \"value\": \"node.resources.\"}]",
         "dr[0].value: 'node.resources.' names no resource"},
        {"[{\"select\": {}, \"name\": \"a\", \"value\": \"node.vmsize\"}]",
         "dr[0].value: unknown node property 'node.vmsize'"},
        {"[{\"select\": {}, \"name\": \"a\", \"value\": \"size::4gbb\"}]",
         "dr[0].value: 'size::4gbb': unknown unit suffix 'gbb'"},
        {"[{\"select\": {}, \"name\": \"a\", \"value\": 1, \"add\": 1, \"divide\": 2}]",
         "dr[0].divide: only one of add, subtract, multiply, divide, divide_floor"},
        {"[{\"select\": {}, \"name\": \"a\", \"value\": 1, \"add\": \"two\"}]",
         "dr[0].add: expected a number or a size, got \"two\""},
        {"[{\"select\": {}, \"name\": \"a\", \"value\": 1, \"divide\": 0}]",
         "dr[0].divide: cannot divide by zero"},
        {"[{\"select\": {}, \"name\": \"a\", \"value\": 1, \"divide_floor\": \"0g\"}]",
         "dr[0].divide_floor: cannot divide by zero"},
        {"[{\"select\": {}, \"name\": \"a\", \"value\": \"execute\", \"multiply\": 2}]",
         "dr[0]: a modifier needs a numeric value"},
        {"[{\"select\": {}, \"name\": \"a\", \"value\": true, \"add\": 1}]",
         "dr[0]: a modifier needs a numeric value"},
        {"[{\"select\": {\"node.vmsize\": \"x\"}, \"name\": \"a\", \"value\": 1}]", "dr[0].select"},
        /* a size with a typo is an error, not a string (STYLE.md's own example) */
        {"[{\"select\": {}, \"name\": \"a\", \"value\": \"4gbb\"}]",
         "dr[0].value: '4gbb': unknown unit suffix 'gbb'"},
        {"[{\"select\": {}, \"name\": \"a\", \"value\": 1, \"multiply\": \"2xb\"}]",
         "dr[0].multiply: '2xb': unknown unit suffix 'xb'"},
    };
    (void)state;
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        struct world w;
        struct ccas_error err = {""};
        world_init (&w);
        json_object *rules = json_tokener_parse (cases[i].json);
        assert_non_null (rules);
        if (ccas_resources_compile (rules, true, w.cache, w.dict, "dr", &err))
            fail_msg ("case %zu was accepted", i);
        if (strncmp (err.text, cases[i].want, strlen (cases[i].want)) != 0)
            fail_msg ("case %zu: '%s', want '%s'", i, err.text, cases[i].want);
        json_object_put (rules);
        world_release (&w);
    }
    ccas_resources_destroy (NULL);
}

/* ---- rules applied ------------------------------------------------------------------------------ */

static void test_rules_applied (void **state)
{
    (void)state;
    struct world w;
    struct ccas_error err = {""};
    world_init (&w);
    json_object *rules = fx_load ("resources-rules.json");
    struct ccas_rules *r = ccas_resources_compile (rules, true, w.cache, w.dict, "default_resources", &err);
    if (!r)
        fail_msg ("%s", err.text);

    struct ccas_node hpc, htc, spot;
    make_node (&hpc, "hpc", "Standard_HB120rs_v3", 120, 456, true, false);
    make_node (&htc, "htc", "Standard_F4s_v2", 4, 8, false, false);
    make_node (&spot, "htc", "Standard_D4s_v3", 4, 16, false, true);
    assert_int_equal (ccas_resources_apply (r, &hpc, alloc_cb, w.arena), 0);
    assert_int_equal (ccas_resources_apply (r, &htc, alloc_cb, w.arena), 0);
    assert_int_equal (ccas_resources_apply (r, &spot, alloc_cb, w.arena), 0);
    assert_int_equal (hpc.nres, ccas_resdict_count (w.dict));

    const struct {
        const struct ccas_node *n;
        const char *name;
        enum ccas_vtype type;
        double num; /* or 1/0 for a boolean */
        const char *str;
        bool size;
    } cases[] = {
        /* the first matching rule for a name wins: specific before general */
        {&hpc, "slot_type", CCAS_V_STR, 0, "mpi", false},
        {&htc, "slot_type", CCAS_V_STR, 0, "execute", false},
        /* a select reading a resource an earlier rule defined */
        {&hpc, "mpi_slots", CCAS_V_NUM, 3, NULL, false}, /* floor (120 / 32) */
        {&htc, "mpi_slots", CCAS_V_NONE, 0, NULL, false},
        /* a configured rule before the built-in one of the same name */
        {&htc, "ncpus", CCAS_V_NUM, 3, NULL, false},
        {&hpc, "ncpus", CCAS_V_NUM, 120, NULL, false},
        {&spot, "ncpus", CCAS_V_NUM, 4, NULL, false},
        /* sizes, and modifiers on them */
        {&htc, "scratch", CCAS_V_NUM, 20 * GiB, NULL, true},
        {&htc, "mem", CCAS_V_NUM, 8 * GiB * 0.9, NULL, true},
        {&htc, "half_gb", CCAS_V_NUM, 16, NULL, false}, /* bytes / bytes: a count */
        {&htc, "tokens", CCAS_V_NUM, 12.5, NULL, false},
        {&htc, "licensed", CCAS_V_BOOL, 1, NULL, false},
        {&hpc, "fabric", CCAS_V_STR, 0, "hpc", false}, /* a modifier leaves a string alone */
        {&htc, "fabric", CCAS_V_NONE, 0, NULL, false},
        {&htc, "never_set", CCAS_V_NONE, 0, NULL, false},
        {&spot, "spot_only", CCAS_V_NUM, 4 * GiB, NULL, true},
        {&htc, "spot_only", CCAS_V_NONE, 0, NULL, false},
        /* the built-in rules */
        {&hpc, "pcpus", CCAS_V_NUM, 60, NULL, false},
        {&hpc, "ngpus", CCAS_V_NUM, 0, NULL, false},
        {&hpc, "memgb", CCAS_V_NUM, 456, NULL, false},
        {&hpc, "mem", CCAS_V_NUM, 456 * GiB * 0.9, NULL, true},
        {&hpc, "nodearray", CCAS_V_STR, 0, "hpc", false},
        {&spot, "vm_size", CCAS_V_STR, 0, "Standard_D4s_v3", false},
    };
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        const struct ccas_value *v = res (&w, cases[i].n, cases[i].name);
        if (v->type != cases[i].type)
            fail_msg ("case %zu (%s): type %d, want %d", i, cases[i].name, v->type, cases[i].type);
        if (v->type == CCAS_V_NUM) {
            if (v->u.num != cases[i].num || v->size != cases[i].size)
                fail_msg ("case %zu (%s): %g%s, want %g%s", i, cases[i].name, v->u.num,
                          v->size ? " bytes" : "", cases[i].num, cases[i].size ? " bytes" : "");
            /* what is free starts as what the node has */
            assert_true (cases[i].n->avail[ccas_resdict_find (w.dict, cases[i].name)] == v->u.num);
        } else if (v->type == CCAS_V_STR)
            assert_string_equal (v->u.str, cases[i].str);
        else if (v->type == CCAS_V_BOOL)
            assert_int_equal (v->u.b, (bool)cases[i].num);
    }
    ccas_resources_destroy (r);
    json_object_put (rules);
    world_release (&w);
}

/* Without the built-ins only the configured names exist; no rules at all
 * gives a node no resources. */
static void test_builtins_optional (void **state)
{
    (void)state;
    struct world w;
    struct ccas_error err = {""};
    world_init (&w);
    json_object *rules =
        json_tokener_parse ("[{\"select\": {}, \"name\": \"slots\", \"value\": \"node.vcpu_count\"}]");
    struct ccas_rules *r = ccas_resources_compile (rules, false, w.cache, w.dict, "dr", &err);
    assert_non_null (r);
    struct ccas_node n;
    make_node (&n, "htc", "Standard_F4s_v2", 4, 8, false, false);
    assert_int_equal (ccas_resources_apply (r, &n, alloc_cb, w.arena), 0);
    assert_int_equal (ccas_resdict_find (w.dict, "ncpus"), -1);
    assert_true (res (&w, &n, "slots")->u.num == 4);
    assert_int_equal (n.nres, 1);
    ccas_resources_destroy (r);
    json_object_put (rules);

    r = ccas_resources_compile (NULL, false, w.cache, w.dict, "dr", &err);
    assert_non_null (r);
    make_node (&n, "htc", "Standard_F4s_v2", 4, 8, false, false);
    assert_int_equal (ccas_resources_apply (r, &n, alloc_cb, w.arena), 0);
    assert_int_equal (n.nres, 1); /* the dictionary's size: "slots" is undefined here */
    assert_int_equal (res (&w, &n, "slots")->type, CCAS_V_NONE);
    ccas_resources_destroy (r);
    world_release (&w);
}

/* A node made before a name was interned reads it as undefined. */
static void test_later_names_undefined (void **state)
{
    (void)state;
    struct world w;
    struct ccas_error err = {""};
    world_init (&w);
    struct ccas_rules *r = ccas_resources_compile (NULL, true, w.cache, w.dict, "dr", &err);
    struct ccas_node n;
    make_node (&n, "htc", "Standard_F4s_v2", 4, 8, false, false);
    assert_int_equal (ccas_resources_apply (r, &n, alloc_cb, w.arena), 0);
    int later = ccas_resdict_intern (w.dict, "later");
    assert_true (later >= (int)n.nres);
    assert_int_equal (ccas_node_res (&n, later)->type, CCAS_V_NONE);
    ccas_resources_destroy (r);
    world_release (&w);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_compile_refuses),
        cmocka_unit_test (test_rules_applied),
        cmocka_unit_test (test_builtins_optional),
        cmocka_unit_test (test_later_names_undefined),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
