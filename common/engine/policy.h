/* SPDX-License-Identifier: MIT */
/* policy.h: the one rule every pass follows for what it observed.
 *
 * Every program that creates VMs or watches them boot — `demand --apply`,
 * `pbs autoscale`, the Slurm resume program and `slurm sync` — describes
 * what it saw as observations and hands them to ccas_policy_decide(); the
 * rule lives here and nowhere else:
 *
 *   - a create or start the server could not fill, or a VM found Failed,
 *     for capacity or quota (ccas_failure_holds_bucket): its bucket is held
 *     back for capacity_failure_backoff seconds (an active hold is kept as
 *     it is).  Azure had no machines; no VM failed to boot, so the breaker
 *     does not count it;
 *   - a VM that failed while it was booting for any other reason, or that
 *     booted past boot_timeout or never registered: one boot failure for its
 *     nodearray's breaker, which may open it (breaker.h);
 *   - a VM that booted: its nodearray's count starts again.
 *
 * A pass loads the holds and the breakers once (ccas_policy_load), applies
 * the holds to its model, decides, and saves once (ccas_policy_save), so no
 * part of a pass overwrites what another part decided.  A dry run decides
 * and logs what it would do, and changes and saves nothing.
 */
#ifndef CCAS_POLICY_H
#define CCAS_POLICY_H

#include <stdbool.h>
#include <stddef.h>

#include "ccapi/failure.h"
#include "conf/conf.h"
#include "engine/breaker.h"
#include "engine/holds.h"
#include "model/cluster.h"
#include "util/error.h"

enum ccas_seen {
    CCAS_SEEN_SHORT_CREATE, /* a create or start set added fewer nodes than asked */
    CCAS_SEEN_VM_FAILED,    /* a VM's Status is Failed */
    CCAS_SEEN_BOOT_FAILED,  /* booted past boot_timeout, or never registered */
    CCAS_SEEN_BOOTED,       /* registered (Slurm) or joined (PBS) */
};

/* One observation.  Every pointer is borrowed for the call. */
struct ccas_observation {
    enum ccas_seen seen;
    const char *nodearray;
    const char *machine_type;    /* the bucket; NULL when unknown (no hold) */
    const char *node;            /* its name, for the breaker's record; may be NULL */
    const char *message;         /* the server's answer, or the VM's StatusMessage */
    enum ccas_failure_class cls; /* SHORT_CREATE: the answer's class; VM_FAILED: from
                                  * `message` (ccas_policy_observe_vm fills it) */
    bool booting;                /* VM_FAILED: the VM had not booted yet */
};

/* What the rule did with one observation. */
enum ccas_decision {
    CCAS_DECIDED_NOTHING,      /* not a failure the rule acts on */
    CCAS_DECIDED_HELD,         /* the bucket is held back from now */
    CCAS_DECIDED_ALREADY_HELD, /* an active hold covers it already */
    CCAS_DECIDED_COUNTED,      /* one boot failure for the breaker */
    CCAS_DECIDED_OPENED,       /* ... which opened the breaker */
    CCAS_DECIDED_RESET,        /* the breaker's count starts again */
};

/* Where the rule's messages go: ccas_log() by default; a program with
 * its own report (the Slurm programs' dry runs) sets its own. */
typedef void (*ccas_policy_say_f) (void *arg, int level, const char *msg);

struct ccas_policy {
    struct ccas_holds *holds;       /* owned */
    struct ccas_breakers *breakers; /* owned */
    double backoff;                 /* capacity_failure_backoff, seconds */
    double now;
    bool dry_run;
    ccas_policy_say_f say; /* NULL: ccas_log() */
    void *say_arg;
};

/* Load the holds and breakers of `cfg`'s state directory for a pass at
 * `now` (breakers whose cool-down ended close).  Caller frees with
 * ccas_policy_destroy(). */
struct ccas_policy *ccas_policy_load (const struct ccas_config *cfg, double now, bool dry_run,
                                      struct ccas_error *err);
void ccas_policy_destroy (struct ccas_policy *pol);

/* An observation of a Failed VM: its bucket, its StatusMessage classified.
 * `booting`: the VM had not booted yet. */
struct ccas_observation ccas_policy_observe_vm (const struct ccas_node *n, bool booting);

/* Decide for each of `n` observations, in order; `out` (may be NULL) gets
 * one decision each.  `model` (may be NULL) names the buckets an opening
 * breaker holds.  Returns how many buckets this call held back. */
size_t ccas_policy_decide (struct ccas_policy *pol, const struct ccas_cluster *model,
                           const struct ccas_observation *obs, size_t n, enum ccas_decision *out);

/* Write the holds and breakers (nothing in a dry run) and set their gauges.
 * Returns 0 or -1 with `err` naming the file. */
int ccas_policy_save (struct ccas_policy *pol, struct ccas_error *err);

#endif /* !CCAS_POLICY_H */
