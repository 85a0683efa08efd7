/* SPDX-License-Identifier: MIT */
/* test_json.c: parsing with located errors (file:line:col, HTML pages and
 * truncation called that), arrays streamed one element at a time, lenient
 * getters for server records and strict ones whose errors name the path. */
#include "config.h"

#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "util/json.h"

/* ---- parsing ------------------------------------------------------------------------------ */

static void test_parse_refuses (void **state)
{
    static const struct {
        const char *text;
        const char *want; /* the whole message */
    } cases[] = {
        {"", "r: empty, expected JSON"},
        {"<html><body>502</body></html>", "r: got an HTML page, expected JSON"},
        {"  \n <!DOCTYPE html>", "r: got an HTML page, expected JSON"},
        {"{\"a\": [1, 2", "r: truncated JSON (ended after 11 bytes)"},
        {"   ", "r: truncated JSON (ended after 3 bytes)"},
        {"{\"a\": 1}\n x", "r:2:2: unexpected text after the JSON value"},
        {"{\"a\": 1} {}", "r:1:10: unexpected text after the JSON value"},
        {"{\"a\":\n\n  nope}", "r:3:"},
        {"{\"a\" 1}", "r:1:6: invalid JSON: "},
    };
    (void)state;
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        struct ccas_error err = {""};
        json_object *o = ccas_json_parse (cases[i].text, strlen (cases[i].text), "r", &err);
        if (o)
            fail_msg ("case %zu was accepted", i);
        if (strncmp (err.text, cases[i].want, strlen (cases[i].want)) != 0)
            fail_msg ("case %zu: '%s', want '%s'", i, err.text, cases[i].want);
        assert_null (ccas_json_parse (cases[i].text, strlen (cases[i].text), "r", NULL));
    }
    struct ccas_error err = {""};
    assert_null (ccas_json_parse (NULL, 0, "r", &err));
    assert_string_equal (err.text, "r: empty, expected JSON");
}

/* Moved from test_ccapi_parse.c: a response's errors say where. */
static void test_parse_located_errors (void **state)
{
    struct ccas_error err = {""};
    (void)state;
    assert_null (ccas_json_parse ("{\"a\": [1, 2", 11, "response", &err));
    assert_non_null (strstr (err.text, "truncated"));
    assert_null (ccas_json_parse ("<html><body>502</body></html>", 29, "response", &err));
    assert_non_null (strstr (err.text, "HTML"));
    assert_null (ccas_json_parse ("{\"a\": 1}\n x", 11, "response", &err));
    assert_non_null (strstr (err.text, "response:2:2"));
}

static void test_parse_values (void **state)
{
    static const struct {
        const char *text;
        size_t len; /* 0: strlen */
        json_type type;
    } cases[] = {
        {"{}", 0, json_type_object},
        {" [1, 2] \n", 0, json_type_array},
        {"\"s\"", 0, json_type_string},
        {"true", 0, json_type_boolean},
        {"{\"a\": 1}garbage", 8, json_type_object}, /* only `len` bytes count */
    };
    (void)state;
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        struct ccas_error err = {""};
        size_t len = cases[i].len ? cases[i].len : strlen (cases[i].text);
        json_object *o = ccas_json_parse (cases[i].text, len, "r", &err);
        if (!o)
            fail_msg ("case %zu: %s", i, err.text);
        assert_int_equal (json_object_get_type (o), cases[i].type);
        json_object_put (o);
    }
}

static void test_load_file (void **state)
{
    (void)state;
    char dir[] = "/tmp/ccas-test-json.XXXXXX", path[128];
    struct ccas_error err = {""};
    assert_non_null (mkdtemp (dir));
    snprintf (path, sizeof (path), "%s/c.json", dir);

    assert_null (ccas_json_load_file (path, 100, &err));
    assert_non_null (strstr (err.text, "No such file or directory"));
    FILE *f = fopen (path, "w");
    assert_non_null (f);
    fputs ("{\n  \"a\": 1,\n  \"b\": }\n", f);
    fclose (f);
    assert_null (ccas_json_load_file (path, 100, &err));
    char want[160];
    snprintf (want, sizeof (want), "%s:3:8: invalid JSON", path);
    assert_true (strncmp (err.text, want, strlen (want)) == 0);
    assert_null (ccas_json_load_file (path, 5, &err));
    assert_non_null (strstr (err.text, "too large"));

    f = fopen (path, "w");
    assert_non_null (f);
    fputs ("{\"a\": [1, 2, 3]}\n", f);
    fclose (f);
    json_object *o = ccas_json_load_file (path, 100, &err);
    assert_non_null (o);
    assert_int_equal (json_object_array_length (ccas_json_get (o, "a")), 3);
    json_object_put (o);
    unlink (path);
    rmdir (dir);
}

