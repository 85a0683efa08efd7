/* SPDX-License-Identifier: MIT */
/* test_pbs_cmds.c: what ccautoscale asks of PBS (pbs_cmds.c), against
 * stand-in commands (standin.h) — the argv of every qstat, pbsnodes and
 * qalter, their output read and their failures reported with stderr; node
 * changes sent as two qmgr batches on stdin, each directive's failure
 * pinned on its own node, a qmgr that fails as a whole or hangs failing
 * every change; comments on jobs sent in bounded calls, made safe. */
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
#include "pbs_cmds.h"
#include "pbs_jobs.h"
#include "pbs_nodes.h"
#include "standin.h"

/* The stand-in's file `name` holds data file `data`. */
static void set_data (const char *name, const char *data)
{
    char *text = pf_text (data, NULL);
    standin_set (name, text);
    free (text);
}

static void assert_calls (const char *want)
{
    char *got = standin_calls ();
    if (strcmp (got, want) != 0)
        fail_msg ("calls:\n%s\nwant:\n%s", got, want);
    free (got);
}

static void test_cmds_qstat (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct ccas_cluster *c = model (NULL);
    standin_reset ();
    set_data ("qstat.out", "openpbs/qstat-f-t-json.json");
    struct ccas_pbs_queue *q = ccas_pbs_queue_create ();
    assert_int_equal (ccas_pbs_qstat (q, &err), 0);
    assert_calls ("qstat -f -t -F json\n");
    struct ccas_pbs_jobs_stats st;
    struct ccas_jobs *jobs = ccas_pbs_queue_jobs (c, q, &st, &err);
    assert_int_equal (st.queued, 9);
    ccas_jobs_destroy (jobs);
    ccas_pbs_queue_destroy (q);

    /* an entry that cannot be read is left out; the others are read */
    standin_reset ();
    set_data ("qstat.out", "qstat-quirks.txt");
    q = ccas_pbs_queue_create ();
    assert_int_equal (ccas_pbs_qstat (q, &err), 0);
    jobs = ccas_pbs_queue_jobs (c, q, &st, &err);
    assert_int_equal (st.seen, 3);
    assert_int_equal (st.skipped, 1);
    assert_int_equal (jobs->n, 1);
    ccas_jobs_destroy (jobs);
    ccas_pbs_queue_destroy (q);

    /* qstat fails: its status and the first line of what it said */
    standin_reset ();
    standin_set ("qstat.status", "1");
    standin_set ("qstat.err", "qstat: cannot connect to server vm (errno=15010)\nmore\n");
    q = ccas_pbs_queue_create ();
    assert_int_equal (ccas_pbs_qstat (q, &err), -1);
    assert_string_equal (err.text, "qstat: exit 1: qstat: cannot connect to server vm (errno=15010)");
    ccas_pbs_queue_destroy (q);

    /* qstat succeeds, but what it printed is not JSON */
    standin_reset ();
    standin_set ("qstat.out", "Job id  Name  User\n");
    q = ccas_pbs_queue_create ();
    assert_int_equal (ccas_pbs_qstat (q, &err), -1);
    assert_string_equal (err.text, "qstat: no JSON object in the output (19 bytes)");
    ccas_pbs_queue_destroy (q);
    model_free (c);
}

/* The limits come from qstat -Q and qstat -B; the jobs then read count
 * against them. */
