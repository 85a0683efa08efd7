/* SPDX-License-Identifier: MIT */
/* test_status.c: the typed view of a status response — every wrong field
 * refused with its path and nothing leaked on the way out; every count,
 * quota and VM field read where the server states it and -1 (unknown)
 * where it does not; the nodearray record's settings; placement groups,
 * active nodes and node records. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "ccapi/status.h"
#include "util/json.h"

static json_object *load (const char *path)
{
    struct ccas_error err = {""};
    json_object *o = ccas_json_load_file (path, 1 << 20, &err);
    if (!o)
        fail_msg ("%s", err.text);
    return o;
}

static json_object *small_status (void)
{
    return load (CCSIM_CLUSTERS_DIR "/small.json");
}

static json_object *every_field (void)
{
    return load (TEST_DATA_DIR "/status-every-field.json");
}

/* The first bucket of the first nodearray of a status document. */
static json_object *first_bucket (json_object *root)
{
    return json_object_array_get_idx (
        ccas_json_get (json_object_array_get_idx (ccas_json_get (root, "nodearrays"), 0), "buckets"), 0);
}

/* ---- bad input ------------------------------------------------------------------------------ */

static void test_status_not_an_object (void **state)
{
    struct ccas_error err = {""};
    (void)state;
    assert_null (ccas_status_from_json (json_object_new_array (), "test", &err));
    assert_true (strlen (err.text) > 0);
    err.text[0] = '\0';
    assert_null (ccas_status_from_json (NULL, "test", &err));
    assert_true (strlen (err.text) > 0);
    assert_null (ccas_status_from_json (json_object_new_string ("x"), "test", NULL));
}

/* One wrong type per case: the error names the path; no crash, no leak. */
static void test_status_bad_fields (void **state)
{
    static const struct {
        const char *edit; /* a jq-like description, applied below */
        const char *want;
    } cases[] = {
        {"nodearrays", "nodearrays"},
        {"maxCount", "maxCount"},
        {"bucket.maxCount", "maxCount"},
        {"bucket.virtualMachine", "virtualMachine"},
    };
    (void)state;
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        struct ccas_error err = {""};
        json_object *root = small_status ();
        json_object *bucket = first_bucket (root);
        if (strcmp (cases[i].edit, "nodearrays") == 0)
            json_object_object_add (root, "nodearrays", json_object_new_string ("oops"));
        else if (strcmp (cases[i].edit, "maxCount") == 0)
            json_object_object_add (root, "maxCount", json_object_new_string ("many"));
        else if (strcmp (cases[i].edit, "bucket.maxCount") == 0)
            json_object_object_add (bucket, "maxCount", json_object_new_array ());
        else
            json_object_object_add (bucket, "virtualMachine", json_object_new_int (3));
        assert_null (ccas_status_from_json (root, "test", &err));
        assert_non_null (strstr (err.text, cases[i].want));
    }
}

/* Each case sets one member, at `where`, to `value` (JSON text; NULL
 * removes it); the error is exactly `want`. */
