/* SPDX-License-Identifier: MIT */
/* test_giveback.c: the names whose VMs the Slurm side let go of
 * (giveback.c) — added with why and when, read back, forgotten by name,
 * kept across runs; an unreadable list is an error naming the file. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "giveback.h"
#include "model/test/fixture.h"

static void test_add_forget (void **state)
{
    (void)state;
    char dir[] = "/tmp/test_giveback.XXXXXX";
    struct ccas_error err = {""};
    const char *const names[] = {"htc-1", "f4-7"};
    fx_dir_make (dir);
    assert_int_equal (ccas_slurm_giveback_add (dir, names, 2, 50, "a suspend that failed", &err), 0);
    assert_int_equal (ccas_slurm_giveback_add (dir, names, 0, 60, "nothing", &err), 0);
    struct ccas_state *st = ccas_slurm_giveback_load (dir, &err);
    assert_non_null (st);
    assert_true (ccas_slurm_giveback_has (st, "htc-1"));
    assert_true (ccas_slurm_giveback_has (st, "f4-7"));
    assert_false (ccas_slurm_giveback_has (st, "htc-2"));
    assert_false (ccas_slurm_giveback_has (NULL, "htc-1"));
    json_object *e = NULL;
    assert_true (json_object_object_get_ex (ccas_state_root (st), "f4-7", &e));
    assert_string_equal (ccas_json_str (e, "why"), "a suspend that failed");
    assert_true (ccas_json_double (e, "time", 0) == 50);
    ccas_slurm_giveback_forget (st, "htc-1");
    ccas_slurm_giveback_forget (st, "never-there");
    ccas_slurm_giveback_forget (NULL, "htc-1");
    assert_int_equal (ccas_state_save (st, &err), 0);
    ccas_state_destroy (st);
    st = ccas_slurm_giveback_load (dir, &err);
    assert_false (ccas_slurm_giveback_has (st, "htc-1"));
    assert_true (ccas_slurm_giveback_has (st, "f4-7"));
    ccas_state_destroy (st);
    fx_dir_remove (dir);
}

static void test_corrupt (void **state)
{
    (void)state;
    char dir[] = "/tmp/test_giveback.XXXXXX", path[512];
    struct ccas_error err = {""};
    const char *const names[] = {"htc-1"};
    fx_dir_make (dir);
    snprintf (path, sizeof (path), "%s/slurm_giveback.json", dir);
    FILE *f = fopen (path, "w");
    assert_non_null (f);
    fputs ("{not json", f);
    fclose (f);
    assert_int_equal (ccas_slurm_giveback_add (dir, names, 1, 1, "x", &err), -1);
    assert_non_null (strstr (err.text, "slurm_giveback.json"));
    assert_null (ccas_slurm_giveback_load (dir, &err));
    fx_dir_remove (dir);
}

int main (void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test (test_add_forget), cmocka_unit_test (test_corrupt)};
    return cmocka_run_group_tests (tests, NULL, NULL);
}
