/* SPDX-License-Identifier: MIT */
/* test_pbs_limits.c: PBS's run limits (pbs_limits.c) — per user, group,
 * project and overall, of jobs or of a resource, queue and server, the old
 * attributes as the entity limits they stand for, stopped and routing
 * queues; running jobs counted first; a limit PBS could not have written
 * refused with its attribute named. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine/match.h"
#include "fixture.h"
#include "pbs_jobs.h"
#include "pbs_limits.h"

/* A queue or server limit PBS would stop a job at makes no nodes: running
 * jobs count first, then queued ones in PBS's order; per user, per group,
 * overall, of jobs or of a resource; a stopped queue runs nothing. */
static void test_limits (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct ccas_cluster *c = model (NULL);
    struct ccas_pbs_queue *q = ccas_pbs_queue_create ();
    json_object *queues = pf_json ("qstat-Q-limits.json");
    json_object *server = pf_json ("qstat-B-limits.json");
    assert_int_equal (ccas_pbs_queue_limits (q, queues, server, &err), 0);
    size_t len;
    char *jobs_text = pf_text ("qstat-limits.json", &len);
    assert_int_equal (ccas_pbs_queue_read (q, jobs_text, len, NULL, NULL, &err), 0);
    free (jobs_text);
    struct ccas_pbs_jobs_stats st;
    struct ccas_jobs *jobs = ccas_pbs_queue_jobs (c, q, &st, &err);
    assert_non_null (jobs);
    assert_int_equal (ccas_match (c, jobs, NULL, &err), 0);
    assert_true (find_job (jobs, "2.s")->matched);  /* alice: 1 running + 1 = 2 */
    assert_false (find_job (jobs, "3.s")->matched); /* alice's third */
    assert_non_null (
        strstr (find_job (jobs, "3.s")->reason,
                "PBS will not start it: queue workq max_run [u:PBS_GENERIC=2]: 2 running for user alice"));
    assert_true (find_job (jobs, "4.s")->matched); /* bob has his own limit; the queue's 3rd */
    assert_false (find_job (jobs, "5.s")->matched);
    assert_non_null (strstr (find_job (jobs, "5.s")->reason, "[o:PBS_ALL=3]: 3 running"));
    assert_true (find_job (jobs, "6.s")->matched);
    assert_false (find_job (jobs, "7.s")->matched);
    assert_non_null (
        strstr (find_job (jobs, "7.s")->reason, "max_run_res.ncpus [o:PBS_ALL=4]: 3 ncpus in use"));
    assert_non_null (strstr (find_job (jobs, "8.s")->reason, "queue off is stopped"));
    assert_true (find_job (jobs, "9.s")->matched);
    assert_non_null (
        strstr (find_job (jobs, "10.s")->reason, "queue old max_user_run 1: 1 running for user dan"));
    assert_int_equal (st.limited, 5);
    assert_null (ccas_pbs_queue_comment (q, 0));
    ccas_jobs_destroy (jobs);
    ccas_pbs_queue_destroy (q);

    /* a limit PBS could not have written is an error naming it */
    q = ccas_pbs_queue_create ();
    json_object *bad = json_tokener_parse ("{\"Queue\": {\"w\": {\"max_run\": \"[x:PBS_ALL=3]\"}}}");
    assert_int_equal (ccas_pbs_queue_limits (q, bad, NULL, &err), -1);
    assert_non_null (strstr (err.text, "queue w max_run: '[x:PBS_ALL=3]'"));
    ccas_pbs_queue_destroy (q);
    json_object_put (bad);
    json_object_put (queues);
    json_object_put (server);
    model_free (c);
}

/* Read `queues` and `server` (JSON texts, either NULL) into new limits. */
static struct ccas_pbs_limits *limits_of (const char *queues, const char *server)
{
    struct ccas_error err = {""};
    struct ccas_pbs_limits *l = ccas_pbs_limits_create ();
    assert_non_null (l);
    json_object *q = queues ? json_tokener_parse (queues) : NULL;
    json_object *s = server ? json_tokener_parse (server) : NULL;
    if (ccas_pbs_limits_read (l, q, s, &err) < 0)
        fail_msg ("%s", err.text);
    json_object_put (q);
    json_object_put (s);
    return l;
}

