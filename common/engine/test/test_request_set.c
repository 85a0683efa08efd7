/* SPDX-License-Identifier: MIT */
/* test_request_set.c: the autoscale API's requests (request_set.c) — every
 * bad request refused with the array and the attribute named (a table in
 * tests/data/requests-bad.json), normalization, request set names, and sets
 * recorded, read back, flagged, forgotten and listed; a file that is not a
 * set's refused naming it. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "engine/request_set.h"
#include "request_fixture.h"
#include "util/json.h"

/* ---- bad requests --------------------------------------------------------------------- */

/* Each case of requests-bad.json: a request (any JSON) and a part of the
 * error it must get: the whole request's, or its refused entry's (the
 * others, if any, taken). */
static void test_bad_requests (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    json_object *cases = ccas_json_load_file (TEST_DATA_DIR "/requests-bad.json", 1 << 20, &err);
    if (!cases)
        fail_msg ("%s", err.text);
    struct fixture *f = setup_cluster (NULL, -1);
    int failed = 0;
    for (size_t i = 0; i < json_object_array_length (cases); i++) {
        json_object *c = json_object_array_get_idx (cases, i);
        json_object *request = ccas_json_get (c, "request");
        const char *error = ccas_json_str (c, "error");
        json_object *refused = NULL;
        err.text[0] = '\0';
        json_object *out = ccas_request_parse (request, "req.json", f->c, &refused, &err);
        const char *got = out ? "(accepted)" : err.text;
        size_t nref = refused ? json_object_array_length (refused) : 0;
        if (nref == 1)
            got = ccas_json_str (json_object_array_get_idx (refused, 0), "error");
        bool whole = json_object_is_type (request, json_type_array);
        size_t entries = whole ? json_object_array_length (request) : 0;
        if (strstr (got, error) == NULL ||
            (out && (nref != 1 || json_object_array_length (out) + 1 != entries))) {
            print_error ("case %zu: %s\n  want: %s\n  got:  %s (%zu refused)\n", i,
                         json_object_to_json_string (request), error, got, nref);
            failed++;
        }
        json_object_put (out);
        json_object_put (refused);
    }
    assert_true (json_object_array_length (cases) >= 51);
    json_object_put (cases);
    teardown_cluster (f);
    assert_int_equal (failed, 0);
}

static void test_parse_normalizes (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct fixture *f = setup_cluster (NULL, -1);
    json_object *out =
        parse (f,
               "[{\"Name\": \"htc\", \"TargetCoreCount\": 16, \"MachineType\": "
               "[\"standard_f4s_v2\", \"Standard_F2s_v2\"]},"
               " {\"Name\": \"big\", \"Extends\": \"htc\", \"Dynamic\": true, \"TargetCount\": 2,"
               "  \"Configuration\": {\"app\": {\"version\": \"1.2.3\"}}},"
               " {\"Name\": \"hpc\", \"TargetGroupCount\": 2, \"GroupCoreCount\": 480},"
               " {\"Name\": \"htc-grouped\", \"Extends\": \"htc\", \"Dynamic\": true,"
               "  \"TargetGroupCount\": 1, \"GroupInstanceCount\": 3, \"MachineType\": \"Standard_F2s_v2\"},"
               " {\"Name\": \"gpu\"},"
               " {\"Name\": \"hpc\", \"TargetCount\": 1},"
               " {\"Name\": \"hpc\", \"TargetGroupCount\": 1, \"GroupCoreCount\": 960}]",
               &err);
    if (!out)
        fail_msg ("%s", err.text);
    /* one Name, a flat target and two group sizes: three arrays, hpc, hpc:480 and hpc:960 */
    assert_int_equal (json_object_array_length (out), 7);
    assert_string_equal (ccas_json_str (json_object_array_get_idx (out, 6), "name"), "hpc:960");
    json_object *htc = json_object_array_get_idx (out, 0), *big = json_object_array_get_idx (out, 1);
    json_object *hpc = json_object_array_get_idx (out, 2), *hg = json_object_array_get_idx (out, 3);
    json_object *gpu = json_object_array_get_idx (out, 4);
    assert_string_equal (ccas_json_str (htc, "kind"), "cores");
    assert_int_equal (ccas_json_int (htc, "target", -1), 16);
    assert_false (ccas_json_bool (htc, "dynamic", true));
    /* machine types in the nodearray's own spelling, in the request's order */
    assert_string_equal (
        json_object_get_string (json_object_array_get_idx (ccas_json_get (htc, "machine_types"), 0)),
        "Standard_F4s_v2");
    assert_string_equal (ccas_json_str (big, "nodearray"), "htc");
    assert_true (ccas_json_bool (big, "dynamic", false));
    assert_string_equal (
        ccas_json_str (ccas_json_get (ccas_json_get (big, "configuration"), "app"), "version"), "1.2.3");
    /* a grouped target is the dynamic array "<Name>:<GroupCoreCount>" */
    assert_string_equal (ccas_json_str (hpc, "name"), "hpc:480");
    assert_string_equal (ccas_json_str (hpc, "requested"), "hpc");
    assert_string_equal (ccas_json_str (hpc, "nodearray"), "hpc");
    assert_true (ccas_json_bool (hpc, "dynamic", false));
    assert_int_equal (ccas_json_int (hpc, "group_cores", 0), 480);
    assert_string_equal (ccas_json_str (hg, "name"), "htc-grouped:3nodes");
    assert_string_equal (ccas_json_str (hg, "nodearray"), "htc");
    assert_string_equal (ccas_json_str (gpu, "kind"), "none");
    json_object_put (out);
    teardown_cluster (f);
}

