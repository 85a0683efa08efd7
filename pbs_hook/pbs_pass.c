/* SPDX-License-Identifier: MIT */
/* pbs_pass.c: the PBS pass — read CycleCloud and PBS, match, plan, act in PBS and CycleCloud. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/holds.h"
#include "engine/match.h"
#include "engine/report.h"
#include "model/resdict.h"
#include "pbs_cmds.h"
#include "pbs_limits.h"
#include "pbs_pass.h"
#include "pbs_removed.h"
#include "run.h"
#include "util/log.h"
#include "util/metrics.h"

#define MAX_NODE_RESOURCES 64

static int fail (struct ccas_pbs_pass *r, enum ccas_pbs_pass_failure why)
{
    r->failure = why;
    return -1;
}

/* `pattern` compiled into `re` (POSIX extended); -1 with `err` naming `key`. */
static int compile (regex_t *re, const char *pattern, const char *key, struct ccas_error *err)
{
    int rc = regcomp (re, pattern, REG_EXTENDED);
    if (rc != 0) {
        char why[256];
        regerror (rc, re, why, sizeof (why));
        return ccas_errorf (err, "%s: '%s' is not a regular expression: %s", key, pattern, why);
    }
    return 0;
}

/* pbs.valid_hostnames and pbs.ignore_hostnames, compiled. */
static int compile_hostnames (struct ccas_pbs_pass *r, struct ccas_error *err)
{
    json_object *list = r->cfg->pbs.valid_hostnames;
    size_t n = list ? json_object_array_length (list) : 0;
    if (n && !(r->valid = calloc (n, sizeof (*r->valid))))
        return ccas_errorf (err, "out of memory");
    for (size_t i = 0; i < n; i++) {
        char key[64];
        snprintf (key, sizeof (key), "pbs.valid_hostnames[%zu]", i);
        if (compile (&r->valid[i], json_object_get_string (json_object_array_get_idx (list, i)), key, err) <
            0)
            return -1;
        r->nvalid++;
    }
    if (r->cfg->pbs.ignore_hostnames) {
        if (compile (&r->ignore, r->cfg->pbs.ignore_hostnames, "pbs.ignore_hostnames", err) < 0)
            return -1;
        r->ignoring = true;
    }
    return 0;
}

int ccas_pbs_pass_attach (struct ccas_pbs_pass *r, const struct ccas_config *cfg, struct ccas_ccapi *api,
                          const struct ccas_lock *lock, bool dry_run, struct ccas_error *err)
{
    memset (r, 0, sizeof (*r));
    r->cfg = cfg;
    r->api = api;
    r->dry_run = dry_run;
    r->commands0 = ccas_run_count ();
    r->waited0 = ccas_run_seconds ();
    ccas_run_set_bin_dir (cfg->pbs.bin_dir);
    ccas_pbs_set_timeout (cfg->pbs.command_timeout);
    if (compile_hostnames (r, err) < 0) {
        ccas_error_prefix (err, "%s", cfg->path);
        return fail (r, CCAS_PBS_PASS_CONFIG);
    }
    unsigned flags = CCAS_PASS_POLICY | CCAS_PASS_TIMES | (dry_run ? CCAS_PASS_DRY_RUN : 0);
    if (!(r->pass = ccas_pass_load (cfg, lock, flags, (double)time (NULL), err)))
        return fail (r, CCAS_PBS_PASS_INTERNAL);
    return 0;
}

/* PBS could not be read: the pass stops.  Said at LOG_ERR, so that it is in
 * ccautoscale's log (and syslog) as well as on stderr, where the hook hands
 * it to PBS's server log. */
static int pbs_unreadable (struct ccas_pbs_pass *r, const struct ccas_error *err)
{
    ccas_log (LOG_ERR, "%s; nothing changed", err->text);
    return fail (r, CCAS_PBS_PASS_PBS);
}

/* The model from one status request with its nodes, the holds applied
 * (those that ended are dropped when the pass saves). */
