/* SPDX-License-Identifier: MIT */
/* power.h: what the Slurm programs (resume, suspend, resume-fail) and sync share.
 *
 * A run: ccas_power_open() finds and loads the configuration, opens logging,
 * takes the lock, creates the client and reads the holds and breakers once
 * (an engine pass, engine/pass.h); ccas_power_load() reads Slurm's nodes
 * and CycleCloud's status and nodes (two requests) into a model; the
 * program decides; hand-backs are collected with ccas_power_handback() and
 * sent to Slurm grouped by reason with ccas_power_flush(); then
 * ccas_power_close() saves the holds and breakers once.  slurmctld starts
 * the programs with almost no environment, so nothing here depends on PATH
 * or HOME.
 */
#ifndef CCAS_POWER_H
#define CCAS_POWER_H

#include <stdbool.h>
#include <stdio.h>

#include "ccapi/ccapi.h"
#include "conf/conf.h"
#include "dynamic.h"
#include "engine/breaker.h"
#include "engine/holds.h"
#include "engine/pass.h"
#include "engine/policy.h"
#include "model/cluster.h"
#include "names.h"
#include "slurmapi.h"
#include "util/lock.h"

struct ccas_resume_file;

struct ccas_power {
    const char *prog; /* "ccautoscale-resume" */
    struct ccas_config *cfg;
    struct ccas_ccapi *api;
    struct ccas_lock *lock;
    struct ccas_slurm_nodes *snodes;
    struct ccas_cluster *model;
    struct ccas_slurm_layout *layout;
    struct ccas_pass *pass;            /* holds and breakers (pass->policy), read once, saved once */
    const struct ccas_resume_file *rf; /* resume: the jobs the names are for (borrowed), or NULL */
    bool dry_run;                      /* say what would be done; change nothing */
    FILE *out;                         /* where dry runs and --verbose reports go */
    double now;
    double t0; /* monotonic start, for the run's duration metric */
    /* pending hand-backs: name -> reason */
    char **hb_names;
    char **hb_reasons;
    size_t nhb, hbcap;
    unsigned failures; /* things that went wrong (for the exit status) */
};

struct ccas_power_opts {
    const char *config_path; /* -c; else CCAUTOSCALE_CONFIG; else next to SLURM_CONF; else default */
    bool dry_run;
    int verbosity;
};

/* Find the configuration: the explicit path, $CCAUTOSCALE_CONFIG,
 * <dir of $SLURM_CONF>/ccautoscale.json if it exists, then the default.
 * Returns a static or borrowed string. */
const char *ccas_power_config_path (const char *explicit_path);

/* A CycleCloud client with the limits of the programs slurmctld waits for
 * and of sync, which holds the lock they wait for: slurm.connect_timeout,
 * slurm.request_timeout, slurm.retries (not the command's connect_timeout,
 * request_timeout, retries).  Caller frees with ccas_ccapi_destroy(). */
struct ccas_ccapi *ccas_power_client (const struct ccas_config *cfg, struct ccas_error *err);

/* Set up a run.  Returns 0, or -1 with `err` (the program then hands every
 * name back itself where it can).  CycleCloud is asked through
 * ccas_power_client().  Unless a dry run, the
 * lock and state_dir must be writable: an error names the path and the
 * user the program runs as (SlurmUser, rarely root), or asks whether the
 * storage is mounted (errno is then a storage error). */
int ccas_power_open (struct ccas_power *p, const char *prog, const struct ccas_power_opts *o,
                     struct ccas_error *err);

/* errno `errnum` says that storage is missing or failing (not mounted,
 * read-only, gone stale, full) rather than a permission: a state_dir or
 * lock_file on shared storage that is briefly unavailable. */
bool ccas_power_storage_error (int errnum);

/* state_dir/requests.json, the create requests sent and not yet settled
 * (resume records one before it sends a create, sync settles those left by
 * a run that died).  A file cut short is salvaged (ccas_state_load_salvage:
 * the whole entries read back, the file kept aside, a warning logged); one
 * of a newer format is refused.  Caller frees with ccas_state_destroy(). */
struct ccas_state;
struct ccas_state *ccas_power_requests (const struct ccas_power *p, struct ccas_error *err);

/* Use a configuration, client and lock that the caller owns (the
 * ccautoscale command; `lock` may be NULL only for a dry run):
 * ccas_power_detach() then releases only what the run made. */
int ccas_power_attach (struct ccas_power *p, const char *prog, struct ccas_config *cfg,
                       struct ccas_ccapi *api, const struct ccas_lock *lock, bool dry_run,
                       struct ccas_error *err);
