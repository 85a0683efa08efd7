/* SPDX-License-Identifier: MIT */
/* wait.h: --wait — follow the nodes an action touched until they settle.
 *
 * A create is followed through GET /nodes?request_id= (exactly the nodes the
 * request made); a terminate through GET /nodes, until each named node is
 * gone or Terminated.  On a terminal the status counts refresh in place; when
 * stdout is not a terminal one line is printed each time they change; with
 * --json nothing is printed and the outcome goes into the report.
 */
#ifndef CCAS_WAIT_H
#define CCAS_WAIT_H

#include <json-c/json.h>
#include <stddef.h>

#include "cli.h"

enum wait_goal {
    WAIT_READY, /* every node Ready (or Failed, which ends the wait for it) */
    WAIT_GONE,  /* every node removed or Terminated */
};

struct wait_spec {
    enum wait_goal goal;
    double timeout;           /* seconds */
    const char *request_id;   /* WAIT_READY: the create's request id */
    const char *const *names; /* WAIT_GONE: the nodes terminated */
    size_t nnames;
};

/* Poll until every node reached the goal or `timeout` passed.  Returns
 * EXIT_OK when all did, EXIT_PARTIAL when a node failed or time ran out
 * (after saying which), EXIT_CYCLECLOUD when polling failed.  `*report`
 * is set to {"seconds", "timed_out", "nodes": [{name, status, message?}]}
 * (caller puts it), or NULL on out of memory. */
int wait_nodes (struct cli *cli, const struct wait_spec *spec, json_object **report);

/* Parse --wait's optional SECONDS (NULL: the default, 1200).  Returns
 * EXIT_OK or a usage error. */
int wait_parse_timeout (struct cli *cli, const char *arg, double *timeout);

#endif /* !CCAS_WAIT_H */