static void test_cmds_qstat_limits (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct ccas_cluster *c = model (NULL);
    standin_reset ();
    set_data ("qstat.-Q.out", "qstat-Q-limits.json");
    set_data ("qstat.-B.out", "qstat-B-limits.json");
    set_data ("qstat.-f.out", "qstat-limits.json");
    struct ccas_pbs_queue *q = ccas_pbs_queue_create ();
    assert_int_equal (ccas_pbs_qstat_limits (q, &err), 0);
    assert_int_equal (ccas_pbs_qstat (q, &err), 0);
    assert_calls ("qstat -Q -f -F json\nqstat -B -f -F json\nqstat -f -t -F json\n");
    struct ccas_pbs_jobs_stats st;
    struct ccas_jobs *jobs = ccas_pbs_queue_jobs (c, q, &st, &err);
    assert_int_equal (st.limited, 5);
    ccas_jobs_destroy (jobs);
    ccas_pbs_queue_destroy (q);

    /* qstat -Q fails: no qstat -B */
    standin_reset ();
    standin_set ("qstat.-Q.status", "2");
    standin_set ("qstat.-Q.err", "qstat: Unauthorized Request\n");
    q = ccas_pbs_queue_create ();
    assert_int_equal (ccas_pbs_qstat_limits (q, &err), -1);
    assert_string_equal (err.text, "qstat: exit 2: qstat: Unauthorized Request");
    assert_calls ("qstat -Q -f -F json\n");
    ccas_pbs_queue_destroy (q);

    /* qstat -B prints no JSON: named */
    standin_reset ();
    set_data ("qstat.-Q.out", "openpbs/qstat-Q-f-json.json");
    standin_set ("qstat.-B.out", "Server Max Tot\n");
    q = ccas_pbs_queue_create ();
    assert_int_equal (ccas_pbs_qstat_limits (q, &err), -1);
    assert_string_equal (err.text, "qstat -B: no JSON object in the output (15 bytes)");
    ccas_pbs_queue_destroy (q);

    /* a limit PBS could not have written */
    standin_reset ();
    standin_set ("qstat.-Q.out", "{\"Queue\": {\"w\": {\"max_run\": \"[x:PBS_ALL=3]\"}}}");
    set_data ("qstat.-B.out", "openpbs/qstat-B-f-json.json");
    q = ccas_pbs_queue_create ();
    assert_int_equal (ccas_pbs_qstat_limits (q, &err), -1);
    assert_non_null (strstr (err.text, "queue w max_run: '[x:PBS_ALL=3]'"));
    ccas_pbs_queue_destroy (q);
    model_free (c);
}

static void test_cmds_pbsnodes (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    standin_reset ();
    set_data ("pbsnodes.out", "openpbs/pbsnodes-av-json-running.json");
    json_object *doc = ccas_pbs_pbsnodes (&err);
    assert_non_null (doc);
    assert_calls ("pbsnodes -av -F json\n");
    assert_string_equal (ccas_json_str (ccas_json_get (ccas_json_get (doc, "nodes"), "vm"), "state"),
                         "job-busy");
    json_object_put (doc);

    standin_reset ();
    standin_set ("pbsnodes.status", "1");
    standin_set ("pbsnodes.err", "pbsnodes: Server has no node list\n");
    assert_null (ccas_pbs_pbsnodes (&err));
    assert_string_equal (err.text, "pbsnodes: exit 1: pbsnodes: Server has no node list");
}

/* The model's node `name`. */
static const struct ccas_node *cc_node (struct ccas_cluster *c, const char *name)
{
    const struct ccas_node *n = ccas_cluster_find_node (c, name);
    if (!n)
        fail_msg ("no node %s", name);
    return n;
}

/* Every change goes in one qmgr batch, one directive a node: a vnode created
 * with its resources and marker in one `create node`, offline; one `set
 * node` of the same for a node PBS had without the marker (online, or kept
 * offline); a node put online; drains and deletions.  qmgr names the
 * directives it refused, and only those ops fail; deleting a node PBS no
 * longer has succeeds; a create whose name does not resolve is said so; a
 * create PBS refused for an attribute (a PBS may have made the node bare) is
 * followed by the node's deletion; a name that cannot be written for qmgr
 * never reaches it. */