/* ---- streaming arrays -------------------------------------------------------------------- */

struct collected {
    char text[512];
    size_t calls;
    size_t stop_at; /* return -1 at this index (SIZE_MAX: never) */
};

static int collect (json_object *elem, size_t index, void *arg)
{
    struct collected *c = arg;
    size_t n = strlen (c->text);
    assert_int_equal (index, c->calls); /* in order, each once */
    c->calls++;
    snprintf (c->text + n, sizeof (c->text) - n, "%s%s", n ? "|" : "",
              json_object_to_json_string_ext (elem, JSON_C_TO_STRING_PLAIN));
    return index == c->stop_at ? -1 : 0;
}

static void test_array_each_refuses (void **state)
{
    static const struct {
        const char *text;
        const char *want;
        size_t calls; /* elements seen before the error */
    } cases[] = {
        {"", "a: empty, expected JSON", 0},
        {" \n ", "a: empty, expected JSON", 0},
        {"<html>", "a: got an HTML page, expected JSON", 0},
        {"{\"a\": 1}", "a:1:1: expected an array ('[')", 0},
        {"\n  42", "a:2:3: expected an array ('[')", 0},
        {"[1, 2", "a: truncated JSON (ended after 5 bytes)", 1},
        {"[1, 2,", "a: truncated JSON (ended after 6 bytes)", 2},
        {"[1 2]", "a:1:4: expected ',' or ']' after an array element", 1},
        {"[1,]", "a:1:4: ", 1},
        {"[1, {\"x\": }]", "a:1:11: ", 1},
        {"[1]\n x", "a:2:2: unexpected text after the JSON value", 1},
        {"[] x", "a:1:4: unexpected text after the JSON value", 0},
        {"[\n{\"a\": 1},\n{\"a\" 2}\n]", "a:3:6: ", 1},
        {"[{\"a\": [1, 2]}", "a: truncated JSON", 1},
    };
    (void)state;
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        struct collected c = {.stop_at = SIZE_MAX};
        struct ccas_error err = {""};
        int rc = ccas_json_array_each (cases[i].text, strlen (cases[i].text), "a", collect, &c, &err);
        if (rc != -1)
            fail_msg ("case %zu was accepted", i);
        if (strncmp (err.text, cases[i].want, strlen (cases[i].want)) != 0)
            fail_msg ("case %zu: '%s', want '%s'", i, err.text, cases[i].want);
        assert_int_equal (c.calls, cases[i].calls);
    }
    struct collected c = {.stop_at = SIZE_MAX};
    assert_int_equal (ccas_json_array_each (NULL, 0, "a", collect, &c, NULL), -1);
    assert_int_equal (c.calls, 0);
}

static void test_array_each_streams (void **state)
{
    static const struct {
        const char *text;
        const char *want; /* the elements seen, '|'-separated */
    } cases[] = {
        {"[]", ""},
        {" [ ] \n", ""},
        {"[1]", "1"},
        {"[1,2,3]", "1|2|3"},
        {" [ \"a,b\" , [1, [2]] ,{\"k\": \"]\"}, null, true ]\n", "\"a,b\"|[1,[2]]|{\"k\":\"]\"}|null|true"},
        {"[\n  {\"id\": 1},\n  {\"id\": 2}\n]\n", "{\"id\":1}|{\"id\":2}"},
        {"[1.5e3, -2]", "1.5e3|-2"},
    };
    (void)state;
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        struct collected c = {.stop_at = SIZE_MAX};
        struct ccas_error err = {""};
        if (ccas_json_array_each (cases[i].text, strlen (cases[i].text), "a", collect, &c, &err) != 0)
            fail_msg ("case %zu: %s", i, err.text);
        assert_string_equal (c.text, cases[i].want);
        assert_string_equal (err.text, "");
    }
}

/* The callback stops the walk: nothing after it is seen, its error stands. */
static int stop_with_error (json_object *elem, size_t index, void *arg)
{
    (void)elem;
    size_t *calls = arg;
    (*calls)++;
    return index == 1 ? -1 : 0;
}

static int count_in_order (json_object *elem, size_t index, void *arg)
{
    size_t *calls = arg;
    assert_int_equal (ccas_json_int (elem, "i", -1), (int64_t)index);
    (*calls)++;
    return 0;
}

