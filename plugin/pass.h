/* SPDX-License-Identifier: MIT */
/* pass.h: the steps a matching pass shares between `demand` and `pbs autoscale`. */
#ifndef CCAS_PASS_H
#define CCAS_PASS_H

#include "cli.h"
#include "engine/plan.h"
#include "util/state.h"

/* Before matching: load the node times kept in the state directory into
 * *times_state (unless loaded) and mark the nodes booting past boot_timeout,
 * so that matching gives them no work.  The caller saves the state when the
 * pass is applied, and frees it.  Returns an exit code. */
int pass_times_load (struct cli *cli, struct ccas_cluster *c, struct ccas_state **times_state);

/* Add scale-down terminations to `plan`, from the node times (loaded into
 * *times_state unless pass_times_load() did).  Returns an exit code. */
int pass_scaledown (struct cli *cli, struct ccas_plan *plan, struct ccas_state **times_state);

/* Settle create requests an earlier run left open and apply `plan` (the
 * caller holds the lock).  Returns EXIT_OK, EXIT_PARTIAL when some nodes could
 * not be had, EXIT_CYCLECLOUD after printing the error, or EXIT_INTERNAL
 * (printed) when the requests state cannot be read — then nothing was sent. */
int pass_carry_out (struct cli *cli, struct ccas_plan *plan);

/* Take the lock unless it is held; `who` names the holder.  An acting pass
 * takes it before it reads the cluster, so that what it plans from is not
 * changed under it by another run.  Returns an exit code (printed). */
int pass_lock (struct cli *cli, const char *who);

/* Take the lock (unless held), settle create requests an earlier run left
 * open, apply `plan` and save `times_state` (may be NULL).  `who` names the
 * holder in the lock.  Returns EXIT_OK, EXIT_PARTIAL when some nodes could
 * not be had, or another exit code after printing the error. */
int pass_apply (struct cli *cli, struct ccas_plan *plan, struct ccas_state *times_state, const char *who);

#endif /* !CCAS_PASS_H */
