/* SPDX-License-Identifier: MIT */
/* test_pass.c: one autoscale pass (pass.c) — its state read once and
 * written once (every decision of the pass kept, nothing written twice or
 * in a dry run, none without the lock), nodes stuck booting and idle ones
 * given back from the node times, a breaker that opens taking its creates
 * out, and a plan carried out through a real ccsim over HTTP: the bucket a
 * create could not fill held, nothing asked when the request records cannot
 * be read. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "ccapi/ccapi.h"
#include "engine/match.h"
#include "engine/pass.h"
#include "engine/plan.h"
#include "model/job.h"
#include "model/test/fixture.h"
#include "tests/ccsim/sim_process.h"
#include "util/file.h"
#include "util/lock.h"

#define NOW 1000000.0
#define CAPACITY_MSG "no capacity"

/* A state directory with a configuration over it and the lock held in it. */
struct world {
    char dir[64];
    struct ccas_config *cfg;
    struct ccas_lock *lock;
};

static void world_make (struct world *w, const char *dir, const char *extra)
{
    struct ccas_error err = {""};
    char conf[1024];
    if (dir)
        snprintf (w->dir, sizeof (w->dir), "%s", dir);
    else {
        snprintf (w->dir, sizeof (w->dir), "/tmp/ccas-pass.XXXXXX");
        fx_dir_make (w->dir);
    }
    snprintf (conf, sizeof (conf), "{\"state_dir\": \"%s\", \"lock_file\": \"%s/lock\"%s%s}", w->dir, w->dir,
              extra ? ", " : "", extra ? extra : "");
    w->cfg = fx_config (conf);
    if (!(w->lock = ccas_lock_acquire (w->cfg->lock_file, "test_pass", 0, &err)))
        fail_msg ("%s", err.text);
}

static void world_free (struct world *w, bool remove)
{
    ccas_lock_release (w->lock);
    ccas_conf_destroy (w->cfg);
    if (remove)
        fx_dir_remove (w->dir);
}

static void write_file (const struct world *w, const char *name, const char *text)
{
    char path[128];
    snprintf (path, sizeof (path), "%s/%s", w->dir, name);
    FILE *f = fopen (path, "w");
    assert_non_null (f);
    fputs (text, f);
    fclose (f);
}

static bool exists (const struct world *w, const char *name)
{
    char path[128];
    struct stat st;
    snprintf (path, sizeof (path), "%s/%s", w->dir, name);
    return stat (path, &st) == 0;
}

/* State file `name` as JSON (a new reference); fails the test if unreadable. */
static json_object *read_state (const struct world *w, const char *name)
{
    char path[128];
    struct ccas_error err = {""};
    snprintf (path, sizeof (path), "%s/%s", w->dir, name);
    json_object *o = ccas_json_load_file (path, 1 << 20, &err);
    if (!o)
        fail_msg ("%s", err.text);
    json_object_object_del (o, CCAS_STATE_FORMAT_KEY); /* what a state file is, not what it holds */
    return o;
}

static struct ccas_pass *load (const struct world *w, unsigned flags, double now)
{
    struct ccas_error err = {""};
    struct ccas_pass *p =
        ccas_pass_load (w->cfg, (flags & CCAS_PASS_DRY_RUN) ? NULL : w->lock, flags, now, &err);
    if (!p)
        fail_msg ("%s", err.text);
    return p;
}

static struct ccas_observation short_create (const char *mt)
{
    return (struct ccas_observation){.seen = CCAS_SEEN_SHORT_CREATE,
                                     .nodearray = "htc",
                                     .machine_type = mt,
                                     .message = CAPACITY_MSG,
                                     .cls = CCAS_CLASS_CAPACITY};
}

