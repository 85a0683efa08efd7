/* SPDX-License-Identifier: MIT */
/* test_vmsizes.c: the table of Azure sizes — sorted, complete entries,
 * families as Azure names them — and GPUs per VM: the configuration's
 * override first, else the higher of what the server reports and the
 * table (older servers report 0, or one per board). */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include <cmocka.h>

#include "model/vmsizes.h"

static void test_counts (void **state)
{
    static const struct {
        const char *machine_type;
        int reported;
        const char *overrides; /* JSON, or NULL */
        int want;
    } cases[] = {
        /* no machine type, unknown types, non-GPU types: what was reported */
        {NULL, 0, NULL, 0},
        {NULL, 3, "{\"x\": 1}", 3},
        {"Standard_F2s_v2", 0, NULL, 0},
        {"Standard_NC6_typo", 0, NULL, 0},
        {"Standard_NVadsA10_v5", 0, NULL, 0}, /* fractional GPUs: none to schedule */
        /* the table, for sizes reported with 0 or fewer, in any case */
        {"Standard_NC6", 0, NULL, 1},
        {"Standard_NC24ads_A100_v4", 0, NULL, 1},
        {"Standard_NC96ads_A100_v4", 0, NULL, 4},
        {"standard_nd96isr_h100_v5", 0, NULL, 8},
        {"Standard_NV72ads_A10_v5", 0, NULL, 2},
        /* the higher of the server and the table */
        {"Standard_NC24ads_A100_v4", 2, NULL, 2},
        {"Standard_ND96isr_H100_v5", 1, NULL, 8},
        {"Standard_F2s_v2", 3, NULL, 3},
        /* the configuration over both */
        {"Standard_NC24ads_A100_v4", 2, "{\"Standard_NC24ads_A100_v4\": 3}", 3},
        {"Standard_F2s_v2", 0, "{\"Standard_F2s_v2\": 1}", 1},
        {"Standard_NC6", 0, "{\"Standard_NC6\": 0}", 0},
        {"Standard_NC6", 0, "{\"Standard_NC12\": 7}", 1},    /* another type's override */
        {"Standard_NC6", 0, "{\"Standard_NC6\": 2.0}", 2},   /* an integral number, as the config accepts */
        {"Standard_NC6", 0, "{\"Standard_NC6\": \"2\"}", 1}, /* not a number: ignored */
        {"Standard_NC6", 0, "[]", 1},
    };
    (void)state;
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        json_object *o = cases[i].overrides ? json_tokener_parse (cases[i].overrides) : NULL;
        int got = ccas_vmsizes_gpus (cases[i].machine_type, cases[i].reported, o);
        if (got != cases[i].want)
            fail_msg ("case %zu (%s): %d, want %d", i, cases[i].machine_type ? cases[i].machine_type : "NULL",
                      got, cases[i].want);
        json_object_put (o);
    }
}

static void test_table (void **state)
{
    (void)state;
    for (unsigned i = 1; i < ccas_vmsizes_count (); i++)
        if (strcasecmp (ccas_vmsizes_at (i - 1)->machine_type, ccas_vmsizes_at (i)->machine_type) >= 0)
            fail_msg ("table not sorted at %s", ccas_vmsizes_at (i)->machine_type);
    for (unsigned i = 0; i < ccas_vmsizes_count (); i++) {
        const struct ccas_vmsize *s = ccas_vmsizes_at (i);
        assert_ptr_equal (ccas_vmsizes_find (s->machine_type), s);
        assert_true (s->vcpus > 0 && s->memory_gb > 0 && s->gpus >= 0);
        assert_true (strstr (s->family, "Family") != NULL);
    }
    assert_null (ccas_vmsizes_at (ccas_vmsizes_count ()));
    assert_string_equal (ccas_vmsizes_family ("standard_f4s_v2"), "standardFSv2Family");
    assert_string_equal (ccas_vmsizes_family ("Standard_HB120-16rs_v3"), "standardHBrsv3Family");
    assert_int_equal (ccas_vmsizes_find ("Standard_HB120-16rs_v3")->vcpus, 16);
    assert_true (ccas_vmsizes_find ("Standard_HB120rs_v3")->rdma);
    assert_false (ccas_vmsizes_find ("Standard_F4s_v2")->rdma);
    assert_true (ccas_vmsizes_find ("Standard_F4s_v2")->memory_gb == 8);
    assert_string_equal (ccas_vmsizes_family ("Standard_X1"), "unknown");
    assert_string_equal (ccas_vmsizes_family (NULL), "unknown");
    assert_null (ccas_vmsizes_find (NULL));
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_counts),
        cmocka_unit_test (test_table),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