void ccas_power_detach (struct ccas_power *p);

/* Read Slurm's nodes and CycleCloud's status (+ nodes when `with_nodes`)
 * into p->snodes, p->model, p->layout, and apply capacity holds. */
int ccas_power_load (struct ccas_power *p, bool with_nodes, struct ccas_error *err);

/* Queue `name` to be handed back to Slurm (powered down, its job requeued)
 * with `reason` (copied); a "failed" event names its job (p->rf). */
void ccas_power_handback (struct ccas_power *p, const char *name, const char *reason);

/* Send the queued hand-backs, one Slurm update per distinct reason, logged
 * with the job ids of the names (p->rf). */
void ccas_power_flush (struct ccas_power *p);

/* Apply a Slurm update to `names` (a dry run prints it instead). */
int ccas_power_update (struct ccas_power *p, const char *const *names, size_t n, enum ccas_slurm_update what,
                       const char *reason);

/* Return nodes to service: RESUME those that are down, UNDRAIN those that
 * are only drained (Slurm refuses RESUME on a drained powered-down node). */
void ccas_power_return (struct ccas_power *p, const char *const *names, size_t n);

/* Drain those of `names` that are powering down or powered down, in a held
 * bucket (capacity window, breaker), and not out of service for a reason
 * someone else set: one update per distinct hold reason. */
void ccas_power_hold_held (struct ccas_power *p, char *const *names, size_t n);

/* True for a reason ccautoscale may clear: its own ("ccautoscale: ..."),
 * Slurm's "ResumeTimeout reached", and the stock azslurm's
 * "cyclecloud_zombie_node" and "cyclecloud_no_node" (left by a cluster that
 * ran azslurm before). */
bool ccas_power_reason_ours (const char *reason);

/* The reason of a node whose VM is kept for inspection (a zombie, a Failed
 * VM under slurm.failed_vms keep, remove-nodes --keep-vms): nothing gives
 * the VM back or powers the node up until the VM is gone (then sync
 * returns the node).  CCAS_POWER_ZOMBIE marks a zombie: a VM nobody asked
 * for behind a powered-down node. */
#define CCAS_POWER_KEPT "ccautoscale: kept: "
#define CCAS_POWER_ZOMBIE "ccautoscale: zombie: "
bool ccas_power_reason_kept (const char *reason);

/* The distinct job ids of `names` in p->rf: "job 7", "jobs 7,9", or "".
 * Returns `buf`. */
const char *ccas_power_jobs (const struct ccas_power *p, const char *const *names, size_t n, char *buf,
                             size_t size);

/* Record what Slurm asked for, as event `type` ("resume_requested",
 * "suspend_requested"): the names as a hostlist and, from p->rf, the jobs;
 * written before anything is sent, whatever comes of it, so the events
 * file holds every power change in the order the programs held the lock.
 * Nothing in a dry run. */
void ccas_power_requested (struct ccas_power *p, const char *type, char *const *names, size_t n);

/* Log at `level`, and in a dry run also print to p->out. */
void ccas_power_say (struct ccas_power *p, int level, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));

void ccas_power_close (struct ccas_power *p);

/* Hand every name back with `reason` without a configuration or a model
 * (the last resort when a run cannot even start); the log names the jobs
 * of `rf` (may be NULL). */
void ccas_power_handback_all (const char *prog, char **names, size_t n, const struct ccas_resume_file *rf,
                              const char *reason);

/* ---- the programs ------------------------------------------------------------------- */

int ccas_power_resume (struct ccas_power *p, char **names, size_t n, const struct ccas_resume_file *rf);
int ccas_power_suspend (struct ccas_power *p, char **names, size_t n);
int ccas_power_resume_fail (struct ccas_power *p, char **names, size_t n);

struct ccas_sync_report {
    unsigned orphans, failed_released, addresses_set, returned, held, released_holds;
    unsigned zombies;         /* VMs kept behind powered-down nodes (slurm.zombie_vms keep) */
    unsigned failed_kept;     /* Failed VMs kept (slurm.failed_vms keep) */
    unsigned records_deleted; /* dynamic node records deleted (slurm.dynamic_delete) */
    unsigned resumed;         /* nodes powering up with no VM, resumed (a resume cut short) */
    bool keepalive_changed;   /* SuspendExcNodes or its include changed */
};
int ccas_power_sync (struct ccas_power *p, struct ccas_sync_report *rep);

#endif /* !CCAS_POWER_H */