/* Validation is per entry: a wrong entry is refused with its index, name
 * and attribute, the others are taken. */
static void test_parse_per_entry (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct fixture *f = setup_cluster (NULL, -1);
    json_object *refused = NULL;
    json_object *out = parse_all (f,
                                  "[{\"Name\": \"htc\", \"TargetCount\": 2},"
                                  " {\"Name\": \"gpu\", \"TargetCount\": 1, \"Colour\": \"red\"},"
                                  " {\"Name\": \"hpc\", \"MachineType\": \"Standard_X\"},"
                                  " {\"TargetCount\": 3},"
                                  " {\"Name\": \"big\", \"Extends\": \"htc\", \"Dynamic\": true}]",
                                  &refused, &err);
    assert_non_null (out);
    assert_int_equal (json_object_array_length (out), 2);
    assert_string_equal (ccas_json_str (json_object_array_get_idx (out, 0), "name"), "htc");
    assert_string_equal (ccas_json_str (json_object_array_get_idx (out, 1), "name"), "big");
    assert_int_equal (json_object_array_length (refused), 3);
    json_object *r0 = json_object_array_get_idx (refused, 0), *r1 = json_object_array_get_idx (refused, 1),
                *r2 = json_object_array_get_idx (refused, 2);
    assert_int_equal (ccas_json_int (r0, "index", -1), 1);
    assert_string_equal (ccas_json_str (r0, "name"), "gpu");
    assert_string_equal (ccas_json_str (r0, "attribute"), "Colour");
    assert_string_equal (ccas_json_str (r1, "attribute"), "MachineType");
    assert_string_equal (ccas_json_str (r1, "error"),
                         "req.json: array 'hpc' ([2]): MachineType: nodearray 'hpc' has no machine type "
                         "'Standard_X' (it has 'Standard_HB120rs_v3')");
    assert_int_equal (ccas_json_int (r2, "index", -1), 3);
    assert_null (ccas_json_str (r2, "name"));
    json_object_put (out);
    json_object_put (refused);
    teardown_cluster (f);
}

/* The nodearray attributes an entry may set pass through, dotted ones
 * nested; ClusterName of this cluster, the nodearray's own Interruptible
 * and the caps are read, not sent; a dynamic array without Extends that
 * gives what a node needs is made in the nodearray with its machine type. */
