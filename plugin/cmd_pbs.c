/* SPDX-License-Identifier: MIT */
/* cmd_pbs.c: `ccautoscale pbs autoscale | demand | analyze | install-hook`. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "builtins.h"
#include "pbs_pass.h"
#include "plan_print.h"
#include "run.h"
#include "util/json.h"
#include "util/log.h"

/* ---- what every pbs command shares ---------------------------------------------------------------- */

/* The exit status of a PBS pass that failed, its error printed (PBS's own
 * failure the pass has logged). */
static int pass_failed (struct cli *cli, const struct ccas_pbs_pass *r, const struct ccas_error *err)
{
    static const enum cli_exit codes[] = {
        [CCAS_PBS_PASS_INTERNAL] = EXIT_INTERNAL,
        [CCAS_PBS_PASS_CONFIG] = EXIT_CONFIG,
        [CCAS_PBS_PASS_CYCLECLOUD] = EXIT_CYCLECLOUD,
        [CCAS_PBS_PASS_PBS] = EXIT_SCHEDULER,
    };
    if (r->failure == CCAS_PBS_PASS_PBS)
        return EXIT_SCHEDULER;
    return cli_fail (cli, (int)codes[r->failure], "%s", err->text);
}

/* Set up a PBS pass and read its world; an exit code (printed). */
static int pass_open (struct cli *cli, struct ccas_pbs_pass *r, bool dry_run)
{
    struct ccas_error err = {""};
    if (ccas_pbs_pass_attach (r, cli->cfg, cli->api, cli->lock, dry_run, &err) < 0 ||
        ccas_pbs_pass_load (r, &err) < 0)
        return pass_failed (cli, r, &err);
    return EXIT_OK;
}

static void print_actions (FILE *f, const struct ccas_pbs_actions *a, bool applied)
{
    static const char *const verbs[] = {"join", "drain", "delete from PBS", "delete stale PBS node",
                                        "put online"};
    for (size_t i = 0; i < a->n; i++) {
        const struct ccas_pbs_action *x = &a->v[i];
        const char *verb = x->kind == CCAS_PBS_JOIN && x->pbs ? "register" : verbs[x->kind];
        fprintf (f, "%s %s %s (%s)%s%s\n",
                 !applied                    ? "would"
                 : x->outcome == CCAS_DONE   ? "done:"
                 : x->outcome == CCAS_FAILED ? "FAILED:"
                                             : "not yet:",
                 verb, x->host, x->why, x->error[0] ? ": " : "", x->error);
    }
}

/* ---- pbs autoscale / pbs demand -------------------------------------------------------------------- */

static void print_pass (struct cli *cli, const struct ccas_pbs_pass *r, FILE *out)
{
    bool applied = !r->dry_run;
    if (cli->json) {
        json_object *extra = json_object_new_object ();
        json_object *js = json_object_new_object ();
        json_object_object_add (js, "queued", json_object_new_int64 ((int64_t)r->jstats.queued));
        json_object_object_add (js, "skipped", json_object_new_int64 ((int64_t)r->jstats.skipped));
        json_object_object_add (js, "limited", json_object_new_int64 ((int64_t)r->jstats.limited));
        json_object_object_add (extra, "applied", json_object_new_boolean (applied));
        json_object_object_add (extra, "pbs_jobs", js);
        json_object_object_add (extra, "pbs", ccas_pbs_actions_json (&r->acts, applied));
        json_object_object_add (extra, "pbs_command_seconds", json_object_new_double (ccas_run_seconds ()));
        json_object_object_add (extra, "pbs_commands", json_object_new_int64 ((int64_t)ccas_run_count ()));
        ccas_plan_write_json (r->plan, extra, out);
        json_object_put (extra);
    } else if (!cli->quiet) {
        plan_print (out, r->plan, applied, false);
        print_actions (out, &r->acts, applied);
    }
}

/* One PBS pass (pbs_hook/pbs_pass.h); its report goes to `out`. */
static int one_pass (struct cli *cli, bool dry_run, FILE *out)
{
    struct ccas_pbs_pass r;
    struct ccas_error err = {""};
    int rc = pass_open (cli, &r, dry_run);
    if (rc == EXIT_OK && ccas_pbs_pass_run (&r, &err) < 0)
        rc = pass_failed (cli, &r, &err);
    if (r.decided) {
        if (rc == EXIT_OK && !dry_run && plan_shortfalls (r.plan))
            rc = EXIT_PARTIAL;
        if (rc == EXIT_OK && ccas_pbs_actions_failures (&r.acts))
            rc = EXIT_SCHEDULER;
        print_pass (cli, &r, out);
    }
    ccas_pbs_pass_close (&r);
    return rc;
}

