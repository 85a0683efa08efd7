/* SPDX-License-Identifier: MIT */
/* test_undo.c: the change log of one job's placement — every kind of value
 * restored in reverse order, to any mark, callbacks called, a NULL log
 * recording nothing, and many entries. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "model/undo.h"

static void test_null_log (void **state)
{
    (void)state;
    double d = 1;
    bool b = true;
    uint32_t u = 2;
    int32_t i = -3;
    int64_t l = 4;
    int calls = 0;
    assert_int_equal (ccas_undo_mark (NULL), 0);
    ccas_undo_double (NULL, &d);
    ccas_undo_bool (NULL, &b);
    ccas_undo_u32 (NULL, &u);
    ccas_undo_i32 (NULL, &i);
    ccas_undo_i64 (NULL, &l);
    ccas_undo_call (NULL, NULL, &calls);
    ccas_undo_rollback (NULL, 0);
    ccas_undo_clear (NULL);
    ccas_undo_destroy (NULL);
    assert_int_equal (calls, 0);
}

struct trace {
    char text[64];
};

static void note (void *arg)
{
    struct trace *t = arg;
    size_t n = strlen (t->text);
    snprintf (t->text + n, sizeof (t->text) - n, "c");
}

static void test_every_kind (void **state)
{
    (void)state;
    struct ccas_undo *u = ccas_undo_create ();
    double d = 1.5;
    bool b = false;
    uint32_t u32 = 7;
    int32_t i32 = -7;
    int64_t i64 = INT64_MAX;
    struct trace t = {""};
    size_t m0 = ccas_undo_mark (u);
    assert_int_equal (m0, 0);

    ccas_undo_double (u, &d);
    d = 2.5;
    ccas_undo_bool (u, &b);
    b = true;
    ccas_undo_u32 (u, &u32);
    u32 = 0;
    ccas_undo_i32 (u, &i32);
    i32 = 1;
    size_t m1 = ccas_undo_mark (u);
    assert_int_equal (m1, 4);
    ccas_undo_i64 (u, &i64);
    i64 = -1;
    ccas_undo_call (u, note, &t);
    /* the same value changed twice: the first old value wins on rollback */
    ccas_undo_double (u, &d);
    d = 3.5;

    ccas_undo_rollback (u, m1); /* back to the mark: only what came after */
    assert_true (d == 2.5);
    assert_int_equal (i64, INT64_MAX);
    assert_string_equal (t.text, "c");
    assert_true (b);
    assert_int_equal (u32, 0);
    assert_int_equal (i32, 1);
    assert_int_equal (ccas_undo_mark (u), m1);

    ccas_undo_rollback (u, m1); /* again: nothing left after the mark */
    assert_string_equal (t.text, "c");
    ccas_undo_rollback (u, m0);
    assert_true (d == 1.5);
    assert_false (b);
    assert_int_equal (u32, 7);
    assert_int_equal (i32, -7);
    assert_int_equal (ccas_undo_mark (u), 0);
    ccas_undo_destroy (u);
}

/* A placed job's changes are final: clear forgets them, a rollback after
 * it changes nothing. */
static void test_clear (void **state)
{
    (void)state;
    struct ccas_undo *u = ccas_undo_create ();
    int64_t v = 10;
    ccas_undo_i64 (u, &v);
    v = 9;
    ccas_undo_clear (u);
    assert_int_equal (ccas_undo_mark (u), 0);
    ccas_undo_rollback (u, 0);
    assert_int_equal (v, 9);
    ccas_undo_destroy (u);
}

/* Far more entries than the first allocation: every value restored. */
static void test_many (void **state)
{
    (void)state;
    enum { N = 3000 };
    static uint32_t vals[N];
    struct ccas_undo *u = ccas_undo_create ();
    for (uint32_t i = 0; i < N; i++)
        vals[i] = i;
    for (int round = 0; round < 3; round++)
        for (uint32_t i = 0; i < N; i++) {
            ccas_undo_u32 (u, &vals[i]);
            vals[i] += 1000000;
        }
    assert_int_equal (ccas_undo_mark (u), 3 * N);
    ccas_undo_rollback (u, 0);
    for (uint32_t i = 0; i < N; i++)
        assert_int_equal (vals[i], i);
    ccas_undo_destroy (u);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_null_log),
        cmocka_unit_test (test_every_kind),
        cmocka_unit_test (test_clear),
        cmocka_unit_test (test_many),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
