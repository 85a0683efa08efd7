/* SPDX-License-Identifier: MIT */
/* sync.c: reconcile Slurm and CycleCloud — zombies, failed VMs, cut resumes, addresses, holds, keep-alive.
 *
 * Run by a timer.  One Slurm node read, one status read, one nodes read, and
 * at most one terminate request; Slurm updates are grouped.  It never touches
 * a node whose reason an administrator set: only reasons that start with
 * "ccautoscale:" and Slurm's own "ResumeTimeout reached" and "Not responding"
 * are ours to clear.  It acts only on the VMs of the nodearrays it manages
 * (names.h, dynamic.h); anything else in the cluster is left alone.
 *
 * A VM behind a powered-down node (or one Slurm does not know) is a zombie.
 * One ccautoscale let go of and could not give back (giveback.h) is
 * terminated; any other is kept for inspection and its node marked down
 * (slurm.zombie_vms keep, as the stock azslurm), or terminated (terminate).
 * A Failed VM is released (slurm.failed_vms release) or kept, its node
 * drained (keep).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ccapi/failure.h"
#include "dynamic_nodes.h"
#include "engine/apply.h"
#include "engine/report.h"
#include "giveback.h"
#include "intent.h"
#include "keepalive.h"
#include "power.h"
#include "slurm_version.h"
#include "util/file.h"
#include "util/log.h"
#include "util/state.h"

struct sync_run {
    struct ccas_power *p;
    struct ccas_sync_report *rep;
    struct {
        const struct ccas_node *node;
        const char *why;
    } * term; /* VMs to terminate in one request */
    size_t nterm;
    json_object *boots_seen;        /* borrowed: name -> VM id of the boots counted (count_boot) */
    json_object *boots_now;         /* owned: the same as this run finds them */
    const char **names;             /* scratch list for grouped updates */
    struct ccas_slurm_traits slurm; /* what the slurmctld sync talks to does (slurm_version.h) */
    struct ccas_state *giveback;    /* names whose VMs ccautoscale let go of (giveback.h), or NULL */
    bool giveback_changed;
    struct ccas_state *keepalive; /* what keep-alive add and sync put in SuspendExcNodes, or NULL */
    const char **zombies;         /* nodes to mark down for their zombie VM */
    size_t nzombies;
    double ha_window;          /* an HA pair: how long a VM must stay an orphan (else 0) */
    json_object *orphans_seen; /* borrowed: name -> {vm, since} of the orphans found before */
    json_object *orphans_now;  /* owned: the same as this pass finds them */
};

static bool ours (const char *reason)
{
    return ccas_power_reason_ours (reason);
}

static struct ccas_bucket *bucket_of (struct ccas_power *p, const struct ccas_slurm_node *sn)
{
    char why[300];
    return ccas_slurm_node_bucket (p->model, p->layout, sn->name, sn, why, sizeof (why));
}

/* Powered-down nodes whose VM is kept for inspection stay drained (Slurm
 * clears a drain as it powers a node down); a zombie is down already. */
static void keep_kept_drained (struct sync_run *r)
{
    struct ccas_power *p = r->p;
    for (size_t i = 0; i < ccas_slurm_nodes_count (p->snodes); i++) {
        const struct ccas_slurm_node *sn = ccas_slurm_nodes_at (p->snodes, i);
        if (ccas_slurm_node_powered_down (sn) && ccas_power_reason_kept (sn->reason) &&
            !ccas_slurm_node_drained (sn) && !ccas_slurm_node_down (sn))
            ccas_power_update (p, &sn->name, 1, CCAS_SLURM_DRAIN, sn->reason);
    }
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
        if ((ccas_slurm_node_drained (sn) || ccas_slurm_node_down (sn)) && ours (sn->reason) &&
            bucket_of (p, sn) == b)
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
        const char *reason = ccas_holds_reason (p->pass->policy->holds, b->na->name, b->machine_type, p->now);
        if (!reason)
            continue;
        size_t k = 0;
        for (size_t i = 0; i < ccas_slurm_nodes_count (p->snodes); i++) {
            const struct ccas_slurm_node *sn = ccas_slurm_nodes_at (p->snodes, i);
            if (ccas_slurm_node_powered_down (sn) && !ccas_slurm_node_drained (sn) &&
                bucket_of (p, sn) == b && (!sn->reason || ours (sn->reason)))
                r->names[k++] = sn->name;
        }
        ccas_power_update (p, r->names, k, CCAS_SLURM_DRAIN, reason);
        r->rep->held += (unsigned)k;
    }
}

/* ---- VMs ------------------------------------------------------------------------------------------ */

/* Slurm's own reason for a node that stopped answering. */
static bool not_responding (const char *reason)
{
    return reason && strcmp (reason, "Not responding") == 0;
}

static void terminate_later (struct sync_run *r, const struct ccas_node *n, const char *why)
{
    if (!n->node_id)
        return;
    r->term[r->nterm].node = n;
    r->term[r->nterm++].why = why;
}

