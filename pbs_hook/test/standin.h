/* SPDX-License-Identifier: MIT */
/* standin.h: PBS's commands (qstat, pbsnodes, qmgr, qalter) played by the
 * test program itself, for the tests of what runs them.  Header-only, for
 * test programs; include it after cmocka.h and fixture.h.
 *
 *   1. main() calls standin_main() first: run under one of those names (a
 *      symlink to the program), it plays that command and exits;
 *   2. standin_setup() is the tests' group setup: a scratch directory with
 *      the symlinks, made the PBS bin_dir (and $CCAS_STANDIN_DIR, which the
 *      commands read);
 *   3. a test says what a call prints and returns with standin_set():
 *      "CMD.out", "CMD.err", "CMD.status" for every call, "CMD.N.out"... for
 *      its Nth call (from 1), "CMD.ARG1.out"... for calls whose first
 *      argument is ARG1; "CMD.hang" makes it hang until killed;
 *   4. standin_calls() is every call made since the last standin_reset():
 *      one line of arguments per call, then its stdin, each line after "< ";
 *   5. standin_teardown() is the group teardown:
 *      cmocka_run_group_tests (tests, standin_setup, standin_teardown).
 */
#ifndef CCAS_PBS_TEST_STANDIN_H
#define CCAS_PBS_TEST_STANDIN_H

#include <dirent.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run.h"

static char standin_dir[64];

