/* SPDX-License-Identifier: MIT */
/* test_match.c: the allocation engine, plans and scale-down, as a table of scenarios.
 *
 * Each scenario starts from data/match-status.json (htc: F2s_v2 and F4s_v2
 * sharing one family quota; hpc: HB120rs_v3 with InfiniBand and placement
 * groups of at most 4; gpu: NC24ads_A100_v4, 2 nodes, reported with 0 GPUs),
 * patches it, adds existing nodes, config and jobs, runs a pass and checks
 * what the engine decided against expectations written as JSON:
 *   matched: [ids]          unmatched: {id: "reason substring"}
 *   new: {"na/mt": count}   (every other bucket must get none)
 *   new_pgs: n              distinct new placement groups
 *   uses: {id: [names]}     existing nodes the job must be on
 *   start / terminate / kept: [names]
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ccapi/ccapi.h"
#include "conf/conf.h"
#include "engine/match.h"
#include "engine/plan.h"
#include "engine/scaledown.h"
#include "model/cluster.h"
#include "util/json.h"

#define NOW 1000000.0

/* The scenarios are data: tests/data/match-scenarios.json, a list of
 * {"name", "group", "patch", "nodes", "config", "times", "jobs", "expect"}
 * where patch is {"na/mt": {bucket fields}, "na": {nodearray fields},
 * "cluster": {...}}; nodes are node records (Status defaults to Ready,
 * NodeId to Name); config is merged into a minimal config; times is the
 * scale-down state {node_id: {first_seen, last_busy}}; expect says what the
 * pass must make of them (check_jobs and the other checks below). */
struct scenario {
    const char *name;
    const char *patch;
    const char *nodes;
    const char *config;
    const char *times;
    const char *jobs;
    const char *expect;
};

/* Member `key` of `sc` as JSON text (borrowed from `sc`), or NULL. */
static const char *member_text (json_object *sc, const char *key)
{
    json_object *v = ccas_json_get (sc, key);
    return v ? json_object_to_json_string_ext (v, JSON_C_TO_STRING_PLAIN) : NULL;
}

static struct scenario scenario_of (json_object *sc)
{
    return (struct scenario){
        .name = ccas_json_str (sc, "name"),
        .patch = member_text (sc, "patch"),
        .nodes = member_text (sc, "nodes"),
        .config = member_text (sc, "config"),
        .times = member_text (sc, "times"),
        .jobs = member_text (sc, "jobs"),
        .expect = member_text (sc, "expect"),
    };
}

/* ---- building the inputs -------------------------------------------------------------- */

static json_object *load_status (void)
{
    struct ccas_error err = {""};
    json_object *st = ccas_json_load_file (TEST_DATA_DIR "/match-status.json", 1 << 20, &err);
    if (!st)
        fail_msg ("%s", err.text);
    return st;
}

static void merge (json_object *dst, json_object *src)
{
    json_object_object_foreach (src, k, v) json_object_object_add (dst, k, json_object_get (v));
}

static void patch_status (json_object *st, const char *patch)
{
    json_object *p = patch ? json_tokener_parse (patch) : NULL;
    if (patch && !p)
        fail_msg ("bad patch JSON");
    if (!p)
        return;
    json_object_object_foreach (p, key, fields)
    {
        if (strcmp (key, "cluster") == 0) {
            merge (st, fields);
            continue;
        }
        char na[64], mt[64] = "";
        sscanf (key, "%63[^/]/%63s", na, mt);
        json_object *nas = json_object_object_get (st, "nodearrays");
        for (size_t i = 0; i < json_object_array_length (nas); i++) {
            json_object *a = json_object_array_get_idx (nas, i);
            if (strcmp (json_object_get_string (json_object_object_get (a, "name")), na) != 0)
                continue;
            if (!mt[0]) {
                merge (a, fields);
                continue;
            }
            json_object *bs = json_object_object_get (a, "buckets");
            for (size_t j = 0; j < json_object_array_length (bs); j++) {
                json_object *b = json_object_array_get_idx (bs, j);
                const char *bmt = json_object_get_string (
                    json_object_object_get (json_object_object_get (b, "definition"), "machineType"));
                if (strcmp (bmt, mt) == 0)
                    merge (b, fields);
            }
        }
    }
    json_object_put (p);
}

