/* SPDX-License-Identifier: MIT */
/* pbs_cmds.h: what ccautoscale asks of PBS — read jobs and nodes; join,
 * drain and delete nodes.  Every call is an argv array with a time limit.
 *
 * Joining is ordered so that PBS never starts a job on a half-joined node:
 * create the node offline with CCAS_PBS_JOINING_COMMENT in one qmgr call (or,
 * when PBS already has it, take it offline with that comment), set its
 * resources in one qmgr call, then set resources_available.ccnodeid alone,
 * then put it online.  A failure at any step stops there with the node
 * offline; the next pass sees no marker, or the joining comment, and joins
 * again (each step is idempotent).
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

/* Run pbsnodes -a -F json and parse it the same way.  Returns the document
 * (caller puts it) or NULL with `err`. */
json_object *ccas_pbs_pbsnodes (struct ccas_error *err);

/* group_id of a node outside any placement group: PBS's placement sets
 * (only_explicit_psets, do_not_span_psets, as install-hook sets them) leave a
 * node without a group_id in no set, where no job may run; azpbs's value. */
#define CCAS_PBS_NO_GROUP "_none_"

/* Join VM `n` as PBS node `host` (`p`: its PBS node if PBS has one, or NULL).
 * Resources set: those of `n` named in `names` (a NULL-terminated list) that
 * the node has, then slot_type (the nodearray, unless a resource of that
 * name exists), group_id (its placement group, or CCAS_PBS_NO_GROUP) and
 * ungrouped ("false" in a placement group, else "true"), vm_size, nodearray
 * and instance_id; then ccnodeid; then online.  Numbers are written in
 * digits (sizes in kb), never with an exponent. */
int ccas_pbs_join (struct ccas_cluster *c, const struct ccas_node *n, const char *host,
                   const struct ccas_pbs_node *p, const char *const *names, struct ccas_error *err);

/* Offline with "ccautoscale: draining: <why>". */
int ccas_pbs_drain (const char *host, const char *why, struct ccas_error *err);

/* qmgr delete node. */
int ccas_pbs_delete (const char *host, struct ccas_error *err);

/* The name PBS knows VM `n` by: its hostname, else its name.  Borrowed. */
const char *ccas_pbs_host (const struct ccas_node *n);

#endif /* !CCAS_PBS_CMDS_H */
