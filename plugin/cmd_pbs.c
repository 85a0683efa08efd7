/* SPDX-License-Identifier: MIT */
/* cmd_pbs.c: `ccautoscale pbs autoscale | demand | analyze | install-hook`. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analyze.h"
#include "builtins.h"
#include "ccapi/failure.h"
#include "engine/breaker.h"
#include "engine/holds.h"
#include "engine/match.h"
#include "model/resdict.h"
#include "model_load.h"
#include "pass.h"
#include "pbs_actions.h"
#include "pbs_cmds.h"
#include "pbs_jobs.h"
#include "pbs_limits.h"
#include "pbs_nodes.h"
#include "plan_print.h"
#include "run.h"
#include "util/json.h"
#include "util/log.h"
#include "util/metrics.h"
#include "util/state.h"

#define MAX_NODE_RESOURCES 64

/* ---- what every pbs command shares ---------------------------------------------------------------- */

static void pbs_setup (const struct ccas_config *cfg)
{
    ccas_run_set_bin_dir (cfg->pbs.bin_dir);
    ccas_pbs_set_timeout (cfg->pbs.command_timeout);
}

struct pbs_view {
    struct ccas_policy *policy; /* holds and breakers: read once, saved once */
    double now;
    struct ccas_cluster *c;
    struct ccas_jobs *jobs;
    struct ccas_pbs_queue *queue; /* what qstat said of the jobs (their comments) */
    struct ccas_pbs_nodes *nodes;
    struct ccas_state *times; /* node times: scale-down's, and how long nodes wait for PBS */
    struct ccas_pbs_jobs_stats jstats;
};

static void view_free (struct pbs_view *v)
{
    ccas_pbs_nodes_destroy (v->nodes);
    ccas_jobs_destroy (v->jobs);
    ccas_pbs_queue_destroy (v->queue);
    ccas_cluster_destroy (v->c);
    ccas_policy_destroy (v->policy);
    ccas_state_destroy (v->times);
}

/* PBS could not be read: the pass stops.  Said at LOG_ERR, so that it is in
 * ccautoscale's log (and syslog) as well as on stderr, where the hook hands
 * it to PBS's server log. */
static int pbs_fail (const char *what)
{
    ccas_log (LOG_ERR, "%s; nothing changed", what);
    return EXIT_SCHEDULER;
}

/* The model, PBS's queued jobs and its nodes, folded together.  When PBS
 * cannot be read the pass stops here, before anything changes. */
static int view_load (struct cli *cli, struct pbs_view *v)
{
    struct model_source src = {.with_nodes = true};
    struct ccas_error err = {""};
    int rc;
    memset (v, 0, sizeof (*v));
    pbs_setup (cli->cfg);
    if ((rc = model_load (cli, &src, &v->c)) != EXIT_OK)
        return rc;
    v->now = (double)time (NULL);
    if (!(v->policy = ccas_policy_load (cli->cfg, v->now, false, &err)) ||
        ccas_holds_apply (v->policy->holds, v->c, v->now) < 0)
        return cli_fail (cli, EXIT_INTERNAL, "%s", err.text[0] ? err.text : "out of memory");
    ccas_holds_expire (v->policy->holds, v->now, NULL, NULL);
    if (!(v->times = ccas_state_load (cli->cfg->state_dir, "nodes", &err)))
        return cli_fail (cli, EXIT_INTERNAL, "%s", err.text);
    json_object *doc = ccas_pbs_pbsnodes (&err);
    if (!doc || !(v->nodes = ccas_pbs_nodes_from_json (doc, &err)))
        return pbs_fail (err.text);
    ccas_pbs_nodes_merge (v->nodes, v->c);
    if (ccas_pbs_nodes_judge (v->nodes, v->c, pass_node_times (v->times), v->now) < 0)
        return cli_fail (cli, EXIT_INTERNAL, "out of memory");
    if (!(v->queue = ccas_pbs_queue_create ()))
        return cli_fail (cli, EXIT_INTERNAL, "out of memory");
    if (ccas_pbs_qstat_limits (v->queue, &err) == 0 && ccas_pbs_qstat (v->queue, &err) == 0)
        v->jobs = ccas_pbs_queue_jobs (v->c, v->queue, &v->jstats, &err);
    if (!v->jobs)
        return pbs_fail (err.text);
    return EXIT_OK;
}

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