/* Every malformed limit, named by its queue or server and attribute. */
static void test_limits_bad (void **state)
{
    (void)state;
    static const struct {
        const char *queues, *server, *error;
    } cases[] = {
        {"{\"Queue\": {\"w\": {\"max_run\": \"[o:PBS_ALL=3\"}}}", NULL,
         "queue w max_run: '[o:PBS_ALL=3': expected [o|u|g|p:NAME=VALUE]"},
        {"{\"Queue\": {\"w\": {\"max_run\": \"[oo:PBS_ALL=3]\"}}}", NULL,
         "queue w max_run: '[oo:PBS_ALL=3]': expected [o|u|g|p:NAME=VALUE]"},
        {"{\"Queue\": {\"w\": {\"max_run\": \"[u:bob]\"}}}", NULL,
         "queue w max_run: '[u:bob]': expected [o|u|g|p:NAME=VALUE]"},
        {"{\"Queue\": {\"w\": {\"max_run\": \"[u:bob=many]\"}}}", NULL,
         "queue w max_run: '[u:bob=many]': 'many' is not a number or size"},
        {"{\"Queue\": {\"w\": {\"max_run_res\": {\"mem\": \"[o:PBS_ALL=10zb]\"}}}}", NULL,
         "queue w max_run_res.mem: '[o:PBS_ALL=10zb]': '10zb' is not a number or size"},
        {"{\"Queue\": {\"w\": {\"max_user_run\": \"lots\"}}}", NULL,
         "queue w max_user_run: 'lots' is not a number or size"},
        {"{\"Queue\": {\"w\": {\"max_group_res\": {\"ncpus\": \"x\"}}}}", NULL,
         "queue w max_group_res.ncpus: 'x' is not a number or size"},
        {NULL, "{\"Server\": {\"vm\": {\"max_running\": [1]}}}",
         "server vm max_running: '[ 1 ]' is not a number"},
        {NULL, "{\"Server\": {\"vm\": {\"max_run\": \"[p:proj=1], [g=2]\"}}}",
         "server vm max_run: '[p:proj=1], [g=2]': expected [o|u|g|p:NAME=VALUE]"},
    };
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        struct ccas_error err = {""};
        struct ccas_pbs_limits *l = ccas_pbs_limits_create ();
        json_object *q = cases[i].queues ? json_tokener_parse (cases[i].queues) : NULL;
        json_object *s = cases[i].server ? json_tokener_parse (cases[i].server) : NULL;
        assert_int_equal (ccas_pbs_limits_read (l, q, s, &err), -1);
        if (!strstr (err.text, cases[i].error))
            fail_msg ("case %zu: want '%s', got '%s'", i, cases[i].error, err.text);
        json_object_put (q);
        json_object_put (s);
        ccas_pbs_limits_destroy (l);
    }
}

/* No limit at all — nothing read, a real server's queue and server with
 * none, soft limits (PBS's preference) only — admits every job. */
static void test_limits_none (void **state)
{
    (void)state;
    struct ccas_pbs_limits *l = limits_of (NULL, NULL);
    assert_true (ccas_pbs_limits_none (l));
    struct ccas_pbs_entity e = {"workq", "alice", "staff", NULL, NULL};
    assert_null (ccas_pbs_limits_admit (l, &e));
    ccas_pbs_limits_destroy (l);
    assert_true (ccas_pbs_limits_none (NULL));

    struct ccas_error err = {""};
    l = ccas_pbs_limits_create ();
    json_object *q = pf_json ("openpbs/qstat-Q-f-json.json"), *s = pf_json ("openpbs/qstat-B-f-json.json");
    assert_int_equal (ccas_pbs_limits_read (l, q, s, &err), 0);
    assert_true (ccas_pbs_limits_none (l));
    json_object_put (q);
    json_object_put (s);
    ccas_pbs_limits_destroy (l);

    l = limits_of (
        "{\"Queue\": {\"w\": {\"max_run_soft\": \"[o:PBS_ALL=1]\", \"max_queued\": \"[o:PBS_ALL=1]\"}}}",
        "{\"Server\": {\"vm\": {\"max_run_res_soft\": {\"ncpus\": \"[o:PBS_ALL=1]\"}}}}");
    assert_true (ccas_pbs_limits_none (l));
    ccas_pbs_limits_destroy (l);
    ccas_pbs_limits_destroy (NULL);
}

