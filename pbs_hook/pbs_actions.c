/* SPDX-License-Identifier: MIT */
/* pbs_actions.c: join, drain, delete and forget PBS nodes around a plan. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "pbs_actions.h"
#include "pbs_cmds.h"
#include "util/events.h"
#include "util/failpoint.h"
#include "util/log.h"

static struct ccas_pbs_action *add (struct ccas_pbs_actions *a, size_t *cap, enum ccas_pbs_act_kind kind,
                                    const char *host, struct ccas_node *n, struct ccas_pbs_node *p,
                                    const char *why)
{
    if (a->n == *cap) {
        size_t c = *cap ? *cap * 2 : 16;
        struct ccas_pbs_action *v = realloc (a->v, c * sizeof (*v));
        if (!v)
            return NULL;
        a->v = v;
        *cap = c;
    }
    struct ccas_pbs_action *x = &a->v[a->n++];
    memset (x, 0, sizeof (*x));
    x->kind = kind;
    x->host = host;
    x->node = n;
    x->pbs = p;
    snprintf (x->why, sizeof (x->why), "%s", why ? why : "");
    return x;
}

/* Sort the plan's terminations into what PBS must do first; keep those that
 * may go now.  Returns -1 when out of memory. */
static int sort_terminations (struct ccas_plan *plan, struct ccas_pbs_nodes *pnodes,
                              struct ccas_pbs_actions *a, size_t *cap)
{
    size_t kept = 0;
    for (size_t i = 0; i < plan->nterminates; i++) {
        struct ccas_plan_action *t = &plan->terminates[i];
        struct ccas_pbs_node *p = ccas_pbs_nodes_find (pnodes, t->node);
        bool idle = t->node->kind == CCAS_NODE_READY || t->node->kind == CCAS_NODE_STOPPED;
        const char *host = p ? p->name : ccas_pbs_host (t->node);
        if (p && idle && (ccas_pbs_node_joining (p) || (p->down && !p->reported && !p->njobs))) {
            /* never online, or its mom never reported: nothing ever ran there, no drain needed */
            if (!add (a, cap, CCAS_PBS_DELETE, host, t->node, p, t->reason))
                return -1;
            plan->terminates[kept++] = *t;
            continue;
        }
        if (p && idle && p->offline && !ccas_pbs_node_draining (p)) {
            ccas_log (LOG_INFO, "pbs: %s: offline by the administrator (%s); not given back", host,
                      p->comment ? p->comment : "no comment");
            continue;
        }
        if (p && idle && !p->offline) {
            if (!add (a, cap, CCAS_PBS_DRAIN, host, t->node, p, t->reason))
                return -1;
            continue; /* given back on a later pass, once drained */
        }
        if (p && !add (a, cap, CCAS_PBS_DELETE, host, t->node, p, t->reason))
            return -1;
        plan->terminates[kept++] = *t;
    }
    plan->nterminates = kept;
    return 0;
}

/* May VM `n` have a vnode?  A VM of an autoscaled nodearray, booting or
 * Ready, whose hostname and address CycleCloud reports (a Ready VM's name
 * serves when it has no hostname), that pbs.valid_hostnames lets in.  The
 * stock execute setup runs while the VM boots, and waits for its vnode. */
static bool joinable (const struct ccas_node *n, const struct ccas_pbs_join_rules *rules)
{
    if (n->kind != CCAS_NODE_READY && n->kind != CCAS_NODE_BOOTING)
        return false;
    if (n->kind == CCAS_NODE_BOOTING && (!n->hostname || !*n->hostname || !n->private_ip || !*n->private_ip))
        return false;
    if (n->bucket && n->bucket->na->st && !n->bucket->na->st->autoscale_enabled)
        return false; /* a login nodearray: CycleCloud does not autoscale it, nor does PBS run there */
    if (!rules || !rules->nvalid)
        return true;
    const char *host = ccas_pbs_host (n);
    for (size_t i = 0; i < rules->nvalid; i++) {
        regmatch_t m;
        if (regexec (&rules->valid[i], host, 1, &m, 0) == 0 && m.rm_so == 0)
            return true;
    }
    ccas_log (LOG_DEBUG, "pbs: %s: hostname '%s' is not one pbs.valid_hostnames lets join", n->name, host);
    return false;
}