static void test_array_each_stops (void **state)
{
    (void)state;
    size_t calls = 0;
    struct ccas_error err = {"the callback's own"};
    const char *text = "[1, 2, 3, {\"never\": parsed}]";
    assert_int_equal (ccas_json_array_each (text, strlen (text), "a", stop_with_error, &calls, &err), -1);
    assert_int_equal (calls, 2);
    assert_string_equal (err.text, "the callback's own");

    /* a large array: each element made and freed in turn (valgrind sees no leak) */
    size_t n = 20000, cap = n * 16 + 16, len = 0;
    char *big = malloc (cap);
    assert_non_null (big);
    len += (size_t)snprintf (big + len, cap - len, "[");
    for (size_t i = 0; i < n; i++)
        len += (size_t)snprintf (big + len, cap - len, "%s{\"i\": %zu}", i ? "," : "", i);
    len += (size_t)snprintf (big + len, cap - len, "]");
    calls = 0;
    assert_int_equal (ccas_json_array_each (big, len, "a", count_in_order, &calls, &err), 0);
    assert_int_equal (calls, n);
    free (big);
}

/* ---- lenient getters ------------------------------------------------------------------------ */

static void test_get (void **state)
{
    (void)state;
    json_object *o = json_tokener_parse ("{\"s\": \"x\", \"n\": null, \"o\": {\"k\": 1}}");
    assert_null (ccas_json_get (NULL, "s"));
    json_object *num = json_object_new_int (3);
    assert_null (ccas_json_get (num, "s")); /* not an object */
    json_object_put (num);
    assert_null (ccas_json_get (o, "absent"));
    assert_null (ccas_json_get (o, "n")); /* null reads as absent */
    assert_non_null (ccas_json_get (o, "o"));
    assert_string_equal (ccas_json_str (o, "s"), "x");
    assert_null (ccas_json_str (o, "o"));
    assert_null (ccas_json_str (NULL, "s"));
    json_object_put (o);
}

static void test_lenient_readers (void **state)
{
    static const struct {
        const char *json; /* {"v": ...} member */
        int64_t i;        /* ccas_json_int with default -7 */
        double d;         /* ccas_json_double with default -7.5 */
        int b;            /* ccas_json_bool with default true: 1/0 */
    } cases[] = {
        {"{}", -7, -7.5, 1},
        {"{\"v\": null}", -7, -7.5, 1},
        {"{\"v\": 12}", 12, 12, 1},
        {"{\"v\": 12.9}", 12, 12.9, 1},
        {"{\"v\": -3}", -3, -3, 1},
        {"{\"v\": \"42\"}", 42, 42, 1},
        {"{\"v\": \"4.5\"}", -7, 4.5, 1},
        {"{\"v\": \"42x\"}", -7, -7.5, 1},
        {"{\"v\": \"\"}", -7, -7.5, 1},
        {"{\"v\": \"99999999999999999999\"}", -7, 1e20, 1},
        {"{\"v\": 1e20}", INT64_MAX, 1e20, 1},
        {"{\"v\": -1e20}", INT64_MIN, -1e20, 1},
        {"{\"v\": true}", -7, -7.5, 1},
        {"{\"v\": false}", -7, -7.5, 0},
        {"{\"v\": \"FALSE\"}", -7, -7.5, 0},
        {"{\"v\": \"True\"}", -7, -7.5, 1},
        {"{\"v\": \"no\"}", -7, -7.5, 1},
        {"{\"v\": [1]}", -7, -7.5, 1},
        {"{\"v\": {}}", -7, -7.5, 1},
    };
    (void)state;
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        json_object *o = json_tokener_parse (cases[i].json);
        assert_non_null (o);
        if (ccas_json_int (o, "v", -7) != cases[i].i)
            fail_msg ("case %zu: int %lld", i, (long long)ccas_json_int (o, "v", -7));
        if (ccas_json_double (o, "v", -7.5) != cases[i].d)
            fail_msg ("case %zu: double %g", i, ccas_json_double (o, "v", -7.5));
        assert_int_equal (ccas_json_bool (o, "v", true), cases[i].b);
        json_object_put (o);
    }
    assert_int_equal (ccas_json_int (NULL, "v", 5), 5);
    assert_true (ccas_json_double (NULL, "v", 2.5) == 2.5);
    assert_false (ccas_json_bool (NULL, "v", false));
}

