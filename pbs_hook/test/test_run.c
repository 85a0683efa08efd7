/* SPDX-License-Identifier: MIT */
/* test_run.c: running a command from an argv array (run.c) — its exit
 * status, output and stderr; arguments reaching it byte for byte, never
 * through a shell; a command that outlives its limit killed with its
 * children; output past the cap refused; stdin given or /dev/null; no
 * descriptor of ours leaking into it; how commands are found; a program
 * replacing itself with a new run of its own executable.
 *
 * The commands run are this program itself, under other names (symlinks in
 * a scratch directory): main() acts the part its name says. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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
#include <sys/types.h>
#include <unistd.h>

#include <cmocka.h>

#include "run.h"
#include "util/clock.h"

/* ---- the commands ------------------------------------------------------------------------------------ */

static void write_all (int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write (fd, p, n);
        if (w <= 0)
            _exit (99);
        p += w;
        n -= (size_t)w;
    }
}

static void write_pid (const char *file)
{
    char text[32];
    int fd = open (file, O_WRONLY | O_CREAT | O_APPEND, 0644);
    snprintf (text, sizeof (text), "%ld\n", (long)getpid ());
    write_all (fd, text, strlen (text));
    close (fd);
}

/* Act the command `name`; returns its exit status. */
static int act (const char *name, int argc, char **argv)
{
    if (strcmp (name, "args") == 0) {
        /* each argument, argv[0] included, then a NUL */
        for (int i = 0; i < argc; i++)
            write_all (1, argv[i], strlen (argv[i]) + 1);
        return 0;
    }
    if (strcmp (name, "fail") == 0) {
        static const char err[] = "fail: the first line\nand the second\n";
        write_all (1, "partial", 7);
        write_all (2, err, sizeof (err) - 1);
        return argc > 1 ? atoi (argv[1]) : 3;
    }
    if (strcmp (name, "warn") == 0) {
        /* argv[1] bytes of stderr, then success */
        long n = argc > 1 ? atol (argv[1]) : 0;
        write_all (2, "warning: careful\n", 17);
        for (long i = 17; i < n; i++)
            write_all (2, "w", 1);
        write_all (1, "ok\n", 3);
        return 0;
    }
    if (strcmp (name, "spew") == 0) {
        /* argv[1] bytes of stdout */
        long n = atol (argv[1]);
        char block[4096];
        memset (block, 'x', sizeof (block));
        for (long done = 0; done < n; done += (long)sizeof (block))
            write_all (1, block, (size_t)(n - done < (long)sizeof (block) ? n - done : (long)sizeof (block)));
        return 0;
    }
    if (strcmp (name, "echo-stdin") == 0) {
        char buf[65536];
        ssize_t n;
        while ((n = read (0, buf, sizeof (buf))) > 0)
            write_all (1, buf, (size_t)n);
        return n < 0 ? 98 : 0;
    }
    if (strcmp (name, "hang") == 0) {
        /* argv[1]: a file for our pid; argv[2]: "stubborn" ignores SIGTERM,
         * "family" leaves a child of its own hanging too, "quiet" closes
         * its output first */
        const char *how = argc > 2 ? argv[2] : "";
        if (strcmp (how, "stubborn") == 0)
            signal (SIGTERM, SIG_IGN);
        if (strcmp (how, "family") == 0 && fork () == 0) {
            write_pid (argv[1]);
            for (;;)
                pause ();
        }
        if (strcmp (how, "quiet") == 0) {
            close (1);
            close (2);
        }
        write_pid (argv[1]);
        for (;;)
            pause ();
    }
    if (strcmp (name, "fds") == 0) {
        /* every descriptor open in us but 0, 1, 2 and the listing's own */
        DIR *d = opendir ("/proc/self/fd");
        if (!d)
            return 97;
        for (struct dirent *e; (e = readdir (d));) {
            int fd = atoi (e->d_name);
            if (e->d_name[0] != '.' && fd > 2 && fd != dirfd (d)) {
                char text[32];
                snprintf (text, sizeof (text), "%d\n", fd);
                write_all (1, text, strlen (text));
            }
        }
        closedir (d);
        return 0;
    }
    if (strcmp (name, "exec-self") == 0) {
        /* this executable again, as "args": it prints what it was given */
        char *again[] = {"args", "again", "from exec-self", NULL};
        ccas_run_exec_self (again);
        return 95;
    }
    if (strcmp (name, "suicide") == 0) {
        kill (getpid (), SIGKILL);
        _exit (96);
    }
    return -1;
}

