/* SPDX-License-Identifier: MIT */
/* test_file.c: whole files read under a cap (regular files, pipes, files
 * that report no size, directories refused), directories made, and files
 * replaced atomically: the mode asked for whatever the umask, never through
 * a link planted at the temporary's name, dead writers' temporaries removed,
 * and rewritten keeping the mode, owner and link a site set. */
#include "config.h"

#include <errno.h>
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

#include "util/file.h"

static char dir[] = "/tmp/ccas-test-file.XXXXXX";

static void path_of (char *buf, size_t size, const char *name)
{
    snprintf (buf, size, "%s/%s", dir, name);
}

static void write_bytes (const char *path, const char *data, size_t len)
{
    int fd = open (path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true (fd >= 0);
    assert_int_equal (write (fd, data, len), (ssize_t)len);
    close (fd);
}

/* The whole content of `path` (caller frees), or NULL. */
static char *slurp (const char *path)
{
    size_t len;
    return ccas_file_read (path, 1 << 20, &len, NULL);
}

/* ---- reading ----------------------------------------------------------------------------- */

static void test_read_refuses (void **state)
{
    (void)state;
    char path[128];
    size_t len = 99;
    struct ccas_error err = {""};

    path_of (path, sizeof (path), "missing");
    assert_null (ccas_file_read (path, 100, &len, &err));
    assert_int_equal (errno, ENOENT);
    assert_true (strncmp (err.text, path, strlen (path)) == 0);
    assert_non_null (strstr (err.text, "No such file or directory"));
    assert_int_equal (len, 99); /* untouched on failure */

    assert_null (ccas_file_read (dir, 100, &len, &err));
    assert_non_null (strstr (err.text, "is a directory"));

    path_of (path, sizeof (path), "big");
    write_bytes (path, "0123456789", 10);
    assert_null (ccas_file_read (path, 9, &len, &err));
    assert_non_null (strstr (err.text, "too large (10 bytes, limit 9)"));
    assert_null (ccas_file_read (path, 0, &len, NULL));
    assert_int_equal (len, 99);
    unlink (path);
}

/* The descriptor and the stat are of one file: the one opened. */
static void test_open_stat (void **state)
{
    (void)state;
    char path[128];
    struct stat st, by_path;
    struct ccas_error err = {""};

    path_of (path, sizeof (path), "absent");
    assert_int_equal (ccas_file_open_stat (path, &st, &err), -1);
    assert_true (strncmp (err.text, path, strlen (path)) == 0);
    assert_non_null (strstr (err.text, "No such file or directory"));

    path_of (path, sizeof (path), "present");
    write_bytes (path, "abc", 3);
    int fd = ccas_file_open_stat (path, &st, &err);
    assert_true (fd >= 0);
    assert_int_equal (stat (path, &by_path), 0);
    assert_int_equal (st.st_ino, by_path.st_ino);
    assert_int_equal (st.st_size, 3);
    assert_true (fcntl (fd, F_GETFD) & FD_CLOEXEC);
    char buf[4];
    assert_int_equal (read (fd, buf, sizeof (buf)), 3);
    close (fd);
    unlink (path);
}

static void test_read_regular (void **state)
{
    static const struct {
        const char *data;
        size_t len;
        size_t max;
    } cases[] = {
        {"", 0, 0},
        {"", 0, 10},
        {"x", 1, 1},
        {"0123456789", 10, 10}, /* exactly at the cap */
        {"a\0b\0c", 5, 100},    /* bytes, not a string */
        {"{\"a\": 1}\n", 9, 1 << 20},
    };
    (void)state;
    char path[128];
    path_of (path, sizeof (path), "f");
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        struct ccas_error err = {""};
        size_t len = 99;
        write_bytes (path, cases[i].data, cases[i].len);
        char *buf = ccas_file_read (path, cases[i].max, &len, &err);
        assert_non_null (buf);
        assert_int_equal (len, cases[i].len);
        assert_memory_equal (buf, cases[i].data, cases[i].len);
        assert_int_equal (buf[len], '\0');
        free (buf);
    }
    /* a larger file, read whole */
    size_t big = 300000;
    char *data = malloc (big);
    assert_non_null (data);
    for (size_t i = 0; i < big; i++)
        data[i] = (char)('a' + i % 26);
    write_bytes (path, data, big);
    size_t len = 0;
    char *buf = ccas_file_read (path, big, &len, NULL);
    assert_non_null (buf);
    assert_int_equal (len, big);
    assert_memory_equal (buf, data, big);
    free (buf);
    free (data);
    unlink (path);
}