static json_object *make_nodes (const char *text)
{
    json_object *arr = json_tokener_parse (text ? text : "[]");
    for (size_t i = 0; i < json_object_array_length (arr); i++) {
        json_object *n = json_object_array_get_idx (arr, i);
        const char *name = json_object_get_string (json_object_object_get (n, "Name"));
        char ip[32];
        if (!json_object_object_get (n, "NodeId"))
            json_object_object_add (n, "NodeId", json_object_new_string (name));
        if (!json_object_object_get (n, "Status"))
            json_object_object_add (n, "Status", json_object_new_string ("Ready"));
        if (!json_object_object_get (n, "TargetState"))
            json_object_object_add (n, "TargetState", json_object_new_string ("Started"));
        if (strcmp (json_object_get_string (json_object_object_get (n, "Status")), "Ready") == 0) {
            snprintf (ip, sizeof (ip), "10.0.0.%zu", i + 4);
            json_object_object_add (n, "PrivateIp", json_object_new_string (ip));
            json_object_object_add (n, "Hostname", json_object_new_string (name));
        }
    }
    json_object *root = json_object_new_object ();
    json_object_object_add (root, "nodes", arr);
    return root;
}

static struct ccas_config *make_config (const char *extra)
{
    struct ccas_error err = {""};
    json_object *root =
        json_tokener_parse ("{\"url\": \"https://cc\", \"username\": \"u\", \"password\": \"p\","
                            " \"cluster_name\": \"test\", \"logging\": {\"syslog\": false}}");
    if (extra) {
        json_object *x = json_tokener_parse (extra);
        if (!x)
            fail_msg ("bad config JSON");
        merge (root, x);
        json_object_put (x);
    }
    struct ccas_config *cfg = ccas_conf_from_json (root, "test-config", &err);
    if (!cfg)
        fail_msg ("%s", err.text);
    return cfg;
}

/* ---- checking the outcome --------------------------------------------------------------- */

static const struct ccas_job *job_by_id (const struct ccas_jobs *jobs, const char *id)
{
    for (size_t i = 0; i < jobs->n; i++)
        if (strcmp (jobs->v[i].id, id) == 0)
            return &jobs->v[i];
    fail_msg ("no job '%s'", id);
    return NULL;
}

static void check_jobs (const char *name, json_object *expect, const struct ccas_jobs *jobs)
{
    json_object *matched = json_object_object_get (expect, "matched");
    json_object *unmatched = json_object_object_get (expect, "unmatched");
    size_t want_matched = 0;

    for (size_t i = 0; matched && i < json_object_array_length (matched); i++) {
        const struct ccas_job *j =
            job_by_id (jobs, json_object_get_string (json_object_array_get_idx (matched, i)));
        if (!j->matched)
            fail_msg ("%s: job %s unmatched: %s", name, j->id, j->reason);
        want_matched++;
    }
    if (unmatched) {
        json_object_object_foreach (unmatched, id, sub)
        {
            const struct ccas_job *j = job_by_id (jobs, id);
            if (j->matched)
                fail_msg ("%s: job %s matched, expected unmatched", name, id);
            if (!j->reason || !strstr (j->reason, json_object_get_string (sub)))
                fail_msg ("%s: job %s reason '%s' lacks '%s'", name, id, j->reason,
                          json_object_get_string (sub));
        }
    }
    size_t got_matched = 0;
    for (size_t i = 0; i < jobs->n; i++)
        got_matched += !jobs->v[i].running && jobs->v[i].matched;
    if (got_matched != want_matched)
        fail_msg ("%s: %zu jobs matched, expected %zu", name, got_matched, want_matched);
}