/* A VM sync may act on: of a nodearray ccautoscale manages (names.h), and
 * named as ccautoscale names that nodearray's nodes (<prefix><nodearray>-<n>,
 * within the layout or not: a VM of an autoscaled nodearray unknown to
 * Slurm is a zombie), or, in a dynamic nodearray (dynamic.h), named as a
 * Slurm node of that nodearray — a dynamic VM Slurm does not know may be
 * registering itself (slurmd -Z), and is left alone unless ccautoscale let
 * it go.  Anything else — a login node, a nodearray with autoscale off or
 * disabled in the configuration, a name ccautoscale never gives — is
 * someone else's. */
static bool managed_vm (struct sync_run *r, const struct ccas_node *n, const struct ccas_slurm_node *sn)
{
    char why[300];
    long index;
    if (ccas_slurm_dynamic_nodearray (r->p->model, n->nodearray)) {
        const struct ccas_bucket *b =
            sn ? ccas_slurm_node_bucket (r->p->model, r->p->layout, n->name, sn, why, sizeof (why)) : NULL;
        if ((b && strcmp (b->na->name, n->nodearray) == 0) ||
            (!sn && ccas_slurm_giveback_has (r->giveback, n->name)))
            return true;
        if (!sn)
            snprintf (why, sizeof (why), "Slurm has no such node (yet: slurmd -Z registers it)");
        else if (b)
            snprintf (why, sizeof (why), "its Slurm node is nodearray '%s''s", b->na->name);
    } else {
        const struct ccas_nodearray *na =
            ccas_slurm_nodearray_of (r->p->model, r->p->layout, n->name, &index, why, sizeof (why));
        if (na && !n->nodearray)
            snprintf (why, sizeof (why), "it has no nodearray (Template)");
        else if (na && strcmp (n->nodearray, na->name) != 0)
            snprintf (why, sizeof (why), "its name is nodearray '%s''s", na->name);
        else if (na)
            return true;
    }
    ccas_log (LOG_DEBUG, "%s: VM of nodearray '%s' left alone: %s", n->name,
              n->nodearray ? n->nodearray : "?", why);
    return false;
}

/* On an HA pair, whether orphan VM `n` has been one long enough to be
 * terminated.  After a takeover the controller's nodes come from
 * StateSaveLocation, where slurmctld writes them only now and then: a node
 * the other controller resumed just before it died can be powered down in
 * this one's view, with its job pending, until its slurmd registers again
 * (seconds once the VM is up).  So a VM is an orphan only when two passes
 * at least ha_window apart find it one (its id the same), and never while
 * it boots. */
static bool orphan_long_enough (struct sync_run *r, const struct ccas_node *n)
{
    json_object *was = NULL, *vm = NULL, *since = NULL;
    if (r->ha_window <= 0)
        return true;
    if (n->kind == CCAS_NODE_BOOTING || n->kind == CCAS_NODE_NEW) {
        ccas_log (LOG_INFO, "%s: VM booting behind a powered-down node: left until it is up (HA pair)",
                  n->name);
        return false;
    }
    double first = r->p->now;
    if (json_object_object_get_ex (r->orphans_seen, n->name, &was) &&
        json_object_object_get_ex (was, "vm", &vm) && json_object_object_get_ex (was, "since", &since) &&
        strcmp (json_object_get_string (vm), n->node_id) == 0)
        first = json_object_get_double (since);
    if (r->p->now - first >= r->ha_window)
        return true;
    if (r->orphans_now) {
        json_object *o = json_object_new_object ();
        json_object_object_add (o, "vm", json_object_new_string (n->node_id));
        json_object_object_add (o, "since", json_object_new_double (first));
        json_object_object_add (r->orphans_now, n->name, o);
    }
    ccas_power_say (
        r->p, LOG_NOTICE,
        "%s: orphan VM (powered down in Slurm) for %.0f s: terminated if still one after %.0f s (HA"
        " pair: after a takeover the controller's view of a node can be older than its VM)",
        n->name, r->p->now - first, r->ha_window);
    return false;
}

/* Terminated now: ccautoscale let it go (giveback.h), or slurm.zombie_vms
 * terminate, or a Failed VM under slurm.failed_vms release. */
static void reap (struct sync_run *r, const struct ccas_node *n, const struct ccas_slurm_node *sn,
                  const char *what)
{
    struct ccas_power *p = r->p;
    ccas_power_say (p, LOG_NOTICE, "%s: %s (%s in Slurm): %sterminate", n->name, what,
                    sn ? "powered down" : "unknown", p->dry_run ? "would " : "");
    terminate_later (r, n, what);
    r->rep->orphans++;
}

/* slurm.zombie_vms keep: the node marked down with a reason that says so
 * (one update for all, at the end), the VM left as it is.  A node out of
 * service for someone else's reason keeps it. */
