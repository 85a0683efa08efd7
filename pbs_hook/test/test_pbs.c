/* SPDX-License-Identifier: MIT */
/* test_pbs.c: the PBS driver's readers — select and place, PBS's broken JSON,
 * queued jobs as core jobs, nodes folded into the model, and the decisions
 * of a pass (join, drain, delete, forget) — without running any PBS command. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "conf/conf.h"
#include "engine/match.h"
#include "engine/plan.h"
#include "engine/scaledown.h"
#include "model/cluster.h"
#include "pbs_jobs.h"
#include "pbs_json.h"
#include "pbs_nodes.h"
#include "pbs_pass.h"
#include "pbs_sched.h"
#include "pbs_select.h"
#include "util/json.h"

/* ---- select and place ---------------------------------------------------------------------------- */

static void test_select_chunks (void **state)
{
    (void)state;
    struct ccas_pbs_chunk ch[4];
    struct ccas_error err = {""};
    char s[] = "2:ncpus=4:mem=8gb+ncpus=1:ngpus=1";
    assert_int_equal (ccas_pbs_select_parse (s, ch, 4, &err), 2);
    assert_int_equal (ch[0].count, 2);
    assert_int_equal (ch[0].nfields, 2);
    assert_string_equal (ccas_pbs_chunk_get (&ch[0], "mem"), "8gb");
    assert_int_equal (ch[1].count, 1);
    assert_string_equal (ccas_pbs_chunk_get (&ch[1], "ngpus"), "1");
    assert_null (ccas_pbs_chunk_get (&ch[1], "mem"));
}

static void test_select_errors (void **state)
{
    (void)state;
    static const struct {
        const char *select, *error;
    } cases[] = {
        {"", "select: empty"},
        {"2:ncpus", "select: chunk 1: 'ncpus': expected resource=value"},
        {"1:ncpus=1+", "select: chunk 2 is empty"},
        {"0:ncpus=1", "select: chunk 1: count '0' out of range 1..1000000"},
        {"1:nc;pus=1", "select: chunk 1: 'nc;pus' is not a resource name"},
        {"1:ncpus=", "select: chunk 1: 'ncpus=': expected resource=value"},
    };
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        struct ccas_pbs_chunk ch[2];
        struct ccas_error err = {""};
        char buf[64];
        snprintf (buf, sizeof (buf), "%s", cases[i].select);
        assert_int_equal (ccas_pbs_select_parse (buf, ch, 2, &err), -1);
        assert_string_equal (err.text, cases[i].error);
    }
}

static void test_place (void **state)
{
    (void)state;
    struct ccas_pbs_place p;
    struct ccas_error err = {""};
    assert_int_equal (ccas_pbs_place_parse ("scatter:excl:group=group_id", &p, &err), 0);
    assert_int_equal (p.arrangement, CCAS_PBS_SCATTER);
    assert_int_equal (p.sharing, CCAS_PBS_EXCL);
    assert_string_equal (p.group, "group_id");
    assert_int_equal (ccas_pbs_place_parse (NULL, &p, &err), 0);
    assert_int_equal (p.arrangement, CCAS_PBS_FREE);
    assert_string_equal (p.group, "");
    assert_int_equal (ccas_pbs_place_parse ("pack:bogus", &p, &err), -1);
    assert_non_null (strstr (err.text, "place: 'bogus'"));
}

static void test_names (void **state)
{
    (void)state;
    assert_true (ccas_pbs_name_valid ("execute-1"));
    assert_true (ccas_pbs_name_valid ("ip-0A000004.internal"));
    assert_false (ccas_pbs_name_valid ("-o"));
    assert_false (ccas_pbs_name_valid ("a b"));
    assert_false (ccas_pbs_name_valid ("a;rm"));
    assert_false (ccas_pbs_name_valid (""));
}

/* ---- PBS's JSON ------------------------------------------------------------------------------------ */

struct skips {
    int n;
    char last[64];
};

static void note_skip (const char *key, const char *why, void *arg)
{
    struct skips *s = arg;
    (void)why;
    s->n++;
    snprintf (s->last, sizeof (s->last), "%s", key);
}

static const char qstat_quirks[] = "qstat: Warning: something odd\n"
                                   "{\n"
                                   "    \"timestamp\":1637315785,\n"
                                   "    \"Jobs\":{\n"
                                   "        \"1.srv\":{\n"
                                   "            \"pset\":\"group_id=\"\"\",\n"
                                   "            \"path\":\"C:\\data\",\n"
                                   "            \"job_state\":\"Q\"\n"
                                   "        },\n"
                                   "        \"2.srv\":{\n"
                                   "            \"job_state\":\"Q\",\n"
                                   "            \"broken\":\n"
                                   "        },\n"
                                   "        \"3.srv\":{\n"
                                   "            \"job_state\":\"R\"\n"
                                   "        }\n"
                                   "    }\n"
                                   "}\n";

static void test_json_repair (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct skips s = {0, ""};
    json_object *o =
        ccas_pbs_json_parse (qstat_quirks, strlen (qstat_quirks), "qstat", "Jobs", note_skip, &s, &err);
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
}

