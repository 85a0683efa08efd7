/* SPDX-License-Identifier: MIT */
/* test_vmfamily.c: a machine type's quota family — Azure's name where the
 * table of sizes knows it, else the name with its size digits dropped, so
 * that sizes of one series share a key — and buffers of any size. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "model/vmfamily.h"

static void test_families (void **state)
{
    static const struct {
        const char *in, *want;
    } cases[] = {
        {NULL, ""},
        {"", ""},
        /* sizes the built-in table knows: Azure's family name */
        {"Standard_HB120rs_v3", "standardHBrsv3Family"},
        {"Standard_HB176rs_v4", "standardHBv4Family"},
        {"Standard_NC24ads_A100_v4", "StandardNCADSA100v4Family"},
        {"standard_f2s_v2", "standardFSv2Family"},
        {"Standard_F72s_v2", "standardFSv2Family"},
        {"Standard_D2_v3", "standardDv3Family"},
        /* the others: derived, the first run of digits after the series dropped */
        {"Standard_HB999rs_v9", "Standard_HBrs_v9"},
        {"Standard_NC9ads_Z100_v9", "Standard_NCads_Z100_v9"}, /* only the first run of digits */
        {"Standard_M416ms_v2", "Standard_Mms_v2"},
        {"F2s", "Fs"}, /* no prefix */
        {"Basic_A1", "Basic_A"},
        {"Standard1_F2s", "Standard1_Fs"}, /* digits before the first underscore stay */
        {"Standard_", "Standard_"},
    };
    (void)state;
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        char buf[64];
        assert_ptr_equal (ccas_vmfamily_of (cases[i].in, buf, sizeof (buf)), buf);
        assert_string_equal (buf, cases[i].want);
    }
    /* sizes of one series share the key; different series do not */
    char a[64], b[64];
    assert_string_equal (ccas_vmfamily_of ("Standard_F2s_v2", a, sizeof (a)),
                         ccas_vmfamily_of ("Standard_F4s_v2", b, sizeof (b)));
    assert_string_not_equal (ccas_vmfamily_of ("Standard_F2s_v2", a, sizeof (a)),
                             ccas_vmfamily_of ("Standard_F2_v2", b, sizeof (b)));
}

static void test_small_buffers (void **state)
{
    (void)state;
    char buf[8];
    memset (buf, 'z', sizeof (buf));
    ccas_vmfamily_of ("Standard_HB120rs_v3", buf, 0); /* nothing written */
    assert_int_equal (buf[0], 'z');
    ccas_vmfamily_of ("Standard_HB120rs_v3", buf, 1);
    assert_string_equal (buf, "");
    ccas_vmfamily_of ("Standard_HB120rs_v3", buf, sizeof (buf));
    assert_string_equal (buf, "standar"); /* the table's name, cut */
    ccas_vmfamily_of ("Standard_HB999rs_v9", buf, sizeof (buf));
    assert_string_equal (buf, "Standar");
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_families),
        cmocka_unit_test (test_small_buffers),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