/* Jobs from `text` matched on `c`, and the plan of that.  Caller frees both. */
static struct ccas_plan *plan_jobs (struct ccas_cluster *c, const char *text, struct ccas_jobs **jobs)
{
    struct ccas_error err = {""};
    struct ccas_plan *plan = NULL;
    if (!(*jobs = ccas_jobs_from_text (text, strlen (text), c->cons, "test", &err)) ||
        ccas_match (c, *jobs, NULL, &err) < 0 || !(plan = ccas_plan_create (c, *jobs, &err)))
        fail_msg ("%s", err.text);
    return plan;
}

/* ---- the state: read once, written once ------------------------------------------------------------ */

/* A pass that may change the state directory holds the lock; a dry run need not. */
static void test_load_needs_the_lock (void **state)
{
    (void)state;
    struct world w;
    struct ccas_error err = {""};
    world_make (&w, NULL, NULL);
    assert_null (ccas_pass_load (w.cfg, NULL, CCAS_PASS_POLICY, NOW, &err));
    assert_non_null (strstr (err.text, "must hold the lock"));
    assert_null (ccas_pass_load (w.cfg, NULL, CCAS_PASS_TIMES, NOW, &err));
    struct ccas_pass *p = ccas_pass_load (w.cfg, NULL, CCAS_PASS_POLICY | CCAS_PASS_DRY_RUN, NOW, &err);
    assert_non_null (p);
    assert_true (p->dry_run);
    assert_true (p->policy->dry_run);
    assert_null (p->times); /* only what was asked for */
    assert_null (ccas_pass_node_times (p));
    ccas_pass_destroy (p);
    ccas_pass_destroy (NULL);
    world_free (&w, true);
}

/* A state file that is not JSON fails the load, naming the file; one that
 * was not asked for is not read. */
static void test_load_refuses_unreadable_state (void **state)
{
    (void)state;
    struct world w;
    struct ccas_error err = {""};
    world_make (&w, NULL, NULL);
    write_file (&w, "holds.json", "{");
    assert_null (ccas_pass_load (w.cfg, w.lock, CCAS_PASS_POLICY | CCAS_PASS_TIMES, NOW, &err));
    assert_non_null (strstr (err.text, "holds.json"));
    struct ccas_pass *p = load (&w, CCAS_PASS_TIMES, NOW);
    ccas_pass_destroy (p);
    write_file (&w, "holds.json", "{}");
    write_file (&w, "nodes.json", "[1]");
    assert_null (ccas_pass_load (w.cfg, w.lock, CCAS_PASS_POLICY | CCAS_PASS_TIMES, NOW, &err));
    assert_non_null (strstr (err.text, "nodes.json"));
    world_free (&w, true);
}

/* Every decision of the pass, before and after any other, is in the one
 * save; a second save writes nothing. */
