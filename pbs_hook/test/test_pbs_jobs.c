/* SPDX-License-Identifier: MIT */
/* test_pbs_jobs.c: queued PBS jobs as core jobs (pbs_jobs.c) — read from
 * qstat entry by entry (its quirks, a real OpenPBS's output, a document of
 * one line), put in PBS's order, their select and place translated
 * (grouping, group_id, pack, booleans and sizes in words), and matched;
 * a job that cannot be read stays, never matched, saying why. */
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

/* The jobs of qstat-jobs.json, read from `text`: what the document is laid
 * out like must not matter. */
static void check_qstat_jobs (const char *text)
{
    struct ccas_error err = {""};
    struct ccas_cluster *c = model (NULL);
    struct ccas_pbs_jobs_stats st;
    struct ccas_jobs *jobs = read_qstat (c, text, &st, NULL);
    assert_int_equal (st.seen, 11);
    assert_int_equal (st.queued, 7);  /* 1, 2, 4[1], 4[2], 5, 8, 9 */
    assert_int_equal (st.skipped, 1); /* 6: its select cannot be read */
    /* PBS's order: Priority, then submission, then subjob index */
    assert_string_equal (jobs->v[0].id, "2.s");
    assert_string_equal (jobs->v[1].id, "1.s");
    assert_string_equal (jobs->v[2].id, "4[1].s");
    assert_string_equal (jobs->v[3].id, "4[2].s");
    const struct ccas_job *j2 = find_job (jobs, "2.s");
    assert_int_equal (j2->nslots, 4);
    assert_int_equal (j2->packing, CCAS_SCATTER);
    assert_true (j2->colocated);
    const struct ccas_job *j5 = find_job (jobs, "5.s");
    assert_int_equal (j5->nchunks, 2);
    assert_int_equal (j5->chunks[0].count, 2);
    assert_int_equal (j5->chunks[1].count, 1);
    assert_int_equal (j5->nslots, 3);
    assert_true (j5->colocated); /* ungrouped=false */
    assert_null (strstr (ccas_constraint_text (j5->chunks[0].cons), "mpiprocs"));
    assert_non_null (strstr (ccas_constraint_text (j5->chunks[1].cons), "ngpus"));
    const struct ccas_job *j8 = find_job (jobs, "8.s");
    assert_int_equal (j8->nslots, 1);
    assert_non_null (strstr (ccas_constraint_text (j8->chunks[0].cons), "\"ncpus\":2"));
    assert_null (find_job (jobs, "3.s"));
    assert_null (find_job (jobs, "4[].s"));
    /* PBS's booleans and sizes in words */
    const struct ccas_job *j9 = find_job (jobs, "9.s");
    assert_non_null (strstr (ccas_constraint_text (j9->chunks[0].cons), "\"ssd\":true"));
    assert_non_null (strstr (ccas_constraint_text (j9->chunks[0].cons), "\"hdd\":false"));
    assert_non_null (strstr (ccas_constraint_text (j9->chunks[0].cons), "\"big\":true"));
    assert_non_null (strstr (ccas_constraint_text (j9->chunks[0].cons), "\"fast\":1"));
    assert_non_null (strstr (ccas_constraint_text (j9->chunks[0].cons), "\"mem\":\"1gw\""));
    /* slot_type names the nodearray when no resource of that name is defined */
    assert_non_null (strstr (ccas_constraint_text (j2->chunks[0].cons), "node.nodearray"));

    assert_int_equal (ccas_match (c, jobs, NULL, &err), 0);
    assert_true (j2->matched);
    for (uint32_t s = 1; s < j2->nslots; s++)
        assert_ptr_equal (j2->slots[s]->pg, j2->slots[0]->pg);
    /* the unreadable job is there, never matched, its reason saying why */
    const struct ccas_job *j6 = find_job (jobs, "6.s");
    assert_non_null (j6);
    assert_false (j6->matched);
    assert_string_equal (j6->reason,
                         "PBS job cannot be read: select: chunk 1: 'ncpus=': expected resource=value "
                         "(select '1:ncpus=')");
    ccas_jobs_destroy (jobs);
    model_free (c);
}

static void test_jobs_from_qstat (void **state)
{
    (void)state;
    /* as OpenPBS lays it out: one attribute a line */
    char *text = pf_text ("qstat-jobs.json", NULL);
    check_qstat_jobs (text);
    /* and as one line with no layout at all */
    json_object *doc = json_tokener_parse (text);
    assert_non_null (doc);
    const char *line = json_object_to_json_string_ext (doc, JSON_C_TO_STRING_PLAIN);
    assert_null (strchr (line, '\n'));
    check_qstat_jobs (line);
    json_object_put (doc);
    free (text);
}

