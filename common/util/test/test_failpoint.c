/* SPDX-License-Identifier: MIT */
/* test_failpoint.c: CCAUTOSCALE_FAILPOINT=NAME[@N] kills the process with
 * SIGKILL the Nth time it passes point NAME, and only then; anything else
 * passes.  Each case runs in a child (the variable is read once a process). */
#include "config.h"

#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "util/failpoint.h"
#include "util/file.h"

/* In a child with CCAUTOSCALE_FAILPOINT=`spec` (NULL: unset): cross point
 * `name` `times` times.  Returns how many crossings it survived (`times` when
 * it lived), reported through a pipe, and whether SIGKILL ended it. */
static int crossings_survived (const char *spec, const char *name, int times, bool *killed)
{
    int fds[2];
    assert_int_equal (pipe (fds), 0);
    pid_t pid = fork ();
    assert_true (pid >= 0);
    if (pid == 0) {
        close (fds[0]);
        if (spec)
            setenv ("CCAUTOSCALE_FAILPOINT", spec, 1);
        else
            unsetenv ("CCAUTOSCALE_FAILPOINT");
        for (int i = 0; i < times; i++) {
            ccas_failpoint (name);
            char c = 'x';
            if (write (fds[1], &c, 1) != 1)
                _exit (2);
        }
        _exit (0);
    }
    close (fds[1]);
    int n = 0;
    char c;
    while (read (fds[0], &c, 1) == 1)
        n++;
    close (fds[0]);
    int status = 0;
    assert_int_equal (waitpid (pid, &status, 0), pid);
    *killed = WIFSIGNALED (status) && WTERMSIG (status) == SIGKILL;
    if (!*killed)
        assert_true (WIFEXITED (status) && WEXITSTATUS (status) == 0);
    return n;
}

static void test_specs (void **state)
{
    static const struct {
        const char *spec;
        const char *name;
        int survived; /* of 5 crossings; 5 means it lived */
    } cases[] = {
        /* nothing asked, or something else asked: every crossing survives */
        {NULL, "create:before-send", 5},
        {"", "create:before-send", 5},
        {"create:after-reply", "create:before-send", 5},
        {"create", "create:before-send", 5},               /* a prefix is not the name */
        {"create:before-send-x", "create:before-send", 5}, /* nor a longer name */
        {"Create:Before-Send", "create:before-send", 5},   /* names are exact */
        {"create:before-send@6", "create:before-send", 5}, /* not reached */
        /* the Nth crossing dies; earlier ones survive */
        {"create:before-send", "create:before-send", 0},
        {"create:before-send@1", "create:before-send", 0},
        {"create:before-send@3", "create:before-send", 2},
        {"create:before-send@5", "create:before-send", 4},
        {"state:before-rename", "state:before-rename", 0},
        /* counts that are not positive numbers: the first crossing */
        {"create:before-send@0", "create:before-send", 0},
        {"create:before-send@", "create:before-send", 0},
        {"create:before-send@x", "create:before-send", 0},
    };
    (void)state;
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        bool killed = false;
        int n = crossings_survived (cases[i].spec, cases[i].name, 5, &killed);
        if (n != cases[i].survived)
            fail_msg ("case %zu ('%s'): survived %d crossings, want %d", i,
                      cases[i].spec ? cases[i].spec : "(unset)", n, cases[i].survived);
        assert_int_equal (killed, cases[i].survived < 5);
    }
}

/* A real point: a state file killed before its rename keeps its old
 * content; the next writer removes the dead run's temporary. */
static void test_killed_before_rename (void **state)
{
    (void)state;
    char dir[] = "/tmp/ccas-test-failpoint.XXXXXX", path[128], tmp[160];
    struct ccas_error err = {""};
    assert_non_null (mkdtemp (dir));
    snprintf (path, sizeof (path), "%s/state.json", dir);
    /* not through ccas_file_write_replace: a process reads the variable once,
     * at its first point, and children must not inherit "unset" */
    FILE *f = fopen (path, "w");
    assert_non_null (f);
    fputs ("old", f);
    fclose (f);
    pid_t pid = fork ();
    assert_true (pid >= 0);
    if (pid == 0) {
        setenv ("CCAUTOSCALE_FAILPOINT", "state:before-rename", 1);
        ccas_file_write_replace (path, "new", 3, 0644, true, NULL);
        _exit (0);
    }
    int status = 0;
    assert_int_equal (waitpid (pid, &status, 0), pid);
    assert_true (WIFSIGNALED (status) && WTERMSIG (status) == SIGKILL);
    size_t len;
    char *back = ccas_file_read (path, 100, &len, &err);
    assert_string_equal (back, "old");
    free (back);
    snprintf (tmp, sizeof (tmp), "%s.tmp.%d", path, (int)pid);
    assert_int_equal (access (tmp, F_OK), 0); /* the dead run's temporary, written */
    assert_int_equal (ccas_file_write_replace (path, "newer", 5, 0644, true, &err), 0);
    assert_int_equal (access (tmp, F_OK), -1);
    back = ccas_file_read (path, 100, &len, &err);
    assert_string_equal (back, "newer");
    free (back);
    unlink (path);
    rmdir (dir);
}

/* CCAUTOSCALE_FAILPOINT_ACTION=stop: the process stops at the point (a test
 * kills it there, with the host it stands in for) and, continued, goes on. */
static void test_stop (void **state)
{
    (void)state;
    int fds[2];
    assert_int_equal (pipe (fds), 0);
    pid_t pid = fork ();
    assert_true (pid >= 0);
    if (pid == 0) {
        close (fds[0]);
        setenv ("CCAUTOSCALE_FAILPOINT", "create:before-send@2", 1);
        setenv ("CCAUTOSCALE_FAILPOINT_ACTION", "stop", 1);
        for (int i = 0; i < 3; i++) {
            ccas_failpoint ("create:before-send");
            char c = 'x';
            if (write (fds[1], &c, 1) != 1)
                _exit (2);
        }
        _exit (0);
    }
    close (fds[1]);
    int status = 0;
    assert_int_equal (waitpid (pid, &status, WUNTRACED), pid);
    assert_true (WIFSTOPPED (status) && WSTOPSIG (status) == SIGSTOP);
    char buf[8];
    assert_int_equal (read (fds[0], buf, sizeof (buf)), 1); /* stopped at the second pass */
    assert_int_equal (kill (pid, SIGCONT), 0);
    int n = 0;
    char c;
    while (read (fds[0], &c, 1) == 1)
        n++;
    close (fds[0]);
    assert_int_equal (waitpid (pid, &status, 0), pid);
    assert_true (WIFEXITED (status) && WEXITSTATUS (status) == 0);
    assert_int_equal (n, 2);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_specs),
        /* before test_killed_before_rename, which passes a point in this
         * process: children forked after it inherit "read, unset" */
        cmocka_unit_test (test_stop),
        cmocka_unit_test (test_killed_before_rename),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
