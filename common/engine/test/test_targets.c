/* SPDX-License-Identifier: MIT */
/* test_targets.c: the autoscale API's requests (request_set.c) and their
 * reconciliation (targets.c) — bad requests refused with the array and the
 * attribute named, normalization, request sets recorded, flagged, forgotten
 * and expired, counting nodes by their marks, growing by nodes, cores and
 * groups (with the machine-type fallback), and every autostop decision. */
#include "config.h"

#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "conf/conf.h"
#include "engine/plan.h"
#include "engine/request_set.h"
#include "engine/targets.h"
#include "model/cluster.h"
#include "util/json.h"

struct fixture {
    char dir[64];
    struct ccas_config *cfg;
    struct ccas_cluster *c;
};

/* The cluster of match-status.json (htc: F2s_v2, F4s_v2; hpc: HB120rs_v3,
 * placement groups of 4; gpu), with `nodes` (a JSON list of node records,
 * or NULL) and the F4s_v2 bucket's availableCount set to `f4_room` (<0: as
 * the file says). */
static struct fixture *setup_cluster (const char *nodes, int f4_room)
{
    struct ccas_error err = {""};
    struct fixture *f = calloc (1, sizeof (*f));
    char text[512];
    snprintf (f->dir, sizeof (f->dir), "/tmp/ccas-targets.XXXXXX");
    assert_non_null (mkdtemp (f->dir));
    snprintf (text, sizeof (text),
              "{\"url\": \"http://x\", \"username\": \"u\", \"password\": \"p\", \"cluster_name\": \"test\","
              " \"logging\": {\"syslog\": false}, \"state_dir\": \"%s\"}",
              f->dir);
    f->cfg = ccas_config_from_json (json_tokener_parse (text), "test", &err);
    assert_non_null (f->cfg);
    json_object *st = ccas_json_load_file (TEST_DATA_DIR "/match-status.json", 1 << 20, &err);
    assert_non_null (st);
    if (f4_room >= 0) {
        json_object *nas = ccas_json_get (st, "nodearrays");
        for (size_t i = 0; i < json_object_array_length (nas); i++) {
            json_object *bs = ccas_json_get (json_object_array_get_idx (nas, i), "buckets");
            for (size_t k = 0; k < json_object_array_length (bs); k++) {
                json_object *b = json_object_array_get_idx (bs, k);
                if (strcmp (ccas_json_str (ccas_json_get (b, "definition"), "machineType"),
                            "Standard_F4s_v2") == 0)
                    json_object_object_add (b, "availableCount", json_object_new_int (f4_room));
            }
        }
    }
    struct ccas_status *status = ccas_status_from_json (st, "test", &err);
    assert_non_null (status);
    struct ccas_record_list *list = NULL;
    if (nodes) {
        list = ccas_record_list_from_json (json_tokener_parse (nodes), &err);
        assert_non_null (list);
    }
    f->c = ccas_cluster_create (f->cfg, status, list, &err);
    assert_non_null (f->c);
    return f;
}

static void teardown_cluster (struct fixture *f)
{
    char path[512];
    DIR *d = opendir (f->dir);
    ccas_cluster_destroy (f->c);
    ccas_config_destroy (f->cfg);
    for (struct dirent *de; d && (de = readdir (d));)
        if (de->d_name[0] != '.' || (de->d_name[1] && strcmp (de->d_name, "..") != 0)) {
            snprintf (path, sizeof (path), "%s/%s", f->dir, de->d_name);
            unlink (path);
        }
    if (d)
        closedir (d);
    assert_int_equal (rmdir (f->dir), 0);
    free (f);
}

/* Parse `request` against the fixture's cluster: the normalized arrays, or
 * NULL with `err`. */
static json_object *parse (struct fixture *f, const char *request, struct ccas_error *err)
{
    json_object *doc = json_tokener_parse (request);
    assert_non_null (doc);
    json_object *out = ccas_request_parse (doc, "req.json", f->c, err);
    json_object_put (doc);
    return out;
}

/* ---- bad requests --------------------------------------------------------------------- */