/* The streamed read (what a pass uses: one entry parsed at a time) keeps the
 * whole-document parse's outcome: repaired quotes, a broken entry left out
 * and named, other jobs kept; and a document with no layout at all (one
 * line: test_jobs_from_qstat) still reads when it is valid. */
static void test_queue_read (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct skips s = {0, ""};
    struct ccas_cluster *c = model (NULL);
    struct ccas_pbs_jobs_stats st;
    struct ccas_jobs *jobs = read_qstat_file (c, "qstat-quirks.txt", &st, &s);
    assert_int_equal (s.n, 1);
    assert_string_equal (s.last, "2.srv");
    assert_int_equal (st.seen, 3);
    assert_int_equal (st.skipped, 1);
    assert_int_equal (jobs->n, 1);
    assert_string_equal (jobs->v[0].id, "1.srv");
    ccas_jobs_destroy (jobs);

    /* bad shapes: the section not an object; a fault with no layout to skip by; truncated */
    static const char *const bad[] = {"{\"Jobs\": [1, 2]}", "{\"Jobs\": {\"1.s\": {\"a\": }, \"2.s\": {}}}",
                                      "{\"Jobs\": {\"1.s\": {}", "{\"Jobs\" {}}"};
    for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
        struct ccas_pbs_queue *q = ccas_pbs_queue_create ();
        err.text[0] = '\0';
        assert_int_equal (ccas_pbs_queue_read (q, bad[i], strlen (bad[i]), NULL, NULL, &err), -1);
        assert_non_null (strstr (err.text, "qstat: "));
        ccas_pbs_queue_destroy (q);
    }
    assert_string_equal (err.text, "qstat: not valid JSON at byte 8: expected ':'");
    model_free (c);
}

/* An idle joined node in a placement group (ungrouped=false in PBS) is no
 * place for an ungrouped=true job: PBS would never run it there, so the job
 * needs a new node outside any placement group. */
static void test_jobs_ungrouped (void **state)
{
    (void)state;
    struct matched m;
    match_jobs (&m, "cyclecloud-grouped.json", "pbsnodes-grouped.json", "qstat-ungrouped.json");
    const struct ccas_job *j1 = find_job (m.jobs, "1.s"), *j2 = find_job (m.jobs, "2.s");
    assert_non_null (strstr (ccas_constraint_text (j1->chunks[0].cons), "\"in-a-placement-group\":false"));
    assert_false (j1->colocated);
    assert_true (j1->matched);
    assert_int_equal (j1->slots[0]->kind, CCAS_NODE_NEW);
    assert_null (j1->slots[0]->placement_group);
    /* ungrouped=false: the grouped node is the right one */
    assert_true (j2->matched);
    assert_true (j2->colocated);
    assert_string_equal (j2->slots[0]->name, "htc-1");
    /* PBS compares strings exactly: no node of ours has ungrouped=True */
    const struct ccas_job *j3 = find_job (m.jobs, "3.s");
    assert_false (j3->matched);
    assert_non_null (strstr (j3->reason, "ungrouped='True'"));
    const struct ccas_job *j4 = find_job (m.jobs, "4.s");
    assert_false (j4->matched);
    assert_non_null (strstr (j4->reason, "ungrouped=true asks for nodes outside any placement group"));
    matched_free (&m);
}

/* PBS keeps a job inside one placement set (do_not_span_psets): a job of
 * several nodes that says nothing of ungrouped gets one placement group, or
 * nodes all outside any; one node, or pack, needs no group. */