static void keep_zombie (struct sync_run *r, const struct ccas_node *n, const struct ccas_slurm_node *sn)
{
    struct ccas_power *p = r->p;
    r->rep->zombies++;
    if (!sn) {
        ccas_power_say (p, LOG_WARNING,
                        "%s: VM %s of nodearray '%s' is not a Slurm node: kept (slurm.zombie_vms keep;"
                        " 'ccautoscale terminate' gives it back)",
                        n->name, n->status ? n->status : "?", n->nodearray ? n->nodearray : "?");
        return;
    }
    if (ccas_slurm_node_down (sn) && (ccas_power_reason_kept (sn->reason) || !ours (sn->reason)))
        return; /* marked already, or down for someone else's reason */
    if (sn->reason && !ours (sn->reason) && !not_responding (sn->reason)) {
        ccas_log (LOG_NOTICE, "%s: zombie VM %s; its reason '%s' is not ccautoscale's: left as it is",
                  n->name, n->node_id ? n->node_id : "?", sn->reason);
        return;
    }
    ccas_power_say (
        p, LOG_WARNING, "%s: zombie VM %s (%s behind a powered-down node): %smark the node down, keep the VM",
        n->name, n->node_id ? n->node_id : "?", n->status ? n->status : "there", p->dry_run ? "would " : "");
    r->zombies[r->nzombies++] = sn->name;
}

/* The zombies' nodes down, in one update. */
static void mark_zombies (struct sync_run *r)
{
    ccas_power_update (r->p, r->zombies, r->nzombies, CCAS_SLURM_DOWN,
                       CCAS_POWER_ZOMBIE
                       "a VM nobody asked for is there; kept for inspection ('ccautoscale slurm"
                       " remove-nodes NODE' gives it back)");
}

/* A VM behind a powered-down node, or one Slurm does not know. */
static void behind_powered_down (struct sync_run *r, const struct ccas_node *n,
                                 const struct ccas_slurm_node *sn)
{
    struct ccas_power *p = r->p;
    bool let_go = ccas_slurm_giveback_has (r->giveback, n->name);
    if (n->keep_alive || ccas_slurm_keepalive_has (r->keepalive, n->name))
        return;
    if (sn && n->kind == CCAS_NODE_STOPPED && !let_go) {
        /* deallocated on purpose (suspend_action deallocate, ShutdownPolicy
         * Deallocate): resume starts it again instead of creating a VM */
        ccas_log (LOG_DEBUG, "%s: deallocated VM behind a powered-down node: kept for resume to start",
                  n->name);
        return;
    }
    /* On an HA pair a VM is taken for a zombie only once it has been one
     * long enough (orphan_long_enough): after a takeover this controller's
     * view of a node can be older than its VM. */
    if (!n->node_id || !orphan_long_enough (r, n))
        return;
    if (let_go) {
        reap (r, n, sn, "VM ccautoscale let go of");
        return;
    }
    if (sn && sn->reason && strncmp (sn->reason, CCAS_POWER_KEPT, strlen (CCAS_POWER_KEPT)) == 0) {
        ccas_log (LOG_DEBUG, "%s: VM kept for inspection (%s)", n->name, sn->reason);
        r->rep->failed_kept += n->kind == CCAS_NODE_FAILED;
        return;
    }
    if (n->kind == CCAS_NODE_FAILED) {
        if (p->cfg->slurm.failed_vms == CCAS_CONF_FAILED_KEEP) {
            r->rep->failed_kept++;
            ccas_log (LOG_INFO, "%s: Failed VM behind a powered-down node: kept (slurm.failed_vms keep)",
                      n->name);
            return;
        }
        reap (r, n, sn, "Failed VM");
        return;
    }
    if (p->cfg->slurm.zombie_vms == CCAS_CONF_ZOMBIE_TERMINATE)
        reap (r, n, sn, "orphan VM");
    else
        keep_zombie (r, n, sn);
}

/* A VM that failed for want of capacity (Azure's AllocationFailed arrives on
 * the VM, after the create or start was accepted) holds its bucket like a
 * capacity failure in the create's answer; any other failure of a VM that
 * was powering up is a boot failure the breaker counts. */
static enum ccas_failure_class vm_failure (struct sync_run *r, const struct ccas_node *n, bool booting)
{
    struct ccas_observation o = ccas_policy_observe_vm (n, booting);
    ccas_policy_decide (r->p->pass->policy, r->p->model, &o, 1, NULL);
    return o.cls;
}

/* A Failed VM behind a node Slurm has not powered down.  A node powering up
 * never got its VM: released, the job requeued.  A node that is up lost its
 * VM after it registered (CycleCloud also says Failed when only the node's
 * software failed): never while a job runs there, and an idle one is first
 * drained — Slurm's view was read before CycleCloud answered, and a job may
 * have started there since — and released by a later run once drained and
 * still idle; one Slurm finds not responding is released at once.  A node
 * whose reason an administrator set is left as it is: only they may clear
 * it. */