static void test_parse_attributes (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct fixture *f = setup_cluster (NULL, -1);
    json_object *out = parse (
        f,
        "[{\"Name\": \"htc\", \"TargetCount\": 2, \"ClusterName\": \"test\", \"Priority\": 10,"
        "  \"ImageName\": \"cycle.image.ubuntu22\", \"Azure.Publisher\": \"Canonical\","
        "  \"Azure\": {\"Sku\": \"22_04-lts\"}, \"Tags.owner\": \"hpc\", \"Interruptible\": false,"
        "  \"MaxCount\": 3, \"MaxCoreCount\": 40, \"KeepAlive\": false, \"Zone\": [\"1\", \"3\"]},"
        " {\"Name\": \"solo\", \"Dynamic\": true, \"TargetCount\": 1,"
        "  \"MachineType\": [\"Standard_F4s_v2\", \"Standard_F2s_v2\"], \"SubnetId\": \"rg/vnet/solo\","
        "  \"Credentials\": \"azure\", \"ImageId\": \"/subscriptions/x/images/y\"}]",
        &err);
    if (!out)
        fail_msg ("%s", err.text);
    json_object *htc = json_object_array_get_idx (out, 0), *solo = json_object_array_get_idx (out, 1);
    assert_string_equal (
        json_object_to_json_string_ext (ccas_json_get (htc, "attributes"), JSON_C_TO_STRING_PLAIN),
        "{\"Priority\":10,\"ImageName\":\"cycle.image.ubuntu22\",\"Azure\":{\"Publisher\":"
        "\"Canonical\",\"Sku\":\"22_04-lts\"},\"Tags\":{\"owner\":\"hpc\"},\"KeepAlive\":false,"
        "\"Zone\":[\"1\",\"3\"]}");
    assert_int_equal (ccas_json_int (htc, "max_nodes", -1), 3);
    assert_int_equal (ccas_json_int (htc, "max_cores", -1), 40);
    assert_string_equal (ccas_json_str (solo, "nodearray"), "htc");
    assert_true (ccas_json_bool (solo, "dynamic", false));
    assert_true (ccas_json_bool (solo, "standalone", false));
    assert_string_equal (ccas_json_str (ccas_json_get (solo, "attributes"), "SubnetId"), "rg/vnet/solo");
    assert_string_equal (ccas_json_str (ccas_json_get (solo, "attributes"), "ImageId"),
                         "/subscriptions/x/images/y");
    json_object_put (out);
    teardown_cluster (f);
}

/* A refused entry keeps what the set's latest request asked of its Name:
 * its arrays are not dropped, nor a dynamic one flagged for removal. */
static void test_refused_keeps_previous (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct fixture *f = setup_cluster (NULL, -1);
    struct ccas_request_set *s = ccas_request_set_load (f->dir, "standard", &err);
    assert_non_null (s);
    json_object *first =
        parse (f,
               "[{\"Name\": \"big\", \"Extends\": \"htc\", \"Dynamic\": true, \"TargetCount\": 2},"
               " {\"Name\": \"hpc\", \"TargetGroupCount\": 1, \"GroupInstanceCount\": 2},"
               " {\"Name\": \"hpc\", \"TargetGroupCount\": 1, \"GroupInstanceCount\": 4},"
               " {\"Name\": \"gpu\", \"TargetCount\": 1}]",
               &err);
    assert_int_equal (ccas_request_set_replace (s, first, 1000, 300, &err), 0);
    json_object *refused = NULL;
    json_object *second = parse_all (
        f,
        "[{\"Name\": \"big\", \"Extends\": \"htc\", \"Dynamic\": true, \"TargetCount\": 3, \"Colour\": 1},"
        " {\"Name\": \"hpc\", \"TargetGroupCount\": 2},"
        " {\"Name\": \"gpu\", \"TargetCount\": 2},"
        " {\"Name\": \"nope\", \"TargetCount\": 1}]",
        &refused, &err);
    assert_int_equal (json_object_array_length (second), 1);
    assert_int_equal (ccas_request_set_keep (s, second, refused), 3);
    assert_int_equal (ccas_json_int (json_object_array_get_idx (refused, 0), "kept", -1), 1);
    assert_int_equal (ccas_json_int (json_object_array_get_idx (refused, 1), "kept", -1), 2);
    assert_int_equal (ccas_json_int (json_object_array_get_idx (refused, 2), "kept", -1), 0);
    assert_int_equal (ccas_request_set_replace (s, second, 1100, 300, &err), 0);
    assert_int_equal (s->narrays, 4); /* gpu as now asked, big, hpc:2nodes and hpc:4nodes as before */
    assert_int_equal (s->nremoving, 0);
    assert_int_equal (ccas_request_set_find (s, "big", "htc")->target, 2);
    assert_int_equal (ccas_request_set_find (s, "gpu", NULL)->target, 2);
    assert_non_null (ccas_request_set_find (s, "hpc:4nodes", NULL));
    json_object_put (refused);
    ccas_request_set_destroy (s);
    teardown_cluster (f);
}