/* Should VM `n` stay offline?  Until it is Ready: its setup has run.  PBS
 * then schedules on it once its mom reports (the vnode reads down until
 * then), so no pass is lost waiting for the report.  In a placement group,
 * until the group is whole in PBS: its own mom and every other member's
 * reported, none booting (members timed out waiting do not count). */
static bool keep_offline (struct ccas_cluster *c, struct ccas_pbs_nodes *pnodes, const struct ccas_node *n)
{
    const struct ccas_pbs_node *p = ccas_pbs_nodes_find (pnodes, n);
    if (n->kind != CCAS_NODE_READY || !p)
        return true;
    if (!n->placement_group)
        return false;
    if (!p->reported || p->down)
        return true;
    for (size_t i = 0; i < c->nexisting; i++) {
        const struct ccas_node *m = c->nodes[i];
        if (m == n || !m->placement_group || strcmp (m->placement_group, n->placement_group) != 0 ||
            m->boot_timed_out)
            continue;
        if (m->kind == CCAS_NODE_BOOTING)
            return true;
        const struct ccas_pbs_node *q = m->kind == CCAS_NODE_READY ? ccas_pbs_nodes_find (pnodes, m) : NULL;
        if (m->kind == CCAS_NODE_READY && (!q || !q->ccnodeid || !q->reported || q->down))
            return true;
    }
    return false;
}

/* The join or online VM `n` (PBS node `p`, or NULL) needs this pass, added
 * to `a`; nothing when it is joined and online, kept offline for now, or
 * offline for any reason but a join marker (the administrator's, a drain:
 * never undone).  -1 when out of memory. */
static int join_one (struct ccas_cluster *c, struct ccas_pbs_nodes *pnodes, struct ccas_node *n,
                     struct ccas_pbs_node *p, struct ccas_pbs_actions *a, size_t *cap)
{
    struct ccas_pbs_action *x = NULL;
    if (!p) {
        x = add (a, cap, CCAS_PBS_JOIN, ccas_pbs_host (n), n, NULL,
                 n->kind == CCAS_NODE_READY ? "ready"
                                            : "booting: CycleCloud reports its hostname and address");
        return x ? 0 : -1;
    }
    if (p->offline && !ccas_pbs_node_joining (p)) {
        ccas_log (LOG_DEBUG, "pbs: %s: offline (%s); not joined", p->name,
                  p->comment ? p->comment : "no comment");
        return 0;
    }
    bool hold = keep_offline (c, pnodes, n);
    if (!p->ccnodeid) {
        /* a node of its name without the marker: one older releases left
         * halfway, or the site's own */
        if (!(x = add (a, cap, CCAS_PBS_JOIN, p->name, n, p,
                       hold ? "PBS has a node of its name without the marker" : "ready: its setup has run")))
            return -1;
        x->online = !hold;
        return 0;
    }
    if (!p->offline || hold) {
        if (p->offline)
            ccas_log (LOG_DEBUG, "pbs: %s: kept offline: %s", p->name,
                      n->kind != CCAS_NODE_READY ? "its VM is not Ready"
                      : !p->reported || p->down  ? "its pbs_mom has not reported (in a placement group)"
                                                 : "its placement group is not whole");
        return 0;
    }
    x = add (a, cap, CCAS_PBS_ONLINE, p->name, n, p,
             n->placement_group ? "ready, its placement group whole in PBS" : "ready: its setup has run");
    return x ? 0 : -1;
}

/* Which model nodes this pass gives back: terminated, drained or deleted
 * (a drained node is out of the plan's terminations, so the plan alone
 * cannot tell).  Indexed by node index; caller frees. */