static void print_actions (FILE *f, const struct ccas_pbs_actions *a, bool applied)
{
    static const char *const verbs[] = {"join", "drain", "delete from PBS", "delete stale PBS node"};
    for (size_t i = 0; i < a->n; i++) {
        const struct ccas_pbs_action *x = &a->v[i];
        fprintf (f, "%s %s %s (%s)%s%s\n",
                 applied ? (x->outcome == CCAS_DONE ? "done:" : "FAILED:") : "would", verbs[x->kind], x->host,
                 x->why, x->error[0] ? ": " : "", x->error);
    }
}

/* ---- pbs autoscale / pbs demand -------------------------------------------------------------------- */

/* A Failed VM had not booted when PBS never saw it joined. */
static bool not_joined (const struct ccas_node *n, void *arg)
{
    const struct ccas_pbs_node *pn = ccas_pbs_nodes_find (arg, n);
    return !pn || !pn->ccnodeid;
}

/* Joined VMs booted: their nodearray's count starts again. */
static void observe_joins (struct pbs_view *v, const struct ccas_pbs_actions *acts)
{
    for (size_t i = 0; i < acts->n; i++)
        if (acts->v[i].kind == CCAS_PBS_JOIN && acts->v[i].outcome == CCAS_DONE) {
            struct ccas_observation o = {
                .seen = CCAS_SEEN_BOOTED, .nodearray = acts->v[i].node->nodearray, .node = acts->v[i].host};
            ccas_policy_decide (v->policy, v->c, &o, 1, NULL);
        }
}

/* The jobs no node can be had for say why, where PBS shows it: their
 * comment ("ccautoscale: " and the reason: the closest miss of a job that
 * matched nothing, or the create that failed for one whose new nodes were
 * not all made), one qalter per distinct reason.
 * A job PBS itself holds back (a limit) keeps the scheduler's comment; a
 * comment already so is not written again.  PBS's scheduler writes its own
 * comment on its next cycle that cannot start the job. */
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