static void test_cmds_run_ops (void **state)
{
    (void)state;
    struct ccas_cluster *c = model ("cyclecloud-nodes.json");
    struct ccas_pbs_op ops[] = {
        {.kind = CCAS_PBS_OP_CREATE, .host = "htc-1", .node = cc_node (c, "htc-1")},
        {.kind = CCAS_PBS_OP_REGISTER, .host = "htc-2", .node = cc_node (c, "htc-2"), .online = true},
        {.kind = CCAS_PBS_OP_REGISTER, .host = "htc-3", .node = cc_node (c, "htc-3")},
        {.kind = CCAS_PBS_OP_DRAIN, .host = "htc-4", .why = "idle for 400 s: \"quoted\" & more\nlines"},
        {.kind = CCAS_PBS_OP_DELETE, .host = "htc-5"},
        {.kind = CCAS_PBS_OP_DELETE, .host = "old-9"},
        {.kind = CCAS_PBS_OP_DELETE, .host = "bad;name"},
        {.kind = CCAS_PBS_OP_ONLINE, .host = "htc-6"},
    };
    static const char *const names[] = {"ncpus", "mem", "ngpus", NULL};
    standin_reset ();
    /* htc-5 is busy, old-9 is gone already, htc-2 refused its resources */
    standin_set ("qmgr.1.err", "qmgr obj=htc-5 svr=default: Request invalid for state of node\n"
                               "qmgr: Error (15018) returned from server\n"
                               "qmgr obj=old-9 svr=default: Unknown node \n"
                               "qmgr obj=htc-2 svr=default: Illegal attribute or resource value  "
                               "resources_available.mem\n");
    standin_set ("qmgr.1.status", "1");
    ccas_pbs_run_ops (c, ops, sizeof (ops) / sizeof (ops[0]), names);
    assert_calls ("qmgr\n"
                  "< create node htc-1 state = offline, comment = \"cyclecloud joined\","
                  " resources_available.ncpus = 2, resources_available.mem = 4194304kb,"
                  " resources_available.ngpus = 0, resources_available.slot_type = htc,"
                  " resources_available.vm_size = Standard_F2s_v2, resources_available.nodearray = htc,"
                  " resources_available.group_id = \"_none_\", resources_available.ungrouped = true,"
                  " resources_available.ccnodeid = id1\n"
                  "< set node htc-2 state -= offline, comment = \"cyclecloud restored\","
                  " resources_available.ncpus = 2, resources_available.mem = 4194304kb,"
                  " resources_available.ngpus = 0, resources_available.slot_type = htc,"
                  " resources_available.vm_size = Standard_F2s_v2, resources_available.nodearray = htc,"
                  " resources_available.group_id = \"_none_\", resources_available.ungrouped = true,"
                  " resources_available.ccnodeid = id2\n"
                  "< set node htc-3 state += offline, comment = \"cyclecloud joined\","
                  " resources_available.ncpus = 2, resources_available.mem = 4194304kb,"
                  " resources_available.ngpus = 0, resources_available.slot_type = htc,"
                  " resources_available.vm_size = Standard_F2s_v2, resources_available.nodearray = htc,"
                  " resources_available.group_id = \"_none_\", resources_available.ungrouped = true,"
                  " resources_available.ccnodeid = id3\n"
                  "< set node htc-4 state += offline, comment = \"ccautoscale: draining: idle for 400 s: "
                  "'quoted' + more lines\"\n"
                  "< delete node htc-5\n"
                  "< delete node old-9\n"
                  "< set node htc-6 state -= offline, comment = \"cyclecloud restored\"\n");
    assert_false (ops[0].failed);
    assert_true (ops[1].failed);
    assert_string_equal (ops[1].error, "qmgr: Illegal attribute or resource value  resources_available.mem");
    assert_false (ops[2].failed);
    assert_false (ops[3].failed);
    assert_true (ops[4].failed);
    assert_string_equal (ops[4].error, "qmgr: Request invalid for state of node");
    assert_false (ops[5].failed); /* PBS no longer has it: done */
    assert_true (ops[6].failed);
    assert_string_equal (ops[6].error, "'bad;name' is not a valid PBS node name");
    assert_false (ops[7].failed);

    /* a create of a name the server cannot resolve: unresolved, nothing made */
    char *calls;
    standin_reset ();
    standin_set ("qmgr.1.err", "qmgr obj=htc-1 svr=default: Unknown node \n");
    standin_set ("qmgr.1.status", "214");
    ccas_pbs_run_ops (c, ops, 1, names);
    assert_true (ops[0].failed);
    assert_true (ops[0].unresolved);
    assert_string_equal (ops[0].error, "qmgr: Unknown node");
    calls = standin_calls ();
    assert_int_equal (strncmp (calls, "qmgr\n< create node htc-1 ", strlen ("qmgr\n< create node htc-1 ")),
                      0);
    assert_null (strstr (calls, "delete"));
    free (calls);

    /* a create refused for an attribute: its name deleted at once */
    standin_reset ();
    standin_set ("qmgr.1.err", "qmgr obj=htc-1 svr=default: Unknown resource \n");
    standin_set ("qmgr.1.status", "1");
    ccas_pbs_run_ops (c, ops, 1, names);
    assert_true (ops[0].failed);
    assert_false (ops[0].unresolved);
    assert_string_equal (ops[0].error, "qmgr: Unknown resource");
    calls = standin_calls ();
    assert_non_null (strstr (calls, "\nqmgr\n< delete node htc-1\n"));
    free (calls);

    /* no ops: no qmgr at all */
    standin_reset ();
    ccas_pbs_run_ops (c, &ops[4], 1, names);
    assert_false (ops[4].failed);
    assert_calls ("qmgr\n< delete node htc-5\n");
    standin_reset ();
    ccas_pbs_run_ops (c, ops, 0, names);
    assert_calls ("");
    model_free (c);
}