static bool *leaving_nodes (const struct ccas_plan *plan, const struct ccas_pbs_actions *a)
{
    size_t n = plan->cluster->nexisting;
    bool *leaving = calloc (n + 1, sizeof (*leaving));
    if (!leaving)
        return NULL;
    for (size_t i = 0; i < plan->nterminates; i++)
        if (plan->terminates[i].node->index < n)
            leaving[plan->terminates[i].node->index] = true;
    for (size_t i = 0; i < a->n; i++)
        if (a->v[i].node && a->v[i].node->index < n)
            leaving[a->v[i].node->index] = true;
    return leaving;
}

/* Ready VMs that have not served PBS within boot_timeout (ccas_pbs_nodes_judge)
 * are given back now, and their jobs get new nodes in this same pass. */
static int replace_stuck (struct ccas_plan *plan, struct ccas_pbs_nodes *pnodes)
{
    struct ccas_cluster *c = plan->cluster;
    double now = (double)time (NULL);
    for (size_t i = 0; i < c->nexisting; i++) {
        struct ccas_node *n = c->nodes[i];
        const char *why = NULL;
        bool listed = false;
        if (n->kind != CCAS_NODE_READY || !n->boot_timed_out || n->busy || n->keep_alive ||
            !(why = ccas_pbs_nodes_waiting_why (pnodes, n)))
            continue;
        for (size_t k = 0; k < plan->nterminates && !listed; k++)
            listed = plan->terminates[k].node == n;
        if (listed)
            continue;
        char reason[300];
        double since = pnodes->waiting && i < pnodes->nby ? pnodes->waiting[i] : 0;
        snprintf (reason, sizeof (reason), "Ready but not serving PBS for %.0f s (boot_timeout %.0f s): %s",
                  since > 0 ? now - since : 0, ccas_conf_boot_timeout (c->cfg, n->nodearray), why);
        if (ccas_plan_terminate (plan, n, reason) < 0)
            return -1;
        ccas_log (LOG_INFO, "%s: terminate: %s", n->name, reason);
    }
    return 0;
}

/* The joins of the VMs that stay (`leaving`: by node index, may be NULL)
 * and `only` names (NULL: all). */
static int add_joins (struct ccas_cluster *c, struct ccas_pbs_nodes *pnodes,
                      const struct ccas_pbs_join_rules *rules, const bool *leaving, const char *const *only,
                      struct ccas_pbs_actions *a, size_t *cap)
{
    for (size_t i = 0; i < c->nexisting; i++) {
        struct ccas_node *n = c->nodes[i];
        bool named = !only;
        for (size_t k = 0; only && only[k] && !named; k++)
            named = strcmp (only[k], n->name) == 0 || (n->hostname && strcasecmp (only[k], n->hostname) == 0);
        if (!named || (leaving && leaving[i]) || ccas_pbs_nodes_kept_out (pnodes, n) || !joinable (n, rules))
            continue;
        if (join_one (c, pnodes, n, ccas_pbs_nodes_find (pnodes, n), a, cap) < 0)
            return -1;
    }
    return 0;
}

int ccas_pbs_actions_plan (struct ccas_plan *plan, struct ccas_pbs_nodes *pnodes,
                           const struct ccas_pbs_join_rules *rules, struct ccas_pbs_actions *a,
                           struct ccas_error *err)
{
    struct ccas_cluster *c = plan->cluster;
    size_t cap = 0;
    memset (a, 0, sizeof (*a));
    if (replace_stuck (plan, pnodes) < 0 || sort_terminations (plan, pnodes, a, &cap) < 0)
        goto oom;
    for (size_t i = 0; i < pnodes->n; i++) {
        struct ccas_pbs_node *p = &pnodes->v[i];
        /* ours: the marker, or the joining comment of an older release's join
         * that never finished (a stock comment alone proves nothing) */
        bool ours =
            p->ccnodeid || (p->offline && p->comment && strcmp (p->comment, CCAS_PBS_OLD_JOINING) == 0);
        if (!p->cc && ours && !add (a, &cap, CCAS_PBS_FORGET, p->name, NULL, p, "its VM has gone"))
            goto oom;
    }
    bool *leaving = leaving_nodes (plan, a);
    if (!leaving)
        goto oom;
    int rc = add_joins (c, pnodes, rules, leaving, NULL, a, &cap);
    free (leaving);
    if (rc < 0)
        goto oom;
    return 0;
oom:
    ccas_pbs_actions_free (a);
    return ccas_errorf (err, "out of memory");
}