static void test_saved_once_with_every_decision (void **state)
{
    (void)state;
    struct world w;
    struct ccas_error err = {""};
    world_make (&w, NULL, "\"capacity_failure_backoff\": 300, \"breaker\": {\"threshold\": 3}");
    struct ccas_cluster *c = fx_cluster (w.cfg, "cluster-status.json", NULL, NULL);
    struct ccas_pass *p = load (&w, CCAS_PASS_POLICY | CCAS_PASS_TIMES, NOW);
    struct ccas_observation first = short_create ("Standard_F2s_v2");
    struct ccas_observation boot = {
        .seen = CCAS_SEEN_BOOT_FAILED, .nodearray = "hpc", .node = "hpc-1", .message = "never registered"};
    struct ccas_observation later = short_create ("Standard_F4s_v2");
    assert_int_equal (ccas_policy_decide (p->policy, c, &first, 1, NULL), 1);
    assert_int_equal (ccas_policy_decide (p->policy, c, &boot, 1, NULL), 0);
    json_object_object_add (ccas_pass_node_times (p), "id-1", fx_parse ("{\"first_seen\": 5}"));
    assert_int_equal (ccas_policy_decide (p->policy, c, &later, 1, NULL), 1);
    assert_false (p->saved);
    assert_int_equal (ccas_pass_save (p, &err), 0);
    assert_true (p->saved);

    json_object *holds = read_state (&w, "holds.json");
    assert_non_null (ccas_json_get (holds, "htc/Standard_F2s_v2"));
    assert_non_null (ccas_json_get (holds, "htc/Standard_F4s_v2"));
    json_object *breakers = read_state (&w, "breakers.json");
    assert_int_equal (ccas_json_int (ccas_json_get (breakers, "hpc"), "failures", 0), 1);
    json_object *nodes = read_state (&w, "nodes.json");
    assert_int_equal (ccas_json_int (ccas_json_get (ccas_json_get (nodes, "times"), "id-1"), "first_seen", 0),
                      5);
    json_object_put (holds);
    json_object_put (breakers);
    json_object_put (nodes);

    /* the next pass reads what this one decided */
    struct ccas_pass *next = load (&w, CCAS_PASS_POLICY | CCAS_PASS_DRY_RUN, NOW + 1);
    assert_non_null (ccas_holds_reason (next->policy->holds, "htc", "Standard_F4s_v2", NOW + 1));
    ccas_pass_destroy (next);

    /* once: a second save writes nothing */
    char path[128];
    const char *const files[] = {"holds.json", "breakers.json", "nodes.json"};
    for (size_t i = 0; i < 3; i++) {
        snprintf (path, sizeof (path), "%s/%s", w.dir, files[i]);
        assert_int_equal (unlink (path), 0);
    }
    assert_int_equal (ccas_pass_save (p, &err), 0);
    for (size_t i = 0; i < 3; i++)
        assert_false (exists (&w, files[i]));
    ccas_pass_destroy (p);
    ccas_cluster_destroy (c);
    world_free (&w, true);
}

/* A dry run decides (and says so) but writes nothing, and carries nothing out. */
static void test_dry_run_writes_nothing (void **state)
{
    (void)state;
    struct world w;
    struct ccas_error err = {""};
    world_make (&w, NULL, "\"capacity_failure_backoff\": 300");
    struct ccas_cluster *c = fx_cluster (w.cfg, "cluster-status.json", NULL, NULL);
    struct ccas_pass *p = load (&w, CCAS_PASS_POLICY | CCAS_PASS_TIMES | CCAS_PASS_DRY_RUN, NOW);
    struct ccas_observation o = short_create ("Standard_F2s_v2");
    enum ccas_decision d;
    ccas_policy_decide (p->policy, c, &o, 1, &d);
    assert_int_equal (d, CCAS_DECIDED_HELD);
    assert_int_equal (ccas_pass_mark_stuck (p, c, &err), 0);
    struct ccas_plan *plan = ccas_plan_create (c, NULL, &err);
    assert_int_equal (ccas_pass_carry_out (p, plan, NULL, NULL, &err), -1);
    assert_false (p->sent);
    assert_int_equal (ccas_pass_save (p, &err), 0);
    assert_false (exists (&w, "holds.json"));
    assert_false (exists (&w, "breakers.json"));
    assert_false (exists (&w, "nodes.json"));
    ccas_plan_destroy (plan);
    ccas_pass_destroy (p);
    ccas_cluster_destroy (c);
    world_free (&w, true);
}

/* ---- node times: stuck and idle nodes ----------------------------------------------------------------- */

/* Before matching a node booting past boot_timeout is marked; scale-down
 * gives it back with the failed and idle ones; the saved times follow the
 * nodes (a new one entered, a departed one dropped). */