/* ---- request sets ------------------------------------------------------------------------ */

static void test_set_names (void **state)
{
    (void)state;
    assert_int_equal (ccas_request_set_check_name ("standard", NULL), 0);
    assert_int_equal (ccas_request_set_check_name ("nightly-2.x_y", NULL), 0);
    assert_int_equal (ccas_request_set_check_name ("", NULL), -1);
    assert_int_equal (ccas_request_set_check_name (NULL, NULL), -1);
    assert_int_equal (ccas_request_set_check_name (".hidden", NULL), -1);
    assert_int_equal (ccas_request_set_check_name ("a/b", NULL), -1);
    assert_int_equal (ccas_request_set_check_name ("../x", NULL), -1);
    assert_int_equal (ccas_request_set_check_name (
                          "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", NULL),
                      -1);
}

static void test_set_record_flag_forget (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct fixture *f = setup_cluster (NULL, -1);
    struct ccas_request_set *s = ccas_request_set_load (f->dir, "standard", &err);
    assert_non_null (s);
    assert_int_equal (s->narrays, 0);
    assert_false (ccas_request_set_live (s, 1000));
    json_object *a =
        parse (f,
               "[{\"Name\": \"htc\", \"TargetCount\": 2},"
               " {\"Name\": \"big\", \"Extends\": \"htc\", \"Dynamic\": true, \"TargetCount\": 1},"
               " {\"Name\": \"hpc\", \"TargetGroupCount\": 1, \"GroupInstanceCount\": 2}]",
               &err);
    assert_int_equal (ccas_request_set_replace (s, a, 1000, 60, &err), 0);
    assert_true (s->changed);
    assert_int_equal (s->narrays, 3);
    assert_int_equal (s->nremoving, 0);
    assert_true (ccas_request_set_live (s, 1059));
    assert_false (ccas_request_set_live (s, 1060));
    assert_int_equal (ccas_request_set_save (s, &err), 0);
    assert_false (s->changed);
    ccas_request_set_destroy (s);

    /* read back; then a request without the dynamic arrays flags both */
    s = ccas_request_set_load (f->dir, "standard", &err);
    assert_non_null (s);
    assert_int_equal (s->narrays, 3);
    assert_non_null (ccas_request_set_find (s, "hpc:2nodes", "hpc"));
    assert_null (ccas_request_set_find (s, "big", "gpu"));
    assert_true (s->time == 1000 && s->expiration == 60);
    a = parse (f, "[{\"Name\": \"htc\", \"TargetCount\": 1}]", &err);
    assert_int_equal (ccas_request_set_replace (s, a, 2000, 300, &err), 0);
    assert_int_equal (s->nremoving, 2);
    assert_string_equal (s->removing[0].name, "big");
    assert_true (s->removing[0].since == 2000);
    /* requested again before its nodes stopped: simply requested again, the other keeps its time */
    a = parse (f, "[{\"Name\": \"big\", \"Extends\": \"htc\", \"Dynamic\": true, \"TargetCount\": 3}]", &err);
    assert_int_equal (ccas_request_set_replace (s, a, 2100, 300, &err), 0);
    assert_int_equal (s->nremoving, 1);
    assert_string_equal (s->removing[0].name, "hpc:2nodes");
    assert_true (s->removing[0].since == 2000);
    assert_int_equal (ccas_request_set_forget (s, "hpc:2nodes", "gpu"), 0);
    assert_int_equal (ccas_request_set_forget (s, "hpc:2nodes", "hpc"), 1);
    assert_int_equal (s->nremoving, 0);
    assert_int_equal (ccas_request_set_save (s, &err), 0);
    ccas_request_set_destroy (s);

    /* listing: every set's file, in name order; other files are not sets */
    struct ccas_request_set *o = ccas_request_set_load (f->dir, "another", &err);
    assert_int_equal (ccas_request_set_replace (o, json_tokener_parse ("[]"), 3000, 300, &err), 0);
    assert_int_equal (ccas_request_set_save (o, &err), 0);
    ccas_request_set_destroy (o);
    char path[128];
    snprintf (path, sizeof (path), "%s/autoscale-.x.json", f->dir);
    FILE *fp = fopen (path, "w");
    fputs ("{}", fp);
    fclose (fp);
    snprintf (path, sizeof (path), "%s/requests.json", f->dir);
    fp = fopen (path, "w");
    fputs ("{}", fp);
    fclose (fp);
    struct ccas_request_set **v = NULL;
    size_t n = 0;
    assert_int_equal (ccas_request_set_load_all (f->dir, &v, &n, &err), 0);
    assert_int_equal (n, 2);
    assert_string_equal (v[0]->name, "another");
    assert_string_equal (v[1]->name, "standard");
    assert_int_equal (v[1]->narrays, 1);
    ccas_request_set_destroy_all (v, n);

    /* a file that is not a request set's is an error naming it */
    snprintf (path, sizeof (path), "%s/autoscale-broken.json", f->dir);
    fp = fopen (path, "w");
    fputs ("{\"arrays\": [{\"kind\": \"nodes\"}]}", fp);
    fclose (fp);
    assert_null (ccas_request_set_load (f->dir, "broken", &err));
    assert_non_null (strstr (err.text, "autoscale-broken.json: arrays[0]: no name or nodearray"));
    assert_int_equal (ccas_request_set_load_all (f->dir, &v, &n, &err), -1);
    assert_null (ccas_request_set_load (f->dir, "../etc", &err));
    teardown_cluster (f);
}

