/* SPDX-License-Identifier: MIT */
/* report.c: outcomes to the events file and the metrics together. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/report.h"
#include "util/events.h"
#include "util/metrics.h"

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
        ccas_metrics_add (
            "ccautoscale_nodes_terminated_total",
            ccas_metrics_labels (labels, sizeof (labels), "nodearray", n->nodearray, NULL, NULL), 1);
}

static const char *kind_name (enum ccas_node_kind k)
{
    static const char *const names[] = {"ready", "booting", "stopped", "failed", "going", "new"};
    return names[k];
}

/* The ccautoscale_nodes gauge: one update per nodearray and state, counted
 * in a table first rather than per node. */
static void report_node_counts (const struct ccas_cluster *c)
{
    char labels[300];
    enum { NKINDS = CCAS_NODE_GOING + 1 };
    size_t nna = c->nnodearrays;
    double *counts = calloc (nna * NKINDS + 1, sizeof (*counts));
    if (!counts)
        return;
    for (size_t i = 0; i < c->nnodes; i++) {
        const struct ccas_node *n = c->nodes[i];
        /* new nodes this run created (named from the server's answer) are booting now */
        bool made = i >= c->nexisting && n->kind == CCAS_NODE_NEW && n->name;
        if (!n->nodearray || (i >= c->nexisting && !made))
            continue;
        int kind = made ? CCAS_NODE_BOOTING : (int)n->kind;
        if (kind >= NKINDS)
            continue;
        for (size_t a = 0; a < nna; a++)
            if (c->nodearrays[a].name == n->nodearray || strcmp (c->nodearrays[a].name, n->nodearray) == 0) {
                counts[a * NKINDS + (size_t)kind]++;
                break;
            }
    }
    ccas_metrics_clear ("ccautoscale_nodes");
    for (size_t a = 0; a < nna; a++)
        for (int k = CCAS_NODE_READY; k < NKINDS; k++)
            ccas_metrics_set ("ccautoscale_nodes",
                              ccas_metrics_labels (labels, sizeof (labels), "nodearray",
                                                   c->nodearrays[a].name, "state",
                                                   kind_name ((enum ccas_node_kind)k)),
                              counts[a * NKINDS + (size_t)k]);
    free (counts);
}

struct latency_pass {
    const struct ccas_cluster *c;
    double now;
};

/* A node asked for earlier: observe its latency once it is Ready; forget it
 * then, or when it is gone (asked for before this model was read, and not in
 * it), or when it never booted in two hours. */
static bool observe_latency (const char *name, double asked, void *arg)
{
    const struct latency_pass *lp = arg;
    const struct ccas_node *n = ccas_cluster_find_node (lp->c, name);
    double since = lp->now - asked;
    if (n && n->kind == CCAS_NODE_READY) {
        ccas_metrics_observe_latency (since > 0 ? since : 0);
        return true;
    }
    return (!n && asked < lp->c->now - 0.5) || since > 7200;
}

void ccas_report_model (const struct ccas_cluster *c, double now)
{
    if (!ccas_metrics_on ())
        return;
    report_node_counts (c);
    struct latency_pass lp = {c, now};
    ccas_metrics_requested_each (observe_latency, &lp);
}
