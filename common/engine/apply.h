/* SPDX-License-Identifier: MIT */
/* apply.h: carry a plan out through CycleCloud in the fewest requests.
 *
 * Every create set goes in one request whose requestId is written to the
 * requests state file before it is sent, so a run killed at any point can be
 * followed by one that finds out what happened instead of creating again.
 * Then one start request and one terminate request.  New nodes learn their
 * names from the create operation's node list, never by guessing.  Outcomes
 * are recorded in the plan, per set and per node.
 */
#ifndef CCAS_APPLY_H
#define CCAS_APPLY_H

#include "ccapi/ccapi.h"
#include "engine/plan.h"
#include "util/error.h"
#include "util/state.h"

struct ccas_apply_stats {
    unsigned requested; /* nodes asked for */
    unsigned created;   /* nodes the server added */
    unsigned started, terminated;
    unsigned failed; /* nodes or sets that failed */
};

/* Carry out `plan`.  `requests` (may be NULL) records pending create
 * requests.  Returns 0 if every request was answered (partial results are
 * recorded, not errors), -1 with `err` on the first request that failed;
 * what was done before it stays recorded in the plan. */
int ccas_apply (struct ccas_plan *plan, struct ccas_ccapi *api, struct ccas_state *requests,
                struct ccas_apply_stats *stats, struct ccas_error *err);

/* Settle create requests a previous run recorded but did not finish: each
 * is looked up by request id and dropped from `requests` once known.
 * Returns how many were still pending, or -1 with `err`. */
int ccas_apply_reconcile (struct ccas_ccapi *api, struct ccas_state *requests, struct ccas_error *err);

#endif /* !CCAS_APPLY_H */
