/* SPDX-License-Identifier: MIT */
/* test_gputable.c: GPUs per VM — the configuration's override first, then
 * what the server reports when it is more than 0, then the built-in table
 * for sizes reported with 0, then 0. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "model/gputable.h"

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
        /* the table, for sizes reported with 0, in any case */
        {"Standard_NC6", 0, NULL, 1},
        {"Standard_NC24ads_A100_v4", 0, NULL, 1},
        {"Standard_NC96ads_A100_v4", 0, NULL, 4},
        {"standard_nd96isr_h100_v5", 0, NULL, 8},
        {"Standard_NV72ads_A10_v5", 0, NULL, 2},
        /* a server that reports GPUs is believed over the table */
        {"Standard_NC24ads_A100_v4", 2, NULL, 2},
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
        int got = ccas_gputable_count (cases[i].machine_type, cases[i].reported, o);
        if (got != cases[i].want)
            fail_msg ("case %zu (%s): %d, want %d", i, cases[i].machine_type ? cases[i].machine_type : "NULL",
                      got, cases[i].want);
        json_object_put (o);
    }
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_counts),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
