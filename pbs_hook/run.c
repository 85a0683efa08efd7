/* SPDX-License-Identifier: MIT */
/* run.c: posix_spawn a command with pipes, a deadline and bounded output;
 * exec this program again. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run.h"
#include "util/clock.h"
#include "util/file.h"

extern char **environ;

static const char *bin_dir;

void ccas_run_set_bin_dir (const char *dir)
{
    bin_dir = dir && *dir ? dir : NULL;
}

static bool executable (const char *path)
{
    return access (path, X_OK) == 0;
}

/* The full path of PBS command `name`, or -1 when there is none. */
static int resolve (const char *name, char *path, size_t size)
{
    if (strchr (name, '/')) {
        snprintf (path, size, "%s", name);
        return executable (path) ? 0 : -1;
    }
    if (bin_dir) {
        snprintf (path, size, "%s/%s", bin_dir, name);
        return executable (path) ? 0 : -1;
    }
    const char *env = getenv ("PATH");
    char dirs[4096];
    snprintf (dirs, sizeof (dirs), "%s:/opt/pbs/bin", env ? env : "/usr/bin:/bin");
    char *save = NULL;
    for (char *d = strtok_r (dirs, ":", &save); d; d = strtok_r (NULL, ":", &save)) {
        snprintf (path, size, "%s/%s", *d ? d : ".", name);
        if (executable (path))
            return 0;
    }
    return -1;
}

bool ccas_run_found (const char *name)
{
    char path[PATH_MAX];
    return resolve (name, path, sizeof (path)) == 0;
}

struct sink {
    char *buf;
    size_t len, cap, max;
    bool overflow;
};

/* Read what is there; 0 at end of file, 1 if more may come, -1 on error. */
static int drain (int fd, struct sink *s)
{
    char chunk[65536];
    ssize_t n = read (fd, chunk, sizeof (chunk));
    if (n < 0)
        return errno == EINTR || errno == EAGAIN ? 1 : -1;
    if (n == 0)
        return 0;
    size_t take = (size_t)n;
    if (s->len + take > s->max) {
        s->overflow = true;
        take = s->max - s->len;
    }
    if (s->len + take + 1 > s->cap) {
        size_t cap = s->cap ? s->cap : 65536;
        while (cap < s->len + take + 1)
            cap *= 2;
        char *p = realloc (s->buf, cap);
        if (!p)
            return -1;
        s->buf = p;
        s->cap = cap;
    }
    memcpy (s->buf + s->len, chunk, take);
    s->len += take;
    s->buf[s->len] = '\0';
    return 1;
}