static void check_new (const char *name, json_object *expect, const struct ccas_cluster *c)
{
    json_object *want = json_object_object_get (expect, "new");
    size_t total_want = 0;
    if (want) {
        json_object_object_foreach (want, key, count)
        {
            size_t got = 0;
            for (size_t i = c->nexisting; i < c->nnodes; i++) {
                char label[160];
                snprintf (label, sizeof (label), "%s/%s", c->nodes[i]->nodearray, c->nodes[i]->vm_size);
                got += strcmp (label, key) == 0;
            }
            if (got != (size_t)json_object_get_int (count))
                fail_msg ("%s: %zu new nodes in %s, expected %d", name, got, key,
                          json_object_get_int (count));
            total_want += (size_t)json_object_get_int (count);
        }
    }
    if (want && c->nnodes - c->nexisting != total_want)
        fail_msg ("%s: %zu new nodes in all, expected %zu", name, c->nnodes - c->nexisting, total_want);
    json_object *pgs = json_object_object_get (expect, "new_pgs");
    if (pgs) {
        int n = 0;
        for (size_t i = 0; i < c->nbuckets; i++)
            for (size_t p = 0; p < c->buckets[i].npgs; p++)
                n += c->buckets[i].pgs[p]->is_new;
        if (n != json_object_get_int (pgs))
            fail_msg ("%s: %d new placement groups, expected %d", name, n, json_object_get_int (pgs));
        /* every slot of a colocated job is in one group */
    }
}

static void check_uses (const char *name, json_object *expect, const struct ccas_jobs *jobs)
{
    json_object *uses = json_object_object_get (expect, "uses");
    if (!uses)
        return;
    json_object_object_foreach (uses, id, names)
    {
        const struct ccas_job *j = job_by_id (jobs, id);
        for (size_t k = 0; k < json_object_array_length (names); k++) {
            const char *want = json_object_get_string (json_object_array_get_idx (names, k));
            bool found = false;
            for (uint32_t s = 0; s < j->nslots && !found; s++)
                found = j->slots[s]->name && strcmp (j->slots[s]->name, want) == 0;
            if (!found)
                fail_msg ("%s: job %s is not on %s", name, id, want);
        }
    }
}

static void check_colocation (const char *name, const struct ccas_jobs *jobs)
{
    for (size_t i = 0; i < jobs->n; i++) {
        const struct ccas_job *j = &jobs->v[i];
        if (!j->matched || !j->colocated)
            continue;
        for (uint32_t s = 0; s < j->nslots; s++)
            if (!j->slots[s]->pg || j->slots[s]->pg != j->slots[0]->pg)
                fail_msg ("%s: colocated job %s spans placement groups", name, j->id);
    }
}

static void check_actions (const char *name, const char *key, json_object *expect,
                           const struct ccas_plan_action *v, size_t n)
{
    json_object *want = json_object_object_get (expect, key);
    if (!want)
        return;
    if (json_object_array_length (want) != n)
        fail_msg ("%s: %zu nodes to %s, expected %zu", name, n, key, json_object_array_length (want));
    for (size_t k = 0; k < n; k++) {
        bool found = false;
        for (size_t i = 0; i < n && !found; i++)
            found =
                strcmp (v[i].node->name, json_object_get_string (json_object_array_get_idx (want, k))) == 0;
        if (!found)
            fail_msg ("%s: %s does not include %s", name, key,
                      json_object_get_string (json_object_array_get_idx (want, k)));
    }
}

/* ---- the runner ------------------------------------------------------------------------------- */

static size_t distinct_slots (const struct ccas_job *j)
{
    size_t n = 0;
    for (uint32_t s = 0; s < j->nslots; s++) {
        uint32_t k = 0;
        while (k < s && j->slots[k] != j->slots[s])
            k++;
        n += k == s;
    }
    return n;
}

/* The streamed JSON parses, and names every pending job once, in order, with
 * its nodes or its reason. */
static void check_plan_json (const char *name, const struct ccas_plan *plan, const struct ccas_jobs *jobs)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream (&text, &len);
    assert_non_null (f);
    assert_int_equal (ccas_plan_write_json (plan, NULL, f), 0);
    fclose (f);
    json_object *pj = json_tokener_parse (text);
    if (!pj)
        fail_msg ("%s: the plan's JSON does not parse: %s", name, text);
    json_object *arr = json_object_object_get (pj, "jobs");
    size_t k = 0;
    for (size_t i = 0; i < jobs->n; i++) {
        const struct ccas_job *j = &jobs->v[i];
        if (j->running || j->ignore)
            continue;
        json_object *o = json_object_array_get_idx (arr, k++);
        if (!o || strcmp (json_object_get_string (json_object_object_get (o, "id")), j->id) != 0)
            fail_msg ("%s: job %s is not job %zu of the plan's JSON", name, j->id, k - 1);
        assert_int_equal (json_object_get_boolean (json_object_object_get (o, "matched")), j->matched);
        if (j->matched)
            assert_int_equal (json_object_array_length (json_object_object_get (o, "nodes")),
                              distinct_slots (j));
        else
            assert_string_equal (json_object_get_string (json_object_object_get (o, "reason")),
                                 j->reason ? j->reason : "unknown");
    }
    assert_int_equal (json_object_array_length (arr), k);
    assert_int_equal (
        json_object_get_int64 (json_object_object_get (json_object_object_get (pj, "summary"), "jobs")), k);
    json_object_put (pj);
    free (text);
}

