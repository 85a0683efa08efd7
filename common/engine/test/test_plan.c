/* SPDX-License-Identifier: MIT */
/* test_plan.c: a pass's decisions gathered from the model — new nodes into
 * one create set per bucket and placement group, in the order they were
 * made; stopped nodes given work into starts; terminations added once — and
 * written as JSON, whole or streamed job by job. */
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

#include "engine/plan.h"
#include "model/test/fixture.h"
#include "util/file.h"

#define STATUS "cluster-status.json"

static struct ccas_cluster *with_nodes (const struct ccas_config *cfg)
{
    size_t len;
    struct ccas_error err = {""};
    char *text = ccas_file_read (TEST_DATA_DIR "/cluster-nodes.json", 1 << 20, &len, &err);
    assert_non_null (text);
    struct ccas_cluster *c = fx_cluster (cfg, STATUS, NULL, text);
    free (text);
    return c;
}

static const struct ccas_plan_set *set_of (const struct ccas_plan *p, const char *mt, const char *pg)
{
    for (size_t i = 0; i < p->ncreates; i++) {
        const struct ccas_plan_set *s = &p->creates[i];
        const char *spg = s->pg ? s->pg->name : NULL;
        if (strcmp (s->bucket->machine_type, mt) == 0 &&
            ((!pg && !spg) || (pg && spg && strcmp (pg, spg) == 0)))
            return s;
    }
    return NULL;
}

/* ---- gathering ---------------------------------------------------------------------------- */

/* Nothing new, nothing stopped with work: an empty plan. */
static void test_empty_plan (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct ccas_config *cfg = fx_config (NULL);
    struct ccas_cluster *c = with_nodes (cfg);
    struct ccas_plan *p = ccas_plan_create (c, NULL, &err);
    assert_non_null (p);
    assert_ptr_equal (p->cluster, c);
    assert_int_equal (p->ncreates, 0);
    assert_int_equal (p->nstarts, 0);
    assert_int_equal (p->nterminates, 0);
    assert_int_equal (p->nkept, 0);
    assert_int_equal (ccas_plan_new_nodes (p), 0);
    json_object *o = ccas_plan_to_json (p);
    assert_string_equal (json_object_to_json_string_ext (o, JSON_C_TO_STRING_PLAIN),
                         "{\"create\":[],\"start\":[],\"terminate\":[],\"keep_alive\":[]}");
    json_object_put (o);
    ccas_plan_destroy (p);
    ccas_plan_destroy (NULL);
    ccas_cluster_destroy (c);
    ccas_conf_destroy (cfg);
}

/* New nodes made in any order across buckets and groups: one set per
 * bucket and group, each set's nodes in the order made, nothing lost. */
