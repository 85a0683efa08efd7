/* SPDX-License-Identifier: MIT */
/* cmd_terminate.c: `ccautoscale terminate` — give nodes back by name, hostname or id. */
#include "config.h"

#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "act.h"
#include "builtins.h"
#include "model_load.h"
#include "pbs_cmds.h"
#include "pbs_nodes.h"
#include "run.h"
#include "wait.h"

static const struct cmd_option options[] = {
    {"-N, --name NAME", "a node name (repeat for more)"},
    {"-H, --hostname HOST", "a node hostname (repeat for more)"},
    {"-i, --id ID", "a CycleCloud node id (repeat for more)"},
    {"--force", "also terminate KeepAlive nodes, and PBS nodes that run jobs (the jobs are killed)"},
    {"--dry-run", "show what would be terminated, terminate nothing"},
    {"--wait[=SECONDS]",
     "then follow the nodes until they are gone, showing progress; give up after SECONDS (default 1200)"},
    {NULL, NULL},
};

const struct cmd_help help_terminate = {
    .synopsis =
        "terminate (--name NAME | --hostname HOST | --id ID)... [--force] [--dry-run] [--wait[=SECONDS]]",
    .summary = "terminate nodes by name, hostname or node id",
    .description = "Every node given must exist, or nothing is terminated.  KeepAlive nodes are refused\n"
                   "unless --force.  One nodes read and one terminate request.  On a PBS server (PBS's\n"
                   "commands in pbs.bin_dir or on the PATH) each node PBS has is drained first (offline,\n"
                   "'ccautoscale: draining: terminate requested by USER') and deleted from PBS, so PBS\n"
                   "starts nothing there meanwhile; a node that runs jobs is refused, and nothing\n"
                   "terminated, unless --force.  Elsewhere, terminating a node that runs jobs kills them:\n"
                   "check the scheduler first.  With --wait the nodes are followed until CycleCloud has\n"
                   "removed them (or shows them Terminated), with progress as for create --wait.",
    .options = options,
    .examples = "$ ccautoscale terminate --name htc-3 --name htc-4 --dry-run",
    .see_also = "ccautoscale-nodes(8), ccautoscale-create(8)",
};

enum kind { BY_NAME, BY_HOSTNAME, BY_ID };

struct target {
    enum kind kind;
    const char *value;
};

static struct ccas_node *resolve (struct ccas_cluster *c, const struct target *t)
{
    for (size_t i = 0; i < c->nexisting; i++) {
        struct ccas_node *n = c->nodes[i];
        const char *v = t->kind == BY_NAME ? n->name : t->kind == BY_ID ? n->node_id : n->hostname;
        if (v && (t->kind == BY_HOSTNAME ? strcasecmp (v, t->value) == 0 : strcmp (v, t->value) == 0))
            return n;
    }
    return NULL;
}

static int plan_targets (struct cli *cli, struct ccas_cluster *c, struct ccas_plan *plan,
                         const struct target *t, size_t n, bool force)
{
    static const char *const kinds[] = {"name", "hostname", "id"};
    char reason[128];
    struct passwd *pw = getpwuid (getuid ());
    snprintf (reason, sizeof (reason), "requested by %s", pw ? pw->pw_name : "an administrator");
    for (size_t i = 0; i < n; i++) {
        struct ccas_node *node = resolve (c, &t[i]);
        if (!node)
            return cli_fail (cli, EXIT_USAGE, "no node with %s '%s'; nothing terminated", kinds[t[i].kind],
                             t[i].value);
        if (node->keep_alive && !force)
            return cli_fail (cli, EXIT_USAGE,
                             "%s is KeepAlive; use --force to terminate it; nothing terminated", node->name);
        if (ccas_plan_terminate (plan, node, reason) < 0)
            return cli_fail (cli, EXIT_INTERNAL, "out of memory");
    }
    return EXIT_OK;
}

/* On a PBS server: the nodes PBS has are drained and deleted from PBS before
 * their VMs go; one that runs jobs is refused unless `force` (then a node PBS
 * will not delete is still terminated: the next pass forgets it).  An exit
 * code (printed). */