/* Write `text` as file `name` of the fixture's state directory. */
static void put_file (struct fixture *f, const char *name, const char *text)
{
    char path[256];
    snprintf (path, sizeof (path), "%s/%s", f->dir, name);
    FILE *fp = fopen (path, "w");
    assert_non_null (fp);
    fputs (text, fp);
    fclose (fp);
}

/* A set never recorded is empty and not live, with the default expiration;
 * what a request gives (machine types, configuration, group sizes) reads
 * back from the file as it was; a file that is not this set's, or not a
 * set's at all, is refused naming it; a name that could leave the state
 * directory is refused saying what a name may be; listing a state
 * directory that does not exist yet finds no set. */
static void test_set_files (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct fixture *f = setup_cluster (NULL, -1);
    struct ccas_request_set *s = ccas_request_set_load (f->dir, "fresh", &err);
    assert_non_null (s);
    assert_string_equal (s->name, "fresh");
    assert_true (s->time == 0 && s->expiration == CCAS_REQUEST_EXPIRATION_DEFAULT);
    assert_false (ccas_request_set_live (s, 1));
    assert_null (ccas_request_set_find (s, "htc", NULL));
    json_object *a = parse (f,
                            "[{\"Name\": \"htc\", \"TargetCount\": 3, \"MachineType\": [\"Standard_F4s_v2\"],"
                            " \"Configuration\": {\"app\": {\"v\": 2}}},"
                            " {\"Name\": \"hpc\", \"TargetGroupCount\": 2, \"GroupCoreCount\": 240}]",
                            &err);
    assert_non_null (a);
    assert_int_equal (ccas_request_set_replace (s, a, 500, 30, &err), 0);
    assert_int_equal (ccas_request_set_save (s, &err), 0);
    ccas_request_set_destroy (s);
    s = ccas_request_set_load (f->dir, "fresh", &err);
    assert_non_null (s);
    assert_true (ccas_request_set_live (s, 529) && !ccas_request_set_live (s, 530));
    const struct ccas_array_request *htc = ccas_request_set_find (s, "htc", NULL);
    assert_non_null (htc);
    assert_int_equal (htc->kind, CCAS_TARGET_NODES);
    assert_int_equal (htc->target, 3);
    assert_false (htc->dynamic);
    assert_string_equal (json_object_get_string (json_object_array_get_idx (htc->machine_types, 0)),
                         "Standard_F4s_v2");
    assert_int_equal (ccas_json_int (ccas_json_get (htc->configuration, "app"), "v", 0), 2);
    const struct ccas_array_request *hpc = ccas_request_set_find (s, "hpc:240", "hpc");
    assert_non_null (hpc);
    assert_int_equal (hpc->kind, CCAS_TARGET_GROUPS);
    assert_int_equal (hpc->group_cores, 240);
    assert_true (hpc->dynamic);
    assert_string_equal (hpc->requested, "hpc");
    ccas_request_set_destroy (s);

    /* files that are not this set's */
    char want[256];
    put_file (f, "autoscale-other.json", "{\"request_set\": \"nightly\"}");
    assert_null (ccas_request_set_load (f->dir, "other", &err));
    snprintf (want, sizeof (want), "%s/autoscale-other.json: holds request set 'nightly', not 'other'",
              f->dir);
    assert_string_equal (err.text, want);
    put_file (f, "autoscale-other.json", "{\"arrays\": {}}");
    assert_null (ccas_request_set_load (f->dir, "other", &err));
    assert_non_null (
        strstr (err.text, "autoscale-other.json: arrays: expected a list, not a request set's file"));
    put_file (f, "autoscale-other.json",
              "{\"arrays\": [{\"name\": \"a\", \"nodearray\": \"htc\", \"kind\": \"groups\"}]}");
    assert_null (ccas_request_set_load (f->dir, "other", &err));
    assert_non_null (
        strstr (err.text, "autoscale-other.json: arrays[0]: a grouped target without a group size"));
    put_file (f, "autoscale-other.json", "[1, 2");
    assert_null (ccas_request_set_load (f->dir, "other", &err));
    assert_non_null (strstr (err.text, "autoscale-other.json"));

    /* names */
    assert_int_equal (ccas_request_set_check_name ("a/b", &err), -1);
    assert_string_equal (err.text,
                         "request set 'a/b': a request set's name is 1 to 64 letters, digits, '_', '-' or "
                         "'.', not starting with '.'");
    assert_null (ccas_request_set_load (f->dir, "", &err));
    assert_non_null (strstr (err.text, "request set '': a request set's name is"));

    /* a state directory not made yet holds no set */
    char missing[128];
    snprintf (missing, sizeof (missing), "%s/not-yet", f->dir);
    struct ccas_request_set **v = NULL;
    size_t n = 1;
    assert_int_equal (ccas_request_set_load_all (missing, &v, &n, &err), 0);
    assert_int_equal (n, 0);
    ccas_request_set_destroy_all (v, n);
    ccas_request_set_destroy (NULL);
    teardown_cluster (f);
}

