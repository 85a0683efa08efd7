/* SPDX-License-Identifier: MIT */
/* cmd_nodes.c: `ccautoscale nodes` — the cluster's nodes, filtered. */
#include "config.h"

#include <fnmatch.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "builtins.h"
#include "table.h"

static const struct cmd_option options[] = {
    {"-n, --nodearray NAME", "only nodes of this nodearray (shell wildcards allowed)"},
    {"-s, --status STATUS", "only nodes in this status (Ready, Acquiring, Failed, ...; case-insensitive)"},
    {"-N, --name NAME", "only nodes whose name matches (shell wildcards allowed)"},
    {NULL, NULL},
};

const struct cmd_help help_nodes = {
    .synopsis = "nodes [--nodearray NAME] [--status STATUS] [--name NAME] [--json]",
    .summary = "list the cluster's nodes with their status, addresses and placement groups",
    .description =
        "STATUS is what CycleCloud shows (Acquiring, Preparing, Ready, Failed, Deallocated, ...);\n"
        "TARGET is what was asked (Started, Terminated, Deallocated).  A node is ready when its\n"
        "status is Ready and it has an address.  --json prints each node's whole record as the\n"
        "server sent it.  One nodes request, nothing else.",
    .options = options,
    .examples = "$ ccautoscale nodes --status Failed\n"
                "$ ccautoscale nodes --nodearray hpc --json | jq -r '.[].Name'",
    .see_also = "ccautoscale-status(8), ccautoscale-terminate(8)",
};

struct filter {
    const char *nodearray, *status, *name;
};

static bool matches (const struct filter *f, const struct ccas_record *n)
{
    if (f->nodearray && (!n->nodearray || fnmatch (f->nodearray, n->nodearray, 0) != 0))
        return false;
    if (f->status && (!n->status || strcasecmp (f->status, n->status) != 0))
        return false;
    if (f->name && (!n->name || fnmatch (f->name, n->name, 0) != 0))
        return false;
    return true;
}

static void add_row (struct table *t, const struct ccas_record *n)
{
    const char *cells[] = {
        n->name,           n->nodearray,          n->machine_type,
        n->status,         n->target_state,       n->hostname,
        n->private_ip,     n->placement_group_id, n->keep_alive ? "yes" : "no",
        n->status_message,
    };
    table_add (t, cells);
}

int cmd_nodes (struct cli *cli, int argc, char **argv)
{
    static const struct option longopts[] = {
        {"nodearray", required_argument, NULL, 'n'},
        {"status", required_argument, NULL, 's'},
        {"name", required_argument, NULL, 'N'},
        {NULL, 0, NULL, 0},
    };
    static const char *const headers[] = {
        "NAME", "NODEARRAY", "MACHINE TYPE", "STATUS",  "TARGET", "HOSTNAME",
        "IP",   "PG",        "KEEPALIVE",    "MESSAGE", NULL,
    };
    struct filter f = {NULL, NULL, NULL};
    struct ccas_error err = {""};
    struct ccas_record_list *list = NULL;
    int c, rc;

    while ((c = cli_getopt (cli, argc, argv, "n:s:N:", longopts)) != -1) {
        if (c == 'n')
            f.nodearray = optarg;
        else if (c == 's')
            f.status = optarg;
        else if (c == 'N')
            f.name = optarg;
    }
    if (optind < argc)
        return cli_usage_error (cli, "unexpected argument '%s'", argv[optind]);
    if ((rc = cli_prepare (cli)) != EXIT_OK)
        return rc;
    if (ccas_ccapi_get_nodes (cli->api, NULL, NULL, &list, &err) < 0)
        return cli_fail_api (cli, &err);

    if (cli->json) {
        json_object *arr = json_object_new_array_ext ((int)list->nnodes);
        for (size_t i = 0; i < list->nnodes; i++)
            if (matches (&f, &list->nodes[i]))
                json_object_array_add (arr, json_object_get (list->nodes[i].raw));
        cli_print_json (arr);
        json_object_put (arr);
    } else {
        struct table *t = table_create (headers);
        for (size_t i = 0; i < list->nnodes; i++)
            if (matches (&f, &list->nodes[i]))
                add_row (t, &list->nodes[i]);
        table_print (t, stdout);
        table_destroy (t);
    }
    ccas_record_list_destroy (list);
    return EXIT_OK;
}