static int load_model (struct ccas_pbs_pass *r, struct ccas_error *err)
{
    struct ccas_status *st = NULL;
    struct ccas_policy *pol = r->pass->policy;
    if (ccas_ccapi_get_status (r->api, true, &st, err) < 0)
        return fail (r, CCAS_PBS_PASS_CYCLECLOUD);
    if (!(r->model = ccas_cluster_create (r->cfg, st, NULL, err))) {
        ccas_error_prefix (err, "%s", r->cfg->path);
        return fail (r, CCAS_PBS_PASS_CONFIG);
    }
    if (ccas_holds_apply (pol->holds, r->model, r->pass->now) < 0) {
        ccas_errorf (err, "out of memory");
        return fail (r, CCAS_PBS_PASS_INTERNAL);
    }
    ccas_holds_expire (pol->holds, r->pass->now, NULL, NULL);
    return 0;
}

int ccas_pbs_pass_load (struct ccas_pbs_pass *r, struct ccas_error *err)
{
    if (load_model (r, err) < 0)
        return -1;
    if (!(r->removed = ccas_pbs_removed_load (r->cfg->state_dir, err)))
        return fail (r, CCAS_PBS_PASS_INTERNAL);
    json_object *doc = ccas_pbs_pbsnodes (err);
    if (!doc || !(r->nodes = ccas_pbs_nodes_from_json (doc, err)))
        return pbs_unreadable (r, err);
    if (r->ignoring)
        ccas_pbs_nodes_ignore (r->nodes, &r->ignore);
    ccas_pbs_nodes_merge (r->nodes, r->model);
    if (ccas_pbs_nodes_keep_out (r->nodes, r->model, ccas_state_root (r->removed)) < 0 ||
        ccas_pbs_nodes_judge (r->nodes, r->model, ccas_pass_node_times (r->pass), r->pass->now) < 0 ||
        !(r->queue = ccas_pbs_queue_create ()) ||
        ccas_pbs_queue_ignore_queues (r->queue, r->cfg->pbs.ignore_queues) < 0) {
        ccas_errorf (err, "out of memory");
        return fail (r, CCAS_PBS_PASS_INTERNAL);
    }
    if (ccas_pbs_qstat_limits (r->queue, err) == 0 && ccas_pbs_qstat (r->queue, err) == 0)
        r->jobs = ccas_pbs_queue_jobs (r->model, r->queue, &r->jstats, err);
    if (!r->jobs)
        return pbs_unreadable (r, err);
    return 0;
}

/* ---- what the pass tells PBS -------------------------------------------------------------------- */

/* pbs.node_resources, or its default. */
static size_t node_resource_names (const struct ccas_config *cfg, const char **names, size_t max)
{
    static const char *const dflt[] = {"ncpus", "mem", "ngpus", "disk", "slot_type"};
    json_object *list = cfg->pbs.node_resources;
    size_t n = 0;
    if (list && json_object_is_type (list, json_type_array)) {
        for (size_t i = 0; i < json_object_array_length (list) && n + 1 < max; i++)
            names[n++] = json_object_get_string (json_object_array_get_idx (list, i));
    } else
        for (size_t i = 0; i < sizeof (dflt) / sizeof (dflt[0]); i++)
            names[n++] = dflt[i];
    names[n] = NULL;
    return n;
}

/* A Failed VM had not booted when PBS never heard from its mom (its vnode
 * may have been made while it booted). */
static bool not_joined (const struct ccas_node *n, void *arg)
{
    const struct ccas_pbs_node *pn = ccas_pbs_nodes_find (arg, n);
    return !pn || !pn->ccnodeid || !pn->reported;
}

/* VMs put online booted: their nodearray's count starts again. */
static void observe_joins (struct ccas_pbs_pass *r)
{
    for (size_t i = 0; i < r->acts.n; i++)
        if ((r->acts.v[i].kind == CCAS_PBS_ONLINE ||
             (r->acts.v[i].kind == CCAS_PBS_JOIN && r->acts.v[i].online)) &&
            r->acts.v[i].outcome == CCAS_DONE) {
            struct ccas_observation o = {.seen = CCAS_SEEN_BOOTED,
                                         .nodearray = r->acts.v[i].node->nodearray,
                                         .node = r->acts.v[i].host};
            ccas_policy_decide (r->pass->policy, r->model, &o, 1, NULL);
        }
}

