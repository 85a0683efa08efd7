/* SPDX-License-Identifier: MIT */
/* sync.c: reconcile Slurm and CycleCloud — orphans, failed VMs, addresses, holds.
 *
 * Run by a timer.  One Slurm node read, one status read, one nodes read, and
 * at most one terminate request; Slurm updates are grouped.  It never touches
 * a node whose reason an administrator set: only reasons that start with
 * "ccautoscale:" (and Slurm's own "ResumeTimeout reached") are ours to clear.
 */
#include "config.h"

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apply.h"
#include "failure.h"
#include "log.h"
#include "power.h"
#include "report.h"
#include "state.h"

/* libslurm exports scontrol's reconfigure, but Slurm 22.05's slurm.h does not
 * declare it. */
extern int slurm_reconfigure (void);

#define OUR_REASON "ccautoscale:"

struct sync_run {
    struct ccas_power *p;
    struct ccas_sync_report *rep;
    const struct ccas_node **term_nodes; /* VMs to terminate in one request */
    size_t nterm;
    const char **names;      /* scratch list for grouped updates */
};

static bool ours (const char *reason)
{
    return reason && (strncmp (reason, OUR_REASON, strlen (OUR_REASON)) == 0
                      || strcmp (reason, "ResumeTimeout reached") == 0);
}

static struct ccas_bucket *bucket_of (struct ccas_power *p, const struct ccas_slurm_node *sn)
{
    char why[300];
    return ccas_slurm_bucket_of (p->model, p->layout, sn->name, sn, why, sizeof (why));
}

/* ---- holds ------------------------------------------------------------------------------------- */

static void hold_ended (const char *nodearray, const char *machine_type, void *arg)
{
    struct sync_run *r = arg;
    struct ccas_power *p = r->p;
    struct ccas_bucket *b = ccas_cluster_bucket (p->model, nodearray, machine_type);
    size_t k = 0;
    ccas_power_say (p, LOG_NOTICE, "%s/%s: capacity window over; its nodes return to service", nodearray,
                    machine_type);
    for (size_t i = 0; b && i < ccas_slurm_nodes_count (p->snodes); i++) {
        const struct ccas_slurm_node *sn = ccas_slurm_nodes_at (p->snodes, i);
        if ((ccas_slurm_node_drained (sn) || ccas_slurm_node_down (sn)) && ours (sn->reason)
            && bucket_of (p, sn) == b)
            r->names[k++] = sn->name;
    }
    ccas_power_return (p, r->names, k);
    r->rep->released_holds++;
    r->rep->returned += (unsigned)k;
}

/* Powered-down nodes of held buckets stay drained; handed-back nodes reach
 * idle~ only after SuspendTimeout, so they are drained here. */
static void keep_held_drained (struct sync_run *r)
{
    struct ccas_power *p = r->p;
    for (size_t bi = 0; bi < p->model->nbuckets; bi++) {
        struct ccas_bucket *b = &p->model->buckets[bi];
        const char *reason = ccas_holds_reason (p->holds, b->na->name, b->machine_type, p->now);
        if (!reason)
            continue;
        size_t k = 0;
        for (size_t i = 0; i < ccas_slurm_nodes_count (p->snodes); i++) {
            const struct ccas_slurm_node *sn = ccas_slurm_nodes_at (p->snodes, i);
            if (ccas_slurm_node_powered_down (sn) && !ccas_slurm_node_drained (sn) && bucket_of (p, sn) == b
                && (!sn->reason || ours (sn->reason)))
                r->names[k++] = sn->name;
        }
        ccas_power_update (p, r->names, k, CCAS_SLURM_DRAIN, reason);
        r->rep->held += (unsigned)k;
    }
}

/* ---- VMs ------------------------------------------------------------------------------------------ */

static void terminate_later (struct sync_run *r, const struct ccas_node *n)
{
    if (n->node_id)
        r->term_nodes[r->nterm++] = n;
}