static inline char *standin_slurp (const char *path, size_t *len)
{
    FILE *f = fopen (path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc (cap + 1);
    for (size_t got; buf && (got = fread (buf + n, 1, cap - n, f)) > 0;) {
        n += got;
        if (n == cap) {
            char *p = realloc (buf, 2 * cap + 1);
            if (!p) {
                free (buf);
                buf = NULL;
                break;
            }
            buf = p;
            cap *= 2;
        }
    }
    fclose (f);
    if (buf)
        buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

static inline void standin_append (const char *path, const char *text, size_t len)
{
    FILE *f = fopen (path, "ab");
    if (!f)
        _exit (90);
    fwrite (text, 1, len, f);
    fclose (f);
}

/* The first of the files `dir`/CMD.N.SUFFIX, CMD.ARG1.SUFFIX, CMD.SUFFIX that exists, or NULL. */
static inline char *standin_file (const char *dir, const char *cmd, int n, const char *arg1,
                                  const char *suffix, size_t *len)
{
    char path[PATH_MAX];
    char *text;
    snprintf (path, sizeof (path), "%s/%s.%d.%s", dir, cmd, n, suffix);
    if ((text = standin_slurp (path, len)))
        return text;
    if (arg1) {
        snprintf (path, sizeof (path), "%s/%s.%s.%s", dir, cmd, arg1, suffix);
        if ((text = standin_slurp (path, len)))
            return text;
    }
    snprintf (path, sizeof (path), "%s/%s.%s", dir, cmd, suffix);
    return standin_slurp (path, len);
}

/* Play command `cmd` as the files of $CCAS_STANDIN_DIR say; never returns. */
static inline void standin_play (const char *cmd, int argc, char **argv)
{
    const char *dir = getenv ("CCAS_STANDIN_DIR");
    char path[PATH_MAX], line[8192];
    if (!dir)
        _exit (91);
    /* the call's number among this command's calls */
    snprintf (path, sizeof (path), "%s/%s.calls", dir, cmd);
    char *count = standin_slurp (path, NULL);
    int n = (count ? atoi (count) : 0) + 1;
    free (count);
    FILE *f = fopen (path, "w");
    if (!f)
        _exit (92);
    fprintf (f, "%d\n", n);
    fclose (f);
    /* the log: the arguments, then stdin */
    size_t len = (size_t)snprintf (line, sizeof (line), "%s", cmd);
    for (int i = 1; i < argc && len < sizeof (line); i++)
        len += (size_t)snprintf (line + len, sizeof (line) - len, " %s", argv[i]);
    if (len >= sizeof (line) - 1)
        len = sizeof (line) - 2;
    line[len++] = '\n';
    snprintf (path, sizeof (path), "%s/calls", dir);
    standin_append (path, line, len);
    char in[65536];
    ssize_t got;
    bool bol = true;
    while ((got = read (0, in, sizeof (in))) > 0) {
        for (ssize_t i = 0; i < got; i++) {
            if (bol)
                standin_append (path, "< ", 2);
            standin_append (path, &in[i], 1);
            bol = in[i] == '\n';
        }
    }
    const char *arg1 = argc > 1 ? argv[1] : NULL;
    size_t outlen = 0;
    char *hang = standin_file (dir, cmd, n, arg1, "hang", NULL);
    if (hang) {
        for (;;)
            pause ();
    }
    char *out = standin_file (dir, cmd, n, arg1, "out", &outlen);
    char *err = standin_file (dir, cmd, n, arg1, "err", NULL);
    char *status = standin_file (dir, cmd, n, arg1, "status", NULL);
    if (out && write (1, out, outlen) != (ssize_t)outlen)
        _exit (93);
    if (err && write (2, err, strlen (err)) != (ssize_t)strlen (err))
        _exit (94);
    _exit (status ? atoi (status) : 0);
}

static const char *const standin_names[] = {"qstat", "pbsnodes", "qmgr", "qalter", NULL};

/* Step 1: play a PBS command when this program was run as one. */
static inline void standin_main (int argc, char **argv)
{
    const char *name = strrchr (argv[0], '/');
    name = name ? name + 1 : argv[0];
    for (int i = 0; standin_names[i]; i++)
        if (strcmp (name, standin_names[i]) == 0)
            standin_play (name, argc, argv);
}

/* Step 3: what file `name` of the scratch directory holds ("qmgr.2.err"). */
static inline void standin_set (const char *name, const char *text)
{
    char path[PATH_MAX];
    snprintf (path, sizeof (path), "%s/%s", standin_dir, name);
    FILE *f = fopen (path, "wb");
    assert_non_null (f);
    fputs (text, f);
    fclose (f);
}

/* Step 4: the calls made since the last reset.  Caller frees. */
static inline char *standin_calls (void)
{
    char path[PATH_MAX];
    snprintf (path, sizeof (path), "%s/calls", standin_dir);
    char *text = standin_slurp (path, NULL);
    return text ? text : strdup ("");
}

/* Forget every call and every file set; the commands stay. */
static inline void standin_reset (void)
{
    char path[PATH_MAX + 300];
    DIR *d = opendir (standin_dir);
    assert_non_null (d);
    for (struct dirent *e; (e = readdir (d));) {
        bool command = false;
        for (int i = 0; standin_names[i]; i++)
            command = command || strcmp (e->d_name, standin_names[i]) == 0;
        if (e->d_name[0] != '.' && !command) {
            snprintf (path, sizeof (path), "%s/%s", standin_dir, e->d_name);
            unlink (path);
        }
    }
    closedir (d);
}

/* Step 2 (a cmocka group setup). */
static inline int standin_setup (void **state)
{
    (void)state;
    char self[PATH_MAX], path[PATH_MAX];
    ssize_t n = readlink ("/proc/self/exe", self, sizeof (self) - 1);
    assert_true (n > 0);
    self[n] = '\0';
    snprintf (standin_dir, sizeof (standin_dir), "/tmp/ccas-standin.XXXXXX");
    assert_non_null (mkdtemp (standin_dir));
    for (int i = 0; standin_names[i]; i++) {
        snprintf (path, sizeof (path), "%s/%s", standin_dir, standin_names[i]);
        assert_int_equal (symlink (self, path), 0);
    }
    setenv ("CCAS_STANDIN_DIR", standin_dir, 1);
    ccas_run_set_bin_dir (standin_dir);
    return 0;
}

/* Step 5 (a cmocka group teardown). */
static inline int standin_teardown (void **state)
{
    (void)state;
    char path[PATH_MAX];
    standin_reset ();
    for (int i = 0; standin_names[i]; i++) {
        snprintf (path, sizeof (path), "%s/%s", standin_dir, standin_names[i]);
        unlink (path);
    }
    rmdir (standin_dir);
    unsetenv ("CCAS_STANDIN_DIR");
    ccas_run_set_bin_dir (NULL);
    return 0;
}

#endif /* !CCAS_PBS_TEST_STANDIN_H */