static void test_jobs_default_grouping (void **state)
{
    (void)state;
    struct matched m;
    match_jobs (&m, NULL, NULL, "qstat-default-grouping.json");
    /* nothing exists yet: new nodes outside any group are the cheapest one set */
    const struct ccas_job *j1 = find_job (m.jobs, "1.s");
    assert_true (j1->single_set);
    assert_true (j1->matched);
    assert_null (j1->slots[0]->pg);
    assert_null (j1->slots[1]->pg);
    assert_false (find_job (m.jobs, "2.s")->single_set);
    assert_false (find_job (m.jobs, "3.s")->single_set);
    assert_true (find_job (m.jobs, "4.s")->single_set);
    const struct ccas_job *j5 = find_job (m.jobs, "5.s");
    assert_false (j5->colocated || j5->single_set);
    assert_null (j5->slots[0]->pg);
    matched_free (&m);

    /* two idle nodes of one group and one outside: never a mix */
    match_jobs (&m, "cyclecloud-mixed.json", "pbsnodes-mixed.json", "qstat-default-grouping-2.json");
    const struct ccas_job *a = find_job (m.jobs, "1.s"), *b = find_job (m.jobs, "2.s");
    assert_true (a->matched && b->matched);
    /* the first takes the group's two idle nodes; the second htc-2 and a new node, both outside */
    assert_non_null (a->slots[0]->pg);
    assert_ptr_equal (a->slots[0]->pg, a->slots[1]->pg);
    assert_null (b->slots[0]->pg);
    assert_null (b->slots[1]->pg);
    matched_free (&m);
}

/* A chunk's group_id must be the group of a node that exists: PBS runs the
 * job nowhere else, and ccautoscale names the groups it makes itself. */
static void test_jobs_group_id (void **state)
{
    (void)state;
    struct matched m;
    match_jobs (&m, "cyclecloud-grouped.json", "pbsnodes-grouped.json", "qstat-group-id.json");
    const struct ccas_job *j1 = find_job (m.jobs, "1.s");
    assert_false (j1->matched);
    assert_non_null (strstr (j1->reason, "group_id=123: no node is in a placement group of that name"));
    const struct ccas_job *j2 = find_job (m.jobs, "2.s");
    assert_true (j2->matched);
    assert_string_equal (j2->slots[0]->name, "htc-1");
    const struct ccas_job *j3 = find_job (m.jobs, "3.s");
    assert_true (j3->matched);
    assert_null (j3->slots[0]->placement_group);
    matched_free (&m);
}

/* place=pack: every chunk on one host — one node request with the chunks'
 * summed amounts, never "fill a node, then open another". */
static void test_jobs_pack (void **state)
{
    (void)state;
    struct matched m;
    match_jobs (&m, NULL, NULL, "qstat-pack.json");
    const struct ccas_job *j1 = find_job (m.jobs, "1.s");
    assert_int_equal (j1->nchunks, 1);
    assert_int_equal (j1->nslots, 1);
    const char *text = ccas_constraint_text (j1->chunks[0].cons);
    assert_non_null (strstr (text, "\"ncpus\":4"));
    assert_non_null (strstr (text, "\"mem\":\"2.5g\""));
    assert_true (j1->matched);
    assert_int_equal (j1->slots[0]->vcpu_count, 4); /* one Standard_F4s_v2, not two F2s */
    /* values that are not amounts must agree */
    const struct ccas_job *j2 = find_job (m.jobs, "2.s");
    assert_false (j2->matched);
    assert_non_null (strstr (j2->reason, "place=pack puts every chunk on one host, but its chunks ask for "
                                         "slot_type=htc and slot_type=gpu"));
    /* free may spread: two 2-core chunks, two nodes */
    const struct ccas_job *j3 = find_job (m.jobs, "3.s");
    assert_int_equal (j3->nslots, 2);
    assert_true (j3->matched);
    const struct ccas_job *j4 = find_job (m.jobs, "4.s");
    assert_false (j4->matched);
    assert_non_null (strstr (j4->reason, "ungrouped=true and ungrouped=false"));
    /* as azpbs: excl lets the job's own chunks share its host (exclusive-task), exclhost
     * gives each chunk a host of its own (exclusive) */
    const struct ccas_job *j5 = find_job (m.jobs, "5.s"), *j6 = find_job (m.jobs, "6.s");
    assert_non_null (strstr (ccas_constraint_text (j5->chunks[0].cons), "\"exclusive-task\":true"));
    assert_true (j5->matched);
    assert_ptr_equal (j5->slots[0], j5->slots[1]);
    assert_non_null (strstr (ccas_constraint_text (j6->chunks[0].cons), "\"exclusive\":true"));
    assert_true (j6->matched);
    assert_ptr_not_equal (j6->slots[0], j6->slots[1]);
    assert_ptr_not_equal (j6->slots[0], j5->slots[0]);
    matched_free (&m);
}

/* What a real OpenPBS printed: an array's parent is queued ("Q", array
 * True) and stands for nothing, its subjobs are the jobs; jobs running
 * are not demand; the comment PBS shows on each job is kept. */
