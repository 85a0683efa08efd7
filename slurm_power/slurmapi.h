/* SPDX-License-Identifier: MIT */
/* slurmapi.h: the few libslurm calls ccautoscale needs, with errors as text.
 *
 * Everything Slurm-specific that is not policy lives here: loading nodes and
 * jobs, updating node state, reason and address, and hostlist expressions
 * (Slurm's own expander, never a hand-written one).  ccas_slurm_init() must be
 * called once first; it reads SLURM_CONF like every Slurm command.
 */
#ifndef CCAS_SLURMAPI_H
#define CCAS_SLURMAPI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "slurm_version.h"
#include "util/error.h"

struct ccas_slurm_nodes;

/* Initialise libslurm (once per process).  Returns 0 or -1 with `err`. */
int ccas_slurm_init (struct ccas_error *err);

/* Release libslurm's configuration (for leak checkers; not with 23.02's
 * libslurm, which cannot: slurm_compat.h). */
void ccas_slurm_fini (void);

/* slurm_strerror() of the error the last failed libslurm call left.  Static. */
const char *ccas_slurm_last_error (void);

/* ---- versions ---------------------------------------------------------------------- */

/* The Slurm release whose headers ccautoscale was built with ("25.11.7"). Static. */
const char *ccas_slurm_built_version (void);

/* "libslurm 25.11.7 (API 44) from /opt/slurm": what it was built against,
 * and the API number of the library loaded now.  Returns `buf`. */
const char *ccas_slurm_describe (char *buf, size_t size);

/* What slurmctld says of itself and of the settings ccautoscale depends on. */
struct ccas_slurm_controller {
    char version[32];              /* "25.11.7" */
    char params[1024];             /* SlurmctldParameters, or "" */
    char suspend_exc_states[256];  /* SuspendExcStates (23.02+), or "" */
    bool keep_power_save_settings; /* ReconfigFlags=KeepPowerSaveSettings (23.02+) */
    unsigned resume_timeout;       /* ResumeTimeout, seconds */
    char topology_plugin[64];      /* TopologyPlugin ("topology/tree"), or "" */
    double boot_time;              /* when slurmctld started (Unix seconds) */
    unsigned controllers;          /* SlurmctldHost lines: 2 or more for an HA pair */
    unsigned slurmctld_timeout;    /* SlurmctldTimeout: seconds before a backup takes over */
};

/* Ask slurmctld (one RPC; ccas_slurm_init() first).  Returns 0, or -1 with
 * `err` (slurmctld not answering). */
int ccas_slurm_controller_load (struct ccas_slurm_controller *out, struct ccas_error *err);

/* The traits (slurm_version.h) of the Slurm whose headers ccautoscale was
 * built with. */
void ccas_slurm_traits_built (struct ccas_slurm_traits *t);

/* The traits of the slurmctld that answers: its version and
 * SlurmctldParameters, *ctl holding what it said.  Returns 0; or -1 with
 * `err` when it does not answer or its version cannot be read, and then
 * `t` holds ccas_slurm_traits_built()'s. */
int ccas_slurm_traits_load (struct ccas_slurm_traits *t, struct ccas_slurm_controller *ctl,
                            struct ccas_error *err);

/* ---- hostlists ----------------------------------------------------------------- */

/* More names than any cluster has: an expression that expands further is a
 * mistake, refused before it takes the memory. */
#define CCAS_HOSTLIST_MAX (1 << 20)

/* Expand "hpc-[1-4,7]" into names (at most CCAS_HOSTLIST_MAX).  Returns an array of `*n` strings (caller
 * frees with ccas_slurm_names_free()), or NULL with `err`. */
char **ccas_slurm_hostlist_expand (const char *expr, size_t *n, struct ccas_error *err);
void ccas_slurm_names_free (char **names, size_t n);

/* Compress names into a ranged expression.  Caller frees with free(). */
char *ccas_slurm_hostlist_compress (const char *const *names, size_t n);

/* ---- nodes ----------------------------------------------------------------------- */

struct ccas_slurm_node {
    const char *name;
    const char *features; /* available features, comma-separated, or NULL */
    const char *reason;
    const char *addr;
    const char *hostname;
    const char *partitions;
    uint32_t state; /* node_state bits */
    uint16_t cpus;
    uint16_t port;        /* slurmd's port (Port=) */
    uint64_t real_memory; /* MB */
};

/* Load every node (one RPC).  Caller frees with ccas_slurm_nodes_destroy(). */
struct ccas_slurm_nodes *ccas_slurm_nodes_load (struct ccas_error *err);
void ccas_slurm_nodes_destroy (struct ccas_slurm_nodes *nodes);

size_t ccas_slurm_nodes_count (const struct ccas_slurm_nodes *nodes);

