/* SPDX-License-Identifier: MIT */
/* pbs_actions.h: what a PBS pass does to PBS's nodes — which to create,
 * register, put online, drain, delete from PBS, and forget — decided from the
 * plan and carried out.
 *
 * A VM of an autoscaled nodearray gets its vnode as soon as CycleCloud reports
 * its hostname and address, while it boots (the stock execute setup waits for
 * it: pbs_nodes.h): created offline with its resources and marker in one
 * `create node`.  A node PBS already has of its name without the marker is
 * registered (the same in one `set node`).  A registered node offline with a
 * marker goes online once its VM is Ready (its setup has run), in the first
 * pass after: PBS schedules on it once its mom reports, the vnode reading
 * down until then; a node in a placement group only with the whole group:
 * when its own mom and every other member's have reported (or given up,
 * past boot_timeout).
 * OpenPBS runs a place=excl job across placement sets when its own set is not
 * all free (its node-bucket path ignores do_not_span_psets), so a group PBS
 * saw half up would lose its job to other nodes.  A VM whose hostname
 * pbs.valid_hostnames refuses, or that `pbs remove-nodes --permanent` kept
 * out, is never joined.
 *
 * PBS places jobs itself, so a node is given back in two passes: an idle node
 * is first drained (offline, with ccautoscale's draining comment, so PBS
 * starts nothing new on it); a drained node still idle on a later pass is
 * deleted from PBS and then terminated.  A node offline for any other reason
 * is the administrator's and is never drained, deleted, joined or put back
 * online.  A node still offline with a join marker never ran anything: when
 * idle it is deleted and terminated at once, without a drain.
 * Failed and stuck VMs are deleted from PBS and terminated at once, and PBS
 * nodes that are ours (a ccnodeid, or a join marker) whose VM has gone are
 * deleted.  A node whose deletion from PBS fails is not terminated this
 * pass.  A Ready VM that has not served PBS within boot_timeout (its create
 * kept failing, or its mom never reported: ccas_pbs_nodes_judge()) is deleted
 * from PBS, without a drain, and terminated.  All of a pass's changes go to
 * PBS in at most one qmgr call before the plan is applied and one after
 * (pbs_cmds.h).
 */
#ifndef CCAS_PBS_ACTIONS_H
#define CCAS_PBS_ACTIONS_H

#include <json-c/json.h>
#include <regex.h>

#include "engine/plan.h"
#include "pbs_nodes.h"
#include "util/error.h"

enum ccas_pbs_act_kind { CCAS_PBS_JOIN, CCAS_PBS_DRAIN, CCAS_PBS_DELETE, CCAS_PBS_FORGET, CCAS_PBS_ONLINE };

struct ccas_pbs_action {
    enum ccas_pbs_act_kind kind;
    const char *host;          /* borrowed from the model or the pbsnodes document */
    struct ccas_node *node;    /* NULL for FORGET */
    struct ccas_pbs_node *pbs; /* NULL for a JOIN that creates the vnode */
    bool online;               /* JOIN of a node PBS has: put online too */
    char why[200];
    enum ccas_outcome outcome; /* a create of a booting VM's name the server cannot
                                * resolve yet stays CCAS_PLANNED, `error` saying so */
    char error[256];
};

/* Which VMs a pass may join (pbs.valid_hostnames, compiled), and which it
 * must not (kept out: ccas_pbs_nodes_keep_out()). */
struct ccas_pbs_join_rules {
    const regex_t *valid; /* hostnames that may join, anchored at the start */
    size_t nvalid;        /* 0: every hostname */
};

struct ccas_pbs_actions {
    struct ccas_pbs_action *v;
    size_t n;
};

/* Decide the PBS actions for `plan` (after ccas_scaledown_plan()): Ready VMs
 * timed out waiting for PBS are added to its terminations, idle terminations
 * become drains and terminations of administrators' nodes are dropped from
 * the plan; then the joins and onlines, by `rules` (may be NULL: any
 * hostname).  Caller frees with ccas_pbs_actions_free(). */
int ccas_pbs_actions_plan (struct ccas_plan *plan, struct ccas_pbs_nodes *pnodes,
                           const struct ccas_pbs_join_rules *rules, struct ccas_pbs_actions *acts,
                           struct ccas_error *err);

/* The joins and onlines alone, of the VMs `only` names (by name or hostname;
 * NULL: all) — what `pbs join-nodes` does.  Caller frees with
 * ccas_pbs_actions_free(). */
int ccas_pbs_actions_joins (struct ccas_cluster *c, struct ccas_pbs_nodes *pnodes,
                            const struct ccas_pbs_join_rules *rules, const char *const *only,
                            struct ccas_pbs_actions *acts, struct ccas_error *err);
void ccas_pbs_actions_free (struct ccas_pbs_actions *acts);

/* Deletions, drains and forgets, before the plan is applied; a node whose
 * deletion failed is taken out of the plan's terminations. */
void ccas_pbs_actions_before (struct ccas_pbs_actions *acts, struct ccas_plan *plan);

/* Joins and onlines, after the plan is applied (the failpoint pbs:before-joins
 * first).  `names` as for ccas_pbs_run_ops(). */
void ccas_pbs_actions_after (struct ccas_pbs_actions *acts, struct ccas_cluster *c, const char *const *names);

/* How many actions failed (a create still waiting for its name to resolve
 * has not). */
size_t ccas_pbs_actions_failures (const struct ccas_pbs_actions *acts);

/* {"join": [...], "online": [...], "drain": [...], "delete": [...],
 * "forget": [...]}, each entry {"node", "why", "outcome", "error"}.  Caller
 * puts it. */
json_object *ccas_pbs_actions_json (const struct ccas_pbs_actions *acts, bool applied);

#endif /* !CCAS_PBS_ACTIONS_H */