/* Why a matched job's nodes were not all had: the first of its new nodes a
 * create did not add ("could not get a node: execute/Standard_F2s_v2: ..."),
 * into `buf`; NULL when every one was added. */
static const char *short_reason (const struct ccas_plan *plan, const struct ccas_job *j, char *buf,
                                 size_t size)
{
    for (size_t i = 0; i < plan->ncreates; i++) {
        const struct ccas_plan_set *cr = &plan->creates[i];
        if (cr->outcome == CCAS_PLANNED || cr->added >= (int)cr->count)
            continue;
        for (uint32_t k = cr->added > 0 ? (uint32_t)cr->added : 0; k < cr->count; k++)
            for (uint32_t s = 0; s < j->nslots; s++)
                if (j->slots[s] == cr->nodes[k]) {
                    snprintf (buf, size, "could not get a node: %s/%s: %s", cr->bucket->na->name,
                              cr->bucket->machine_type, cr->message ? cr->message : "the create failed");
                    return buf;
                }
    }
    return NULL;
}

/* The id qalter takes for job `id`: PBS refuses to alter a subjob ("Invalid
 * request 4[2].srv"), so a subjob's is its array's ("4[].srv", in `buf`). */
static const char *alterable_id (const char *id, char *buf, size_t size)
{
    const char *open = strchr (id, '['), *close = open ? strchr (open, ']') : NULL;
    if (!open || !close || close == open + 1)
        return id;
    snprintf (buf, size, "%.*s[]%s", (int)(open - id), id, close + 1);
    return buf;
}

/* The jobs no node can be had for say why, where PBS shows it: their
 * comment ("ccautoscale: " and the reason: the closest miss of a job that
 * matched nothing, or the create that failed for one whose new nodes were
 * not all made), one qalter per distinct reason.
 * A job PBS itself holds back (a limit) keeps the scheduler's comment; a
 * comment already so is not written again.  PBS's scheduler writes its own
 * comment on its next cycle that cannot start the job. */
static void comment_unmatched (struct ccas_pbs_pass *r)
{
    const struct ccas_jobs *jobs = r->jobs;
    struct ccas_resdict *reasons = ccas_resdict_create ();
    struct ccas_resdict *targets = ccas_resdict_create (); /* job or array ids, once each */
    const char **ids = calloc (jobs->n + 1, sizeof (*ids));
    int *of = calloc (jobs->n + 1, sizeof (*of));
    int *target = calloc (jobs->n + 1, sizeof (*target));
    char text[512], idbuf[300];
    if (!reasons || !targets || !ids || !of || !target)
        goto done;
    for (size_t i = 0; i < jobs->n; i++) {
        const struct ccas_job *j = &jobs->v[i];
        char shortfall[400];
        const char *why = j->matched ? short_reason (r->plan, j, shortfall, sizeof (shortfall)) : j->reason;
        of[i] = -1;
        if (j->running || !why || strncmp (why, CCAS_PBS_LIMIT_PREFIX, strlen (CCAS_PBS_LIMIT_PREFIX)) == 0)
            continue;
        snprintf (text, sizeof (text), "ccautoscale: %s", why);
        const char *now = ccas_pbs_queue_comment (r->queue, i);
        if (now && strcmp (now, text) == 0)
            continue;
        /* an array's subjobs: its first unmatched one speaks for it */
        int before = (int)ccas_resdict_count (targets);
        target[i] = ccas_resdict_intern (targets, alterable_id (j->id, idbuf, sizeof (idbuf)));
        if (target[i] < 0 || target[i] < before)
            continue;
        of[i] = ccas_resdict_intern (reasons, text);
    }
    for (int k = 0; k < (int)ccas_resdict_count (reasons); k++) {
        size_t n = 0;
        for (size_t i = 0; i < jobs->n; i++)
            if (of[i] == k)
                ids[n++] = ccas_resdict_name (targets, target[i]);
        struct ccas_error err = {""};
        const char *comment = ccas_resdict_name (reasons, k);
        if (ccas_pbs_comment_jobs (comment, ids, n, &err) < 0)
            ccas_log (LOG_WARNING, "pbs: %zu jobs not commented '%s': %s", n, comment, err.text);
        else
            ccas_log (LOG_INFO, "pbs: %zu job%s commented '%s'", n, n == 1 ? "" : "s", comment);
    }
done:
    ccas_resdict_destroy (reasons);
    ccas_resdict_destroy (targets);
    free (ids);
    free (of);
    free (target);
}