static void run (const struct scenario *sc)
{
    struct ccas_error err = {""};
    struct ccas_config *cfg = make_config (sc->config);
    json_object *st = load_status ();
    patch_status (st, sc->patch);
    struct ccas_status *status = ccas_status_from_json (st, "test", &err);
    if (!status)
        fail_msg ("%s: status: %s", sc->name, err.text);
    struct ccas_record_list *nodes = ccas_record_list_from_json (make_nodes (sc->nodes), &err);
    if (!nodes)
        fail_msg ("%s: nodes: %s", sc->name, err.text);
    struct ccas_cluster *c = ccas_cluster_create (cfg, status, nodes, &err);
    if (!c)
        fail_msg ("%s: model: %s", sc->name, err.text);
    struct ccas_jobs *jobs = ccas_jobs_from_json (json_tokener_parse (sc->jobs), c->cons, "jobs", &err);
    if (!jobs)
        fail_msg ("%s: jobs: %s", sc->name, err.text);
    /* as the commands do: nodes stuck booting are marked before matching */
    json_object *times = json_tokener_parse (sc->times ? sc->times : "{}");
    assert_true (ccas_scaledown_mark_stuck (c, times, NOW) >= 0);
    assert_int_equal (ccas_match (c, jobs, NULL, &err), 0);
    struct ccas_plan *plan = ccas_plan_create (c, jobs, &err);
    assert_non_null (plan);
    assert_int_equal (ccas_scaledown_plan (plan, times, NOW, &err), 0);

    json_object *expect = json_tokener_parse (sc->expect);
    if (!expect)
        fail_msg ("%s: bad expectation JSON", sc->name);
    check_jobs (sc->name, expect, jobs);
    check_new (sc->name, expect, c);
    check_uses (sc->name, expect, jobs);
    check_colocation (sc->name, jobs);
    check_actions (sc->name, "start", expect, plan->starts, plan->nstarts);
    check_actions (sc->name, "terminate", expect, plan->terminates, plan->nterminates);
    check_actions (sc->name, "kept", expect, plan->kept, plan->nkept);

    check_plan_json (sc->name, plan, jobs);

    json_object_put (expect);
    json_object_put (times);
    ccas_plan_destroy (plan);
    ccas_jobs_destroy (jobs);
    ccas_cluster_destroy (c);
    ccas_conf_destroy (cfg);
}

static void test_scenario (void **state)
{
    struct scenario sc = scenario_of (*state);
    run (&sc);
}

/* Bad jobs name their path and nothing runs. */
static void test_bad_jobs (void **state)
{
    static const struct {
        const char *json;
        const char *want;
    } cases[] = {
        {"{}", "jobs: expected an array of jobs"},
        {"[1]", "jobs: [0]: expected a job object"},
        {"[{\"id\": \"a\", \"node_count\": 0}]",
         "jobs: [0].node_count: expected a positive integer up to 1000000, got 0"},
        {"[{\"id\": \"a\", \"node_count\": \"2\"}]", "jobs: [0].node_count: expected a positive integer"},
        {"[{\"id\": \"a\", \"packing\": \"tight\"}]",
         "jobs: [0]: packing: expected 'pack' or 'scatter', got 'tight'"},
        {"[{\"id\": \"a\", \"constraints\": {\"ncpus\": \"x1\"}}, {\"id\": \"b\", \"constraints\": {\"or\": "
         "3}}]",
         "jobs: [1].constraints.or: expected a list of constraints, got 3"},
        {"[{\"id\": \"a\", \"colour\": \"red\"}]", "jobs: [0]: unknown key 'colour'"},
        {"[{\"id\": \"a\", \"chunks\": []}]",
         "jobs: [0]: chunks: expected a non-empty list of {count, constraints}"},
        {"[{\"id\": \"a\", \"chunks\": [{\"count\": 1}], \"node_count\": 2}]",
         "jobs: [0]: give either chunks or node_count/constraints, not both"},
        {"[{\"id\": \"a\", \"state\": \"running\"}]",
         "jobs: [0]: nodes: a running job names the nodes it runs on"},
        {"[{\"id\": {}}]", "jobs: [0]: id: expected a string or a number"},
        {"[{\"id\": \"a\", \"exclusive\": \"yes\"}]",
         "jobs: [0].exclusive: expected true or false, got \"yes\""},
    };
    struct ccas_resdict *dict = ccas_resdict_create ();
    struct ccas_shared *shared = ccas_shared_create ();
    struct ccas_cons_cache *cache = ccas_constraint_cache_create (dict, shared);
    (void)state;
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        struct ccas_error err = {""};
        struct ccas_jobs *jobs =
            ccas_jobs_from_json (json_tokener_parse (cases[i].json), cache, "jobs", &err);
        if (jobs)
            fail_msg ("case %zu accepted", i);
        assert_string_equal (err.text, cases[i].want);
    }
    ccas_constraint_cache_destroy (cache);
    ccas_shared_destroy (shared);
    ccas_resdict_destroy (dict);
}

