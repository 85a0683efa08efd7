/* SPDX-License-Identifier: MIT */
/* test_value.c: resource and property values — made, rendered for messages,
 * compared exactly, and matched by patterns (wildcards, numbers and
 * booleans written as strings). */
#include "config.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "model/value.h"

static struct ccas_value size_of (double bytes)
{
    struct ccas_value v = ccas_value_num (bytes);
    v.size = true;
    return v;
}

static const struct ccas_value none = {.type = CCAS_V_NONE};

static void test_constructors (void **state)
{
    (void)state;
    struct ccas_value v = ccas_value_str (NULL); /* no string is no value */
    assert_int_equal (v.type, CCAS_V_NONE);
    v = ccas_value_str ("x");
    assert_int_equal (v.type, CCAS_V_STR);
    assert_string_equal (v.u.str, "x");
    assert_false (v.size);
    v = ccas_value_num (4);
    assert_int_equal (v.type, CCAS_V_NUM);
    assert_true (v.u.num == 4);
    v = ccas_value_bool (true);
    assert_int_equal (v.type, CCAS_V_BOOL);
    assert_true (v.u.b);
}

static void test_format (void **state)
{
    static const double GiB = 1024.0 * 1024 * 1024;
    const struct {
        struct ccas_value v;
        const char *want;
    } cases[] = {
        {none, "undefined"},
        {ccas_value_num (4), "4"},
        {ccas_value_num (-2), "-2"},
        {ccas_value_num (0.5), "0.5"},
        {ccas_value_num (1e20), "1e+20"},
        {ccas_value_num (123456789012345.0), "123456789012345"},
        {size_of (4 * GiB), "4g"},
        {size_of (1.5 * GiB), "1.5g"},
        {ccas_value_str ("execute"), "'execute'"},
        {ccas_value_str (""), "''"},
        {ccas_value_bool (true), "true"},
        {ccas_value_bool (false), "false"},
    };
    (void)state;
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        char buf[64];
        assert_ptr_equal (ccas_value_format (&cases[i].v, buf, sizeof (buf)), buf);
        if (strcmp (buf, cases[i].want) != 0)
            fail_msg ("case %zu: '%s', want '%s'", i, buf, cases[i].want);
    }
    char small[4];
    struct ccas_value s = ccas_value_str ("execute");
    ccas_value_format (&s, small, sizeof (small));
    assert_string_equal (small, "'ex");
}

static void test_equal (void **state)
{
    const struct {
        struct ccas_value a, b;
        bool want;
    } cases[] = {
        {none, none, true},
        {none, ccas_value_num (0), false},
        {ccas_value_num (0), ccas_value_bool (false), false},
        {ccas_value_num (4), ccas_value_num (4), true},
        {ccas_value_num (4), size_of (4), true}, /* a size is a number */
        {ccas_value_num (4), ccas_value_num (4.0000001), false},
        {ccas_value_num (NAN), ccas_value_num (NAN), false},
        {ccas_value_str ("a"), ccas_value_str ("a"), true},
        {ccas_value_str ("a"), ccas_value_str ("A"), false},
        {ccas_value_str ("4"), ccas_value_num (4), false}, /* equality is typed */
        {ccas_value_bool (true), ccas_value_bool (true), true},
        {ccas_value_bool (true), ccas_value_bool (false), false},
    };
    (void)state;
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        if (ccas_value_equal (&cases[i].a, &cases[i].b) != cases[i].want)
            fail_msg ("case %zu", i);
        if (ccas_value_equal (&cases[i].b, &cases[i].a) != cases[i].want)
            fail_msg ("case %zu, reversed", i);
    }
}

static void test_matches (void **state)
{
    const struct {
        struct ccas_value pattern, v;
        bool want;
    } cases[] = {
        /* misses first */
        {ccas_value_str ("Standard_F*"), ccas_value_str ("Standard_HB120rs_v3"), false},
        {ccas_value_str ("Standard_F?s_v2"), ccas_value_str ("Standard_F16s_v2"), false},
        {ccas_value_str ("exec"), ccas_value_str ("execute"), false}, /* no wildcard: exact */
        {ccas_value_str ("4x"), ccas_value_num (4), false},
        {ccas_value_str (""), ccas_value_num (0), false},
        {ccas_value_str ("yes"), ccas_value_bool (true), false},
        {ccas_value_str ("TRUE"), ccas_value_bool (false), false},
        {ccas_value_str ("Y"), ccas_value_bool (false), false},
        {ccas_value_bool (true), ccas_value_str ("no"), false},
        {ccas_value_bool (true), ccas_value_str ("yes"), false}, /* not one of PBS's words */
        {ccas_value_num (2), ccas_value_bool (true), false},
        {ccas_value_num (4), ccas_value_str ("four"), false},
        {ccas_value_num (4), ccas_value_num (5), false},
        {ccas_value_str ("x"), none, false},
        {none, ccas_value_str ("x"), false},
        /* hits */
        {ccas_value_str ("Standard_F*"), ccas_value_str ("Standard_F2s_v2"), true},
        {ccas_value_str ("Standard_F?s_v2"), ccas_value_str ("Standard_F2s_v2"), true},
        {ccas_value_str ("Standard_[FD]2s_v2"), ccas_value_str ("Standard_D2s_v2"), true},
        {ccas_value_str ("*"), ccas_value_str (""), true},
        {ccas_value_str ("execute"), ccas_value_str ("execute"), true},
        {ccas_value_str ("4"), ccas_value_num (4), true},
        {ccas_value_str ("4.5"), ccas_value_num (4.5), true},
        {ccas_value_str ("true"), ccas_value_bool (true), true},
        {ccas_value_str ("False"), ccas_value_bool (false), true},
        {ccas_value_num (4), ccas_value_str ("4"), true},
        {ccas_value_num (4), ccas_value_num (4), true},
        {ccas_value_bool (false), ccas_value_bool (false), true},
        /* booleans as PBS and scalelib write them, either side */
        {ccas_value_bool (true), ccas_value_str ("true"), true},
        {ccas_value_bool (true), ccas_value_str ("Y"), true},
        {ccas_value_bool (false), ccas_value_str ("f"), true},
        {ccas_value_str ("T"), ccas_value_bool (true), true},
        {ccas_value_str ("0"), ccas_value_bool (false), true},
        {ccas_value_num (1), ccas_value_bool (true), true},
        {ccas_value_num (0), ccas_value_bool (false), true},
    };
    (void)state;
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++)
        if (ccas_value_matches (&cases[i].pattern, &cases[i].v) != cases[i].want)
            fail_msg ("case %zu: %s, want %s", i, cases[i].want ? "miss" : "match",
                      cases[i].want ? "match" : "miss");
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_constructors),
        cmocka_unit_test (test_format),
        cmocka_unit_test (test_equal),
        cmocka_unit_test (test_matches),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