static void test_bad_requests (void **state)
{
    (void)state;
    static const struct {
        const char *request, *error;
    } cases[] = {
        {"{\"Name\": \"htc\"}",
         "req.json: expected a list of node array definitions, got {\"Name\":\"htc\"}"},
        {"[1]", "req.json: [0]: definition: expected a node array definition (an object)"},
        {"[{\"TargetCount\": 1}]", "req.json: [0]: Name: expected the array's name, got nothing"},
        {"[{\"Name\": \"htc\", \"TargetCount\": 1, \"Colour\": \"red\"}]",
         "req.json: array 'htc' ([0]): Colour: unknown attribute"},
        {"[{\"Name\": \"htc\", \"TargetCount\": 1, \"TargetCoreCount\": 4}]",
         "req.json: array 'htc' ([0]): TargetCoreCount: cannot go with TargetCount"},
        {"[{\"Name\": \"htc\", \"TargetCount\": -3}]",
         "req.json: array 'htc' ([0]): TargetCount: expected a non-negative integer, got -3"},
        {"[{\"Name\": \"htc\", \"TargetCoreCount\": 2.5}]",
         "req.json: array 'htc' ([0]): TargetCoreCount: expected a non-negative integer, got 2.5"},
        {"[{\"Name\": \"htc\", \"TargetCount\": 100000000}]",
         "req.json: array 'htc' ([0]): TargetCount: 100000000 is more than any cluster holds"},
        {"[{\"Name\": \"htc\", \"TargetGroupCount\": 2}]",
         "req.json: array 'htc' ([0]): TargetGroupCount: a grouped target takes exactly one of "
         "GroupCoreCount"},
        {"[{\"Name\": \"htc\", \"TargetGroupCount\": 2, \"GroupCoreCount\": 8, \"GroupInstanceCount\": 2}]",
         "req.json: array 'htc' ([0]): GroupInstanceCount: a grouped target takes exactly one"},
        {"[{\"Name\": \"htc\", \"TargetGroupCount\": 2, \"GroupCoreCount\": 0}]",
         "req.json: array 'htc' ([0]): GroupCoreCount: expected a positive integer, got 0"},
        {"[{\"Name\": \"htc\", \"GroupCoreCount\": 8}]",
         "req.json: array 'htc' ([0]): GroupCoreCount: goes with TargetGroupCount"},
        {"[{\"Name\": \"htc\", \"TargetCount\": 1, \"TargetGroupCount\": 1, \"GroupCoreCount\": 8}]",
         "req.json: array 'htc' ([0]): TargetGroupCount: cannot go with TargetCount"},
        {"[{\"Name\": \"big\", \"Extends\": \"htc\", \"TargetCount\": 1}]",
         "req.json: array 'big' ([0]): Extends: a new array that extends a nodearray needs \"Dynamic\": "
         "true"},
        {"[{\"Name\": \"big\", \"TargetCount\": 1}]", "req.json: array 'big' ([0]): Name: cluster 'test' has "
                                                      "no nodearray 'big' (it has 'htc', 'hpc', 'gpu'); "
                                                      "a new array needs \"Dynamic\": true and Extends"},
        {"[{\"Name\": \"big\", \"Extends\": \"nope\", \"Dynamic\": true}]",
         "req.json: array 'big' ([0]): Extends: cluster 'test' has no nodearray 'nope' (it has 'htc', 'hpc', "
         "'gpu')"},
        {"[{\"Name\": \"big\", \"Dynamic\": true}]",
         "req.json: array 'big' ([0]): Extends: a dynamic array needs Extends"},
        {"[{\"Name\": \"hpc\", \"Extends\": \"htc\", \"Dynamic\": true}]",
         "req.json: array 'hpc' ([0]): Dynamic: 'hpc' is a nodearray of cluster 'test': a dynamic array "
         "needs a "
         "name of its own"},
        {"[{\"Name\": \"a b\", \"Extends\": \"htc\", \"Dynamic\": true}]",
         "req.json: array 'a b' ([0]): Name: a dynamic array's name is"},
        {"[{\"Name\": \"big\", \"Extends\": \"htc\", \"Dynamic\": \"yes\"}]",
         "req.json: array 'big' ([0]): Dynamic: expected true or false, got \"yes\""},
        {"[{\"Name\": \"htc\", \"MachineType\": \"Standard_X\"}]",
         "req.json: array 'htc' ([0]): MachineType: nodearray 'htc' has no machine type 'Standard_X' (it has "
         "'Standard_F2s_v2', 'Standard_F4s_v2')"},
        {"[{\"Name\": \"htc\", \"MachineType\": []}]",
         "req.json: array 'htc' ([0]): MachineType: expected a machine type or a list of them, got []"},
        {"[{\"Name\": \"htc\", \"MachineType\": [\"Standard_F2s_v2\", \"standard_f2s_v2\"]}]",
         "req.json: array 'htc' ([0]): MachineType: 'standard_f2s_v2' is listed twice"},
        {"[{\"Name\": \"htc\", \"Configuration\": [1]}]",
         "req.json: array 'htc' ([0]): Configuration: expected an object of settings, got [1]"},
        {"[{\"Name\": \"htc\", \"Configuration\": {\"ccautoscale\": {\"array\": \"x\"}}}]",
         "req.json: array 'htc' ([0]): Configuration.ccautoscale: reserved"},
        {"[{\"Name\": \"htc\", \"TargetCount\": 1}, {\"Name\": \"gpu\"}, {\"Name\": \"htc\", "
         "\"TargetCount\": 2}]",
         "req.json: array 'htc' ([2]): Name: the array is listed twice in one request (also [0])"},
        {"[{\"Name\": \"hpc\", \"TargetGroupCount\": 1, \"GroupCoreCount\": 480},"
         " {\"Name\": \"hpc\", \"TargetGroupCount\": 2, \"GroupCoreCount\": 480}]",
         "req.json: array 'hpc' ([1]): Name: this group size is listed twice in one request (also [0])"},
    };
    struct fixture *f = setup_cluster (NULL, -1);
    int failed = 0;
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        struct ccas_error err = {""};
        json_object *out = parse (f, cases[i].request, &err);
        if (out || strstr (err.text, cases[i].error) == NULL) {
            print_error ("case %zu: %s\n  want: %s\n  got:  %s\n", i, cases[i].request, cases[i].error,
                         out ? "(accepted)" : err.text);
            failed++;
        }
        json_object_put (out);
    }
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

