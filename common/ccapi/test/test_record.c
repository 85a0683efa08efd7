/* SPDX-License-Identifier: MIT */
/* test_record.c: CycleCloud's node records — one at a time, as arrays and
 * as node lists (with their operation id); every field read, lenient where
 * servers differ; bad records refused with their index; the lifecycle
 * predicates. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "ccapi/record.h"
#include "util/json.h"

static json_object *load_records (void)
{
    struct ccas_error err = {""};
    json_object *o = ccas_json_load_file (TEST_DATA_DIR "/node-records.json", 1 << 20, &err);
    if (!o)
        fail_msg ("%s", err.text);
    return o;
}

/* ---- bad input ------------------------------------------------------------------------------ */

static void test_nodes_bad (void **state)
{
    static const char *const bad[] = {
        "{}", "{\"nodes\": 3}", "{\"nodes\": [3]}", "{\"nodes\": [{\"Name\": 5}]}", "\"nodes\"",
    };
    (void)state;
    for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
        struct ccas_error err = {""};
        assert_null (ccas_record_list_from_json (json_tokener_parse (bad[i]), &err));
        assert_true (strlen (err.text) > 0);
    }
}

/* The same, with the whole message: what is wrong and where. */
static void test_list_errors (void **state)
{
    static const struct {
        const char *json; /* NULL: no document at all */
        const char *want;
    } cases[] = {
        {NULL, "nodes: missing"},
        {"{}", "nodes: missing"},
        {"{\"nodes\": null}", "nodes: missing"},
        {"{\"nodes\": 3}", "nodes: expected an array of node records, got 3"},
        {"{\"nodes\": {\"Name\": \"a\"}}", "nodes: expected an array of node records, got {\"Name\":\"a\"}"},
        {"\"nodes\"", "nodes: expected an array of node records, got \"nodes\""},
        {"{\"nodes\": [{\"Name\": \"a\"}, 3]}", "nodes[1]: expected a node record, got 3"},
        {"{\"nodes\": [{\"Name\": \"a\"}, {\"NodeId\": \"x\"}]}", "nodes[1]: Name: missing"},
        {"[{\"Name\": 5}]", "nodes[0]: Name: missing"},
    };
    (void)state;
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        struct ccas_error err = {""};
        json_object *root = cases[i].json ? json_tokener_parse (cases[i].json) : NULL;
        if (cases[i].json)
            assert_non_null (root);
        if (ccas_record_list_from_json (root, &err))
            fail_msg ("case %zu was accepted", i);
        assert_string_equal (err.text, cases[i].want);
    }
    assert_null (ccas_record_list_from_json (json_tokener_parse ("{}"), NULL));
}

static void test_parse_one_bad (void **state)
{
    (void)state;
    struct ccas_record r;
    struct ccas_error err = {""};
    memset (&r, 0xff, sizeof (r));
    json_object *arr = json_tokener_parse ("[1]");
    assert_int_equal (ccas_record_parse (arr, &r, &err), -1);
    assert_string_equal (err.text, "expected a node record, got [1]");
    assert_null (r.name); /* cleared, not left as it was */
    assert_int_equal (ccas_record_parse (NULL, &r, &err), -1);
    assert_string_equal (err.text, "expected a node record, got null");
    json_object_put (arr);
}

/* ---- records ---------------------------------------------------------------------------------- */

static const char nodes_json[] =
    "{\"nodes\": [{\"Name\": \"htc-1\", \"NodeId\": \"id1\", \"Template\": \"htc\", \"MachineType\": "
    "\"Standard_F2s_v2\","
    " \"Status\": \"Ready\", \"TargetState\": \"Started\", \"PrivateIp\": \"10.1.0.4\", \"Hostname\": "
    "\"htc-1\","
    " \"KeepAlive\": true, \"PlacementGroupId\": \"pg0\", \"CoreCount\": 2, \"Memory\": 4.0},"
    " {\"Name\": \"htc-2\", \"NodeId\": \"id2\", \"Template\": \"htc\", \"Status\": \"Failed\","
    " \"StatusMessage\": \"boot failed\"}], \"operation\": {\"id\": \"op-1\"}}";

