/* SPDX-License-Identifier: MIT */
/* test_job.c: jobs in the scheduler-neutral JSON form — every mistake
 * refused with the input's name and the job's path, from a tree and from
 * text streamed job by job (with line and column); then what a job is made
 * of: ids, chunks and slot counts, packing, job-level exclusive and
 * colocated folded into the constraints, running jobs' nodes. */
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

#include "model/constraint.h"
#include "model/job.h"
#include "model/test/fixture.h"
#include "util/file.h"

struct world {
    struct ccas_resdict *dict;
    struct ccas_shared *shared;
    struct ccas_cons_cache *cache;
};

static int setup (void **state)
{
    static struct world w;
    w.dict = ccas_resdict_create ();
    w.shared = ccas_shared_create ();
    w.cache = ccas_constraint_cache_create (w.dict, w.shared);
    *state = &w;
    return w.cache ? 0 : -1;
}

static int teardown (void **state)
{
    struct world *w = *state;
    ccas_constraint_cache_destroy (w->cache);
    ccas_shared_destroy (w->shared);
    ccas_resdict_destroy (w->dict);
    return 0;
}

static const struct ccas_job *by_id (const struct ccas_jobs *jobs, const char *id)
{
    for (size_t i = 0; i < jobs->n; i++)
        if (strcmp (jobs->v[i].id, id) == 0)
            return &jobs->v[i];
    fail_msg ("no job '%s'", id);
    return NULL;
}

/* ---- bad input ------------------------------------------------------------------------------- */

static const struct {
    const char *json;
    const char *want; /* the whole message after "jobs.json: " */
} bad_jobs[] = {
    {"[3]", "[0]: expected a job object"},
    {"[{}, \"x\"]", "[1]: expected a job object"},
    {"[{\"id\": \"a\", \"nodecount\": 2}]", "[0]: unknown key 'nodecount'"},
    {"[{\"id\": 1.5}]", "[0]: id: expected a string or a number"},
    {"[{\"id\": [\"a\"]}]", "[0]: id: expected a string or a number"},
    {"[{\"node_count\": 0}]", "[0].node_count: expected a positive integer up to 1000000, got 0"},
    {"[{\"node_count\": -2}]", "[0].node_count: expected a positive integer up to 1000000, got -2"},
    {"[{\"node_count\": 1000001}]", "[0].node_count: expected a positive integer up to 1000000, got 1000001"},
    {"[{\"node_count\": \"2\"}]", "[0].node_count: expected a positive integer"},
    {"[{\"node_count\": 2.0}]", "[0].node_count: expected a positive integer"},
    {"[{\"chunks\": [], \"id\": \"c\"}]", "[0]: chunks: expected a non-empty list of {count, constraints}"},
    {"[{\"chunks\": {\"count\": 1}}]", "[0]: chunks: expected a non-empty list of {count, constraints}"},
    {"[{\"chunks\": [{\"count\": 1}], \"node_count\": 2}]",
     "[0]: give either chunks or node_count/constraints, not both"},
    {"[{\"chunks\": [{\"count\": 1}], \"constraints\": {}}]",
     "[0]: give either chunks or node_count/constraints, not both"},
    {"[{\"chunks\": [{\"count\": 1}, 3]}]", "[0].chunks[1]: expected {count, constraints}"},
    {"[{\"chunks\": [{\"count\": 0}]}]",
     "[0].chunks[0].count: expected a positive integer up to 1000000, got 0"},
    {"[{\"packing\": \"spread\"}]", "[0]: packing: expected 'pack' or 'scatter', got 'spread'"},
    {"[{\"packing\": 1}]", "[0].packing: expected a string, got 1"},
    {"[{\"exclusive\": \"yes\"}]", "[0].exclusive: expected true or false, got \"yes\""},
    {"[{\"colocated\": 1}]", "[0].colocated: expected true or false, got 1"},
    {"[{\"state\": \"held\"}]", "[0]: state: expected 'pending' or 'running', got 'held'"},
    {"[{\"state\": \"running\"}]", "[0]: nodes: a running job names the nodes it runs on"},
    {"[{\"state\": \"running\", \"nodes\": []}]", "[0]: nodes: a running job names the nodes it runs on"},
    {"[{\"state\": \"running\", \"nodes\": [\"a\", 2]}]", "[0]: nodes[1]: expected a node name"},
    {"[{\"id\": \"a\"}, {\"constraints\": {\"node.vmsize\": \"x\"}}]", "[1].constraints"},
    {"[{\"constraints\": {\"mem\": \"4gbb\"}}]", "[0].constraints"},
    {"[{\"chunks\": [{\"constraints\": {\"node.vmsize\": \"x\"}}]}]", "[0].chunks[0].constraints"},
};

