/* SPDX-License-Identifier: MIT */
/* test_pbs_json.c: PBS's JSON (pbs_json.c) — the quotes older PBS does not
 * escape, warnings before the document, an entry that cannot be repaired
 * left out and named, OpenPBS's tabs and typed values (real captures
 * included), the streamed scan, and documents that are not JSON at all. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fixture.h"
#include "pbs_json.h"
#include "util/json.h"

static void test_json_repair (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct skips s = {0, ""};
    size_t len;
    char *text = pf_text ("qstat-quirks.txt", &len);
    json_object *o = ccas_pbs_json_parse (text, len, "qstat", "Jobs", note_skip, &s, &err);
    assert_non_null (o);
    json_object *jobs = ccas_json_get (o, "Jobs");
    assert_string_equal (ccas_json_str (ccas_json_get (jobs, "1.srv"), "pset"), "group_id=\"\"");
    assert_string_equal (ccas_json_str (ccas_json_get (jobs, "1.srv"), "path"), "C:\\data");
    /* the entry that cannot be repaired is left out, named, and the others kept */
    assert_int_equal (s.n, 1);
    assert_string_equal (s.last, "2.srv");
    assert_null (ccas_json_get (jobs, "2.srv"));
    assert_string_equal (ccas_json_str (ccas_json_get (jobs, "3.srv"), "job_state"), "R");
    json_object_put (o);
    free (text);
}

static void test_json_garbage (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    static const char *const docs[] = {"",    "qstat: cannot connect to server\n", "{\"Jobs\":{\"1\":{}}",
                                       "{]}", "{\"Jobs\": {\"1\": {}} \"x\": 1}",  "{\"Jobs\": {1: {}}}"};
    for (size_t i = 0; i < sizeof (docs) / sizeof (docs[0]); i++) {
        err.text[0] = '\0';
        assert_null (ccas_pbs_json_parse (docs[i], strlen (docs[i]), "qstat", "Jobs", NULL, NULL, &err));
        assert_non_null (strstr (err.text, "qstat: "));
    }
    /* what is wrong, and where */
    assert_null (ccas_pbs_json_parse ("oops", 4, "pbsnodes", "nodes", NULL, NULL, &err));
    assert_string_equal (err.text, "pbsnodes: no JSON object in the output (4 bytes)");
    static const char cut[] = "warning\n{\"nodes\": {\"a\": {}}";
    assert_null (ccas_pbs_json_parse (cut, strlen (cut), "pbsnodes", "nodes", NULL, NULL, &err));
    assert_string_equal (err.text,
                         "pbsnodes: not valid JSON at byte 27: unexpected end of input (expected '}')");
}

/* The section's name again, as a plain value between two sections: last
 * wins, and the first section is not touched once the document freed it. */
static void test_json_section_replaced (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    static const char doc[] =
        "{\"nodes\": {\"a\": {}}, \"nodes\": \"x\", \"nodes\": {\"b\": {\"state\": \"free\"}}}";
    json_object *o = ccas_pbs_json_parse (doc, strlen (doc), "pbsnodes", "nodes", NULL, NULL, &err);
    assert_non_null (o);
    json_object *nodes = ccas_json_get (o, "nodes");
    assert_true (json_object_is_type (nodes, json_type_object));
    assert_null (ccas_json_get (nodes, "a"));
    assert_string_equal (ccas_json_str (ccas_json_get (nodes, "b"), "state"), "free");
    json_object_put (o);
}

/* OpenPBS writes a tab after the colon and prints values that parse as JSON
 * typed: the quote repair still engages, and a number or boolean is read as
 * the text PBS printed. */
static void test_json_openpbs (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    size_t len;
    char *doc = pf_text ("pbsnodes-tabs-quotes.txt", &len);
    json_object *o = ccas_pbs_json_parse (doc, len, "pbsnodes", "nodes", NULL, NULL, &err);
    assert_non_null (o);
    json_object *n1 = ccas_json_get (ccas_json_get (o, "nodes"), "n1");
    assert_string_equal (ccas_pbs_json_text (n1, "comment"), "say \"hi\"");
    json_object *avail = ccas_json_get (n1, "resources_available");
    assert_string_equal (ccas_pbs_json_text (avail, "ccnodeid"), "1e5");
    assert_string_equal (ccas_pbs_json_text (avail, "group_id"), "123");
    assert_string_equal (ccas_pbs_json_text (avail, "ungrouped"), "true");
    assert_null (ccas_pbs_json_text (avail, "slot_type"));
    assert_null (ccas_pbs_json_text (n1, "resources_available"));
    json_object_put (o);
    free (doc);
}

/* A real OpenPBS's typed values, as pbsnodes printed them for resources set
 * to "123", "null", "[1,2]" and "100000" by qmgr. */