static void test_jobs_openpbs_capture (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct ccas_cluster *c = model (NULL);
    struct ccas_pbs_jobs_stats st;
    struct ccas_pbs_queue *q = ccas_pbs_queue_create ();
    size_t len;
    char *text = pf_text ("openpbs/qstat-f-t-json.json", &len);
    assert_int_equal (ccas_pbs_queue_read (q, text, len, NULL, NULL, &err), 0);
    free (text);
    struct ccas_jobs *jobs = ccas_pbs_queue_jobs (c, q, &st, &err);
    assert_non_null (jobs);
    assert_int_equal (st.seen, 10);
    assert_int_equal (st.queued, 9);
    assert_int_equal (st.skipped, 0);
    static const char *const order[] = {"0.vm",    "1.vm",    "2.vm",    "3.vm", "4[1].vm",
                                        "4[2].vm", "4[3].vm", "4[4].vm", "5.vm"};
    assert_int_equal (jobs->n, 9);
    for (size_t i = 0; i < jobs->n; i++)
        assert_string_equal (jobs->v[i].id, order[i]);
    const struct ccas_job *j3 = find_job (jobs, "3.vm");
    assert_int_equal (j3->nslots, 2);
    assert_int_equal (j3->packing, CCAS_SCATTER);
    assert_non_null (strstr (ccas_constraint_text (j3->chunks[0].cons), "\"exclusive-task\":true"));
    assert_non_null (strstr (ccas_constraint_text (find_job (jobs, "5.vm")->chunks[0].cons), "\"ngpus\":1"));
    assert_string_equal (ccas_pbs_queue_comment (q, 0),
                         "Can Never Run: can't fit in the largest placement set, and can't span psets");
    assert_null (ccas_pbs_queue_comment (q, jobs->n)); /* past the last */
    ccas_jobs_destroy (jobs);
    ccas_pbs_queue_destroy (q);

    /* the same while some run: the running subjobs and job 6 are not demand */
    jobs = read_qstat_file (c, "openpbs/qstat-f-t-json-running.json", &st, NULL);
    assert_int_equal (st.seen, 12);
    assert_int_equal (st.queued, 5);
    assert_non_null (find_job (jobs, "3.vm"));
    assert_non_null (find_job (jobs, "5.vm"));
    assert_non_null (find_job (jobs, "7[3].vm"));
    assert_null (find_job (jobs, "7[].vm"));
    assert_null (find_job (jobs, "6.vm"));
    ccas_jobs_destroy (jobs);

    /* the site's resources: slot_type names the nodearray, group=group_id keeps one group */
    jobs = read_qstat_file (c, "openpbs/qstat-site-resources.json", &st, NULL);
    assert_int_equal (jobs->n, 1);
    const struct ccas_job *j8 = find_job (jobs, "8.vm");
    assert_int_equal (j8->nslots, 2);
    assert_true (j8->colocated);
    assert_non_null (strstr (ccas_constraint_text (j8->chunks[0].cons), "\"node.nodearray\":\"hpc\""));
    assert_int_equal (ccas_match (c, jobs, NULL, &err), 0);
    assert_true (j8->matched);
    assert_ptr_equal (j8->slots[0]->pg, j8->slots[1]->pg);
    ccas_jobs_destroy (jobs);

    /* no jobs at all */
    jobs = read_qstat_file (c, "openpbs/qstat-empty.json", &st, NULL);
    assert_int_equal (jobs->n, 0);
    assert_int_equal (st.seen, 0);
    ccas_jobs_destroy (jobs);
    model_free (c);
}

/* Entries handed one at a time: one the repair left out counts as skipped;
 * a job with neither schedselect nor select asks Resource_List.ncpus on one
 * node; ids that are not numbers sort after the numbered, as 0. */
