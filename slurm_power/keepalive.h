/* SPDX-License-Identifier: MIT */
/* keepalive.h: SuspendExcNodes — the nodes Slurm must never power down, whoever put them there.
 *
 * Three kinds of name share slurmctld's SuspendExcNodes: the nodes whose VM
 * is KeepAlive in CycleCloud (sync adds them), the nodes named to
 * `ccautoscale slurm keep-alive add` (their VMs are then made KeepAlive in
 * CycleCloud when resume creates them), and the administrator's own, from
 * slurm.conf or `scontrol update SuspendExcNodes+=`.  ccautoscale takes out
 * only a name it put in itself, and never one that was there before it
 * asked: the administrator's entries stay through every add, remove and
 * sync.  What it put in is kept in state_dir/slurm_keepalive.json:
 *   {"command": {"<name>": {"time": T, "added": true}}, "synced": {"<name>": T}}
 * ("added" false: the name was in SuspendExcNodes already; keep-alive
 * remove then leaves it there).
 *
 * The running value is changed in place from Slurm 23.02 (what
 * ReconfigFlags=KeepPowerSaveSettings needs); before, the include file
 * slurm.keepalive_file is rewritten and slurmctld reconfigured.  Either way
 * the include then holds the whole running value, so a restart keeps it:
 * it must come after any SuspendExcNodes line of slurm.conf (the last line
 * wins), which the Include of ccautoscale.conf does when that line is above
 * it.  Entries of the "nodes:count" form (23.02+) are kept as they are.
 */
#ifndef CCAS_SLURM_KEEPALIVE_H
#define CCAS_SLURM_KEEPALIVE_H

#include <stdbool.h>
#include <stddef.h>

#include "power.h"
#include "util/state.h"

/* ---- the state -------------------------------------------------------------------------- */

/* state_dir/slurm_keepalive.json.  Caller frees with ccas_state_destroy(). */
struct ccas_state *ccas_slurm_keepalive_load (const char *state_dir, struct ccas_error *err);

/* Whether `name` was named to keep-alive add (`st` may be NULL: no). */
bool ccas_slurm_keepalive_has (struct ccas_state *st, const char *name);

/* ---- SuspendExcNodes values -------------------------------------------------------------------- */

/* A SuspendExcNodes value, split: the names of its plain entries, and its
 * "nodes:count" entries as they are. */
struct ccas_slurm_exc {
    char **names; /* expanded, in the value's order */
    size_t n;
    char *counted; /* "hpc-[1-8]:2,gpu-[1-4]:1", or NULL */
};

/* Split `value` ("" or "(null)" for none).  Returns 0 (release with
 * ccas_slurm_exc_release()) or -1 with `err` naming the entry. */
int ccas_slurm_exc_parse (const char *value, struct ccas_slurm_exc *out, struct ccas_error *err);
void ccas_slurm_exc_release (struct ccas_slurm_exc *e);

/* Whether `e` names `name` among its plain entries. */
bool ccas_slurm_exc_has (const struct ccas_slurm_exc *e, const char *name);

/* The value of `e` with `add` added and `remove` taken out (names), plain
 * entries compressed, counted ones kept: "" for none.  Caller frees with
 * free(); NULL when out of memory. */
char *ccas_slurm_exc_edit (const struct ccas_slurm_exc *e, char *const *add, size_t nadd, char *const *remove,
                           size_t nremove);

/* ---- changing it -------------------------------------------------------------------------------- */

struct ccas_slurm_keepalive_change {
    char **added; /* the names of `add` that were not there before (strings owned) */
    size_t nadded;
    char **removed; /* the names of `remove` that were there */
    size_t nremoved;
    bool include_written; /* the include changed */
};

/* Add `add` to the running SuspendExcNodes and take `remove` out (names
 * not there, or already there, are left as they are), then write the
 * include with the whole value.  `t` is the slurmctld's traits.  A dry run
 * says what it would do.  Returns 0 (release `out` with
 * ccas_slurm_keepalive_change_release()) or -1 with `err`; `out` then says
 * what was done before the failure. */
int ccas_slurm_keepalive_change (struct ccas_power *p, const struct ccas_slurm_traits *t, char *const *add,
                                 size_t nadd, char *const *remove, size_t nremove,
                                 struct ccas_slurm_keepalive_change *out, struct ccas_error *err);
void ccas_slurm_keepalive_change_release (struct ccas_slurm_keepalive_change *c);

/* The include's text for running value `value`. Caller frees with free(). */
char *ccas_slurm_keepalive_text (const char *value);

#endif /* !CCAS_SLURM_KEEPALIVE_H */