/* ---- targets ---------------------------------------------------------------------------- */

#define READY(name, na, mt, extra)                                                                           \
    "{\"Name\": \"" name "\", \"Template\": \"" na "\", \"MachineType\": \"" mt "\", \"Status\": \"Ready\"," \
    " \"TargetState\": \"Started\", \"PrivateIp\": \"10.0.0.1\", \"InstanceId\": \"i-" name "\"" extra "}"
#define MARK(arr, set)                                                                                       \
    ", \"Configuration\": {\"ccautoscale\": {\"array\": \"" arr "\", \"request_set\": \"" set "\"}}"

static const char *const nodes_json =
    "[" READY ("htc-1", "htc", "Standard_F2s_v2", "") "," READY ("htc-2", "htc", "Standard_F4s_v2", "") "," READY ("htc-3", "htc", "Standard_F2s_v2", MARK ("big", "standard")) "," READY (
        "htc-4", "htc", "Standard_F2s_v2",
        MARK (
            "old",
            "standard")) "," READY ("htc-5", "htc", "Standard_F2s_v2",
                                    MARK (
                                        "big",
                                        "other") ", \"KeepAlive\": "
                                                 "true") "," READY ("h"
                                                                    "t"
                                                                    "c"
                                                                    "-"
                                                                    "8",
                                                                    "h"
                                                                    "t"
                                                                    "c",
                                                                    "S"
                                                                    "t"
                                                                    "a"
                                                                    "n"
                                                                    "d"
                                                                    "a"
                                                                    "r"
                                                                    "d"
                                                                    "_"
                                                                    "F"
                                                                    "2"
                                                                    "s"
                                                                    "_"
                                                                    "v"
                                                                    "2",
                                                                    MARK (
                                                                        "ghost",
                                                                        "nowhere")) "," READY ("hpc-1", "hpc",
                                                                                               "Standard_"
                                                                                               "HB120rs_v3",
                                                                                               MARK (
                                                                                                   "hpc:"
                                                                                                   "2nodes",
                                                                                                   "standar"
                                                                                                   "d") ", "
                                                                                                        "\""
                                                                                                        "Pl"
                                                                                                        "ac"
                                                                                                        "em"
                                                                                                        "en"
                                                                                                        "tG"
                                                                                                        "ro"
                                                                                                        "up"
                                                                                                        "Id"
                                                                                                        "\""
                                                                                                        ": "
                                                                                                        "\""
                                                                                                        "g1"
                                                                                                        "\"") "," READY ("hpc-2",
                                                                                                                         "hpc",
                                                                                                                         "Standard_HB120rs_v3",
                                                                                                                         MARK (
                                                                                                                             "hpc:2nodes",
                                                                                                                             "standard") ", \"PlacementGroupId\": \"g1\"") "," READY ("hpc-3",
                                                                                                                                                                                      "hpc",
                                                                                                                                                                                      "Standard_HB120rs_v3",
                                                                                                                                                                                      MARK (
                                                                                                                                                                                          "hpc:2nodes",
                                                                                                                                                                                          "standard") ", \"PlacementGroupId\": \"g2\"") ","
                                                                                                                                                                                                                                        "{\"Name\": \"htc-6\", \"Template\": \"htc\", \"MachineType\": \"Standard_F2s_v2\", \"Status\": \"Deallocated\","
                                                                                                                                                                                                                                        " \"TargetState\": \"Deallocated\"},"
                                                                                                                                                                                                                                        "{\"Name\": \"htc-7\", \"Template\": \"htc\", \"MachineType\": \"Standard_F2s_v2\", \"Status\": \"Terminating\","
                                                                                                                                                                                                                                        " \"TargetState\": \"Terminated\"}]";