/* ---- the indexes change no result ------------------------------------------------------------
 * Random clusters and queues, matched with the engine's indexes and without
 * them (every node and group looked at in turn): every job gets the same
 * nodes, or the same reason, and the same nodes and groups are made. */

static uint64_t rng_state = 0x2545F4914F6CDD1DULL;
static uint32_t rnd (uint32_t n)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state % n);
}

static const char *const machine_types[] = {"Standard_F2s_v2", "Standard_F4s_v2", "Standard_HB120rs_v3",
                                            "Standard_NC24ads_A100_v4"};
static const char *const nodearray_of[] = {"htc", "htc", "hpc", "gpu"};

static char *random_nodes (void)
{
    json_object *arr = json_object_new_array ();
    uint32_t n = rnd (24);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t b = rnd (4);
        char name[32];
        snprintf (name, sizeof (name), "%s-%u", nodearray_of[b], i + 1);
        json_object *o = json_object_new_object ();
        json_object_object_add (o, "Name", json_object_new_string (name));
        json_object_object_add (o, "Template", json_object_new_string (nodearray_of[b]));
        json_object_object_add (o, "MachineType", json_object_new_string (machine_types[b]));
        if (b >= 2 && rnd (3))
            json_object_object_add (o, "PlacementGroupId", json_object_new_string (rnd (2) ? "pgA" : "pgB"));
        if (rnd (8) == 0)
            json_object_object_add (o, "Status", json_object_new_string (rnd (2) ? "Acquiring" : "Failed"));
        json_object_array_add (arr, o);
    }
    char *text = strdup (json_object_to_json_string (arr));
    json_object_put (arr);
    return text;
}

static json_object *random_constraint (void)
{
    json_object *o = json_object_new_object ();
    switch (rnd (9)) {
    case 0:
        json_object_object_add (o, "ncpus", json_object_new_int (1 + (int)rnd (8)));
        break;
    case 1:
        json_object_object_add (o, "ncpus", json_object_new_int (1 + (int)rnd (4)));
        json_object_object_add (o, "mem", json_object_new_string (rnd (2) ? "2g" : "6g"));
        break;
    case 2:
        json_object_object_add (o, "node.nodearray", json_object_new_string (nodearray_of[rnd (4)]));
        json_object_object_add (o, "ncpus", json_object_new_int (1 + (int)rnd (30)));
        break;
    case 3: {
        json_object *l = json_object_new_array ();
        json_object_array_add (l, json_object_new_string (machine_types[rnd (4)]));
        json_object_array_add (l, json_object_new_string (machine_types[rnd (4)]));
        json_object_object_add (o, "node.vm_size", l);
        break;
    }
    case 4:
        json_object_object_add (o, "licenses", json_object_new_int (1 + (int)rnd (2)));
        json_object_object_add (o, "ncpus", json_object_new_int (1));
        break;
    case 5: {
        json_object *l = json_object_new_array (), *a = json_object_new_object (),
                    *b = json_object_new_object ();
        json_object_object_add (a, "ngpus", json_object_new_int (1));
        json_object_object_add (b, "ncpus", json_object_new_int (1 + (int)rnd (4)));
        json_object_array_add (l, a);
        json_object_array_add (l, b);
        json_object_object_add (o, rnd (2) ? "or" : "xor", l);
        break;
    }
    case 6:
        json_object_object_add (o, "node.nodearray", json_object_new_string ("hpc"));
        json_object_object_add (o, "in-a-placement-group", json_object_new_boolean (0));
        break;
    case 7:
        json_object_object_add (o, "ncpus", json_object_new_int (1000));
        break;
    default:
        json_object_object_add (o, "ncpus", json_object_new_int (2));
        json_object_object_add (o, "exclusive-task", json_object_new_boolean (1));
        break;
    }
    return o;
}

