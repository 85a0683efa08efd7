/* SPDX-License-Identifier: MIT */
/* test_serve_query.c: the autostop query string — every malformed, missing,
 * repeated, unknown, overlong and non-ASCII form refused with the reason a
 * caller reads; the good forms decoded; the request target split at '?'. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "serve_query.h"

struct bad {
    const char *query; /* NULL: no '?' at all */
    const char *error; /* a part of the message */
};

static const struct bad bad_queries[] = {
    {NULL, "missing 'instance'"},
    {"", "missing 'instance'"},
    {"&&&", "missing 'instance'"},
    {"instance", "'instance' has no value"},
    {"instance=", "'instance' is empty"},
    {"instance=&node=x", "'instance' is empty"},
    {"=x", "a parameter has no name"},
    {"instance=a&instance=a", "'instance' given twice"},
    {"instance=a&instance=b", "'instance' given twice"},
    {"node=a&node=b", "'node' given twice"},
    {"instance=a&node=b", "give instance or node, not both"},
    {"instance=%zz", "malformed percent escape in 'instance'"},
    {"instance=%4", "malformed percent escape in 'instance'"},
    {"instance=abc%", "malformed percent escape in 'instance'"},
    {"instance=%%41", "malformed percent escape in 'instance'"},
    {"inst%zzance=a", "malformed percent escape in parameter name 'inst%zzance'"},
    {"instance=a%00b", "'instance' holds a byte that is not printable ASCII"},
    {"instance=a%0Ab", "'instance' holds a byte that is not printable ASCII"},
    {"instance=%7f", "'instance' holds a byte that is not printable ASCII"},
    {"instance=%C3%A9", "'instance' holds a byte that is not printable ASCII"},
    {"instance=a b", "the query holds a character a URL may not (byte 11)"},
    {"instance=a\"b", "the query holds a character a URL may not"},
    {"instance=<x>", "the query holds a character a URL may not"},
    {"instance=a#frag", "the query holds a character a URL may not"},
    {"instance=\x01", "the query holds a character a URL may not"},
    {"instance=\xc3\xa9", "the query holds a character a URL may not"},
    {"instance=a&verbose=1", "unknown parameter 'verbose'"},
    {"Instance=a", "unknown parameter 'Instance'"},
    {"id=a", "unknown parameter 'id' (give instance=ID or node=NAME)"},
    {"%00=a", "unknown parameter '%00'"},
    {"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa=1",
     "unknown parameter 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...'"},
};

static void test_bad (void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof (bad_queries) / sizeof (bad_queries[0]); i++) {
        const struct bad *b = &bad_queries[i];
        struct ccas_error err = {""};
        struct serve_query q;
        int rc = serve_query_parse (b->query, b->query ? strlen (b->query) : 0, &q, &err);
        if (rc != -1 || !strstr (err.text, b->error))
            fail_msg ("query '%s': rc %d, error '%s', wanted '%s'", b->query ? b->query : "(none)", rc,
                      err.text, b->error);
    }
}

static void test_too_long (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct serve_query q;
    char query[3 * SERVE_QUERY_VALUE_MAX + 64];
    /* SERVE_QUERY_VALUE_MAX decoded bytes fit, one more does not, however it is spelt */
    strcpy (query, "instance=");
    memset (query + 9, 'x', SERVE_QUERY_VALUE_MAX);
    query[9 + SERVE_QUERY_VALUE_MAX] = '\0';
    assert_int_equal (serve_query_parse (query, strlen (query), &q, &err), 0);
    assert_int_equal (strlen (q.instance), SERVE_QUERY_VALUE_MAX);
    strcat (query, "x");
    assert_int_equal (serve_query_parse (query, strlen (query), &q, &err), -1);
    assert_non_null (strstr (err.text, "'instance' is longer than 1024 bytes"));
    strcpy (query, "node=");
    for (int i = 0; i <= SERVE_QUERY_VALUE_MAX; i++)
        strcat (query, "%41");
    assert_int_equal (serve_query_parse (query, strlen (query), &q, &err), -1);
    assert_non_null (strstr (err.text, "'node' is longer than 1024 bytes"));
}

static void test_good (void **state)
{
    (void)state;
    static const struct {
        const char *query, *instance, *node;
    } good[] = {
        {"instance=abc", "abc", ""},
        {"node=htc-3", "", "htc-3"},
        {"instance=/subscriptions/sim/vm/0a1b-2c", "/subscriptions/sim/vm/0a1b-2c", ""},
        {"instance=%2Fsubscriptions%2fsim", "/subscriptions/sim", ""},
        {"instance=a+b", "a+b", ""}, /* not a form: a plus is a plus */
        {"instance=a%20b", "a b", ""},
        {"instance=x=y", "x=y", ""},
        {"&instance=a&", "a", ""},
        {"%69nstance=a", "a", ""},
        {"node=htc-3&&", "", "htc-3"},
        {"instance=a:b@c?d!$'()*,;~", "a:b@c?d!$'()*,;~", ""},
    };
    for (size_t i = 0; i < sizeof (good) / sizeof (good[0]); i++) {
        struct ccas_error err = {""};
        struct serve_query q;
        if (serve_query_parse (good[i].query, strlen (good[i].query), &q, &err) != 0)
            fail_msg ("query '%s' refused: %s", good[i].query, err.text);
        assert_string_equal (q.instance, good[i].instance);
        assert_string_equal (q.node, good[i].node);
    }
}

/* the parser reads exactly `len` bytes: what follows is not part of the query */
static void test_length_bounded (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct serve_query q;
    const char *text = "instance=abc&instance=def";
    assert_int_equal (serve_query_parse (text, 12, &q, &err), 0);
    assert_string_equal (q.instance, "abc");
    assert_int_equal (serve_query_parse (text, 10, &q, &err), 0);
    assert_string_equal (q.instance, "a");
}

static void test_split (void **state)
{
    (void)state;
    const char *path, *query;
    size_t plen, qlen;
    const char *t = "/autostop?instance=a?b";
    serve_query_split (t, strlen (t), &path, &plen, &query, &qlen);
    assert_int_equal (plen, 9);
    assert_memory_equal (path, "/autostop", 9);
    assert_int_equal (qlen, 12);
    assert_memory_equal (query, "instance=a?b", 12);
    serve_query_split ("/healthz", 8, &path, &plen, &query, &qlen);
    assert_int_equal (plen, 8);
    assert_null (query);
    assert_int_equal (qlen, 0);
    serve_query_split ("/autostop?", 10, &path, &plen, &query, &qlen);
    assert_int_equal (plen, 9);
    assert_non_null (query);
    assert_int_equal (qlen, 0);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_bad),   cmocka_unit_test (test_too_long),
        cmocka_unit_test (test_good),  cmocka_unit_test (test_length_bounded),
        cmocka_unit_test (test_split),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
