/* SPDX-License-Identifier: MIT */
/* pass.c: scale-down from the node times, and applying a plan under the lock. */
#include "config.h"

#include <errno.h>
#include <time.h>

#include "engine/apply.h"
#include "engine/holds.h"
#include "engine/report.h"
#include "engine/scaledown.h"
#include "pass.h"
#include "plan_print.h"
#include "util/lock.h"
#include "util/log.h"
#include "util/metrics.h"

/* The node times object of the state, made when missing. */
static json_object *times_of_state (struct ccas_state *state)
{
    json_object *root = ccas_state_root (state);
    json_object *times = NULL;
    if (!json_object_object_get_ex (root, "times", &times) || !times) {
        times = json_object_new_object ();
        json_object_object_add (root, "times", times);
    }
    return times;
}

/* Scale-down needs node times from the state directory; a dry run reads them
 * and leaves them alone. */
int pass_times_load (struct cli *cli, struct ccas_cluster *c, struct ccas_state **times_state)
{
    struct ccas_error err = {""};
    if (!*times_state && !(*times_state = ccas_state_load (cli->cfg->state_dir, "nodes", &err)))
        return cli_fail (cli, EXIT_INTERNAL, "%s", err.text);
    int stuck = ccas_scaledown_mark_stuck (c, times_of_state (*times_state), (double)time (NULL));
    if (stuck < 0)
        return cli_fail (cli, EXIT_INTERNAL, "out of memory");
    if (stuck)
        ccas_log (LOG_INFO, "%d node%s booting past boot_timeout: given no work, to be terminated", stuck,
                  stuck == 1 ? "" : "s");
    return EXIT_OK;
}

int pass_scaledown (struct cli *cli, struct ccas_plan *plan, struct ccas_state **times_state)
{
    struct ccas_error err = {""};
    if (!*times_state && !(*times_state = ccas_state_load (cli->cfg->state_dir, "nodes", &err)))
        return cli_fail (cli, EXIT_INTERNAL, "%s", err.text);
    if (ccas_scaledown_plan (plan, times_of_state (*times_state), (double)time (NULL), &err) < 0)
        return cli_fail (cli, EXIT_INTERNAL, "%s", err.text);
    return EXIT_OK;
}

int pass_lock (struct cli *cli, const char *who)
{
    struct ccas_error err = {""};
    if (cli->lock)
        return EXIT_OK;
    if (!(cli->lock = ccas_lock_acquire (cli->cfg->lock_file, who, 30, &err)))
        return cli_fail (cli, errno == EWOULDBLOCK ? EXIT_BUSY : EXIT_INTERNAL, "%s", err.text);
    cli_start_metrics (cli);
    return EXIT_OK;
}

int pass_apply (struct cli *cli, struct ccas_plan *plan, struct ccas_state *times_state, const char *who)
{
    struct ccas_error err = {""};
    int rc;
    if ((rc = pass_lock (cli, who)) != EXIT_OK)
        return rc;
    if ((rc = pass_carry_out (cli, plan)) == EXIT_INTERNAL)
        return rc;
    if (times_state && ccas_state_save (times_state, &err) < 0)
        ccas_log (LOG_WARNING, "%s", err.text);
    ccas_report_model (plan->cluster, (double)time (NULL));
    return rc;
}

/* Hold `b` (once) for `cls` with `message`; loads the holds on first use.
 * Returns false when they cannot be loaded. */
static bool hold_one (struct cli *cli, struct ccas_holds **h, const struct ccas_bucket *b,
                      enum ccas_failure_class cls, const char *message, double now)
{
    struct ccas_error err = {""};
    double secs = cli->cfg->capacity_failure_backoff;
    if (!*h && !(*h = ccas_holds_load (cli->cfg->state_dir, &err))) {
        ccas_log (LOG_WARNING, "%s/%s not held back: %s", b->na->name, b->machine_type, err.text);
        return false;
    }
    if (ccas_holds_reason (*h, b->na->name, b->machine_type, now))
        return true;
    char reason[300];
    ccas_failure_reason (cls, message, reason, sizeof (reason));
    ccas_holds_add (*h, b->na->name, b->machine_type, now, secs, cls, reason);
    ccas_log (LOG_WARNING, "%s/%s: held back for %.0f s: %s", b->na->name, b->machine_type, secs, reason);
    return true;
}

/* A bucket that failed a create for capacity or quota — in the create's
 * answer, or later as a VM Failed for want of capacity (Azure's
 * AllocationFailed arrives after the create was accepted) — is held back for
 * capacity_failure_backoff seconds (state_dir/holds.json), so that the next
 * pass of any program tries the other buckets the jobs allow. */
static void hold_shortfalls (struct cli *cli, const struct ccas_plan *plan)
{
    struct ccas_error err = {""};
    double now = (double)time (NULL);
    struct ccas_holds *h = NULL;
    if (cli->cfg->capacity_failure_backoff <= 0)
        return;
    for (size_t i = 0; i < plan->ncreates; i++) {
        const struct ccas_plan_create *s = &plan->creates[i];
        if (s->outcome == CCAS_PLANNED || (uint32_t)s->added >= s->count ||
            !ccas_failure_holds_bucket (s->cls))
            continue;
        if (!hold_one (cli, &h, s->bucket, s->cls, s->message, now))
            return;
    }
    for (size_t i = 0; i < plan->nterminates; i++) {
        const struct ccas_node *n = plan->terminates[i].node;
        if (n->kind != CCAS_NODE_FAILED || !n->bucket)
            continue;
        enum ccas_failure_class cls = ccas_failure_classify_message (n->status_message);
        if (ccas_failure_holds_bucket (cls) && !hold_one (cli, &h, n->bucket, cls, n->status_message, now))
            return;
    }
    if (!h)
        return;
    if (ccas_holds_save (h, &err) < 0)
        ccas_log (LOG_WARNING, "%s", err.text);
    ccas_holds_metrics (h, now);
    ccas_holds_destroy (h);
}

int pass_carry_out (struct cli *cli, struct ccas_plan *plan)
{
    struct ccas_error err = {""};
    struct ccas_state *requests = ccas_state_load (cli->cfg->state_dir, "requests", &err);
    int rc = EXIT_OK;
    if (!requests)
        return cli_fail (cli, EXIT_INTERNAL, "%s", err.text);
    if (ccas_apply_reconcile (cli->api, requests, &err) < 0)
        ccas_log (LOG_WARNING, "%s", err.text);
    if (ccas_apply (plan, cli->api, requests, NULL, &err) < 0)
        rc = cli_fail_api (cli, &err);
    else if (plan_shortfalls (plan))
        rc = EXIT_PARTIAL;
    hold_shortfalls (cli, plan);
    ccas_state_destroy (requests);
    return rc;
}