/* A set recorded at `time` for `expiration` s with `request` (and, flagged
 * for removal, the dynamic arrays of `before` it drops). */
static struct ccas_request_set *set_with (struct fixture *f, const char *name, const char *before,
                                          const char *request, double time, double expiration)
{
    struct ccas_error err = {""};
    struct ccas_request_set *s = ccas_request_set_load (f->dir, name, &err);
    assert_non_null (s);
    if (before)
        assert_int_equal (ccas_request_set_replace (s, parse (f, before, &err), time - 1, expiration, &err),
                          0);
    json_object *a = parse (f, request, &err);
    if (!a)
        fail_msg ("%s", err.text);
    assert_int_equal (ccas_request_set_replace (s, a, time, expiration, &err), 0);
    return s;
}

static const struct ccas_target_view *view (const struct ccas_targets *t, const char *set, const char *name)
{
    for (size_t i = 0; i < t->nviews; i++)
        if (strcmp (t->views[i].set->name, set) == 0 && strcmp (t->views[i].name, name) == 0)
            return &t->views[i];
    fail_msg ("no view %s/%s", set, name);
    return NULL;
}

static void test_counts_by_mark (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct fixture *f = setup_cluster (nodes_json, -1);
    struct ccas_request_set *s = set_with (
        f, "standard", "[{\"Name\": \"old\", \"Extends\": \"htc\", \"Dynamic\": true}]",
        "[{\"Name\": \"htc\", \"TargetCount\": 2}, {\"Name\": \"big\", \"Extends\": \"htc\", \"Dynamic\": "
        "true,"
        " \"TargetCount\": 1}, {\"Name\": \"hpc\", \"TargetGroupCount\": 1, \"GroupInstanceCount\": 2}]",
        1000, 300);
    struct ccas_targets *t = ccas_targets_create (f->c, &s, 1, 1010, &err);
    assert_non_null (t);
    assert_int_equal (t->nviews, 4);
    const struct ccas_target_view *htc = view (t, "standard", "htc"), *big = view (t, "standard", "big");
    const struct ccas_target_view *hpc = view (t, "standard", "hpc:2nodes"),
                                  *old = view (t, "standard", "old");
    /* htc counts its unmarked running nodes: not big's, old's or the other set's, not the deallocated or
     * terminating one */
    assert_int_equal (htc->nodes, 2);
    assert_int_equal (htc->cores, 6);
    assert_int_equal (htc->stopped, 1);
    assert_int_equal (htc->present, 3);
    assert_int_equal (big->nodes, 1);
    assert_int_equal (hpc->nodes, 3);
    assert_int_equal (hpc->whole_groups, 1); /* g1 holds 2, g2 only 1 */
    assert_true (old->removing);
    assert_int_equal (old->present, 1);
    assert_true (htc->live);
    ccas_targets_destroy (t);
    ccas_request_set_destroy (s);
    teardown_cluster (f);
}