static void failed_vm (struct sync_run *r, const struct ccas_node *n, const struct ccas_slurm_node *sn)
{
    struct ccas_power *p = r->p;
    char reason[600];
    bool booting = ccas_slurm_node_powering_up (sn);
    const char *msg = n->status_message ? n->status_message : "the VM failed";
    if (n->keep_alive)
        return;
    if (!booting && ccas_slurm_node_busy (sn)) {
        ccas_log (LOG_WARNING, "%s: VM Failed (%s) but a job runs there: left alone", n->name, msg);
        return;
    }
    if (sn->reason && !ours (sn->reason) && !not_responding (sn->reason)) {
        ccas_log (LOG_NOTICE, "%s: VM Failed (%s); its reason '%s' is not ccautoscale's: left as it is",
                  n->name, msg, sn->reason);
        return;
    }
    if (ccas_power_reason_kept (sn->reason)) {
        r->rep->failed_kept++; /* kept by an earlier pass: counted once, drained already */
        return;
    }
    if (p->cfg->slurm.failed_vms == CCAS_CONF_FAILED_KEEP) {
        snprintf (reason, sizeof (reason), CCAS_POWER_KEPT "the VM failed (%s); kept for inspection", msg);
        vm_failure (r, n, booting);
        r->rep->failed_kept++;
        ccas_power_say (p, LOG_WARNING, "%s: VM failed %s: %s%s; the VM is kept (slurm.failed_vms keep)",
                        n->name, booting ? "while powering up" : "after it registered",
                        p->dry_run ? "would " : "",
                        booting ? "hand the node back (its job requeued)" : "drain the node");
        if (booting)
            ccas_power_handback (p, n->name, reason);
        else
            ccas_power_update (p, &n->name, 1, CCAS_SLURM_DRAIN, reason);
        return;
    }
    enum ccas_failure_class cls = vm_failure (r, n, booting);
    ccas_failure_reason (cls, msg, reason, sizeof (reason));
    if (!booting && !ccas_slurm_node_down (sn) && !(ccas_slurm_node_drained (sn) && ours (sn->reason))) {
        const char *name = n->name;
        ccas_power_say (p, LOG_WARNING,
                        "%s: VM failed after it registered: %sdrain it; released once drained and idle",
                        n->name, p->dry_run ? "would " : "");
        ccas_power_update (p, &name, 1, CCAS_SLURM_DRAIN, reason);
        return;
    }
    ccas_power_say (p, LOG_WARNING, "%s: VM failed %s: %srelease it%s", n->name,
                    booting ? "while powering up" : "after it registered", p->dry_run ? "would " : "",
                    booting ? " and requeue the job" : "");
    terminate_later (r, n, booting ? "failed while powering up" : "failed");
    ccas_power_handback (p, n->name, reason);
    r->rep->failed_released++;
}

/* A boot counts once: the first run that finds the node registered and its
 * VM Ready resets the nodearray's count of consecutive boot failures.  Were
 * every run to count every node that is up, one long-running node would
 * wipe the count each minute and K failures in a row would never add up.
 * The nodes counted are kept with their VM's id in state_dir/slurm_boots.json
 * while their VM lives and Slurm has not powered them down: a node that is
 * powered down and boots again (or gets a new VM) counts again; one that
 * reboots, or is down for a run, does not. */
static void count_boot (struct sync_run *r, const struct ccas_node *n, const struct ccas_slurm_node *sn)
{
    json_object *was = NULL;
    if (!r->boots_now || !n->node_id)
        return;
    bool seen = json_object_object_get_ex (r->boots_seen, n->name, &was) &&
                json_object_is_type (was, json_type_string) &&
                strcmp (json_object_get_string (was), n->node_id) == 0;
    bool up = n->kind == CCAS_NODE_READY && !ccas_slurm_node_powering_up (sn) && !ccas_slurm_node_down (sn);
    if (!up && !seen)
        return;
    /* a node counted once stays counted while its VM lives and Slurm has not
     * powered it down, through a run that finds it down or without an address */
    if (up && !seen) {
        ccas_log (LOG_DEBUG, "%s: booted and registered; %s's boot failures count from zero again", n->name,
                  n->nodearray ? n->nodearray : "?");
        struct ccas_observation o = {.seen = CCAS_SEEN_BOOTED, .nodearray = n->nodearray, .node = n->name};
        ccas_policy_decide (r->p->pass->policy, r->p->model, &o, 1, NULL);
    }
    json_object_object_add (r->boots_now, n->name, json_object_new_string (n->node_id));
}

/* NodeAddr and NodeHostname from the VM, unless slurmctld sets them itself
 * when the node registers (23.11+, or cloud_reg_addrs): it would undo them at
 * the next registration, and sync would set them again every run.  Whether
 * to is the nodearray's (intent.h: slurm.set_node_addr, else the template's
 * slurm.use_nodename_as_hostname turns it off). */
static void set_address (struct sync_run *r, const struct ccas_node *n, const struct ccas_slurm_node *sn)
{
    struct ccas_power *p = r->p;
    const struct ccas_slurm_intent *it =
        n->bucket ? ccas_slurm_intent_of (p->layout->intents, p->model, n->bucket->na) : NULL;
    bool set_addr = (it ? it->set_node_addr : p->cfg->slurm.set_node_addr) && !r->slurm.sets_cloud_addrs;
    if (!set_addr || !n->private_ip || (sn->addr && strcmp (sn->addr, n->private_ip) == 0))
        return;
    const char *host = n->hostname ? n->hostname : n->name;
    if (p->dry_run) {
        fprintf (p->out, "would set %s NodeAddr=%s NodeHostname=%s\n", n->name, n->private_ip, host);
        return;
    }
    struct ccas_error err = {""};
    if (ccas_slurm_set_addr (n->name, n->private_ip, host, &err) < 0) {
        ccas_log (LOG_WARNING, "%s", err.text);
        p->failures++;
    } else
        r->rep->addresses_set++;
}

