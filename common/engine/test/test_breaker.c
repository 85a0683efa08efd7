/* SPDX-License-Identifier: MIT */
/* test_breaker.c: the circuit breaker — counts, opening at the threshold,
 * the holds it puts on the nodearray, booted resets, reset and cool-down. */
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

#include "conf/conf.h"
#include "engine/breaker.h"
#include "model/cluster.h"
#include "model/test/fixture.h"

struct fixture {
    char dir[64];
    struct ccas_config *cfg;
    struct ccas_cluster *c;
};

static struct fixture *setup_with (const char *breaker)
{
    struct fixture *f = calloc (1, sizeof (*f));
    char extra[512];
    snprintf (f->dir, sizeof (f->dir), "/tmp/ccas-breaker.XXXXXX");
    fx_dir_make (f->dir);
    snprintf (extra, sizeof (extra), "{\"state_dir\": \"%s\", \"breaker\": %s}", f->dir, breaker);
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

static void test_opens_at_threshold (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct fixture *f = setup_with ("{\"threshold\": 3, \"cooldown\": 600}");
    struct ccas_breakers *b = ccas_breakers_load (f->cfg, &err);
    struct ccas_holds *h = ccas_holds_load (f->dir, &err);
    assert_false (ccas_breaker_boot_failed (b, h, f->c, "htc", "htc-1: Failed", 1000));
    assert_false (ccas_breaker_boot_failed (b, h, f->c, "htc", "htc-2: Failed", 1001));
    ccas_breaker_booted (b, "htc"); /* a VM booted: the count starts again */
    assert_false (ccas_breaker_boot_failed (b, h, f->c, "htc", "htc-3: Failed", 1002));
    assert_false (ccas_breaker_boot_failed (b, h, f->c, "htc", "htc-4: Failed", 1003));
    assert_false (
        ccas_breaker_boot_failed (b, h, f->c, "hpc", "hpc-1: Failed", 1003)); /* another nodearray */
    assert_true (ccas_breaker_boot_failed (b, h, f->c, "htc", "htc-5: boot timeout", 1004));
    assert_false (ccas_breaker_boot_failed (b, h, f->c, "htc", "htc-6: Failed", 1005)); /* already open */
    /* every bucket of htc is held, with the breaker's reason, for the cool-down */
    for (size_t i = 0; i < f->c->nbuckets; i++) {
        const struct ccas_bucket *bk = &f->c->buckets[i];
        const char *r = ccas_holds_reason (h, bk->na->name, bk->machine_type, 1010);
        if (strcmp (bk->na->name, "htc") == 0) {
            assert_non_null (r);
            assert_non_null (strstr (
                r, "ccautoscale: breaker: 3 consecutive boot failures in htc (last: htc-5: boot timeout)"));
            assert_int_equal ((int)ccas_holds_remaining (h, "htc", bk->machine_type, 1010), 594);
        } else
            assert_null (r);
    }
    json_object *htc = ccas_json_get (ccas_breakers_json (b), "htc");
    assert_true (ccas_json_bool (htc, "open", false));
    /* the cool-down closes it */
    ccas_breakers_expire (b, 1700);
    assert_false (ccas_json_bool (htc, "open", true));
    assert_int_equal (ccas_json_int (htc, "failures", -1), 0);
    ccas_holds_destroy (h);
    ccas_breakers_destroy (b);
    teardown_fixture (f);
}

static void test_reset_ends_holds_and_persists (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct fixture *f = setup_with ("{\"threshold\": 1, \"cooldown\": 0}");
    struct ccas_breakers *b = ccas_breakers_load (f->cfg, &err);
    struct ccas_holds *h = ccas_holds_load (f->dir, &err);
    assert_true (ccas_breaker_boot_failed (b, h, f->c, "hpc", "hpc-1: Failed", 1000));
    assert_non_null (
        ccas_holds_reason (h, "hpc", "Standard_HB120rs_v3", 1000 + 30 * 86400)); /* until reset */
    assert_int_equal (ccas_breakers_save (b, &err), 0);
    assert_int_equal (ccas_holds_save (h, &err), 0);
    ccas_breakers_destroy (b);
    ccas_holds_destroy (h);
    /* a later run sees it open, resets it */
    b = ccas_breakers_load (f->cfg, &err);
    h = ccas_holds_load (f->dir, &err);
    assert_true (ccas_json_bool (ccas_json_get (ccas_breakers_json (b), "hpc"), "open", false));
    assert_true (ccas_breaker_reset (b, h, "hpc", 2000));
    assert_null (ccas_holds_reason (h, "hpc", "Standard_HB120rs_v3", 2000));
    assert_false (ccas_breaker_reset (b, h, "hpc", 2001));
    ccas_holds_destroy (h);
    ccas_breakers_destroy (b);
    teardown_fixture (f);
}

static void test_threshold_zero_never_opens (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct fixture *f = setup_with ("{\"threshold\": 0}");
    struct ccas_breakers *b = ccas_breakers_load (f->cfg, &err);
    struct ccas_holds *h = ccas_holds_load (f->dir, &err);
    for (int i = 0; i < 20; i++)
        assert_false (ccas_breaker_boot_failed (b, h, f->c, "htc", "htc-1: Failed", 1000 + i));
    assert_null (ccas_holds_reason (h, "htc", "Standard_F2s_v2", 1100));
    ccas_holds_destroy (h);
    ccas_breakers_destroy (b);
    teardown_fixture (f);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_opens_at_threshold),
        cmocka_unit_test (test_reset_ends_holds_and_persists),
        cmocka_unit_test (test_threshold_zero_never_opens),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