static void test_queue_add (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct ccas_cluster *c = model (NULL);
    struct ccas_pbs_queue *q = ccas_pbs_queue_create ();
    json_object *a = json_tokener_parse ("{\"job_state\": \"Q\", \"Resource_List\": {\"ncpus\": 3}}");
    json_object *b = json_tokener_parse ("{\"job_state\": \"Q\"}");
    json_object *r = json_tokener_parse ("{\"job_state\": \"R\", \"schedselect\": \"1:ncpus=1\"}");
    assert_int_equal (ccas_pbs_queue_add (q, "12.s", a, &err), 0);
    assert_int_equal (ccas_pbs_queue_add (q, "x.s", b, &err), 0);
    assert_int_equal (ccas_pbs_queue_add (q, "13.s", NULL, &err), 0);
    assert_int_equal (ccas_pbs_queue_add (q, "14.s", r, &err), 0);
    struct ccas_pbs_jobs_stats st;
    struct ccas_jobs *jobs = ccas_pbs_queue_jobs (c, q, &st, &err);
    assert_int_equal (st.seen, 4);
    assert_int_equal (st.skipped, 1);
    assert_int_equal (st.queued, 2);
    assert_string_equal (jobs->v[0].id, "x.s");
    assert_non_null (strstr (ccas_constraint_text (find_job (jobs, "12.s")->chunks[0].cons), "\"ncpus\":3"));
    assert_non_null (strstr (ccas_constraint_text (find_job (jobs, "x.s")->chunks[0].cons), "\"ncpus\":1"));
    ccas_jobs_destroy (jobs);
    ccas_pbs_queue_destroy (q);
    json_object_put (a);
    json_object_put (b);
    json_object_put (r);
    ccas_pbs_queue_destroy (NULL);
    model_free (c);
}

/* The stock queues' resources_default (workq ungrouped=false, htcq
 * ungrouped=true) land in Resource_List, not the select: each chunk that
 * does not set them takes them, as PBS's scheduler does; so do slot_type and
 * group_id, and words of resources default_resources gives the nodes, never
 * amounts (Resource_List's mem is the job's total) nor words no node has
 * (logged); the queues of pbs.ignore_queues are left out. */
static void test_jobs_queue_defaults (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct ccas_cluster *c = model (NULL);
    struct ccas_pbs_queue *q = ccas_pbs_queue_create ();
    json_object *ignore = json_tokener_parse ("[\"ignoredq\", \"other\"]");
    assert_int_equal (ccas_pbs_queue_ignore_queues (q, ignore), 0);
    char *text = pf_text ("qstat-queue-defaults.json", NULL);
    assert_int_equal (ccas_pbs_queue_read (q, text, strlen (text), NULL, NULL, &err), 0);
    free (text);
    struct ccas_pbs_jobs_stats st;
    struct ccas_jobs *jobs = ccas_pbs_queue_jobs (c, q, &st, &err);
    assert_non_null (jobs);
    assert_int_equal (st.ignored, 1);
    assert_int_equal (jobs->n, 5);
    assert_null (find_job (jobs, "6.s"));
    const struct ccas_job *j = find_job (jobs, "1.s"); /* workq: one placement group */
    assert_true (j->colocated);
    assert_non_null (strstr (ccas_constraint_text (j->chunks[0].cons), "\"in-a-placement-group\":true"));
    j = find_job (jobs, "2.s"); /* htcq: outside any */
    assert_false (j->colocated);
    assert_non_null (strstr (ccas_constraint_text (j->chunks[0].cons), "\"in-a-placement-group\":false"));
    j = find_job (jobs, "3.s"); /* the chunk's own value wins */
    assert_false (j->colocated);
    j = find_job (jobs, "4.s"); /* slot_type: the chunk that says none takes the job's */
    assert_int_equal (j->nchunks, 2);
    assert_non_null (strstr (ccas_constraint_text (j->chunks[0].cons), "\"node.nodearray\":\"hpc\""));
    assert_non_null (strstr (ccas_constraint_text (j->chunks[1].cons), "\"node.nodearray\":\"htc\""));
    j = find_job (jobs, "5.s"); /* no mem (a total), software (PBS's) or fabric (no node's) */
    const char *t = ccas_constraint_text (j->chunks[0].cons);
    assert_null (strstr (t, "mem"));
    assert_null (strstr (t, "software"));
    assert_null (strstr (t, "fabric"));
    assert_non_null (strstr (t, "\"in-a-placement-group\":false"));
    ccas_jobs_destroy (jobs);
    ccas_pbs_queue_destroy (q);
    json_object_put (ignore);
    model_free (c);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_jobs_from_qstat),      cmocka_unit_test (test_queue_read),
        cmocka_unit_test (test_jobs_ungrouped),       cmocka_unit_test (test_jobs_default_grouping),
        cmocka_unit_test (test_jobs_group_id),        cmocka_unit_test (test_jobs_pack),
        cmocka_unit_test (test_jobs_openpbs_capture), cmocka_unit_test (test_queue_add),
        cmocka_unit_test (test_jobs_queue_defaults),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
