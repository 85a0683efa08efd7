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
 * costs two qmgr calls however many nodes it changes:
 *   1. create every new node offline with CCAS_PBS_JOINING_COMMENT; drain
 *      (state += offline, the draining comment) and delete nodes;
 *   2. for every node to join whose step 1 succeeded (or that PBS had
 *      already): one `set node` with its resources, the marker
 *      resources_available.ccnodeid, `state -= offline` and the joined
 *      comment (or, held, `state += offline` and the joining comment).  PBS sets a node's attributes all or
 * none, so a node is either offline (created, or left as it was) or joined: never a half-joined node PBS
 * could schedule on.  A failure leaves it for the next pass, which joins it again (each step is idempotent).
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

enum ccas_pbs_op_kind { CCAS_PBS_OP_JOIN, CCAS_PBS_OP_DRAIN, CCAS_PBS_OP_DELETE };

/* One change to one PBS node. */
struct ccas_pbs_op {
    enum ccas_pbs_op_kind kind;
    const char *host;                /* the PBS node (borrowed) */
    const struct ccas_node *node;    /* JOIN: the VM */
    const struct ccas_pbs_node *pbs; /* JOIN: its PBS node, or NULL when PBS has none */
    const char *why;                 /* DRAIN: after "ccautoscale: draining: " */
    bool hold;                       /* JOIN: all but online: stays offline, joining */
    bool failed;                     /* out */
    char error[256];                 /* out: why it failed */
};

/* Carry out `ops` (any kinds, one per host) in the two qmgr batches above;
 * `names` (NULL-terminated) are the resources of pbs.node_resources.  Each op
 * says whether it failed.  A join sets the resources of `node` named in
 * `names` that it has, then slot_type (the nodearray, unless a resource of
 * that name exists), group_id (its placement group, or CCAS_PBS_NO_GROUP)
 * and ungrouped ("false" in a placement group, else "true"), vm_size,
 * nodearray and instance_id; numbers in digits (sizes in kb), never with an
 * exponent.  Deleting a node PBS no longer has succeeds.  The failpoint
 * pbs:join-before-marker is between the two batches. */
void ccas_pbs_run_ops (struct ccas_cluster *c, struct ccas_pbs_op *ops, size_t n, const char *const *names);

/* Set `comment` on the queued jobs `ids` (qalter -W comment=..., as many ids
 * a call as fit); 0, or -1 with `err` for the first call that failed. */
int ccas_pbs_comment_jobs (const char *comment, const char *const *ids, size_t n, struct ccas_error *err);

/* The name PBS knows VM `n` by: its hostname, else its name.  Borrowed. */
const char *ccas_pbs_host (const struct ccas_node *n);

#endif /* !CCAS_PBS_CMDS_H */
