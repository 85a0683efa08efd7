/* SPDX-License-Identifier: MIT */
/* report.h: one call per outcome that both the events file and the metrics
 * must know about, so the two never disagree. */
#ifndef CCAS_REPORT_H
#define CCAS_REPORT_H

#include "ccapi.h"
#include "node.h"

/* A node started, shut down, deallocated or terminated ("started" or
 * "terminated" event; terminations counted per nodearray).  `event` may
 * name it otherwise ("orphan_reaped"); `reason` and `operation` may be NULL. */
void ccas_report_action (const char *event, enum ccas_node_action action, const struct ccas_node *n,
                         const char *reason, const char *operation);

#endif /* !CCAS_REPORT_H */