static void test_json_openpbs_capture (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    size_t len;
    char *doc = pf_text ("openpbs/pbsnodes-quirks.json", &len);
    json_object *o = ccas_pbs_json_parse (doc, len, "pbsnodes", "nodes", NULL, NULL, &err);
    assert_non_null (o);
    assert_string_equal (ccas_pbs_json_text (o, "pbs_version"), "23.06.06");
    assert_string_equal (ccas_pbs_json_text (o, "timestamp"), "1795658608");
    json_object *p = ccas_json_get (ccas_json_get (o, "nodes"), "probe1");
    assert_string_equal (ccas_pbs_json_text (p, "state"), "state-unknown,down");
    assert_string_equal (ccas_pbs_json_text (p, "Port"), "15002");
    json_object *avail = ccas_json_get (p, "resources_available");
    assert_string_equal (ccas_pbs_json_text (avail, "group_id"), "123");
    assert_string_equal (ccas_pbs_json_text (avail, "instance_id"), "{\\a\\:1}");
    assert_null (ccas_pbs_json_text (avail, "nodearray")); /* an array is no text */
    assert_null (ccas_pbs_json_text (avail, "slot_type"));
    assert_string_equal (ccas_pbs_json_text (avail, "ungrouped"), "False");
    assert_string_equal (ccas_pbs_json_text (avail, "vm_size"), "100000");
    assert_int_equal (json_object_object_length (ccas_json_get (p, "resources_assigned")), 0);
    json_object_put (o);
    free (doc);

    /* no jobs: PBS prints no Jobs at all */
    doc = pf_text ("openpbs/qstat-empty.json", &len);
    o = ccas_pbs_json_parse (doc, len, "qstat", "Jobs", NULL, NULL, &err);
    assert_non_null (o);
    assert_null (ccas_json_get (o, "Jobs"));
    assert_string_equal (ccas_pbs_json_text (o, "pbs_server"), "vm");
    json_object_put (o);
    free (doc);
}

/* ccas_pbs_json_text() on what is not there, or not text. */
static void test_json_text (void **state)
{
    (void)state;
    json_object *o = json_tokener_parse ("{\"s\": \"x\", \"i\": -3, \"d\": 2.5, \"b\": false, \"n\": null,"
                                         " \"o\": {}, \"a\": []}");
    assert_string_equal (ccas_pbs_json_text (o, "s"), "x");
    assert_string_equal (ccas_pbs_json_text (o, "i"), "-3");
    assert_string_equal (ccas_pbs_json_text (o, "d"), "2.5");
    assert_string_equal (ccas_pbs_json_text (o, "b"), "false");
    assert_null (ccas_pbs_json_text (o, "n"));
    assert_null (ccas_pbs_json_text (o, "o"));
    assert_null (ccas_pbs_json_text (o, "a"));
    assert_null (ccas_pbs_json_text (o, "missing"));
    assert_null (ccas_pbs_json_text (NULL, "s"));
    assert_null (ccas_pbs_json_text (ccas_json_get (o, "a"), "s"));
    json_object_put (o);
}

/* The streamed scan: every top-level key and every entry of the section, in
 * the document's order; an entry left out comes as NULL after `skipped`; the
 * callback stops the scan with its own error. */
struct seen {
    char keys[512];
    int stop_at; /* the entry that fails, 1-based; 0: none */
    int n;
};

static int see (const char *key, json_object *value, bool in_section, void *arg, struct ccas_error *err)
{
    struct seen *s = arg;
    s->n++;
    snprintf (s->keys + strlen (s->keys), sizeof (s->keys) - strlen (s->keys), "%s%s%s%s",
              s->keys[0] ? " " : "", in_section ? "+" : "", key, value ? "" : "(null)");
    if (s->n == s->stop_at)
        return ccas_errorf (err, "stopped at %s", key);
    return 0;
}

static void test_json_each (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct skips sk = {0, ""};
    struct seen s = {"", 0, 0};
    struct ccas_pbs_scan_cb cb = {"Jobs", see, &s, note_skip, &sk};
    size_t len;
    char *text = pf_text ("qstat-quirks.txt", &len);
    assert_int_equal (ccas_pbs_json_each (text, len, "qstat", &cb, &err), 0);
    assert_string_equal (s.keys, "timestamp +1.srv +2.srv(null) +3.srv");
    assert_int_equal (sk.n, 1);

    /* stopped by the callback: its error, nothing after it */
    struct seen st = {"", 2, 0};
    cb.arg = &st;
    assert_int_equal (ccas_pbs_json_each (text, len, "qstat", &cb, &err), -1);
    assert_string_equal (err.text, "stopped at 1.srv");
    assert_string_equal (st.keys, "timestamp +1.srv");
    free (text);

    /* a value of the section's name that is not an object is a plain key;
     * a number last in the document ends at its closing brace */
    static const char plain[] = "{\"Jobs\": 3, \"timestamp\": 1795658464}";
    struct seen sp = {"", 0, 0};
    cb.arg = &sp;
    assert_int_equal (ccas_pbs_json_each (plain, strlen (plain), "qstat", &cb, &err), 0);
    assert_string_equal (sp.keys, "Jobs timestamp");
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_json_repair),
        cmocka_unit_test (test_json_garbage),
        cmocka_unit_test (test_json_section_replaced),
        cmocka_unit_test (test_json_openpbs),
        cmocka_unit_test (test_json_openpbs_capture),
        cmocka_unit_test (test_json_text),
        cmocka_unit_test (test_json_each),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