static void test_status_errors_name_the_path (void **state)
{
    static const struct {
        const char *where; /* "root", "nodearray", "bucket", "vm", "pg" */
        const char *key;
        const char *value;
        const char *want;
    } cases[] = {
        {"root", "nodearrays", NULL, "status: nodearrays: missing"},
        {"root", "nodearrays", "{}", "status: nodearrays: expected an array"},
        {"root", "maxCoreCount", "true", "status.maxCoreCount: expected an integer, got true"},
        {"nodearray", "name", NULL, "status: nodearrays[0].name: missing"},
        {"nodearray", "name", "3", "status: nodearrays[0].name: missing"},
        {"nodearray", "maxCount", "\"x\"", "status: nodearrays[0].maxCount: expected an integer, got \"x\""},
        {"nodearray", "buckets", "{}", "status: nodearrays[0].buckets: expected an array, got {}"},
        {"bucket", "definition", NULL, "status: nodearrays[0].buckets[0].definition.machineType: missing"},
        {"bucket", "definition", "{\"machineType\": 7}",
         "status: nodearrays[0].buckets[0].definition.machineType: missing"},
        {"bucket", "availableCount", "\"12\"",
         "status: nodearrays[0].buckets[0].availableCount: expected an integer, got \"12\""},
        {"bucket", "familyQuotaCoreCount", "[]",
         "status: nodearrays[0].buckets[0].familyQuotaCoreCount: expected an integer, got []"},
        {"bucket", "lastCapacityFailure", "\"never\"",
         "status: nodearrays[0].buckets[0].lastCapacityFailure: expected a number, got \"never\""},
        {"bucket", "consumedCoreCount", "\"9\"",
         "status: nodearrays[0].buckets[0].consumedCoreCount: expected an integer, got \"9\""},
        {"bucket", "maxPlacementGroupCoreSize", "{}",
         "status: nodearrays[0].buckets[0].maxPlacementGroupCoreSize: expected an integer, got {}"},
        {"bucket", "virtualMachine", "[]",
         "status: nodearrays[0].buckets[0].virtualMachine: expected an object, got []"},
        {"vm", "vcpuCount", "\"2\"",
         "status: nodearrays[0].buckets[0].virtualMachine.vcpuCount: expected an integer, got \"2\""},
        {"vm", "gpuCount", "0.5",
         "status: nodearrays[0].buckets[0].virtualMachine.gpuCount: expected an integer, got 0.5"},
        {"vm", "memory", "\"4g\"",
         "status: nodearrays[0].buckets[0].virtualMachine.memory: expected a number, got \"4g\""},
        {"bucket", "placementGroups", "{}",
         "status: nodearrays[0].buckets[0].placementGroups: expected an array"},
        {"pg", "name", NULL, "status: nodearrays[0].buckets[0].placementGroups[0].name: missing"},
        {"pg", "activeCount", "\"3\"",
         "status: nodearrays[0].buckets[0].placementGroups[0].activeCount: expected an integer, got \"3\""},
    };
    (void)state;
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        struct ccas_error err = {""};
        json_object *root = every_field ();
        json_object *na = json_object_array_get_idx (ccas_json_get (root, "nodearrays"), 0);
        json_object *b = first_bucket (root);
        json_object *at = strcmp (cases[i].where, "root") == 0        ? root
                          : strcmp (cases[i].where, "nodearray") == 0 ? na
                          : strcmp (cases[i].where, "bucket") == 0    ? b
                          : strcmp (cases[i].where, "vm") == 0
                              ? ccas_json_get (b, "virtualMachine")
                              : json_object_array_get_idx (ccas_json_get (b, "placementGroups"), 0);
        if (cases[i].value)
            json_object_object_add (at, cases[i].key, json_tokener_parse (cases[i].value));
        else
            json_object_object_del (at, cases[i].key);
        if (ccas_status_from_json (root, "hpc", &err))
            fail_msg ("case %zu was accepted", i);
        if (strcmp (err.text, cases[i].want) != 0)
            fail_msg ("case %zu: '%s', want '%s'", i, err.text, cases[i].want);
    }
}

/* Limits that are negative or contradict each other are warnings naming
 * the bucket and field; a negative limit reads as 0; a wrong type is an error. */
static void test_status_bad_limits (void **state)
{
    static const struct {
        const char *field;
        const char *value; /* JSON */
        const char *want;  /* in a warning, or (error) in the error */
        bool error;
    } cases[] = {
        {"quotaCoreCount", "-5", "(htc/Standard_F2s_v2): quotaCoreCount: -5 is negative; read as 0", false},
        {"consumedCoreCount", "50", "(htc/Standard_F2s_v2): consumedCoreCount 50 is above quotaCoreCount 40",
         false},
        {"familyConsumedCoreCount", "41",
         "(htc/Standard_F2s_v2): familyConsumedCoreCount 41 is above familyQuotaCoreCount 40", false},
        {"availableCount", "30", "(htc/Standard_F2s_v2): availableCount 30 is above maxCount 20", false},
        {"quotaCoreCount", "\"100\"", "quotaCoreCount: expected an integer", true},
        {"regionalQuotaCoreCount", "true", "regionalQuotaCoreCount: expected an integer", true},
    };
    (void)state;
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        struct ccas_error err = {""};
        json_object *root = small_status ();
        json_object *bucket = json_object_array_get_idx (
            ccas_json_get (json_object_array_get_idx (ccas_json_get (root, "nodearrays"), 0), "buckets"), 0);
        json_object_object_add (bucket, "quotaCoreCount", json_object_new_int (40));
        json_object_object_add (bucket, cases[i].field, json_tokener_parse (cases[i].value));
        struct ccas_status *st = ccas_status_from_json (root, "test", &err);
        if (cases[i].error) {
            assert_null (st);
            assert_non_null (strstr (err.text, cases[i].want));
            assert_non_null (strstr (err.text, "buckets[0]"));
            continue;
        }
        assert_non_null (st);
        bool found = false;
        for (size_t w = 0; w < st->nwarnings; w++)
            found = found || strstr (st->warnings[w], cases[i].want);
        if (!found)
            fail_msg ("no warning '%s' (%zu warnings)", cases[i].want, st->nwarnings);
        if (strcmp (cases[i].value, "-5") == 0)
            assert_int_equal (st->nodearrays[0].buckets[0].quota_core_count, 0);
        ccas_status_destroy (st);
    }
}

