/* SPDX-License-Identifier: MIT */
/* test_text.c: the growing text buffer. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/text.h"

/* Appends past every capacity come out whole and in order. */
static void test_appends_grow (void **state)
{
    (void)state;
    struct ccas_text t = {0};
    char want[20000] = "";
    size_t len = 0;
    for (int i = 0; i < 2000; i++) {
        ccas_text_printf (&t, "%d,", i);
        len += (size_t)snprintf (want + len, sizeof (want) - len, "%d,", i);
    }
    assert_false (t.oom);
    assert_int_equal (t.len, len);
    assert_string_equal (t.p, want);
    free (t.p);
}

/* Once an append failed, later ones are dropped: the text never has a hole. */
static void test_after_oom_nothing_appended (void **state)
{
    (void)state;
    struct ccas_text t = {0};
    ccas_text_printf (&t, "kept");
    t.oom = true;
    ccas_text_printf (&t, "dropped");
    assert_int_equal (t.len, 4);
    assert_string_equal (t.p, "kept");
    free (t.p);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_appends_grow),
        cmocka_unit_test (test_after_oom_nothing_appended),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
