/* SPDX-License-Identifier: MIT */
/* holds.h: buckets held back after a capacity or quota failure (capacity windows).
 *
 * A held bucket takes no new nodes until its window ends: the engine skips
 * it, and the Slurm side keeps its powered-down nodes drained with the
 * reason.  Holds live in state_dir/holds.json so they survive restarts.
 */
#ifndef CCAS_HOLDS_H
#define CCAS_HOLDS_H

#include <stdbool.h>

#include "ccapi/failure.h"
#include "model/cluster.h"
#include "util/error.h"

struct ccas_holds;

/* Load the holds.  Caller frees with ccas_holds_destroy(). */
struct ccas_holds *ccas_holds_load (const char *state_dir, struct ccas_error *err);
void ccas_holds_destroy (struct ccas_holds *h);

/* Hold nodearray/machine_type for `seconds` from `now` with `reason` (copied). */
void ccas_holds_add (struct ccas_holds *h, const char *nodearray, const char *machine_type, double now,
                     double seconds, enum ccas_failure_class cls, const char *reason);

/* The same with a class name of the caller's ("breaker"). */
void ccas_holds_add_class (struct ccas_holds *h, const char *nodearray, const char *machine_type, double now,
                           double seconds, const char *class_name, const char *reason);

/* End now the holds of `nodearray` whose class is `class_name` (the next
 * expiry releases what they held). */
void ccas_holds_end_class (struct ccas_holds *h, const char *nodearray, const char *class_name, double now);

/* The reason of an active hold, or NULL.  Borrowed until the next change. */
const char *ccas_holds_reason (const struct ccas_holds *h, const char *nodearray, const char *machine_type,
                               double now);

/* Seconds left of an active hold, or 0. */
double ccas_holds_remaining (const struct ccas_holds *h, const char *nodearray, const char *machine_type,
                             double now);

/* Hold every bucket of `c` that has an active hold.  Returns 0 or -1. */
int ccas_holds_apply (const struct ccas_holds *h, struct ccas_cluster *c, double now);

/* Remove holds that ended; for each, fn(nodearray, machine_type, arg) is
 * called first.  Returns how many ended. */
typedef void (*ccas_holds_ended_f) (const char *nodearray, const char *machine_type, void *arg);
int ccas_holds_expire (struct ccas_holds *h, double now, ccas_holds_ended_f fn, void *arg);

/* Every hold as JSON (borrowed): {"na/mt": {"until", "reason", "class"}}. */
json_object *ccas_holds_json (const struct ccas_holds *h);

int ccas_holds_save (struct ccas_holds *h, struct ccas_error *err);

/* The active holds as the ccautoscale_bucket_held gauge (metrics.h). */
void ccas_holds_metrics (const struct ccas_holds *h, double now);

#endif /* !CCAS_HOLDS_H */