static void test_creates_gathered (void **state)
{
    static const struct {
        const char *mt;
        const char *pg; /* NULL: outside any group; "new": a group this pass names */
    } made[] = {
        {"Standard_F2s_v2", NULL},      {"Standard_HB120rs_v3", "hpc-pg-a"},
        {"Standard_F4s_v2", NULL},      {"Standard_F2s_v2", NULL},
        {"Standard_HB120rs_v3", "new"}, {"Standard_HB120rs_v3", "hpc-pg-a"},
        {"Standard_HB120rs_v3", NULL},  {"Standard_F2s_v2", NULL},
        {"Standard_HB120rs_v3", "new"},
    };
    (void)state;
    struct ccas_error err = {""};
    struct ccas_config *cfg = fx_config (NULL);
    struct ccas_cluster *c = with_nodes (cfg);
    struct ccas_bucket *hb = fx_bucket (c, "hpc", "Standard_HB120rs_v3");
    struct ccas_pg *fresh = ccas_pg_get (c, hb, NULL, NULL);
    struct ccas_node *nodes[sizeof (made) / sizeof (made[0])];
    for (size_t i = 0; i < sizeof (made) / sizeof (made[0]); i++) {
        struct ccas_bucket *b =
            fx_bucket (c, strcmp (made[i].mt, "Standard_HB120rs_v3") ? "htc" : "hpc", made[i].mt);
        struct ccas_pg *pg = !made[i].pg                       ? NULL
                             : strcmp (made[i].pg, "new") == 0 ? fresh
                                                               : ccas_pg_get (c, b, made[i].pg, NULL);
        assert_non_null (nodes[i] = ccas_cluster_new_node (c, b, pg, NULL));
    }
    struct ccas_plan *p = ccas_plan_create (c, NULL, &err);
    assert_non_null (p);
    assert_int_equal (p->ncreates, 5);
    assert_int_equal (ccas_plan_new_nodes (p), sizeof (made) / sizeof (made[0]));
    const struct {
        const char *mt, *pg;
        uint32_t count;
        size_t first, second; /* indexes into made[] of its first two nodes */
    } want[] = {
        {"Standard_F2s_v2", NULL, 3, 0, 3},
        {"Standard_F4s_v2", NULL, 1, 2, 2},
        {"Standard_HB120rs_v3", "hpc-pg-a", 2, 1, 5},
        {"Standard_HB120rs_v3", "hpc_Standard_HB120rs_v3_pg0", 2, 4, 8},
        {"Standard_HB120rs_v3", NULL, 1, 6, 6},
    };
    for (size_t i = 0; i < sizeof (want) / sizeof (want[0]); i++) {
        const struct ccas_plan_set *s = set_of (p, want[i].mt, want[i].pg);
        if (!s)
            fail_msg ("no set %s %s", want[i].mt, want[i].pg ? want[i].pg : "");
        assert_int_equal (s->count, want[i].count);
        assert_ptr_equal (s->nodes[0], nodes[want[i].first]);
        assert_ptr_equal (s->nodes[s->count > 1 ? 1 : 0], nodes[want[i].second]);
        for (uint32_t k = 0; k < s->count; k++) {
            assert_ptr_equal (s->nodes[k]->bucket, s->bucket);
            assert_ptr_equal (s->nodes[k]->pg, s->pg);
        }
        assert_int_equal (s->outcome, CCAS_PLANNED);
        assert_false (s->keep_alive);
    }
    /* the order of sets is the order of their first nodes */
    assert_string_equal (p->creates[0].bucket->machine_type, "Standard_F2s_v2");
    assert_string_equal (p->creates[1].pg->name, "hpc-pg-a");
    ccas_plan_destroy (p);
    ccas_cluster_destroy (c);
    ccas_conf_destroy (cfg);
}

/* Nodes whose creates carry different nodeAttributes (the same object is
 * the same attributes) go in different sets of the same bucket; the JSON
 * shows a set's attributes. */
static void test_sets_by_attributes (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct ccas_config *cfg = fx_config (NULL);
    struct ccas_cluster *c = with_nodes (cfg);
    struct ccas_bucket *f2 = fx_bucket (c, "htc", "Standard_F2s_v2");
    json_object *a = fx_parse ("{\"Configuration\": {\"group\": \"a\"}}");
    json_object *b = fx_parse ("{\"Configuration\": {\"group\": \"b\"}}");
    json_object *attrs[] = {a, NULL, a, b, NULL, a};
    for (size_t i = 0; i < sizeof (attrs) / sizeof (attrs[0]); i++)
        ccas_cluster_new_node (c, f2, NULL, NULL)->create_attributes = attrs[i];
    struct ccas_plan *p = ccas_plan_create (c, NULL, &err);
    assert_int_equal (p->ncreates, 3);
    assert_ptr_equal (p->creates[0].node_attributes, a);
    assert_int_equal (p->creates[0].count, 3);
    assert_null (p->creates[1].node_attributes);
    assert_int_equal (p->creates[1].count, 2);
    assert_ptr_equal (p->creates[2].node_attributes, b);
    assert_int_equal (p->creates[2].count, 1);
    for (size_t i = 0; i < p->ncreates; i++)
        for (uint32_t k = 0; k < p->creates[i].count; k++)
            assert_ptr_equal (p->creates[i].nodes[k]->create_attributes, p->creates[i].node_attributes);
    json_object *o = ccas_plan_to_json (p);
    json_object *cr = ccas_json_get (o, "create");
    assert_string_equal (
        ccas_json_str (ccas_json_get (ccas_json_get (json_object_array_get_idx (cr, 2), "node_attributes"),
                                      "Configuration"),
                       "group"),
        "b");
    assert_null (ccas_json_get (json_object_array_get_idx (cr, 1), "node_attributes"));
    json_object_put (o);
    ccas_plan_destroy (p);
    ccas_cluster_destroy (c);
    json_object_put (a);
    json_object_put (b);
    ccas_conf_destroy (cfg);
}

