/* SPDX-License-Identifier: MIT */
/* report.h: one call per outcome that both the events file and the metrics
 * must know about, so the two never disagree. */
#ifndef CCAS_REPORT_H
#define CCAS_REPORT_H

#include "ccapi/ccapi.h"
#include "model/cluster.h"
#include "model/node.h"

/* A node started, shut down, deallocated or terminated ("started" or
 * "terminated" event; terminations counted per nodearray).  `event` may
 * name it otherwise ("orphan_reaped"); `reason` and `operation` may be NULL. */
void ccas_report_action (const char *event, enum ccas_node_action action, const struct ccas_node *n,
                         const char *reason, const char *operation);

/* The model's nodes by nodearray and state (the ccautoscale_nodes gauge),
 * and the latency of every node requested earlier that is Ready now. */
void ccas_report_model (const struct ccas_cluster *c, double now);

#endif /* !CCAS_REPORT_H */
