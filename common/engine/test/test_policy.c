/* SPDX-License-Identifier: MIT */
/* test_policy.c: the one rule for what a pass observed — which failures hold
 * a bucket, which count for the breaker, what a boot resets, that a dry run
 * changes nothing, and that one save keeps every decision of the pass. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "conf/conf.h"
#include "engine/policy.h"
#include "model/cluster.h"
#include "model/test/fixture.h"

#define CAPACITY_MSG                                                                                         \
    "AllocationFailed: Allocation failed. We do not have sufficient capacity for the requested VM size"

struct fixture {
    char dir[64];
    struct ccas_config *cfg;
    struct ccas_cluster *c;
};

static struct fixture *setup_fixture (double backoff)
{
    struct fixture *f = calloc (1, sizeof (*f));
    char extra[512];
    snprintf (f->dir, sizeof (f->dir), "/tmp/ccas-policy.XXXXXX");
    fx_dir_make (f->dir);
    snprintf (extra, sizeof (extra),
              "{\"state_dir\": \"%s\", \"capacity_failure_backoff\": %g,"
              " \"breaker\": {\"threshold\": 2, \"cooldown\": 600}}",
              f->dir, backoff);
    f->cfg = fx_config (extra);
    f->c = fx_cluster (f->cfg, "match-status.json", NULL, NULL);
    return f;
}

static void teardown_fixture (struct fixture *f)
{
    ccas_cluster_destroy (f->c);
    ccas_conf_destroy (f->cfg);
    fx_dir_remove (f->dir);
    free (f);
}
static bool file_exists (const struct fixture *f, const char *name)
{
    char path[128];
    struct stat st;
    snprintf (path, sizeof (path), "%s/%s", f->dir, name);
    return stat (path, &st) == 0;
}

static int failures_of (const struct ccas_policy *pol, const char *na)
{
    return (int)ccas_json_int (ccas_json_get (ccas_breakers_json (pol->breakers), na), "failures", 0);
}

static struct ccas_observation short_create (const char *mt, enum ccas_failure_class cls, const char *msg)
{
    return (struct ccas_observation){
        .seen = CCAS_SEEN_SHORT_CREATE, .nodearray = "htc", .machine_type = mt, .message = msg, .cls = cls};
}

static struct ccas_observation vm_failed (const char *mt, const char *msg, bool booting)
{
    return (struct ccas_observation){.seen = CCAS_SEEN_VM_FAILED,
                                     .nodearray = "htc",
                                     .machine_type = mt,
                                     .node = "htc-1",
                                     .message = msg,
                                     .cls = ccas_failure_classify_message (msg),
                                     .booting = booting};
}

/* Capacity and quota hold the bucket once, and are no boot failure. */
static void test_capacity_holds_never_counts (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct fixture *f = setup_fixture (300);
    struct ccas_policy *pol = ccas_policy_load (f->cfg, 1000, false, &err);
    assert_non_null (pol);
    struct ccas_observation obs[] = {
        short_create ("Standard_F2s_v2", CCAS_CLASS_CAPACITY, "no capacity"),
        short_create ("Standard_F2s_v2", CCAS_CLASS_QUOTA, "quota"), /* held already */
        vm_failed ("Standard_F4s_v2", CAPACITY_MSG, true),
        short_create ("Standard_F8s_v2", CCAS_CLASS_TRANSIENT, "timeout"), /* not a hold */
        short_create ("Standard_F8s_v2", CCAS_CLASS_PERMANENT, "bad machine type"),
    };
    enum ccas_decision d[5];
    assert_int_equal (ccas_policy_decide (pol, f->c, obs, 5, d), 2);
    assert_int_equal (d[0], CCAS_DECIDED_HELD);
    assert_int_equal (d[1], CCAS_DECIDED_ALREADY_HELD);
    assert_int_equal (d[2], CCAS_DECIDED_HELD);
    assert_int_equal (d[3], CCAS_DECIDED_NOTHING);
    assert_int_equal (d[4], CCAS_DECIDED_NOTHING);
    assert_string_equal (ccas_holds_reason (pol->holds, "htc", "Standard_F2s_v2", 1000),
                         "ccautoscale: capacity: no capacity");
    assert_non_null (ccas_holds_reason (pol->holds, "htc", "Standard_F4s_v2", 1299));
    assert_null (ccas_holds_reason (pol->holds, "htc", "Standard_F4s_v2", 1300)); /* the backoff ended */
    assert_null (ccas_holds_reason (pol->holds, "htc", "Standard_F8s_v2", 1000));
    assert_int_equal (failures_of (pol, "htc"), 0);
    ccas_policy_destroy (pol);
    teardown_fixture (f);
}

