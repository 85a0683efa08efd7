/* SPDX-License-Identifier: MIT */
/* pbs_nodes.h: PBS's vnodes, and what they tell the cluster model.
 *
 * From `pbsnodes -av -F json` (-a alone lists one vnode a host).  A PBS node belongs to a CycleCloud node
 * when its name is the VM's hostname (or name); it is *registered* for that VM when its
 * resources_available.ccnodeid holds the VM's node id.  ccautoscale creates a VM's vnode with every resource
 * and the id in one `create node`, offline, as soon as CycleCloud reports the VM's hostname and address —
 * while it boots, since CycleCloud's stock execute setup (cyclecloud-pbspro) waits for a vnode carrying its
 * id, offlines it itself and only then starts pbs_mom — and puts it online once the VM is Ready (PBS uses
 * it once its mom reports; pbs_actions.h).  The comments that say so are the stock ones, CCAS_PBS_MARK_*: a
 * node offline with one of them (or with CCAS_PBS_OLD_JOINING, the comment of older ccautoscale releases) is
 * ccautoscale's to put online, and still counts as capacity for the jobs it was made for; a draining node
 * carries CCAS_PBS_DRAIN_COMMENT; a node offline with any other comment (CCAS_PBS_KEEP_OFFLINE, what `pbs
 * offline` writes, or the administrator's own) is left alone.
 *
 * A Ready VM serves PBS once it is registered and its pbs_mom has reported.  Until
 * then — no PBS node yet (a create not done, or failing: `qmgr create node` of a
 * name the server cannot resolve), or registered but reading
 * `state-unknown,down` with no `pcpus` (its mom has not reported; minutes on a
 * real VM) — it counts as capacity that is booting, so the jobs waiting for it
 * make no new VMs; after boot_timeout of that it is given no work and
 * replaced.  A node whose mom has reported and that reads `down` counts as
 * capacity for CCAS_PBS_DOWN_GRACE seconds of ccautoscale's own observation:
 * every node reads `down` for ~2 s after any `qmgr create node`, and every
 * node reads `state-unknown,down` for a few seconds after pbs_server starts,
 * with a last_state_change_time from before.
 */
#ifndef CCAS_PBS_NODES_H
#define CCAS_PBS_NODES_H

#include <json-c/json.h>
#include <regex.h>
#include <stdbool.h>

#include "model/cluster.h"

#define CCAS_PBS_COMMENT_PREFIX "ccautoscale: "
#define CCAS_PBS_DRAIN_COMMENT "ccautoscale: draining" /* followed by ": <why>" */
/* The stock markers: the execute setup offlines its new vnode so; ccautoscale
 * creates a vnode so; and puts a node online so (as azpbs did), ": <text>"
 * following when an administrator ran `pbs online -C TEXT`.  Matched as
 * prefixes, as azpbs matched them. */
#define CCAS_PBS_MARK_OFFLINE "cyclecloud offline"
#define CCAS_PBS_MARK_JOINED "cyclecloud joined"
#define CCAS_PBS_MARK_RESTORED "cyclecloud restored"
/* `pbs offline`: the administrator's, never put online by a pass */
#define CCAS_PBS_KEEP_OFFLINE "cyclecloud keep offline"
/* older ccautoscale releases: a node created offline and not yet joined (still
 * read, so a node such a release left halfway is finished) */
#define CCAS_PBS_OLD_JOINING "ccautoscale: joining"

/* Seconds a reported node may read down and still count as capacity. */
#define CCAS_PBS_DOWN_GRACE 60

struct ccas_pbs_node {
    const char *name; /* borrowed from the pbsnodes document */
    const char *comment;
    const char *ccnodeid; /* resources_available.ccnodeid, or NULL */
    bool offline, down;
    bool reported;  /* its mom has reported: pcpus is known, or pbs_version is not "unavailable" */
    double changed; /* last_state_change_time (epoch seconds), or 0 */
    unsigned njobs;
    json_object *assigned; /* resources_assigned, borrowed */
    struct ccas_node *cc;  /* the CycleCloud node it stands for, or NULL */
};

struct ccas_pbs_nodes {
    struct ccas_pbs_node *v;
    size_t n;
    json_object *doc;               /* owned */
    struct ccas_pbs_node **by_node; /* by model node index, after merge */
    double *waiting;                /* by model node index, after judge: since when a Ready VM
                                     * has not served PBS (epoch seconds), or 0 */
    bool *out;                      /* by model node index, after keep_out: kept out of PBS */
    size_t nby;
};

