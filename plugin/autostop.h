/* SPDX-License-Identifier: MIT */
/* autostop.h: a node's request to stop, decided and carried out — the one
 * decision `ccautoscale autostop` and `ccautoscale serve` share.
 *
 * The caller holds the lock (util/lock.h) in cli->lock and has the model with
 * its node records, read under that lock or fresh enough (serve_decide.h
 * says how fresh).  autostop_view_load() reads the request sets from
 * state_dir and counts their arrays in the model (engine/targets.h);
 * autostop_decide() asks those targets whether a node may stop and, when
 * granted and asked to act, terminates it through act_carry_out(), opening
 * the metrics for it if the caller has not (the caller flushes them); when
 * that empties an array flagged for removal, its set forgets it.  The
 * command loads a view for its one decision; the service keeps one with its
 * model for as long as neither changes.  Nothing here prints but the errors
 * act_carry_out() and cli_fail() print; the caller says what happened, as
 * text, JSON or an HTTP answer.
 */
#ifndef CCAS_AUTOSTOP_H
#define CCAS_AUTOSTOP_H

#include <stdbool.h>

#include "cli.h"
#include "engine/targets.h"
#include "model/cluster.h"

/* The request sets and what they want of the model, counted at one time. */
struct autostop_view {
    struct ccas_request_set **sets; /* owned */
    size_t nsets;
    struct ccas_targets *targets; /* owned; borrows the sets and the model */
};

struct autostop_outcome {
    struct ccas_autostop a; /* the decision and its reason; a.array and
                             * a.request_set point into the copies below */
    char array[256];
    char request_set[256];
    bool acted;             /* granted and a terminate was sent */
    bool terminated;        /* ... and CycleCloud carried it out */
    char error[512];        /* CycleCloud's error for the node, or "" */
    char operation_id[128]; /* the terminate's operation, or "" */
};

/* The existing node of `c` named `name` (its CycleCloud name or hostname),
 * else the one whose InstanceId or NodeId is `instance`; NULL if none.
 * Borrowed from `c`. */
struct ccas_node *autostop_find (struct ccas_cluster *c, const char *name, const char *instance);

/* The same for a command's --node NAME or --instance ID: NULL after saying
 * on stderr that the cluster has no such node, with *rc the exit status. */
struct ccas_node *autostop_find_cli (struct cli *cli, struct ccas_cluster *c, const char *name,
                                     const char *instance, int *rc);

/* Read the request sets of state_dir and count them in `c` now.  Returns
 * EXIT_OK with `v` filled (release with autostop_view_release(), before `c`
 * goes), or EXIT_INTERNAL after printing the error (`v` then empty). */
int autostop_view_load (struct cli *cli, struct ccas_cluster *c, struct autostop_view *v);
void autostop_view_release (struct autostop_view *v);

/* Decide whether node `n` of `c` may stop, by view `v` of `c`, and when
 * granted and `act`, terminate it.  Fills `out` (also when it fails).
 * Returns EXIT_OK, EXIT_PARTIAL when the terminate was granted but not
 * carried out, or EXIT_CYCLECLOUD or EXIT_INTERNAL after printing the
 * error.  After a terminate the model and the view no longer say what
 * CycleCloud does: a caller that keeps them must read both again. */
int autostop_decide (struct cli *cli, struct ccas_cluster *c, struct autostop_view *v, struct ccas_node *n,
                     bool act, struct autostop_outcome *out);

/* "granted", "going" or "refused". */
const char *autostop_decision_name (enum ccas_autostop_decision d);

#endif /* !CCAS_AUTOSTOP_H */