/* A bucket without its virtualMachine parses: the model fills it from its table. */
static void test_status_vm_optional (void **state)
{
    struct ccas_error err = {""};
    json_object *root = small_status ();
    json_object *bucket = json_object_array_get_idx (
        ccas_json_get (json_object_array_get_idx (ccas_json_get (root, "nodearrays"), 0), "buckets"), 0);
    (void)state;
    json_object_object_del (bucket, "virtualMachine");
    struct ccas_status *st = ccas_status_from_json (root, "test", &err);
    assert_non_null (st);
    assert_int_equal (st->nodearrays[0].buckets[0].vm.vcpu_count, 0);
    assert_int_equal (st->nwarnings, 0);
    ccas_status_destroy (st);
}

/* A node record without a Name in a status?nodes=true is refused with its index. */
static void test_status_bad_node (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    json_object *root = every_field ();
    json_object_object_del (json_object_array_get_idx (ccas_json_get (root, "nodes"), 1), "Name");
    assert_null (ccas_status_from_json (root, "hpc", &err));
    assert_string_equal (err.text, "status: nodes[1]: Name: missing");
}

/* ---- typed values ----------------------------------------------------------------------------- */

static void test_status_typed (void **state)
{
    struct ccas_error err = {""};
    (void)state;
    struct ccas_status *st = ccas_status_from_json (small_status (), "test", &err);
    assert_non_null (st);
    assert_int_equal (st->nnodearrays, 3);
    assert_string_equal (st->nodearrays[0].name, "htc");
    const struct ccas_bucket_status *b = NULL;
    for (size_t i = 0; i < st->nnodearrays; i++)
        for (size_t j = 0; j < st->nodearrays[i].nbuckets; j++)
            if (strcmp (st->nodearrays[i].buckets[j].machine_type, "Standard_HB120rs_v3") == 0)
                b = &st->nodearrays[i].buckets[j];
    assert_non_null (b);
    assert_int_equal (b->max_pg_size, 4);
    assert_true (b->vm.infiniband);
    assert_non_null (b->raw); /* open fields stay reachable */
    assert_null (st->nodes);
    ccas_status_destroy (st);
}

/* Every count the server may state, each with its own value in the data
 * file, lands in its own field. */