/* ---- the pass ---------------------------------------------------------------------------------------- */

/* Failures to the policy before anything is created; deletions and drains in
 * PBS; the plan to CycleCloud; joins in PBS, counted as boots; the policy and
 * node times saved once (unless nothing could be asked: then the next pass
 * sees the same VMs afresh); the jobs commented. */
static int act (struct ccas_pbs_pass *r, struct ccas_error *err)
{
    struct ccas_error serr = {""};
    const char *names[MAX_NODE_RESOURCES];
    int rc = 0;
    node_resource_names (r->cfg, names, MAX_NODE_RESOURCES);
    ccas_pass_observe_failures (r->pass, r->plan, not_joined, r->nodes);
    ccas_pbs_actions_before (&r->acts, r->plan);
    if (ccas_pass_carry_out (r->pass, r->plan, r->api, &r->held, err) < 0)
        rc = fail (r, r->pass->sent ? CCAS_PBS_PASS_CYCLECLOUD : CCAS_PBS_PASS_INTERNAL);
    if (r->pass->sent)
        ccas_report_model (r->model, (double)time (NULL));
    ccas_pbs_actions_after (&r->acts, r->model, names);
    observe_joins (r);
    if (r->pass->sent && ccas_pass_save (r->pass, &serr) < 0)
        ccas_log (LOG_WARNING, "%s", serr.text);
    comment_unmatched (r);
    return rc;
}

int ccas_pbs_pass_run (struct ccas_pbs_pass *r, struct ccas_error *err)
{
    int rc = 0;
    if (ccas_pass_mark_stuck (r->pass, r->model, err) < 0 || ccas_match (r->model, r->jobs, NULL, err) < 0 ||
        !(r->plan = ccas_plan_create (r->model, r->jobs, err)) ||
        ccas_pass_scaledown (r->pass, r->plan, err) < 0 ||
        ccas_pbs_actions_plan (r->plan, r->nodes, &(struct ccas_pbs_join_rules){r->valid, r->nvalid},
                               &r->acts, err) < 0)
        return fail (r, CCAS_PBS_PASS_INTERNAL);
    r->decided = true;
    if (!r->dry_run)
        rc = act (r, err);
    ccas_log (LOG_INFO,
              "pbs: %zu queued jobs (%zu skipped, %zu held back by PBS limits), %zu PBS nodes, %u new nodes, "
              "%zu PBS actions, %lu PBS commands (%.2f s)",
              r->jstats.queued, r->jstats.skipped, r->jstats.limited, r->nodes->n,
              ccas_plan_new_nodes (r->plan), r->acts.n, ccas_run_count () - r->commands0,
              ccas_run_seconds () - r->waited0);
    return rc;
}

void ccas_pbs_pass_close (struct ccas_pbs_pass *r)
{
    ccas_metrics_set ("ccautoscale_pbs_command_seconds", NULL, ccas_run_seconds ());
    ccas_pbs_actions_free (&r->acts);
    ccas_plan_destroy (r->plan);
    ccas_pbs_nodes_destroy (r->nodes);
    ccas_jobs_destroy (r->jobs);
    ccas_pbs_queue_destroy (r->queue);
    ccas_cluster_destroy (r->model);
    ccas_pass_destroy (r->pass);
    ccas_state_destroy (r->removed);
    for (size_t i = 0; i < r->nvalid; i++)
        regfree (&r->valid[i]);
    free (r->valid);
    if (r->ignoring)
        regfree (&r->ignore);
    memset (r, 0, sizeof (*r));
}
