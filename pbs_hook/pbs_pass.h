/* SPDX-License-Identifier: MIT */
/* pbs_pass.h: the PBS pass — one `ccautoscale pbs autoscale`, what the
 * periodic hook runs; `pbs demand` is the same pass as a dry run, and
 * `pbs analyze` reads its world.
 *
 * A run has the shape of the Slurm programs' (slurm_power/power.h):
 *   1. ccas_pbs_pass_attach() borrows the configuration, the client and the
 *      lock of the caller, points the PBS commands at pbs.bin_dir, compiles
 *      pbs.valid_hostnames and pbs.ignore_hostnames, and loads the engine's
 *      pass (engine/pass.h): the holds, the breakers and the node times, read
 *      once;
 *   2. ccas_pbs_pass_load() reads CycleCloud (one status request with its
 *      nodes), applies the holds, then PBS: pbsnodes (less the ignored),
 *      merged into the model with the VMs kept out of PBS (pbs_removed.h)
 *      and judged (pbs_nodes.h), the server's and queues' limits and the
 *      queued jobs, less those of pbs.ignore_queues (pbs_jobs.h).  When PBS
 *      cannot be read the pass stops here, before anything changes, and says
 *      so at LOG_ERR;
 *   3. ccas_pbs_pass_run() does the pass: nodes stuck booting marked, the
 *      jobs matched in PBS's order, the plan made with scale-down, and what
 *      PBS must do decided (pbs_actions.h).  Unless a dry run it then hands
 *      the failures to the policy, deletes and drains in PBS, carries the
 *      plan out (engine/pass.h), creates the vnodes of booting and Ready
 *      VMs and puts the Ready ones online, counts those put online as boots,
 *      saves the policy and node times once, and comments the jobs no node
 *      can be had for;
 *   4. the caller prints r->plan and r->acts;
 *   5. ccas_pbs_pass_close() frees what the run made.
 *
 * The lock is the caller's (engine/pass.h): a pass that is not a dry run
 * must be given it.
 */
#ifndef CCAS_PBS_PASS_H
#define CCAS_PBS_PASS_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>

#include "ccapi/ccapi.h"
#include "conf/conf.h"
#include "engine/pass.h"
#include "engine/plan.h"
#include "model/cluster.h"
#include "model/job.h"
#include "pbs_actions.h"
#include "pbs_jobs.h"
#include "pbs_nodes.h"
#include "util/error.h"
#include "util/lock.h"

/* Why a call returned -1, for the caller's exit status. */
enum ccas_pbs_pass_failure {
    CCAS_PBS_PASS_INTERNAL,   /* out of memory, or the state directory */
    CCAS_PBS_PASS_CONFIG,     /* the configuration does not fit the cluster (err names the file) */
    CCAS_PBS_PASS_CYCLECLOUD, /* CycleCloud unreachable, refused or answered nonsense */
    CCAS_PBS_PASS_PBS,        /* PBS could not be read (logged at LOG_ERR); nothing changed */
};

struct ccas_pbs_pass {
    const struct ccas_config *cfg; /* borrowed */
    struct ccas_ccapi *api;        /* borrowed */
    bool dry_run;                  /* decide and say; change nothing in PBS or CycleCloud */
    struct ccas_pass *pass;        /* owned: holds, breakers, node times (engine/pass.h) */
    struct ccas_cluster *model;    /* owned, after load */
    struct ccas_jobs *jobs;        /* owned, after load: queued and running jobs in PBS's order */
    struct ccas_pbs_queue *queue;  /* owned, after load: what qstat said of them (their comments) */
    struct ccas_pbs_nodes *nodes;  /* owned, after load: PBS's nodes, merged into the model */
    struct ccas_state *removed;    /* owned, after load: the VMs kept out of PBS (pbs_removed.h) */
    regex_t *valid;                /* owned: pbs.valid_hostnames, compiled */
    size_t nvalid;
    regex_t ignore; /* pbs.ignore_hostnames, compiled when `ignoring` */
    bool ignoring;
    struct ccas_pbs_jobs_stats jstats;
    struct ccas_plan *plan;             /* owned, after run */
    struct ccas_pbs_actions acts;       /* after run: what PBS was (or would be) told */
    bool decided;                       /* run got as far as the plan and the PBS actions */
    size_t held;                        /* buckets a create that fell short held back in this pass */
    enum ccas_pbs_pass_failure failure; /* why the last call returned -1 */
    unsigned long commands0;            /* ccas_run_count () at attach */
    double waited0;                     /* ccas_run_seconds () at attach */
};

/* Set up a run on the caller's configuration, client and lock (all
 * borrowed; `lock` may be NULL only for a dry run) and load its engine
 * pass.  Returns 0, or -1 with `err` and r->failure; either way the caller
 * ends with ccas_pbs_pass_close(). */
int ccas_pbs_pass_attach (struct ccas_pbs_pass *r, const struct ccas_config *cfg, struct ccas_ccapi *api,
                          const struct ccas_lock *lock, bool dry_run, struct ccas_error *err);

/* Read CycleCloud and PBS into r->model, r->nodes, r->queue and r->jobs.
 * Returns 0, or -1 with `err` and r->failure (nothing has changed). */
int ccas_pbs_pass_load (struct ccas_pbs_pass *r, struct ccas_error *err);

/* The pass, after ccas_pbs_pass_load().  Returns 0, or -1 with `err` and
 * r->failure: before r->decided nothing has changed; after it, carrying the
 * plan out failed (CCAS_PBS_PASS_CYCLECLOUD, or CCAS_PBS_PASS_INTERNAL when
 * nothing could be asked) and the pass still joined, saved and commented.
 * What PBS refused is in r->acts (ccas_pbs_actions_failures()), what
 * CycleCloud could not give in r->plan. */
int ccas_pbs_pass_run (struct ccas_pbs_pass *r, struct ccas_error *err);

/* Free what the run made (nothing borrowed); sets the PBS command time
 * gauge.  Safe after a failed attach. */
void ccas_pbs_pass_close (struct ccas_pbs_pass *r);

#endif /* !CCAS_PBS_PASS_H */