static void test_every_bucket_count (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct ccas_status *st = ccas_status_from_json (every_field (), "hpc", &err);
    assert_non_null (st);
    const struct ccas_bucket_status *b = &st->nodearrays[0].buckets[0];
    const struct {
        const char *key;
        int64_t got;
    } counts[] = {
        {"maxCount", b->max_count},
        {"maxCoreCount", b->max_core_count},
        {"activeCount", b->active_count},
        {"activeCoreCount", b->active_core_count},
        {"availableCount", b->available_count},
        {"availableCoreCount", b->available_core_count},
        {"quotaCount", b->quota_count},
        {"quotaCoreCount", b->quota_core_count},
        {"consumedCoreCount", b->consumed_core_count},
        {"familyQuotaCount", b->family_quota_count},
        {"familyQuotaCoreCount", b->family_quota_core_count},
        {"familyConsumedCoreCount", b->family_consumed_core_count},
        {"regionalQuotaCount", b->regional_quota_count},
        {"regionalQuotaCoreCount", b->regional_quota_core_count},
        {"regionalConsumedCoreCount", b->regional_consumed_core_count},
        {"maxPlacementGroupSize", b->max_pg_size},
        {"maxPlacementGroupCoreSize", b->max_pg_core_size}, /* 17.0: a double read as a count */
    };
    for (size_t i = 0; i < sizeof (counts) / sizeof (counts[0]); i++)
        if (counts[i].got != (int64_t)i + 1)
            fail_msg ("%s: %lld, want %zu", counts[i].key, (long long)counts[i].got, i + 1);
    assert_string_equal (b->bucket_id, "b-hb");
    assert_string_equal (b->machine_type, "Standard_HB120rs_v3");
    assert_false (b->valid);
    assert_string_equal (b->invalid_reason, "retired size");
    assert_true (b->last_capacity_failure == 120.5);
    assert_true (b->spot_placement_score == 0.75);
    assert_int_equal (b->vm.vcpu_count, 120);
    assert_int_equal (b->vm.pcpu_count, 96);
    assert_int_equal (b->vm.gpu_count, 2);
    assert_true (b->vm.memory_gb == 456.5);
    assert_true (b->vm.infiniband);
    assert_int_equal (b->vm.vcpu_quota_count, 128);
    assert_int_equal (b->npgs, 2);
    assert_string_equal (b->pgs[0].name, "hpc-pg0");
    assert_int_equal (b->pgs[0].active_count, 3);
    assert_int_equal (b->pgs[0].active_core_count, 360);
    assert_string_equal (b->pgs[1].name, "hpc-pg1");
    assert_int_equal (b->pgs[1].active_count, 0); /* absent: none */
    assert_int_equal (b->pgs[1].active_core_count, -1);
    assert_int_equal (b->nactive_nodes, 3);
    assert_string_equal (b->active_nodes[2], "hpc-3");
    assert_int_equal (st->max_count, 50);
    assert_int_equal (st->max_core_count, 5000);
    assert_string_equal (st->state, "Started");
    assert_string_equal (st->name, "hpc");
    ccas_status_destroy (st);
}

/* What the server leaves out reads as unknown (-1), valid, never failed,
 * and a VM's quota cores as its vCPUs. */
static void test_absent_fields (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct ccas_status *st = ccas_status_from_json (every_field (), "hpc", &err);
    assert_non_null (st);
    const struct ccas_nodearray_status *na = &st->nodearrays[1];
    assert_string_equal (na->name, "htc");
    assert_int_equal (na->max_count, -1);
    assert_int_equal (na->max_core_count, -1);
    const struct ccas_bucket_status *b = &na->buckets[0];
    const int64_t *counts[] = {&b->max_count,
                               &b->max_core_count,
                               &b->active_count,
                               &b->active_core_count,
                               &b->available_count,
                               &b->available_core_count,
                               &b->quota_count,
                               &b->quota_core_count,
                               &b->consumed_core_count,
                               &b->family_quota_count,
                               &b->regional_quota_count,
                               &b->max_pg_size,
                               &b->max_pg_core_size,
                               &b->family_consumed_core_count};
    for (size_t i = 0; i < sizeof (counts) / sizeof (counts[0]); i++)
        if (*counts[i] != -1)
            fail_msg ("count %zu: %lld, want -1", i, (long long)*counts[i]);
    assert_null (b->bucket_id);
    assert_true (b->valid);
    assert_null (b->invalid_reason);
    assert_true (b->last_capacity_failure < 0);
    assert_true (b->spot_placement_score < 0);
    assert_int_equal (b->vm.pcpu_count, 0);
    assert_int_equal (b->vm.gpu_count, 0);
    assert_int_equal (b->vm.vcpu_quota_count, 2);
    assert_false (b->vm.infiniband);
    assert_int_equal (b->npgs, 0);
    assert_null (b->active_nodes);
    /* a nodearray without buckets */
    assert_string_equal (st->nodearrays[2].name, "empty");
    assert_int_equal (st->nodearrays[2].nbuckets, 0);
    assert_true (st->nodearrays[2].autoscale_enabled);
    assert_int_equal (st->nodearrays[2].max_scaleset_size, -1);
    ccas_status_destroy (st);
}

/* The PascalCase nodearray record: region, subnet, placement group,
 * priority, spot, shutdown policy, autoscale and scale set size (nested
 * or dotted). */