static int spawn (const char *path, char *const argv[], int in, int out[2], int errp[2], pid_t *pid)
{
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    sigset_t none;
    posix_spawn_file_actions_init (&fa);
    posix_spawnattr_init (&attr);
    sigemptyset (&none);
    /* a clean signal mask and a process group of its own, so a timeout kills its children too */
    posix_spawnattr_setsigmask (&attr, &none);
    posix_spawnattr_setpgroup (&attr, 0);
    posix_spawnattr_setflags (&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP);
    if (in >= 0)
        posix_spawn_file_actions_adddup2 (&fa, in, 0);
    else
        posix_spawn_file_actions_addopen (&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2 (&fa, out[1], 1);
    posix_spawn_file_actions_adddup2 (&fa, errp[1], 2);
    posix_spawn_file_actions_addclose (&fa, out[0]);
    posix_spawn_file_actions_addclose (&fa, errp[0]);
    int rc = posix_spawn (pid, path, &fa, &attr, argv, environ);
    posix_spawn_file_actions_destroy (&fa);
    posix_spawnattr_destroy (&attr);
    return rc;
}

static void kill_group (pid_t pid)
{
    kill (-pid, SIGTERM);
    for (int i = 0; i < 10; i++) {
        if (waitpid (pid, NULL, WNOHANG) == pid)
            return;
        ccas_clock_sleep (0.1);
    }
    kill (-pid, SIGKILL);
    while (waitpid (pid, NULL, 0) < 0 && errno == EINTR)
        ;
}

/* Reap the child by the deadline: one that closed its output may still hang.
 * Returns 0 with its status, or -1 (still running at the deadline, or an error). */
static int wait_until (pid_t pid, double deadline, int *status)
{
    /* A child that closed its pipes is exiting: look again at once, then
     * back off.  A fixed 5 ms nap here cost each of a pass's hundreds of
     * qmgr calls 5 ms. */
    double nap = 0.0001;
    for (;;) {
        pid_t r = waitpid (pid, status, WNOHANG);
        if (r == pid)
            return 0;
        if (r < 0 && errno != EINTR)
            return -1;
        if (ccas_clock_monotonic () >= deadline)
            return -1;
        ccas_clock_sleep (nap);
        if (nap < 0.005)
            nap *= 2;
    }
}

/* Collect both pipes until both close or the deadline passes; 0, or -1 on timeout or error. */
static int collect (int outfd, int errfd, double deadline, struct sink *out, struct sink *errs)
{
    bool out_open = true, err_open = true;
    while (out_open || err_open) {
        double left = deadline - ccas_clock_monotonic ();
        if (left <= 0)
            return -1;
        struct pollfd p[2] = {{out_open ? outfd : -1, POLLIN, 0}, {err_open ? errfd : -1, POLLIN, 0}};
        int n = poll (p, 2, (int)(left * 1000) + 1);
        if (n < 0 && errno != EINTR)
            return -1;
        if (n <= 0)
            continue;
        int rc;
        if (p[0].revents && (rc = drain (outfd, out)) <= 0) {
            if (rc < 0)
                return -1;
            out_open = false;
        }
        if (p[1].revents && (rc = drain (errfd, errs)) <= 0) {
            if (rc < 0)
                return -1;
            err_open = false;
        }
    }
    return 0;
}

/* A file holding `input`, at its start, for the child's stdin; -1 with `err`. */
static int input_file (const char *name, const char *input, size_t len, struct ccas_error *err)
{
    int fd = memfd_create ("ccautoscale-input", MFD_CLOEXEC);
    if (fd < 0)
        return ccas_errorf (err, "%s: cannot make its input: %s", name, strerror (errno));
    if (ccas_file_write_all (fd, input, len) < 0) {
        ccas_errorf (err, "%s: cannot write its input: %s", name, strerror (errno));
        close (fd);
        return -1;
    }
    if (lseek (fd, 0, SEEK_SET) < 0) {
        ccas_errorf (err, "%s: cannot rewind its input: %s", name, strerror (errno));
        close (fd);
        return -1;
    }
    return fd;
}

static int run (char *const argv[], const char *input, size_t inlen, double timeout, size_t max_out,
                struct ccas_run_result *res, struct ccas_error *err)
{
    char path[PATH_MAX];
    int out[2] = {-1, -1}, errp[2] = {-1, -1}, in = -1;
    struct sink so = {.max = max_out}, se = {.max = 4096};
    pid_t pid;
    memset (res, 0, sizeof (*res));
    if (resolve (argv[0], path, sizeof (path)) < 0)
        return ccas_errorf (err, "%s: command not found (set pbs.bin_dir, or add PBS to the PATH)", argv[0]);
    if (input && (in = input_file (argv[0], input, inlen, err)) < 0)
        return -1;
    if (pipe2 (out, O_CLOEXEC) < 0 || pipe2 (errp, O_CLOEXEC) < 0) {
        ccas_errorf (err, "%s: cannot make a pipe: %s", argv[0], strerror (errno));
        goto fail;
    }
    int rc = spawn (path, argv, in, out, errp, &pid);
    if (in >= 0)
        close (in);
    in = -1;
    close (out[1]);
    close (errp[1]);
    out[1] = errp[1] = -1;
    if (rc != 0) {
        ccas_errorf (err, "%s: cannot run: %s", path, strerror (rc));
        goto fail;
    }
    double deadline = ccas_clock_monotonic () + timeout;
    int status = 0;
    if (collect (out[0], errp[0], deadline, &so, &se) < 0 || wait_until (pid, deadline, &status) < 0) {
        kill_group (pid);
        ccas_errorf (err, "%s: no answer within %.0f s (killed)", argv[0], timeout);
        goto fail;
    }
    if (so.overflow) {
        ccas_errorf (err, "%s: printed more than %zu bytes", argv[0], max_out);
        goto fail;
    }
    res->status = WIFEXITED (status) ? WEXITSTATUS (status) : 128 + WTERMSIG (status);
    res->out = so.buf ? so.buf : strdup ("");
    res->outlen = so.len;
    snprintf (res->err, sizeof (res->err), "%s", se.buf ? se.buf : "");
    res->err[strcspn (res->err, "\n")] = '\0';
    res->errs = se.buf ? se.buf : strdup ("");
    close (out[0]);
    close (errp[0]);
    if (!res->out || !res->errs) {
        ccas_run_result_release (res); /* frees both, either may be NULL */
        return ccas_errorf (err, "out of memory");
    }
    return 0;
fail:
    if (in >= 0)
        close (in);
    for (int i = 0; i < 2; i++) {
        if (out[i] >= 0)
            close (out[i]);
        if (errp[i] >= 0)
            close (errp[i]);
    }
    free (so.buf);
    free (se.buf);
    return -1;
}

int ccas_run_ok (char *const argv[], double timeout, struct ccas_error *err)
{
    struct ccas_run_result r;
    if (ccas_run (argv, timeout, 1 << 20, &r, err) < 0)
        return -1;
    ccas_run_result_release (&r);
    if (r.status != 0)
        return ccas_errorf (err, "%s: exit %d%s%s", argv[0], r.status, r.err[0] ? ": " : "", r.err);
    return 0;
}

/* Seconds spent in ccas_run() by this process: what a pass waited on the
 * scheduler's own commands, reported apart from the pass's own time. */
static double waited;
static unsigned long started;

double ccas_run_seconds (void)
{
    return waited;
}

unsigned long ccas_run_count (void)
{
    return started;
}

void ccas_run_result_release (struct ccas_run_result *res)
{
    free (res->out);
    free (res->errs);
    res->out = res->errs = NULL;
}

int ccas_run_input (char *const argv[], const char *input, size_t inlen, double timeout, size_t max_out,
                    struct ccas_run_result *res, struct ccas_error *err)
{
    double t0 = ccas_clock_monotonic ();
    started++;
    int rc = run (argv, input, inlen, timeout, max_out, res, err);
    waited += ccas_clock_monotonic () - t0;
    return rc;
}

int ccas_run (char *const argv[], double timeout, size_t max_out, struct ccas_run_result *res,
              struct ccas_error *err)
{
    return ccas_run_input (argv, NULL, 0, timeout, max_out, res, err);
}

int ccas_run_exec_self (char *const argv[])
{
    execv ("/proc/self/exe", argv);
    return -1;
}