/* Each kind of entity counted apart; a server limit binds every queue; a
 * named entity's own limit replaces PBS_GENERIC for it; a routing queue's
 * jobs never run where they are; old attributes are the limits they
 * stand for; a size limit counts sizes. */
static void test_limits_entities (void **state)
{
    (void)state;
    struct ccas_pbs_limits *l =
        limits_of ("{\"Queue\": {\"a\": {\"max_run\": \"[g:PBS_GENERIC=1], [g:big=3]\"},"
                   " \"b\": {\"max_group_run\": 2, \"max_user_res\": {\"mem\": \"8gb\"}},"
                   " \"r\": {\"queue_type\": \"Route\"}}}",
                   "{\"Server\": {\"vm\": {\"max_run\": \"[p:PBS_GENERIC=2]\", \"max_running\": 100},"
                   " \"other\": {\"max_run\": \"[o:PBS_ALL=0]\"}}}");
    assert_false (ccas_pbs_limits_none (l));
    struct ccas_pbs_entity e = {"a", "u1", "small", "p1", NULL};
    assert_null (ccas_pbs_limits_admit (l, &e));
    const char *why = ccas_pbs_limits_admit (l, &e);
    assert_string_equal (
        why, "PBS will not start it: queue a max_run [g:PBS_GENERIC=1]: 1 running for group small");
    /* the big group has its own limit */
    struct ccas_pbs_entity big = {"a", "u1", "big", "p2", NULL};
    assert_null (ccas_pbs_limits_admit (l, &big));
    assert_null (ccas_pbs_limits_admit (l, &big));
    /* project p2 has had 2 (server-wide, in any queue) */
    why = ccas_pbs_limits_admit (l, &big);
    assert_string_equal (
        why, "PBS will not start it: server vm max_run [p:PBS_GENERIC=2]: 2 running for project p2");
    /* max_group_run: the old attribute, as [g:PBS_GENERIC=2] */
    struct ccas_pbs_entity b = {"b", "u2", "g", NULL, NULL};
    ccas_pbs_limits_running (l, &b);
    assert_null (ccas_pbs_limits_admit (l, &b));
    why = ccas_pbs_limits_admit (l, &b);
    assert_string_equal (why, "PBS will not start it: queue b max_group_run 2: 2 running for group g");
    /* max_user_res.mem: sizes add up in bytes; a job asking none is not bound */
    json_object *five = json_tokener_parse ("{\"mem\": \"5gb\"}");
    struct ccas_pbs_entity m = {"b", "u3", NULL, NULL, five};
    assert_null (ccas_pbs_limits_admit (l, &m));
    why = ccas_pbs_limits_admit (l, &m);
    assert_non_null (strstr (why, "queue b max_user_res.mem 8gb: 5g mem in use for user u3"));
    struct ccas_pbs_entity nomem = {"b", "u3", NULL, NULL, NULL};
    assert_null (ccas_pbs_limits_admit (l, &nomem));
    /* a routing queue */
    struct ccas_pbs_entity r = {"r", "u4", NULL, NULL, NULL};
    assert_string_equal (ccas_pbs_limits_admit (l, &r),
                         "PBS will not start it: queue r is a routing queue: its jobs run from the queue PBS "
                         "moves them to");
    /* only the first server counts; a job in no queue is bound by the server alone */
    struct ccas_pbs_entity none = {NULL, "u5", "small", NULL, NULL};
    assert_null (ccas_pbs_limits_admit (l, &none));
    json_object_put (five);
    ccas_pbs_limits_destroy (l);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_limits),
        cmocka_unit_test (test_limits_bad),
        cmocka_unit_test (test_limits_none),
        cmocka_unit_test (test_limits_entities),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