static void check_vm (struct sync_run *r, struct ccas_node *n)
{
    if (n->kind == CCAS_NODE_GOING || !n->name)
        return;
    const struct ccas_slurm_node *sn = ccas_slurm_nodes_find (r->p->snodes, n->name);
    if (!managed_vm (r, n, sn))
        return;
    if (sn && !ccas_slurm_node_powered_down (sn) && !ccas_slurm_node_powering_down (sn) &&
        ccas_slurm_giveback_has (r->giveback, n->name)) {
        /* Slurm wants the node again: its VM is its own */
        ccas_slurm_giveback_forget (r->giveback, n->name);
        r->giveback_changed = true;
    }
    /* A job on a node Slurm calls powered down: the node's state is older
     * than its VM — an HA takeover loads nodes from StateSaveLocation,
     * which slurmctld rewrites only now and then (up to 5 minutes), jobs
     * sooner — so the VM is the job's, not a zombie. */
    if (!sn || (ccas_slurm_node_powered_down (sn) && !ccas_slurm_node_busy (sn)))
        behind_powered_down (r, n, sn);
    else if (n->kind == CCAS_NODE_FAILED)
        failed_vm (r, n, sn);
    else {
        count_boot (r, n, sn);
        set_address (r, n, sn);
    }
}

/* Nodes with no VM to run on: none in CycleCloud, one going away, or one
 * deallocated (resume starts it).  A Failed VM is check_vm's. */
static bool no_vm (struct sync_run *r, const char *name)
{
    const struct ccas_node *n = ccas_cluster_find_node (r->p->model, name);
    return !n || n->kind == CCAS_NODE_GOING || n->kind == CCAS_NODE_STOPPED;
}

/* Nodes out of service for a reason of ours (or ResumeTimeout's, or Slurm's
 * "Not responding"), with no VM behind them, go back to the pool unless
 * their bucket is held: down~ and drain~ ones are returned to service; a
 * DOWN one that Slurm has not powered down (its VM vanished after it
 * registered) is handed back, which powers it down.  A node whose VM is
 * still there waits: the orphans' step terminates it first. */
static void return_down_nodes (struct sync_run *r)
{
    struct ccas_power *p = r->p;
    size_t k = 0;
    char msg[400], reason[600];
    for (size_t i = 0; i < ccas_slurm_nodes_count (p->snodes); i++) {
        const struct ccas_slurm_node *sn = ccas_slurm_nodes_at (p->snodes, i);
        bool powered_down = ccas_slurm_node_powered_down (sn);
        if (!(ours (sn->reason) || not_responding (sn->reason)) || ccas_slurm_node_powering_up (sn) ||
            ccas_slurm_node_powering_down (sn))
            continue;
        if (powered_down ? !(ccas_slurm_node_down (sn) || ccas_slurm_node_drained (sn))
                         : !ccas_slurm_node_down (sn))
            continue;
        struct ccas_bucket *b = bucket_of (p, sn);
        if (!b || ccas_holds_reason (p->pass->policy->holds, b->na->name, b->machine_type, p->now) ||
            !no_vm (r, sn->name))
            continue;
        if (powered_down)
            r->names[k++] = sn->name;
        else {
            ccas_power_say (p, LOG_NOTICE, "%s: down (%s) and its VM is gone: %shand it back", sn->name,
                            sn->reason, p->dry_run ? "would " : "");
            snprintf (msg, sizeof (msg), "the VM is gone (was: %s)", sn->reason);
            ccas_power_handback (p, sn->name,
                                 ccas_failure_reason (CCAS_CLASS_TRANSIENT, msg, reason, sizeof (reason)));
            r->rep->returned++;
        }
    }
    ccas_power_return (p, r->names, k);
    r->rep->returned += (unsigned)k;
}

/* Nodes Slurm is powering up that have no VM (none, or a deallocated one),
 * while no resume runs — sync holds the lock the resume program takes:
 * a resume that was cut short or never ran.  On an HA pair that is a
 * controller that died during a resume: the other takes over with the
 * nodes powering up and never runs ResumeProgram for them again, so
 * without this their jobs wait for ResumeTimeout.  They are resumed here as
 * the resume program would resume them (ccas_power_resume: VMs by name, so
 * never twice).  A resume program that slurmctld started and that waits for
 * the lock finds the VMs there and leaves them alone.  Only nodes with a
 * job on them, of the nodearrays ccautoscale manages: an HA takeover also
 * loads nodes powering up long ago from a stale save, their VMs since
 * suspended, and those wait for no job. */
static void resume_interrupted (struct sync_run *r)
{
    struct ccas_power *p = r->p;
    size_t n = ccas_slurm_nodes_count (p->snodes), k = 0;
    char **names = calloc (n + 1, sizeof (*names));
    if (!names) {
        ccas_log (LOG_ERR, "out of memory");
        p->failures++;
        return;
    }
    for (size_t i = 0; i < n; i++) {
        const struct ccas_slurm_node *sn = ccas_slurm_nodes_at (p->snodes, i);
        const struct ccas_node *vm = ccas_cluster_find_node (p->model, sn->name);
        if (ccas_slurm_node_powering_up (sn) && ccas_slurm_node_busy (sn) &&
            (!vm || vm->kind == CCAS_NODE_STOPPED) && bucket_of (p, sn))
            names[k++] = (char *)sn->name; /* borrowed from p->snodes, which outlives the resume */
    }
    if (k) {
        char *hl = ccas_slurm_hostlist_compress ((const char *const *)names, k);
        ccas_power_say (p, LOG_NOTICE,
                        "%s: powering up in Slurm with no VM and no resume running (a resume cut short, or"
                        " the controller that ran it gone): %sresume %s",
                        hl ? hl : "?", p->dry_run ? "would " : "", k == 1 ? "it" : "them");
        free (hl);
        ccas_power_resume (p, names, k, NULL);
        r->rep->resumed += (unsigned)k;
    }
    free (names);
}