static void test_nodes_typed (void **state)
{
    struct ccas_error err = {""};
    (void)state;
    struct ccas_record_list *l = ccas_record_list_from_json (json_tokener_parse (nodes_json), &err);
    assert_non_null (l);
    assert_int_equal (l->nnodes, 2);
    assert_string_equal (l->operation_id, "op-1");
    assert_string_equal (l->nodes[0].private_ip, "10.1.0.4");
    assert_string_equal (l->nodes[0].placement_group_id, "pg0");
    assert_true (l->nodes[0].keep_alive);
    assert_true (ccas_record_is_ready (&l->nodes[0]));
    assert_true (ccas_record_is_failed (&l->nodes[1]));
    assert_string_equal (l->nodes[1].status_message, "boot failed");
    ccas_record_list_destroy (l);
}

/* Every field a record has, and the lenient readings of the second record
 * (booleans and numbers as strings, an empty placement group as none). */
static void test_every_field (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct ccas_record_list *l = ccas_record_list_from_json (load_records (), &err);
    assert_non_null (l);
    assert_int_equal (l->nnodes, 3);
    assert_string_equal (l->operation_id, "op-7");
    const struct ccas_record *r = &l->nodes[0];
    assert_string_equal (r->name, "hpc-1");
    assert_string_equal (r->node_id, "id-1");
    assert_string_equal (r->nodearray, "hpc");
    assert_string_equal (r->machine_type, "Standard_HB120rs_v3");
    assert_string_equal (r->status, "Ready");
    assert_string_equal (r->target_state, "Started");
    assert_string_equal (r->state, "Started");
    assert_string_equal (r->status_message, "");
    assert_string_equal (r->hostname, "ip-0A000004");
    assert_string_equal (r->private_ip, "10.0.0.4");
    assert_string_equal (r->instance_id, "/subscriptions/s/vm/hpc-1");
    assert_string_equal (r->region, "westeurope");
    assert_string_equal (r->placement_group_id, "hpc-pg0");
    assert_string_equal (r->shutdown_policy, "Deallocate");
    assert_true (r->keep_alive);
    assert_true (r->interruptible);
    assert_true (r->fixed);
    assert_int_equal (r->core_count, 120);
    assert_true (r->memory_gb == 456.5);
    assert_string_equal (ccas_json_str (ccas_json_get (r->raw, "Unknown"), "kept"), "in raw");

    r = &l->nodes[1];
    assert_null (r->placement_group_id);
    assert_true (r->keep_alive);
    assert_false (r->interruptible);
    assert_int_equal (r->core_count, 16);
    assert_true (r->memory_gb == 64);
    assert_null (r->node_id);

    r = &l->nodes[2];
    assert_string_equal (r->name, "hpc-3");
    assert_null (r->status);
    assert_false (r->keep_alive);
    assert_int_equal (r->core_count, 0);
    assert_true (r->memory_gb == 0);
    ccas_record_list_destroy (l);
    ccas_record_list_destroy (NULL);
}

/* A bare array is a list too; "operationId" is the operation when there is
 * no "operation" member; an empty list is a list. */
static void test_list_shapes (void **state)
{
    static const struct {
        const char *json;
        size_t n;
        const char *op;
    } cases[] = {
        {"[]", 0, NULL},
        {"[{\"Name\": \"a\"}, {\"Name\": \"b\"}]", 2, NULL},
        {"{\"nodes\": []}", 0, NULL},
        {"{\"nodes\": [{\"Name\": \"a\"}], \"operationId\": \"op-2\"}", 1, "op-2"},
        {"{\"nodes\": [], \"operation\": {\"id\": \"op-3\"}, \"operationId\": \"op-4\"}", 0, "op-3"},
        {"{\"nodes\": [], \"operation\": {\"id\": 5}}", 0, NULL},
    };
    (void)state;
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        struct ccas_error err = {""};
        struct ccas_record_list *l = ccas_record_list_from_json (json_tokener_parse (cases[i].json), &err);
        if (!l)
            fail_msg ("case %zu: %s", i, err.text);
        assert_int_equal (l->nnodes, cases[i].n);
        assert_non_null (l->nodes); /* an array, even when empty */
        if (cases[i].op)
            assert_string_equal (l->operation_id, cases[i].op);
        else
            assert_null (l->operation_id);
        ccas_record_list_destroy (l);
    }
}

static void test_parse_array (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct ccas_record *v = NULL;
    size_t n = 99;
    json_object *arr = json_tokener_parse ("[{\"Name\": \"a\"}, {\"Name\": \"b\", \"Status\": \"Ready\"}]");
    assert_int_equal (ccas_record_parse_array (arr, "x.nodes", &v, &n, &err), 0);
    assert_int_equal (n, 2);
    assert_string_equal (v[1].name, "b");
    assert_string_equal (v[1].status, "Ready");
    free (v);
    json_object_put (arr);

    arr = json_tokener_parse ("[{\"Name\": \"a\"}, {}, {\"Name\": \"c\"}]");
    v = NULL;
    n = 99;
    assert_int_equal (ccas_record_parse_array (arr, "x.nodes", &v, &n, &err), -1);
    assert_string_equal (err.text, "x.nodes[1]: Name: missing");
    assert_null (v); /* nothing handed out on failure */
    assert_int_equal (n, 99);
    json_object_put (arr);
}

