/* SPDX-License-Identifier: MIT */
/* pbs_actions.c: join, drain, delete and forget PBS nodes around a plan. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pbs_actions.h"
#include "pbs_cmds.h"
#include "util/events.h"
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

/* Should Ready VM `n` (PBS node `p`, or NULL) be joined this pass?  Not when
 * it is being given back (`leaving`), joined (the marker set, and not left
 * offline by a join that stopped before its last step), or offline for any
 * reason but our own joining: the join's last step puts a node online, which
 * must never undo a drain or an administrator's offline. */
static bool wants_join (const struct ccas_node *n, const struct ccas_pbs_node *p, bool leaving)
{
    if (n->kind != CCAS_NODE_READY || leaving)
        return false;
    if (!p)
        return true;
    if (p->offline && !ccas_pbs_node_joining (p)) {
        ccas_log (LOG_DEBUG, "pbs: %s: offline (%s); not joined", p->name,
                  p->comment ? p->comment : "no comment");
        return false;
    }
    return !p->ccnodeid || ccas_pbs_node_joining (p);
}

/* Should Ready VM `n` stay offline once joined?  When it is in a placement
 * group that is not yet whole in PBS: its own mom has not reported, or
 * another member is booting, or Ready without its mom reported (members
 * timed out waiting do not count). */
static bool group_incomplete (struct ccas_cluster *c, struct ccas_pbs_nodes *pnodes,
                              const struct ccas_node *n)
{
    if (!n->placement_group)
        return false;
    const struct ccas_pbs_node *p = ccas_pbs_nodes_find (pnodes, n);
    if (!p || !p->reported || p->down)
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

int ccas_pbs_actions_plan (struct ccas_plan *plan, struct ccas_pbs_nodes *pnodes, struct ccas_pbs_actions *a,
                           struct ccas_error *err)
{
    struct ccas_cluster *c = plan->cluster;
    size_t cap = 0;
    memset (a, 0, sizeof (*a));
    if (replace_stuck (plan, pnodes) < 0 || sort_terminations (plan, pnodes, a, &cap) < 0)
        goto oom;
    for (size_t i = 0; i < pnodes->n; i++) {
        struct ccas_pbs_node *p = &pnodes->v[i];
        /* ours: the marker, or the joining comment of a join that never finished */
        bool ours = p->ccnodeid || ccas_pbs_node_joining (p);
        if (!p->cc && ours && !add (a, &cap, CCAS_PBS_FORGET, p->name, NULL, p, "its VM has gone"))
            goto oom;
    }
    bool *leaving = leaving_nodes (plan, a);
    if (!leaving)
        goto oom;
    for (size_t i = 0; i < c->nexisting; i++) {
        struct ccas_node *n = c->nodes[i];
        struct ccas_pbs_node *p = ccas_pbs_nodes_find (pnodes, n);
        if (!wants_join (n, p, n->index < c->nexisting && leaving[n->index]))
            continue;
        bool hold = group_incomplete (c, pnodes, n);
        struct ccas_pbs_action *x =
            add (a, &cap, CCAS_PBS_JOIN, p ? p->name : ccas_pbs_host (n), n, p,
                 hold ? "ready; kept offline until its placement group is whole" : "ready");
        if (!x) {
            free (leaving);
            goto oom;
        }
        x->hold = hold;
    }
    free (leaving);
    return 0;
oom:
    ccas_pbs_actions_free (a);
    return ccas_errorf (err, "out of memory");
}

void ccas_pbs_actions_free (struct ccas_pbs_actions *a)
{
    free (a->v);
    a->v = NULL;
    a->n = 0;
}

static void outcome (struct ccas_pbs_action *x, int rc, const struct ccas_error *err, const char *verb)
{
    static const char *const events[] = {"joined", "drained", "deleted", "deleted"};
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

/* Carry out the actions of `kinds` as one set of qmgr batches (pbs_cmds.h). */
static void run_actions (struct ccas_pbs_actions *a, struct ccas_cluster *c, const char *const *names,
                         bool joins)
{
    static const enum ccas_pbs_op_kind kinds[] = {CCAS_PBS_OP_JOIN, CCAS_PBS_OP_DRAIN, CCAS_PBS_OP_DELETE,
                                                  CCAS_PBS_OP_DELETE};
    struct ccas_pbs_op *ops = calloc (a->n + 1, sizeof (*ops));
    size_t *of = calloc (a->n + 1, sizeof (*of)), n = 0;
    if (!ops || !of) {
        for (size_t i = 0; i < a->n; i++)
            if ((a->v[i].kind == CCAS_PBS_JOIN) == joins) {
                struct ccas_error err = {"out of memory"};
                outcome (&a->v[i], -1, &err, "changed");
            }
        free (ops);
        free (of);
        return;
    }
    for (size_t i = 0; i < a->n; i++) {
        struct ccas_pbs_action *x = &a->v[i];
        if ((x->kind == CCAS_PBS_JOIN) != joins)
            continue;
        ops[n] = (struct ccas_pbs_op){.kind = kinds[x->kind],
                                      .host = x->host,
                                      .node = x->node,
                                      .pbs = x->pbs,
                                      .why = x->why,
                                      .hold = x->hold};
        of[n++] = i;
    }
    ccas_pbs_run_ops (c, ops, n, names);
    for (size_t k = 0; k < n; k++) {
        static const char *const verbs[] = {"joined", "drained", "deleted from PBS", "deleted from PBS"};
        struct ccas_pbs_action *x = &a->v[of[k]];
        struct ccas_error err = {""};
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
    static const char *const keys[] = {"join", "drain", "delete", "forget"};
    static const char *const outcomes[] = {"planned", "done", "failed"};
    json_object *o = json_object_new_object ();
    json_object *lists[4];
    for (int k = 0; k < 4; k++) {
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
