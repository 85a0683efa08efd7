/* SPDX-License-Identifier: MIT */
/* test_resdict.c: names interned to dense, stable ids — through many
 * rehashes, each name once, copied, and found or not. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "model/resdict.h"

static void test_empty (void **state)
{
    (void)state;
    struct ccas_resdict *d = ccas_resdict_create ();
    assert_non_null (d);
    assert_int_equal (ccas_resdict_count (d), 0);
    assert_int_equal (ccas_resdict_find (d, "ncpus"), -1);
    assert_int_equal (ccas_resdict_find (d, ""), -1);
    assert_string_equal (ccas_resdict_name (d, 0), "?");
    assert_string_equal (ccas_resdict_name (d, -1), "?");
    ccas_resdict_destroy (d);
    ccas_resdict_destroy (NULL);
}

static void test_intern (void **state)
{
    (void)state;
    struct ccas_resdict *d = ccas_resdict_create ();
    char name[32] = "ncpus";
    assert_int_equal (ccas_resdict_intern (d, name), 0);
    name[0] = 'X'; /* copied */
    assert_int_equal (ccas_resdict_find (d, "ncpus"), 0);
    assert_int_equal (ccas_resdict_find (d, "Xcpus"), -1);
    assert_int_equal (ccas_resdict_intern (d, "mem"), 1);
    assert_int_equal (ccas_resdict_intern (d, "ncpus"), 0); /* again: the same id */
    assert_int_equal (ccas_resdict_intern (d, ""), 2);      /* the empty name is a name */
    assert_int_equal (ccas_resdict_intern (d, "NCPUS"), 3); /* names are exact */
    assert_int_equal (ccas_resdict_count (d), 4);
    assert_string_equal (ccas_resdict_name (d, 1), "mem");
    assert_string_equal (ccas_resdict_name (d, 4), "?");
    ccas_resdict_destroy (d);
}

/* Thousands of names: ids dense in order of first sight, every one found
 * after every rehash, counts exact. */
static void test_many (void **state)
{
    (void)state;
    enum { N = 5000 };
    struct ccas_resdict *d = ccas_resdict_create ();
    char name[32];
    for (int i = 0; i < N; i++) {
        snprintf (name, sizeof (name), "res-%d", i);
        assert_int_equal (ccas_resdict_intern (d, name), i);
        assert_int_equal (ccas_resdict_count (d), (size_t)i + 1);
        if (i % 97 == 0) /* spot checks while it grows */
            for (int k = 0; k <= i; k += 13) {
                snprintf (name, sizeof (name), "res-%d", k);
                assert_int_equal (ccas_resdict_find (d, name), k);
            }
    }
    for (int i = 0; i < N; i++) {
        snprintf (name, sizeof (name), "res-%d", i);
        assert_int_equal (ccas_resdict_find (d, name), i);
        assert_int_equal (ccas_resdict_intern (d, name), i);
        assert_string_equal (ccas_resdict_name (d, i), name);
    }
    assert_int_equal (ccas_resdict_count (d), N);
    assert_int_equal (ccas_resdict_find (d, "res-5000"), -1);
    ccas_resdict_destroy (d);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_empty),
        cmocka_unit_test (test_intern),
        cmocka_unit_test (test_many),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