static void test_stuck_and_idle_from_node_times (void **state)
{
    (void)state;
    struct world w;
    struct ccas_error err = {""};
    char times[512];
    world_make (&w, NULL, "\"idle_timeout\": 100, \"boot_timeout\": 1800");
    snprintf (
        times, sizeof (times),
        "{\"times\": {\"boot-htc-slow\": {\"first_seen\": %.0f}, \"boot-htc-ok\": {\"first_seen\": %.0f},"
        " \"idle-htc\": {\"first_seen\": %.0f, \"last_busy\": %.0f},"
        " \"departed\": {\"first_seen\": 1, \"last_busy\": 2}}}",
        NOW - 2000, NOW - 1000, NOW - 5000, NOW - 150);
    write_file (&w, "nodes.json", times);
    size_t len;
    char *text = ccas_file_read (TEST_DATA_DIR "/scaledown-nodes.json", 1 << 20, &len, &err);
    assert_non_null (text);
    struct ccas_cluster *c = fx_cluster (w.cfg, "cluster-status.json", NULL, text);
    free (text);
    struct ccas_pass *p = load (&w, CCAS_PASS_TIMES, NOW);

    assert_int_equal (ccas_pass_mark_stuck (p, c, &err), 1);
    assert_true (fx_node (c, "boot-htc-slow")->boot_timed_out);
    assert_false (fx_node (c, "boot-htc-ok")->boot_timed_out);
    struct ccas_plan *plan = ccas_plan_create (c, NULL, &err);
    assert_int_equal (ccas_pass_scaledown (p, plan, &err), 0);
    bool slow = false, idle = false, ok = false;
    for (size_t i = 0; i < plan->nterminates; i++) {
        const char *n = plan->terminates[i].node->name;
        slow |= strcmp (n, "boot-htc-slow") == 0;
        idle |= strcmp (n, "idle-htc") == 0;
        ok |= strcmp (n, "boot-htc-ok") == 0;
    }
    assert_true (slow);
    assert_true (idle);
    assert_false (ok);
    assert_int_equal (ccas_pass_save (p, &err), 0);
    json_object *saved = read_state (&w, "nodes.json");
    json_object *t = ccas_json_get (saved, "times");
    assert_null (ccas_json_get (t, "departed"));
    assert_true (ccas_json_int (ccas_json_get (t, "new-sight"), "first_seen", 0) == (int64_t)NOW);
    assert_true (ccas_json_int (ccas_json_get (t, "boot-htc-slow"), "first_seen", 0) ==
                 (int64_t)(NOW - 2000));
    json_object_put (saved);
    ccas_plan_destroy (plan);
    ccas_pass_destroy (p);
    ccas_cluster_destroy (c);
    world_free (&w, true);
}

/* A pass without node times cannot plan from them: an error, not a guess. */
static void test_no_times_no_scaledown (void **state)
{
    (void)state;
    struct world w;
    struct ccas_error err = {""};
    world_make (&w, NULL, NULL);
    struct ccas_cluster *c = fx_cluster (w.cfg, "cluster-status.json", NULL, NULL);
    struct ccas_pass *p = load (&w, CCAS_PASS_POLICY, NOW);
    struct ccas_plan *plan = ccas_plan_create (c, NULL, &err);
    assert_int_equal (ccas_pass_mark_stuck (p, c, &err), -1);
    assert_non_null (strstr (err.text, "no node times"));
    assert_int_equal (ccas_pass_scaledown (p, plan, &err), -1);
    ccas_plan_destroy (plan);
    ccas_pass_destroy (p);
    ccas_cluster_destroy (c);
    world_free (&w, true);
}

/* ---- failures before anything is created ----------------------------------------------------------------
 */

static bool never_booted (const struct ccas_node *n, void *arg)
{
    (void)n;
    return *(bool *)arg;
}

/* A VM that failed while booting counts for its nodearray's breaker; when
 * that opens it, the creates planned there are taken out (and only those).
 * A VM that had booted counts for nothing. */
