/* SPDX-License-Identifier: MIT */
/* cmd_slurm_retry.c: `ccautoscale slurm retry-failed` — CycleCloud retries Failed VMs; their nodes come back.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtins.h"
#include "giveback.h"
#include "slurm_admin.h"
#include "util/clock.h"
#include "util/log.h"

static const struct cmd_option options[] = {
    {"-t, --timeout SECONDS",
     "wait at most this long for CycleCloud to take the VMs out of Failed before their nodes are"
     " powered up (default 60)"},
    {"-n, --dry-run", "say what would be done; do nothing"},
    {NULL, NULL},
};

const struct cmd_help help_slurm_retry_failed = {
    .synopsis = "slurm retry-failed [--timeout SECONDS] [--dry-run] [--json]",
    .summary = "retry the cluster's Failed VMs in CycleCloud and return their Slurm nodes to service",
    .description =
        "CycleCloud retries every Failed node of the cluster (its retry action takes no\n"
        "selection: the stock azslurm's 'retry_failed_nodes', from scalelib, calls the same).\n"
        "Then, once CycleCloud has taken them out of Failed, the Slurm side: a node ccautoscale\n"
        "(or ResumeTimeout) took out for its VM — down or drained with a 'ccautoscale:' reason,\n"
        "such as a Failed VM kept by slurm.failed_vms keep — is returned to service, and one that\n"
        "is powered down is powered up, so that Slurm waits for the retried VM (resume finds it\n"
        "booting and leaves it be) instead of leaving it behind a powered-down node.  A node\n"
        "powering up needs nothing; a node an administrator took out keeps its reason (its VM\n"
        "is retried all the same).  Failed VMs of nodearrays ccautoscale does not manage are\n"
        "retried by CycleCloud and otherwise left alone.",
    .options = options,
    .examples = "$ ccautoscale slurm retry-failed --dry-run\n"
                "would retry 2 Failed VMs: hpc-[3-4]\n"
                "would return to service hpc-[3-4]\n"
                "would power up hpc-[3-4]\n"
                "$ ccautoscale slurm retry-failed && ccautoscale slurm wait-for-resume hpc-[3-4]",
    .see_also = "ccautoscale-slurm-wait-for-resume(8), ccautoscale-slurm-sync(8)",
};

struct plan {
    const char **failed, **back, **up, **theirs; /* names */
    size_t nfailed, nback, nup, ntheirs, nother;
};

static void classify (struct ccas_power *p, struct plan *pl)
{
    char why[300];
    for (size_t i = 0; i < p->model->nexisting; i++) {
        const struct ccas_node *n = p->model->nodes[i];
        const struct ccas_slurm_node *sn = n->name ? ccas_slurm_nodes_find (p->snodes, n->name) : NULL;
        if (n->kind != CCAS_NODE_FAILED)
            continue;
        if (!sn || !ccas_slurm_node_bucket (p->model, p->layout, n->name, sn, why, sizeof (why))) {
            pl->nother++;
            continue;
        }
        pl->failed[pl->nfailed++] = n->name;
        bool out = ccas_slurm_node_down (sn) || ccas_slurm_node_drained (sn);
        if (out && !ccas_power_reason_ours (sn->reason) &&
            !(sn->reason && strcmp (sn->reason, "Not responding") == 0)) {
            pl->theirs[pl->ntheirs++] = n->name;
            continue;
        }
        if (out)
            pl->back[pl->nback++] = n->name;
        if (ccas_slurm_node_powered_down (sn))
            pl->up[pl->nup++] = n->name;
    }
}

/* "would power up hpc-[1-2]" in a dry run; else logged, and printed unless --json. */
static void say (struct cli *cli, struct ccas_power *p, const char *verb, const char **names, size_t n)
{
    char *hl = n ? ccas_slurm_hostlist_compress (names, n) : NULL;
    if (hl)
        ccas_power_say (p, LOG_NOTICE, "%s%s %s", p->dry_run ? "would " : "", verb, hl);
    if (hl && !p->dry_run && !cli->json)
        printf ("%s %s\n", verb, hl);
    free (hl);
}

/* Wait until none of the names is Failed in CycleCloud any more, or time
 * runs out; the names still Failed are dropped from `up`. */
static int wait_unfailed (struct cli *cli, struct plan *pl, double timeout)
{
    struct ccas_error err = {""};
    double t0 = ccas_clock_monotonic ();
    for (;;) {
        struct ccas_record_list *list = NULL;
        size_t still = 0;
        if (ccas_ccapi_get_nodes (cli->api, NULL, NULL, &list, &err) < 0)
            return cli_fail_api (cli, &err);
        bool timed_out = ccas_clock_monotonic () - t0 >= timeout;
        size_t k = 0;
        for (size_t i = 0; i < pl->nup; i++) {
            bool failed = false;
            for (size_t r = 0; r < list->nnodes && !failed; r++)
                failed = list->nodes[r].name && strcmp (list->nodes[r].name, pl->up[i]) == 0 &&
                         ccas_record_is_failed (&list->nodes[r]);
            still += failed;
            if (failed && timed_out)
                ccas_log (LOG_WARNING, "%s: still Failed in CycleCloud after %.0f s: not powered up",
                          pl->up[i], timeout);
            else
                pl->up[k++] = pl->up[i];
        }
        ccas_record_list_destroy (list);
        if (!still || timed_out) {
            pl->nup = k;
            return EXIT_OK;
        }
        ccas_clock_sleep (1);
    }
}

