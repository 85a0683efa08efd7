/* SPDX-License-Identifier: MIT */
/* test_lock.c: one holder at a time, a refusal that names the holder, and a
 * lock file made by root (the sync timer) that SlurmUser can still take. */
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

#include "util/lock.h"

static char dir[64], path[128];

static void test_one_holder_named (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct ccas_lock *a = ccas_lock_acquire (path, "first-holder", 0, &err);
    assert_non_null (a);
    struct ccas_lock *b = ccas_lock_acquire (path, "second", 0.1, &err);
    assert_null (b);
    assert_int_equal (errno, EWOULDBLOCK);
    assert_non_null (strstr (err.text, "held by pid"));
    assert_non_null (strstr (err.text, "(first-holder)"));
    ccas_lock_release (a);
    assert_non_null ((b = ccas_lock_acquire (path, "second", 0, &err)));
    ccas_lock_release (b);
    ccas_lock_release (NULL);
}

/* Root made the file (mode 0644); another user cannot open it for writing
 * but takes the lock all the same, and holds it against root. */
static void test_another_users_file (void **state)
{
    (void)state;
    if (geteuid () != 0) {
        skip ();
        return;
    }
    struct ccas_error err = {""};
    ccas_lock_release (ccas_lock_acquire (path, "root", 0, &err)); /* the file exists, root's */
    int ready[2], go[2];
    assert_int_equal (pipe (ready), 0);
    assert_int_equal (pipe (go), 0);
    pid_t pid = fork ();
    assert_true (pid >= 0);
    if (pid == 0) {
        char c = 0;
        if (setgid (65534) < 0 || setuid (65534) < 0)
            _exit (2);
        struct ccas_lock *l = ccas_lock_acquire (path, "nobody", 0, &err);
        if (!l)
            _exit (3);
        if (write (ready[1], "x", 1) != 1 || read (go[0], &c, 1) != 1)
            _exit (4);
        ccas_lock_release (l);
        _exit (0);
    }
    char c = 0;
    assert_int_equal (read (ready[0], &c, 1), 1); /* the other user holds it now */
    assert_null (ccas_lock_acquire (path, "root", 0, &err));
    assert_int_equal (errno, EWOULDBLOCK);
    assert_int_equal (write (go[1], "x", 1), 1);
    int status = 0;
    assert_int_equal (waitpid (pid, &status, 0), pid);
    assert_true (WIFEXITED (status));
    assert_int_equal (WEXITSTATUS (status), 0);
    for (int i = 0; i < 2; i++) {
        close (ready[i]);
        close (go[i]);
    }
}

/* A symlink at the lock's name is refused, never truncated through. */
static void test_symlink_refused (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    char target[128], link[128];
    snprintf (target, sizeof (target), "%s/precious", dir);
    snprintf (link, sizeof (link), "%s/lock-link", dir);
    FILE *f = fopen (target, "w");
    assert_non_null (f);
    fputs ("do not touch", f);
    fclose (f);
    assert_int_equal (symlink (target, link), 0);
    assert_null (ccas_lock_acquire (link, "x", 0, &err));
    assert_non_null (strstr (err.text, "lock-link"));
    struct stat st;
    assert_int_equal (stat (target, &st), 0);
    assert_int_equal (st.st_size, 12);
    unlink (link);
    unlink (target);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_one_holder_named),
        cmocka_unit_test (test_another_users_file),
        cmocka_unit_test (test_symlink_refused),
    };
    snprintf (dir, sizeof (dir), "/tmp/ccas-lock.XXXXXX");
    if (!mkdtemp (dir) || chmod (dir, 0755) < 0)
        return 1;
    snprintf (path, sizeof (path), "%s/lock", dir);
    int rc = cmocka_run_group_tests (tests, NULL, NULL);
    unlink (path);
    rmdir (dir);
    return rc;
}