static void test_failures_open_the_breaker (void **state)
{
    (void)state;
    static const char jobs_text[] =
        "[{\"id\": \"1\", \"node_count\": 1, \"constraints\": {\"node.nodearray\": \"htc\"}},"
        " {\"id\": \"2\", \"node_count\": 1, \"constraints\": {\"node.nodearray\": \"hpc\"}}]";
    for (int booting = 0; booting < 2; booting++) {
        struct world w;
        struct ccas_error err = {""};
        struct ccas_jobs *jobs = NULL;
        bool arg = booting;
        world_make (&w, NULL, "\"breaker\": {\"threshold\": 1, \"cooldown\": 600}");
        struct ccas_cluster *c = fx_cluster (w.cfg, "cluster-status.json", NULL,
                                             "[{\"Name\": \"htc-9\", \"Template\": \"htc\", \"MachineType\":"
                                             " \"Standard_F2s_v2\", \"Status\": \"Failed\","
                                             " \"StatusMessage\": \"VM failed to boot\"}]");
        struct ccas_pass *p = load (&w, CCAS_PASS_POLICY, NOW);
        struct ccas_plan *plan = plan_jobs (c, jobs_text, &jobs);
        assert_int_equal (plan->ncreates, 2);
        assert_int_equal (ccas_plan_terminate (plan, fx_node (c, "htc-9"), "failed: VM failed to boot"), 0);
        assert_int_equal (ccas_pass_observe_failures (p, plan, never_booted, &arg), booting ? 1 : 0);
        assert_int_equal (plan->ncreates, booting ? 1 : 2);
        if (booting) {
            assert_string_equal (plan->creates[0].bucket->na->name, "hpc");
            assert_non_null (ccas_holds_reason (p->policy->holds, "htc", "Standard_F2s_v2", NOW));
        } else
            assert_null (ccas_holds_reason (p->policy->holds, "htc", "Standard_F2s_v2", NOW));
        assert_int_equal (ccas_pass_save (p, &err), 0);
        json_object *b = read_state (&w, "breakers.json");
        assert_int_equal (ccas_json_bool (ccas_json_get (b, "htc"), "open", false), booting);
        json_object_put (b);
        ccas_plan_destroy (plan);
        ccas_jobs_destroy (jobs);
        ccas_pass_destroy (p);
        ccas_cluster_destroy (c);
        world_free (&w, true);
    }
}

/* ---- carrying a plan out, against a real ccsim ------------------------------------------------------------
 */

struct sim {
    struct sim_process proc;
    struct ccas_ccapi *api;
    struct ccas_http *ctl; /* ccsim's own /ccsim endpoints */
    struct world w;
};

static const char *const sim_files[] = {"requests.json", "holds.json", "breakers.json",
                                        "nodes.json",    "lock",       NULL};

static int sim_stop (void **state)
{
    struct sim *s = *state;
    if (!s)
        return 0;
    ccas_ccapi_destroy (s->api);
    ccas_http_destroy (s->ctl);
    world_free (&s->w, false);
    sim_process_stop (&s->proc, sim_files);
    free (s);
    return 0;
}

static int sim_start (void **state)
{
    struct ccas_error err = {""};
    struct sim *s = calloc (1, sizeof (*s));
    *state = NULL;
    if (!s || sim_process_start (&s->proc, "pass", CCSIM_CLUSTERS_DIR "/small.json") < 0) {
        free (s);
        return 0; /* no ccsim: the cases skip */
    }
    *state = s;
    struct ccas_ccapi_opts opts = {.url = s->proc.url,
                                   .username = "u",
                                   .password = "p",
                                   .cluster = "test",
                                   .verify_certificates = true,
                                   .max_retries = 1};
    struct ccas_http_opts hopts = {.base_url = s->proc.url, .username = "u", .password = "p"};
    if (!(s->api = ccas_ccapi_create (&opts, &err)) || !(s->ctl = ccas_http_create (&hopts, &err))) {
        sim_stop (state);
        return -1;
    }
    world_make (&s->w, s->proc.dir, "\"capacity_failure_backoff\": 300");
    return 0;
}

static json_object *sim_call (struct sim *s, const char *method, const char *path, const char *body)
{
    struct ccas_http_response resp;
    struct ccas_http_failure fail;
    struct ccas_error err = {""};
    if (ccas_http_request (s->ctl, method, path, body, false, &resp, &fail) < 0)
        fail_msg ("%s %s: %s", method, path, fail.message);
    if (resp.status < 200 || resp.status > 299)
        fail_msg ("%s %s: %ld %s", method, path, resp.status, resp.body);
    json_object *o = ccas_json_parse (resp.body, resp.len, path, &err);
    ccas_http_response_release (&resp);
    if (!o)
        fail_msg ("%s", err.text);
    return o;
}

