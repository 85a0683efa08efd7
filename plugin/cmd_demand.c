/* SPDX-License-Identifier: MIT */
/* cmd_demand.c: `ccautoscale demand` — what pending jobs need; dry run unless --apply. */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "act.h"
#include "builtins.h"
#include "engine/match.h"
#include "engine/pass.h"
#include "engine/report.h"
#include "model_load.h"
#include "plan_print.h"
#include "util/clock.h"
#include "util/log.h"

static const struct cmd_option options[] = {
    {"-j, --jobs FILE", "pending (and running) jobs as JSON; '-' reads stdin (default '-')"},
    {"--status FILE", "replay a saved GET /clusters/{c}/status response instead of asking the server"},
    {"--nodes FILE", "with --status: a saved GET /clusters/{c}/nodes response"},
    {"--apply", "carry the plan out: create, start and terminate (takes the lock)"},
    {"--no-scaledown", "do not plan terminations of idle, failed or stuck nodes"},
    {"--all", "print every row (else a table of more than 20 rows is summarised)"},
    {NULL, NULL},
};

const struct cmd_help help_demand = {
    .synopsis = "demand [--jobs FILE|-] [--status FILE [--nodes FILE]] [--apply] [--all] [--json]",
    .summary = "match pending jobs to nodes and show what would be created, started and terminated",
    .description =
        "Reads jobs in the scheduler-neutral format, an array in priority order:\n"
        "  [{\"id\": \"42\", \"node_count\": 4, \"constraints\": {\"ncpus\": 16},\n"
        "    \"packing\": \"scatter\", \"exclusive\": false, \"colocated\": true}, ...]\n"
        "or with several chunks: {\"id\": \"43\", \"chunks\": [{\"count\": 2, \"constraints\": {...}}]}.\n"
        "A job with \"state\": \"running\" and \"nodes\": [names] holds those nodes; \"queue\": \"NAME\"\n"
        "draws on that queue's shared_resources pools beside the cluster's.\n"
        "\n"
        "Each job is placed whole or not at all: existing nodes first (ready, booting,\n"
        "deallocated), then new nodes in the preferred bucket with room; colocated jobs in\n"
        "one placement group.  Prints what would be created, started and terminated, and\n"
        "for every job that cannot run, why (the closest miss).  Nothing changes unless\n"
        "--apply is given.  --json prints per job the nodes it was given or its reason,\n"
        "one job a line, written as it goes.\n"
        "\n"
        "It scales: a job looks only at the nodes and placement groups that could still\n"
        "take it, so a million jobs over 100,000 nodes take seconds (tests/bench).",
    .options = options,
    .examples = "$ ccautoscale demand --jobs jobs.json\n"
                "$ ccautoscale demand --jobs jobs.json --status status.json --nodes nodes.json --json\n"
                "$ ccautoscale demand --jobs jobs.json --apply",
    .see_also = "ccautoscale-analyze(8), ccautoscale-create(8)",
};

struct demand_opts {
    const char *jobs;
    struct model_source src;
    bool apply;
    bool scaledown;
    bool all;
};

static int parse (struct cli *cli, int argc, char **argv, struct demand_opts *o)
{
    static const struct option longopts[] = {
        {"jobs", required_argument, NULL, 'j'},
        {"status", required_argument, NULL, 0x201},
        {"nodes", required_argument, NULL, 0x202},
        {"apply", no_argument, NULL, 0x203},
        {"no-scaledown", no_argument, NULL, 0x204},
        {"all", no_argument, NULL, 0x205},
        {NULL, 0, NULL, 0},
    };
    int c;
    while ((c = cli_getopt (cli, argc, argv, "j:", longopts)) != -1) {
        switch (c) {
        case 'j':
            o->jobs = optarg;
            break;
        case 0x201:
            o->src.status_file = optarg;
            break;
        case 0x202:
            o->src.nodes_file = optarg;
            break;
        case 0x203:
            o->apply = true;
            break;
        case 0x204:
            o->scaledown = false;
            break;
        case 0x205:
            o->all = true;
            break;
        }
    }
    if (optind < argc)
        return cli_usage_error (cli, "unexpected argument '%s'", argv[optind]);
    if (o->src.nodes_file && !o->src.status_file)
        return cli_usage_error (cli, "--nodes needs --status (replay both, or neither)");
    if (o->apply && o->src.status_file)
        return cli_usage_error (cli, "--apply acts on the live cluster; it cannot replay files");
    return EXIT_OK;
}