int ccas_pbs_actions_joins (struct ccas_cluster *c, struct ccas_pbs_nodes *pnodes,
                            const struct ccas_pbs_join_rules *rules, const char *const *only,
                            struct ccas_pbs_actions *a, struct ccas_error *err)
{
    size_t cap = 0;
    memset (a, 0, sizeof (*a));
    if (add_joins (c, pnodes, rules, NULL, only, a, &cap) < 0) {
        ccas_pbs_actions_free (a);
        return ccas_errorf (err, "out of memory");
    }
    return 0;
}

void ccas_pbs_actions_free (struct ccas_pbs_actions *a)
{
    free (a->v);
    a->v = NULL;
    a->n = 0;
}

static void outcome (struct ccas_pbs_action *x, int rc, const struct ccas_error *err, const char *verb)
{
    static const char *const events[] = {"joined", "drained", "deleted", "deleted", "online"};
    json_object *o = json_object_new_object ();
    json_object_object_add (o, "node", json_object_new_string (x->host));
    json_object_object_add (o, "node_id",
                            x->node && x->node->node_id ? json_object_new_string (x->node->node_id) : NULL);
    json_object_object_add (o, "why", json_object_new_string (x->why));
    json_object_object_add (o, "error", rc < 0 ? json_object_new_string (err->text) : NULL);
    ccas_event (rc < 0 ? "pbs_action_failed" : events[x->kind], o);
    x->outcome = rc < 0 ? CCAS_FAILED : CCAS_DONE;
    if (rc < 0) {
        snprintf (x->error, sizeof (x->error), "%s", err->text);
        ccas_log (LOG_ERR, "pbs: %s: %s failed: %s", x->host, verb, err->text);
    } else
        ccas_log (LOG_NOTICE, "pbs: %s: %s (%s)", x->host, verb, x->why);
}

static void drop_termination (struct ccas_plan *plan, const struct ccas_node *n)
{
    size_t kept = 0;
    for (size_t i = 0; i < plan->nterminates; i++)
        if (plan->terminates[i].node != n)
            plan->terminates[kept++] = plan->terminates[i];
    plan->nterminates = kept;
}

static bool is_join (const struct ccas_pbs_action *x)
{
    return x->kind == CCAS_PBS_JOIN || x->kind == CCAS_PBS_ONLINE;
}

static enum ccas_pbs_op_kind op_kind (const struct ccas_pbs_action *x)
{
    switch (x->kind) {
    case CCAS_PBS_JOIN:
        return x->pbs ? CCAS_PBS_OP_REGISTER : CCAS_PBS_OP_CREATE;
    case CCAS_PBS_DRAIN:
        return CCAS_PBS_OP_DRAIN;
    case CCAS_PBS_ONLINE:
        return CCAS_PBS_OP_ONLINE;
    default:
        return CCAS_PBS_OP_DELETE;
    }
}

/* A create of a booting VM whose name the server cannot resolve yet (its DNS
 * entry comes as it boots): not a failure, the next pass creates it. */
static void still_unresolved (struct ccas_pbs_action *x, const struct ccas_pbs_op *op)
{
    snprintf (x->error, sizeof (x->error), "waiting: the PBS server cannot resolve its name yet (%s)",
              op->error);
    x->outcome = CCAS_PLANNED;
    ccas_log (LOG_INFO, "pbs: %s: not created yet: %s", x->host, x->error);
}

