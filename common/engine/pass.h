/* SPDX-License-Identifier: MIT */
/* pass.h: one autoscale pass — the state it decides from, read once and
 * written once, and the steps every scheduler's pass shares.
 *
 * A pass is one cycle of the autoscaler: read the scheduler and CycleCloud,
 * match, plan, carry the plan out, tell the scheduler.  PBS's is one
 * `pbs autoscale` (pbs_hook/pbs_pass.h); `demand --apply` is one over a jobs
 * file; `create`, `terminate`, `scale`, `autoscale run` and `autostop` are
 * passes with a plan of their own instead of a match; each run of a Slurm
 * program (slurm_power/power.h) reads and saves its holds and breakers
 * through one, around Slurm's own creating steps.
 *
 * What a pass decides from lives in the state directory.  ccas_pass_load()
 * reads it and ccas_pass_save() writes it, once each, so that no step of a
 * pass overwrites what another step decided:
 *   - the policy (policy.h): the holds and the breakers (CCAS_PASS_POLICY);
 *   - the node times (state_dir/nodes.json): when each node was first seen
 *     and last busy, what scale-down and boot_timeout go by (CCAS_PASS_TIMES).
 *
 * The steps, in this order, each where the pass needs it:
 *   1. ccas_pass_load();
 *   2. the caller reads the cluster; holds applied (ccas_holds_apply on
 *      p->policy->holds);
 *   3. ccas_pass_mark_stuck(): nodes booting past boot_timeout get no work;
 *   4. the caller matches and plans (match.h, plan.h);
 *   5. ccas_pass_scaledown(): idle, failed and stuck nodes given back;
 *   6. ccas_pass_observe_failures(): Failed and stuck VMs to the policy;
 *   7. ccas_pass_carry_out(): earlier create requests settled, the plan
 *      applied, the sets the server could not fill to the policy;
 *   8. what the scheduler saw (a PBS join: CCAS_SEEN_BOOTED) to
 *      ccas_policy_decide() on p->policy;
 *   9. ccas_pass_save(), then ccas_pass_destroy().
 *
 * The lock (util/lock.h) is the caller's: it takes it before it reads the
 * cluster, so that what the pass plans from does not change under it, and
 * keeps it until the pass is saved and its metrics written.  A pass that
 * changes anything refuses to load without it.
 *
 * Like the rest of the core, a pass never prints and never exits: it logs
 * its decisions (LOG_INFO) and returns errors in a struct ccas_error.
 */
#ifndef CCAS_PASS_H
#define CCAS_PASS_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

#include "ccapi/ccapi.h"
#include "conf/conf.h"
#include "engine/plan.h"
#include "engine/policy.h"
#include "model/cluster.h"
#include "util/error.h"
#include "util/lock.h"
#include "util/state.h"

/* What ccas_pass_load() reads, and how the pass acts. */
enum ccas_pass_flags {
    CCAS_PASS_POLICY = 1 << 0,  /* the holds and breakers */
    CCAS_PASS_TIMES = 1 << 1,   /* the node times */
    CCAS_PASS_DRY_RUN = 1 << 2, /* decide and say what would be done; write nothing */
};

struct ccas_pass {
    const struct ccas_config *cfg; /* borrowed */
    double now;                    /* when the pass began: the clock of its decisions */
    bool dry_run;
    struct ccas_policy *policy; /* owned; NULL without CCAS_PASS_POLICY */
    struct ccas_state *times;   /* owned; NULL without CCAS_PASS_TIMES */
    bool sent;                  /* ccas_pass_carry_out() asked CycleCloud */
    bool saved;                 /* ccas_pass_save() has run */
};

/* Read what `flags` names from `cfg`'s state directory for a pass at `now`
 * (breakers whose cool-down ended close).  `lock` is the lock the caller
 * holds; NULL only with CCAS_PASS_DRY_RUN.  Caller frees with
 * ccas_pass_destroy(). */
struct ccas_pass *ccas_pass_load (const struct ccas_config *cfg, const struct ccas_lock *lock, unsigned flags,
                                  double now, struct ccas_error *err);

/* Free the pass without writing anything.  NULL is a no-op. */
void ccas_pass_destroy (struct ccas_pass *p);

/* The node times object {node_id: {"first_seen", "last_busy"}}, made when
 * missing.  Borrowed; valid while `p` lives; NULL without CCAS_PASS_TIMES. */
json_object *ccas_pass_node_times (struct ccas_pass *p);

/* Before matching: give `c`'s nodes their times and mark those booting past
 * boot_timeout (ccas_scaledown_mark_stuck), so that no job waits on them and
 * they are replaced in this pass.  Returns how many it marked, or -1 with
 * `err`.  Needs CCAS_PASS_TIMES. */
int ccas_pass_mark_stuck (struct ccas_pass *p, struct ccas_cluster *c, struct ccas_error *err);

/* Add scale-down's terminations to `plan` (ccas_scaledown_plan): failed
 * nodes, nodes booting past boot_timeout, nodes idle past idle_timeout;
 * the node times follow (nodes seen and busy now, departed ones dropped).
 * Returns 0 or -1 with `err`.  Needs CCAS_PASS_TIMES. */
int ccas_pass_scaledown (struct ccas_pass *p, struct ccas_plan *plan, struct ccas_error *err);

/* Whether a Failed VM had not booted yet: the scheduler knows (for Slurm,
 * its node was powering up; for PBS, it was never joined). */
typedef bool (*ccas_pass_booting_f) (const struct ccas_node *n, void *arg);

/* Before anything is created: hand the policy what the plan's terminations
 * say — VMs Failed (booting as `booting` says; NULL: every Failed VM counts
 * as a failed boot) and VMs stuck past boot_timeout — and take out of the
 * plan the creates in buckets a breaker this opened now holds.  Returns how
 * many creates it took out.  Needs CCAS_PASS_POLICY. */
size_t ccas_pass_observe_failures (struct ccas_pass *p, struct ccas_plan *plan, ccas_pass_booting_f booting,
                                   void *arg);

/* Settle the create requests an earlier run left open (state_dir/
 * requests.json), carry `plan` out through `api` (apply.h), and hand the
 * policy the sets the server could not fill: a capacity or quota shortfall
 * holds its bucket back from now (policy.h).  *held (may be NULL) gets how
 * many buckets it held.  Returns 0 when every request was answered — the
 * plan's outcomes say what came of each set and node, some may have fallen
 * short — or -1 with `err`: with p->sent false the request records could not
 * be read and nothing was asked; with p->sent true a request failed, and
 * what was done before it is recorded in the plan.  Needs CCAS_PASS_POLICY;
 * not in a dry run. */
int ccas_pass_carry_out (struct ccas_pass *p, struct ccas_plan *plan, struct ccas_ccapi *api, size_t *held,
                         struct ccas_error *err);

/* Write the holds, the breakers and the node times that `p` read (nothing
 * in a dry run; the policy's gauges are set either way).  Once per pass: a
 * later call writes nothing and returns 0.  Returns 0, or -1 with `err`
 * naming the first file that could not be written (the others are still
 * written). */
int ccas_pass_save (struct ccas_pass *p, struct ccas_error *err);

#endif /* !CCAS_PASS_H */