static void test_grow_flat (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct fixture *f = setup_cluster (nodes_json, -1);
    struct ccas_request_set *s =
        set_with (f, "standard", NULL,
                  "[{\"Name\": \"htc\", \"TargetCount\": 4, \"MachineType\": [\"Standard_F4s_v2\", "
                  "\"Standard_F2s_v2\"]},"
                  " {\"Name\": \"big\", \"Extends\": \"htc\", \"Dynamic\": true, \"TargetCoreCount\": 8,"
                  "  \"Configuration\": {\"app\": \"x\"}, \"MachineType\": \"Standard_F4s_v2\"}]",
                  1000, 300);
    struct ccas_targets *t = ccas_targets_create (f->c, &s, 1, 1010, &err);
    assert_int_equal (ccas_targets_grow (t, &err), 0);
    const struct ccas_target_view *htc = view (t, "standard", "htc"), *big = view (t, "standard", "big");
    /* htc: 2 running + the deallocated one started + 1 new in the first machine type */
    assert_int_equal (htc->started, 1);
    assert_int_equal (htc->new_nodes, 1);
    assert_int_equal (htc->short_by, 0);
    /* big: 2 cores running, 8 wanted: two 4-core nodes */
    assert_int_equal (big->new_nodes, 2);
    assert_int_equal (big->new_cores, 8);
    struct ccas_plan *plan = ccas_plan_create (f->c, NULL, &err);
    assert_non_null (plan);
    assert_int_equal (plan->nstarts, 1);
    assert_string_equal (plan->starts[0].node->name, "htc-6");
    assert_int_equal (plan->ncreates, 2); /* one bucket, two sets: different attributes */
    const struct ccas_plan_create *plain =
        plan->creates[0].node_attributes ? &plan->creates[1] : &plan->creates[0];
    const struct ccas_plan_create *marked =
        plain == &plan->creates[0] ? &plan->creates[1] : &plan->creates[0];
    assert_int_equal (plain->count, 1);
    assert_null (plain->node_attributes);
    assert_string_equal (plain->bucket->machine_type, "Standard_F4s_v2");
    assert_int_equal (marked->count, 2);
    json_object *cfg = ccas_json_get (marked->node_attributes, "Configuration");
    assert_string_equal (ccas_json_str (cfg, "app"), "x");
    assert_string_equal (ccas_json_str (ccas_json_get (cfg, "ccautoscale"), "array"), "big");
    assert_string_equal (ccas_json_str (ccas_json_get (cfg, "ccautoscale"), "request_set"), "standard");
    ccas_plan_destroy (plan);
    ccas_targets_destroy (t);
    ccas_request_set_destroy (s);
    teardown_cluster (f);
}

static void test_grow_short_and_expired (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct fixture *f = setup_cluster (NULL, -1);
    /* gpu holds 2 nodes (maxCount); the expired set asks for htc and gets nothing */
    struct ccas_request_set *sets[2] = {
        set_with (f, "a", NULL, "[{\"Name\": \"gpu\", \"TargetCount\": 5}]", 1000, 300),
        set_with (f, "b", NULL, "[{\"Name\": \"htc\", \"TargetCount\": 5}]", 500, 300),
    };
    struct ccas_targets *t = ccas_targets_create (f->c, sets, 2, 1010, &err);
    assert_int_equal (ccas_targets_grow (t, &err), 1);
    const struct ccas_target_view *gpu = view (t, "a", "gpu"), *htc = view (t, "b", "htc");
    assert_int_equal (gpu->new_nodes, 2);
    assert_int_equal (gpu->short_by, 3);
    assert_non_null (strstr (gpu->why, "Standard_NC24ads_A100_v4: availableCount 0"));
    assert_false (htc->live);
    assert_int_equal (htc->new_nodes, 0);
    assert_int_equal (htc->short_by, 0);
    struct ccas_plan *plan = ccas_plan_create (f->c, NULL, &err);
    assert_int_equal (ccas_plan_new_nodes (plan), 2);
    ccas_plan_destroy (plan);
    ccas_targets_destroy (t);
    ccas_request_set_destroy (sets[0]);
    ccas_request_set_destroy (sets[1]);
    teardown_cluster (f);
}

