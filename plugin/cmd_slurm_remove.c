/* SPDX-License-Identifier: MIT */
/* cmd_slurm_remove.c: `ccautoscale slurm remove-nodes` — take nodes out: powered down, their VMs terminated
 * or kept. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtins.h"
#include "giveback.h"
#include "keepalive.h"
#include "slurm_admin.h"
#include "util/log.h"

static const struct cmd_option options[] = {
    {"--keep-vms", "keep the VMs for inspection: the nodes stay drained until the VMs are gone"},
    {"--force", "also nodes running jobs (requeued) and KeepAlive nodes"},
    {"-n, --dry-run", "say what would be done; do nothing"},
    {NULL, NULL},
};

const struct cmd_help help_slurm_remove_nodes = {
    .synopsis = "slurm remove-nodes HOSTLIST... [--keep-vms] [--force] [--dry-run] [--json]",
    .summary = "take nodes out: power them down in Slurm and terminate their VMs, or keep them",
    .description = "Powers the nodes down in Slurm at once (a job there is requeued) and terminates their\n"
                   "VMs in one request: the nodes are back in the powered-down pool, and Slurm powers them\n"
                   "up again, with a new VM, when a job needs them.  With --keep-vms the VMs stay for\n"
                   "inspection: each node is powered down and drained with a 'ccautoscale: kept:' reason,\n"
                   "and nothing powers it up nor gives its VM back (suspend and sync leave it) until the\n"
                   "VM is gone ('ccautoscale terminate'); then sync returns the node.  A zombie (a VM kept\n"
                   "behind a powered-down node, slurm.zombie_vms) is given back the same way.\n"
                   "\n"
                   "Every name must be a Slurm node ccautoscale manages, or nothing is done.  A node\n"
                   "running a job, or KeepAlive (in CycleCloud, or by 'slurm keep-alive add'), is refused\n"
                   "without --force.  The stock azslurm's 'remove_nodes' fails before it starts (azslurm\n"
                   "4.0.9); its 'suspend' is the nearest.",
    .options = options,
    .examples = "$ ccautoscale slurm remove-nodes hpc-[3-4] --dry-run\n"
                "$ ccautoscale slurm remove-nodes hpc-7 --keep-vms",
    .see_also = "ccautoscale-slurm-retry-failed(8), ccautoscale-terminate(8), ccautoscale-suspend(8)",
};

struct remove_opts {
    bool keep, force, dry_run;
};

/* Busy or KeepAlive nodes are refused without --force; nothing is done then. */
static int check (struct cli *cli, struct ccas_power *p, char *const *names, size_t n,
                  const struct remove_opts *o)
{
    struct ccas_error err = {""};
    struct ccas_state *ka = ccas_slurm_keepalive_load (cli->cfg->state_dir, &err);
    int rc = slurm_admin_check_managed (cli, p, names, n);
    for (size_t i = 0; rc == EXIT_OK && i < n && !o->force; i++) {
        const struct ccas_slurm_node *sn = ccas_slurm_nodes_find (p->snodes, names[i]);
        const struct ccas_node *vm = ccas_cluster_find_node (p->model, names[i]);
        if (ccas_slurm_node_busy (sn))
            rc = cli_fail (cli, EXIT_USAGE, "'%s' runs a job (--force requeues it); nothing done", names[i]);
        else if ((vm && vm->keep_alive) || ccas_slurm_keepalive_has (ka, names[i]))
            rc = cli_fail (cli, EXIT_USAGE, "'%s' is KeepAlive (--force removes it anyway); nothing done",
                           names[i]);
    }
    ccas_state_destroy (ka);
    return rc;
}

static void print_list (struct cli *cli, json_object *o, const char *key, const char *verb, const char **v,
                        size_t n, bool dry_run)
{
    char *hl = n ? ccas_slurm_hostlist_compress (v, n) : NULL;
    if (o)
        json_object_object_add (o, key, json_object_new_string (hl ? hl : ""));
    else if (hl && !dry_run) /* a dry run printed what it would do */
        printf ("%s %s\n", verb, hl);
    (void)cli;
    free (hl);
}

