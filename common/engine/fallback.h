/* SPDX-License-Identifier: MIT */
/* fallback.h: after a create came back short for want of capacity, the
 * jobs that were to run on the nodes it did not make are placed again, in
 * the same pass, on new nodes of the next bucket they allow.
 *
 * Each lost node moves whole: every slot it held (of one job or of several
 * packed on it) goes to one new node of another bucket, in preference
 * order (nodearray priority, then the buckets' order), where every one of
 * those slots' constraints holds again on the new node (resources,
 * exclusivity, properties; a job's shared pools were taken once already).
 * The lost nodes of one placement group move together into one new group
 * of one bucket with room for all of them, or not at all; a group whose
 * jobs also have slots on nodes that were made stays short (its jobs cannot
 * be split over groups).  A node outside groups never moves into a
 * colocated bucket unless its jobs are each of one slot.  What finds no
 * bucket stays short, as it was.  The engine's indexes are not used: a few
 * lost nodes are moved, not a queue matched.
 */
#ifndef CCAS_FALLBACK_H
#define CCAS_FALLBACK_H

#include <stddef.h>

#include "engine/plan.h"
#include "model/cluster.h"
#include "model/job.h"
#include "util/error.h"

/* Move the slots `jobs` held on the `nlost` nodes `lost` (dropped from `c`
 * already, their buckets held) to new nodes, pointing the jobs' slots at
 * them.  Returns how many lost nodes were moved, or -1 with `err` (out of
 * memory: the model may then hold nodes no job uses). */
int ccas_fallback_jobs (struct ccas_cluster *c, struct ccas_jobs *jobs, struct ccas_node *const *lost,
                        size_t nlost, struct ccas_error *err);

/* The same as a plan's replan (ccas_plan_replan_f): `arg` is the jobs. */
int ccas_fallback_jobs_cb (void *arg, struct ccas_plan *plan, struct ccas_node *const *lost, size_t nlost,
                           struct ccas_error *err);

#endif /* !CCAS_FALLBACK_H */