static const struct cmd_option no_options[] = {
    {NULL, NULL},
};

const struct cmd_help help_pbs_autoscale = {
    .synopsis = "pbs autoscale [--json]",
    .summary = "one autoscale pass for PBS: create, join, drain, delete",
    .description =
        "What the periodic hook runs.  Reads nodes (pbsnodes -av -F json), the server's and\n"
        "queues' run limits (qstat -Q/-B -f -F json) and queued jobs (qstat -f -t -F json),\n"
        "matches every queued job and array subjob whole, in PBS's order (a job PBS would not\n"
        "start for a limit makes no nodes), and then:\n"
        "  - creates the nodes the jobs need (placement groups for group=group_id or\n"
        "    ungrouped=false, none for ungrouped=true; place=pack is one node holding all\n"
        "    chunks), starts deallocated ones;\n"
        "  - gives every VM of an autoscaled nodearray its vnode as soon as CycleCloud reports\n"
        "    its hostname and address, while it boots (CycleCloud's stock execute setup waits\n"
        "    for it, offlines it with 'cyclecloud offline' and starts pbs_mom): one create node,\n"
        "    offline, comment 'cyclecloud joined', with resources_available.* (pbs.node_resources,\n"
        "    vm_size, nodearray, group_id (_none_ outside a placement group), ungrouped,\n"
        "    instance_id, and ccnodeid, the marker), for all of them in one qmgr call;\n"
        "  - puts a vnode offline with 'cyclecloud offline', 'cyclecloud joined' or 'cyclecloud\n"
        "    restored' online (comment 'cyclecloud restored') once its VM is Ready and its mom\n"
        "    has reported; a placement group goes online whole;\n"
        "  - counts a VM with its vnode as capacity for its jobs, and a Ready VM not yet serving\n"
        "    PBS (no vnode, its mom not reported) as booting; replaces it after boot_timeout;\n"
        "  - drains nodes idle beyond idle_timeout (offline, comment 'ccautoscale: draining');\n"
        "    on a later pass deletes drained idle nodes from PBS, then terminates their VMs;\n"
        "    an idle node never put online is deleted at once;\n"
        "  - deletes failed and stuck VMs from PBS and CycleCloud, and PBS nodes of ours\n"
        "    (ccnodeid) whose VM has gone;\n"
        "  - comments the jobs no node can be had for: 'ccautoscale: <why>' (qalter).\n"
        "Nodes offline with any other comment ('cyclecloud keep offline' from 'pbs offline',\n"
        "or the administrator's own) are left alone: never drained, deleted, joined or put\n"
        "back online; so are VMs 'pbs remove-nodes --permanent' kept out, queues of\n"
        "pbs.ignore_queues, vnodes pbs.ignore_hostnames names and VMs pbs.valid_hostnames\n"
        "does not.  Queue and server resources_default (Resource_List) apply to every chunk:\n"
        "the stock workq's ungrouped=false keeps a job in one placement group.  If PBS cannot\n"
        "be read the pass changes nothing.  A failed qmgr directive fails its node alone, left\n"
        "offline for the next pass.\n"
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
    /* a capacity or quota failure falls back to the buckets left within the
     * pass (the engine's fallback, apply.h): no second pass */
    int rc = no_args (cli, argc, argv);
    return rc != EXIT_OK ? rc : one_pass (cli, false, stdout);
}

int cmd_pbs_demand (struct cli *cli, int argc, char **argv)
{
    int rc = no_args (cli, argc, argv);
    return rc != EXIT_OK ? rc : one_pass (cli, true, stdout);
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
    struct ccas_pbs_pass r;
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
    if ((rc = pass_open (cli, &r, true)) == EXIT_OK) {
        const char *sub = array_subjob (r.jobs, job);
        if (sub && !cli->json && !cli->quiet)
            printf ("job %s is an array: its first queued subjob, %s, stands for it\n\n", job, sub);
        rc = analyze_job (cli, r.model, r.jobs, sub ? sub : job);
    }
    ccas_pbs_pass_close (&r);
    return rc;
}
