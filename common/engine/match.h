/* SPDX-License-Identifier: MIT */
/* match.h: the allocation engine — jobs onto existing nodes, then new ones.
 *
 * Jobs are taken in the order given (the scheduler's priority), each placed
 * whole or not at all.  A slot goes to an existing node first (ready, then
 * booting, then a stopped node that would be started), then to a new node in
 * the most preferred bucket with room: nodearray priority, then the job's own
 * preference (earlier options of a listed match), then configuration order.
 * A colocated job puts every slot in one placement group of one bucket: an
 * existing group with room, else a new one, never past the bucket's
 * maxPlacementGroupSize.  Every job left unmatched carries the reason of its
 * closest miss.
 *
 * Cost: ccas_match() takes O((J + P + S) * B * log(N + G)) time for J jobs,
 * P slots placed or tried, S distinct constraint shapes, B buckets, N nodes
 * and G placement groups, plus O(log N) for each candidate an index offers
 * that the full test then refuses (only terms no index judges cause those:
 * resource matches, node names, xor) — a job never scans what was placed
 * before it (candidates.h).
 */
#ifndef CCAS_MATCH_H
#define CCAS_MATCH_H

#include <stdbool.h>
#include <stddef.h>

#include "model/cluster.h"
#include "model/job.h"
#include "util/error.h"

struct ccas_match_stats {
    size_t jobs;
    size_t matched;
    size_t unmatched;
    size_t slots;          /* slots placed */
    size_t existing_nodes; /* existing nodes given work */
    size_t new_nodes;      /* nodes to create */
};

/* Place `jobs` on `c`.  Running jobs first take their resources from the
 * nodes they run on; pending jobs are then matched in order.  Results are
 * written into each job (matched, slots, reason).  Returns 0, or -1 with
 * `err` when out of memory (the model is then unusable).  `stats` may be NULL. */
int ccas_match (struct ccas_cluster *c, struct ccas_jobs *jobs, struct ccas_match_stats *stats,
                struct ccas_error *err);

/* For tests and benchmarks: with `on`, later calls keep no index and look at
 * every node and placement group in turn, as the engine did before it had
 * them; the results must be the same, only slower. */
void ccas_match_set_exhaustive (bool on);

#endif /* !CCAS_MATCH_H */