static double now_ms (void)
{
    return ccas_clock_monotonic () * 1e3;
}

/* The pass's failures to the policy before anything is created, then the
 * plan carried out; the holds, breakers and node times are saved once,
 * unless nothing could be sent. */
static int demand_apply (struct cli *cli, struct ccas_pass *pass, struct ccas_plan *plan)
{
    struct ccas_error err = {""};
    ccas_pass_observe_failures (pass, plan, NULL, NULL);
    int rc = act_carried (cli, pass, plan, ccas_pass_carry_out (pass, plan, cli->api, NULL, &err), &err);
    if (!pass->sent)
        return rc;
    if (ccas_pass_save (pass, &err) < 0)
        ccas_log (LOG_WARNING, "%s", err.text);
    ccas_report_model (plan->cluster, (double)time (NULL));
    return rc;
}

int cmd_demand (struct cli *cli, int argc, char **argv)
{
    struct demand_opts o = {.jobs = "-", .src = {.with_nodes = true, .apply_holds = true}, .scaledown = true};
    struct ccas_error err = {""};
    struct ccas_cluster *c = NULL;
    struct ccas_jobs *jobs = NULL;
    struct ccas_plan *plan = NULL;
    struct ccas_pass *pass = NULL;
    int rc;

    if ((rc = parse (cli, argc, argv, &o)) != EXIT_OK || (rc = cli_prepare (cli)) != EXIT_OK)
        return rc;
    if (o.apply && (rc = cli_lock (cli, "ccautoscale demand")) != EXIT_OK)
        return rc;
    double t0 = now_ms ();
    if ((rc = model_load (cli, &o.src, &c)) != EXIT_OK)
        goto done;
    double t1 = now_ms ();
    if ((rc = jobs_load (cli, c, o.jobs, &jobs)) != EXIT_OK)
        goto done;
    /* a dry run reads the node times and leaves them alone */
    unsigned flags = (o.scaledown ? CCAS_PASS_TIMES : 0) | (o.apply ? CCAS_PASS_POLICY : CCAS_PASS_DRY_RUN);
    if (!(pass = ccas_pass_load (cli->cfg, cli->lock, flags, (double)time (NULL), &err)) ||
        (o.scaledown && ccas_pass_mark_stuck (pass, c, &err) < 0)) {
        rc = cli_fail (cli, EXIT_INTERNAL, "%s", err.text);
        goto done;
    }
    double t2 = now_ms ();
    if (ccas_match (c, jobs, NULL, &err) < 0 || !(plan = ccas_plan_create (c, jobs, &err)) ||
        (o.scaledown && ccas_pass_scaledown (pass, plan, &err) < 0)) {
        rc = cli_fail (cli, EXIT_INTERNAL, "%s", err.text);
        goto done;
    }
    ccas_log (LOG_DEBUG, "demand: model %.0f ms (%zu nodes), jobs %.0f ms (%zu), match %.0f ms", t1 - t0,
              c->nexisting, t2 - t1, jobs->n, now_ms () - t2);
    if (o.apply)
        rc = demand_apply (cli, pass, plan);
    if (cli->json) {
        json_object *extra = json_object_new_object ();
        json_object_object_add (extra, "applied", json_object_new_boolean (o.apply));
        ccas_plan_write_json (plan, extra, stdout);
        json_object_put (extra);
    } else
        plan_print (stdout, plan, o.apply, o.all);
done:
    ccas_pass_destroy (pass);
    ccas_plan_destroy (plan);
    ccas_jobs_destroy (jobs);
    ccas_cluster_destroy (c);
    return rc;
}