static char *random_jobs (const char *nodes)
{
    json_object *arr = json_object_new_array ();
    json_object *ns = json_tokener_parse (nodes);
    /* some existing nodes run a job */
    for (size_t i = 0; i < json_object_array_length (ns); i++)
        if (rnd (3) == 0) {
            json_object *o = json_object_new_object (), *on = json_object_new_array ();
            char id[32];
            snprintf (id, sizeof (id), "r%zu", i);
            json_object_object_add (o, "id", json_object_new_string (id));
            json_object_object_add (o, "state", json_object_new_string ("running"));
            json_object_array_add (
                on, json_object_get (json_object_object_get (json_object_array_get_idx (ns, i), "Name")));
            json_object_object_add (o, "nodes", on);
            json_object *k = json_object_new_object ();
            json_object_object_add (k, "ncpus", json_object_new_int (1 + (int)rnd (2)));
            if (rnd (4) == 0)
                json_object_object_add (k, "exclusive", json_object_new_boolean (1));
            json_object_object_add (o, "constraints", k);
            json_object_array_add (arr, o);
        }
    uint32_t n = 20 + rnd (60);
    for (uint32_t i = 0; i < n; i++) {
        json_object *o = json_object_new_object ();
        char id[32];
        snprintf (id, sizeof (id), "%u", i);
        json_object_object_add (o, "id", json_object_new_string (id));
        if (rnd (6) == 0) {
            json_object *chunks = json_object_new_array ();
            for (uint32_t c = 0, nc = 1 + rnd (2); c <= nc; c++) {
                json_object *ch = json_object_new_object ();
                json_object_object_add (ch, "count", json_object_new_int (1 + (int)rnd (3)));
                json_object_object_add (ch, "constraints", random_constraint ());
                json_object_array_add (chunks, ch);
            }
            json_object_object_add (o, "chunks", chunks);
        } else {
            json_object_object_add (o, "node_count", json_object_new_int (1 + (int)rnd (5)));
            json_object_object_add (o, "constraints", random_constraint ());
        }
        if (rnd (3) == 0)
            json_object_object_add (o, "packing", json_object_new_string (rnd (2) ? "pack" : "scatter"));
        if (rnd (5) == 0)
            json_object_object_add (o, "exclusive", json_object_new_boolean (1));
        json_object *k = json_object_object_get (o, "constraints");
        if (rnd (4) == 0 && k && !json_object_object_get (k, "in-a-placement-group"))
            json_object_object_add (o, "colocated", json_object_new_boolean (1));
        json_object_array_add (arr, o);
    }
    char *text = strdup (json_object_to_json_string (arr));
    json_object_put (arr);
    json_object_put (ns);
    return text;
}

/* One pass; its outcome as text: per job the nodes (names, or bucket and
 * group of new ones, in slot order) or the reason, then the new nodes. */