/* ---- the tests ---------------------------------------------------------------------------------------- */

static char bin[64]; /* the scratch directory holding the commands */

static void link_command (const char *self, const char *name)
{
    char path[PATH_MAX];
    snprintf (path, sizeof (path), "%s/%s", bin, name);
    assert_int_equal (symlink (self, path), 0);
}

static int setup (void **state)
{
    (void)state;
    static const char *const names[] = {"args", "fail", "warn",    "spew",     "echo-stdin",
                                        "hang", "fds",  "suicide", "exec-self"};
    char self[PATH_MAX];
    ssize_t n = readlink ("/proc/self/exe", self, sizeof (self) - 1);
    assert_true (n > 0);
    self[n] = '\0';
    snprintf (bin, sizeof (bin), "/tmp/ccas-test-run.XXXXXX");
    assert_non_null (mkdtemp (bin));
    for (size_t i = 0; i < sizeof (names) / sizeof (names[0]); i++)
        link_command (self, names[i]);
    ccas_run_set_bin_dir (bin);
    return 0;
}

static int teardown (void **state)
{
    (void)state;
    char path[PATH_MAX];
    DIR *d = opendir (bin);
    for (struct dirent *e; d && (e = readdir (d));)
        if (e->d_name[0] != '.') {
            snprintf (path, sizeof (path), "%s/%s", bin, e->d_name);
            unlink (path);
        }
    if (d)
        closedir (d);
    rmdir (bin);
    ccas_run_set_bin_dir (NULL);
    return 0;
}

/* A command that succeeds: status 0, all it printed, nothing on stderr. */
static void test_run_succeeds (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct ccas_run_result r;
    char *argv[] = {"args", "one", "two", NULL};
    assert_int_equal (ccas_run (argv, 10, 1 << 20, &r, &err), 0);
    assert_int_equal (r.status, 0);
    assert_int_equal (r.outlen, 13);
    assert_memory_equal (r.out, "args\0one\0two\0", 13);
    assert_int_equal (r.out[r.outlen], '\0');
    assert_string_equal (r.err, "");
    assert_string_equal (r.errs, "");
    ccas_run_result_release (&r);
    assert_null (r.out);
    assert_null (r.errs);
    ccas_run_result_release (&r); /* twice is harmless */
    assert_int_equal (ccas_run_ok (argv, 10, &err), 0);
}

/* A command that fails ran all the same: ccas_run() gives its status, the
 * first line of its stderr and all of it; ccas_run_ok() makes it an error
 * naming the command, its status and that line. */
static void test_run_fails (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct ccas_run_result r;
    char *argv[] = {"fail", "3", NULL};
    assert_int_equal (ccas_run (argv, 10, 1 << 20, &r, &err), 0);
    assert_int_equal (r.status, 3);
    assert_string_equal (r.out, "partial");
    assert_string_equal (r.err, "fail: the first line");
    assert_string_equal (r.errs, "fail: the first line\nand the second\n");
    ccas_run_result_release (&r);
    assert_int_equal (ccas_run_ok (argv, 10, &err), -1);
    assert_string_equal (err.text, "fail: exit 3: fail: the first line");
    /* the status as it is, up to 255 */
    char *argv255[] = {"fail", "255", NULL};
    assert_int_equal (ccas_run (argv255, 10, 1 << 20, &r, &err), 0);
    assert_int_equal (r.status, 255);
    ccas_run_result_release (&r);
    /* killed by a signal: 128 + its number */
    char *argv9[] = {"suicide", NULL};
    assert_int_equal (ccas_run (argv9, 10, 1 << 20, &r, &err), 0);
    assert_int_equal (r.status, 128 + SIGKILL);
    ccas_run_result_release (&r);
    assert_int_equal (ccas_run_ok (argv9, 10, &err), -1);
    assert_string_equal (err.text, "suicide: exit 137");
}

/* What a command prints on stderr does not make it fail; at most 4 KB of it
 * is kept, and a command printing more is neither stopped nor blocked. */
