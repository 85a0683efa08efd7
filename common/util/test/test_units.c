/* SPDX-License-Identifier: MIT */
/* test_units.c: sizes and memory strings, bad input first. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "util/units.h"

static void test_rejects_junk (void **state)
{
    static const char *const bad[] = {
        "",
        "   ",
        "gb",
        "4gbb",
        "4x",
        "4 g",
        "-4g",
        "+4g",
        "nan",
        "inf",
        "4kib",
        "4wb",
        "4bw",
        "4kwb",
        "g4",
        "4..5g",
        "memory::",
        "size::x",
        /* strtod reads these; a size is plain decimal */
        "0x10g",
        "size::0x10g",
        "1e3g",
        "1e3",
        "4.5.6g",
    };
    struct ccas_error err = {""};
    double b = 0;
    (void)state;
    for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
        err.text[0] = '\0';
        assert_int_equal (ccas_units_parse (bad[i], 1, &b, &err), -1);
        assert_true (strlen (err.text) > 0);
        assert_non_null (strstr (err.text, "'"));
    }
    assert_int_equal (ccas_units_parse (NULL, 1, &b, NULL), -1);
    assert_int_equal (ccas_units_parse ("4gbb", 1, &b, &err), -1);
    assert_string_equal (err.text, "'4gbb': unknown unit suffix 'gbb'");
}

static void test_parses (void **state)
{
    static const struct {
        const char *in;
        double bare;
        double want;
    } cases[] = {
        {"4g", 1, 4.0 * 1024 * 1024 * 1024},
        {"4G", 1, 4e9},
        {"4gb", 1, 4.0 * 1024 * 1024 * 1024},
        {"4GB", 1, 4e9},
        {"memory::4g", 1, 4.0 * 1024 * 1024 * 1024},
        {"size::20g", 1, 20.0 * 1024 * 1024 * 1024},
        {"527672488kb", 1, 527672488.0 * 1024},
        {"2t", 1, 2.0 * 1024 * 1024 * 1024 * 1024},
        {"2T", 1, 2e12},
        {"1.5m", 1, 1.5 * 1024 * 1024},
        {"100b", 1, 100},
        {"3w", 1, 24},
        /* PBS's words (cyclecloud-pbspro resource_test.py::test_parse_size) */
        {"1kw", 1, 8.0 * 1024},
        {"1mw", 1, 8.0 * 1024 * 1024},
        {"1gw", 1, 8.0 * 1024 * 1024 * 1024},
        {"1tw", 1, 8.0 * 1024 * 1024 * 1024 * 1024},
        {"1pw", 1, 8.0 * 1024 * 1024 * 1024 * 1024 * 1024},
        {"2gw", 1, 16.0 * 1024 * 1024 * 1024},
        {"512", 1, 512},
        {"512", 1048576, 512.0 * 1048576},
        {"0", 1, 0},
        {"1p", 1, 1024.0 * 1024 * 1024 * 1024 * 1024},
    };
    (void)state;
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        double b = -1;
        struct ccas_error err = {""};
        assert_int_equal (ccas_units_parse (cases[i].in, cases[i].bare, &b, &err), 0);
        assert_true (b == cases[i].want);
    }
}

static void test_is_size (void **state)
{
    (void)state;
    assert_true (ccas_units_is_size ("4g"));
    assert_true (ccas_units_is_size ("memory::4"));
    assert_true (ccas_units_is_size ("8gb"));
    assert_false (ccas_units_is_size ("4"));
    assert_false (ccas_units_is_size ("execute"));
    assert_false (ccas_units_is_size ("g"));
    assert_false (ccas_units_is_size (NULL));
    assert_false (ccas_units_is_size ("Standard_F2s_v2"));
}

static void test_format_round_trips (void **state)
{
    static const char *const sizes[] = {"4g", "1.5t", "512m", "100b", "3k", "7p"};
    (void)state;
    for (size_t i = 0; i < sizeof (sizes) / sizeof (sizes[0]); i++) {
        char buf[32];
        double b, back;
        assert_int_equal (ccas_units_parse (sizes[i], 1, &b, NULL), 0);
        ccas_units_format (b, buf, sizeof (buf));
        assert_string_equal (buf, sizes[i]);
        assert_int_equal (ccas_units_parse (buf, 1, &back, NULL), 0);
        assert_true (back == b);
    }
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_rejects_junk),
        cmocka_unit_test (test_parses),
        cmocka_unit_test (test_is_size),
        cmocka_unit_test (test_format_round_trips),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