static void report (struct cli *cli, const struct plan *pl, bool dry_run)
{
    if (!cli->json)
        return;
    json_object *o = json_object_new_object ();
    const char **lists[] = {pl->failed, pl->back, pl->up, pl->theirs};
    const size_t counts[] = {pl->nfailed, pl->nback, pl->nup, pl->ntheirs};
    static const char *const keys[] = {"retried", "returned", "powered_up", "left_as_they_are"};
    for (size_t k = 0; k < 4; k++) {
        char *hl = counts[k] ? ccas_slurm_hostlist_compress (lists[k], counts[k]) : NULL;
        json_object_object_add (o, keys[k], json_object_new_string (hl ? hl : ""));
        free (hl);
    }
    json_object_object_add (o, "other_failed_vms", json_object_new_int ((int)pl->nother));
    json_object_object_add (o, "dry_run", json_object_new_boolean (dry_run));
    cli_print_json (o);
    json_object_put (o);
}

int cmd_slurm_retry_failed (struct cli *cli, int argc, char **argv)
{
    static const struct option longopts[] = {
        {"timeout", required_argument, NULL, 't'}, {"dry-run", no_argument, NULL, 'n'}, {NULL, 0, NULL, 0}};
    struct ccas_error err = {""};
    struct ccas_power p;
    struct plan pl = {0};
    double timeout = 60;
    bool dry_run = false;
    int ch, rc;

    while ((ch = cli_getopt (cli, argc, argv, "t:n", longopts)) != -1) {
        if (ch == 'n')
            dry_run = true;
        else if (ch == 't') {
            char *end;
            timeout = strtod (optarg, &end);
            if (*end || end == optarg || timeout < 0 || timeout > 3600)
                return cli_usage_error (cli, "--timeout: '%s' is not a number of seconds from 0 to 3600",
                                        optarg);
        }
    }
    if (optind < argc)
        return cli_usage_error (cli, "unexpected argument '%s' (CycleCloud retries every Failed VM)",
                                argv[optind]);
    if ((rc = slurm_admin_open (cli, &p, dry_run)) != EXIT_OK)
        return rc;
    size_t n = p.model->nexisting + 1;
    pl.failed = calloc (n, sizeof (*pl.failed));
    pl.back = calloc (n, sizeof (*pl.back));
    pl.up = calloc (n, sizeof (*pl.up));
    pl.theirs = calloc (n, sizeof (*pl.theirs));
    if (!pl.failed || !pl.back || !pl.up || !pl.theirs) {
        rc = cli_fail (cli, EXIT_INTERNAL, "out of memory");
        goto done;
    }
    classify (&p, &pl);
    if (!pl.nfailed && !pl.nother) {
        if (!cli->json)
            printf ("no Failed VM in cluster '%s'\n", cli->cfg->cluster_name);
        report (cli, &pl, dry_run);
        goto done;
    }
    say (cli, &p, "retry Failed VMs of Slurm nodes", pl.failed, pl.nfailed);
    if (pl.nother)
        ccas_power_say (&p, LOG_NOTICE,
                        "%sretry %zu Failed VM%s of other nodearrays (CycleCloud retries them all)",
                        dry_run ? "would " : "", pl.nother, pl.nother == 1 ? "" : "s");
    say (cli, &p, "leave as they are (an administrator's reason)", pl.theirs, pl.ntheirs);
    if (!dry_run) {
        if (ccas_ccapi_retry_failed (cli->api, &err) < 0) {
            rc = cli_fail_api (cli, &err);
            goto done;
        }
        if ((rc = wait_unfailed (cli, &pl, timeout)) != EXIT_OK)
            goto done;
    }
    say (cli, &p, "return to service", pl.back, pl.nback);
    ccas_power_return (&p, pl.back, pl.nback);
    say (cli, &p, "power up", pl.up, pl.nup);
    ccas_power_update (&p, pl.up, pl.nup, CCAS_SLURM_POWER_UP, NULL);
    if (!dry_run) {
        /* the VMs are wanted again: nothing is to give them back */
        struct ccas_state *gb = ccas_slurm_giveback_load (cli->cfg->state_dir, &err);
        for (size_t i = 0; gb && i < pl.nfailed; i++)
            ccas_slurm_giveback_forget (gb, pl.failed[i]);
        if (gb && ccas_state_save (gb, &err) < 0)
            ccas_log (LOG_WARNING, "%s", err.text);
        ccas_state_destroy (gb);
    }
    rc = p.failures ? EXIT_SCHEDULER : EXIT_OK;
    report (cli, &pl, dry_run);
done:
    free (pl.failed);
    free (pl.back);
    free (pl.up);
    free (pl.theirs);
    ccas_power_detach (&p);
    return rc;
}