static void test_run_stderr (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct ccas_run_result r;
    char *argv[] = {"warn", "17", NULL};
    assert_int_equal (ccas_run (argv, 10, 1 << 20, &r, &err), 0);
    assert_int_equal (r.status, 0);
    assert_string_equal (r.out, "ok\n");
    assert_string_equal (r.err, "warning: careful");
    assert_string_equal (r.errs, "warning: careful\n");
    ccas_run_result_release (&r);
    assert_int_equal (ccas_run_ok (argv, 10, &err), 0);
    char *lots[] = {"warn", "1000000", NULL};
    assert_int_equal (ccas_run (lots, 10, 1 << 20, &r, &err), 0);
    assert_int_equal (r.status, 0);
    assert_string_equal (r.out, "ok\n");
    assert_int_equal (strlen (r.errs), 4096);
    assert_string_equal (r.err, "warning: careful");
    ccas_run_result_release (&r);
}

/* Every argument reaches the command as it is — spaces, quotes, shell
 * syntax, an empty one, a newline — because no shell ever reads them. */
static void test_run_args_intact (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct ccas_run_result r;
    char marker[PATH_MAX];
    snprintf (marker, sizeof (marker), "%s/pwned", bin);
    char touch[PATH_MAX + 16];
    snprintf (touch, sizeof (touch), "; touch %s", marker);
    char subst[PATH_MAX + 16];
    snprintf (subst, sizeof (subst), "$(touch %s)", marker);
    char *argv[] = {"args",
                    "two words",
                    "  leading and trailing  ",
                    "\"double\" and 'single' quotes",
                    "it's",
                    "a\\b",
                    "$HOME ${PATH} *",
                    touch,
                    subst,
                    "`id`",
                    "",
                    "line\nbreak\ttab",
                    "comment=\"a b\" -W x",
                    "ünïcødé",
                    NULL};
    size_t argc = sizeof (argv) / sizeof (argv[0]) - 1;
    assert_int_equal (ccas_run (argv, 10, 1 << 20, &r, &err), 0);
    assert_int_equal (r.status, 0);
    size_t at = 0;
    for (size_t i = 0; i < argc; i++) {
        size_t len = strlen (argv[i]) + 1;
        assert_true (at + len <= r.outlen);
        if (memcmp (r.out + at, argv[i], len) != 0)
            fail_msg ("argument %zu: sent '%s', the command got '%s'", i, argv[i], r.out + at);
        at += len;
    }
    assert_int_equal (at, r.outlen); /* nothing split, nothing added */
    ccas_run_result_release (&r);
    assert_int_equal (access (marker, F_OK), -1);

    /* shell syntax in the command's own name finds no command and runs nothing */
    char name[PATH_MAX + 16];
    snprintf (name, sizeof (name), "args; touch %s", marker);
    char *shell[] = {name, NULL};
    assert_int_equal (ccas_run (shell, 10, 1 << 20, &r, &err), -1);
    assert_non_null (strstr (err.text, "command not found"));
    assert_int_equal (access (marker, F_OK), -1);
}

/* Our pids file: the pids a hanging command wrote, in *pids; how many. */
static int read_pids (const char *file, pid_t *pids, int max)
{
    FILE *f = fopen (file, "r");
    int n = 0;
    long p;
    while (f && n < max && fscanf (f, "%ld", &p) == 1)
        pids[n++] = (pid_t)p;
    if (f)
        fclose (f);
    return n;
}

/* `pid` has ended: no such process, or a zombie no one reaped yet (a child
 * of the killed command, reparented). */
static bool gone (pid_t pid)
{
    for (int i = 0; i < 200; i++) {
        char path[64], stat[256] = "";
        snprintf (path, sizeof (path), "/proc/%ld/stat", (long)pid);
        FILE *f = fopen (path, "r");
        if (!f)
            return true;
        size_t n = fread (stat, 1, sizeof (stat) - 1, f);
        fclose (f);
        stat[n] = '\0';
        const char *paren = strrchr (stat, ')');
        if (paren && (paren[2] == 'Z' || paren[2] == 'X'))
            return true;
        ccas_clock_sleep (0.01);
    }
    return false;
}

static void hang_and_kill (const char *how, int npids, double min, double max)
{
    struct ccas_error err = {""};
    struct ccas_run_result r;
    char pids_file[PATH_MAX];
    snprintf (pids_file, sizeof (pids_file), "%s/pids-%s", bin, how);
    char *argv[] = {"hang", pids_file, (char *)how, NULL};
    double t0 = ccas_clock_monotonic ();
    assert_int_equal (ccas_run (argv, 1, 1 << 20, &r, &err), -1);
    double took = ccas_clock_monotonic () - t0;
    assert_string_equal (err.text, "hang: no answer within 1 s (killed)");
    if (took < min || took > max)
        fail_msg ("%s: took %.2f s, expected %.1f..%.1f", how, took, min, max);
    pid_t pids[4];
    assert_int_equal (read_pids (pids_file, pids, 4), npids);
    for (int i = 0; i < npids; i++)
        if (!gone (pids[i]))
            fail_msg ("%s: process %ld still runs", how, (long)pids[i]);
    unlink (pids_file);
}

