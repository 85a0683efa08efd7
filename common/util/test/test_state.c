/* SPDX-License-Identifier: MIT */
/* test_state.c: state files are replaced whole, and never through a link
 * someone else put in the directory (root's sync writes into SlurmUser's). */
#include "config.h"

#include <errno.h>
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

static void spill (const char *path, const char *text)
{
    FILE *f = fopen (path, "w");
    assert_non_null (f);
    fputs (text, f);
    fclose (f);
}

/* The format goes first into every file and is not part of the document;
 * a file written before it existed (format 1 without the key) reads the same. */
static void test_format_written_first (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    char path[128];
    snprintf (path, sizeof (path), "%s/requests.json", dir);
    spill (path, "{\"r1\": {\"time\": 5}}");
    struct ccas_state *st = ccas_state_load (dir, "requests", &err);
    assert_non_null (st);
    assert_int_equal (json_object_object_length (ccas_state_root (st)), 1);
    json_object_object_add (ccas_state_root (st), "r2", json_object_new_int (2));
    assert_int_equal (ccas_state_save (st, &err), 0);
    ccas_state_destroy (st);
    assert_string_equal (slurp (path), "{\"ccautoscale_format\":1,\"r1\":{\"time\":5},\"r2\":2}");
    st = ccas_state_load (dir, "requests", &err);
    assert_non_null (st);
    assert_int_equal (json_object_object_length (ccas_state_root (st)), 2);
    assert_false (json_object_object_get_ex (ccas_state_root (st), CCAS_STATE_FORMAT_KEY, NULL));
    ccas_state_destroy (st);
    unlink (path);
}

/* A newer ccautoscale's file is refused, with a message, and left as it is
 * (here, and by the salvaging loader, even when it is cut short). */
static void test_newer_format_refused (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct ccas_state_salvage sv;
    char path[128];
    const char *newer = "{\"ccautoscale_format\":2,\"r1\":{\"how\":\"else\"}}";
    snprintf (path, sizeof (path), "%s/requests.json", dir);
    spill (path, newer);
    errno = 0;
    assert_null (ccas_state_load (dir, "requests", &err));
    assert_int_equal (errno, ENOTSUP);
    assert_non_null (strstr (err.text, "requests.json: written by a newer ccautoscale (state format 2;"
                                       " this one reads up to 1): refusing to read or replace it"));
    assert_null (ccas_state_load_salvage (dir, "requests", &sv, &err));
    assert_non_null (strstr (err.text, "newer ccautoscale"));
    assert_string_equal (slurp (path), newer);
    const char *cut = "{\"ccautoscale_format\":3,\"r1\":{\"how\":";
    spill (path, cut);
    assert_null (ccas_state_load_salvage (dir, "requests", &sv, &err));
    assert_non_null (strstr (err.text, "state format 3"));
    assert_string_equal (slurp (path), cut);
    spill (path, "{\"ccautoscale_format\":\"two\"}");
    assert_null (ccas_state_load (dir, "requests", &err));
    assert_non_null (strstr (err.text, "ccautoscale_format: expected a format number, not '\"two\"'"));
    unlink (path);
}

/* A file cut short (a crash of the NFS server during a write) is an error
 * for ccas_state_load; the salvaging loader reads back the entries before
 * the cut, keeps the file aside and writes what it read back. */
static void test_truncated_salvaged (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct ccas_state_salvage sv;
    char path[128];
    const char *cut = "{\"ccautoscale_format\":1,\"r1\":{\"time\":1,\"sets\":[\"a,b\"]},"
                      "\"r2\":{\"time\":2},\"r3\":{\"ti";
    snprintf (path, sizeof (path), "%s/requests.json", dir);
    spill (path, cut);
    errno = 0;
    assert_null (ccas_state_load (dir, "requests", &err));
    assert_int_equal (errno, EBADMSG);
    assert_non_null (strstr (err.text, "truncated JSON"));
    struct ccas_state *st = ccas_state_load_salvage (dir, "requests", &sv, &err);
    assert_non_null (st);
    assert_true (sv.broken);
    assert_int_equal (sv.kept, 2);
    assert_int_equal (sv.bytes, strlen (cut));
    assert_string_equal (slurp (sv.aside), cut);
    json_object *r1 = NULL;
    assert_true (json_object_object_get_ex (ccas_state_root (st), "r1", &r1));
    assert_string_equal (json_object_to_json_string_ext (r1, JSON_C_TO_STRING_PLAIN),
                         "{\"time\":1,\"sets\":[\"a,b\"]}");
    ccas_state_destroy (st);
    assert_string_equal (
        slurp (path),
        "{\"ccautoscale_format\":1,\"r1\":{\"time\":1,\"sets\":[\"a,b\"]},\"r2\":{\"time\":2}}");
    unlink (sv.aside);
    /* a whole file is not touched; an empty one (cut at once) reads back nothing */
    st = ccas_state_load_salvage (dir, "requests", &sv, &err);
    assert_non_null (st);
    assert_false (sv.broken);
    ccas_state_destroy (st);
    spill (path, "");
    st = ccas_state_load_salvage (dir, "requests", &sv, &err);
    assert_non_null (st);
    assert_true (sv.broken);
    assert_int_equal (sv.kept, 0);
    assert_int_equal (json_object_object_length (ccas_state_root (st)), 0);
    ccas_state_destroy (st);
    unlink (sv.aside);
    unlink (path);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_round_trip),
        cmocka_unit_test (test_no_write_through_links),
        cmocka_unit_test (test_dead_temporaries_removed),
        cmocka_unit_test (test_unreadable_path),
        cmocka_unit_test (test_format_written_first),
        cmocka_unit_test (test_newer_format_refused),
        cmocka_unit_test (test_truncated_salvaged),
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