static void test_from_json_refuses (void **state)
{
    struct world *w = *state;
    for (size_t i = 0; i < sizeof (bad_jobs) / sizeof (bad_jobs[0]); i++) {
        struct ccas_error err = {""};
        char want[256];
        snprintf (want, sizeof (want), "jobs.json: %s", bad_jobs[i].want);
        if (ccas_jobs_from_json (json_tokener_parse (bad_jobs[i].json), w->cache, "jobs.json", &err))
            fail_msg ("case %zu was accepted", i);
        if (strncmp (err.text, want, strlen (want)) != 0)
            fail_msg ("case %zu: '%s', want '%s'", i, err.text, want);
        assert_null (
            ccas_jobs_from_json (json_tokener_parse (bad_jobs[i].json), w->cache, "jobs.json", NULL));
    }
    static const char *const not_arrays[] = {"{}", "\"jobs\"", "3"};
    for (size_t i = 0; i < sizeof (not_arrays) / sizeof (not_arrays[0]); i++) {
        struct ccas_error err = {""};
        assert_null (ccas_jobs_from_json (json_tokener_parse (not_arrays[i]), w->cache, "jobs.json", &err));
        assert_string_equal (err.text, "jobs.json: expected an array of jobs");
    }
    struct ccas_error err = {""};
    assert_null (ccas_jobs_from_json (NULL, w->cache, "jobs.json", &err));
    assert_string_equal (err.text, "jobs.json: expected an array of jobs");
}

/* The same mistakes from text, plus the text's own: line and column. */
static void test_from_text_refuses (void **state)
{
    struct world *w = *state;
    for (size_t i = 0; i < sizeof (bad_jobs) / sizeof (bad_jobs[0]); i++) {
        struct ccas_error err = {""};
        char want[256];
        snprintf (want, sizeof (want), "jobs.json: %s", bad_jobs[i].want);
        const char *t = bad_jobs[i].json;
        if (ccas_jobs_from_text (t, strlen (t), w->cache, "jobs.json", &err))
            fail_msg ("case %zu was accepted", i);
        if (strncmp (err.text, want, strlen (want)) != 0)
            fail_msg ("case %zu: '%s', want '%s'", i, err.text, want);
    }
    static const struct {
        const char *text;
        const char *want;
    } cases[] = {
        {"", "jobs.json: empty, expected JSON"},
        {"{\"id\": 1}", "jobs.json:1:1: expected an array ('[')"},
        {"[\n  {\"id\": \"a\"},\n  {\"id\": }\n]", "jobs.json:3:"},
        {"[{\"id\": \"a\"}", "jobs.json: truncated JSON"},
        {"[{\"id\": \"a\"}] x", "jobs.json:1:15: unexpected text after the JSON value"},
    };
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        struct ccas_error err = {""};
        if (ccas_jobs_from_text (cases[i].text, strlen (cases[i].text), w->cache, "jobs.json", &err))
            fail_msg ("text case %zu was accepted", i);
        if (strncmp (err.text, cases[i].want, strlen (cases[i].want)) != 0)
            fail_msg ("text case %zu: '%s', want '%s'", i, err.text, cases[i].want);
        /* no error struct: refused all the same */
        assert_null (
            ccas_jobs_from_text (cases[i].text, strlen (cases[i].text), w->cache, "jobs.json", NULL));
    }
}

/* ---- jobs ---------------------------------------------------------------------------------------- */

static void check_mixed (const struct ccas_jobs *jobs)
{
    assert_int_equal (jobs->n, 9);
    const struct ccas_job *j = by_id (jobs, "plain");
    assert_int_equal (j->nchunks, 1);
    assert_int_equal (j->chunks[0].count, 1);
    assert_int_equal (j->nslots, 1);
    assert_int_equal (j->packing, CCAS_SCATTER); /* the default */
    assert_false (j->colocated);
    assert_false (j->running);
    assert_false (j->matched);
    assert_false (ccas_constraint_info (j->chunks[0].cons)->exclusive);

    j = by_id (jobs, "42"); /* a numeric id, as text */
    assert_int_equal (j->nslots, 4);
    assert_int_equal (j->packing, CCAS_PACK);

    j = by_id (jobs, "job2"); /* no id: its index */
    assert_int_equal (j->nslots, 2);
    assert_true (ccas_constraint_info (j->chunks[0].cons)->exclusive);
    assert_false (ccas_constraint_info (j->chunks[0].cons)->wants_pg);

    j = by_id (jobs, "mpi");
    assert_true (j->colocated);
    assert_int_equal (j->nslots, 8);
    assert_true (ccas_constraint_info (j->chunks[0].cons)->wants_pg);
    assert_false (ccas_constraint_info (j->chunks[0].cons)->exclusive);

    j = by_id (jobs, "both"); /* flags without constraints */
    assert_true (ccas_constraint_info (j->chunks[0].cons)->exclusive);
    assert_true (ccas_constraint_info (j->chunks[0].cons)->wants_pg);

    j = by_id (jobs, "chunked");
    assert_int_equal (j->nchunks, 3);
    assert_int_equal (j->chunks[0].count, 2);
    assert_int_equal (j->chunks[1].count, 1);
    assert_int_equal (j->chunks[2].count, 1); /* count defaults to 1 */
    assert_int_equal (j->nslots, 4);
    assert_ptr_not_equal (j->chunks[0].cons, j->chunks[1].cons);

    j = by_id (jobs, "running");
    assert_true (j->running);
    assert_int_equal (j->nrunning_on, 2);
    assert_string_equal (j->running_on[1], "htc-2");
    j = by_id (jobs, "pending");
    assert_false (j->running);
    assert_null (j->running_on);

    /* equal constraints compile once */
    assert_ptr_equal (by_id (jobs, "plain")->chunks[0].cons, by_id (jobs, "same-as-plain")->chunks[0].cons);
    assert_ptr_equal (by_id (jobs, "plain")->chunks[0].cons, by_id (jobs, "pending")->chunks[0].cons);
    /* in the order given */
    assert_string_equal (jobs->v[0].id, "plain");
    assert_string_equal (jobs->v[8].id, "same-as-plain");
}

