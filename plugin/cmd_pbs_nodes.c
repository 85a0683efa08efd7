/* SPDX-License-Identifier: MIT */
/* cmd_pbs_nodes.c: `ccautoscale pbs nodes` — CycleCloud's VMs and PBS's nodes side by side. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtins.h"
#include "pbs_pass.h"
#include "table.h"
#include "util/json.h"

static const struct cmd_option options[] = {
    {NULL, NULL},
};

const struct cmd_help help_pbs_nodes = {
    .synopsis = "pbs nodes [--json]",
    .summary = "CycleCloud's VMs and PBS's nodes side by side, with what ccautoscale makes of each",
    .description = "One row per VM of the cluster and per PBS node, tied by name and marker as a pass ties\n"
                   "them: NAME (CycleCloud's), HOST (PBS's node), STATUS (CycleCloud's), PBS (the node's\n"
                   "state), JOBS, NODEARRAY, GROUP (placement group), COMMENT, and CCAUTOSCALE, what a pass\n"
                   "does with it: idle, busy, booting with its vnode made, to be put online, its mom not\n"
                   "reported, draining, offline (the administrator's), kept out (pbs remove-nodes\n"
                   "--permanent), no vnode yet, its VM has gone (deleted next pass), not CycleCloud's (left\n"
                   "alone).  Reads what 'pbs demand' reads; changes nothing.  --json gives every field.",
    .options = options,
    .examples = "$ ccautoscale pbs nodes\n$ ccautoscale pbs nodes --json | jq '.[] | select(.pbs == null)'",
    .see_also = "ccautoscale-nodes(8), ccautoscale-pbs-demand(8)",
};

static json_object *str_or_null (const char *s)
{
    return s ? json_object_new_string (s) : NULL;
}

static json_object *row (const struct ccas_pbs_nodes *pn, const struct ccas_node *n,
                         const struct ccas_pbs_node *p, json_object *doc)
{
    json_object *o = json_object_new_object ();
    json_object *pbsnode = p ? ccas_json_get (ccas_json_get (doc, "nodes"), p->name) : NULL;
    json_object_object_add (o, "name", str_or_null (n ? n->name : NULL));
    json_object_object_add (o, "host", str_or_null (p ? p->name : n ? n->hostname : NULL));
    json_object_object_add (o, "node_id", str_or_null (n ? n->node_id : NULL));
    json_object_object_add (o, "status", str_or_null (n ? n->status : NULL));
    json_object_object_add (o, "nodearray", str_or_null (n ? n->nodearray : NULL));
    json_object_object_add (o, "vm_size", str_or_null (n ? n->vm_size : NULL));
    json_object_object_add (o, "placement_group", str_or_null (n ? n->placement_group : NULL));
    json_object_object_add (o, "private_ip", str_or_null (n ? n->private_ip : NULL));
    json_object_object_add (o, "pbs", pbsnode ? json_object_get (pbsnode) : NULL);
    json_object_object_add (o, "jobs", json_object_new_int (p ? (int)p->njobs : 0));
    json_object_object_add (o, "ccautoscale", json_object_new_string (ccas_pbs_nodes_role (pn, n, p)));
    return o;
}

static void print_table (json_object *rows)
{
    static const char *const headers[] = {"NAME",      "HOST",  "STATUS",  "PBS",         ">JOBS",
                                          "NODEARRAY", "GROUP", "COMMENT", "CCAUTOSCALE", NULL};
    struct table *t = table_create (headers);
    for (size_t i = 0; i < json_object_array_length (rows); i++) {
        json_object *r = json_object_array_get_idx (rows, i);
        json_object *pbs = ccas_json_get (r, "pbs");
        char jobs[16];
        snprintf (jobs, sizeof (jobs), "%d", json_object_get_int (ccas_json_get (r, "jobs")));
        const char *cells[] = {ccas_json_str (r, "name"),
                               ccas_json_str (r, "host"),
                               ccas_json_str (r, "status"),
                               pbs ? ccas_json_str (pbs, "state") : NULL,
                               jobs,
                               ccas_json_str (r, "nodearray"),
                               ccas_json_str (r, "placement_group"),
                               pbs ? ccas_json_str (pbs, "comment") : NULL,
                               ccas_json_str (r, "ccautoscale")};
        table_add (t, cells);
    }
    table_print (t, stdout);
    table_destroy (t);
}

int cmd_pbs_nodes (struct cli *cli, int argc, char **argv)
{
    struct ccas_pbs_pass r;
    struct ccas_error err = {""};
    int rc = cli_no_arguments (cli, argc, argv);
    if (rc != EXIT_OK || (rc = cli_prepare (cli)) != EXIT_OK)
        return rc;
    if (ccas_pbs_pass_attach (&r, cli->cfg, cli->api, NULL, true, &err) < 0 ||
        ccas_pbs_pass_load (&r, &err) < 0) {
        rc = r.failure == CCAS_PBS_PASS_PBS
                 ? EXIT_SCHEDULER
                 : cli_fail (cli, r.failure == CCAS_PBS_PASS_CYCLECLOUD ? EXIT_CYCLECLOUD : EXIT_CONFIG, "%s",
                             err.text);
        ccas_pbs_pass_close (&r);
        return rc;
    }
    json_object *rows = json_object_new_array ();
    for (size_t i = 0; i < r.model->nexisting; i++) {
        const struct ccas_node *n = r.model->nodes[i];
        json_object_array_add (rows, row (r.nodes, n, ccas_pbs_nodes_find (r.nodes, n), r.nodes->doc));
    }
    for (size_t i = 0; i < r.nodes->n; i++)
        if (!r.nodes->v[i].cc)
            json_object_array_add (rows, row (r.nodes, NULL, &r.nodes->v[i], r.nodes->doc));
    if (cli->json)
        cli_print_json (rows);
    else
        print_table (rows);
    json_object_put (rows);
    ccas_pbs_pass_close (&r);
    return EXIT_OK;
}