/* A default_resources value that is a list joins as PBS's string_array,
 * its elements joined by commas between quotes; a list that cannot be
 * written so is left out, not written wrong. */
static void test_cmds_join_list (void **state)
{
    (void)state;
    struct ccas_cluster *c = model_config (
        "cyclecloud-nodes.json",
        "\"default_resources\": [{\"select\": {\"node.name\": \"htc-1\"}, \"name\": \"features\","
        " \"value\": [\"ib\", \"ssd\", 4, true]},"
        " {\"select\": {}, \"name\": \"features\", \"value\": [\"a,b\"]}]");
    struct ccas_pbs_op ops[] = {
        {.kind = CCAS_PBS_OP_CREATE, .host = "htc-1", .node = cc_node (c, "htc-1")},
        {.kind = CCAS_PBS_OP_CREATE, .host = "htc-2", .node = cc_node (c, "htc-2")},
    };
    static const char *const names[] = {"features", NULL};
    standin_reset ();
    ccas_pbs_run_ops (c, ops, 2, names);
    assert_calls ("qmgr\n"
                  "< create node htc-1 state = offline, comment = \"cyclecloud joined\","
                  " resources_available.features = \"ib,ssd,4,True\", resources_available.slot_type = htc,"
                  " resources_available.vm_size = Standard_F2s_v2, resources_available.nodearray = htc,"
                  " resources_available.group_id = \"_none_\", resources_available.ungrouped = true,"
                  " resources_available.ccnodeid = id1\n"
                  "< create node htc-2 state = offline, comment = \"cyclecloud joined\","
                  " resources_available.slot_type = htc,"
                  " resources_available.vm_size = Standard_F2s_v2, resources_available.nodearray = htc,"
                  " resources_available.group_id = \"_none_\", resources_available.ungrouped = true,"
                  " resources_available.ccnodeid = id2\n");
    assert_false (ops[0].failed || ops[1].failed);
    model_free (c);
}

/* qmgr failing as a whole (no op named), or outliving its limit, fails
 * every op of its batch. */
