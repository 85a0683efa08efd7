/* SPDX-License-Identifier: MIT */
/* test_state.c: state files are replaced whole, and never through a link
 * someone else put in the directory (root's sync writes into SlurmUser's). */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "util/file.h"
#include "util/state.h"

static char dir[64];

static char *slurp (const char *path)
{
    static char buf[256];
    FILE *f = fopen (path, "r");
    size_t n = f ? fread (buf, 1, sizeof (buf) - 1, f) : 0;
    buf[n] = '\0';
    if (f)
        fclose (f);
    return buf;
}

static void test_round_trip (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct ccas_state *st = ccas_state_load (dir, "times", &err);
    assert_non_null (st);
    json_object_object_add (ccas_state_root (st), "n1", json_object_new_int (7));
    assert_int_equal (ccas_state_save (st, &err), 0);
    ccas_state_destroy (st);
    st = ccas_state_load (dir, "times", &err);
    assert_non_null (st);
    assert_int_equal (json_object_get_int (json_object_object_get (ccas_state_root (st), "n1")), 7);
    ccas_state_destroy (st);
}

/* A symlink at the temporary's name (and a stale temporary) are removed, not
 * written through: the file they point to is untouched. */
static void test_no_write_through_links (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    char target[128], path[128], tmp[160];
    snprintf (target, sizeof (target), "%s/precious", dir);
    snprintf (path, sizeof (path), "%s/state.json", dir);
    snprintf (tmp, sizeof (tmp), "%s.tmp.%d", path, (int)getpid ());
    FILE *f = fopen (target, "w");
    assert_non_null (f);
    fputs ("do not touch", f);
    fclose (f);
    chmod (target, 0600);
    assert_int_equal (symlink (target, tmp), 0);
    assert_int_equal (ccas_file_write_replace (path, "{}", 2, 0644, false, &err), 0);
    assert_string_equal (slurp (target), "do not touch");
    struct stat st;
    assert_int_equal (stat (target, &st), 0);
    assert_int_equal (st.st_mode & 07777, 0600);
    assert_string_equal (slurp (path), "{}");
    assert_int_equal (lstat (tmp, &st), -1);
    /* a state file that is a link is refused, not read (and written back) */
    unlink (path);
    assert_int_equal (symlink (target, path), 0);
    assert_null (ccas_state_load (dir, "state", &err));
    assert_non_null (strstr (err.text, "symbolic link"));
    unlink (target);
    unlink (path);
}

static void touch (const char *path)
{
    FILE *f = fopen (path, "w");
    assert_non_null (f);
    fclose (f);
}

/* A run killed before its rename left NAME.tmp.PID: the next write of NAME
 * removes it once PID is gone, and leaves a live writer's and other files'. */
static void test_dead_temporaries_removed (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    char path[128], dead[160], live[160], other[160];
    pid_t child = fork ();
    assert_true (child >= 0);
    if (child == 0)
        _exit (0);
    assert_int_equal (waitpid (child, NULL, 0), child);
    snprintf (path, sizeof (path), "%s/requests.json", dir);
    snprintf (dead, sizeof (dead), "%s.tmp.%d", path, (int)child);
    snprintf (live, sizeof (live), "%s.tmp.%d", path, (int)getppid ());
    snprintf (other, sizeof (other), "%s/holds.json.tmp.%d", dir, (int)child);
    touch (dead);
    touch (live);
    touch (other);
    assert_int_equal (ccas_file_write_replace (path, "{}", 2, 0644, false, &err), 0);
    assert_int_equal (access (dead, F_OK), -1);
    assert_int_equal (access (live, F_OK), 0);
    assert_int_equal (access (other, F_OK), 0);
    assert_string_equal (slurp (path), "{}");
    unlink (live);
    unlink (other);
    unlink (path);
}

/* A state directory that cannot be looked into (here: a file stands where
 * the directory should be) is an error naming the file, not an empty state. */
static void test_unreadable_path (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    char file[128];
    snprintf (file, sizeof (file), "%s/not-a-dir", dir);
    FILE *f = fopen (file, "w");
    assert_non_null (f);
    fclose (f);
    assert_null (ccas_state_load (file, "times", &err));
    assert_non_null (strstr (err.text, "not-a-dir/times.json: cannot read the state file: Not a directory"));
    unlink (file);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_round_trip),
        cmocka_unit_test (test_no_write_through_links),
        cmocka_unit_test (test_dead_temporaries_removed),
        cmocka_unit_test (test_unreadable_path),
    };
    snprintf (dir, sizeof (dir), "/tmp/ccas-state.XXXXXX");
    if (!mkdtemp (dir))
        return 1;
    int rc = cmocka_run_group_tests (tests, NULL, NULL);
    char path[128];
    snprintf (path, sizeof (path), "%s/times.json", dir);
    unlink (path);
    rmdir (dir);
    return rc;
}
