/* SPDX-License-Identifier: MIT */
/* pbs_removed.h: the VMs an administrator keeps out of PBS.
 *
 * `pbs remove-nodes --permanent` takes a VM out of PBS and keeps it out: no
 * pass joins it again, gives it work or terminates it (it is the
 * administrator's, as a KeepAlive node is), until `pbs join-nodes` lets it
 * back.  azpbs kept the same list in its node history (nodehistory.db,
 * nodes.ignore), which `pbs install-hook` imports.  The list is the state
 * file state_dir/pbs_removed.json (util/state.h): {node_id: {"name",
 * "hostname", "since" (epoch seconds), "by" ("ccautoscale" or "azpbs")}}.
 */
#ifndef CCAS_PBS_REMOVED_H
#define CCAS_PBS_REMOVED_H

#include <json-c/json.h>
#include <stdbool.h>

#include "util/error.h"
#include "util/state.h"

/* The state file's name under state_dir. */
#define CCAS_PBS_REMOVED_STATE "pbs_removed"

/* Load the list (an empty one when there is none).  Caller frees with
 * ccas_state_destroy(); ccas_state_root() is the object above. */
struct ccas_state *ccas_pbs_removed_load (const char *state_dir, struct ccas_error *err);

/* Keep VM `node_id` out (`name` and `hostname` may be NULL; `by` says who
 * asked).  Returns 1 when it was added, 0 when it was there already, -1
 * when out of memory. */
int ccas_pbs_removed_add (json_object *removed, const char *node_id, const char *name, const char *hostname,
                          const char *by, double now);

/* Let VM `node_id` back; true when it was kept out. */
bool ccas_pbs_removed_drop (json_object *removed, const char *node_id);

#endif /* !CCAS_PBS_REMOVED_H */