static int release_from_pbs (struct cli *cli, struct ccas_cluster *c, struct ccas_plan *plan, bool force,
                             bool dry_run)
{
    struct ccas_error err = {""};
    char why[200];
    ccas_run_set_bin_dir (cli->cfg->pbs.bin_dir);
    ccas_pbs_set_timeout (cli->cfg->pbs.command_timeout);
    if (!ccas_run_found ("pbsnodes"))
        return EXIT_OK; /* no PBS here */
    json_object *doc = ccas_pbs_pbsnodes (&err);
    struct ccas_pbs_nodes *pn = doc ? ccas_pbs_nodes_from_json (doc, &err) : NULL;
    if (!pn)
        return force ? EXIT_OK
                     : cli_fail (
                           cli, EXIT_SCHEDULER,
                           "cannot read PBS (%s): a node there could run jobs; --force terminates without "
                           "asking PBS; nothing terminated",
                           err.text);
    ccas_pbs_nodes_merge (pn, c);
    struct ccas_pbs_op *ops = calloc (plan->nterminates + 1, sizeof (*ops));
    size_t n = 0;
    int rc = EXIT_OK;
    struct passwd *pw = getpwuid (getuid ());
    snprintf (why, sizeof (why), "terminate requested by %s", pw ? pw->pw_name : "an administrator");
    for (size_t i = 0; ops && i < plan->nterminates && rc == EXIT_OK; i++) {
        struct ccas_pbs_node *p = ccas_pbs_nodes_find (pn, plan->terminates[i].node);
        if (!p)
            continue;
        if (p->njobs && !force)
            rc = cli_fail (cli, EXIT_USAGE,
                           "%s runs %u job%s in PBS: --force terminates it anyway (its jobs are "
                           "killed); nothing terminated",
                           p->name, p->njobs, p->njobs == 1 ? "" : "s");
        ops[n++] = (struct ccas_pbs_op){.kind = CCAS_PBS_OP_DRAIN, .host = p->name, .why = why};
    }
    if (!ops)
        rc = cli_fail (cli, EXIT_INTERNAL, "out of memory");
    if (rc == EXIT_OK && n && dry_run && !cli->json)
        for (size_t i = 0; i < n; i++)
            printf ("would drain %s in PBS and delete it from PBS\n", ops[i].host);
    if (rc == EXIT_OK && n && !dry_run) {
        ccas_pbs_run_ops (c, ops, n, NULL);
        for (size_t i = 0; i < n; i++) {
            if (ops[i].failed)
                fprintf (stderr, "ccautoscale: %s: drain in PBS failed: %s\n", ops[i].host, ops[i].error);
            ops[i] = (struct ccas_pbs_op){.kind = CCAS_PBS_OP_DELETE, .host = ops[i].host};
        }
        ccas_pbs_run_ops (c, ops, n, NULL);
        for (size_t i = 0; i < n; i++)
            if (ops[i].failed) {
                fprintf (stderr, "ccautoscale: %s: delete from PBS failed: %s\n", ops[i].host, ops[i].error);
                if (!force)
                    rc = cli_fail (cli, EXIT_SCHEDULER,
                                   "%s is still in PBS: --force terminates it anyway; nothing terminated",
                                   ops[i].host);
            } else if (!cli->json && !cli->quiet)
                printf ("%s: drained and deleted from PBS\n", ops[i].host);
    }
    free (ops);
    ccas_pbs_nodes_destroy (pn);
    return rc;
}

int cmd_terminate (struct cli *cli, int argc, char **argv)
{
    static const struct option longopts[] = {
        {"name", required_argument, NULL, 'N'},
        {"hostname", required_argument, NULL, 'H'},
        {"id", required_argument, NULL, 'i'},
        {"force", no_argument, NULL, 0x501},
        {"dry-run", no_argument, NULL, 0x502},
        {"wait", optional_argument, NULL, 0x503},
        {NULL, 0, NULL, 0},
    };
    struct model_source src = {.with_nodes = true};
    struct target *targets = calloc ((size_t)argc + 1, sizeof (*targets));
    size_t ntargets = 0;
    bool force = false, dry_run = false;
    double wait = 0;
    struct ccas_error err = {""};
    struct ccas_cluster *c = NULL;
    struct ccas_plan *plan = NULL;
    int ch, rc = EXIT_OK;

    if (!targets)
        return cli_fail (cli, EXIT_INTERNAL, "out of memory");
    while ((ch = cli_getopt (cli, argc, argv, "N:H:i:", longopts)) != -1) {
        if (ch == 'N' || ch == 'H' || ch == 'i')
            targets[ntargets++] = (struct target){ch == 'N'   ? BY_NAME
                                                  : ch == 'H' ? BY_HOSTNAME
                                                              : BY_ID,
                                                  optarg};
        else if (ch == 0x501)
            force = true;
        else if (ch == 0x502)
            dry_run = true;
        else if (ch == 0x503 && (rc = wait_parse_timeout (cli, optarg, &wait)) != EXIT_OK)
            break;
    }
    if (rc != EXIT_OK)
        goto done;
    if (optind < argc)
        rc = cli_usage_error (cli, "unexpected argument '%s' (use --name)", argv[optind]);
    else if (!ntargets)
        rc = cli_usage_error (cli, "name at least one node with --name, --hostname or --id");
    else if ((rc = cli_prepare (cli)) == EXIT_OK && (rc = model_load (cli, &src, &c)) == EXIT_OK) {
        if (!(plan = ccas_plan_create (c, NULL, &err)))
            rc = cli_fail (cli, EXIT_INTERNAL, "%s", err.text);
        else if ((rc = plan_targets (cli, c, plan, targets, ntargets, force)) == EXIT_OK &&
                 (rc = release_from_pbs (cli, c, plan, force, dry_run)) == EXIT_OK)
            rc = act_finish (cli, plan, dry_run, wait);
    }
done:
    ccas_plan_destroy (plan);
    ccas_cluster_destroy (c);
    free (targets);
    return rc;
}
