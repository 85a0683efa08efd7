/* SPDX-License-Identifier: MIT */
/* test_secret.c: secrets burned in memory; files holding one refused when
 * group or others may read them, by mode and by kind, with a message that
 * names the file, its mode and the fix; the first line read as the secret. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "util/secret.h"

static char dir[] = "/tmp/ccas-test-secret.XXXXXX";

static void path_of (char *buf, size_t size, const char *name)
{
    snprintf (buf, size, "%s/%s", dir, name);
}

static void write_file (const char *path, const char *text, size_t len, mode_t mode)
{
    unlink (path);
    int fd = open (path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true (fd >= 0);
    assert_int_equal (write (fd, text, len), (ssize_t)len);
    close (fd);
    assert_int_equal (chmod (path, mode), 0);
}

static void test_burn (void **state)
{
    (void)state;
    char buf[16];
    memcpy (buf, "hunter2-hunter2", 16);
    ccas_secret_burn (NULL, 16); /* NULL is a no-op */
    ccas_secret_burn (buf, 0);
    assert_string_equal (buf, "hunter2-hunter2");
    ccas_secret_burn (buf + 2, 5);
    assert_memory_equal (buf, "hu\0\0\0\0\0-hunter2", 16);
    ccas_secret_burn (buf, sizeof (buf));
    for (size_t i = 0; i < sizeof (buf); i++)
        assert_int_equal (buf[i], 0);
}

static void test_free_keeps_errno (void **state)
{
    (void)state;
    errno = EPERM;
    ccas_secret_free (NULL);
    assert_int_equal (errno, EPERM);
    ccas_secret_free (strdup ("a-password"));
    assert_int_equal (errno, EPERM);
}

/* Bad modes first: any group or other bit refuses the file. */
static void test_check_mode (void **state)
{
    static const struct {
        mode_t mode;
        const char *want; /* NULL: accepted */
    } cases[] = {
        {0644, "mode 0644 (group or others may read it); run 'chmod 600 "},
        {0640, "mode 0640"},
        {0604, "mode 0604"},
        {0610, "mode 0610"},
        {0601, "mode 0601"},
        {0620, "mode 0620"},
        {0777, "mode 0777"},
        {0600, NULL},
        {0400, NULL},
        {0700, NULL},
        {0200, NULL},
    };
    (void)state;
    char path[128];
    path_of (path, sizeof (path), "pw");
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        struct ccas_error err = {""};
        write_file (path, "pw\n", 3, cases[i].mode);
        int rc = ccas_secret_check_mode (path, "the password", &err);
        if (!cases[i].want) {
            assert_int_equal (rc, 0);
            assert_string_equal (err.text, "");
            continue;
        }
        assert_int_equal (rc, -1);
        assert_true (strncmp (err.text, path, strlen (path)) == 0); /* names the file first */
        assert_non_null (strstr (err.text, "holds the password"));
        assert_non_null (strstr (err.text, cases[i].want));
        assert_int_equal (ccas_secret_check_mode (path, "the password", NULL), -1);
    }
}

/* Not a regular file, missing, and a symlink judged by its target. */
static void test_check_mode_kinds (void **state)
{
    (void)state;
    char path[128], link[128];
    struct ccas_error err = {""};
    assert_int_equal (ccas_secret_check_mode (dir, "the password", &err), -1);
    assert_non_null (strstr (err.text, "is not a regular file"));
    path_of (path, sizeof (path), "missing");
    assert_int_equal (ccas_secret_check_mode (path, "the password", &err), -1);
    assert_non_null (strstr (err.text, "No such file or directory"));
    assert_true (strncmp (err.text, path, strlen (path)) == 0);

    path_of (path, sizeof (path), "target");
    path_of (link, sizeof (link), "link");
    write_file (path, "x", 1, 0644);
    unlink (link);
    assert_int_equal (symlink (path, link), 0);
    assert_int_equal (ccas_secret_check_mode (link, "the password", &err), -1);
    assert_non_null (strstr (err.text, "mode 0644"));
    assert_int_equal (chmod (path, 0600), 0);
    assert_int_equal (ccas_secret_check_mode (link, "the password", &err), 0);
    unlink (link);
    unlink (path);
}

/* The first line is the password, without its line end; the rest is ignored. */
static void test_read_file (void **state)
{
    static const struct {
        const char *text;
        const char *want;
    } cases[] = {
        {"s3cret\n", "s3cret"},
        {"s3cret", "s3cret"},
        {"s3cret\r\n", "s3cret"},
        {"with space \nsecond line\n", "with space "},
        {"p@ss:word/\"'\n", "p@ss:word/\"'"},
    };
    (void)state;
    char path[128];
    path_of (path, sizeof (path), "pw");
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        struct ccas_error err = {""};
        write_file (path, cases[i].text, strlen (cases[i].text), 0600);
        char *s = ccas_secret_read_file (path, &err);
        assert_non_null (s);
        assert_string_equal (s, cases[i].want);
        ccas_secret_free (s);
    }
}

static void test_read_file_refused (void **state)
{
    static const struct {
        const char *text;
        mode_t mode;
        const char *want;
    } cases[] = {
        {"s3cret\n", 0644, "holds a password but has mode 0644"},
        {"s3cret\n", 0660, "mode 0660"},
        {"", 0600, "the password file is empty"},
        {"\n", 0600, "the password file is empty"},
        {"\r\nlater\n", 0600, "the password file is empty"},
    };
    (void)state;
    char path[128];
    path_of (path, sizeof (path), "pw");
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        struct ccas_error err = {""};
        write_file (path, cases[i].text, strlen (cases[i].text), cases[i].mode);
        assert_null (ccas_secret_read_file (path, &err));
        assert_true (strncmp (err.text, path, strlen (path)) == 0);
        assert_non_null (strstr (err.text, cases[i].want));
        assert_null (strstr (err.text, "s3cret")); /* never the secret */
        assert_null (ccas_secret_read_file (path, NULL));
    }
    struct ccas_error err = {""};
    assert_null (ccas_secret_read_file (dir, &err));
    assert_non_null (strstr (err.text, "is not a regular file"));
    path_of (path, sizeof (path), "missing");
    assert_null (ccas_secret_read_file (path, &err));
    assert_non_null (strstr (err.text, "No such file or directory"));
}

/* In a child, so that the test process stays dumpable. */
static void test_no_dump (void **state)
{
    (void)state;
    pid_t pid = fork ();
    assert_true (pid >= 0);
    if (pid == 0) {
        ccas_secret_no_dump ();
        _exit (prctl (PR_GET_DUMPABLE, 0, 0, 0, 0) == 0 ? 0 : 1);
    }
    int status = 0;
    assert_int_equal (waitpid (pid, &status, 0), pid);
    assert_true (WIFEXITED (status));
    assert_int_equal (WEXITSTATUS (status), 0);
    assert_int_equal (prctl (PR_GET_DUMPABLE, 0, 0, 0, 0), 1);
}

static int setup (void **state)
{
    (void)state;
    return mkdtemp (dir) ? 0 : -1;
}

static int teardown (void **state)
{
    char path[128];
    (void)state;
    path_of (path, sizeof (path), "pw");
    unlink (path);
    return rmdir (dir);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_burn),       cmocka_unit_test (test_free_keeps_errno),
        cmocka_unit_test (test_check_mode), cmocka_unit_test (test_check_mode_kinds),
        cmocka_unit_test (test_read_file),  cmocka_unit_test (test_read_file_refused),
        cmocka_unit_test (test_no_dump),
    };
    return cmocka_run_group_tests (tests, setup, teardown);
}