/* Fork a writer of `n` bytes into a pipe; return the read end's path. */
static pid_t pipe_writer (size_t n, int *rfd, char *path, size_t size)
{
    int fds[2];
    assert_int_equal (pipe (fds), 0);
    pid_t pid = fork ();
    assert_true (pid >= 0);
    if (pid == 0) {
        close (fds[0]);
        char chunk[4096];
        memset (chunk, 'p', sizeof (chunk));
        while (n > 0) {
            size_t k = n < sizeof (chunk) ? n : sizeof (chunk);
            if (write (fds[1], chunk, k) != (ssize_t)k)
                _exit (1);
            n -= k;
        }
        _exit (0);
    }
    close (fds[1]);
    *rfd = fds[0];
    snprintf (path, size, "/proc/self/fd/%d", fds[0]);
    return pid;
}

static void reap (pid_t pid)
{
    kill (pid, SIGKILL); /* a writer the reader gave up on may be blocked */
    waitpid (pid, NULL, 0);
}

/* A pipe has no size: it is read to EOF, and the cap still holds. */
static void test_read_pipe (void **state)
{
    static const struct {
        size_t n, max;
        bool ok;
    } cases[] = {
        {100, 10, false},        /* far over a small cap */
        {11, 10, false},         /* one byte over */
        {200000, 150000, false}, /* over a cap past the first buffer */
        {70000, 65536, false},   /* just past the first buffer */
        {10, 10, true},          {0, 10, true},
        {100, 1000, true},       {200000, 200000, true}, /* more than a pipe holds: read as it comes */
    };
    (void)state;
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        char path[64];
        int rfd;
        size_t len = 0;
        struct ccas_error err = {""};
        pid_t pid = pipe_writer (cases[i].n, &rfd, path, sizeof (path));
        char *buf = ccas_file_read (path, cases[i].max, &len, &err);
        if (cases[i].ok) {
            if (!buf)
                fail_msg ("case %zu: %s", i, err.text);
            assert_int_equal (len, cases[i].n);
            for (size_t k = 0; k < len; k++)
                if (buf[k] != 'p')
                    fail_msg ("case %zu: byte %zu", i, k);
        } else {
            if (buf)
                fail_msg ("case %zu: %zu bytes read under a cap of %zu", i, len, cases[i].max);
            assert_non_null (strstr (err.text, "too large"));
        }
        free (buf);
        close (rfd);
        reap (pid);
    }
}

/* Files under /proc say they are empty: they too are read to EOF under the cap. */
static void test_read_sizeless_file (void **state)
{
    (void)state;
    size_t len = 0;
    struct ccas_error err = {""};
    char *buf = ccas_file_read ("/proc/self/status", 1 << 20, &len, &err);
    assert_non_null (buf);
    assert_true (len > 20);
    assert_non_null (strstr (buf, "Pid:"));
    free (buf);
    assert_null (ccas_file_read ("/proc/self/status", 16, &len, &err));
    assert_non_null (strstr (err.text, "too large"));
}

/* ---- directories --------------------------------------------------------------------------- */

static void test_make_dirs (void **state)
{
    (void)state;
    char path[256], file[256];
    struct ccas_error err = {""};
    struct stat st;

    /* a component that is a file: the error names it */
    path_of (file, sizeof (file), "plain");
    write_bytes (file, "x", 1);
    snprintf (path, sizeof (path), "%s/sub/deeper", file);
    assert_int_equal (ccas_file_make_dirs (path, &err), -1);
    assert_non_null (strstr (err.text, "cannot create directory"));
    assert_non_null (strstr (err.text, "/plain: cannot create directory: File exists"));
    assert_int_equal (ccas_file_make_dirs (file, NULL), -1);

    path_of (path, sizeof (path), "a/b/c");
    assert_int_equal (ccas_file_make_dirs (path, &err), 0);
    assert_int_equal (stat (path, &st), 0);
    assert_true (S_ISDIR (st.st_mode));
    assert_int_equal (ccas_file_make_dirs (path, &err), 0); /* again: nothing to do */
    path_of (path, sizeof (path), "a/b/d/");
    assert_int_equal (ccas_file_make_dirs (path, &err), 0); /* a trailing slash */
    assert_int_equal (stat (path, &st), 0);
    assert_int_equal (ccas_file_make_dirs (dir, &err), 0);

    path_of (path, sizeof (path), "a/b/c");
    rmdir (path);
    path_of (path, sizeof (path), "a/b/d");
    rmdir (path);
    path_of (path, sizeof (path), "a/b");
    rmdir (path);
    path_of (path, sizeof (path), "a");
    rmdir (path);
    unlink (file);
}

/* ---- replacing ---------------------------------------------------------------------------------- */