/* What a target reads as, and each kind's name. */
static void test_target_text (void **state)
{
    (void)state;
    char buf[64];
    struct ccas_array_request a = {.kind = CCAS_TARGET_NODES, .target = 1};
    assert_string_equal (ccas_array_request_target_text (&a, buf, sizeof (buf)), "1 node");
    a.target = 3;
    assert_string_equal (ccas_array_request_target_text (&a, buf, sizeof (buf)), "3 nodes");
    a.kind = CCAS_TARGET_CORES;
    a.target = 128;
    assert_string_equal (ccas_array_request_target_text (&a, buf, sizeof (buf)), "128 cores");
    a.kind = CCAS_TARGET_GROUPS;
    a.target = 2;
    a.group_cores = 64;
    assert_string_equal (ccas_array_request_target_text (&a, buf, sizeof (buf)), "2 groups of 64 cores");
    a.target = 1;
    a.group_cores = 0;
    a.group_nodes = 4;
    assert_string_equal (ccas_array_request_target_text (&a, buf, sizeof (buf)), "1 group of 4 nodes");
    a.kind = CCAS_TARGET_NONE;
    assert_string_equal (ccas_array_request_target_text (&a, buf, sizeof (buf)), "none");
    assert_string_equal (ccas_target_kind_name (CCAS_TARGET_NONE), "none");
    assert_string_equal (ccas_target_kind_name (CCAS_TARGET_NODES), "nodes");
    assert_string_equal (ccas_target_kind_name (CCAS_TARGET_CORES), "cores");
    assert_string_equal (ccas_target_kind_name (CCAS_TARGET_GROUPS), "groups");
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_bad_requests),
        cmocka_unit_test (test_parse_normalizes),
        cmocka_unit_test (test_parse_per_entry),
        cmocka_unit_test (test_parse_attributes),
        cmocka_unit_test (test_refused_keeps_previous),
        cmocka_unit_test (test_set_names),
        cmocka_unit_test (test_set_record_flag_forget),
        cmocka_unit_test (test_set_files),
        cmocka_unit_test (test_target_text),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