static void check_vm (struct sync_run *r, struct ccas_node *n)
{
    struct ccas_power *p = r->p;
    char reason[600];
    if (n->kind == CCAS_NODE_GOING || !n->name)
        return;
    const struct ccas_slurm_node *sn = ccas_slurm_nodes_find (p->snodes, n->name);
    char na[256];
    long index;
    if (!ccas_slurm_name_parse (p->layout, n->name, na, sizeof (na), &index))
        return; /* not a name we manage: someone else's node */
    bool orphan = !sn || ccas_slurm_node_powered_down (sn);
    if (orphan && !n->keep_alive) {
        ccas_power_say (p, LOG_NOTICE, "%s: orphan VM (%s in Slurm): %sterminate", n->name,
                        sn ? "powered down" : "unknown", p->dry_run ? "would " : "");
        terminate_later (r, n);
        r->rep->orphans++;
        return;
    }
    if (!sn)
        return;
    if (n->kind == CCAS_NODE_READY && !ccas_slurm_node_powered_down (sn) && !ccas_slurm_node_powering_up (sn))
        ccas_breaker_booted (p->breakers, n->nodearray);
    if (n->kind == CCAS_NODE_FAILED && ccas_slurm_node_powering_up (sn) && !n->keep_alive) {
        ccas_failure_reason (CCAS_CLASS_TRANSIENT, n->status_message ? n->status_message : "the VM failed", reason,
                             sizeof (reason));
        if (!p->dry_run) {
            char what[300];
            snprintf (what, sizeof (what), "%s: %s", n->name, n->status_message ? n->status_message : "Failed");
            ccas_breaker_boot_failed (p->breakers, p->holds, p->model, n->nodearray, what, p->now);
        }
        ccas_power_say (p, LOG_WARNING, "%s: VM failed while powering up: release it and requeue the job", n->name);
        terminate_later (r, n);
        ccas_power_handback (p, n->name, reason);
        r->rep->failed_released++;
        return;
    }
    bool set_addr = ccas_config_lookup_bool (p->cfg, "slurm.set_node_addr", true);
    if (set_addr && n->private_ip && !ccas_slurm_node_powered_down (sn)
        && (!sn->addr || strcmp (sn->addr, n->private_ip) != 0)) {
        const char *host = n->hostname ? n->hostname : n->name;
        if (p->dry_run)
            fprintf (p->out, "would set %s NodeAddr=%s NodeHostname=%s\n", n->name, n->private_ip, host);
        else {
            struct ccas_error err = { "" };
            if (ccas_slurm_set_addr (n->name, n->private_ip, host, &err) < 0) {
                ccas_log (LOG_WARNING, "%s", err.text);
                p->failures++;
            } else
                r->rep->addresses_set++;
        }
    }
}

/* down~ nodes we (or ResumeTimeout) took out, with no VM behind them, go
 * back to the pool unless their bucket is held. */
static void return_down_nodes (struct sync_run *r)
{
    struct ccas_power *p = r->p;
    size_t k = 0;
    for (size_t i = 0; i < ccas_slurm_nodes_count (p->snodes); i++) {
        const struct ccas_slurm_node *sn = ccas_slurm_nodes_at (p->snodes, i);
        if (!ccas_slurm_node_powered_down (sn) || !(ccas_slurm_node_down (sn) || ccas_slurm_node_drained (sn))
            || !ours (sn->reason))
            continue;
        struct ccas_bucket *b = bucket_of (p, sn);
        if (!b || ccas_holds_reason (p->holds, b->na->name, b->machine_type, p->now))
            continue;
        struct ccas_node *n = ccas_cluster_find_node (p->model, sn->name);
        if (n && n->kind != CCAS_NODE_GOING)
            continue; /* its VM is still there: the orphan pass terminates it first */
        r->names[k++] = sn->name;
    }
    ccas_power_return (p, r->names, k);
    r->rep->returned += (unsigned)k;
}

static void terminate_collected (struct sync_run *r)
{
    struct ccas_power *p = r->p;
    struct ccas_error err = { "" };
    struct ccas_action_result *res = NULL;
    if (!r->nterm || p->dry_run)
        return;
    const char **ids = calloc (r->nterm, sizeof (*ids));
    if (!ids) {
        ccas_log (LOG_ERR, "out of memory");
        p->failures++;
        return;
    }
    for (size_t i = 0; i < r->nterm; i++)
        ids[i] = r->term_nodes[i]->node_id;
    struct ccas_node_selector sel = { .ids = ids, .nids = r->nterm };
    int rc = ccas_ccapi_node_action (p->api, CCAS_ACTION_TERMINATE, &sel, NULL, &res, &err);
    free (ids);
    if (rc < 0) {
        ccas_log (LOG_ERR, "%s", err.text);
        p->failures++;
    } else
        for (size_t i = 0; i < r->nterm; i++)
            ccas_report_action (r->term_nodes[i]->kind == CCAS_NODE_FAILED ? "terminated" : "orphan_reaped",
                                CCAS_ACTION_TERMINATE, r->term_nodes[i],
                                r->term_nodes[i]->kind == CCAS_NODE_FAILED ? "failed while powering up" : "orphan VM",
                                res->operation_id);
    ccas_action_result_destroy (res);
}

