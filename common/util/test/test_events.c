/* SPDX-License-Identifier: MIT */
/* test_events.c: the events file takes whole lines or nothing — a write the
 * file system cuts short (here RLIMIT_FSIZE, as a full disk would) leaves no
 * half line behind, and the run goes on without events. */
#include "config.h"

#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "util/events.h"

static char dir[64], path[128];

static off_t size_of (const char *p)
{
    struct stat st;
    return stat (p, &st) == 0 ? st.st_size : -1;
}

static json_object *big_fields (size_t n)
{
    char *text = malloc (n + 1);
    memset (text, 'x', n);
    text[n] = '\0';
    json_object *o = json_object_new_object ();
    json_object_object_add (o, "message", json_object_new_string (text));
    free (text);
    return o;
}

/* Every line in the file parses as JSON and ends with a newline. */
static int whole_lines (const char *p)
{
    FILE *f = fopen (p, "r");
    char line[8192];
    int n = 0;
    assert_non_null (f);
    while (fgets (line, sizeof (line), f)) {
        size_t len = strlen (line);
        assert_true (len > 0 && line[len - 1] == '\n');
        json_object *o = json_tokener_parse (line);
        assert_non_null (o);
        json_object_put (o);
        n++;
    }
    fclose (f);
    return n;
}

static void test_cut_short_leaves_no_half_line (void **state)
{
    (void)state;
    ccas_events_open (path, 64, 3, "test_events");
    ccas_event ("created", big_fields (10));
    ccas_event ("created", big_fields (10));
    assert_int_equal (whole_lines (path), 2);
    off_t before = size_of (path);

    /* the file may grow by 100 bytes more: a 2,000-byte line is cut short */
    struct rlimit old, lim;
    getrlimit (RLIMIT_FSIZE, &old);
    lim = old;
    lim.rlim_cur = (rlim_t)before + 100;
    signal (SIGXFSZ, SIG_IGN);
    assert_int_equal (setrlimit (RLIMIT_FSIZE, &lim), 0);
    ccas_event ("created", big_fields (2000));
    ccas_event ("created", big_fields (10)); /* dropped: events are off for the rest of the run */
    assert_int_equal (setrlimit (RLIMIT_FSIZE, &old), 0);
    signal (SIGXFSZ, SIG_DFL);

    assert_int_equal (size_of (path), before);
    assert_int_equal (whole_lines (path), 2);
    ccas_events_close ();
}

/* Root (the sync timer) makes the file in SlurmUser's directory: it goes to
 * the directory's owner, who must append to it next. */
static void test_root_gives_the_file_to_the_directory_owner (void **state)
{
    (void)state;
    if (geteuid () != 0) {
        skip ();
        return;
    }
    struct stat st;
    unlink (path);
    assert_int_equal (chown (dir, 65534, 65534), 0);
    ccas_events_open (path, 64, 3, "test_events");
    ccas_event ("created", big_fields (10));
    ccas_events_close ();
    assert_int_equal (chown (dir, 0, 0), 0);
    assert_int_equal (stat (path, &st), 0);
    assert_int_equal (st.st_uid, 65534);
    assert_int_equal (whole_lines (path), 1);
}

/* A symlink at the events file's name is never followed: nothing is written
 * to what it points to (root's sync in SlurmUser's directory). */
static void test_symlink_not_followed (void **state)
{
    (void)state;
    char target[128];
    struct stat st;
    snprintf (target, sizeof (target), "%s/elsewhere", dir);
    unlink (path);
    FILE *f = fopen (target, "w");
    assert_non_null (f);
    fclose (f);
    assert_int_equal (symlink (target, path), 0);
    ccas_events_open (path, 64, 3, "test_events");
    ccas_event ("created", big_fields (10));
    ccas_events_close ();
    assert_int_equal (size_of (target), 0);
    assert_int_equal (lstat (path, &st), 0);
    assert_true (S_ISLNK (st.st_mode));
    unlink (path);
    unlink (target);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_cut_short_leaves_no_half_line),
        cmocka_unit_test (test_root_gives_the_file_to_the_directory_owner),
        cmocka_unit_test (test_symlink_not_followed),
    };
    snprintf (dir, sizeof (dir), "/tmp/ccas-events.XXXXXX");
    if (!mkdtemp (dir))
        return 1;
    snprintf (path, sizeof (path), "%s/events.jsonl", dir);
    int rc = cmocka_run_group_tests (tests, NULL, NULL);
    unlink (path);
    rmdir (dir);
    return rc;
}