static void test_write_mode_honoured (void **state)
{
    static const struct {
        unsigned mode;
        mode_t umask;
    } cases[] = {
        {0644, 077}, {0600, 022}, {0640, 0}, {0444, 0777}, {0755, 022},
    };
    (void)state;
    char path[128];
    path_of (path, sizeof (path), "m");
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        struct ccas_error err = {""};
        struct stat st;
        mode_t old = umask (cases[i].umask);
        int rc = (i % 2 ? ccas_file_write_atomic (path, "abc", 3, cases[i].mode, &err)
                        : ccas_file_write_replace (path, "abc", 3, cases[i].mode, false, &err));
        umask (old);
        assert_int_equal (rc, 0);
        assert_int_equal (stat (path, &st), 0);
        assert_int_equal (st.st_mode & 07777, cases[i].mode);
        char *back = slurp (path);
        assert_string_equal (back, "abc");
        free (back);
    }
    unlink (path);
}

/* The new content replaces the old whole; the directory is made on the way;
 * no temporary is left behind. */
static void test_write_replaces (void **state)
{
    (void)state;
    char path[256], tmp[300];
    struct ccas_error err = {""};
    path_of (path, sizeof (path), "new/dir/state.json");
    assert_int_equal (ccas_file_write_atomic (path, "{\"long\": \"old content\"}", 23, 0644, &err), 0);
    assert_int_equal (ccas_file_write_atomic (path, "{}", 2, 0644, &err), 0);
    char *back = slurp (path);
    assert_string_equal (back, "{}");
    free (back);
    assert_int_equal (ccas_file_write_replace (path, "", 0, 0600, true, &err), 0);
    back = slurp (path);
    assert_string_equal (back, "");
    free (back);
    snprintf (tmp, sizeof (tmp), "%s.tmp.%d", path, (int)getpid ());
    assert_int_equal (access (tmp, F_OK), -1);
    unlink (path);
    path_of (path, sizeof (path), "new/dir");
    rmdir (path);
    path_of (path, sizeof (path), "new");
    rmdir (path);

    /* a directory that cannot be made: -1, the error names it */
    char file[128];
    path_of (file, sizeof (file), "plain");
    write_bytes (file, "x", 1);
    snprintf (path, sizeof (path), "%s/sub/f", file);
    assert_int_equal (ccas_file_write_atomic (path, "x", 1, 0644, &err), -1);
    assert_non_null (strstr (err.text, "/plain: cannot create directory"));
    unlink (file);
}

/* A symlink planted at the temporary's name is removed, not written
 * through; a symlink at the name itself is replaced by the file, and its
 * target is left alone. */
static void test_write_never_follows_links (void **state)
{
    (void)state;
    char target[128], path[128], tmp[160];
    struct ccas_error err = {""};
    struct stat st;
    path_of (target, sizeof (target), "precious");
    path_of (path, sizeof (path), "out.json");
    snprintf (tmp, sizeof (tmp), "%s.tmp.%d", path, (int)getpid ());
    write_bytes (target, "do not touch", 12);
    assert_int_equal (chmod (target, 0600), 0);

    assert_int_equal (symlink (target, tmp), 0);
    assert_int_equal (ccas_file_write_replace (path, "new", 3, 0644, true, &err), 0);
    char *back = slurp (target);
    assert_string_equal (back, "do not touch");
    free (back);
    assert_int_equal (stat (target, &st), 0);
    assert_int_equal (st.st_mode & 07777, 0600);
    assert_int_equal (lstat (tmp, &st), -1);
    back = slurp (path);
    assert_string_equal (back, "new");
    free (back);

    unlink (path);
    assert_int_equal (symlink (target, path), 0);
    assert_int_equal (ccas_file_write_replace (path, "newer", 5, 0644, false, &err), 0);
    assert_int_equal (lstat (path, &st), 0);
    assert_true (S_ISREG (st.st_mode));
    back = slurp (target);
    assert_string_equal (back, "do not touch");
    free (back);
    unlink (path);
    unlink (target);
}

/* Rewriting keeps what the site set: the mode (0400, not the 0644 asked),
 * the owner and group (root gives the file to another user first; anyone
 * else keeps their own), and a symbolic link at the name, whose target gets
 * the new content.  A new file gets the mode asked; a link to nothing and a
 * directory are refused, naming the path, and leave nothing behind. */
