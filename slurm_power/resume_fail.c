/* SPDX-License-Identifier: MIT */
/* resume_fail.c: ResumeFailProgram — release VMs that never registered; return their nodes.
 *
 * slurmctld calls it for nodes that did not register within ResumeTimeout;
 * they are down~ "ResumeTimeout reached" and their jobs requeued.  Their VMs
 * are terminated (one request), then the nodes go back to the powered-down
 * pool (idle~) so Slurm may use them again, unless their bucket is held back,
 * in which case they stay drained with the hold's reason.  A Failed VM under
 * slurm.failed_vms keep is not terminated: its node is drained with a
 * reason that says so, until the VM is retried or terminated.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "giveback.h"
#include "power.h"
#include "util/log.h"

int ccas_power_resume_fail (struct ccas_power *p, char **names, size_t n)
{
    struct ccas_error err = {""};
    struct ccas_action_result *res = NULL;
    const char **ids = calloc (n + 1, sizeof (*ids));
    const char **back = calloc (n + 1, sizeof (*back));
    const char **held = calloc (n + 1, sizeof (*held));
    const char **which = calloc (n + 1, sizeof (*which));
    size_t nids = 0, nback = 0, nheld = 0;
    char why[300];
    const char *hold_reason = NULL;

    if (!ids || !back || !held || !which) {
        p->failures++;
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        struct ccas_node *node = ccas_cluster_find_node (p->model, names[i]);
        const struct ccas_slurm_node *sn = ccas_slurm_nodes_find (p->snodes, names[i]);
        struct ccas_bucket *b = ccas_slurm_node_bucket (p->model, p->layout, names[i], sn, why, sizeof (why));
        if (sn && !ccas_slurm_node_down (sn) && !ccas_slurm_node_powering_up (sn) &&
            !ccas_slurm_node_powered_down (sn)) {
            /* slurmctld marks a node that missed ResumeTimeout DOWN before it calls us; one
             * that is up now registered after all (the report raced it) and may run jobs */
            ccas_log (LOG_WARNING, "%s: reported failed, but it is up in Slurm%s: left alone", names[i],
                      ccas_slurm_node_busy (sn) ? " and running jobs" : "");
            continue;
        }
        if (node && node->kind == CCAS_NODE_FAILED && p->cfg->slurm.failed_vms == CCAS_CONF_FAILED_KEEP) {
            char reason[600];
            snprintf (reason, sizeof (reason), CCAS_POWER_KEPT "the VM failed (%s); kept for inspection",
                      node->status_message ? node->status_message : "no message");
            ccas_log (LOG_WARNING,
                      "%s: did not register in time; its VM failed and is kept (slurm.failed_vms)", names[i]);
            ccas_power_update (p, (const char *const *)&names[i], 1, CCAS_SLURM_DRAIN, reason);
            continue;
        }
        if (node && node->kind != CCAS_NODE_GOING) {
            if (node->keep_alive)
                ccas_log (LOG_WARNING, "%s: did not register in time, but is KeepAlive: VM kept", names[i]);
            else {
                which[nids] = names[i];
                ids[nids++] = node->node_id;
            }
            ccas_log (LOG_WARNING, "%s: never registered with Slurm (VM %s, %s%s%s)", names[i],
                      node->node_id ? node->node_id : "?", node->status ? node->status : "?",
                      node->status_message ? ": " : "", node->status_message ? node->status_message : "");
            if (b) {
                char what[300];
                snprintf (what, sizeof (what), "no slurmd before ResumeTimeout (%s)",
                          node->status ? node->status : "?");
                struct ccas_observation o = {.seen = CCAS_SEEN_BOOT_FAILED,
                                             .nodearray = b->na->name,
                                             .node = names[i],
                                             .message = what};
                ccas_policy_decide (p->pass->policy, p->model, &o, 1, NULL);
            }
        }
        const char *r =
            b ? ccas_holds_reason (p->pass->policy->holds, b->na->name, b->machine_type, p->now) : NULL;
        if (r) {
            held[nheld++] = names[i];
            hold_reason = r;
        } else
            back[nback++] = names[i];
    }
    if (nids) {
        ccas_power_say (p, LOG_NOTICE, "%sterminate %zu VM%s that did not boot in time",
                        p->dry_run ? "would " : "", nids, nids == 1 ? "" : "s");
        struct ccas_node_selector sel = {.ids = ids, .nids = nids};
        if (!p->dry_run &&
            ccas_ccapi_node_action (p->api, CCAS_ACTION_TERMINATE, &sel, NULL, &res, &err) < 0) {
            struct ccas_error gerr = {""};
            ccas_log (LOG_ERR, "%s (sync will terminate them)", err.text);
            p->failures++;
            if (ccas_slurm_giveback_add (p->cfg->state_dir, which, nids, p->now, "a resume-fail that failed",
                                         &gerr) < 0)
                ccas_log (LOG_WARNING, "%s", gerr.text);
        }
    }
    /* back into the pool: RESUME turns down~ into idle~ */
    ccas_power_return (p, back, nback);
    if (nheld)
        ccas_power_update (p, held, nheld, CCAS_SLURM_DRAIN, hold_reason);
done:
    ccas_action_result_destroy (res);
    free (ids);
    free (back);
    free (held);
    free (which);
    return p->failures ? -1 : 0;
}