static void terminate_collected (struct sync_run *r)
{
    struct ccas_power *p = r->p;
    struct ccas_error err = {""};
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
        ids[i] = r->term[i].node->node_id;
    struct ccas_node_selector sel = {.ids = ids, .nids = r->nterm};
    int rc = ccas_ccapi_node_action (p->api, CCAS_ACTION_TERMINATE, &sel, NULL, &res, &err);
    free (ids);
    if (rc < 0) {
        ccas_log (LOG_ERR, "%s", err.text);
        p->failures++;
    } else
        for (size_t i = 0; i < r->nterm; i++) {
            ccas_report_action (r->term[i].node->kind == CCAS_NODE_FAILED ? "terminated" : "orphan_reaped",
                                CCAS_ACTION_TERMINATE, r->term[i].node, r->term[i].why, res->operation_id);
            if (ccas_slurm_giveback_has (r->giveback, r->term[i].node->name)) {
                ccas_slurm_giveback_forget (r->giveback, r->term[i].node->name); /* given back now */
                r->giveback_changed = true;
            }
        }
    ccas_action_result_destroy (res);
}

/* KeepAlive VMs must never be powered down: their nodes go into
 * SuspendExcNodes (keepalive.h).  Sync takes out only the names it put in
 * itself ("synced"), once their VM is no longer KeepAlive, and not while
 * 'slurm keep-alive add' keeps them: the command's names and the
 * administrator's own stay. */
static void keep_alive_excluded (struct sync_run *r)
{
    struct ccas_power *p = r->p;
    struct ccas_error err = {""};
    struct ccas_slurm_keepalive_change ch;
    json_object *synced = NULL;
    size_t nwant = 0, nremove = 0;
    if (!r->keepalive)
        return;
    json_object *root = ccas_state_root (r->keepalive);
    if (!json_object_object_get_ex (root, "synced", &synced) ||
        !json_object_is_type (synced, json_type_object)) {
        synced = json_object_new_object ();
        json_object_object_add (root, "synced", synced);
    }
    char **want = calloc (p->model->nexisting + 1, sizeof (*want));
    char **remove = calloc ((size_t)json_object_object_length (synced) + 1, sizeof (*remove));
    if (!want || !remove)
        goto done;
    for (size_t i = 0; i < p->model->nexisting; i++) {
        const struct ccas_node *n = p->model->nodes[i];
        const struct ccas_slurm_node *sn = n->name ? ccas_slurm_nodes_find (p->snodes, n->name) : NULL;
        if (n->keep_alive && sn && n->kind != CCAS_NODE_GOING && managed_vm (r, n, sn))
            want[nwant++] = (char *)n->name;
    }
    json_object_object_foreach (synced, name, v)
    {
        bool wanted = false;
        (void)v;
        for (size_t i = 0; i < nwant && !wanted; i++)
            wanted = strcmp (want[i], name) == 0;
        if (!wanted && !ccas_slurm_keepalive_has (r->keepalive, name))
            remove[nremove++] = name;
    }
    if (ccas_slurm_keepalive_change (p, &r->slurm, want, nwant, remove, nremove, &ch, &err) < 0) {
        ccas_log (LOG_ERR, "SuspendExcNodes: %s", err.text);
        p->failures++;
    }
    r->rep->keepalive_changed = ch.nadded || ch.nremoved || ch.include_written;
    for (size_t i = 0; i < ch.nadded; i++)
        json_object_object_add (synced, ch.added[i], json_object_new_double (p->now));
    for (size_t i = 0; i < ch.nremoved; i++)
        json_object_object_del (synced, ch.removed[i]);
    if ((ch.nadded || ch.nremoved) && !p->dry_run && ccas_state_save (r->keepalive, &err) < 0)
        ccas_log (LOG_WARNING, "%s", err.text);
    ccas_slurm_keepalive_change_release (&ch);
done:
    free (want);
    free (remove);
}

/* slurm.dynamic_delete: the dynamic records 'slurm dynamic add' made go once
 * Slurm has powered them down and their VM is gone (one Slurm request). */
