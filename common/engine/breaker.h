/* SPDX-License-Identifier: MIT */
/* breaker.h: stop creating in a nodearray whose VMs keep failing to boot.
 *
 * Each boot failure (a VM Failed, stuck past boot_timeout, or never
 * registered before ResumeTimeout) counts against its nodearray; a VM that
 * boots resets the count — once per boot: for Slurm, a node's first
 * registration after its VM was created or started; for PBS, its join.  At breaker.threshold consecutive
 * failures the breaker opens: it is logged at LOG_ERR, written as a "breaker_opened" event, and every bucket
 * of the nodearray is held (holds.h) with the reason "ccautoscale: breaker: ..." — so the engine creates
 * nothing there, Slurm's powered-down nodes are drained with that Reason, and `status` shows it — until
 * `ccautoscale breaker reset NODEARRAY` or breaker.cooldown seconds (0: until reset).  The counts live in
 * state_dir/breakers.json.
 */
#ifndef CCAS_BREAKER_H
#define CCAS_BREAKER_H

#include <json-c/json.h>
#include <stdbool.h>

#include "conf/conf.h"
#include "engine/holds.h"
#include "model/cluster.h"
#include "util/error.h"

struct ccas_breakers;

/* Caller frees with ccas_breakers_destroy(). */
struct ccas_breakers *ccas_breakers_load (const struct ccas_config *cfg, struct ccas_error *err);
void ccas_breakers_destroy (struct ccas_breakers *b);
int ccas_breakers_save (struct ccas_breakers *b, struct ccas_error *err);

/* A boot failure in `nodearray` (`what`: "htc-3: boot timeout ..."); opens the
 * breaker at the threshold, holding the nodearray's buckets of `c` in `holds`.
 * Returns true when this failure opened it. */
bool ccas_breaker_boot_failed (struct ccas_breakers *b, struct ccas_holds *holds,
                               const struct ccas_cluster *c, const char *nodearray, const char *what,
                               double now);

/* A VM of `nodearray` booted: the count starts again (an open breaker stays open). */
void ccas_breaker_booted (struct ccas_breakers *b, const char *nodearray);

/* Close the breaker of `nodearray` and end its holds now (sync returns the
 * drained nodes).  Returns false if it was not open. */
bool ccas_breaker_reset (struct ccas_breakers *b, struct ccas_holds *holds, const char *nodearray,
                         double now);

/* Close breakers whose cool-down ended. */
void ccas_breakers_expire (struct ccas_breakers *b, double now);

/* {nodearray: {"failures", "open", "since", "until", "last"}} (borrowed). */
json_object *ccas_breakers_json (const struct ccas_breakers *b);

/* The ccautoscale_breaker_open{nodearray} gauge. */
void ccas_breakers_metrics (const struct ccas_breakers *b);

#endif /* !CCAS_BREAKER_H */