int cmd_slurm_remove_nodes (struct cli *cli, int argc, char **argv)
{
    static const struct option longopts[] = {
        {"keep-vms", no_argument, NULL, 0x901},
        {"force", no_argument, NULL, 0x902},
        {"dry-run", no_argument, NULL, 'n'},
        {NULL, 0, NULL, 0},
    };
    struct remove_opts o = {0};
    struct ccas_error err = {""};
    struct ccas_power p;
    char **operands = calloc ((size_t)argc + 1, sizeof (*operands)), **names = NULL;
    size_t noperands = 0, nnames = 0;
    int ch, rc;

    if (!operands)
        return cli_fail (cli, EXIT_INTERNAL, "out of memory");
    while ((ch = slurm_admin_getopt (cli, argc, argv, "n", longopts, operands, &noperands)) != -1) {
        if (ch == 0x901)
            o.keep = true;
        else if (ch == 0x902)
            o.force = true;
        else if (ch == 'n')
            o.dry_run = true;
    }
    rc = slurm_admin_names (cli, operands, noperands, "the nodes to remove", &names, &nnames);
    free (operands);
    if (rc != EXIT_OK)
        return rc;
    if ((rc = slurm_admin_open (cli, &p, o.dry_run)) != EXIT_OK) {
        ccas_slurm_names_free (names, nnames);
        return rc;
    }
    const char **down = calloc (nnames + 1, sizeof (*down)), **drain = calloc (nnames + 1, sizeof (*drain));
    const char **ids = calloc (nnames + 1, sizeof (*ids)), **which = calloc (nnames + 1, sizeof (*which));
    size_t ndown = 0, ndrain = 0, nids = 0;
    if (!down || !drain || !ids || !which) {
        rc = cli_fail (cli, EXIT_INTERNAL, "out of memory");
        goto done;
    }
    rc = check (cli, &p, names, nnames, &o);
    for (size_t i = 0; rc == EXIT_OK && i < nnames; i++) {
        const struct ccas_slurm_node *sn = ccas_slurm_nodes_find (p.snodes, names[i]);
        const struct ccas_node *vm = ccas_cluster_find_node (p.model, names[i]);
        bool off = ccas_slurm_node_powered_down (sn) || ccas_slurm_node_powering_down (sn);
        if (!off)
            down[ndown++] = names[i];
        else if (o.keep && !ccas_slurm_node_down (sn))
            drain[ndrain++] = names[i];
        if (vm && vm->kind != CCAS_NODE_GOING && !o.keep) {
            which[nids] = names[i];
            ids[nids++] = vm->node_id;
        }
    }
    if (rc == EXIT_OK) {
        char reason[300], who[128];
        snprintf (reason, sizeof (reason), CCAS_POWER_KEPT "removed (%s); VM kept for inspection",
                  slurm_admin_who (who, sizeof (who)));
        ccas_power_update (&p, down, ndown, CCAS_SLURM_POWER_DOWN_FORCE, o.keep ? reason : NULL);
        ccas_power_update (&p, drain, ndrain, CCAS_SLURM_DRAIN, reason);
        if (p.failures)
            rc = cli_fail (cli, EXIT_SCHEDULER, "Slurm refused; no VM terminated");
    }
    if (rc == EXIT_OK && nids && !o.dry_run) {
        struct ccas_node_selector sel = {.ids = ids, .nids = nids};
        struct ccas_action_result *res = NULL;
        if (ccas_ccapi_node_action (cli->api, CCAS_ACTION_TERMINATE, &sel, NULL, &res, &err) < 0) {
            struct ccas_error gerr = {""};
            /* the nodes are powered down: sync gives the VMs back (giveback.h) */
            if (ccas_slurm_giveback_add (cli->cfg->state_dir, which, nids, p.now, "remove-nodes", &gerr) < 0)
                ccas_log (LOG_WARNING, "%s", gerr.text);
            rc = cli_fail (cli, EXIT_CYCLECLOUD, "%s (the nodes are powered down; sync terminates the VMs)",
                           err.text);
        } else
            ccas_log (LOG_NOTICE, "remove-nodes: terminated %zu VM%s", nids, nids == 1 ? "" : "s");
        ccas_action_result_destroy (res);
    }
    if (rc == EXIT_OK) {
        json_object *out = cli->json ? json_object_new_object () : NULL;
        print_list (cli, out, "powered_down", "power down", down, ndown, o.dry_run);
        print_list (cli, out, "drained", "drain", drain, ndrain, o.dry_run);
        print_list (cli, out, "terminated", "terminate the VMs of", which, nids, o.dry_run);
        if (out) {
            json_object_object_add (out, "vms_kept", json_object_new_boolean (o.keep));
            json_object_object_add (out, "dry_run", json_object_new_boolean (o.dry_run));
            cli_print_json (out);
            json_object_put (out);
        }
    }
done:
    free (down);
    free (drain);
    free (ids);
    free (which);
    ccas_power_detach (&p);
    ccas_slurm_names_free (names, nnames);
    return rc;
}