static void test_write_keeps_mode_and_owner (void **state)
{
    (void)state;
    char path[128], link[128], tmp[160], sub[128];
    struct ccas_error err = {""};
    struct stat st;
    uid_t uid = geteuid () == 0 ? 65534 : geteuid ();
    gid_t gid = geteuid () == 0 ? 65534 : getegid ();
    path_of (path, sizeof (path), "azure.conf");
    path_of (link, sizeof (link), "gres.conf");

    assert_int_equal (ccas_file_write_keep (path, "one\n", 4, 0640, &err), 0);
    assert_int_equal (stat (path, &st), 0);
    assert_int_equal (st.st_mode & 07777, 0640);
    assert_int_equal (st.st_uid, geteuid ());

    assert_int_equal (chmod (path, 0400), 0);
    assert_int_equal (chown (path, uid, gid), 0);
    assert_int_equal (ccas_file_write_keep (path, "two\n", 4, 0644, &err), 0);
    assert_int_equal (stat (path, &st), 0);
    assert_int_equal (st.st_mode & 07777, 0400);
    assert_int_equal (st.st_uid, uid);
    assert_int_equal (st.st_gid, gid);
    char *back = slurp (path);
    assert_string_equal (back, "two\n");
    free (back);
    snprintf (tmp, sizeof (tmp), "%s.tmp.%d", path, (int)getpid ());
    assert_int_equal (access (tmp, F_OK), -1);

    assert_int_equal (symlink (path, link), 0);
    assert_int_equal (ccas_file_write_keep (link, "three\n", 6, 0644, &err), 0);
    assert_int_equal (lstat (link, &st), 0);
    assert_true (S_ISLNK (st.st_mode));
    back = slurp (path);
    assert_string_equal (back, "three\n");
    free (back);
    assert_int_equal (stat (path, &st), 0);
    assert_int_equal (st.st_mode & 07777, 0400);
    assert_int_equal (st.st_uid, uid);

    unlink (path);
    assert_int_equal (ccas_file_write_keep (link, "four\n", 5, 0644, &err), -1);
    assert_non_null (strstr (err.text, "gres.conf: a symbolic link to nothing"));
    assert_int_equal (access (path, F_OK), -1);
    unlink (link);

    path_of (sub, sizeof (sub), "adir");
    assert_int_equal (mkdir (sub, 0755), 0);
    assert_int_equal (ccas_file_write_keep (sub, "x", 1, 0644, &err), -1);
    assert_non_null (strstr (err.text, "adir: not a regular file"));
    rmdir (sub);
}

/* NAME.tmp.PID of a writer that died is removed by the next writer; a live
 * writer's, another name's, and names that only look alike are left. */
static void test_dead_temporaries_removed (void **state)
{
    (void)state;
    char path[128], p[192];
    struct ccas_error err = {""};
    pid_t dead = fork ();
    assert_true (dead >= 0);
    if (dead == 0)
        _exit (0);
    waitpid (dead, NULL, 0);
    path_of (path, sizeof (path), "data.json");
    /* each name is the path, then `middle`, then a pid (or not), then `tail` */
    static const struct {
        const char *middle;
        int pid; /* 0: the dead writer's, -1: none, else this pid */
        const char *tail;
        bool removed;
    } cases[] = {
        {".tmp.", 0, "", true},   {".tmp.", 1, "", false}, /* pid 1 lives */
        {".tmp.", 0, "x", false}, {".tmp.", -1, "", false}, {".tmp.-", 0, "", false},
        {".old.", 0, "", false},  {"x.tmp.", 0, "", false},
    };
    for (int round = 0; round < 2; round++) {
        for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
            char pid[16] = "";
            if (cases[i].pid >= 0)
                snprintf (pid, sizeof (pid), "%d", cases[i].pid ? cases[i].pid : (int)dead);
            snprintf (p, sizeof (p), "%s%s%s%s", path, cases[i].middle, pid, cases[i].tail);
            if (round == 0) {
                write_bytes (p, "stale", 5);
                continue;
            }
            if (cases[i].removed)
                assert_int_equal (access (p, F_OK), -1);
            else {
                assert_int_equal (access (p, F_OK), 0);
                unlink (p);
            }
        }
        if (round == 0)
            assert_int_equal (ccas_file_write_replace (path, "x", 1, 0644, false, &err), 0);
    }
    unlink (path);
}

static int setup (void **state)
{
    (void)state;
    return mkdtemp (dir) ? 0 : -1;
}

static int teardown (void **state)
{
    (void)state;
    return rmdir (dir);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_read_refuses),
        cmocka_unit_test (test_open_stat),
        cmocka_unit_test (test_read_regular),
        cmocka_unit_test (test_read_pipe),
        cmocka_unit_test (test_read_sizeless_file),
        cmocka_unit_test (test_make_dirs),
        cmocka_unit_test (test_write_mode_honoured),
        cmocka_unit_test (test_write_replaces),
        cmocka_unit_test (test_write_never_follows_links),
        cmocka_unit_test (test_write_keeps_mode_and_owner),
        cmocka_unit_test (test_dead_temporaries_removed),
    };
    return cmocka_run_group_tests (tests, setup, teardown);
}
