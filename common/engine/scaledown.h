/* SPDX-License-Identifier: MIT */
/* scaledown.h: which nodes a pass gives back — failed, stuck booting past
 * boot_timeout, or idle past idle_timeout — from the node times kept in the
 * state directory.  Never a node with work, never a KeepAlive node.
 */
#ifndef CCAS_SCALEDOWN_H
#define CCAS_SCALEDOWN_H

#include <json-c/json.h>

#include "engine/plan.h"
#include "model/cluster.h"
#include "util/error.h"

/* Node `node_id`'s entry in `times` (the state object below), made with
 * "first_seen": `now` the first time the node is seen (or when the entry is
 * not an object).  Borrowed from `times`; NULL when out of memory. */
json_object *ccas_scaledown_node_times (json_object *times, const char *node_id, double now);

/* Before matching: give every existing node its times (node.create_time,
 * last_match_time, create_time_remaining), and mark the nodes booting for
 * longer than boot_timeout (boot_timed_out), so that no job waits on a node
 * that will not come and a replacement is made in the same pass.  `times` as for ccas_scaledown_plan()
 * (nodes seen for the first time are entered).  Returns how many it marked,
 * or -1 when out of memory. */
int ccas_scaledown_mark_stuck (struct ccas_cluster *c, json_object *times, double now);

/* Scale-down: add terminations for nodes that have failed, booted for longer
 * than boot_timeout, or sat idle longer than idle_timeout (per nodearray),
 * never for a node with work or KeepAlive (those are listed in `kept`).
 * `times` is the state object {node_id: {"first_seen": t, "last_busy": t}};
 * it is updated (nodes seen and busy now, departed nodes dropped). */
int ccas_scaledown_plan (struct ccas_plan *plan, json_object *times, double now, struct ccas_error *err);

#endif /* !CCAS_SCALEDOWN_H */
