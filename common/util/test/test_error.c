/* SPDX-License-Identifier: MIT */
/* test_error.c: the error struct — filled from a format, truncation marked,
 * errno kept, a location prepended, NULL accepted everywhere, and CCAS_BUG()
 * the one abort. */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "util/error.h"

#define TEXT_MAX (sizeof (((struct ccas_error *)0)->text) - 1) /* 511 characters and the NUL */

static char *repeat (char c, size_t n)
{
    char *s = malloc (n + 1);
    assert_non_null (s);
    memset (s, c, n);
    s[n] = '\0';
    return s;
}

static int via_va (struct ccas_error *err, const char *fmt, ...) __attribute__ ((format (printf, 2, 3)));
static int via_va (struct ccas_error *err, const char *fmt, ...)
{
    va_list ap;
    va_start (ap, fmt);
    int rc = ccas_verrorf (err, fmt, ap);
    va_end (ap);
    return rc;
}

/* NULL first: every call accepts a NULL error, returns -1 and keeps errno. */
static void test_null_error (void **state)
{
    (void)state;
    errno = EACCES;
    assert_int_equal (ccas_errorf (NULL, "x %d", 1), -1);
    assert_int_equal (errno, EACCES);
    assert_int_equal (via_va (NULL, "x %s", "y"), -1);
    assert_int_equal (errno, EACCES);
    assert_int_equal (ccas_error_prefix (NULL, "where"), -1);
    assert_int_equal (errno, EACCES);
    ccas_error_clear (NULL);
    assert_int_equal (errno, EACCES);
}

/* The message is what the format says; errno is the caller's, even when the
 * format's arguments (strerror) were computed from it. */
static void test_fill_keeps_errno (void **state)
{
    static const struct {
        int errnum;
        const char *want;
    } cases[] = {
        {ENOENT, "f.json: No such file or directory"},
        {EACCES, "f.json: Permission denied"},
        {0, "f.json: Success"},
    };
    (void)state;
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        struct ccas_error err = {"stale"};
        errno = cases[i].errnum;
        assert_int_equal (ccas_errorf (&err, "%s: %s", "f.json", strerror (errno)), -1);
        assert_string_equal (err.text, cases[i].want);
        assert_int_equal (errno, cases[i].errnum);
        errno = cases[i].errnum;
        assert_int_equal (via_va (&err, "%s: %s", "f.json", strerror (errno)), -1);
        assert_string_equal (err.text, cases[i].want);
        assert_int_equal (errno, cases[i].errnum);
    }
}

/* A message that does not fit ends in "..." at the last bytes; one that just
 * fits is left alone. */
static void test_truncation_marked (void **state)
{
    static const struct {
        size_t len;
        bool cut;
    } cases[] = {
        {TEXT_MAX + 200, true}, {TEXT_MAX + 1, true}, {TEXT_MAX, false}, {TEXT_MAX - 1, false}, {0, false},
    };
    (void)state;
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        struct ccas_error err = {""};
        char *msg = repeat ('m', cases[i].len);
        errno = EIO;
        ccas_errorf (&err, "%s", msg);
        assert_int_equal (errno, EIO);
        size_t n = strlen (err.text);
        assert_int_equal (n, cases[i].cut ? TEXT_MAX : cases[i].len);
        if (cases[i].cut) {
            assert_string_equal (err.text + n - 3, "...");
            assert_int_equal (strspn (err.text, "m"), TEXT_MAX - 3);
        } else
            assert_string_equal (err.text, msg);
        free (msg);
    }
}

/* Location first, compiler-style; prefixes stack outward. */
static void test_prefix (void **state)
{
    struct ccas_error err = {""};
    (void)state;
    ccas_errorf (&err, "unknown unit suffix '%s'", "gbb");
    errno = ENOSPC;
    assert_int_equal (ccas_error_prefix (&err, "default_resources[%d].value", 3), -1);
    assert_int_equal (errno, ENOSPC);
    assert_string_equal (err.text, "default_resources[3].value: unknown unit suffix 'gbb'");
    ccas_error_prefix (&err, "%s", "/etc/ccautoscale/autoscale.json");
    assert_string_equal (
        err.text, "/etc/ccautoscale/autoscale.json: default_resources[3].value: unknown unit suffix 'gbb'");

    /* a prefix on an empty message still reads "where: " */
    ccas_error_clear (&err);
    assert_string_equal (err.text, "");
    ccas_error_prefix (&err, "p");
    assert_string_equal (err.text, "p: ");
}

/* A prefix that pushes the message past the end marks the cut; a long
 * location is kept whole when the whole fits. */
static void test_prefix_truncation (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    char *msg = repeat ('m', TEXT_MAX - 10);
    ccas_errorf (&err, "%s", msg);
    ccas_error_prefix (&err, "a-long-location");
    assert_int_equal (strlen (err.text), TEXT_MAX);
    assert_true (strncmp (err.text, "a-long-location: mmm", 20) == 0);
    assert_string_equal (err.text + TEXT_MAX - 3, "...");
    free (msg);

    /* 300 bytes of location and a short message: 310 bytes fit in 511 */
    char *where = repeat ('w', 300);
    ccas_errorf (&err, "bad");
    ccas_error_prefix (&err, "%s", where);
    assert_int_equal (strlen (err.text), 300 + 2 + 3);
    assert_int_equal (strspn (err.text, "w"), 300);
    assert_string_equal (err.text + 300, ": bad");
    free (where);
}

/* CCAS_BUG logs, says where on stderr and aborts: in a child, whose stderr
 * comes back through a pipe. */
static void test_bug_aborts (void **state)
{
    (void)state;
    int fds[2];
    assert_int_equal (pipe (fds), 0);
    pid_t pid = fork ();
    assert_true (pid >= 0);
    if (pid == 0) {
        dup2 (fds[1], 2);
        close (fds[0]);
        signal (SIGABRT, SIG_DFL);
        CCAS_BUG ("impossible state %d", 42);
    }
    close (fds[1]);
    char buf[512] = "";
    size_t n = 0;
    ssize_t r;
    while (n < sizeof (buf) - 1 && (r = read (fds[0], buf + n, sizeof (buf) - 1 - n)) > 0)
        n += (size_t)r;
    buf[n] = '\0';
    close (fds[0]);
    int status = 0;
    assert_int_equal (waitpid (pid, &status, 0), pid);
    assert_true (WIFSIGNALED (status));
    assert_int_equal (WTERMSIG (status), SIGABRT);
    assert_non_null (strstr (buf, "BUG at "));
    assert_non_null (strstr (buf, "test_error.c:"));
    assert_non_null (strstr (buf, "impossible state 42"));
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_null_error),        cmocka_unit_test (test_fill_keeps_errno),
        cmocka_unit_test (test_truncation_marked), cmocka_unit_test (test_prefix),
        cmocka_unit_test (test_prefix_truncation), cmocka_unit_test (test_bug_aborts),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
