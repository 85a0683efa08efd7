/* SPDX-License-Identifier: MIT */
/* suspend.c: SuspendProgram — give back the VMs behind Slurm node names, in one request. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "giveback.h"
#include "keepalive.h"
#include "power.h"
#include "util/events.h"
#include "util/log.h"
#include "util/metrics.h"

/* One "terminated" event for the call (a hostlist: a suspend of a thousand
 * nodes is one decision), and the count per nodearray. */
static void report (struct ccas_power *p, enum ccas_node_action action, const char **which, const char **ids,
                    size_t nids, const struct ccas_action_result *res)
{
    char labels[300];
    const char **done = calloc (nids + 1, sizeof (*done));
    size_t ndone = 0;
    for (size_t i = 0; done && i < nids; i++) {
        const struct ccas_node *node = ccas_cluster_find_node (p->model, which[i]);
        bool ok = true;
        for (size_t k = 0; k < res->nnodes; k++)
            if (res->nodes[k].id && strcmp (res->nodes[k].id, ids[i]) == 0)
                ok = res->nodes[k].ok;
        if (!node || !ok)
            continue;
        done[ndone++] = which[i];
        if (node->nodearray)
            ccas_metrics_add (
                "ccautoscale_nodes_terminated_total",
                ccas_metrics_labels (labels, sizeof (labels), "nodearray", node->nodearray, NULL, NULL), 1);
    }
    char *hl = ndone ? ccas_slurm_hostlist_compress (done, ndone) : NULL;
    if (hl) {
        json_object *o = json_object_new_object ();
        json_object_object_add (o, "nodes", json_object_new_string (hl));
        json_object_object_add (o, "count", json_object_new_int ((int)ndone));
        json_object_object_add (o, "action", json_object_new_string (ccas_node_action_name (action)));
        json_object_object_add (o, "reason", json_object_new_string ("SuspendProgram"));
        json_object_object_add (o, "operation_id",
                                res->operation_id ? json_object_new_string (res->operation_id) : NULL);
        ccas_event ("terminated", o);
    }
    free (hl);
    free (done);
}

/* What Slurm cannot have given back yet: the names whose request failed,
 * for sync to finish (giveback.h). */
static void giveback (struct ccas_power *p, const char *const *names, size_t n, const char *why)
{
    struct ccas_error err = {""};
    if (!p->dry_run && ccas_slurm_giveback_add (p->cfg->state_dir, names, n, p->now, why, &err) < 0)
        ccas_log (LOG_WARNING, "%s", err.text);
}

/* Say which VMs are kept, and why, as one line per reason. */
static void say_kept (struct ccas_power *p, const char **names, size_t n, const char *why)
{
    char *hl = n ? ccas_slurm_hostlist_compress (names, n) : NULL;
    if (hl)
        ccas_power_say (p, LOG_WARNING, "%s: %s, not %s", hl, why,
                        ccas_node_action_name (p->cfg->slurm.suspend_action));
    free (hl);
}

int ccas_power_suspend (struct ccas_power *p, char **names, size_t n)
{
    struct ccas_error err = {""};
    struct ccas_action_result *res = NULL;
    const char **ids = calloc (n + 1, sizeof (*ids));
    const char **which = calloc (n + 1, sizeof (*which));
    const char **kept = calloc (n + 1, sizeof (*kept));
    const char **held = calloc (n + 1, sizeof (*held));
    size_t nids = 0, nkept = 0, nheld = 0, ngone = 0;
    enum ccas_node_action action = p->cfg->slurm.suspend_action;
    struct ccas_state *ka = NULL;

    if (!ids || !which || !kept || !held) {
        p->failures++;
        goto done;
    }
    ccas_power_requested (p, "suspend_requested", names, n);
    if (!(ka = ccas_slurm_keepalive_load (p->cfg->state_dir, &err)))
        ccas_log (LOG_WARNING, "%s", err.text);
    for (size_t i = 0; i < n; i++) {
        struct ccas_node *node = ccas_cluster_find_node (p->model, names[i]);
        const struct ccas_slurm_node *sn = ccas_slurm_nodes_find (p->snodes, names[i]);
        if (!node || node->kind == CCAS_NODE_GOING) {
            ngone++; /* nothing to give back: never created, or already going */
            continue;
        }
        if (sn && ccas_power_reason_kept (sn->reason)) {
            held[nheld++] = names[i]; /* remove-nodes --keep-vms, a kept Failed VM */
            continue;
        }
        if (node->keep_alive || ccas_slurm_keepalive_has (ka, names[i])) {
            kept[nkept++] = names[i];
            continue;
        }
        which[nids] = names[i];
        ids[nids++] = node->node_id;
    }
    say_kept (
        p, kept, nkept,
        "KeepAlive in CycleCloud or named to 'slurm keep-alive add' (sync keeps them in SuspendExcNodes)");
    say_kept (p, held, nheld, "VM kept for inspection");
    /* slurmctld clears a drain as it starts powering a node down; now that it is, one stays */
    for (size_t i = 0; i < nheld; i++) {
        const struct ccas_slurm_node *sn = ccas_slurm_nodes_find (p->snodes, held[i]);
        if (sn && !ccas_slurm_node_drained (sn))
            ccas_power_update (p, &held[i], 1, CCAS_SLURM_DRAIN, sn->reason);
    }
    /* names handed back from a held bucket come here as Slurm powers them down */
    ccas_power_hold_held (p, names, n);
    if (!nids) {
        ccas_power_say (p, LOG_INFO, "nothing to %s (%zu of %zu names have no VM)",
                        ccas_node_action_name (action), ngone, n);
        goto done;
    }
    char *hl = ccas_slurm_hostlist_compress (which, nids);
    ccas_power_say (p, LOG_NOTICE, "%s%s %zu node%s: %s", p->dry_run ? "would " : "",
                    ccas_node_action_name (action), nids, nids == 1 ? "" : "s", hl ? hl : "?");
    free (hl);
    if (p->dry_run)
        goto done;
    struct ccas_node_selector sel = {.ids = ids, .nids = nids};
    if (ccas_ccapi_node_action (p->api, action, &sel, NULL, &res, &err) < 0) {
        ccas_log (LOG_ERR, "%s (sync will terminate these VMs, unless their nodearray is disabled)",
                  err.text);
        p->failures++;
        giveback (p, which, nids, "a suspend that failed");
        goto done;
    }
    report (p, action, which, ids, nids, res);
    for (size_t i = 0; i < res->nnodes; i++)
        if (!res->nodes[i].ok) {
            ccas_log (LOG_ERR, "%s %s: %s", ccas_node_action_name (action),
                      res->nodes[i].name ? res->nodes[i].name : "?",
                      res->nodes[i].error ? res->nodes[i].error : "failed");
            p->failures++;
            if (res->nodes[i].name)
                giveback (p, &res->nodes[i].name, 1, "a suspend that failed");
        }
done:
    ccas_state_destroy (ka);
    ccas_action_result_destroy (res);
    free (ids);
    free (which);
    free (kept);
    free (held);
    return p->failures ? -1 : 0;
}