static void test_double_to_int64 (void **state)
{
    static const struct {
        double d;
        int64_t want;
    } cases[] = {
        {NAN, 0},
        {INFINITY, INT64_MAX},
        {-INFINITY, INT64_MIN},
        {1e20, INT64_MAX},
        {-1e20, INT64_MIN},
        {9223372036854775807.0, INT64_MAX}, /* 2^63 after rounding */
        {-9223372036854775808.0, INT64_MIN},
        {12.7, 12},
        {-12.7, -12},
        {0, 0},
        {4503599627370496.0, 4503599627370496LL},
    };
    (void)state;
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++)
        if (ccas_double_to_int64 (cases[i].d) != cases[i].want)
            fail_msg ("case %zu: %lld", i, (long long)ccas_double_to_int64 (cases[i].d));
}

/* ---- strict getters ------------------------------------------------------------------------- */

enum getter { G_STR, G_INT, G_DOUBLE, G_BOOL };

static int get (enum getter g, json_object *o, const char *path, struct ccas_error *err, char *out,
                size_t size)
{
    const char *s = "untouched";
    int64_t i = -99;
    double d = -99.5;
    bool b = false;
    int rc = -2;
    switch (g) {
    case G_STR:
        rc = ccas_json_get_str (o, path, "v", &s, err);
        snprintf (out, size, "%s", s);
        break;
    case G_INT:
        rc = ccas_json_get_int (o, path, "v", &i, err);
        snprintf (out, size, "%lld", (long long)i);
        break;
    case G_DOUBLE:
        rc = ccas_json_get_double (o, path, "v", &d, err);
        snprintf (out, size, "%g", d);
        break;
    case G_BOOL:
        rc = ccas_json_get_bool (o, path, "v", &b, err);
        snprintf (out, size, "%s", b ? "true" : "false");
        break;
    }
    return rc;
}

static void test_strict_getters (void **state)
{
    static const struct {
        enum getter g;
        const char *json;
        const char *path;
        int rc;
        const char *want; /* the value read, or the error */
    } cases[] = {
        /* wrong types: -1, the error names the path and shows the value */
        {G_STR, "{\"v\": 3}", "a.b", -1, "a.b.v: expected a string, got 3"},
        {G_STR, "{\"v\": [1, 2]}", NULL, -1, "v: expected a string, got [1,2]"},
        {G_INT, "{\"v\": \"3\"}", "x[2]", -1, "x[2].v: expected an integer, got \"3\""},
        {G_INT, "{\"v\": 2.5}", "", -1, "v: expected an integer, got 2.5"},
        {G_INT, "{\"v\": 1e20}", "p", -1, "p.v: expected an integer, got 1e20"},
        {G_INT, "{\"v\": true}", "p", -1, "p.v: expected an integer, got true"},
        {G_DOUBLE, "{\"v\": \"1.5\"}", "p", -1, "p.v: expected a number, got \"1.5\""},
        {G_BOOL, "{\"v\": 1}", "p", -1, "p.v: expected true or false, got 1"},
        {G_BOOL, "{\"v\": \"true\"}", "p", -1, "p.v: expected true or false, got \"true\""},
        /* absent or null: 0, nothing stored */
        {G_STR, "{}", "p", 0, "untouched"},
        {G_INT, "{\"v\": null}", "p", 0, "-99"},
        {G_DOUBLE, "{}", "p", 0, "-99.5"},
        {G_BOOL, "{\"v\": null}", "p", 0, "false"},
        /* present: 1 and the value */
        {G_STR, "{\"v\": \"hello\"}", "p", 1, "hello"},
        {G_INT, "{\"v\": -42}", "p", 1, "-42"},
        {G_INT, "{\"v\": 12.0}", "p", 1, "12"},
        {G_INT, "{\"v\": 9007199254740992}", "p", 1, "9007199254740992"},
        {G_DOUBLE, "{\"v\": 7}", "p", 1, "7"},
        {G_DOUBLE, "{\"v\": 0.25}", "p", 1, "0.25"},
        {G_BOOL, "{\"v\": true}", "p", 1, "true"},
    };
    (void)state;
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        struct ccas_error err = {""};
        char out[64];
        json_object *o = json_tokener_parse (cases[i].json);
        assert_non_null (o);
        int rc = get (cases[i].g, o, cases[i].path, &err, out, sizeof (out));
        if (rc != cases[i].rc)
            fail_msg ("case %zu: rc %d, want %d (%s)", i, rc, cases[i].rc, err.text);
        if (rc < 0) {
            if (strcmp (err.text, cases[i].want) != 0)
                fail_msg ("case %zu: '%s', want '%s'", i, err.text, cases[i].want);
            assert_int_equal (get (cases[i].g, o, cases[i].path, NULL, out, sizeof (out)), -1);
        } else {
            assert_string_equal (err.text, "");
            if (strcmp (out, cases[i].want) != 0)
                fail_msg ("case %zu: read '%s', want '%s'", i, out, cases[i].want);
        }
        json_object_put (o);
    }
    char out[64];
    assert_int_equal (get (G_INT, NULL, "p", NULL, out, sizeof (out)), 0);
}

