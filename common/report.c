/* SPDX-License-Identifier: MIT */
/* report.c: outcomes to the events file and the metrics together. */
#include "config.h"

#include <stdio.h>

#include "events.h"
#include "metrics.h"
#include "report.h"

void ccas_report_action (const char *event, enum ccas_node_action action, const struct ccas_node *n,
                         const char *reason, const char *operation)
{
    char labels[300];
    json_object *o = json_object_new_object ();
    json_object_object_add (o, "node", json_object_new_string (n->name ? n->name : ""));
    json_object_object_add (o, "node_id", n->node_id ? json_object_new_string (n->node_id) : NULL);
    json_object_object_add (o, "nodearray", n->nodearray ? json_object_new_string (n->nodearray) : NULL);
    json_object_object_add (o, "action", json_object_new_string (ccas_node_action_name (action)));
    json_object_object_add (o, "reason", reason ? json_object_new_string (reason) : NULL);
    json_object_object_add (o, "operation_id", operation ? json_object_new_string (operation) : NULL);
    ccas_event (event ? event : action == CCAS_ACTION_START ? "started" : "terminated", o);
    if (action != CCAS_ACTION_START && n->nodearray)
        ccas_metric_add ("ccautoscale_nodes_terminated_total",
                         ccas_metric_labels (labels, sizeof (labels), "nodearray", n->nodearray, NULL, NULL), 1);
}
