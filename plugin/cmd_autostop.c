/* SPDX-License-Identifier: MIT */
/* cmd_autostop.c: `ccautoscale autostop` — a node asks to stop; granted only when demand allows. */
#include "config.h"

#include <stdio.h>

#include "autostop.h"
#include "builtins.h"
#include "model_load.h"

static const struct cmd_option options[] = {
    {"--node NAME", "the node asking: its CycleCloud name or hostname"},
    {"--instance ID", "the node asking, by its cyclecloud.instance.id (InstanceId) or NodeId"},
    {"--dry-run", "decide and say why; terminate nothing"},
    {NULL, NULL},
};

const struct cmd_help help_autostop = {
    .synopsis = "autostop (--node NAME | --instance ID) [--dry-run]",
    .summary = "terminate a node that asks to stop, only when current demand allows it",
    .description =
        "The CycleCloud autoscale API's autostop request, for nodes of arrays that 'autoscale\n"
        "update' manages: a node's idle script asks, and the node is terminated only when\n"
        "  - its dynamic array is no longer in its request set's latest request (flagged for\n"
        "    removal), or its request set's request has expired, or\n"
        "  - its array stays at or above every live target without it: for TargetCount its\n"
        "    nodes, for TargetCoreCount its cores, for TargetGroupCount its whole placement\n"
        "    groups besides the node's own (so one group is emptied at a time), or\n"
        "  - no live request asks for nodes of its nodearray at all.\n"
        "A node of a static nodearray counts toward that nodearray's targets in every live request\n"
        "set; a node of a dynamic array (Configuration ccautoscale.array) toward that array's only.\n"
        "Otherwise the stop is refused with exit status 8 and the reason on standard output, so the\n"
        "idle script keeps the node running and asks again later.  KeepAlive nodes are always\n"
        "refused.  A node already terminating is reported and left alone (exit 0).  The lock makes\n"
        "concurrent requests take turns, so two nodes asking at once never both take an array\n"
        "below its target.  When the last node of an array flagged for removal stops, the array is\n"
        "forgotten.\n"
        "\n"
        "Run it where 'autoscale update' runs (the request sets live in its state_dir): a node's\n"
        "idle script calls it there, e.g. through ssh, or asks 'ccautoscale serve' over HTTPS,\n"
        "which makes this same decision under the same lock.",
    .options = options,
    .examples =
        "$ ccautoscale autostop --node htc-3\n"
        "autostop htc-3: granted: dynamic array 'bigmem' of request set 'standard' is no longer requested "
        "(it dropped out 320 s ago); terminated\n"
        "$ ccautoscale autostop --node htc-4 || echo $?\n"
        "autostop htc-4: refused: array 'htc' of request set 'standard' wants 4 nodes and has 4\n"
        "8",
    .see_also = "ccautoscale-serve(8), ccautoscale-autoscale-update(8), ccautoscale-terminate(8)",
};

static void print_outcome (struct cli *cli, const struct ccas_node *n, const struct autostop_outcome *o,
                           bool dry_run)
{
    const struct ccas_autostop *a = &o->a;
    if (cli->json) {
        json_object *j = json_object_new_object ();
        json_object_object_add (j, "node", json_object_new_string (n->name));
        json_object_object_add (j, "node_id", n->node_id ? json_object_new_string (n->node_id) : NULL);
        json_object_object_add (j, "nodearray", json_object_new_string (n->nodearray));
        json_object_object_add (j, "array", a->array ? json_object_new_string (a->array) : NULL);
        json_object_object_add (j, "request_set",
                                a->request_set ? json_object_new_string (a->request_set) : NULL);
        json_object_object_add (j, "decision", json_object_new_string (autostop_decision_name (a->decision)));
        json_object_object_add (j, "reason", json_object_new_string (a->reason));
        json_object_object_add (j, "dry_run", json_object_new_boolean (dry_run));
        json_object_object_add (j, "terminated", json_object_new_boolean (o->terminated));
        if (o->acted && o->error[0])
            json_object_object_add (j, "error", json_object_new_string (o->error));
        if (o->operation_id[0])
            json_object_object_add (j, "operation_id", json_object_new_string (o->operation_id));
        cli_print_json (j);
        json_object_put (j);
        return;
    }
    if (a->decision == CCAS_AUTOSTOP_GOING)
        printf ("autostop %s: %s; nothing to do\n", n->name, a->reason);
    else if (a->decision == CCAS_AUTOSTOP_REFUSED)
        printf ("autostop %s: refused: %s\n", n->name, a->reason);
    else
        printf ("autostop %s: %s: %s%s\n", n->name, dry_run ? "would be granted" : "granted", a->reason,
                dry_run         ? ""
                : o->terminated ? "; terminated"
                                : "; the terminate failed");
}

int cmd_autostop (struct cli *cli, int argc, char **argv)
{
    static const struct option longopts[] = {
        {"node", required_argument, NULL, 0x721},
        {"instance", required_argument, NULL, 0x722},
        {"dry-run", no_argument, NULL, 0x723},
        {NULL, 0, NULL, 0},
    };
    struct model_source src = {.with_nodes = true};
    struct ccas_cluster *c = NULL;
    struct autostop_view view = {0};
    struct autostop_outcome o;
    const char *name = NULL, *instance = NULL;
    bool dry_run = false;
    int rc, opt;

    while ((opt = cli_getopt (cli, argc, argv, "", longopts)) != -1) {
        if (opt == 0x721)
            name = optarg;
        else if (opt == 0x722)
            instance = optarg;
        else if (opt == 0x723)
            dry_run = true;
    }
    if (optind < argc)
        return cli_usage_error (cli, "unexpected argument '%s'", argv[optind]);
    if (!name == !instance)
        return cli_usage_error (cli, "give the node asking: --node NAME or --instance ID");
    if ((rc = cli_prepare (cli)) != EXIT_OK || (rc = model_load (cli, &src, &c)) != EXIT_OK)
        goto done;
    struct ccas_node *n = autostop_find_cli (cli, c, name, instance, &rc);
    if (!n)
        goto done;
    if ((rc = autostop_view_load (cli, c, &view)) != EXIT_OK ||
        (rc = autostop_decide (cli, c, &view, n, !dry_run, &o)) == EXIT_INTERNAL)
        goto done;
    print_outcome (cli, n, &o, dry_run);
    if (rc == EXIT_OK && o.a.decision == CCAS_AUTOSTOP_REFUSED)
        rc = EXIT_REFUSED;
done:
    autostop_view_release (&view);
    ccas_cluster_destroy (c);
    return rc;
}