/* ---- describing ------------------------------------------------------------------------------- */

static void test_type_name_and_brief (void **state)
{
    static const struct {
        const char *json;
        const char *type;
    } cases[] = {
        {"1", "a number"},     {"1.5", "a number"}, {"\"s\"", "a string"},
        {"true", "a boolean"}, {"[]", "an array"},  {"{}", "an object"},
    };
    (void)state;
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        json_object *o = json_tokener_parse (cases[i].json);
        assert_string_equal (ccas_json_type_name (o), cases[i].type);
        json_object_put (o);
    }
    assert_string_equal (ccas_json_type_name (NULL), "null");

    char buf[64];
    json_object *s = json_object_new_string ("a/b");
    assert_string_equal (ccas_json_brief (s, buf, sizeof (buf)), "\"a/b\""); /* no \/ */
    json_object_put (s);
    char longer[200];
    memset (longer, 'x', sizeof (longer) - 1);
    longer[sizeof (longer) - 1] = '\0';
    s = json_object_new_string (longer);
    ccas_json_brief (s, buf, sizeof (buf));
    assert_int_equal (strlen (buf), sizeof (buf) - 1);
    assert_string_equal (buf + sizeof (buf) - 4, "...");
    assert_int_equal (buf[0], '"');
    char tiny[4] = "zzz";
    ccas_json_brief (s, tiny, sizeof (tiny));
    assert_string_equal (tiny, "");
    ccas_json_brief (s, tiny, 0); /* nothing written */
    json_object_put (s);
    assert_string_equal (ccas_json_brief (NULL, buf, sizeof (buf)), "null");
}

/* The first unknown member, in the document's order; none, or not an object. */
static void test_unknown_key (void **state)
{
    (void)state;
    static const char *const known[] = {"a", "b", NULL};
    json_object *o = json_tokener_parse ("{\"a\": 1, \"c\": 2, \"b\": 3, \"d\": 4}");
    assert_string_equal (ccas_json_unknown_key (o, known), "c");
    json_object_object_del (o, "c");
    assert_string_equal (ccas_json_unknown_key (o, known), "d");
    json_object_object_del (o, "d");
    assert_null (ccas_json_unknown_key (o, known));
    json_object_put (o);
    o = json_tokener_parse ("[\"c\"]");
    assert_null (ccas_json_unknown_key (o, known));
    json_object_put (o);
    assert_null (ccas_json_unknown_key (NULL, known));
}

static void test_paths (void **state)
{
    static const struct {
        const char *path, *key;
        size_t index;
        const char *want_key, *want_index;
    } cases[] = {
        {"a.b", "c", 3, "a.b.c", "a.b[3]"},
        {"", "c", 0, "c", "[0]"},
        {NULL, "c", 12, "c", "[12]"},
        {"jobs[2]", "node_count", 1, "jobs[2].node_count", "jobs[2][1]"},
    };
    (void)state;
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        char buf[64];
        ccas_json_path_key (buf, sizeof (buf), cases[i].path, cases[i].key);
        assert_string_equal (buf, cases[i].want_key);
        ccas_json_path_index (buf, sizeof (buf), cases[i].path, cases[i].index);
        assert_string_equal (buf, cases[i].want_index);
    }
    char small[6];
    ccas_json_path_key (small, sizeof (small), "abcdef", "g");
    assert_string_equal (small, "abcde");
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_parse_refuses),      cmocka_unit_test (test_parse_located_errors),
        cmocka_unit_test (test_parse_values),       cmocka_unit_test (test_load_file),
        cmocka_unit_test (test_array_each_refuses), cmocka_unit_test (test_array_each_streams),
        cmocka_unit_test (test_array_each_stops),   cmocka_unit_test (test_get),
        cmocka_unit_test (test_lenient_readers),    cmocka_unit_test (test_double_to_int64),
        cmocka_unit_test (test_strict_getters),     cmocka_unit_test (test_type_name_and_brief),
        cmocka_unit_test (test_unknown_key),        cmocka_unit_test (test_paths),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