static void test_cmds_run_ops_qmgr_fails (void **state)
{
    (void)state;
    struct ccas_cluster *c = model ("cyclecloud-nodes.json");
    struct ccas_pbs_op ops[] = {
        {.kind = CCAS_PBS_OP_DRAIN, .host = "htc-4", .why = "idle"},
        {.kind = CCAS_PBS_OP_DELETE, .host = "htc-5"},
    };
    standin_reset ();
    standin_set ("qmgr.err", "qmgr: Error (15010) returned from server\nConnection refused\n");
    standin_set ("qmgr.status", "2");
    ccas_pbs_run_ops (c, ops, 2, NULL);
    for (size_t i = 0; i < 2; i++) {
        assert_true (ops[i].failed);
        assert_string_equal (ops[i].error, "qmgr: exit 2: Connection refused");
    }

    standin_reset ();
    standin_set ("qmgr.hang", "");
    ccas_pbs_set_timeout (1);
    ccas_pbs_run_ops (c, ops, 2, NULL);
    ccas_pbs_set_timeout (0); /* back to the default */
    for (size_t i = 0; i < 2; i++) {
        assert_true (ops[i].failed);
        assert_string_equal (ops[i].error, "qmgr: no answer within 1 s (killed)");
    }

    /* qmgr is not there */
    standin_reset ();
    ccas_run_set_bin_dir ("/nonexistent");
    ccas_pbs_run_ops (c, ops, 1, NULL);
    ccas_run_set_bin_dir (standin_dir);
    assert_true (ops[0].failed);
    assert_string_equal (ops[0].error, "qmgr: command not found (set pbs.bin_dir, or add PBS to the PATH)");
    model_free (c);
}

/* A comment on many jobs: at most 200 ids a qalter, quotes and control
 * characters made safe; one call failing is the error, the others still made. */
static void test_cmds_comment_jobs (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    char *ids[450];
    for (size_t i = 0; i < 450; i++) {
        char id[32];
        snprintf (id, sizeof (id), "%zu.vm", i + 1);
        ids[i] = strdup (id);
    }
    standin_reset ();
    standin_set ("qalter.2.status", "1");
    standin_set ("qalter.2.err", "qalter: Unknown Job Id 250.vm\n");
    assert_int_equal (
        ccas_pbs_comment_jobs ("waiting for \"gpu\" & more\nnodes", (const char *const *)ids, 450, &err), -1);
    assert_string_equal (err.text, "qalter: exit 1: qalter: Unknown Job Id 250.vm");
    char *calls = standin_calls ();
    /* three calls: ids 1-200, 201-400, 401-450 */
    char *line = calls;
    for (size_t call = 0; call < 3; call++) {
        static const char prefix[] = "qalter -W comment=\"waiting for 'gpu' + more nodes\"";
        assert_memory_equal (line, prefix, strlen (prefix));
        size_t first = call * 200, last = call == 2 ? 450 : first + 200;
        char *p = line + strlen (prefix);
        for (size_t i = first; i < last; i++) {
            char want[40];
            snprintf (want, sizeof (want), " %zu.vm", i + 1);
            assert_memory_equal (p, want, strlen (want));
            p += strlen (want);
        }
        assert_int_equal (*p, '\n');
        line = p + 1;
    }
    assert_int_equal (*line, '\0');
    free (calls);

    standin_reset ();
    assert_int_equal (ccas_pbs_comment_jobs ("ok", (const char *const *)ids, 1, &err), 0);
    assert_calls ("qalter -W comment=\"ok\" 1.vm\n");
    standin_reset ();
    assert_int_equal (ccas_pbs_comment_jobs ("ok", (const char *const *)ids, 0, &err), 0);
    assert_calls ("");
    for (size_t i = 0; i < 450; i++)
        free (ids[i]);
}

static void test_cmds_host (void **state)
{
    (void)state;
    struct ccas_node n = {.name = "htc-1"};
    assert_string_equal (ccas_pbs_host (&n), "htc-1");
    n.hostname = "";
    assert_string_equal (ccas_pbs_host (&n), "htc-1");
    n.hostname = "ip-0a000004";
    assert_string_equal (ccas_pbs_host (&n), "ip-0a000004");
}

int main (int argc, char **argv)
{
    standin_main (argc, argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_cmds_qstat),        cmocka_unit_test (test_cmds_qstat_limits),
        cmocka_unit_test (test_cmds_pbsnodes),     cmocka_unit_test (test_cmds_run_ops),
        cmocka_unit_test (test_cmds_join_list),    cmocka_unit_test (test_cmds_run_ops_qmgr_fails),
        cmocka_unit_test (test_cmds_comment_jobs), cmocka_unit_test (test_cmds_host),
    };
    return cmocka_run_group_tests (tests, standin_setup, standin_teardown);
}