static void test_two_sets_hold_the_highest (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct fixture *f = setup_cluster (NULL, -1);
    struct ccas_request_set *sets[2] = {
        set_with (f, "a", NULL, "[{\"Name\": \"htc\", \"TargetCount\": 3}]", 1000, 300),
        set_with (f, "b", NULL, "[{\"Name\": \"htc\", \"TargetCount\": 5}]", 1000, 300),
    };
    struct ccas_targets *t = ccas_targets_create (f->c, sets, 2, 1010, &err);
    assert_int_equal (ccas_targets_grow (t, &err), 0);
    assert_int_equal (view (t, "a", "htc")->new_nodes, 5);
    assert_int_equal (view (t, "b", "htc")->new_nodes, 5);
    struct ccas_plan *plan = ccas_plan_create (f->c, NULL, &err);
    assert_int_equal (ccas_plan_new_nodes (plan), 5); /* not 8 */
    ccas_plan_destroy (plan);
    ccas_targets_destroy (t);
    ccas_request_set_destroy (sets[0]);
    ccas_request_set_destroy (sets[1]);
    teardown_cluster (f);
}

static void test_grow_groups_fallback (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    /* F4s_v2 has room for 1 node: a group of 2 falls back to F2s_v2, whole */
    struct fixture *f = setup_cluster (NULL, 1);
    struct ccas_request_set *s = set_with (f, "standard", NULL,
                                           "[{\"Name\": \"htc\", \"TargetGroupCount\": 2, "
                                           "\"GroupCoreCount\": 8, \"MachineType\": [\"Standard_F4s_v2\","
                                           " \"Standard_F2s_v2\"]}]",
                                           1000, 300);
    struct ccas_targets *t = ccas_targets_create (f->c, &s, 1, 1010, &err);
    assert_int_equal (ccas_targets_grow (t, &err), 0);
    const struct ccas_target_view *v = view (t, "standard", "htc:8");
    assert_int_equal (v->new_groups, 2);
    assert_int_equal (v->new_nodes, 8); /* 8 cores of 2-core nodes, twice */
    struct ccas_plan *plan = ccas_plan_create (f->c, NULL, &err);
    assert_int_equal (plan->ncreates, 2);
    for (size_t i = 0; i < 2; i++) {
        const struct ccas_plan_create *set = &plan->creates[i];
        assert_string_equal (set->bucket->machine_type, "Standard_F2s_v2");
        assert_int_equal (set->count, 4);
        assert_non_null (set->pg);
        json_object *cfg = ccas_json_get (set->node_attributes, "Configuration");
        assert_string_equal (
            ccas_json_str (ccas_json_get (ccas_json_get (cfg, "cyclecloud"), "node"), "group_id"),
            set->pg->name);
        assert_string_equal (ccas_json_str (ccas_json_get (cfg, "ccautoscale"), "array"), "htc:8");
    }
    assert_string_not_equal (plan->creates[0].pg->name, plan->creates[1].pg->name);
    ccas_plan_destroy (plan);
    ccas_targets_destroy (t);
    ccas_request_set_destroy (s);
    teardown_cluster (f);

    /* no machine type has room: short, each type says why */
    f = setup_cluster (NULL, 1);
    s = set_with (f, "standard", NULL,
                  "[{\"Name\": \"htc\", \"TargetGroupCount\": 1, \"GroupInstanceCount\": 200}]", 1000, 300);
    t = ccas_targets_create (f->c, &s, 1, 1010, &err);
    assert_int_equal (ccas_targets_grow (t, &err), 1);
    v = view (t, "standard", "htc:200nodes");
    assert_int_equal (v->short_by, 1);
    assert_non_null (strstr (
        v->why, "a placement group holds at most 100 nodes (maxPlacementGroupSize 100), a group needs 200"));
    ccas_targets_destroy (t);
    ccas_request_set_destroy (s);
    teardown_cluster (f);
}

static const struct ccas_node *node (struct fixture *f, const char *name)
{
    const struct ccas_node *n = ccas_cluster_find_node (f->c, name);
    assert_non_null (n);
    return n;
}

static enum ccas_autostop_decision ask (const struct ccas_targets *t, struct fixture *f, const char *name,
                                        const char *reason)
{
    struct ccas_autostop a;
    ccas_targets_autostop (t, node (f, name), &a);
    if (!strstr (a.reason, reason))
        fail_msg ("%s: want a reason with '%s', got '%s'", name, reason, a.reason);
    return a.decision;
}

