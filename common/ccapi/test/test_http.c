/* SPDX-License-Identifier: MIT */
/* test_http.c: the transport's helpers — Retry-After in both its forms,
 * header lines as libcurl hands them over, full-jitter backoff within its
 * bounds, the message of an error body, URL escaping, and a transport
 * failure that names the server. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ccapi/http.h"
#include "util/clock.h"

/* 2026-11-25 12:00:00 GMT */
#define NOON 1795608000L

static void test_retry_after (void **state)
{
    (void)state;
    assert_int_equal (ccas_http_parse_retry_after ("5", NOON), 5);
    assert_int_equal (ccas_http_parse_retry_after ("0", NOON), 0);
    assert_int_equal (ccas_http_parse_retry_after ("Wed, 25 Nov 2026 12:00:30 GMT", NOON), 30);
    /* a date already past: go now */
    assert_int_equal (ccas_http_parse_retry_after ("Wed, 25 Nov 2026 11:00:00 GMT", NOON), 0);
    const char *bad[] = {"",
                         "-5",
                         "soon",
                         "5 seconds",
                         "5.5",
                         "99999999999999999999",
                         "Wed, 25 Nov 2026 12:00:30",
                         "Wed, 25 Nov 2026 12:00:30 GMT trailing",
                         NULL};
    for (int i = 0; bad[i]; i++)
        assert_int_equal (ccas_http_parse_retry_after (bad[i], NOON), -1);
    assert_int_equal (ccas_http_parse_retry_after (NULL, NOON), -1);
}

static void test_retry_after_more (void **state)
{
    static const struct {
        const char *value;
        long want;
    } cases[] = {
        {"120", 120},
        {"Thu, 26 Nov 2026 12:00:00 GMT", 86400},
        {"Wed, 25 Nov 2026 12:00:00 GMT", 0},  /* now */
        {"wed, 25 nov 2026 12:01:00 GMT", 60}, /* day and month names in any case */
        {"Wed, 25 Nov 2026 12:00:30 UTC", -1}, /* HTTP dates are GMT */
        {"+5", 5},
        {" 5", 5},
        {"5 ", -1},
        {"0x10", -1},
    };
    (void)state;
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++)
        if (ccas_http_parse_retry_after (cases[i].value, NOON) != cases[i].want)
            fail_msg ("'%s': %ld, want %ld", cases[i].value,
                      ccas_http_parse_retry_after (cases[i].value, NOON), cases[i].want);
}

static void test_read_header (void **state)
{
    (void)state;
    long ra = -1;
    char loc[32] = "";
    const char *line = "retry-after:   7  \r\n";
    ccas_http_read_header (line, strlen (line), NOON, &ra, loc, sizeof (loc));
    assert_int_equal (ra, 7);
    line = "Location: /operations/0123456789abcdef0123456789abcdef\r\n";
    ccas_http_read_header (line, strlen (line), NOON, &ra, loc, sizeof (loc));
    assert_string_equal (loc, "/operations/0123456789abcdef012"); /* cut to fit */
    ra = -1;
    const char *ignored[] = {"HTTP/1.1 429 Too Many Requests\r\n", "Retry-After-Not: 5\r\n", "\r\n", NULL};
    for (int i = 0; ignored[i]; i++)
        ccas_http_read_header (ignored[i], strlen (ignored[i]), NOON, &ra, loc, sizeof (loc));
    assert_int_equal (ra, -1);
    /* not terminated: only `n` bytes are read */
    ccas_http_read_header ("Retry-After: 3999", 14, NOON, &ra, loc, sizeof (loc));
    assert_int_equal (ra, 3);
    char huge[600];
    memset (huge, 'x', sizeof (huge));
    memcpy (huge, "Retry-After: 9", 14);
    ccas_http_read_header (huge, sizeof (huge), NOON, &ra, loc, sizeof (loc));
    assert_int_equal (ra, 3);
}

/* A Retry-After that is neither form resets to -1; a date form is read. */
static void test_read_header_values (void **state)
{
    static const struct {
        const char *line;
        long want;
    } cases[] = {
        {"Retry-After: soon\r\n", -1}, {"Retry-After:\r\n", -1},
        {"RETRY-AFTER: 12\r\n", 12},   {"Retry-After: Wed, 25 Nov 2026 12:00:45 GMT\r\n", 45},
        {"Retry-After:\t8\r\n", 8},
    };
    (void)state;
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        long ra = 99;
        char loc[8] = "keep";
        ccas_http_read_header (cases[i].line, strlen (cases[i].line), NOON, &ra, loc, sizeof (loc));
        if (ra != cases[i].want)
            fail_msg ("'%s': %ld, want %ld", cases[i].line, ra, cases[i].want);
        assert_string_equal (loc, "keep");
    }
    /* a line of 511 bytes is read; 512 is not */
    char line[520];
    for (size_t n = 511; n <= 512; n++) {
        long ra = -1;
        char loc[8] = "";
        memset (line, ' ', sizeof (line));
        memcpy (line, "Retry-After: 4", 14);
        ccas_http_read_header (line, n, NOON, &ra, loc, sizeof (loc));
        assert_int_equal (ra, n == 511 ? 4 : -1);
    }
}