static void delete_dynamic_records (struct sync_run *r)
{
    struct ccas_power *p = r->p;
    struct ccas_error err = {""};
    struct ccas_state *st;
    size_t k = 0;
    if (!p->cfg->slurm.dynamic_delete)
        return;
    if (!(st = ccas_slurm_dynamic_nodes_load (p->cfg->state_dir, &err))) {
        ccas_log (LOG_WARNING, "%s", err.text);
        return;
    }
    char **names = calloc (ccas_slurm_nodes_count (p->snodes) + 1, sizeof (*names));
    for (size_t i = 0; names && i < ccas_slurm_nodes_count (p->snodes); i++) {
        const struct ccas_slurm_node *sn = ccas_slurm_nodes_at (p->snodes, i);
        const struct ccas_node *n = ccas_cluster_find_node (p->model, sn->name);
        if (ccas_slurm_dynamic_nodes_ours (st, sn->name) && ccas_slurm_node_dynamic (sn) &&
            ccas_slurm_node_powered_down (sn) && !ccas_slurm_node_powering_down (sn) &&
            !ccas_slurm_node_down (sn) && !ccas_slurm_node_drained (sn) && (!n || n->kind == CCAS_NODE_GOING))
            names[k++] = (char *)sn->name;
    }
    char *hl = k ? ccas_slurm_hostlist_compress ((const char *const *)names, k) : NULL;
    if (hl && p->dry_run)
        fprintf (p->out, "would delete dynamic node records %s (slurm.dynamic_delete)\n", hl);
    else if (hl && ccas_slurm_delete_nodes (hl, &err) < 0) {
        ccas_log (LOG_ERR, "%s", err.text);
        p->failures++;
    } else if (hl) {
        ccas_log (LOG_NOTICE, "deleted dynamic node records %s: powered down, no VM (slurm.dynamic_delete)",
                  hl);
        r->rep->records_deleted += (unsigned)k;
        if (ccas_slurm_dynamic_nodes_forget (p->cfg->state_dir, names, k, p->now, &err) < 0)
            ccas_log (LOG_WARNING, "%s", err.text);
    }
    free (hl);
    free (names);
    ccas_state_destroy (st);
}

/* The names ccautoscale let go of whose VM is gone are done with. */
static void save_giveback (struct sync_run *r)
{
    struct ccas_error err = {""};
    const char *done[256];
    size_t k = 0;
    if (!r->giveback)
        return;
    json_object_object_foreach (ccas_state_root (r->giveback), name, v)
    {
        const struct ccas_node *n = ccas_cluster_find_node (r->p->model, name);
        (void)v;
        if ((!n || n->kind == CCAS_NODE_GOING) && k < sizeof (done) / sizeof (done[0]))
            done[k++] = name;
    }
    for (size_t i = 0; i < k; i++)
        json_object_object_del (ccas_state_root (r->giveback), done[i]);
    if ((k || r->giveback_changed) && !r->p->dry_run && ccas_state_save (r->giveback, &err) < 0)
        ccas_log (LOG_WARNING, "%s", err.text);
    ccas_state_destroy (r->giveback);
    r->giveback = NULL;
}

/* Create requests a killed resume recorded and never settled: resume names
 * its nodes, so a re-run never creates them twice, but the record would stay. */
static void settle_requests (struct ccas_power *p)
{
    struct ccas_error err = {""};
    struct ccas_state *st = ccas_power_requests (p, &err);
    if (!st || ccas_apply_reconcile (p->api, st, &err) < 0)
        ccas_log (LOG_WARNING, "settling earlier create requests: %s", err.text);
    ccas_state_destroy (st);
}

/* The boots counted by earlier runs (count_boot); without them nothing is counted. */
static struct ccas_state *load_boots (struct sync_run *r)
{
    struct ccas_error err = {""};
    struct ccas_state *st = ccas_state_load (r->p->cfg->state_dir, "slurm_boots", &err);
    /* (a newer ccautoscale's file is left as it is) */
    if (!st && errno != ENOTSUP && !r->p->dry_run) {
        /* bookkeeping, not configuration: kept aside, and started afresh */
        char path[4096], bad[4200];
        snprintf (path, sizeof (path), "%s/slurm_boots.json", r->p->cfg->state_dir);
        snprintf (bad, sizeof (bad), "%s.bad", path);
        ccas_log (LOG_WARNING, "%s; kept as %s, started afresh", err.text, bad);
        if (rename (path, bad) == 0)
            st = ccas_state_load (r->p->cfg->state_dir, "slurm_boots", &err);
    }
    if (!st) {
        ccas_log (LOG_WARNING, "%s; boots are not counted for the breaker this pass", err.text);
        return NULL;
    }
    if (!json_object_object_get_ex (ccas_state_root (st), "up", &r->boots_seen) ||
        !json_object_is_type (r->boots_seen, json_type_object))
        r->boots_seen = NULL;
    r->boots_now = json_object_new_object ();
    return st;
}

/* The orphans an HA pair's earlier passes found (orphan_long_enough). */
static struct ccas_state *load_orphans (struct sync_run *r)
{
    struct ccas_error err = {""};
    struct ccas_state_salvage sv;
    if (r->ha_window <= 0)
        return NULL;
    struct ccas_state *st = ccas_state_load_salvage (r->p->cfg->state_dir, "slurm_orphans", &sv, &err);
    if (!st) {
        ccas_log (LOG_WARNING, "%s; orphans are left this pass", err.text);
        r->ha_window = 1e9; /* no record of when they were found: none is old enough */
        return NULL;
    }
    r->orphans_seen = ccas_state_root (st);
    r->orphans_now = json_object_new_object ();
    return st;
}