/* Any other failure of a booting VM counts; of a booted one, nothing. */
static void test_boot_failures_count_and_open (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct fixture *f = setup_fixture (300);
    struct ccas_policy *pol = ccas_policy_load (f->cfg, 1000, false, &err);
    enum ccas_decision d;
    struct ccas_observation booted_vm = vm_failed ("Standard_F2s_v2", "VM agent not responding", false);
    ccas_policy_decide (pol, f->c, &booted_vm, 1, &d);
    assert_int_equal (d, CCAS_DECIDED_NOTHING);
    assert_int_equal (failures_of (pol, "htc"), 0);
    struct ccas_observation booting_vm = vm_failed ("Standard_F2s_v2", "VM agent not responding", true);
    ccas_policy_decide (pol, f->c, &booting_vm, 1, &d);
    assert_int_equal (d, CCAS_DECIDED_COUNTED);
    assert_int_equal (failures_of (pol, "htc"), 1);
    struct ccas_observation booted = {.seen = CCAS_SEEN_BOOTED, .nodearray = "htc"};
    ccas_policy_decide (pol, f->c, &booted, 1, &d);
    assert_int_equal (d, CCAS_DECIDED_RESET);
    assert_int_equal (failures_of (pol, "htc"), 0);
    struct ccas_observation stuck[] = {
        {.seen = CCAS_SEEN_BOOT_FAILED, .nodearray = "htc", .node = "htc-2", .message = "boot timeout"},
        {.seen = CCAS_SEEN_BOOT_FAILED, .nodearray = "htc", .node = "htc-3", .message = "boot timeout"},
    };
    enum ccas_decision ds[2];
    ccas_policy_decide (pol, f->c, stuck, 2, ds);
    assert_int_equal (ds[0], CCAS_DECIDED_COUNTED);
    assert_int_equal (ds[1], CCAS_DECIDED_OPENED); /* threshold 2 */
    /* the breaker holds every bucket of the nodearray */
    for (size_t i = 0; i < f->c->nbuckets; i++)
        if (strcmp (f->c->buckets[i].na->name, "htc") == 0)
            assert_non_null (ccas_holds_reason (pol->holds, "htc", f->c->buckets[i].machine_type, 1000));
    ccas_policy_destroy (pol);
    teardown_fixture (f);
}

/* One save keeps every decision; a second policy reads them all back. */
static void test_one_save_keeps_everything (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct fixture *f = setup_fixture (300);
    struct ccas_policy *pol = ccas_policy_load (f->cfg, 1000, false, &err);
    struct ccas_observation obs[] = {
        vm_failed ("Standard_F4s_v2", CAPACITY_MSG, true),
        short_create ("Standard_F2s_v2", CCAS_CLASS_QUOTA, "Quota exceeded"),
        vm_failed ("Standard_F8s_v2", "provisioning failed", true),
    };
    ccas_policy_decide (pol, f->c, obs, 3, NULL);
    assert_int_equal (ccas_policy_save (pol, &err), 0);
    ccas_policy_destroy (pol);
    pol = ccas_policy_load (f->cfg, 1001, false, &err);
    assert_non_null (ccas_holds_reason (pol->holds, "htc", "Standard_F4s_v2", 1001));
    assert_non_null (ccas_holds_reason (pol->holds, "htc", "Standard_F2s_v2", 1001));
    assert_int_equal (failures_of (pol, "htc"), 1);
    ccas_policy_destroy (pol);
    teardown_fixture (f);
}

/* A dry run decides as a run would, and changes and writes nothing. */
static void test_dry_run_changes_nothing (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct fixture *f = setup_fixture (300);
    struct ccas_policy *pol = ccas_policy_load (f->cfg, 1000, true, &err);
    struct ccas_observation obs[] = {
        short_create ("Standard_F2s_v2", CCAS_CLASS_CAPACITY, "no capacity"),
        {.seen = CCAS_SEEN_BOOT_FAILED, .nodearray = "htc", .node = "htc-2", .message = "boot timeout"},
    };
    enum ccas_decision d[2];
    assert_int_equal (ccas_policy_decide (pol, f->c, obs, 2, d), 1);
    assert_int_equal (d[0], CCAS_DECIDED_HELD);
    assert_int_equal (d[1], CCAS_DECIDED_COUNTED);
    assert_null (ccas_holds_reason (pol->holds, "htc", "Standard_F2s_v2", 1000));
    assert_int_equal (failures_of (pol, "htc"), 0);
    assert_int_equal (ccas_policy_save (pol, &err), 0);
    assert_false (file_exists (f, "holds.json"));
    assert_false (file_exists (f, "breakers.json"));
    ccas_policy_destroy (pol);
    teardown_fixture (f);
}

/* capacity_failure_backoff 0 turns holds off; an unknown bucket holds nothing. */
static void test_no_backoff_no_hold (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct fixture *f = setup_fixture (0);
    struct ccas_policy *pol = ccas_policy_load (f->cfg, 1000, false, &err);
    struct ccas_observation obs[] = {
        short_create ("Standard_F2s_v2", CCAS_CLASS_CAPACITY, "no capacity"),
        vm_failed (NULL, CAPACITY_MSG, true),
    };
    enum ccas_decision d[2];
    assert_int_equal (ccas_policy_decide (pol, f->c, obs, 2, d), 0);
    assert_int_equal (d[0], CCAS_DECIDED_NOTHING);
    assert_int_equal (d[1], CCAS_DECIDED_NOTHING);
    assert_int_equal (failures_of (pol, "htc"), 0);
    ccas_policy_destroy (pol);
    teardown_fixture (f);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_capacity_holds_never_counts),
        cmocka_unit_test (test_boot_failures_count_and_open),
        cmocka_unit_test (test_one_save_keeps_everything),
        cmocka_unit_test (test_dry_run_changes_nothing),
        cmocka_unit_test (test_no_backoff_no_hold),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