/* Every delay lies in [0, min(max, initial * 2^attempt)], and they vary. */
static void test_backoff_bounds (void **state)
{
    static const struct {
        int attempt;
        long initial, max;
        long cap;
    } cases[] = {
        {0, 250, 10000, 250},   {1, 250, 10000, 500},        {3, 250, 10000, 2000},
        {6, 250, 10000, 10000}, {1000, 250, 10000, 10000},   {-3, 250, 10000, 250},
        {2, 0, 10000, 0},       {2, -5, 10000, 0},           {2, 250, 0, 0},
        {2, 250, 100, 100},     {62, 1, 1L << 62, 1L << 62}, {200, 3, 1L << 62, 1L << 62},
    };
    (void)state;
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        long lo = cases[i].cap, hi = 0;
        for (int k = 0; k < 300; k++) {
            long d = ccas_http_backoff_ms (cases[i].attempt, cases[i].initial, cases[i].max);
            if (d < 0 || d > cases[i].cap)
                fail_msg ("case %zu: %ld outside [0, %ld]", i, d, cases[i].cap);
            lo = d < lo ? d : lo;
            hi = d > hi ? d : hi;
        }
        if (cases[i].cap >= 100)
            assert_true (hi > lo); /* jitter, not a fixed delay */
    }
}

static void test_error_message (void **state)
{
    static const struct {
        const char *body;
        size_t size; /* of the buffer */
        const char *want;
    } cases[] = {
        {NULL, 64, ""},
        {"", 64, ""},
        {"{\"Message\": \"Cluster 'x' not found\"}", 64, "Cluster 'x' not found"},
        {"{\"message\": \"lower case\"}", 64, "lower case"},
        {"{\"Detail\": \"from Detail\"}", 64, "from Detail"},
        {"{\"Message\": \"\", \"Detail\": \"empty Message\"}", 64, "empty Message"},
        {"{\"Message\": \"first\", \"Detail\": \"second\"}", 64, "first"},
        {"  \n{\"Message\": \"after space\"}", 64, "after space"},
        {"{\"Message\": 5}", 64, "{\"Message\": 5}"},
        {"<html><body>Bad Gateway</body></html>", 64, "an HTML page instead of JSON"},
        {"   <html>", 64, "an HTML page instead of JSON"},
        {"plain text\nsecond line", 64, "plain text"},
        {"  indented\r\nmore", 64, "indented"},
        {"{not json", 64, "{not json"},
        {"{\"Message\": \"cut to the buffer\"}", 8, "cut to "},
    };
    (void)state;
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        char buf[64];
        const char *b = cases[i].body;
        const char *m = ccas_http_error_message (b, b ? strlen (b) : 0, buf, cases[i].size);
        assert_ptr_equal (m, buf);
        if (strcmp (buf, cases[i].want) != 0)
            fail_msg ("case %zu: '%s', want '%s'", i, buf, cases[i].want);
    }
    /* a long first line: at most 200 bytes of it */
    char body[400], buf[512];
    memset (body, 'e', sizeof (body) - 1);
    body[sizeof (body) - 1] = '\0';
    ccas_http_error_message (body, strlen (body), buf, sizeof (buf));
    assert_int_equal (strlen (buf), 200);
}

static struct ccas_http *make_http (const char *base)
{
    struct ccas_error err = {""};
    struct ccas_http_opts opts = {.base_url = base, .username = "u", .password = "secret-pw"};
    struct ccas_http *h = ccas_http_create (&opts, &err);
    if (!h)
        fail_msg ("%s", err.text);
    return h;
}

static void test_escape (void **state)
{
    static const struct {
        const char *in, *want;
    } cases[] = {
        {"", ""},
        {"hpc", "hpc"},
        {"AZaz09-._~", "AZaz09-._~"},
        {"a b/c?d=e&f", "a%20b%2Fc%3Fd%3De%26f"},
        {"100%", "100%25"},
        {"caf\xc3\xa9", "caf%C3%A9"},
        {"my cluster#1", "my%20cluster%231"},
    };
    (void)state;
    struct ccas_http *h = make_http ("http://127.0.0.1:1");
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        char *e = ccas_http_escape (h, cases[i].in);
        assert_non_null (e);
        assert_string_equal (e, cases[i].want);
        free (e);
    }
    ccas_http_destroy (h);
    ccas_http_destroy (NULL);
}

/* Nothing listens on port 1 of loopback: a transport failure naming the
 * server (its trailing slashes dropped), never the password. */
static void test_transport_failure (void **state)
{
    (void)state;
    struct ccas_http *h = make_http ("http://127.0.0.1:1///");
    struct ccas_http_response resp;
    struct ccas_http_failure fail;
    assert_int_equal (ccas_http_request (h, "GET", "/clusters/x/status", NULL, false, &resp, &fail), -1);
    assert_int_equal (fail.kind, CCAS_FAIL_TRANSPORT);
    assert_false (fail.tls);
    assert_int_equal (fail.http_status, 0);
    assert_int_equal (fail.retry_after_s, -1);
    assert_non_null (strstr (fail.message, "cannot connect to http://127.0.0.1:1:"));
    assert_null (strstr (fail.message, "secret-pw"));
    assert_null (resp.body);
    ccas_http_response_release (&resp);
    ccas_http_response_release (NULL);
    ccas_http_destroy (h);
}

static void test_sleep (void **state)
{
    (void)state;
    double t0 = ccas_clock_monotonic ();
    ccas_http_sleep_ms (0);
    ccas_http_sleep_ms (-100);
    setenv ("CCAS_TEST_NO_SLEEP", "1", 1);
    ccas_http_sleep_ms (5000);
    unsetenv ("CCAS_TEST_NO_SLEEP");
    assert_true (ccas_clock_monotonic () - t0 < 1);
    t0 = ccas_clock_monotonic ();
    ccas_http_sleep_ms (30);
    assert_true (ccas_clock_monotonic () - t0 >= 0.03);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_retry_after),    cmocka_unit_test (test_retry_after_more),
        cmocka_unit_test (test_read_header),    cmocka_unit_test (test_read_header_values),
        cmocka_unit_test (test_backoff_bounds), cmocka_unit_test (test_error_message),
        cmocka_unit_test (test_escape),         cmocka_unit_test (test_transport_failure),
        cmocka_unit_test (test_sleep),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