/* Starts: stopped nodes that were given work, and only those. */
static void test_starts (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct ccas_config *cfg = fx_config (NULL);
    struct ccas_cluster *c = with_nodes (cfg);
    fx_node (c, "htc-4")->njobs = 1; /* stopped, given work */
    fx_node (c, "hpc-3")->njobs = 0; /* stopped, no work */
    fx_node (c, "htc-1")->njobs = 2; /* ready: nothing to start */
    fx_node (c, "htc-2")->njobs = 1; /* booting: nothing to start */
    struct ccas_plan *p = ccas_plan_create (c, NULL, &err);
    assert_int_equal (p->nstarts, 1);
    assert_string_equal (p->starts[0].node->name, "htc-4");
    assert_string_equal (p->starts[0].reason, "deallocated node given work");
    assert_int_equal (p->starts[0].outcome, CCAS_PLANNED);
    ccas_plan_destroy (p);
    ccas_cluster_destroy (c);
    ccas_conf_destroy (cfg);
}

static void test_terminate_by_hand (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct ccas_config *cfg = fx_config (NULL);
    struct ccas_cluster *c = with_nodes (cfg);
    struct ccas_plan *p = ccas_plan_create (c, NULL, &err);
    char reason[32] = "asked by hand";
    assert_int_equal (ccas_plan_terminate (p, fx_node (c, "htc-5"), reason), 0);
    reason[0] = 'X';                                                              /* copied */
    assert_int_equal (ccas_plan_terminate (p, fx_node (c, "htc-5"), "again"), 0); /* once */
    assert_int_equal (ccas_plan_terminate (p, fx_node (c, "htc-1"), "idle"), 0);
    assert_int_equal (p->nterminates, 2);
    assert_string_equal (p->terminates[0].reason, "asked by hand");
    /* every existing node at most once, however often asked */
    for (size_t i = 0; i < c->nexisting; i++)
        for (int k = 0; k < 2; k++)
            assert_int_equal (ccas_plan_terminate (p, c->nodes[i], "all"), 0);
    assert_int_equal (p->nterminates, c->nexisting);
    char *s = ccas_plan_strdup (p, "kept");
    assert_string_equal (s, "kept");
    assert_null (ccas_plan_strdup (p, NULL));
    ccas_plan_destroy (p);
    ccas_cluster_destroy (c);
    ccas_conf_destroy (cfg);
}

/* ---- JSON ------------------------------------------------------------------------------------ */

