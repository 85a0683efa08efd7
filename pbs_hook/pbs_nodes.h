/* SPDX-License-Identifier: MIT */
/* pbs_nodes.h: PBS's vnodes, and what they tell the cluster model.
 *
 * From `pbsnodes -av -F json` (-a alone lists one vnode a host).  A PBS node belongs to a CycleCloud node
 * when its name is the VM's hostname (or name); it is *joined* when its resources_available.ccnodeid —
 * written last when joining — holds that VM's node id.  ccautoscale's own comments start with "ccautoscale: "
 * and say what it is doing: a node ccautoscale creates is offline with CCAS_PBS_JOINING_COMMENT from its
 * creation until its last join step puts it online (so that comment is also the proof that a node without the
 * marker is ours); a draining node carries CCAS_PBS_DRAIN_COMMENT; a node offline for any other reason is the
 * administrator's and is left alone.
 *
 * A Ready VM serves PBS once it is joined and its pbs_mom has reported.  Until
 * then — no PBS node yet (a join not done, or failing: `qmgr create node` of a
 * name the server cannot resolve), still joining, or joined but reading
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
#include <stdbool.h>

#include "model/cluster.h"

#define CCAS_PBS_COMMENT_PREFIX "ccautoscale: "
#define CCAS_PBS_DRAIN_COMMENT "ccautoscale: draining" /* followed by ": <why>" */
#define CCAS_PBS_JOIN_COMMENT "ccautoscale: joined"
#define CCAS_PBS_JOINING_COMMENT "ccautoscale: joining"

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

/* True when the node is offline with ccautoscale's joining comment: created
 * by ccautoscale and not yet put online. */
bool ccas_pbs_node_joining (const struct ccas_pbs_node *p);

#endif /* !CCAS_PBS_NODES_H */
