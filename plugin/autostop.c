/* SPDX-License-Identifier: MIT */
/* autostop.c: may a node stop, and stop it — for `autostop` and `serve` alike. */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "act.h"
#include "autostop.h"
#include "engine/plan.h"
#include "engine/request_set.h"
#include "util/log.h"
#include "util/metrics.h"

struct ccas_node *autostop_find (struct ccas_cluster *c, const char *name, const char *instance)
{
    if (name)
        return ccas_cluster_find_node (c, name);
    for (size_t i = 0; instance && i < c->nexisting; i++) {
        struct ccas_node *n = c->nodes[i];
        if ((n->instance_id && strcmp (n->instance_id, instance) == 0) ||
            (n->node_id && strcmp (n->node_id, instance) == 0))
            return n;
    }
    return NULL;
}

struct ccas_node *autostop_find_cli (struct cli *cli, struct ccas_cluster *c, const char *name,
                                     const char *instance, int *rc)
{
    struct ccas_node *n = autostop_find (c, name, instance);
    if (!n)
        *rc = cli_fail (cli, EXIT_USAGE, "%s '%s': no such node in cluster '%s'", name ? "node" : "instance",
                        name ? name : instance, cli->cfg->cluster_name);
    return n;
}

const char *autostop_decision_name (enum ccas_autostop_decision d)
{
    return d == CCAS_AUTOSTOP_GRANTED ? "granted" : d == CCAS_AUTOSTOP_GOING ? "going" : "refused";
}

int autostop_view_load (struct cli *cli, struct ccas_cluster *c, struct autostop_view *v)
{
    struct ccas_error err = {""};
    memset (v, 0, sizeof (*v));
    if (ccas_request_set_load_all (cli->cfg->state_dir, &v->sets, &v->nsets, &err) < 0 ||
        !(v->targets = ccas_targets_create (c, v->sets, v->nsets, (double)time (NULL), &err))) {
        autostop_view_release (v);
        return cli_fail (cli, EXIT_INTERNAL, "%s", err.text);
    }
    return EXIT_OK;
}

void autostop_view_release (struct autostop_view *v)
{
    ccas_targets_destroy (v->targets);
    ccas_request_set_destroy_all (v->sets, v->nsets);
    memset (v, 0, sizeof (*v));
}

/* Terminate `n`, granted by the view's decision; its sets forget an array it empties. */
static int terminate (struct cli *cli, struct ccas_cluster *c, struct ccas_node *n, struct autostop_view *v,
                      struct autostop_outcome *out)
{
    struct ccas_error err = {""};
    struct ccas_plan *plan = NULL;
    char reason[700];
    int rc;
    snprintf (reason, sizeof (reason), "autostop: %s", out->a.reason);
    if (!(plan = ccas_plan_create (c, NULL, &err)) || ccas_plan_terminate (plan, n, reason) < 0) {
        ccas_plan_destroy (plan);
        return cli_fail (cli, EXIT_INTERNAL, "%s", err.text[0] ? err.text : "out of memory");
    }
    out->acted = true;
    /* what it terminates is counted (the command opened the metrics with the
     * lock; the service opens them for each stop and flushes them after) */
    if (!ccas_metrics_on ())
        cli_start_metrics (cli);
    if ((rc = act_carry_out (cli, plan)) == EXIT_INTERNAL)
        goto done;
    const struct ccas_plan_action *term = &plan->terminates[0];
    out->terminated = term->outcome == CCAS_DONE;
    if (term->error)
        snprintf (out->error, sizeof (out->error), "%s", term->error);
    if (plan->terminate_operation)
        snprintf (out->operation_id, sizeof (out->operation_id), "%s", plan->terminate_operation);
    if (out->terminated) {
        ccas_targets_node_gone (v->targets, n);
        if (ccas_targets_forget (v->targets) > 0)
            for (size_t i = 0; i < v->nsets; i++)
                if (v->sets[i]->changed && ccas_request_set_save (v->sets[i], &err) < 0)
                    ccas_log (LOG_WARNING, "%s", err.text);
    } else if (rc == EXIT_OK)
        rc = EXIT_PARTIAL;
done:
    ccas_plan_destroy (plan);
    return rc;
}

int autostop_decide (struct cli *cli, struct ccas_cluster *c, struct autostop_view *v, struct ccas_node *n,
                     bool act, struct autostop_outcome *out)
{
    memset (out, 0, sizeof (*out));
    ccas_targets_autostop (v->targets, n, &out->a);
    /* the names belong to the view, which may go before the caller reads them */
    snprintf (out->array, sizeof (out->array), "%s", out->a.array ? out->a.array : "");
    snprintf (out->request_set, sizeof (out->request_set), "%s",
              out->a.request_set ? out->a.request_set : "");
    out->a.array = out->array[0] ? out->array : NULL;
    out->a.request_set = out->request_set[0] ? out->request_set : NULL;
    ccas_log (LOG_INFO, "autostop %s: %s: %s", n->name, autostop_decision_name (out->a.decision),
              out->a.reason);
    if (out->a.decision == CCAS_AUTOSTOP_GRANTED && act)
        return terminate (cli, c, n, v, out);
    return EXIT_OK;
}