static void test_to_json (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct ccas_config *cfg = fx_config (NULL);
    struct ccas_cluster *c = with_nodes (cfg);
    struct ccas_bucket *f2 = fx_bucket (c, "htc", "Standard_F2s_v2");
    struct ccas_bucket *hb = fx_bucket (c, "hpc", "Standard_HB120rs_v3");
    ccas_cluster_new_node (c, f2, NULL, NULL);
    ccas_cluster_new_node (c, f2, NULL, NULL);
    ccas_cluster_new_node (c, hb, ccas_pg_get (c, hb, "hpc-pg-a", NULL), NULL);
    fx_node (c, "htc-4")->njobs = 1;
    struct ccas_plan *p = ccas_plan_create (c, NULL, &err);
    ccas_plan_terminate (p, fx_node (c, "htc-5"), "failed: boot failed");

    json_object *o = ccas_plan_to_json (p);
    json_object *cr = ccas_json_get (o, "create");
    assert_int_equal (json_object_array_length (cr), 2);
    json_object *s0 = json_object_array_get_idx (cr, 0);
    assert_string_equal (ccas_json_str (s0, "nodearray"), "htc");
    assert_string_equal (ccas_json_str (s0, "machine_type"), "Standard_F2s_v2");
    assert_null (ccas_json_get (s0, "placement_group"));
    assert_int_equal (ccas_json_int (s0, "count", 0), 2);
    assert_string_equal (ccas_json_str (s0, "outcome"), "planned");
    assert_null (ccas_json_get (s0, "added")); /* nothing carried out yet */
    assert_string_equal (ccas_json_str (json_object_array_get_idx (cr, 1), "placement_group"), "hpc-pg-a");
    json_object *st = json_object_array_get_idx (ccas_json_get (o, "start"), 0);
    assert_string_equal (ccas_json_str (st, "name"), "htc-4");
    assert_string_equal (ccas_json_str (st, "node_id"), "htc-4");
    assert_string_equal (ccas_json_str (st, "nodearray"), "htc");
    assert_string_equal (ccas_json_str (st, "reason"), "deallocated node given work");
    json_object *te = json_object_array_get_idx (ccas_json_get (o, "terminate"), 0);
    assert_string_equal (ccas_json_str (te, "reason"), "failed: boot failed");
    assert_null (ccas_json_get (te, "error"));
    assert_null (ccas_json_get (o, "request_id"));
    json_object_put (o);

    /* after apply: outcomes, what was added, the failure's class, names */
    snprintf (p->request_id, sizeof (p->request_id), "req-1");
    p->create_operation = "op-1";
    p->creates[0].outcome = CCAS_DONE;
    p->creates[0].added = 1;
    p->creates[0].message = "Allocation failed: insufficient capacity";
    p->creates[0].cls = CCAS_CLASS_CAPACITY;
    p->creates[0].nodes[0]->name = "htc-10";
    p->creates[1].outcome = CCAS_DONE;
    p->creates[1].added = 1;
    p->terminates[0].outcome = CCAS_FAILED;
    p->terminates[0].error = "the server does not know this node";
    o = ccas_plan_to_json (p);
    cr = ccas_json_get (o, "create");
    s0 = json_object_array_get_idx (cr, 0);
    assert_string_equal (ccas_json_str (s0, "outcome"), "done");
    assert_int_equal (ccas_json_int (s0, "added", -1), 1);
    assert_string_equal (ccas_json_str (s0, "class"), "capacity");
    assert_non_null (strstr (ccas_json_str (s0, "failure"), "ccautoscale: capacity: Allocation failed"));
    json_object *names = ccas_json_get (s0, "names");
    assert_int_equal (json_object_array_length (names), 1); /* the unnamed one is left out */
    assert_string_equal (json_object_get_string (json_object_array_get_idx (names, 0)), "htc-10");
    json_object *s1 = json_object_array_get_idx (cr, 1);
    assert_null (ccas_json_get (s1, "class")); /* all added: no failure */
    assert_null (ccas_json_get (s1, "message"));
    te = json_object_array_get_idx (ccas_json_get (o, "terminate"), 0);
    assert_string_equal (ccas_json_str (te, "outcome"), "failed");
    assert_string_equal (ccas_json_str (te, "error"), "the server does not know this node");
    assert_string_equal (ccas_json_str (o, "request_id"), "req-1");
    assert_string_equal (ccas_json_str (o, "create_operation"), "op-1");
    json_object_put (o);
    ccas_plan_destroy (p);
    ccas_cluster_destroy (c);
    ccas_conf_destroy (cfg);
}

/* Streamed: the summary and each job on its line; running and ignored
 * jobs left out; a packed job's node once; new nodes as placeholders;
 * `extra` before the jobs; the whole is one JSON document. */