static void test_autostop (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct fixture *f = setup_cluster (nodes_json, -1);
    struct ccas_request_set *sets[2] = {
        set_with (f, "standard", "[{\"Name\": \"old\", \"Extends\": \"htc\", \"Dynamic\": true}]",
                  "[{\"Name\": \"htc\", \"TargetCoreCount\": 4}, {\"Name\": \"big\", \"Extends\": \"htc\","
                  " \"Dynamic\": true, \"TargetCount\": 1}, {\"Name\": \"hpc\", \"TargetGroupCount\": 1,"
                  " \"GroupInstanceCount\": 2}]",
                  1000, 300),
        set_with (f, "other", NULL, "[{\"Name\": \"htc\", \"TargetCount\": 1}]", 1000, 300),
    };
    struct ccas_targets *t = ccas_targets_create (f->c, sets, 2, 1010, &err);
    /* htc has 2 nodes, 6 cores; standard wants 4 cores, other 1 node */
    assert_int_equal (ask (t, f, "htc-1", "above every live target without it"), CCAS_AUTOSTOP_GRANTED);
    assert_int_equal (
        ask (t, f, "htc-2",
             "array 'htc' of request set 'standard' wants 4 cores and has 6 (this node holds 4)"),
        CCAS_AUTOSTOP_REFUSED);
    assert_int_equal (ask (t, f, "htc-3", "array 'big' of request set 'standard' wants 1 node and has 1"),
                      CCAS_AUTOSTOP_REFUSED);
    assert_int_equal (
        ask (t, f, "htc-4", "dynamic array 'old' of request set 'standard' is no longer requested"),
        CCAS_AUTOSTOP_GRANTED);
    assert_int_equal (ask (t, f, "htc-5", "KeepAlive"), CCAS_AUTOSTOP_REFUSED);
    assert_int_equal (ask (t, f, "htc-6", "it does not count toward nodearray 'htc' (it is Deallocated)"),
                      CCAS_AUTOSTOP_GRANTED);
    assert_int_equal (ask (t, f, "htc-7", "already on its way out"), CCAS_AUTOSTOP_GOING);
    /* hpc: g1 is whole, g2 not: g2's node may go, g1's may not */
    assert_int_equal (ask (t, f, "hpc-3", "keeps 1 whole"), CCAS_AUTOSTOP_GRANTED);
    assert_int_equal (ask (t, f, "hpc-1", "keeps 0 whole"), CCAS_AUTOSTOP_REFUSED);
    assert_int_equal (ask (t, f, "htc-8", "dynamic array 'ghost' of request set 'nowhere' is not requested"),
                      CCAS_AUTOSTOP_GRANTED);
    ccas_targets_destroy (t);

    /* later: the requests have expired; nothing holds any node */
    t = ccas_targets_create (f->c, sets, 2, 2000, &err);
    assert_int_equal (ask (t, f, "htc-3", "the request of set 'standard' expired 700 s ago"),
                      CCAS_AUTOSTOP_GRANTED);
    assert_int_equal (ask (t, f, "htc-2", "no live request asks for nodes of nodearray 'htc'"),
                      CCAS_AUTOSTOP_GRANTED);
    ccas_targets_destroy (t);

    /* the last node of a removing array gone: the array is forgotten */
    t = ccas_targets_create (f->c, sets, 2, 1010, &err);
    assert_int_equal (ccas_targets_forget (t), 0);
    ccas_targets_node_gone (t, node (f, "htc-4"));
    assert_int_equal (ccas_targets_forget (t), 1);
    assert_int_equal (sets[0]->nremoving, 0);
    assert_true (sets[0]->changed);
    ccas_targets_destroy (t);

    /* the marks are read from the node records */
    ccas_request_set_destroy (sets[1]);
    t = ccas_targets_create (f->c, sets, 1, 1010, &err);
    const char *set = NULL;
    assert_string_equal (ccas_targets_marker (t, node (f, "htc-5"), &set), "big");
    assert_string_equal (set, "other");
    ccas_targets_destroy (t);
    ccas_request_set_destroy (sets[0]);
    teardown_cluster (f);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_bad_requests),
        cmocka_unit_test (test_parse_normalizes),
        cmocka_unit_test (test_set_names),
        cmocka_unit_test (test_set_record_flag_forget),
        cmocka_unit_test (test_counts_by_mark),
        cmocka_unit_test (test_grow_flat),
        cmocka_unit_test (test_grow_short_and_expired),
        cmocka_unit_test (test_two_sets_hold_the_highest),
        cmocka_unit_test (test_grow_groups_fallback),
        cmocka_unit_test (test_autostop),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