/* How many requests ccsim logged with `method` and a path containing `part`. */
static int logged (struct sim *s, const char *method, const char *part)
{
    json_object *log = sim_call (s, "GET", "/ccsim/requests", NULL);
    int n = 0;
    for (size_t i = 0; i < json_object_array_length (log); i++) {
        json_object *e = json_object_array_get_idx (log, i);
        n += strcmp (ccas_json_str (e, "method"), method) == 0 && strstr (ccas_json_str (e, "path"), part);
    }
    json_object_put (log);
    return n;
}

static struct ccas_cluster *sim_model (struct sim *s)
{
    struct ccas_error err = {""};
    struct ccas_status *st = NULL;
    struct ccas_cluster *c = NULL;
    if (ccas_ccapi_get_status (s->api, true, &st, &err) < 0 ||
        !(c = ccas_cluster_create (s->w.cfg, st, NULL, &err)))
        fail_msg ("%s", err.text);
    return c;
}

static struct sim *sim_or_skip (void **state)
{
    if (!*state)
        skip ();
    return *state;
}

static const char two_types[] =
    "[{\"id\": \"1\", \"node_count\": 1, \"constraints\": {\"node.vm_size\": \"Standard_F2s_v2\"}},"
    " {\"id\": \"2\", \"node_count\": 1, \"constraints\": {\"node.vm_size\": \"Standard_F4s_v2\"}}]";

/* A create the server could not fill holds its bucket from now, and the one
 * save keeps that hold with what the pass decided before and after it. */
static void test_short_create_holds_its_bucket (void **state)
{
    struct sim *s = sim_or_skip (state);
    struct ccas_error err = {""};
    struct ccas_jobs *jobs = NULL;
    size_t held = 99;
    json_object_put (sim_call (s, "POST", "/ccsim/faults",
                               "{\"kind\": \"capacity\", \"machine_type\": \"Standard_F2s_v2\"}"));
    struct ccas_cluster *c = sim_model (s);
    struct ccas_pass *p = load (&s->w, CCAS_PASS_POLICY, NOW);
    struct ccas_plan *plan = plan_jobs (c, two_types, &jobs);
    struct ccas_observation before = {
        .seen = CCAS_SEEN_BOOT_FAILED, .nodearray = "hpc", .node = "hpc-1", .message = "never registered"};
    ccas_policy_decide (p->policy, c, &before, 1, NULL);

    assert_int_equal (ccas_pass_carry_out (p, plan, s->api, &held, &err), 0);
    assert_true (p->sent);
    assert_int_equal (held, 1);
    assert_int_equal (logged (s, "POST", "/nodes/create"), 1);
    for (size_t i = 0; i < plan->ncreates; i++) {
        bool f2 = strcmp (plan->creates[i].bucket->machine_type, "Standard_F2s_v2") == 0;
        assert_int_equal (plan->creates[i].added, f2 ? 0 : 1);
    }
    assert_non_null (ccas_holds_reason (p->policy->holds, "htc", "Standard_F2s_v2", NOW));
    assert_null (ccas_holds_reason (p->policy->holds, "htc", "Standard_F4s_v2", NOW));
    struct ccas_observation after = {.seen = CCAS_SEEN_BOOTED, .nodearray = "gpu", .node = "gpu-1"};
    ccas_policy_decide (p->policy, c, &after, 1, NULL);
    assert_int_equal (ccas_pass_save (p, &err), 0);

    json_object *holds = read_state (&s->w, "holds.json");
    assert_string_equal (ccas_json_str (ccas_json_get (holds, "htc/Standard_F2s_v2"), "class"), "capacity");
    json_object *breakers = read_state (&s->w, "breakers.json");
    assert_int_equal (ccas_json_int (ccas_json_get (breakers, "hpc"), "failures", 0), 1);
    json_object *requests = read_state (&s->w, "requests.json");
    assert_int_equal (json_object_object_length (requests), 0); /* answered: nothing left open */
    json_object_put (holds);
    json_object_put (breakers);
    json_object_put (requests);
    ccas_plan_destroy (plan);
    ccas_jobs_destroy (jobs);
    ccas_pass_destroy (p);
    ccas_cluster_destroy (c);
}

