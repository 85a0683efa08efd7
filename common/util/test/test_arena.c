/* SPDX-License-Identifier: MIT */
/* test_arena.c: one-pass memory — zeroed, aligned, never overlapping,
 * however the blocks are chained; impossible sizes refused; strings copied
 * and formatted whole; everything freed at once. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/arena.h"

static bool all_zero (const void *p, size_t n)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++)
        if (c[i])
            return false;
    return true;
}

static void test_destroy_null (void **state)
{
    (void)state;
    ccas_arena_destroy (NULL);
    ccas_arena_destroy (ccas_arena_create ()); /* an arena that never allocated */
}

/* Sizes that cannot be had: NULL, not a small block that the caller would overrun. */
static void test_impossible_sizes (void **state)
{
    static const size_t sizes[] = {SIZE_MAX, SIZE_MAX - 1, SIZE_MAX - 15, SIZE_MAX - sizeof (max_align_t)};
    (void)state;
    struct ccas_arena *a = ccas_arena_create ();
    assert_non_null (a);
    for (size_t i = 0; i < sizeof (sizes) / sizeof (sizes[0]); i++)
        if (ccas_arena_alloc (a, sizes[i]))
            fail_msg ("size %zu was granted", sizes[i]);
    /* the arena still works */
    char *p = ccas_arena_alloc (a, 10);
    assert_non_null (p);
    assert_true (all_zero (p, 10));
    ccas_arena_destroy (a);
}

/* Many allocations of many sizes, small and larger than a block: each is
 * zeroed, aligned for any type, and keeps what was written to it. */
static void test_zeroed_aligned_disjoint (void **state)
{
    static const size_t sizes[] = {0, 1, 7, 16, 17, 100, 4000, 4096, 5000, 70000, 300000, 3};
    enum { N = 600 };
    (void)state;
    struct ccas_arena *a = ccas_arena_create ();
    unsigned char *ptrs[N];
    size_t lens[N];
    for (size_t i = 0; i < N; i++) {
        lens[i] = sizes[i % (sizeof (sizes) / sizeof (sizes[0]))];
        ptrs[i] = ccas_arena_alloc (a, lens[i]);
        assert_non_null (ptrs[i]);
        assert_int_equal ((uintptr_t)ptrs[i] % _Alignof(max_align_t), 0);
        assert_true (all_zero (ptrs[i], lens[i]));
        memset (ptrs[i], (int)(i % 251) + 1, lens[i]);
        for (size_t j = 0; j < i; j++) /* a zero-size allocation is still its own */
            if (ptrs[j] == ptrs[i])
                fail_msg ("allocations %zu and %zu share %p", j, i, (void *)ptrs[i]);
    }
    for (size_t i = 0; i < N; i++)
        for (size_t k = 0; k < lens[i]; k++)
            if (ptrs[i][k] != (unsigned char)((i % 251) + 1))
                fail_msg ("allocation %zu byte %zu was overwritten", i, k);
    ccas_arena_destroy (a);
}

static void test_strings (void **state)
{
    (void)state;
    struct ccas_arena *a = ccas_arena_create ();
    char src[] = "hpc/Standard_HB120rs_v3";
    char *s = ccas_arena_strdup (a, src);
    assert_string_equal (s, src);
    assert_ptr_not_equal (s, src);
    src[0] = 'X';
    assert_string_equal (s, "hpc/Standard_HB120rs_v3");
    assert_string_equal (ccas_arena_strdup (a, ""), "");
    assert_string_equal (ccas_arena_printf (a, "%s_%s_pg%u", "hpc", "HB", 3u), "hpc_HB_pg3");
    assert_string_equal (ccas_arena_printf (a, "%s", ""), "");

    /* formatted whole, however long */
    char longer[2000];
    memset (longer, 'n', sizeof (longer) - 1);
    longer[sizeof (longer) - 1] = '\0';
    char *p = ccas_arena_printf (a, "nodearray %s limit", longer);
    assert_non_null (p);
    assert_int_equal (strlen (p), strlen (longer) + strlen ("nodearray  limit"));
    assert_true (strncmp (p + 10 + strlen (longer), " limit", 6) == 0);
    p = ccas_arena_strdup (a, longer);
    assert_string_equal (p, longer);
    ccas_arena_destroy (a);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_destroy_null),
        cmocka_unit_test (test_impossible_sizes),
        cmocka_unit_test (test_zeroed_aligned_disjoint),
        cmocka_unit_test (test_strings),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
