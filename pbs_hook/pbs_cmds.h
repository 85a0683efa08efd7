/* SPDX-License-Identifier: MIT */
/* pbs_cmds.h: what ccautoscale asks of PBS — read jobs and nodes; join,
 * drain and delete nodes.  Every call is an argv array with a time limit.
 *
 * Joining is ordered so that a node is never half-joined with its marker
 * set: create the node (if PBS does not have it), set its resources in one
 * qmgr call, then set resources_available.ccnodeid alone, then put it online.
 * A failure at any step stops there; the next pass sees no marker and
 * joins again (each step is idempotent).
 */
#ifndef CCAS_PBS_CMDS_H
#define CCAS_PBS_CMDS_H

#include <json-c/json.h>

#include "cluster.h"
#include "error.h"
#include "pbs_nodes.h"

/* Time limit of one PBS command (pbs.command_timeout). */
void ccas_pbs_set_timeout (double seconds);

/* Run qstat -f -t -F json / pbsnodes -a -F json and parse (repairing PBS's
 * quirks).  A job or node that cannot be read is logged and left out.
 * Returns the document (caller puts it) or NULL with `err`. */
json_object *ccas_pbs_qstat (struct ccas_error *err);
json_object *ccas_pbs_pbsnodes (struct ccas_error *err);

/* Join VM `n` as PBS node `host` (`p`: its PBS node if PBS has one, or NULL).
 * Resources set: those of `n` named in `names` (a NULL-terminated list) that
 * the node has, then slot_type (the nodearray, unless a resource of that
 * name exists), group_id and ungrouped from its placement group, vm_size,
 * nodearray and instance_id; then ccnodeid; then online. */
int ccas_pbs_join (struct ccas_cluster *c, const struct ccas_node *n, const char *host,
                   const struct ccas_pbs_node *p, const char *const *names, struct ccas_error *err);

/* Offline with "ccautoscale: draining: <why>". */
int ccas_pbs_drain (const char *host, const char *why, struct ccas_error *err);

/* qmgr delete node. */
int ccas_pbs_delete (const char *host, struct ccas_error *err);

/* The name PBS knows VM `n` by: its hostname, else its name.  Borrowed. */
const char *ccas_pbs_host (const struct ccas_node *n);

#endif /* !CCAS_PBS_CMDS_H */
