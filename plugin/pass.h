/* SPDX-License-Identifier: MIT */
/* pass.h: the steps a matching pass shares between `demand` and `pbs autoscale`. */
#ifndef CCAS_PASS_H
#define CCAS_PASS_H

#include "cli.h"
#include "engine/plan.h"
#include "engine/policy.h"
#include "util/state.h"

/* The node times object {node_id: {...}} of a state loaded from "nodes",
 * made when missing.  Borrowed from `state`. */
json_object *pass_node_times (struct ccas_state *state);

/* Before matching: load the node times kept in the state directory into
 * *times_state (unless loaded) and mark the nodes booting past boot_timeout,
 * so that matching gives them no work.  The caller saves the state when the
 * pass is applied, and frees it.  Returns an exit code. */
int pass_times_load (struct cli *cli, struct ccas_cluster *c, struct ccas_state **times_state);

/* Add scale-down terminations to `plan`, from the node times (loaded into
 * *times_state unless pass_times_load() did).  Returns an exit code. */
int pass_scaledown (struct cli *cli, struct ccas_plan *plan, struct ccas_state **times_state);

/* Whether a Failed VM had not booted yet (the scheduler knows: for Slurm,
 * its node was powering up; for PBS, it was never joined). */
typedef bool (*pass_booting_f) (const struct ccas_node *n, void *arg);

/* Before anything is created: hand the policy (policy.h) what the plan's
 * terminations say — VMs Failed (booting as `booting` says; NULL: every
 * Failed VM counts as a failed boot) and VMs stuck past boot_timeout — and
 * take out of the plan the creates in buckets a breaker this opened now
 * holds.  Returns how many creates it took out. */
size_t pass_observe_failures (struct ccas_policy *pol, struct ccas_plan *plan, pass_booting_f booting,
                              void *arg);

/* Settle create requests an earlier run left open, apply `plan` (the caller
 * holds the lock), hand the policy the sets the server could not fill, and
 * save the policy's holds and breakers once.  `pol` is the pass's policy;
 * NULL loads one for this call.  Returns EXIT_OK, EXIT_PARTIAL when some
 * nodes could not be had, EXIT_CYCLECLOUD after printing the error, or
 * EXIT_INTERNAL (printed) when the state cannot be read — then nothing was
 * sent.  *held (may be NULL) says whether a bucket was held back from now. */
int pass_carry_out (struct cli *cli, struct ccas_plan *plan, struct ccas_policy *pol, bool *held);

/* Take the lock unless it is held; `who` names the holder.  An acting pass
 * takes it before it reads the cluster, so that what it plans from is not
 * changed under it by another run.  Returns an exit code (printed). */
int pass_lock (struct cli *cli, const char *who);

/* Take the lock (unless held), carry `plan` out (pass_carry_out: `pol`,
 * `held`) and save `times_state` (may be NULL).  `who` names the holder in
 * the lock.  Returns EXIT_OK, EXIT_PARTIAL when some nodes could not be had,
 * or another exit code after printing the error. */
int pass_apply (struct cli *cli, struct ccas_plan *plan, struct ccas_state *times_state, const char *who,
                struct ccas_policy *pol, bool *held);

#endif /* !CCAS_PASS_H */