static void test_mixed_from_json (void **state)
{
    struct world *w = *state;
    struct ccas_error err = {""};
    struct ccas_jobs *jobs =
        ccas_jobs_from_json (fx_load ("jobs-mixed.json"), w->cache, "jobs-mixed.json", &err);
    if (!jobs)
        fail_msg ("%s", err.text);
    check_mixed (jobs);
    ccas_jobs_destroy (jobs);
}

static void test_mixed_from_text (void **state)
{
    struct world *w = *state;
    struct ccas_error err = {""};
    size_t len;
    char *text = ccas_file_read (TEST_DATA_DIR "/jobs-mixed.json", 1 << 20, &len, &err);
    assert_non_null (text);
    struct ccas_jobs *jobs = ccas_jobs_from_text (text, len, w->cache, "jobs-mixed.json", &err);
    free (text); /* the jobs keep nothing of the text */
    if (!jobs)
        fail_msg ("%s", err.text);
    check_mixed (jobs);
    ccas_jobs_destroy (jobs);
}

/* Many jobs from text: every one, in order, with one shape compiled. */
static void test_many_from_text (void **state)
{
    struct world *w = *state;
    struct ccas_error err = {""};
    enum { N = 20000 };
    size_t cap = (size_t)N * 64, len = 0;
    char *text = malloc (cap);
    assert_non_null (text);
    len += (size_t)snprintf (text, cap, "[");
    for (int i = 0; i < N; i++)
        len += (size_t)snprintf (text + len, cap - len,
                                 "%s{\"id\": \"j%d\", \"constraints\": {\"ncpus\": 2}}", i ? ",\n" : "", i);
    len += (size_t)snprintf (text + len, cap - len, "]");
    size_t shapes = ccas_constraint_cache_count (w->cache);
    struct ccas_jobs *jobs = ccas_jobs_from_text (text, len, w->cache, "big.json", &err);
    free (text);
    assert_non_null (jobs);
    assert_int_equal (jobs->n, N);
    assert_string_equal (jobs->v[N - 1].id, "j19999");
    assert_ptr_equal (jobs->v[0].chunks[0].cons, jobs->v[N - 1].chunks[0].cons);
    assert_true (ccas_constraint_cache_count (w->cache) <= shapes + 1);
    ccas_jobs_destroy (jobs);
    struct ccas_jobs *none = ccas_jobs_from_text ("[]", 2, w->cache, "none.json", &err);
    assert_non_null (none);
    assert_int_equal (none->n, 0);
    ccas_jobs_destroy (none);
}

/* Adapters build jobs by hand: the set grows past its hint, ids are copied. */
static void test_add_by_hand (void **state)
{
    struct world *w = *state;
    struct ccas_jobs *jobs = ccas_jobs_create (0);
    assert_non_null (jobs);
    char id[16];
    for (int i = 0; i < 100; i++) {
        snprintf (id, sizeof (id), "h%d", i);
        struct ccas_job *j = ccas_jobs_add (jobs, id, i % 3);
        assert_non_null (j);
        assert_int_equal (j->nchunks, (uint32_t)(i % 3));
        assert_non_null (j->chunks); /* room for one even with none */
        assert_int_equal (j->packing, CCAS_SCATTER);
        j->chunks[0].count = 1;
        j->chunks[0].cons = ccas_constraint_any (w->cache);
    }
    id[0] = 'X';
    assert_int_equal (jobs->n, 100);
    for (int i = 0; i < 100; i++) {
        snprintf (id, sizeof (id), "h%d", i);
        assert_string_equal (jobs->v[i].id, id);
        assert_int_equal (jobs->v[i].chunks[0].count, 1);
    }
    char *s = ccas_jobs_alloc (jobs, 32);
    assert_non_null (s);
    memset (s, 'x', 32);
    ccas_jobs_destroy (jobs);
    ccas_jobs_destroy (NULL);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_from_json_refuses), cmocka_unit_test (test_from_text_refuses),
        cmocka_unit_test (test_mixed_from_json),   cmocka_unit_test (test_mixed_from_text),
        cmocka_unit_test (test_many_from_text),    cmocka_unit_test (test_add_by_hand),
    };
    return cmocka_run_group_tests (tests, setup, teardown);
}