/* A command that outlives its limit is killed and reported as timed out:
 * one that ends on SIGTERM at once, one that ignores it a second later
 * (SIGKILL), its own children with it (its process group), and one that
 * closed its output and hangs on.  (The upper bounds leave room for a
 * loaded machine: they catch a kill that never comes, not a slow one.) */
static void test_run_timeout (void **state)
{
    (void)state;
    hang_and_kill ("", 1, 0.9, 6.0);
    hang_and_kill ("stubborn", 1, 1.9, 7.0);
    hang_and_kill ("family", 2, 0.9, 6.0);
    hang_and_kill ("quiet", 1, 0.9, 6.0);
}

/* At most max_out bytes of stdout: more is an error, not a truncation. */
static void test_run_output_limit (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct ccas_run_result r;
    char *argv[] = {"spew", "300000", NULL};
    assert_int_equal (ccas_run (argv, 10, 300000, &r, &err), 0);
    assert_int_equal (r.outlen, 300000);
    assert_int_equal (strspn (r.out, "x"), 300000);
    ccas_run_result_release (&r);
    assert_int_equal (ccas_run (argv, 10, 299999, &r, &err), -1);
    assert_string_equal (err.text, "spew: printed more than 299999 bytes");
    /* nothing printed: an empty string, not NULL */
    char *none[] = {"spew", "0", NULL};
    assert_int_equal (ccas_run (none, 10, 100, &r, &err), 0);
    assert_int_equal (r.outlen, 0);
    assert_string_equal (r.out, "");
    ccas_run_result_release (&r);
}

/* stdin: the input given, whole (larger than any pipe holds), or /dev/null. */
static void test_run_input (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct ccas_run_result r;
    char *argv[] = {"echo-stdin", NULL};
    size_t n = 3 << 20;
    char *input = malloc (n);
    assert_non_null (input);
    for (size_t i = 0; i < n; i++)
        input[i] = (char)('a' + i % 26);
    input[n / 2] = '\0'; /* bytes, not a string */
    assert_int_equal (ccas_run_input (argv, input, n, 10, n, &r, &err), 0);
    assert_int_equal (r.status, 0);
    assert_int_equal (r.outlen, n);
    assert_memory_equal (r.out, input, n);
    ccas_run_result_release (&r);
    free (input);
    assert_int_equal (ccas_run (argv, 10, 100, &r, &err), 0);
    assert_int_equal (r.outlen, 0);
    ccas_run_result_release (&r);
}

/* The open descriptors of this process, as a set. */
static void open_fds (bool *open, int max)
{
    memset (open, 0, (size_t)max * sizeof (*open));
    DIR *d = opendir ("/proc/self/fd");
    assert_non_null (d);
    for (struct dirent *e; (e = readdir (d));) {
        int fd = atoi (e->d_name);
        if (e->d_name[0] != '.' && fd >= 0 && fd < max && fd != dirfd (d))
            open[fd] = true;
    }
    closedir (d);
}

/* The command gets stdin, stdout and stderr, and of ours only what it
 * would have had anyway: never the pipes or the input file run.c makes
 * for it. */
static void test_run_no_leaked_fds (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct ccas_run_result r;
    bool before[1024];
    open_fds (before, 1024);
    char *argv[] = {"fds", NULL};
    assert_int_equal (ccas_run_input (argv, "x", 1, 10, 1 << 20, &r, &err), 0);
    assert_int_equal (r.status, 0);
    for (char *line = r.out; *line; line = strchr (line, '\n') + 1) {
        int fd = atoi (line);
        if (fd < 1024 && !before[fd])
            fail_msg ("descriptor %d leaked into the command", fd);
    }
    ccas_run_result_release (&r);
}

/* Commands are found in the bin_dir when it is set (and only there), else on
 * the PATH, else in /opt/pbs/bin; a name with a '/' is a path. */