static void save_orphans (struct sync_run *r, struct ccas_state *st)
{
    struct ccas_error err = {""};
    if (st && !r->p->dry_run) {
        /* the file holds this pass's orphans, no others (json-c's foreach
         * takes the next entry before the body: deleting this one is safe) */
        json_object *root = ccas_state_root (st);
        json_object_object_foreach (root, name, was)
        {
            (void)was;
            if (!json_object_object_get_ex (r->orphans_now, name, NULL))
                json_object_object_del (root, name);
        }
        json_object_object_foreach (r->orphans_now, key, now)
        {
            json_object_object_add (root, key, json_object_get (now));
        }
        if (ccas_state_save (st, &err) < 0)
            ccas_log (LOG_WARNING, "%s", err.text);
    }
    json_object_put (r->orphans_now);
    r->orphans_now = NULL;
    ccas_state_destroy (st);
}

static void save_boots (struct sync_run *r, struct ccas_state *st)
{
    struct ccas_error err = {""};
    if (!st)
        return;
    if (!r->p->dry_run) {
        json_object_object_add (ccas_state_root (st), "up", r->boots_now);
        r->boots_now = NULL;
        if (ccas_state_save (st, &err) < 0)
            ccas_log (LOG_WARNING, "%s", err.text);
    }
    json_object_put (r->boots_now);
    ccas_state_destroy (st);
}

/* A nodearray disabled in the configuration keeps the VMs it already has:
 * sync leaves them alone (they may be someone else's), so say each run that
 * they are there, and how to give them back. */
static void warn_disabled (struct sync_run *r)
{
    const struct ccas_cluster *c = r->p->model;
    for (size_t a = 0; a < c->nnodearrays; a++) {
        const struct ccas_nodearray *na = &c->nodearrays[a];
        size_t vms = 0;
        if (na->enabled || !na->st->autoscale_enabled)
            continue; /* managed, or not ccautoscale's (login nodes) */
        for (size_t i = 0; i < c->nexisting; i++)
            vms += c->nodes[i]->nodearray && strcmp (c->nodes[i]->nodearray, na->name) == 0 &&
                   c->nodes[i]->kind != CCAS_NODE_GOING;
        if (vms)
            ccas_log (LOG_WARNING,
                      "nodearray '%s' is disabled in the configuration: its %zu VM%s left alone"
                      " (give them back with 'ccautoscale terminate', or enable it again)",
                      na->name, vms, vms == 1 ? " is" : "s are");
    }
}

/* The slurmctld's version and SlurmctldParameters decide what sync leaves to
 * it; if it does not say, the libslurm's version stands in. */
static void load_traits (struct sync_run *r)
{
    struct ccas_error err = {""};
    struct ccas_slurm_controller ctl;
    if (ccas_slurm_traits_load (&r->slurm, &ctl, &err) == 0) {
        if (ctl.controllers > 1)
            r->ha_window = 2.0 * ctl.slurmctld_timeout + 10;
    } else
        ccas_log (LOG_WARNING, "%s; assuming Slurm %s, the libslurm ccautoscale was built against", err.text,
                  r->slurm.text);
    if (r->slurm.sets_cloud_addrs && r->p->cfg->slurm.set_node_addr)
        ccas_log (LOG_DEBUG, "slurmctld %s sets NodeAddr and NodeHostname when a node registers: left to it",
                  r->slurm.text);
}

int ccas_power_sync (struct ccas_power *p, struct ccas_sync_report *rep)
{
    struct sync_run r = {.p = p, .rep = rep};
    size_t nslurm = ccas_slurm_nodes_count (p->snodes);
    memset (rep, 0, sizeof (*rep));
    r.term = calloc (p->model->nexisting + 1, sizeof (*r.term));
    r.names = calloc (nslurm + 1, sizeof (*r.names));
    r.zombies = calloc (p->model->nexisting + 1, sizeof (*r.zombies));
    if (!r.term || !r.names || !r.zombies) {
        free (r.term);
        free (r.names);
        free (r.zombies);
        return -1;
    }
    if (!p->dry_run) {
        settle_requests (p);
        ccas_holds_expire (p->pass->policy->holds, p->now, hold_ended, &r);
    }
    load_traits (&r);
    struct ccas_error err = {""};
    if (!(r.giveback = ccas_slurm_giveback_load (p->cfg->state_dir, &err)))
        ccas_log (LOG_WARNING, "%s", err.text);
    if (!(r.keepalive = ccas_slurm_keepalive_load (p->cfg->state_dir, &err)))
        ccas_log (LOG_WARNING, "%s", err.text);
    struct ccas_state *boots = load_boots (&r);
    struct ccas_state *orphans = load_orphans (&r);
    warn_disabled (&r);
    keep_held_drained (&r);
    keep_kept_drained (&r);
    for (size_t i = 0; i < p->model->nexisting; i++)
        check_vm (&r, p->model->nodes[i]);
    save_boots (&r, boots);
    mark_zombies (&r);
    save_orphans (&r, orphans);
    terminate_collected (&r);
    save_giveback (&r);
    resume_interrupted (&r);
    return_down_nodes (&r);
    keep_alive_excluded (&r);
    delete_dynamic_records (&r);
    ccas_power_flush (p);
    ccas_state_destroy (r.keepalive);
    free (r.term);
    free (r.names);
    free (r.zombies);
    return p->failures ? -1 : 0;
}
