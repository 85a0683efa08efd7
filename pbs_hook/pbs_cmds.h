/* SPDX-License-Identifier: MIT */
/* pbs_cmds.h: what ccautoscale asks of PBS — read jobs, nodes, queues and the
 * server; join, drain and delete nodes; comment on jobs.  Every call is an
 * argv array with a time limit.
 *
 * Node changes go to PBS in batches: one `qmgr` reads every directive of a
 * batch on its stdin, one a line (qmgr runs only the last of several -c, and
 * refuses "cmd1; cmd2"), and goes on after a directive fails, naming the
 * node in its error ("qmgr obj=NAME svr=default: Unknown node"): each
 * operation is one directive, so one operation's failure is its own.  A pass
 * costs at most two qmgr calls however many nodes it changes:
 *   1. before the plan is carried out: drain (state += offline, the draining
 *      comment) and delete nodes;
 *   2. after it: create the vnode of every VM CycleCloud reports a hostname
 *      and address for (booting or Ready) in one `create node` with its
 *      resources and the marker resources_available.ccnodeid, offline, with
 *      the comment CCAS_PBS_MARK_JOINED — the stock execute setup checks its
 *      vnode for its id once, so the vnode never exists without it; register
 *      a node PBS has of the VM's name without the marker (one `set node` of
 *      the same); put Ready nodes online (`state -= offline`,
 *      CCAS_PBS_MARK_RESTORED).  PBS sets one directive's
 *      attributes all or none; OpenPBS 23 makes no node when it refuses an
 *      attribute of `create node`, and a name a refused create was for is
 *      deleted at once all the same (a second qmgr call, only then), so that
 *      a PBS that did make it bare leaves no node without its marker.
 * A failure leaves the node for the next pass, which does it again (each step
 * is idempotent).
 */
#ifndef CCAS_PBS_CMDS_H
#define CCAS_PBS_CMDS_H

#include <json-c/json.h>

#include "model/cluster.h"
#include "pbs_nodes.h"
#include "util/error.h"

/* Time limit of one PBS command (pbs.command_timeout). */
void ccas_pbs_set_timeout (double seconds);

/* Run qstat -f -t -F json and read its jobs into `q`, one entry at a time
 * (repairing PBS's quirks); 0, or -1 with `err`.  A job that cannot be read
 * is logged and left out. */
struct ccas_pbs_queue;
int ccas_pbs_qstat (struct ccas_pbs_queue *q, struct ccas_error *err);

/* Run qstat -Q -f -F json and qstat -B -f -F json and hand both to `q`
 * (ccas_pbs_queue_limits()); 0, or -1 with `err`. */
int ccas_pbs_qstat_limits (struct ccas_pbs_queue *q, struct ccas_error *err);

/* Run pbsnodes -av -F json and parse it the same way.  Returns the document
 * (caller puts it) or NULL with `err`. */
json_object *ccas_pbs_pbsnodes (struct ccas_error *err);

enum ccas_pbs_op_kind {
    CCAS_PBS_OP_CREATE,   /* a vnode for a VM PBS has no node of */
    CCAS_PBS_OP_REGISTER, /* the resources and marker on a node PBS has, without the marker */
    CCAS_PBS_OP_ONLINE,   /* a registered node offline with a marker, put online */
    CCAS_PBS_OP_DRAIN,
    CCAS_PBS_OP_DELETE,
    CCAS_PBS_OP_OFFLINE, /* the administrator's: state += offline, `comment` */
};

/* One change to one PBS node. */
struct ccas_pbs_op {
    enum ccas_pbs_op_kind kind;
    const char *host;             /* the PBS node (borrowed) */
    const struct ccas_node *node; /* CREATE, REGISTER: the VM */
    const char *why;              /* DRAIN: after "ccautoscale: draining: " */
    bool online;                  /* REGISTER: put it online too (else it stays offline) */
    const char *comment;          /* ONLINE: the comment (default CCAS_PBS_MARK_RESTORED);
                                   * OFFLINE: the comment (default CCAS_PBS_KEEP_OFFLINE) */
    bool failed;                  /* out */
    bool unresolved;              /* out: CREATE failed only because the server cannot
                                   * resolve the name (yet: a VM still booting) */
    char error[256];              /* out: why it failed */
};

/* Carry out `ops` (any kinds, one per host) in one qmgr batch (pbs_cmds.h
 * says when a second follows); `names` (NULL-terminated) are the resources
 * of pbs.node_resources.  Each op says whether it failed.  A CREATE or
 * REGISTER sets the resources of `node` named in `names` that it has, then
 * slot_type (the nodearray, unless a resource of that name exists),
 * group_id (its placement group, or CCAS_PBS_NO_GROUP) and ungrouped
 * ("false" in a placement group, else "true"), vm_size, nodearray and
 * instance_id; numbers in digits (sizes in kb), never with an exponent.
 * Deleting a node PBS no longer has succeeds. */
void ccas_pbs_run_ops (struct ccas_cluster *c, struct ccas_pbs_op *ops, size_t n, const char *const *names);

/* Run `qmgr -c "list WHAT"` ("server", "sched", "hook", "resource") and
 * read it (pbs_qmgr.h): a new object (caller puts it), or NULL with `err`. */
json_object *ccas_pbs_qmgr_list (const char *what, struct ccas_error *err);

/* Set `comment` on the queued jobs `ids` (qalter -W comment=..., as many ids
 * a call as fit); 0, or -1 with `err` for the first call that failed. */
int ccas_pbs_comment_jobs (const char *comment, const char *const *ids, size_t n, struct ccas_error *err);

/* The name PBS knows VM `n` by: its hostname, else its name.  Borrowed. */
const char *ccas_pbs_host (const struct ccas_node *n);

#endif /* !CCAS_PBS_CMDS_H */