static void test_run_not_found (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct ccas_run_result r;
    char *missing[] = {"no-such-command", NULL};
    assert_int_equal (ccas_run (missing, 10, 100, &r, &err), -1);
    assert_string_equal (err.text,
                         "no-such-command: command not found (set pbs.bin_dir, or add PBS to the PATH)");
    assert_int_equal (ccas_run_ok (missing, 10, &err), -1);
    assert_non_null (strstr (err.text, "command not found"));
    /* a file that is not executable is no command */
    char path[PATH_MAX];
    snprintf (path, sizeof (path), "%s/plain", bin);
    FILE *f = fopen (path, "w");
    fputs ("#!/bin/sh\n", f);
    fclose (f);
    char *plain[] = {"plain", NULL};
    assert_int_equal (ccas_run (plain, 10, 100, &r, &err), -1);
    assert_non_null (strstr (err.text, "plain: command not found"));
    unlink (path);
    /* with bin_dir set, the PATH is not searched */
    char *sh[] = {"sh", "-c", "exit 0", NULL};
    assert_int_equal (ccas_run (sh, 10, 100, &r, &err), -1);
    /* without it, the PATH is */
    const char *old = getenv ("PATH");
    char *saved = old ? strdup (old) : NULL;
    char newpath[PATH_MAX + 32];
    snprintf (newpath, sizeof (newpath), "/nonexistent::%s", bin);
    setenv ("PATH", newpath, 1);
    ccas_run_set_bin_dir (NULL);
    char *args[] = {"args", "x", NULL};
    assert_int_equal (ccas_run (args, 10, 100, &r, &err), 0);
    assert_memory_equal (r.out, "args\0x\0", 7);
    ccas_run_result_release (&r);
    ccas_run_set_bin_dir (""); /* empty: none */
    assert_int_equal (ccas_run (args, 10, 100, &r, &err), 0);
    ccas_run_result_release (&r);
    /* a path, as it is */
    snprintf (path, sizeof (path), "%s/args", bin);
    setenv ("PATH", "/nonexistent", 1);
    char *bypath[] = {path, NULL};
    assert_int_equal (ccas_run (bypath, 10, 100, &r, &err), 0);
    assert_string_equal (r.out, path);
    ccas_run_result_release (&r);
    assert_int_equal (ccas_run (args, 10, 100, &r, &err), -1);
    if (saved)
        setenv ("PATH", saved, 1);
    free (saved);
    ccas_run_set_bin_dir (bin);
}

/* ccas_run_exec_self: the process becomes a new run of its own executable
 * (this test program) with the argv given, so it acts as "args" and prints
 * them; had the exec failed it would exit 95. */
static void test_run_exec_self (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct ccas_run_result r;
    char *argv[] = {"exec-self", NULL};
    assert_int_equal (ccas_run (argv, 10, 1 << 20, &r, &err), 0);
    assert_int_equal (r.status, 0);
    assert_int_equal (r.outlen, sizeof ("args\0again\0from exec-self"));
    assert_memory_equal (r.out, "args\0again\0from exec-self", r.outlen);
    ccas_run_result_release (&r);
}

/* Each call is counted, and the time spent waiting on commands summed. */
static void test_run_counters (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct ccas_run_result r;
    unsigned long n0 = ccas_run_count ();
    double t0 = ccas_run_seconds ();
    char pids_file[PATH_MAX];
    snprintf (pids_file, sizeof (pids_file), "%s/pids-count", bin);
    char *hang[] = {"hang", pids_file, NULL};
    assert_int_equal (ccas_run (hang, 1, 100, &r, &err), -1);
    char *args[] = {"args", NULL};
    assert_int_equal (ccas_run (args, 10, 100, &r, &err), 0);
    ccas_run_result_release (&r);
    char *missing[] = {"no-such-command", NULL};
    assert_int_equal (ccas_run (missing, 10, 100, &r, &err), -1);
    assert_int_equal (ccas_run_count (), n0 + 3);
    assert_true (ccas_run_seconds () - t0 >= 1.0);
    unlink (pids_file);
}

int main (int argc, char **argv)
{
    const char *name = strrchr (argv[0], '/');
    int rc = act (name ? name + 1 : argv[0], argc, argv);
    if (rc >= 0)
        return rc;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_run_succeeds),  cmocka_unit_test (test_run_fails),
        cmocka_unit_test (test_run_stderr),    cmocka_unit_test (test_run_args_intact),
        cmocka_unit_test (test_run_timeout),   cmocka_unit_test (test_run_output_limit),
        cmocka_unit_test (test_run_input),     cmocka_unit_test (test_run_no_leaked_fds),
        cmocka_unit_test (test_run_not_found), cmocka_unit_test (test_run_counters),
        cmocka_unit_test (test_run_exec_self),
    };
    return cmocka_run_group_tests (tests, setup, teardown);
}