/* KeepAlive nodes must never be suspended: keep them in SuspendExcNodes,
 * an include of the generated configuration.  Rewritten, and slurmctld
 * reconfigured, only when the set changes. */
static void keep_alive_excluded (struct sync_run *r)
{
    struct ccas_power *p = r->p;
    const char *dir = ccas_config_lookup_str (p->cfg, "slurm.conf_dir");
    const char *file = ccas_config_lookup_str (p->cfg, "slurm.keepalive_file");
    char path[4096], *old = NULL;
    size_t k = 0;
    if (!dir || !file || !*file)
        return;
    snprintf (path, sizeof (path), "%s/%s", dir, file);
    for (size_t i = 0; i < p->model->nexisting; i++) {
        const struct ccas_node *n = p->model->nodes[i];
        char na[256];
        long index;
        if (n->keep_alive && n->name && ccas_slurm_name_parse (p->layout, n->name, na, sizeof (na), &index)
            && ccas_slurm_nodes_find (p->snodes, n->name))
            r->names[k++] = n->name;
    }
    char *hl = k ? ccas_slurm_hostlist_compress (r->names, k) : NULL;
    char text[8192];
    snprintf (text, sizeof (text), "# Written by 'ccautoscale slurm sync': CycleCloud KeepAlive nodes.\n%s%s%s",
              hl ? "SuspendExcNodes=" : "# none\n", hl ? hl : "", hl ? "\n" : "");
    free (hl);
    FILE *f = fopen (path, "r");
    if (f) {
        old = calloc (1, sizeof (text));
        if (old && fread (old, 1, sizeof (text) - 1, f) == 0)
            old[0] = '\0';
        fclose (f);
    }
    bool same = old && strcmp (old, text) == 0;
    free (old);
    if (same)
        return;
    if (p->dry_run) {
        fprintf (p->out, "would write %s and reconfigure slurmctld:\n%s", path, text);
        return;
    }
    struct ccas_error err = { "" };
    if (ccas_write_atomic (path, text, strlen (text), 0644, &err) < 0) {
        ccas_log (LOG_ERR, "%s", err.text);
        p->failures++;
        return;
    }
    r->rep->keepalive_changed = true;
    ccas_log (LOG_NOTICE, "KeepAlive nodes changed; wrote %s", path);
    if (slurm_reconfigure () != 0) {
        ccas_log (LOG_ERR, "slurmctld reconfigure failed: %s", slurm_strerror (slurm_get_errno ()));
        p->failures++;
    }
}

/* Create requests a killed resume recorded and never settled: resume names
 * its nodes, so a re-run never creates them twice, but the record would stay. */
static void settle_requests (struct ccas_power *p)
{
    struct ccas_error err = { "" };
    struct ccas_state *st = ccas_state_load (p->cfg->state_dir, "requests", &err);
    if (!st || ccas_apply_reconcile (p->api, st, &err) < 0)
        ccas_log (LOG_WARNING, "settling earlier create requests: %s", err.text);
    ccas_state_destroy (st);
}

int ccas_power_sync (struct ccas_power *p, struct ccas_sync_report *rep)
{
    struct sync_run r = { .p = p, .rep = rep };
    size_t nslurm = ccas_slurm_nodes_count (p->snodes);
    memset (rep, 0, sizeof (*rep));
    r.term_nodes = calloc (p->model->nexisting + 1, sizeof (*r.term_nodes));
    r.names = calloc (nslurm + 1, sizeof (*r.names));
    if (!r.term_nodes || !r.names) {
        free (r.term_nodes);
        free (r.names);
        return -1;
    }
    if (!p->dry_run) {
        settle_requests (p);
        ccas_holds_expire (p->holds, p->now, hold_ended, &r);
    }
    keep_held_drained (&r);
    for (size_t i = 0; i < p->model->nexisting; i++)
        check_vm (&r, p->model->nodes[i]);
    terminate_collected (&r);
    return_down_nodes (&r);
    keep_alive_excluded (&r);
    ccas_power_flush (p);
    free (r.term_nodes);
    free (r.names);
    return p->failures ? -1 : 0;
}