/* ---- predicates ------------------------------------------------------------------------------------ */

static void test_predicates (void **state)
{
    static const struct {
        const char *status, *target, *ip;
        bool ready, failed, settled;
    } cases[] = {
        {NULL, NULL, NULL, false, false, false},
        {NULL, "Started", "10.0.0.4", false, false, false},
        {"Ready", NULL, NULL, false, false, false},
        {"Ready", NULL, "", false, false, false},
        {"Ready", "Started", "10.0.0.4", true, false, false},
        {"Ready", "Ready", "10.0.0.4", true, false, true},
        {"ready", NULL, "10.0.0.4", false, false, false}, /* exact */
        {"Failed", "Started", "10.0.0.4", false, true, false},
        {"Acquiring", "Started", NULL, false, false, false},
        {"Deallocated", "Deallocated", NULL, false, false, true},
        {"Terminated", "Terminated", NULL, false, false, true},
    };
    (void)state;
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        struct ccas_record r = {.name = "n",
                                .status = cases[i].status,
                                .target_state = cases[i].target,
                                .private_ip = cases[i].ip};
        if (ccas_record_is_ready (&r) != cases[i].ready || ccas_record_is_failed (&r) != cases[i].failed ||
            ccas_record_is_settled (&r) != cases[i].settled)
            fail_msg ("case %zu: ready %d failed %d settled %d", i, ccas_record_is_ready (&r),
                      ccas_record_is_failed (&r), ccas_record_is_settled (&r));
    }
}

/* A node was made with a create's attributes when its Configuration holds
 * theirs: CycleCloud merges them over the nodearray's, nested objects too. */
static void test_made_with (void **state)
{
    static const struct {
        const char *record, *attributes;
        bool made_with;
    } cases[] = {
        {"{}", NULL, true},
        {"{}", "{\"KeepAlive\": true}", true}, /* no Configuration: any node */
        {"{}", "{\"Configuration\": {\"a\": 1}}", false},
        {"{\"Configuration\": {\"a\": 1, \"b\": 2}}", "{\"Configuration\": {\"a\": 1}}", true},
        {"{\"Configuration\": {\"a\": 2}}", "{\"Configuration\": {\"a\": 1}}", false},
        {"{\"Configuration\": {\"x\": {\"enabled\": true, \"group\": \"g1\"}}}",
         "{\"Configuration\": {\"x\": {\"group\": \"g1\"}}}", true},
        {"{\"Configuration\": {\"x\": {\"enabled\": true, \"group\": \"g2\"}}}",
         "{\"Configuration\": {\"x\": {\"group\": \"g1\"}}}", false},
        {"{\"Configuration\": {\"x\": \"g1\"}}", "{\"Configuration\": {\"x\": {\"group\": \"g1\"}}}", false},
        {"{\"Configuration\": {\"l\": [1, 2]}}", "{\"Configuration\": {\"l\": [1, 2]}}", true},
        {"{\"Configuration\": {\"l\": [1, 2, 3]}}", "{\"Configuration\": {\"l\": [1, 2]}}", false},
    };
    (void)state;
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        json_object *raw = json_tokener_parse (cases[i].record);
        json_object *attrs = cases[i].attributes ? json_tokener_parse (cases[i].attributes) : NULL;
        struct ccas_record r = {.name = "n", .raw = raw};
        if (ccas_record_made_with (&r, attrs) != cases[i].made_with)
            fail_msg ("case %zu: %s made with %s: expected %d", i, cases[i].record,
                      cases[i].attributes ? cases[i].attributes : "nothing", cases[i].made_with);
        json_object_put (raw);
        json_object_put (attrs);
    }
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_nodes_bad),     cmocka_unit_test (test_list_errors),
        cmocka_unit_test (test_parse_one_bad), cmocka_unit_test (test_nodes_typed),
        cmocka_unit_test (test_every_field),   cmocka_unit_test (test_list_shapes),
        cmocka_unit_test (test_parse_array),   cmocka_unit_test (test_predicates),
        cmocka_unit_test (test_made_with),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