/* Borrowed; valid while `nodes` lives.  NULL if out of range or unknown. */
const struct ccas_slurm_node *ccas_slurm_nodes_at (const struct ccas_slurm_nodes *nodes, size_t i);
const struct ccas_slurm_node *ccas_slurm_nodes_find (const struct ccas_slurm_nodes *nodes, const char *name);

/* State predicates. */
bool ccas_slurm_node_cloud (const struct ccas_slurm_node *n);
bool ccas_slurm_node_powered_down (const struct ccas_slurm_node *n);  /* ~ and not powering up */
bool ccas_slurm_node_powering_up (const struct ccas_slurm_node *n);   /* # */
bool ccas_slurm_node_powering_down (const struct ccas_slurm_node *n); /* % */
bool ccas_slurm_node_down (const struct ccas_slurm_node *n);
bool ccas_slurm_node_drained (const struct ccas_slurm_node *n); /* drain flag set */
bool ccas_slurm_node_busy (const struct ccas_slurm_node *n);    /* allocated / mixed / completing */
bool ccas_slurm_node_has_feature (const struct ccas_slurm_node *n, const char *feature);
bool ccas_slurm_node_dynamic (
    const struct ccas_slurm_node *n); /* made at run time (scontrol create, slurmd -Z) */

/* "idle~", "alloc#", "down~" ... like sinfo.  Returns `buf`. */
const char *ccas_slurm_node_state_text (const struct ccas_slurm_node *n, char *buf, size_t size);

/* ---- jobs ------------------------------------------------------------------------------ */

/* The nodes allocated to job `job_id` (one RPC), expanded: an array of
 * `*n` names (caller frees with ccas_slurm_names_free()), or NULL with
 * `err` (no such job, no nodes yet, slurmctld not answering). */
char **ccas_slurm_job_nodes (uint32_t job_id, size_t *n, struct ccas_error *err);

/* ---- updates ------------------------------------------------------------------------ */

enum ccas_slurm_update {
    CCAS_SLURM_POWER_DOWN_FORCE, /* give a node back now: requeue its job, power it down */
    CCAS_SLURM_DRAIN,            /* keep a (powered-down) node out of scheduling */
    CCAS_SLURM_DOWN,
    CCAS_SLURM_RESUME,   /* return a down node to service */
    CCAS_SLURM_UNDRAIN,  /* return a drained (not down) node to service */
    CCAS_SLURM_POWER_UP, /* power a (powered-down) node up: slurmctld runs ResumeProgram */
};

/* Update `hostlist` (an expression or one name).  `reason` may be NULL.
 * Returns 0 or -1 with `err` (Slurm's message). */
int ccas_slurm_update (const char *hostlist, enum ccas_slurm_update what, const char *reason,
                       struct ccas_error *err);

/* Set NodeAddr and NodeHostname of `name` (either may be NULL). */
int ccas_slurm_set_addr (const char *name, const char *addr, const char *hostname, struct ccas_error *err);

/* Have slurmctld (and the slurmd) re-read slurm.conf: `scontrol reconfigure`.
 * Returns 0 or -1 with `err`. */
int ccas_slurm_reconfigure (struct ccas_error *err);

/* Add the names of `add` to the running slurmctld's SuspendExcNodes and take
 * those of `remove` out (hostlists; either may be NULL), without a
 * reconfigure (Slurm 23.02+).  Returns 1 when done, 0 when this libslurm
 * cannot (22.05: reconfigure instead), -1 with `err`. */
int ccas_slurm_suspend_exc_update (const char *add, const char *remove, struct ccas_error *err);

/* The running slurmctld's SuspendExcNodes, as it reports it ("" for none).
 * Caller frees with free(); NULL with `err` when slurmctld does not answer. */
char *ccas_slurm_suspend_exc_nodes (struct ccas_error *err);

/* ---- dynamic nodes ----------------------------------------------------------------- */

/* Create node records from a slurm.conf node line ("NodeName=f4-[1-3]
 * State=CLOUD Feature=dyn,Standard_F4s_v2 CPUs=4"), as `scontrol create`
 * does (22.05+; slurmctld wants select/cons_tres, and State CLOUD or
 * FUTURE).  Returns 0 or -1 with `err` (Slurm's message). */
int ccas_slurm_create_nodes (const char *node_line, struct ccas_error *err);

/* Delete the dynamic node records of `hostlist` (`scontrol delete`):
 * slurmctld refuses a node that runs a job, is in a reservation or is not
 * dynamic.  Returns 0 or -1 with `err`. */
int ccas_slurm_delete_nodes (const char *hostlist, struct ccas_error *err);

#endif /* !CCAS_SLURMAPI_H */