/* A create request an earlier run recorded and never settled is looked up
 * before the plan goes, and dropped once known. */
static void test_earlier_requests_settled_first (void **state)
{
    struct sim *s = sim_or_skip (state);
    struct ccas_error err = {""};
    write_file (&s->w, "requests.json", "{\"0123456789abcdef0123456789abcdef\": {\"time\": 1, \"sets\": 1}}");
    struct ccas_cluster *c = sim_model (s);
    struct ccas_pass *p = load (&s->w, CCAS_PASS_POLICY, NOW);
    struct ccas_plan *plan = ccas_plan_create (c, NULL, &err);
    assert_int_equal (ccas_pass_carry_out (p, plan, s->api, NULL, &err), 0);
    assert_int_equal (logged (s, "GET", "request_id=0123456789abcdef0123456789abcdef"), 1);
    json_object *requests = read_state (&s->w, "requests.json");
    assert_int_equal (json_object_object_length (requests), 0);
    json_object_put (requests);
    ccas_plan_destroy (plan);
    ccas_pass_destroy (p);
    ccas_cluster_destroy (c);
}

/* Request records that cannot be read: nothing is asked, and the caller is
 * told so (p->sent false); a refused create: the caller is told it was asked. */
static void test_failures_say_whether_anything_was_asked (void **state)
{
    struct sim *s = sim_or_skip (state);
    struct ccas_error err = {""};
    struct ccas_jobs *jobs = NULL;
    struct ccas_cluster *c = sim_model (s);
    struct ccas_pass *p = load (&s->w, CCAS_PASS_POLICY, NOW);
    struct ccas_plan *plan = plan_jobs (c, two_types, &jobs);
    json_object_put (sim_call (s, "DELETE", "/ccsim/requests", NULL));

    write_file (&s->w, "requests.json", "not json");
    assert_int_equal (ccas_pass_carry_out (p, plan, s->api, NULL, &err), -1);
    assert_false (p->sent);
    assert_non_null (strstr (err.text, "requests.json"));
    assert_int_equal (logged (s, "POST", "/nodes/"), 0);
    assert_int_equal (logged (s, "GET", "/clusters/"), 0);

    write_file (&s->w, "requests.json", "{}");
    json_object_put (sim_call (s, "POST", "/ccsim/faults",
                               "{\"kind\": \"http\", \"status\": 400, \"match\": \"/nodes/create\"}"));
    assert_int_equal (ccas_pass_carry_out (p, plan, s->api, NULL, &err), -1);
    assert_true (p->sent);
    assert_non_null (strstr (err.text, "400"));
    assert_int_equal (logged (s, "POST", "/nodes/create"), 1);
    ccas_plan_destroy (plan);
    ccas_jobs_destroy (jobs);
    ccas_pass_destroy (p);
    ccas_cluster_destroy (c);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_load_needs_the_lock),
        cmocka_unit_test (test_load_refuses_unreadable_state),
        cmocka_unit_test (test_saved_once_with_every_decision),
        cmocka_unit_test (test_dry_run_writes_nothing),
        cmocka_unit_test (test_stuck_and_idle_from_node_times),
        cmocka_unit_test (test_no_times_no_scaledown),
        cmocka_unit_test (test_failures_open_the_breaker),
        cmocka_unit_test_setup_teardown (test_short_create_holds_its_bucket, sim_start, sim_stop),
        cmocka_unit_test_setup_teardown (test_earlier_requests_settled_first, sim_start, sim_stop),
        cmocka_unit_test_setup_teardown (test_failures_say_whether_anything_was_asked, sim_start, sim_stop),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
