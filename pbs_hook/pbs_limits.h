/* SPDX-License-Identifier: MIT */
/* pbs_limits.h: the run limits of PBS's server and queues, so that a job PBS
 * will not start because of one makes no nodes.
 *
 * Read from `qstat -Q -f -F json` and `qstat -B -f -F json`: max_run and
 * max_run_res.<resource> in PBS's entity syntax ("[o:PBS_ALL=10],
 * [u:PBS_GENERIC=2], [u:alice=4]": o overall, u per user, g per group, p per
 * project; a named entity's own limit replaces PBS_GENERIC for it), the
 * older max_running, max_user_run, max_group_run, max_user_res.<r> and
 * max_group_res.<r>, and a queue that is not started or is a routing queue
 * (its jobs do not run where they are).  The soft limits (max_run_soft, ...)
 * are PBS's preference, not a limit, and are ignored.  max_queued needs
 * nothing: qsub refuses a job beyond it.
 *
 * Running jobs (R, E) are counted first; then each queued job, in PBS's
 * order, is admitted (and counted) or refused with the limit that stops it,
 * the way PBS's scheduler would start them if every job had its nodes.
 */
#ifndef CCAS_PBS_LIMITS_H
#define CCAS_PBS_LIMITS_H

#include <json-c/json.h>
#include <stdbool.h>

#include "util/error.h"

/* What every reason of a job refused starts with. */
#define CCAS_PBS_LIMIT_PREFIX "PBS will not start it: "

struct ccas_pbs_limits;

/* Caller frees with ccas_pbs_limits_destroy(); NULL when out of memory. */
struct ccas_pbs_limits *ccas_pbs_limits_create (void);
void ccas_pbs_limits_destroy (struct ccas_pbs_limits *l);

/* Read the documents qstat -Q -f -F json (`queues`) and qstat -B -f -F json
 * (`server`) printed (borrowed; either may be NULL).  0, or -1 with `err`
 * naming the attribute that cannot be read. */
int ccas_pbs_limits_read (struct ccas_pbs_limits *l, json_object *queues, json_object *server,
                          struct ccas_error *err);

/* True when no limit was read (nothing to count). */
bool ccas_pbs_limits_none (const struct ccas_pbs_limits *l);

/* Who a job is, and what it asks (Resource_List), for the limits. */
struct ccas_pbs_entity {
    const char *queue, *user, *group, *project; /* any may be NULL */
    json_object *resources;                     /* Resource_List, borrowed; may be NULL */
};

/* Count a job that runs. */
void ccas_pbs_limits_running (struct ccas_pbs_limits *l, const struct ccas_pbs_entity *e);

/* Would PBS start queued job `e` now, with the jobs counted so far running?
 * NULL when it would (and it is counted); else why not
 * (CCAS_PBS_LIMIT_PREFIX "queue workq max_run [o:PBS_ALL=2]: 2 running"),
 * valid until the next call. */
const char *ccas_pbs_limits_admit (struct ccas_pbs_limits *l, const struct ccas_pbs_entity *e);

#endif /* !CCAS_PBS_LIMITS_H */