/* Carry out the joins (`joins`) or the other actions as one qmgr batch (pbs_cmds.h). */
static void run_actions (struct ccas_pbs_actions *a, struct ccas_cluster *c, const char *const *names,
                         bool joins)
{
    struct ccas_pbs_op *ops = calloc (a->n + 1, sizeof (*ops));
    size_t *of = calloc (a->n + 1, sizeof (*of)), n = 0;
    if (!ops || !of) {
        for (size_t i = 0; i < a->n; i++)
            if (is_join (&a->v[i]) == joins) {
                struct ccas_error err = {"out of memory"};
                outcome (&a->v[i], -1, &err, "changed");
            }
        free (ops);
        free (of);
        return;
    }
    for (size_t i = 0; i < a->n; i++) {
        struct ccas_pbs_action *x = &a->v[i];
        if (is_join (x) != joins)
            continue;
        ops[n] = (struct ccas_pbs_op){
            .kind = op_kind (x), .host = x->host, .node = x->node, .why = x->why, .online = x->online};
        of[n++] = i;
    }
    if (n == 0) {
        free (ops);
        free (of);
        return;
    }
    ccas_pbs_run_ops (c, ops, n, names);
    for (size_t k = 0; k < n; k++) {
        static const char *const verbs[] = {"joined", "drained", "deleted from PBS", "deleted from PBS",
                                            "put online"};
        struct ccas_pbs_action *x = &a->v[of[k]];
        struct ccas_error err = {""};
        if (ops[k].unresolved && x->node && x->node->kind == CCAS_NODE_BOOTING) {
            still_unresolved (x, &ops[k]);
            continue;
        }
        snprintf (err.text, sizeof (err.text), "%s", ops[k].error);
        outcome (x, ops[k].failed ? -1 : 0, &err, verbs[x->kind]);
    }
    free (ops);
    free (of);
}

void ccas_pbs_actions_before (struct ccas_pbs_actions *a, struct ccas_plan *plan)
{
    run_actions (a, plan->cluster, NULL, false);
    for (size_t i = 0; i < a->n; i++)
        if (a->v[i].kind == CCAS_PBS_DELETE && a->v[i].outcome == CCAS_FAILED)
            drop_termination (plan, a->v[i].node); /* never a VM gone behind a registered node */
}

void ccas_pbs_actions_after (struct ccas_pbs_actions *a, struct ccas_cluster *c, const char *const *names)
{
    for (size_t i = 0; i < a->n; i++)
        if (is_join (&a->v[i])) {
            ccas_failpoint ("pbs:before-joins");
            break;
        }
    run_actions (a, c, names, true);
}

size_t ccas_pbs_actions_failures (const struct ccas_pbs_actions *a)
{
    size_t n = 0;
    for (size_t i = 0; i < a->n; i++)
        n += a->v[i].outcome == CCAS_FAILED;
    return n;
}

json_object *ccas_pbs_actions_json (const struct ccas_pbs_actions *a, bool applied)
{
    static const char *const keys[] = {"join", "drain", "delete", "forget", "online"};
    static const char *const outcomes[] = {"planned", "done", "failed"};
    json_object *o = json_object_new_object ();
    json_object *lists[5];
    for (int k = 0; k < 5; k++) {
        lists[k] = json_object_new_array ();
        json_object_object_add (o, keys[k], lists[k]);
    }
    for (size_t i = 0; i < a->n; i++) {
        const struct ccas_pbs_action *x = &a->v[i];
        json_object *e = json_object_new_object ();
        json_object_object_add (e, "node", json_object_new_string (x->host));
        json_object_object_add (e, "why", json_object_new_string (x->why));
        json_object_object_add (e, "outcome", json_object_new_string (outcomes[applied ? x->outcome : 0]));
        if (x->error[0])
            json_object_object_add (e, "error", json_object_new_string (x->error));
        json_object_array_add (lists[x->kind], e);
    }
    return o;
}
