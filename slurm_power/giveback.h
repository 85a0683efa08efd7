/* SPDX-License-Identifier: MIT */
/* giveback.h: the VMs the Slurm side let go of and could not be sure were gone.
 *
 * A VM behind a powered-down node is a zombie, which slurm.zombie_vms keeps
 * for inspection by default — unless ccautoscale itself let the VM go:
 * suspend or resume-fail asked for it to be given back and the request
 * failed, or resume handed a node back after a create whose fate it could
 * not learn (the server may have made the VM after all).  Those names are
 * kept in state_dir/slurm_giveback.json ({"<name>": {"time": T, "why":
 * "..."}}), and sync terminates their VMs whatever slurm.zombie_vms says,
 * then forgets them: once the VM is gone, or once Slurm wants the node again
 * (powering up or up: the VM is its own again).
 */
#ifndef CCAS_SLURM_GIVEBACK_H
#define CCAS_SLURM_GIVEBACK_H

#include <stdbool.h>
#include <stddef.h>

#include "util/error.h"
#include "util/state.h"

/* Add `names` with `why` to state_dir's list (load, add, save).  Returns 0
 * or -1 with `err` naming the file. */
int ccas_slurm_giveback_add (const char *state_dir, const char *const *names, size_t n, double now,
                             const char *why, struct ccas_error *err);

/* The list, to read and prune.  Caller frees with ccas_state_destroy(). */
struct ccas_state *ccas_slurm_giveback_load (const char *state_dir, struct ccas_error *err);

/* Whether `name` is in the list (`st` may be NULL: no). */
bool ccas_slurm_giveback_has (struct ccas_state *st, const char *name);

/* Take `name` out of the list (saved by the caller with ccas_state_save()). */
void ccas_slurm_giveback_forget (struct ccas_state *st, const char *name);

#endif /* !CCAS_SLURM_GIVEBACK_H */
