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
#include "wait.h"

static const struct cmd_option options[] = {
    {"-N, --name NAME", "a node name (repeat for more)"},
    {"-H, --hostname HOST", "a node hostname (repeat for more)"},
    {"-i, --id ID", "a CycleCloud node id (repeat for more)"},
    {"--force", "also terminate KeepAlive nodes"},
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
                   "unless --force.  One nodes read and one terminate request.  Terminating a node\n"
                   "that runs jobs kills them: check the scheduler first.  With --wait the nodes are\n"
                   "followed until CycleCloud has removed them (or shows them Terminated), with progress\n"
                   "as for create --wait.",
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
        else if ((rc = plan_targets (cli, c, plan, targets, ntargets, force)) == EXIT_OK)
            rc = act_finish (cli, plan, dry_run, wait);
    }
done:
    ccas_plan_destroy (plan);
    ccas_cluster_destroy (c);
    free (targets);
    return rc;
}
