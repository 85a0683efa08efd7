/* SPDX-License-Identifier: MIT */
/* cmd_autostop.c: `ccautoscale autostop` — a node asks to stop; granted only when demand allows. */
#include "config.h"

#include <string.h>
#include <time.h>

#include "act.h"
#include "builtins.h"
#include "engine/plan.h"
#include "engine/request_set.h"
#include "engine/targets.h"
#include "model_load.h"
#include "util/log.h"

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
        "idle script calls it there, e.g. through ssh.",
    .options = options,
    .examples =
        "$ ccautoscale autostop --node htc-3\n"
        "autostop htc-3: granted: dynamic array 'bigmem' of request set 'standard' is no longer requested "
        "(it dropped out 320 s ago); terminated\n"
        "$ ccautoscale autostop --node htc-4 || echo $?\n"
        "autostop htc-4: refused: array 'htc' of request set 'standard' wants 4 nodes and has 4\n"
        "8",
    .see_also = "ccautoscale-autoscale-update(8), ccautoscale-terminate(8)",
};

static struct ccas_node *find_instance (struct ccas_cluster *c, const char *id)
{
    for (size_t i = 0; i < c->nexisting; i++) {
        struct ccas_node *n = c->nodes[i];
        if ((n->instance_id && strcmp (n->instance_id, id) == 0) ||
            (n->node_id && strcmp (n->node_id, id) == 0))
            return n;
    }
    return NULL;
}

static const char *decision_name (enum ccas_autostop_decision d)
{
    return d == CCAS_AUTOSTOP_GRANTED ? "granted" : d == CCAS_AUTOSTOP_GOING ? "going" : "refused";
}

static void print_outcome (struct cli *cli, const struct ccas_node *n, const struct ccas_autostop *a,
                           bool dry_run, const struct ccas_plan *plan)
{
    const struct ccas_plan_action *term = plan && plan->nterminates ? &plan->terminates[0] : NULL;
    bool terminated = term && term->outcome == CCAS_DONE;
    if (cli->json) {
        json_object *o = json_object_new_object ();
        json_object_object_add (o, "node", json_object_new_string (n->name));
        json_object_object_add (o, "node_id", n->node_id ? json_object_new_string (n->node_id) : NULL);
        json_object_object_add (o, "nodearray", json_object_new_string (n->nodearray));
        json_object_object_add (o, "array", a->array ? json_object_new_string (a->array) : NULL);
        json_object_object_add (o, "request_set",
                                a->request_set ? json_object_new_string (a->request_set) : NULL);
        json_object_object_add (o, "decision", json_object_new_string (decision_name (a->decision)));
        json_object_object_add (o, "reason", json_object_new_string (a->reason));
        json_object_object_add (o, "dry_run", json_object_new_boolean (dry_run));
        json_object_object_add (o, "terminated", json_object_new_boolean (terminated));
        if (term && term->error)
            json_object_object_add (o, "error", json_object_new_string (term->error));
        if (plan && plan->terminate_operation)
            json_object_object_add (o, "operation_id", json_object_new_string (plan->terminate_operation));
        cli_print_json (o);
        json_object_put (o);
        return;
    }
    if (a->decision == CCAS_AUTOSTOP_GOING)
        printf ("autostop %s: %s; nothing to do\n", n->name, a->reason);
    else if (a->decision == CCAS_AUTOSTOP_REFUSED)
        printf ("autostop %s: refused: %s\n", n->name, a->reason);
    else
        printf ("autostop %s: %s: %s%s\n", n->name, dry_run ? "would be granted" : "granted", a->reason,
                dry_run      ? ""
                : terminated ? "; terminated"
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
    struct ccas_error err = {""};
    struct ccas_cluster *c = NULL;
    struct ccas_request_set **sets = NULL;
    struct ccas_targets *t = NULL;
    struct ccas_plan *plan = NULL;
    struct ccas_autostop a;
    const char *name = NULL, *instance = NULL;
    size_t nsets = 0;
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
    struct ccas_node *n = name ? ccas_cluster_find_node (c, name) : find_instance (c, instance);
    if (!n) {
        rc = cli_fail (cli, EXIT_USAGE, "%s '%s': no such node in cluster '%s'", name ? "node" : "instance",
                       name ? name : instance, cli->cfg->cluster_name);
        goto done;
    }
    if (ccas_request_set_load_all (cli->cfg->state_dir, &sets, &nsets, &err) < 0 ||
        !(t = ccas_targets_create (c, sets, nsets, (double)time (NULL), &err))) {
        rc = cli_fail (cli, EXIT_INTERNAL, "%s", err.text);
        goto done;
    }
    ccas_targets_autostop (t, n, &a);
    ccas_log (LOG_INFO, "autostop %s: %s: %s", n->name, decision_name (a.decision), a.reason);
    if (a.decision == CCAS_AUTOSTOP_GRANTED && !dry_run) {
        char reason[700];
        snprintf (reason, sizeof (reason), "autostop: %s", a.reason);
        if (!(plan = ccas_plan_create (c, NULL, &err)) || ccas_plan_terminate (plan, n, reason) < 0) {
            rc = cli_fail (cli, EXIT_INTERNAL, "%s", err.text[0] ? err.text : "out of memory");
            goto done;
        }
        if ((rc = act_carry_out (cli, plan)) == EXIT_INTERNAL)
            goto done;
        if (plan->terminates[0].outcome == CCAS_DONE) {
            ccas_targets_node_gone (t, n);
            if (ccas_targets_forget (t) > 0)
                for (size_t i = 0; i < nsets; i++)
                    if (sets[i]->changed && ccas_request_set_save (sets[i], &err) < 0)
                        ccas_log (LOG_WARNING, "%s", err.text);
        } else if (rc == EXIT_OK)
            rc = EXIT_PARTIAL;
    }
    print_outcome (cli, n, &a, dry_run, plan);
    if (rc == EXIT_OK && a.decision == CCAS_AUTOSTOP_REFUSED)
        rc = EXIT_REFUSED;
done:
    ccas_plan_destroy (plan);
    ccas_targets_destroy (t);
    ccas_request_set_destroy_all (sets, nsets);
    ccas_cluster_destroy (c);
    return rc;
}