static void test_json_garbage (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    static const char *const docs[] = {"", "qstat: cannot connect to server\n", "{\"Jobs\":{\"1\":{}}",
                                       "{]}"};
    for (size_t i = 0; i < sizeof (docs) / sizeof (docs[0]); i++) {
        assert_null (ccas_pbs_json_parse (docs[i], strlen (docs[i]), "qstat", "Jobs", NULL, NULL, &err));
        assert_non_null (strstr (err.text, "qstat: "));
    }
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

/* ---- a model to translate against ------------------------------------------------------------------ */

static struct ccas_cluster *model (const char *nodes)
{
    struct ccas_error err = {""};
    json_object *st = ccas_json_load_file (TEST_DATA_DIR "/match-status.json", 1 << 20, &err);
    assert_non_null (st);
    struct ccas_status *status = ccas_status_from_json (st, "test", &err);
    assert_non_null (status);
    json_object *root =
        json_tokener_parse ("{\"url\": \"http://x\", \"username\": \"u\", \"password\": \"p\","
                            " \"cluster_name\": \"test\", \"logging\": {\"syslog\": false},"
                            " \"idle_timeout\": 300}");
    struct ccas_config *cfg = ccas_config_from_json (root, "test-config", &err);
    assert_non_null (cfg);
    json_object *nl = json_tokener_parse (nodes ? nodes : "{\"nodes\": []}");
    assert_non_null (nl);
    struct ccas_record_list *list = ccas_record_list_from_json (nl, &err);
    assert_non_null (list);
    struct ccas_cluster *c = ccas_cluster_create (cfg, status, list, &err);
    if (!c)
        fail_msg ("%s", err.text);
    return c;
}

static void model_free (struct ccas_cluster *c)
{
    const struct ccas_config *cfg = c->cfg;
    ccas_cluster_destroy (c);
    ccas_config_destroy ((struct ccas_config *)cfg);
}

static const struct ccas_job *find_job (const struct ccas_jobs *jobs, const char *id)
{
    for (size_t i = 0; i < jobs->n; i++)
        if (strcmp (jobs->v[i].id, id) == 0)
            return &jobs->v[i];
    return NULL;
}

static const char qstat_doc[] =
    "{\"Jobs\": {"
    " \"1.s\": {\"job_state\": \"Q\", \"schedselect\": \"1:ncpus=1\"},"
    " \"2.s\": {\"job_state\": \"Q\", \"Priority\": 10, \"schedselect\": \"4:ncpus=120:slot_type=hpc\","
    "           \"Resource_List\": {\"place\": \"scatter:excl:group=group_id\"}},"
    " \"3.s\": {\"job_state\": \"R\", \"schedselect\": \"1:ncpus=1\"},"
    " \"4[].s\": {\"job_state\": \"B\", \"array\": \"True\", \"schedselect\": \"1:ncpus=1\"},"
    " \"4[2].s\": {\"job_state\": \"Q\", \"schedselect\": \"1:ncpus=1\"},"
    " \"4[1].s\": {\"job_state\": \"Q\", \"schedselect\": \"1:ncpus=1\"},"
    " \"5.s\": {\"job_state\": \"Q\", \"schedselect\": "
    "\"2:ncpus=2:mpiprocs=2+1:ncpus=1:ngpus=1:ungrouped=false\"},"
    " \"6.s\": {\"job_state\": \"Q\", \"schedselect\": \"1:ncpus=\"},"
    " \"7.s\": {\"job_state\": \"H\", \"schedselect\": \"1:ncpus=1\"},"
    " \"8.s\": {\"job_state\": \"Q\", \"Resource_List\": {\"select\": \"1:ncpus=2\", \"place\": \"pack\"}},"
    " \"9.s\": {\"job_state\": \"Q\", \"schedselect\": \"1:ncpus=1:mem=1gw:ssd=y:hdd=F:big=True:fast=1\"}"
    "}}";

/* What a pass does with qstat's text: read it entry by entry, translate it. */
static struct ccas_jobs *read_qstat (struct ccas_cluster *c, const char *text, struct ccas_pbs_jobs_stats *st,
                                     struct skips *skips)
{
    struct ccas_error err = {""};
    struct ccas_pbs_queue *q = ccas_pbs_queue_create ();
    assert_non_null (q);
    assert_int_equal (ccas_pbs_queue_read (q, text, strlen (text), skips ? note_skip : NULL, skips, &err), 0);
    struct ccas_jobs *jobs = ccas_pbs_queue_jobs (c, q, st, &err);
    ccas_pbs_queue_destroy (q);
    assert_non_null (jobs);
    return jobs;
}

static void test_jobs_from_qstat (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct ccas_cluster *c = model (NULL);
    struct ccas_pbs_jobs_stats st;
    struct ccas_jobs *jobs = read_qstat (c, qstat_doc, &st, NULL);
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

/* The jobs of `qstat` (a Jobs object's text), matched against a model with
 * the CycleCloud nodes `nodes` (a node list's text, or NULL) that PBS has
 * joined and left idle. */
struct matched {
    struct ccas_cluster *c;
    struct ccas_jobs *jobs;
};

static void match_jobs (struct matched *m, const char *nodes, const char *pbsnodes, const char *qstat)
{
    struct ccas_error err = {""};
    m->c = model (nodes);
    if (pbsnodes) {
        struct ccas_pbs_nodes *pn = ccas_pbs_nodes_from_json (json_tokener_parse (pbsnodes), &err);
        assert_non_null (pn);
        ccas_pbs_nodes_merge (pn, m->c);
        ccas_pbs_nodes_destroy (pn);
    }
    m->jobs = read_qstat (m->c, qstat, NULL, NULL);
    assert_int_equal (ccas_match (m->c, m->jobs, NULL, &err), 0);
}

static void matched_free (struct matched *m)
{
    ccas_jobs_destroy (m->jobs);
    model_free (m->c);
}

/* An idle joined node in a placement group (ungrouped=false in PBS) is no
 * place for an ungrouped=true job: PBS would never run it there, so the job
 * needs a new node outside any placement group. */
/* The streamed read (what a pass uses: one entry parsed at a time) keeps the
 * whole-document parse's outcome: repaired quotes, a broken entry left out
 * and named, other jobs kept; and a document with no layout at all (one
 * line) still reads when it is valid. */
static void test_queue_read (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct skips s = {0, ""};
    struct ccas_cluster *c = model (NULL);
    struct ccas_pbs_jobs_stats st;
    struct ccas_jobs *jobs = read_qstat (c, qstat_quirks, &st, &s);
    assert_int_equal (s.n, 1);
    assert_string_equal (s.last, "2.srv");
    assert_int_equal (st.seen, 3);
    assert_int_equal (st.skipped, 1);
    assert_int_equal (jobs->n, 1);
    assert_string_equal (jobs->v[0].id, "1.srv");
    ccas_jobs_destroy (jobs);

    /* (one-line JSON with no layout at all: test_jobs_from_qstat's qstat_doc)
     * bad shapes: the section not an object; a fault with no layout to skip by; truncated */
    static const char *const bad[] = {"{\"Jobs\": [1, 2]}", "{\"Jobs\": {\"1.s\": {\"a\": }, \"2.s\": {}}}",
                                      "{\"Jobs\": {\"1.s\": {}", "{\"Jobs\" {}}"};
    for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
        struct ccas_pbs_queue *q = ccas_pbs_queue_create ();
        err.text[0] = '\0';
        assert_int_equal (ccas_pbs_queue_read (q, bad[i], strlen (bad[i]), NULL, NULL, &err), -1);
        assert_non_null (strstr (err.text, "qstat: "));
        ccas_pbs_queue_destroy (q);
    }
    model_free (c);
}

static void test_jobs_ungrouped (void **state)
{
    (void)state;
    struct matched m;
    match_jobs (
        &m,
        "{\"nodes\": [{\"Name\": \"htc-1\", \"NodeId\": \"id1\", \"Template\": \"htc\","
        " \"MachineType\": \"Standard_F2s_v2\", \"Status\": \"Ready\", \"TargetState\": \"Started\","
        " \"Hostname\": \"htc-1\", \"PrivateIp\": \"10.0.0.4\", \"PlacementGroupId\": \"pg-1\"}]}",
        "{\"nodes\": {\"htc-1\": {\"state\": \"free\", \"resources_available\": {\"ccnodeid\": \"id1\"}}}}",
        "{\"Jobs\": {"
        " \"1.s\": {\"job_state\": \"Q\", \"schedselect\": \"1:ncpus=1:slot_type=htc:ungrouped=true\"},"
        " \"2.s\": {\"job_state\": \"Q\", \"schedselect\": \"1:ncpus=1:slot_type=htc:ungrouped=false\"},"
        " \"3.s\": {\"job_state\": \"Q\", \"schedselect\": \"1:ncpus=1:slot_type=htc:ungrouped=True\"},"
        " \"4.s\": {\"job_state\": \"Q\", \"schedselect\": "
        "\"1:ncpus=1:ungrouped=true+1:ncpus=1:ungrouped=false\"}"
        "}}");
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
    match_jobs (
        &m, "{\"nodes\": []}", "{\"nodes\": {}}",
        "{\"Jobs\": {"
        " \"1.s\": {\"job_state\": \"Q\", \"schedselect\": \"2:ncpus=1:slot_type=htc\"},"
        " \"2.s\": {\"job_state\": \"Q\", \"schedselect\": \"1:ncpus=1:slot_type=htc\"},"
        " \"3.s\": {\"job_state\": \"Q\", \"schedselect\": \"2:ncpus=1:slot_type=htc\","
        "           \"Resource_List\": {\"place\": \"pack\"}},"
        " \"4.s\": {\"job_state\": \"Q\", \"schedselect\": "
        "\"1:ncpus=1:slot_type=htc+1:ncpus=1:slot_type=htc\"},"
        " \"5.s\": {\"job_state\": \"Q\", \"schedselect\": \"2:ncpus=1:slot_type=htc:ungrouped=true\"}"
        "}}");
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
    match_jobs (
        &m,
        "{\"nodes\": ["
        " {\"Name\": \"htc-1\", \"NodeId\": \"id1\", \"Template\": \"htc\", \"MachineType\": "
        "\"Standard_F2s_v2\","
        "  \"Status\": \"Ready\", \"TargetState\": \"Started\", \"Hostname\": \"htc-1\", \"PrivateIp\": "
        "\"10.0.0.4\","
        "  \"PlacementGroupId\": \"pg-1\"},"
        " {\"Name\": \"htc-2\", \"NodeId\": \"id2\", \"Template\": \"htc\", \"MachineType\": "
        "\"Standard_F2s_v2\","
        "  \"Status\": \"Ready\", \"TargetState\": \"Started\", \"Hostname\": \"htc-2\", \"PrivateIp\": "
        "\"10.0.0.5\"},"
        " {\"Name\": \"htc-3\", \"NodeId\": \"id3\", \"Template\": \"htc\", \"MachineType\": "
        "\"Standard_F2s_v2\","
        "  \"Status\": \"Ready\", \"TargetState\": \"Started\", \"Hostname\": \"htc-3\", \"PrivateIp\": "
        "\"10.0.0.6\","
        "  \"PlacementGroupId\": \"pg-1\"}]}",
        "{\"nodes\": {\"htc-1\": {\"state\": \"free\", \"resources_available\": {\"ccnodeid\": \"id1\"}},"
        " \"htc-2\": {\"state\": \"free\", \"resources_available\": {\"ccnodeid\": \"id2\"}},"
        " \"htc-3\": {\"state\": \"free\", \"resources_available\": {\"ccnodeid\": \"id3\"}}}}",
        "{\"Jobs\": {\"1.s\": {\"job_state\": \"Q\", \"schedselect\": \"2:ncpus=2:slot_type=htc\"},"
        " \"2.s\": {\"job_state\": \"Q\", \"schedselect\": \"2:ncpus=2:slot_type=htc\"}}}");
    const struct ccas_job *a = find_job (m.jobs, "1.s"), *b = find_job (m.jobs, "2.s");
    assert_true (a->matched && b->matched);
    /* the first takes the group's two idle nodes; the second htc-2 and a new node, both outside */
    assert_non_null (a->slots[0]->pg);
    assert_ptr_equal (a->slots[0]->pg, a->slots[1]->pg);
    assert_null (b->slots[0]->pg);
    assert_null (b->slots[1]->pg);
    matched_free (&m);
}

/* place=pack: every chunk on one host — one node request with the chunks'
 * summed amounts, never "fill a node, then open another". */
static void test_jobs_pack (void **state)
{
    (void)state;
    struct matched m;
    match_jobs (&m, NULL, NULL,
                "{\"Jobs\": {"
                " \"1.s\": {\"job_state\": \"Q\", \"schedselect\": "
                "\"2:ncpus=1:mem=1gb:slot_type=htc+1:ncpus=2:mem=512mb\","
                "           \"Resource_List\": {\"place\": \"pack\"}},"
                " \"2.s\": {\"job_state\": \"Q\", \"schedselect\": "
                "\"1:ncpus=1:slot_type=htc+1:ncpus=1:slot_type=gpu\","
                "           \"Resource_List\": {\"place\": \"pack:excl\"}},"
                " \"3.s\": {\"job_state\": \"Q\", \"schedselect\": \"2:ncpus=2:slot_type=htc\","
                "           \"Resource_List\": {\"place\": \"free\"}},"
                " \"4.s\": {\"job_state\": \"Q\", \"schedselect\": "
                "\"1:ncpus=1:ungrouped=true+1:ncpus=1:ungrouped=false\","
                "           \"Resource_List\": {\"place\": \"pack\"}}"
                "}}");
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
    matched_free (&m);
}

/* ---- nodes and the pass's decisions ---------------------------------------------------------------- */

static const char cc_nodes[] =
    "{\"nodes\": ["
    " {\"Name\": \"htc-1\", \"NodeId\": \"id1\", \"Template\": \"htc\", \"MachineType\": \"Standard_F2s_v2\","
    "  \"Status\": \"Ready\", \"TargetState\": \"Started\", \"Hostname\": \"htc-1\", \"PrivateIp\": "
    "\"10.0.0.4\"},"
    " {\"Name\": \"htc-2\", \"NodeId\": \"id2\", \"Template\": \"htc\", \"MachineType\": \"Standard_F2s_v2\","
    "  \"Status\": \"Ready\", \"TargetState\": \"Started\", \"Hostname\": \"htc-2\", \"PrivateIp\": "
    "\"10.0.0.5\"},"
    " {\"Name\": \"htc-3\", \"NodeId\": \"id3\", \"Template\": \"htc\", \"MachineType\": \"Standard_F2s_v2\","
    "  \"Status\": \"Ready\", \"TargetState\": \"Started\", \"Hostname\": \"htc-3\", \"PrivateIp\": "
    "\"10.0.0.6\"},"
    " {\"Name\": \"htc-4\", \"NodeId\": \"id4\", \"Template\": \"htc\", \"MachineType\": \"Standard_F2s_v2\","
    "  \"Status\": \"Ready\", \"TargetState\": \"Started\", \"Hostname\": \"htc-4\", \"PrivateIp\": "
    "\"10.0.0.7\"},"
    " {\"Name\": \"htc-5\", \"NodeId\": \"id5\", \"Template\": \"htc\", \"MachineType\": \"Standard_F2s_v2\","
    "  \"Status\": \"Ready\", \"TargetState\": \"Started\", \"Hostname\": \"htc-5\", \"PrivateIp\": "
    "\"10.0.0.8\"},"
    " {\"Name\": \"htc-6\", \"NodeId\": \"id6\", \"Template\": \"htc\", \"MachineType\": \"Standard_F2s_v2\","
    "  \"Status\": \"Failed\", \"TargetState\": \"Started\", \"Hostname\": \"htc-6\"}"
    "]}";

/* htc-1 busy; htc-2 idle and online; htc-3 drained by us; htc-4 offline by the
 * administrator; htc-5 not in PBS; htc-6 failed; old-9 registered for a VM gone. */
static const char pbsnodes_doc[] =
    "{\"nodes\": {"
    " \"htc-1\": {\"state\": \"job-busy\", \"jobs\": [\"1.s/0\"], \"resources_available\": {\"ccnodeid\": "
    "\"id1\"},"
    "            \"resources_assigned\": {\"ncpus\": 1, \"mem\": \"1gb\"}},"
    " \"htc-2\": {\"state\": \"free\", \"resources_available\": {\"ccnodeid\": \"id2\"}},"
    " \"htc-3\": {\"state\": \"offline\", \"comment\": \"ccautoscale: draining: idle for 400 s\","
    "            \"resources_available\": {\"ccnodeid\": \"id3\"}},"
    " \"htc-4\": {\"state\": \"offline\", \"comment\": \"bad DIMM, ticket 42\", \"resources_available\": "
    "{\"ccnodeid\": \"id4\"}},"
    " \"htc-6\": {\"state\": \"down\", \"resources_available\": {\"ccnodeid\": \"id6\"}},"
    " \"old-9\": {\"state\": \"down\", \"resources_available\": {\"ccnodeid\": \"gone\"}},"
    " \"static-1\": {\"state\": \"free\", \"resources_available\": {}}"
    "}}";

static const struct ccas_pbs_action *action_for (const struct ccas_pbs_actions *a, const char *host)
{
    for (size_t i = 0; i < a->n; i++)
        if (strcmp (a->v[i].host, host) == 0)
            return &a->v[i];
    return NULL;
}

static bool terminated (const struct ccas_plan *plan, const char *name)
{
    for (size_t i = 0; i < plan->nterminates; i++)
        if (strcmp (plan->terminates[i].node->name, name) == 0)
            return true;
    return false;
}

static void test_pass_decisions (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct ccas_cluster *c = model (cc_nodes);
    struct ccas_pbs_nodes *pn = ccas_pbs_nodes_from_json (json_tokener_parse (pbsnodes_doc), &err);
    assert_non_null (pn);
    ccas_pbs_nodes_merge (pn, c);
    struct ccas_node *h1 = ccas_cluster_find_node (c, "htc-1");
    assert_true (h1->busy);
    assert_true (ccas_cluster_find_node (c, "htc-3")->sched_offline);

    struct ccas_jobs *jobs = ccas_jobs_create (1);
    assert_int_equal (ccas_match (c, jobs, NULL, &err), 0);
    struct ccas_plan *plan = ccas_plan_create (c, jobs, &err);
    /* every node has been idle for an hour */
    json_object *times = json_tokener_parse ("{\"id1\": {\"first_seen\": 0, \"last_busy\": 0},"
                                             " \"id2\": {\"first_seen\": 0, \"last_busy\": 0},"
                                             " \"id3\": {\"first_seen\": 0, \"last_busy\": 0},"
                                             " \"id4\": {\"first_seen\": 0, \"last_busy\": 0},"
                                             " \"id5\": {\"first_seen\": 0, \"last_busy\": 0},"
                                             " \"id6\": {\"first_seen\": 0, \"last_busy\": 0}}");
    assert_int_equal (ccas_scaledown_plan (plan, times, 3600, &err), 0);
    struct ccas_pbs_actions a;
    assert_int_equal (ccas_pbs_plan (plan, pn, &a, &err), 0);

    assert_null (action_for (&a, "htc-1")); /* busy: nothing */
    assert_false (terminated (plan, "htc-1"));
    assert_int_equal (action_for (&a, "htc-2")->kind, CCAS_PBS_DRAIN); /* idle, online: drain first */
    assert_false (terminated (plan, "htc-2"));
    assert_int_equal (action_for (&a, "htc-3")->kind,
                      CCAS_PBS_DELETE); /* drained and idle: delete, terminate */
    assert_true (terminated (plan, "htc-3"));
    assert_null (action_for (&a, "htc-4")); /* the administrator's */
    assert_false (terminated (plan, "htc-4"));
    assert_true (terminated (plan, "htc-5")); /* never joined: terminate only */
    assert_null (action_for (&a, "htc-5"));
    assert_int_equal (action_for (&a, "htc-6")->kind, CCAS_PBS_DELETE); /* failed VM */
    assert_true (terminated (plan, "htc-6"));
    assert_int_equal (action_for (&a, "old-9")->kind, CCAS_PBS_FORGET);
    assert_null (action_for (&a, "static-1")); /* not ours */

    json_object *j = ccas_pbs_actions_json (&a, false);
    assert_int_equal (json_object_array_length (ccas_json_get (j, "drain")), 1);
    assert_int_equal (json_object_array_length (ccas_json_get (j, "delete")), 2);
    assert_int_equal (json_object_array_length (ccas_json_get (j, "forget")), 1);
    json_object_put (j);
    ccas_pbs_actions_free (&a);
    json_object_put (times);
    ccas_plan_destroy (plan);
    ccas_jobs_destroy (jobs);
    ccas_pbs_nodes_destroy (pn);
    model_free (c);
}

static void test_join_ready_nodes (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct ccas_cluster *c = model (cc_nodes);
    /* htc-2 is known to PBS without the marker (a join that failed half-way) */
    struct ccas_pbs_nodes *pn = ccas_pbs_nodes_from_json (
        json_tokener_parse ("{\"nodes\": {\"htc-2\": {\"state\": \"free\", \"resources_available\": {}}}}"),
        &err);
    ccas_pbs_nodes_merge (pn, c);
    struct ccas_jobs *jobs = ccas_jobs_create (1);
    assert_int_equal (ccas_match (c, jobs, NULL, &err), 0);
    struct ccas_plan *plan = ccas_plan_create (c, jobs, &err);
    struct ccas_pbs_actions a;
    assert_int_equal (ccas_pbs_plan (plan, pn, &a, &err), 0);
    size_t joins = 0;
    for (size_t i = 0; i < a.n; i++)
        joins += a.v[i].kind == CCAS_PBS_JOIN;
    assert_int_equal (joins, 5);                     /* htc-1..5 Ready; htc-6 failed */
    assert_non_null (action_for (&a, "htc-2")->pbs); /* re-joined, not created again */
    assert_null (action_for (&a, "htc-1")->pbs);
    ccas_pbs_actions_free (&a);
    ccas_plan_destroy (plan);
    ccas_jobs_destroy (jobs);
    ccas_pbs_nodes_destroy (pn);
    model_free (c);
}

/* The join's last step puts a node online, so a join must never reach a node
 * that is draining or that the administrator took offline, even without the
 * marker; a join that stopped at any step (the node offline with the joining
 * comment) is taken up again; such a node is ours: given back without a
 * drain when idle, forgotten when its VM has gone. */
/* A Ready VM that does not serve PBS yet — no PBS node (its join fails),
 * still joining, or joined with a mom that has not reported — is capacity
 * that is booting until it has waited boot_timeout (1800 s by default), by
 * ccautoscale's own clock (the times state): then it is given no work and
 * replaced, deleted from PBS without a drain. */
static void test_join_stuck (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct ccas_cluster *c = model (cc_nodes);
    double now = (double)time (NULL);
    struct ccas_pbs_nodes *pn = ccas_pbs_nodes_from_json (
        json_tokener_parse (
            "{\"nodes\": {"
            " \"htc-1\": {\"state\": \"offline\", \"comment\": \"ccautoscale: joining\","
            "            \"resources_available\": {}},"
            " \"htc-2\": {\"state\": \"offline\", \"comment\": \"ccautoscale: joining\","
            "            \"resources_available\": {}},"
            " \"htc-3\": {\"state\": \"state-unknown,down\", \"pbs_version\": \"unavailable\","
            "            \"resources_available\": {\"ccnodeid\": \"id3\"}},"
            " \"htc-4\": {\"state\": \"state-unknown,down\", \"pbs_version\": \"unavailable\","
            "            \"resources_available\": {\"ccnodeid\": \"id4\"}}}}"),
        &err);
    assert_non_null (pn);
    ccas_pbs_nodes_merge (pn, c);
    /* never reported: booting capacity, not down */
    assert_false (ccas_cluster_find_node (c, "htc-3")->sched_offline);
    char text[600];
    snprintf (text, sizeof (text),
              "{\"id1\": {\"first_seen\": 0, \"pbs_waiting\": %.0f}, \"id2\": {\"first_seen\": 0, "
              "\"pbs_waiting\": %.0f},"
              " \"id3\": {\"first_seen\": 0, \"pbs_waiting\": %.0f}, \"id4\": {\"first_seen\": 0, "
              "\"pbs_waiting\": %.0f},"
              " \"id5\": {\"first_seen\": 0, \"pbs_waiting\": %.0f}}",
              now - 60, now - 4000, now - 60, now - 4000, now - 4000);
    json_object *times = json_tokener_parse (text);
    assert_int_equal (ccas_pbs_nodes_judge (pn, c, times, now), 3);
    assert_true (ccas_node_usable (ccas_cluster_find_node (c, "htc-1")));
    assert_false (ccas_node_usable (ccas_cluster_find_node (c, "htc-2")));
    assert_true (ccas_node_usable (ccas_cluster_find_node (c, "htc-3")));
    assert_false (ccas_node_usable (ccas_cluster_find_node (c, "htc-4")));
    assert_false (ccas_node_usable (ccas_cluster_find_node (c, "htc-5"))); /* no PBS node for an hour */
    assert_string_equal (ccas_pbs_nodes_waiting_why (pn, ccas_cluster_find_node (c, "htc-5")),
                         "PBS has no node for it (its join has not been done, or fails)");

    struct ccas_jobs *jobs = ccas_jobs_create (1);
    assert_int_equal (ccas_match (c, jobs, NULL, &err), 0);
    struct ccas_plan *plan = ccas_plan_create (c, jobs, &err);
    struct ccas_pbs_actions a;
    assert_int_equal (ccas_pbs_plan (plan, pn, &a, &err), 0);
    assert_true (terminated (plan, "htc-2"));
    assert_int_equal (action_for (&a, "htc-2")->kind, CCAS_PBS_DELETE);
    assert_true (terminated (plan, "htc-4"));
    assert_int_equal (action_for (&a, "htc-4")->kind,
                      CCAS_PBS_DELETE); /* no drain: its mom never ran a job */
    assert_true (terminated (plan, "htc-5"));
    assert_null (action_for (&a, "htc-5"));
    assert_false (terminated (plan, "htc-1"));
    assert_false (terminated (plan, "htc-3"));
    for (size_t i = 0; i < plan->nterminates; i++)
        if (strcmp (plan->terminates[i].node->name, "htc-4") == 0)
            assert_non_null (strstr (plan->terminates[i].reason, "its pbs_mom has not reported"));
    ccas_pbs_actions_free (&a);
    ccas_plan_destroy (plan);
    ccas_jobs_destroy (jobs);
    json_object_put (times);
    ccas_pbs_nodes_destroy (pn);
    model_free (c);
}

/* Every node reads down for ~2 s after any `qmgr create node`, and
 * state-unknown,down for seconds after pbs_server starts, with an old
 * last_state_change_time: a node whose mom reported still counts as capacity
 * until ccautoscale has seen it down for CCAS_PBS_DOWN_GRACE seconds. */
static void test_down_grace (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct ccas_cluster *c = model (cc_nodes);
    double now = (double)time (NULL);
    struct ccas_pbs_nodes *pn = ccas_pbs_nodes_from_json (
        json_tokener_parse (
            "{\"nodes\": {"
            " \"htc-1\": {\"state\": \"down\", \"pcpus\": 2, \"last_state_change_time\": 1,"
            "            \"resources_available\": {\"ccnodeid\": \"id1\"}},"
            " \"htc-2\": {\"state\": \"state-unknown,down\", \"pcpus\": 2,"
            "            \"pbs_version\": \"23.06.06\", \"resources_available\": {\"ccnodeid\": \"id2\"}},"
            " \"htc-3\": {\"state\": \"down\", \"pcpus\": 2, \"resources_available\": {\"ccnodeid\": "
            "\"id3\"}},"
            " \"htc-4\": {\"state\": \"free\", \"pcpus\": 2, \"resources_available\": {\"ccnodeid\": "
            "\"id4\"}}}}"),
        &err);
    assert_non_null (pn);
    ccas_pbs_nodes_merge (pn, c);
    assert_true (ccas_cluster_find_node (c, "htc-1")->sched_offline); /* merge alone: down is down */
    char text[300];
    snprintf (text, sizeof (text),
              "{\"id3\": {\"first_seen\": 0, \"pbs_down\": %.0f}, \"id4\": {\"pbs_down\": 5}}", now - 600);
    json_object *times = json_tokener_parse (text);
    assert_int_equal (ccas_pbs_nodes_judge (pn, c, times, now), 0);
    assert_false (ccas_cluster_find_node (c, "htc-1")->sched_offline); /* first seen down now */
    assert_false (ccas_cluster_find_node (c, "htc-2")->sched_offline);
    assert_true (ccas_cluster_find_node (c, "htc-3")->sched_offline); /* down for 10 minutes */
    assert_false (ccas_cluster_find_node (c, "htc-4")->sched_offline);
    json_object *t1 = ccas_json_get (times, "id1");
    assert_non_null (ccas_json_get (t1, "pbs_down"));
    assert_null (ccas_json_get (ccas_json_get (times, "id4"), "pbs_down")); /* up again: forgotten */
    json_object_put (times);
    ccas_pbs_nodes_destroy (pn);
    model_free (c);
}

/* OpenPBS writes a tab after the colon and prints values that parse as JSON
 * typed: the quote repair still engages, and a number or boolean is read as
 * the text PBS printed. */
static void test_json_openpbs (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    static const char doc[] = "{\n"
                              "\t\"timestamp\":\t1795658608,\n"
                              "\t\"nodes\":\t{\n"
                              "\t\t\"n1\":\t{\n"
                              "\t\t\t\"comment\":\t\"say \"hi\"\",\n"
                              "\t\t\t\"state\":\t\"free\",\n"
                              "\t\t\t\"resources_available\":\t{\n"
                              "\t\t\t\t\"ccnodeid\":\t1e5,\n"
                              "\t\t\t\t\"group_id\":\t123,\n"
                              "\t\t\t\t\"ungrouped\":\ttrue,\n"
                              "\t\t\t\t\"slot_type\":\tnull\n"
                              "\t\t\t}\n"
                              "\t\t}\n"
                              "\t}\n"
                              "}\n";
    json_object *o = ccas_pbs_json_parse (doc, strlen (doc), "pbsnodes", "nodes", NULL, NULL, &err);
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
}

/* A queue or server limit PBS would stop a job at makes no nodes: running
 * jobs count first, then queued ones in PBS's order; per user, per group,
 * overall, of jobs or of a resource; a stopped queue runs nothing. */
static void test_limits (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct ccas_cluster *c = model (NULL);
    struct ccas_pbs_queue *q = ccas_pbs_queue_create ();
    json_object *queues = json_tokener_parse (
        "{\"Queue\": {\"workq\": {\"queue_type\": \"Execution\", \"started\": \"True\","
        "  \"max_run\": \"[o:PBS_ALL=3], [u:PBS_GENERIC=2], [u:bob=5]\", \"max_queued\": \"[o:PBS_ALL=4]\"},"
        " \"big\": {\"queue_type\": \"Execution\", \"max_run_res\": {\"ncpus\": \"[o:PBS_ALL=4]\"}},"
        " \"off\": {\"queue_type\": \"Execution\", \"started\": \"False\"},"
        " \"old\": {\"queue_type\": \"Execution\", \"max_user_run\": 1}}}");
    json_object *server = json_tokener_parse ("{\"Server\": {\"vm\": {\"max_run\": \"[g:staff=10]\"}}}");
    assert_int_equal (ccas_pbs_queue_limits (q, queues, server, &err), 0);
    static const char jobs_text[] = "{\"Jobs\": {"
                                    " \"1.s\": {\"job_state\": \"R\", \"queue\": \"workq\", \"euser\": "
                                    "\"alice\", \"schedselect\": \"1:ncpus=1\"},"
                                    " \"2.s\": {\"job_state\": \"Q\", \"queue\": \"workq\", \"euser\": "
                                    "\"alice\", \"schedselect\": \"1:ncpus=1\"},"
                                    " \"3.s\": {\"job_state\": \"Q\", \"queue\": \"workq\", \"euser\": "
                                    "\"alice\", \"schedselect\": \"1:ncpus=1\"},"
                                    " \"4.s\": {\"job_state\": \"Q\", \"queue\": \"workq\", \"euser\": "
                                    "\"bob\", \"schedselect\": \"1:ncpus=1\"},"
                                    " \"5.s\": {\"job_state\": \"Q\", \"queue\": \"workq\", \"euser\": "
                                    "\"bob\", \"schedselect\": \"1:ncpus=1\"},"
                                    " \"6.s\": {\"job_state\": \"Q\", \"queue\": \"big\", \"euser\": "
                                    "\"carol\", \"schedselect\": \"1:ncpus=3\","
                                    "           \"Resource_List\": {\"ncpus\": 3}},"
                                    " \"7.s\": {\"job_state\": \"Q\", \"queue\": \"big\", \"euser\": "
                                    "\"carol\", \"schedselect\": \"1:ncpus=2\","
                                    "           \"Resource_List\": {\"ncpus\": 2}},"
                                    " \"8.s\": {\"job_state\": \"Q\", \"queue\": \"off\", \"euser\": "
                                    "\"carol\", \"schedselect\": \"1:ncpus=1\"},"
                                    " \"9.s\": {\"job_state\": \"Q\", \"queue\": \"old\", \"euser\": "
                                    "\"dan\", \"schedselect\": \"1:ncpus=1\"},"
                                    " \"10.s\": {\"job_state\": \"Q\", \"queue\": \"old\", \"euser\": "
                                    "\"dan\", \"schedselect\": \"1:ncpus=1\"}"
                                    "}}";
    assert_int_equal (ccas_pbs_queue_read (q, jobs_text, strlen (jobs_text), NULL, NULL, &err), 0);
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

/* A chunk's group_id must be the group of a node that exists: PBS runs the
 * job nowhere else, and ccautoscale names the groups it makes itself. */
static void test_jobs_group_id (void **state)
{
    (void)state;
    struct matched m;
    match_jobs (
        &m,
        "{\"nodes\": [{\"Name\": \"htc-1\", \"NodeId\": \"id1\", \"Template\": \"htc\","
        " \"MachineType\": \"Standard_F2s_v2\", \"Status\": \"Ready\", \"TargetState\": \"Started\","
        " \"Hostname\": \"htc-1\", \"PrivateIp\": \"10.0.0.4\", \"PlacementGroupId\": \"pg-1\"}]}",
        "{\"nodes\": {\"htc-1\": {\"state\": \"free\", \"resources_available\": {\"ccnodeid\": \"id1\"}}}}",
        "{\"Jobs\": {"
        " \"1.s\": {\"job_state\": \"Q\", \"schedselect\": \"1:group_id=123:ncpus=1\"},"
        " \"2.s\": {\"job_state\": \"Q\", \"schedselect\": \"1:ncpus=1:group_id=pg-1\"},"
        " \"3.s\": {\"job_state\": \"Q\", \"schedselect\": \"1:ncpus=1:slot_type=htc:group_id=_none_\"}"
        "}}");
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

static void test_join_never_reopens (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct ccas_cluster *c = model (cc_nodes);
    struct ccas_pbs_nodes *pn = ccas_pbs_nodes_from_json (
        json_tokener_parse (
            "{\"nodes\": {"
            " \"htc-1\": {\"state\": \"offline\", \"comment\": \"ccautoscale: joining\","
            "            \"resources_available\": {\"ccnodeid\": \"id1\"}},"
            " \"htc-2\": {\"state\": \"free\", \"resources_available\": {}},"
            " \"htc-3\": {\"state\": \"offline\", \"comment\": \"ccautoscale: draining: idle for 400 s\","
            "            \"resources_available\": {}},"
            " \"htc-4\": {\"state\": \"offline\", \"comment\": \"bad DIMM, ticket 42\", "
            "\"resources_available\": {}},"
            " \"htc-5\": {\"state\": \"offline\", \"comment\": \"ccautoscale: joining\", "
            "\"resources_available\": {}},"
            " \"old-8\": {\"state\": \"down,offline\", \"comment\": \"ccautoscale: joining\", "
            "\"resources_available\": {}},"
            " \"static-1\": {\"state\": \"offline\", \"comment\": \"ccautoscale: joining soon\", "
            "\"resources_available\": {}}"
            "}}"),
        &err);
    assert_non_null (pn);
    ccas_pbs_nodes_merge (pn, c);
    /* still joining is not offline for the matching: it is about to take work */
    assert_false (ccas_cluster_find_node (c, "htc-5")->sched_offline);
    assert_true (ccas_cluster_find_node (c, "htc-4")->sched_offline);
    struct ccas_jobs *jobs = ccas_jobs_create (1);
    assert_int_equal (ccas_match (c, jobs, NULL, &err), 0);
    struct ccas_plan *plan = ccas_plan_create (c, jobs, &err);
    /* htc-2 (failed joins: in PBS, no marker) and htc-5 idle for an hour; the others busy a moment ago */
    json_object *times = json_tokener_parse ("{\"id1\": {\"first_seen\": 0, \"last_busy\": 3500},"
                                             " \"id2\": {\"first_seen\": 0, \"last_busy\": 0},"
                                             " \"id3\": {\"first_seen\": 0, \"last_busy\": 3500},"
                                             " \"id4\": {\"first_seen\": 0, \"last_busy\": 3500},"
                                             " \"id5\": {\"first_seen\": 0, \"last_busy\": 0}}");
    assert_int_equal (ccas_scaledown_plan (plan, times, 3600, &err), 0);
    struct ccas_pbs_actions a;
    assert_int_equal (ccas_pbs_plan (plan, pn, &a, &err), 0);
    size_t per_host[8] = {0};
    for (size_t i = 0; i < a.n; i++)
        if (strncmp (a.v[i].host, "htc-", 4) == 0)
            per_host[a.v[i].host[4] - '0']++;
    for (int h = 1; h <= 6; h++)
        assert_true (per_host[h] <= 1); /* never drained and joined in one pass */
    assert_int_equal (action_for (&a, "htc-1")->kind, CCAS_PBS_JOIN); /* marker set, online step failed */
    assert_non_null (action_for (&a, "htc-1")->pbs);
    assert_int_equal (action_for (&a, "htc-2")->kind, CCAS_PBS_DRAIN);
    assert_null (action_for (&a, "htc-3"));                             /* draining */
    assert_null (action_for (&a, "htc-4"));                             /* the administrator's */
    assert_int_equal (action_for (&a, "htc-5")->kind, CCAS_PBS_DELETE); /* never online: no drain */
    assert_true (terminated (plan, "htc-5"));
    assert_int_equal (action_for (&a, "old-8")->kind, CCAS_PBS_FORGET);
    assert_null (action_for (&a, "static-1")); /* not our comment */
    ccas_pbs_actions_free (&a);
    json_object_put (times);
    ccas_plan_destroy (plan);
    ccas_jobs_destroy (jobs);
    ccas_pbs_nodes_destroy (pn);
    model_free (c);
}

/* ---- the scheduler's resources: line ---------------------------------------------------------------- */

static void test_sched_config (void **state)
{
    (void)state;
    static const char *const wanted[] = {"slot_type", "ungrouped", "ngpus", NULL};
    char missing[128], line[512];
    /* PBS's default: ours missing; the line keeps what it had, ours appended */
    static const char dflt[] = "# resources: \"ncpus, slot_type\"\n"
                               "resources: \"ncpus, mem, arch, host, vnode, aoe, eoe\"\n"
                               "smp_cluster_dist: pack\n";
    assert_int_equal (ccas_pbs_sched_check (dflt, wanted, missing, sizeof (missing), line, sizeof (line)), 3);
    assert_string_equal (missing, "slot_type, ungrouped, ngpus");
    assert_string_equal (
        line, "resources: \"ncpus, mem, arch, host, vnode, aoe, eoe, slot_type, ungrouped, ngpus\"");
    /* some there (spacing as a site wrote it), the last line counts */
    static const char some[] = "resources: \"ncpus\"\nresources: \"ncpus,mem, ngpus,slot_type_x\"\r\n";
    assert_int_equal (ccas_pbs_sched_check (some, wanted, missing, sizeof (missing), line, sizeof (line)), 2);
    assert_string_equal (missing, "slot_type, ungrouped");
    assert_string_equal (line, "resources: \"ncpus, mem, ngpus, slot_type_x, slot_type, ungrouped\"");
    /* all there, or no line (the scheduler then checks every resource) */
    static const char all[] = "resources: \"ncpus, ungrouped, slot_type, ngpus\"\n";
    assert_int_equal (ccas_pbs_sched_check (all, wanted, missing, sizeof (missing), line, sizeof (line)), 0);
    assert_int_equal (ccas_pbs_sched_check ("smp_cluster_dist: pack\n", wanted, missing, sizeof (missing),
                                            line, sizeof (line)),
                      0);
    assert_int_equal (ccas_pbs_sched_check ("", wanted, missing, sizeof (missing), line, sizeof (line)), 0);
}

static void test_sched_config_path (void **state)
{
    (void)state;
    char path[512], conf[] = "/tmp/test_pbs_conf.XXXXXX";
    int fd = mkstemp (conf);
    assert_true (fd >= 0);
    assert_true (write (fd, "PBS_EXEC=/opt/pbs\nPBS_HOME=/site/pbs\n", 36) == 36);
    close (fd);
    unsetenv ("PBS_HOME");
    setenv ("PBS_CONF_FILE", conf, 1);
    ccas_pbs_sched_config_path (path, sizeof (path));
    assert_string_equal (path, "/site/pbs/sched_priv/sched_config");
    setenv ("PBS_HOME", "/env/pbs", 1);
    ccas_pbs_sched_config_path (path, sizeof (path));
    assert_string_equal (path, "/env/pbs/sched_priv/sched_config");
    unsetenv ("PBS_HOME");
    setenv ("PBS_CONF_FILE", "/nonexistent/pbs.conf", 1);
    ccas_pbs_sched_config_path (path, sizeof (path));
    assert_string_equal (path, "/var/spool/pbs/sched_priv/sched_config");
    unsetenv ("PBS_CONF_FILE");
    unlink (conf);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_select_chunks),
        cmocka_unit_test (test_select_errors),
        cmocka_unit_test (test_place),
        cmocka_unit_test (test_names),
        cmocka_unit_test (test_json_repair),
        cmocka_unit_test (test_json_garbage),
        cmocka_unit_test (test_json_section_replaced),
        cmocka_unit_test (test_jobs_from_qstat),
        cmocka_unit_test (test_queue_read),
        cmocka_unit_test (test_jobs_ungrouped),
        cmocka_unit_test (test_jobs_default_grouping),
        cmocka_unit_test (test_join_stuck),
        cmocka_unit_test (test_down_grace),
        cmocka_unit_test (test_json_openpbs),
        cmocka_unit_test (test_limits),
        cmocka_unit_test (test_jobs_group_id),
        cmocka_unit_test (test_jobs_pack),
        cmocka_unit_test (test_pass_decisions),
        cmocka_unit_test (test_join_ready_nodes),
        cmocka_unit_test (test_join_never_reopens),
        cmocka_unit_test (test_sched_config),
        cmocka_unit_test (test_sched_config_path),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