static void test_nodearray_record (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct ccas_status *st = ccas_status_from_json (every_field (), "hpc", &err);
    assert_non_null (st);
    const struct ccas_nodearray_status *na = &st->nodearrays[0];
    assert_int_equal (na->max_count, 16);
    assert_int_equal (na->max_core_count, 1920);
    assert_string_equal (na->region, "westeurope");
    assert_string_equal (na->subnet_id, "/subscriptions/s/subnets/compute");
    assert_string_equal (na->placement_group_id, "hpc-pg");
    assert_int_equal (na->priority, 7);
    assert_true (na->interruptible);
    assert_string_equal (na->shutdown_policy, "Deallocate");
    assert_false (na->autoscale_enabled);
    assert_int_equal (na->max_scaleset_size, 300);
    assert_non_null (na->record);
    assert_int_equal (st->nodearrays[1].max_scaleset_size, 40);
    assert_null (st->nodearrays[1].region);
    assert_int_equal (st->nodearrays[1].priority, 0);
    assert_false (st->nodearrays[1].interruptible);
    assert_true (st->nodearrays[1].autoscale_enabled);
    ccas_status_destroy (st);

    /* an empty PlacementGroupId is none */
    json_object *root = every_field ();
    json_object *rec =
        ccas_json_get (json_object_array_get_idx (ccas_json_get (root, "nodearrays"), 0), "nodearray");
    json_object_object_add (rec, "PlacementGroupId", json_object_new_string (""));
    st = ccas_status_from_json (root, "hpc", &err);
    assert_non_null (st);
    assert_null (st->nodearrays[0].placement_group_id);
    ccas_status_destroy (st);
}

/* With nodes=true the node records come typed. */
static void test_status_nodes (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct ccas_status *st = ccas_status_from_json (every_field (), "hpc", &err);
    assert_non_null (st);
    assert_int_equal (st->nnodes, 2);
    assert_string_equal (st->nodes[0].name, "hpc-1");
    assert_true (ccas_record_is_ready (&st->nodes[0]));
    assert_false (ccas_record_is_ready (&st->nodes[1]));
    ccas_status_destroy (st);
    ccas_status_destroy (NULL);
}

/* The cluster's state and targetState: Started (or not stated) lets nodes
 * be made; any other state says why not, naming the cluster and both. */
static void test_status_started (void **state)
{
    static const struct {
        const char *state, *target, *why;
    } cases[] = {
        {"Started", "Started", NULL},
        {NULL, NULL, NULL},
        {"Started", NULL, NULL},
        {"Terminating", "Terminated", "cluster 'test' is Terminating (targetState Terminated)"},
        {"Started", "Terminated", "cluster 'test' is Started (targetState Terminated)"},
        {"Starting", "Started", "cluster 'test' is Starting (targetState Started)"},
        {"Off", NULL, "cluster 'test' is Off"},
        {NULL, "Terminated", "cluster 'test' has targetState Terminated"},
    };
    (void)state;
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        struct ccas_error err = {""};
        char buf[200];
        json_object *root = small_status ();
        json_object_object_del (root, "state");
        json_object_object_del (root, "targetState");
        if (cases[i].state)
            json_object_object_add (root, "state", json_object_new_string (cases[i].state));
        if (cases[i].target)
            json_object_object_add (root, "targetState", json_object_new_string (cases[i].target));
        struct ccas_status *st = ccas_status_from_json (root, "test", &err);
        if (!st)
            fail_msg ("%s", err.text);
        const char *why = ccas_status_not_started (st, buf, sizeof (buf));
        if (cases[i].why)
            assert_string_equal (why, cases[i].why);
        else
            assert_null (why);
        ccas_status_destroy (st);
    }
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_status_not_an_object),
        cmocka_unit_test (test_status_bad_fields),
        cmocka_unit_test (test_status_errors_name_the_path),
        cmocka_unit_test (test_status_bad_node),
        cmocka_unit_test (test_status_bad_limits),
        cmocka_unit_test (test_status_vm_optional),
        cmocka_unit_test (test_status_typed),
        cmocka_unit_test (test_every_bucket_count),
        cmocka_unit_test (test_absent_fields),
        cmocka_unit_test (test_nodearray_record),
        cmocka_unit_test (test_status_nodes),
        cmocka_unit_test (test_status_started),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