static void comment_unmatched (struct pbs_view *v, const struct ccas_plan *plan)
{
    struct ccas_resdict *reasons = ccas_resdict_create ();
    struct ccas_resdict *targets = ccas_resdict_create (); /* job or array ids, once each */
    const char **ids = calloc (v->jobs->n + 1, sizeof (*ids));
    int *of = calloc (v->jobs->n + 1, sizeof (*of));
    int *target = calloc (v->jobs->n + 1, sizeof (*target));
    char text[512], idbuf[300];
    if (!reasons || !targets || !ids || !of || !target)
        goto done;
    for (size_t i = 0; i < v->jobs->n; i++) {
        const struct ccas_job *j = &v->jobs->v[i];
        char shortfall[400];
        const char *why = j->matched ? short_reason (plan, j, shortfall, sizeof (shortfall)) : j->reason;
        of[i] = -1;
        if (j->running || !why || strncmp (why, CCAS_PBS_LIMIT_PREFIX, strlen (CCAS_PBS_LIMIT_PREFIX)) == 0)
            continue;
        snprintf (text, sizeof (text), "ccautoscale: %s", why);
        const char *now = ccas_pbs_queue_comment (v->queue, i);
        if (now && strcmp (now, text) == 0)
            continue;
        /* an array's subjobs: its first unmatched one speaks for it */
        int before = (int)ccas_resdict_count (targets);
        target[i] = ccas_resdict_intern (targets, alterable_id (j->id, idbuf, sizeof (idbuf)));
        if (target[i] < 0 || target[i] < before)
            continue;
        of[i] = ccas_resdict_intern (reasons, text);
    }
    for (int r = 0; r < (int)ccas_resdict_count (reasons); r++) {
        size_t n = 0;
        for (size_t i = 0; i < v->jobs->n; i++)
            if (of[i] == r)
                ids[n++] = ccas_resdict_name (targets, target[i]);
        struct ccas_error err = {""};
        const char *comment = ccas_resdict_name (reasons, r);
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

/* One pass; its report goes to `out`.  *held (may be NULL) says whether a
 * bucket was just held back, so that another pass may try the others at once;
 * `comment` says whether jobs no node can be had for are commented in PBS. */
static int pbs_pass (struct cli *cli, bool apply, FILE *out, bool *held, bool comment)
{
    struct pbs_view v;
    struct ccas_error err = {""};
    struct ccas_plan *plan = NULL;
    struct ccas_pbs_actions acts = {NULL, 0};
    const char *names[MAX_NODE_RESOURCES];
    unsigned long commands = ccas_run_count ();
    double waited = ccas_run_seconds ();
    int rc = view_load (cli, &v);
    if (rc != EXIT_OK)
        goto done;
    if ((rc = pass_times_load (cli, v.c, &v.times)) != EXIT_OK)
        goto done;
    if (ccas_match (v.c, v.jobs, NULL, &err) < 0 || !(plan = ccas_plan_create (v.c, v.jobs, &err)) ||
        (rc = pass_scaledown (cli, plan, &v.times)) != EXIT_OK ||
        ccas_pbs_actions_plan (plan, v.nodes, &acts, &err) < 0) {
        rc = rc != EXIT_OK ? rc : cli_fail (cli, EXIT_INTERNAL, "%s", err.text);
        goto done;
    }
    if (apply) {
        node_resource_names (cli->cfg, names, MAX_NODE_RESOURCES);
        pass_observe_failures (v.policy, plan, not_joined, v.nodes);
        ccas_pbs_actions_before (&acts, plan);
        rc = pass_apply (cli, plan, v.times, "ccautoscale pbs autoscale", v.policy, held);
        ccas_pbs_actions_after (&acts, v.c, names);
        observe_joins (&v, &acts);
        if (ccas_policy_save (v.policy, &err) < 0)
            ccas_log (LOG_WARNING, "%s", err.text);
        if (comment)
            comment_unmatched (&v, plan);
        if (rc == EXIT_OK && ccas_pbs_actions_failures (&acts))
            rc = EXIT_SCHEDULER;
    }
    ccas_log (LOG_INFO,
              "pbs: %zu queued jobs (%zu skipped, %zu held back by PBS limits), %zu PBS nodes, %u new nodes, "
              "%zu PBS actions, %lu PBS commands (%.2f s)",
              v.jstats.queued, v.jstats.skipped, v.jstats.limited, v.nodes->n, ccas_plan_new_nodes (plan),
              acts.n, ccas_run_count () - commands, ccas_run_seconds () - waited);
    if (cli->json) {
        json_object *extra = json_object_new_object ();
        json_object *js = json_object_new_object ();
        json_object_object_add (js, "queued", json_object_new_int64 ((int64_t)v.jstats.queued));
        json_object_object_add (js, "skipped", json_object_new_int64 ((int64_t)v.jstats.skipped));
        json_object_object_add (js, "limited", json_object_new_int64 ((int64_t)v.jstats.limited));
        json_object_object_add (extra, "applied", json_object_new_boolean (apply));
        json_object_object_add (extra, "pbs_jobs", js);
        json_object_object_add (extra, "pbs", ccas_pbs_actions_json (&acts, apply));
        json_object_object_add (extra, "pbs_command_seconds", json_object_new_double (ccas_run_seconds ()));
        json_object_object_add (extra, "pbs_commands", json_object_new_int64 ((int64_t)ccas_run_count ()));
        ccas_plan_write_json (plan, extra, out);
        json_object_put (extra);
    } else if (!cli->quiet) {
        plan_print (out, plan, apply, false);
        print_actions (out, &acts, apply);
    }
done:
    ccas_metrics_set ("ccautoscale_pbs_command_seconds", NULL, ccas_run_seconds ());
    ccas_pbs_actions_free (&acts);
    ccas_plan_destroy (plan);
    view_free (&v);
    return rc;
}

static const struct cmd_option no_options[] = {
    {NULL, NULL},
};

const struct cmd_help help_pbs_autoscale = {
    .synopsis = "pbs autoscale [--json]",
    .summary = "one autoscale pass for PBS: create, join, drain, delete",
    .description = "What the periodic hook runs.  Reads nodes (pbsnodes -av -F json), the server's and\n"
                   "queues' run limits (qstat -Q/-B -f -F json) and queued jobs (qstat -f -t -F json),\n"
                   "matches every queued job and array subjob whole, in PBS's order (a job PBS would not\n"
                   "start for a limit makes no nodes), and then:\n"
                   "  - creates the nodes the jobs need (placement groups for group=group_id or\n"
                   "    ungrouped=false, none for ungrouped=true; place=pack is one node holding all\n"
                   "    chunks), starts deallocated ones;\n"
                   "  - joins Ready VMs, in two qmgr calls for all of them: create node offline with\n"
                   "    comment 'ccautoscale: joining'; then one set node (all or none) of\n"
                   "    resources_available.* (pbs.node_resources, vm_size, nodearray, group_id (_none_\n"
                   "    outside a placement group), ungrouped, instance_id, ccnodeid: the joined marker),\n"
                   "    online, comment 'ccautoscale: joined'; a placement group goes online whole;\n"
                   "  - counts a Ready VM not yet serving PBS (no node, joining, its mom not reported)\n"
                   "    as booting, and replaces it after boot_timeout;\n"
                   "  - drains nodes idle beyond idle_timeout (offline, comment 'ccautoscale: draining');\n"
                   "    on a later pass deletes drained idle nodes from PBS, then terminates their VMs;\n"
                   "    an idle node still joining is deleted at once (it never was online);\n"
                   "  - deletes failed and stuck VMs from PBS and CycleCloud, and PBS nodes of ours\n"
                   "    (ccnodeid, or still joining) whose VM has gone;\n"
                   "  - comments the jobs no node can be had for: 'ccautoscale: <why>' (qalter).\n"
                   "Nodes offline with any other comment are the administrator's: never drained, deleted,\n"
                   "joined or put back online.  If PBS cannot be read the pass changes nothing.  A failed\n"
                   "qmgr directive fails its node alone, left offline for the next pass.\n"
                   "Exit status 4 when some nodes could not be had, 5 when a PBS command failed.",
    .options = no_options,
    .examples =
        "$ ccautoscale pbs autoscale\n$ ccautoscale pbs demand      # the same pass, changing nothing",
    .see_also = "ccautoscale-pbs-demand(8), ccautoscale-pbs-install-hook(8)",
};

const struct cmd_help help_pbs_demand = {
    .synopsis = "pbs demand [--json]",
    .summary = "dry run of a PBS pass: what would be created, joined, drained and deleted",
    .description = "The pass of 'pbs autoscale' without changing anything in PBS or CycleCloud.\n"
                   "For every queued job that cannot run, the reason of its closest miss.",
    .options = no_options,
    .examples =
        "$ ccautoscale pbs demand\n$ ccautoscale pbs demand --json | jq '.jobs[] | select(.matched | not)'",
    .see_also = "ccautoscale-pbs-autoscale(8), ccautoscale-pbs-analyze(8)",
};

static int no_args (struct cli *cli, int argc, char **argv)
{
    int rc = cli_no_arguments (cli, argc, argv);
    return rc != EXIT_OK ? rc : cli_prepare (cli);
}

int cmd_pbs_autoscale (struct cli *cli, int argc, char **argv)
{
    char *first = NULL;
    size_t len = 0;
    bool held = false;
    int rc = no_args (cli, argc, argv);
    if (rc != EXIT_OK)
        return rc;
    /* the first pass's report is kept back: when a capacity or quota failure
     * held a bucket, a second pass tries the buckets left at once, and its
     * report (one JSON document) is the one printed */
    FILE *m = open_memstream (&first, &len);
    if (!m)
        return cli_fail (cli, EXIT_INTERNAL, "out of memory");
    rc = pbs_pass (cli, true, m, &held, true);
    fclose (m);
    if (held && rc == EXIT_PARTIAL) {
        ccas_log (LOG_NOTICE, "pbs: a bucket was just held back; a second pass tries the others at once");
        rc = pbs_pass (cli, true, stdout, NULL, true);
    } else
        fwrite (first, 1, len, stdout);
    free (first);
    return rc;
}

int cmd_pbs_demand (struct cli *cli, int argc, char **argv)
{
    int rc = no_args (cli, argc, argv);
    return rc != EXIT_OK ? rc : pbs_pass (cli, false, stdout, NULL, false);
}

/* ---- pbs analyze ---------------------------------------------------------------------------------- */

static const struct cmd_option analyze_options[] = {
    {"--job ID",
     "the PBS job to explain (required): 12.server, a subjob 13[4].server, or an array 13[].server "
     "(its first queued subjob)"},
    {NULL, NULL},
};

const struct cmd_help help_pbs_analyze = {
    .synopsis = "pbs analyze --job ID [--json]",
    .summary = "explain, bucket by bucket, why a queued PBS job does or does not get nodes",
    .description = "Reads PBS as 'pbs demand' does, lets the jobs ahead of this one take their\n"
                   "share, then shows each chunk of the job against every bucket.  Nothing changes.",
    .options = analyze_options,
    .examples = "$ ccautoscale pbs analyze --job 12.server",
    .see_also = "ccautoscale-analyze(8), ccautoscale-pbs-demand(8)",
};

/* For an array's id ("4[].server", as qstat and qsub print it), its first
 * queued subjob in PBS's order ("4[2].server"); NULL when `id` is not an
 * array's or is itself among the jobs. */
static const char *array_subjob (const struct ccas_jobs *jobs, const char *id)
{
    const char *br = strstr (id, "[]");
    if (!br)
        return NULL;
    size_t head = (size_t)(br - id) + 1; /* "4[" */
    const char *tail = br + 2;           /* ".server" */
    for (size_t i = 0; i < jobs->n; i++)
        if (strcmp (jobs->v[i].id, id) == 0)
            return NULL;
    for (size_t i = 0; i < jobs->n; i++) {
        const char *j = jobs->v[i].id;
        const char *close = strchr (j, ']');
        if (!jobs->v[i].running && strncmp (j, id, head) == 0 && close && close > j + head &&
            strcmp (close + 1, tail) == 0)
            return j;
    }
    return NULL;
}

int cmd_pbs_analyze (struct cli *cli, int argc, char **argv)
{
    static const struct option longopts[] = {{"job", required_argument, NULL, 0x301}, {NULL, 0, NULL, 0}};
    const char *job = NULL;
    struct pbs_view v;
    int c, rc;
    while ((c = cli_getopt (cli, argc, argv, "", longopts)) != -1)
        if (c == 0x301)
            job = optarg;
    if (optind < argc)
        return cli_usage_error (cli, "unexpected argument '%s'", argv[optind]);
    if (!job)
        return cli_usage_error (cli, "--job ID is required");
    if ((rc = cli_prepare (cli)) != EXIT_OK)
        return rc;
    if ((rc = view_load (cli, &v)) == EXIT_OK) {
        const char *sub = array_subjob (v.jobs, job);
        if (sub && !cli->json && !cli->quiet)
            printf ("job %s is an array: its first queued subjob, %s, stands for it\n\n", job, sub);
        rc = analyze_job (cli, v.c, v.jobs, sub ? sub : job);
    }
    view_free (&v);
    return rc;
}