static char *outcome (const char *patch, const char *nodes, const char *config, const char *jobs_text,
                      uint32_t salt, bool exhaustive)
{
    struct ccas_error err = {""};
    struct ccas_config *cfg = make_config (config);
    json_object *st = load_status ();
    patch_status (st, patch);
    struct ccas_status *status = ccas_status_from_json (st, "test", &err);
    struct ccas_record_list *recs = ccas_record_list_from_json (make_nodes (nodes), &err);
    assert_non_null (status);
    assert_non_null (recs);
    struct ccas_cluster *c = ccas_cluster_create (cfg, status, recs, &err);
    if (!c)
        fail_msg ("model: %s", err.text);
    struct ccas_jobs *jobs = ccas_jobs_from_json (json_tokener_parse (jobs_text), c->cons, "jobs", &err);
    if (!jobs)
        fail_msg ("jobs: %s", err.text);
    for (size_t i = 0; i < jobs->n; i++) /* PBS's: one placement set, or none */
        jobs->v[i].single_set = ((i + salt) * 2654435761u >> 9) % 4 == 0;
    ccas_match_set_exhaustive (exhaustive);
    assert_int_equal (ccas_match (c, jobs, NULL, &err), 0);
    ccas_match_set_exhaustive (false);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream (&text, &len);
    for (size_t i = 0; i < jobs->n; i++) {
        const struct ccas_job *j = &jobs->v[i];
        if (j->running)
            continue;
        fprintf (f, "%s:", j->id);
        if (!j->matched)
            fprintf (f, " %s\n", j->reason);
        for (uint32_t k = 0; j->matched && k < j->nslots; k++) {
            char label[256];
            fprintf (f, " %s#%u", ccas_node_label (j->slots[k], label, sizeof (label)), j->slots[k]->index);
        }
        fputc ('\n', f);
    }
    for (size_t i = c->nexisting; i < c->nnodes; i++) {
        char label[256];
        fprintf (f, "new %s\n", ccas_node_label (c->nodes[i], label, sizeof (label)));
    }
    fclose (f);
    ccas_jobs_destroy (jobs);
    ccas_cluster_destroy (c);
    ccas_conf_destroy (cfg);
    return text;
}

static void test_indexes_change_nothing (void **state)
{
    static const char *const patches[] = {
        NULL,
        "{\"htc/Standard_F2s_v2\": {\"availableCount\": 3}, \"htc/Standard_F4s_v2\": {\"availableCount\": "
        "2}}",
        "{\"hpc/Standard_HB120rs_v3\": {\"availableCount\": 6}, \"gpu/Standard_NC24ads_A100_v4\": "
        "{\"availableCount\": 0}}",
        "{\"cluster\": {\"maxCoreCount\": 400}}",
    };
    (void)state;
    for (int round = 0; round < 300; round++) {
        char *nodes = random_nodes ();
        char *jobs = random_jobs (nodes);
        const char *patch = patches[rnd (4)];
        const char *config = rnd (2) ? "{\"shared_resources\": {\"licenses\": 5}}" : NULL;
        uint32_t salt = rnd (1000);
        char *want = outcome (patch, nodes, config, jobs, salt, true);
        char *got = outcome (patch, nodes, config, jobs, salt, false);
        if (strcmp (want, got) != 0) {
            FILE *f = fopen ("test_match.differs", "w");
            if (f) {
                fprintf (f, "patch %s\nconfig %s\nnodes %s\njobs %s\n--- without indexes\n%s--- with\n%s",
                         patch, config, nodes, jobs, want, got);
                fclose (f);
            }
            fail_msg ("round %d: the indexes changed the outcome (see test_match.differs)", round);
        }
        free (want);
        free (got);
        free (jobs);
        free (nodes);
    }
}

int main (void)
{
    struct ccas_error err = {""};
    json_object *all = ccas_json_load_file (TEST_DATA_DIR "/match-scenarios.json", 1 << 22, &err);
    if (!all || !json_object_is_type (all, json_type_array)) {
        fprintf (stderr, "match-scenarios.json: %s\n", all ? "expected a list of scenarios" : err.text);
        return 1;
    }
    size_t n = json_object_array_length (all);
    struct CMUnitTest *tests = calloc (n + 2, sizeof (*tests));
    for (size_t i = 0; i < n; i++) {
        json_object *sc = json_object_array_get_idx (all, i);
        if (!ccas_json_str (sc, "name") || !ccas_json_get (sc, "jobs") || !ccas_json_get (sc, "expect")) {
            fprintf (stderr, "match-scenarios.json: [%zu]: needs a name, jobs and expect\n", i);
            return 1;
        }
        tests[i].name = ccas_json_str (sc, "name");
        tests[i].test_func = test_scenario;
        tests[i].initial_state = sc;
    }
    tests[n].name = "bad jobs name their path";
    tests[n].test_func = test_bad_jobs;
    tests[n + 1].name = "the indexes change no result";
    tests[n + 1].test_func = test_indexes_change_nothing;
    int rc = _cmocka_run_group_tests ("match", tests, n + 2, NULL, NULL);
    free (tests);
    json_object_put (all);
    return rc;
}
