/* SPDX-License-Identifier: MIT */
/* act.h: the tail every acting command shares — print the plan, carry it out unless dry. */
#ifndef CCAS_ACT_H
#define CCAS_ACT_H

#include <stdbool.h>

#include "cli.h"
#include "engine/pass.h"
#include "engine/plan.h"
#include "model/cluster.h"

/* Find a nodearray by name; prints the known names and returns NULL if absent. */
struct ccas_nodearray *act_nodearray (struct cli *cli, struct ccas_cluster *c, const char *name);

/* Find the bucket of `machine_type` in `na`, or the first valid one when
 * `machine_type` is NULL; prints the known machine types and returns NULL
 * if absent. */
struct ccas_bucket *act_bucket (struct cli *cli, struct ccas_cluster *c, struct ccas_nodearray *na,
                                const char *machine_type);

/* The exit status of ccas_pass_carry_out() returning `rc` with `err` for
 * `plan`: EXIT_OK; EXIT_PARTIAL when some nodes could not be had;
 * EXIT_CYCLECLOUD when a request failed, or EXIT_INTERNAL when nothing could
 * be asked (pass->sent), each after printing `err`. */
int act_carried (struct cli *cli, const struct ccas_pass *pass, const struct ccas_plan *plan, int rc,
                 const struct ccas_error *err);

/* Carry `plan` out in a pass of its own (engine/pass.h: the holds and
 * breakers read and saved once, under the lock the command holds).
 * Returns act_carried()'s exit status; EXIT_INTERNAL (printed) when nothing
 * was sent. */
int act_carry_out (struct cli *cli, struct ccas_plan *plan);

/* Print the plan (table or JSON); unless `dry_run`, apply it (one request per
 * kind) and print the outcome.  With `wait` > 0 seconds, then follow the
 * created nodes until Ready (or the terminated ones until gone), showing
 * progress (see wait.h); with --json the outcome is the plan's "wait" member.
 * Returns an exit code: EXIT_PARTIAL when some of it could not be done. */
int act_finish (struct cli *cli, struct ccas_plan *plan, bool dry_run, double wait);

#endif /* !CCAS_ACT_H */