/* Read the parsed pbsnodes document (takes ownership of `doc`).  Caller frees
 * with ccas_pbs_nodes_destroy().  NULL with `err` when `doc` has no nodes
 * object of the right shape or memory runs out. */
struct ccas_pbs_nodes *ccas_pbs_nodes_from_json (json_object *doc, struct ccas_error *err);
void ccas_pbs_nodes_destroy (struct ccas_pbs_nodes *nodes);

/* Tie PBS nodes to the model's nodes and tell the model what PBS knows: a
 * node with jobs is busy; one that is offline (unless it is offline only
 * because ccautoscale is still joining it), or down after its mom reported,
 * takes no new work; resources PBS has assigned are not free. */
void ccas_pbs_nodes_merge (struct ccas_pbs_nodes *nodes, struct ccas_cluster *c);

/* After merge, with the node times of the state directory (`times`:
 * {node_id: {...}}, as scaledown keeps them; entries are added and updated:
 * "pbs_waiting" since when a Ready VM has not served PBS, "pbs_down" since
 * when a reported node reads down): a VM waiting longer than boot_timeout is
 * boot_timed_out (given no work; ccas_pbs_actions_plan() replaces it), a reported node
 * down for at most CCAS_PBS_DOWN_GRACE s counts as capacity.  Returns how
 * many it marked timed out, or -1 when out of memory. */
int ccas_pbs_nodes_judge (struct ccas_pbs_nodes *nodes, struct ccas_cluster *c, json_object *times,
                          double now);

/* Why Ready VM `n` does not serve PBS yet ("its pbs_mom has not reported"),
 * or NULL when it does.  Static string. */
const char *ccas_pbs_nodes_waiting_why (struct ccas_pbs_nodes *nodes, const struct ccas_node *n);

/* The PBS node standing for `n`, or NULL. */
struct ccas_pbs_node *ccas_pbs_nodes_find (struct ccas_pbs_nodes *nodes, const struct ccas_node *n);

/* True when ccautoscale is draining this node (its own comment). */
bool ccas_pbs_node_draining (const struct ccas_pbs_node *p);

/* True when `comment` (may be NULL) is one of the markers above (or
 * CCAS_PBS_OLD_JOINING): a node offline with it is ccautoscale's to put online. */
bool ccas_pbs_comment_marked (const char *comment);

/* True when the node is offline with one of those markers: created by
 * ccautoscale (or its stock setup offlined it) and not yet put online. */
bool ccas_pbs_node_joining (const struct ccas_pbs_node *p);

/* Drop the nodes whose name `re` matches (pbs.ignore_hostnames, anchored at
 * the start as azpbs's pbspro.ignore_hostnames_re was): they are neither
 * read, joined, drained nor deleted.  Before ccas_pbs_nodes_merge().  Returns
 * how many were dropped. */
size_t ccas_pbs_nodes_ignore (struct ccas_pbs_nodes *nodes, const regex_t *re);

/* After merge: the VMs an administrator took out of PBS (`pbs remove-nodes
 * --permanent`, or azpbs's ignore list): `removed` is {node_id: {...}}
 * (borrowed, may be NULL).  Such a VM is given no work, never joined and never
 * terminated by a pass (kept as if KeepAlive).  Returns how many are so; -1
 * when out of memory. */
int ccas_pbs_nodes_keep_out (struct ccas_pbs_nodes *nodes, struct ccas_cluster *c, json_object *removed);

/* What ccautoscale makes of VM `n` and its PBS node `p` (either may be NULL,
 * not both), after merge and keep_out, in a few words for `pbs nodes`:
 * "serving", "busy", "booting, vnode made", "to be put online", "its mom has
 * not reported", "draining", "offline (the administrator's)", "kept out",
 * "no vnode yet", "its VM has gone", "not CycleCloud's" ...  Static. */
const char *ccas_pbs_nodes_role (const struct ccas_pbs_nodes *nodes, const struct ccas_node *n,
                                 const struct ccas_pbs_node *p);

/* True when VM `n` is kept out of PBS (after ccas_pbs_nodes_keep_out()). */
bool ccas_pbs_nodes_kept_out (const struct ccas_pbs_nodes *nodes, const struct ccas_node *n);

#endif /* !CCAS_PBS_NODES_H */