static void test_write_json (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct ccas_config *cfg = fx_config (NULL);
    struct ccas_cluster *c = with_nodes (cfg);
    struct ccas_bucket *f2 = fx_bucket (c, "htc", "Standard_F2s_v2");
    struct ccas_node *n1 = ccas_cluster_new_node (c, f2, NULL, NULL);
    struct ccas_node *n2 = ccas_cluster_new_node (c, f2, NULL, NULL);
    struct ccas_node *ready = fx_node (c, "htc-1");
    struct ccas_jobs *jobs = ccas_jobs_create (4);
    struct ccas_job *j = ccas_jobs_add (jobs, "packed", 1);
    j->matched = true;
    j->nslots = 3;
    j->slots = ccas_jobs_alloc (jobs, 3 * sizeof (*j->slots));
    j->slots[0] = n2;
    j->slots[1] = ready;
    j->slots[2] = n2;
    j = ccas_jobs_add (jobs, "single \"quoted\"", 1);
    j->matched = true;
    j->nslots = 1;
    j->slots = ccas_jobs_alloc (jobs, sizeof (*j->slots));
    j->slots[0] = n1;
    j = ccas_jobs_add (jobs, "waiting", 1);
    j->reason = "no bucket fits";
    j = ccas_jobs_add (jobs, "running", 1);
    j->running = true;
    j = ccas_jobs_add (jobs, "ignored", 1);
    j->ignore = true;
    j = ccas_jobs_add (jobs, "unknown", 1);

    struct ccas_plan *p = ccas_plan_create (c, jobs, &err);
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream (&buf, &size);
    json_object *extra = fx_parse ("{\"dry_run\": true}");
    assert_int_equal (ccas_plan_write_json (p, extra, f), 0);
    fclose (f);
    json_object_put (extra);

    json_object *o = ccas_json_parse (buf, size, "plan output", &err);
    if (!o)
        fail_msg ("%s\n%s", err.text, buf);
    json_object *sum = ccas_json_get (o, "summary");
    assert_int_equal (ccas_json_int (sum, "jobs", -1), 4);
    assert_int_equal (ccas_json_int (sum, "matched", -1), 2);
    assert_int_equal (ccas_json_int (sum, "unmatched", -1), 2);
    assert_int_equal (ccas_json_int (sum, "new_nodes", -1), 2);
    assert_true (ccas_json_bool (o, "dry_run", false));
    json_object *arr = ccas_json_get (o, "jobs");
    assert_int_equal (json_object_array_length (arr), 4);
    json_object *packed = json_object_array_get_idx (arr, 0);
    assert_string_equal (ccas_json_str (packed, "id"), "packed");
    json_object *pn = ccas_json_get (packed, "nodes");
    assert_int_equal (json_object_array_length (pn), 2); /* htc-1, then the new node once */
    assert_string_equal (json_object_get_string (json_object_array_get_idx (pn, 0)), "htc-1");
    json_object *ph = json_object_array_get_idx (pn, 1);
    assert_true (ccas_json_bool (ph, "new", false));
    assert_string_equal (ccas_json_str (ph, "machine_type"), "Standard_F2s_v2");
    char want[32];
    snprintf (want, sizeof (want), "new-%u", n2->index);
    assert_string_equal (ccas_json_str (ph, "placeholder"), want);
    assert_string_equal (ccas_json_str (json_object_array_get_idx (arr, 1), "id"), "single \"quoted\"");
    assert_string_equal (ccas_json_str (json_object_array_get_idx (arr, 2), "reason"), "no bucket fits");
    assert_string_equal (ccas_json_str (json_object_array_get_idx (arr, 3), "reason"), "unknown");
    /* members before the jobs, one job per line */
    assert_non_null (strstr (buf, "\n  \"jobs\": ["));
    assert_true (strstr (buf, "\"dry_run\"") < strstr (buf, "\n  \"jobs\": ["));
    assert_non_null (strstr (buf, "\n    { \"id\": \"packed\""));
    json_object_put (o);
    free (buf);

    /* a named new node (after apply) is written by name */
    n2->name = "htc-11";
    buf = NULL;
    f = open_memstream (&buf, &size);
    assert_int_equal (ccas_plan_write_json (p, NULL, f), 0);
    fclose (f);
    assert_non_null (strstr (buf, "[ \"htc-1\", \"htc-11\" ]"));
    free (buf);

    ccas_plan_destroy (p);
    ccas_jobs_destroy (jobs);
    ccas_cluster_destroy (c);
    ccas_conf_destroy (cfg);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_empty_plan),         cmocka_unit_test (test_creates_gathered),
        cmocka_unit_test (test_sets_by_attributes), cmocka_unit_test (test_starts),
        cmocka_unit_test (test_terminate_by_hand),  cmocka_unit_test (test_to_json),
        cmocka_unit_test (test_write_json),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
