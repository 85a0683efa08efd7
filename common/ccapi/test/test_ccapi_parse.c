/* SPDX-License-Identifier: MIT */
/* test_ccapi_parse.c: typed views of status and nodes responses; every bad
 * field is refused with its path, and nothing leaks on the way out; the
 * headers read from an answer (Retry-After in both its forms, Location). */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "ccapi/ccapi.h"
#include "ccapi/http.h"
#include "util/json.h"

static json_object *small_status (void)
{
    struct ccas_error err = {""};
    json_object *o = ccas_json_load_file (CCSIM_CLUSTERS_DIR "/small.json", 1 << 20, &err);
    assert_non_null (o);
    return o;
}

static void test_status_typed (void **state)
{
    struct ccas_error err = {""};
    (void)state;
    struct ccas_status *st = ccas_status_from_json (small_status (), "test", &err);
    assert_non_null (st);
    assert_int_equal (st->nnodearrays, 3);
    assert_string_equal (st->nodearrays[0].name, "htc");
    const struct ccas_bucket_status *b = NULL;
    for (size_t i = 0; i < st->nnodearrays; i++)
        for (size_t j = 0; j < st->nodearrays[i].nbuckets; j++)
            if (strcmp (st->nodearrays[i].buckets[j].machine_type, "Standard_HB120rs_v3") == 0)
                b = &st->nodearrays[i].buckets[j];
    assert_non_null (b);
    assert_int_equal (b->max_pg_size, 4);
    assert_true (b->vm.infiniband);
    assert_non_null (b->raw); /* open fields stay reachable */
    assert_null (st->nodes);
    ccas_status_destroy (st);
}

/* One wrong type per case: the error names the path; no crash, no leak. */
static void test_status_bad_fields (void **state)
{
    static const struct {
        const char *edit; /* a jq-like description, applied below */
        const char *want;
    } cases[] = {
        {"nodearrays", "nodearrays"},
        {"maxCount", "maxCount"},
        {"bucket.maxCount", "maxCount"},
        {"bucket.virtualMachine", "virtualMachine"},
    };
    (void)state;
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        struct ccas_error err = {""};
        json_object *root = small_status ();
        json_object *bucket = json_object_array_get_idx (
            ccas_json_get (json_object_array_get_idx (ccas_json_get (root, "nodearrays"), 0), "buckets"), 0);
        if (strcmp (cases[i].edit, "nodearrays") == 0)
            json_object_object_add (root, "nodearrays", json_object_new_string ("oops"));
        else if (strcmp (cases[i].edit, "maxCount") == 0)
            json_object_object_add (root, "maxCount", json_object_new_string ("many"));
        else if (strcmp (cases[i].edit, "bucket.maxCount") == 0)
            json_object_object_add (bucket, "maxCount", json_object_new_array ());
        else
            json_object_object_add (bucket, "virtualMachine", json_object_new_int (3));
        assert_null (ccas_status_from_json (root, "test", &err));
        assert_non_null (strstr (err.text, cases[i].want));
    }
}

static void test_status_not_an_object (void **state)
{
    struct ccas_error err = {""};
    (void)state;
    assert_null (ccas_status_from_json (json_object_new_array (), "test", &err));
    assert_true (strlen (err.text) > 0);
    err.text[0] = '\0';
    assert_null (ccas_status_from_json (NULL, "test", &err));
    assert_true (strlen (err.text) > 0);
}

static const char nodes_json[] =
    "{\"nodes\": [{\"Name\": \"htc-1\", \"NodeId\": \"id1\", \"Template\": \"htc\", \"MachineType\": "
    "\"Standard_F2s_v2\","
    " \"Status\": \"Ready\", \"TargetState\": \"Started\", \"PrivateIp\": \"10.1.0.4\", \"Hostname\": "
    "\"htc-1\","
    " \"KeepAlive\": true, \"PlacementGroupId\": \"pg0\", \"CoreCount\": 2, \"Memory\": 4.0},"
    " {\"Name\": \"htc-2\", \"NodeId\": \"id2\", \"Template\": \"htc\", \"Status\": \"Failed\","
    " \"StatusMessage\": \"boot failed\"}], \"operation\": {\"id\": \"op-1\"}}";

static void test_nodes_typed (void **state)
{
    struct ccas_error err = {""};
    (void)state;
    struct ccas_record_list *l = ccas_record_list_from_json (json_tokener_parse (nodes_json), &err);
    assert_non_null (l);
    assert_int_equal (l->nnodes, 2);
    assert_string_equal (l->operation_id, "op-1");
    assert_string_equal (l->nodes[0].private_ip, "10.1.0.4");
    assert_string_equal (l->nodes[0].placement_group_id, "pg0");
    assert_true (l->nodes[0].keep_alive);
    assert_true (ccas_record_is_ready (&l->nodes[0]));
    assert_true (ccas_record_is_failed (&l->nodes[1]));
    assert_string_equal (l->nodes[1].status_message, "boot failed");
    ccas_record_list_destroy (l);
}

static void test_nodes_bad (void **state)
{
    static const char *const bad[] = {
        "{}", "{\"nodes\": 3}", "{\"nodes\": [3]}", "{\"nodes\": [{\"Name\": 5}]}", "\"nodes\"",
    };
    (void)state;
    for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
        struct ccas_error err = {""};
        assert_null (ccas_record_list_from_json (json_tokener_parse (bad[i]), &err));
        assert_true (strlen (err.text) > 0);
    }
}

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

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_status_typed),
        cmocka_unit_test (test_status_bad_fields),
        cmocka_unit_test (test_status_not_an_object),
        cmocka_unit_test (test_nodes_typed),
        cmocka_unit_test (test_nodes_bad),
        cmocka_unit_test (test_parse_located_errors),
        cmocka_unit_test (test_retry_after),
        cmocka_unit_test (test_read_header),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
