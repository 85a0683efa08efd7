/* SPDX-License-Identifier: MIT */
/* pass.c: scale-down from the node times, and applying a plan under the lock. */
#include "config.h"

#include <errno.h>
#include <time.h>

#include "engine/apply.h"
#include "engine/holds.h"
#include "engine/policy.h"
#include "engine/report.h"
#include "engine/scaledown.h"
#include "pass.h"
#include "plan_print.h"
#include "util/lock.h"
#include "util/log.h"
#include "util/metrics.h"

json_object *pass_node_times (struct ccas_state *state)
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
    int stuck = ccas_scaledown_mark_stuck (c, pass_node_times (*times_state), (double)time (NULL));
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
    if (ccas_scaledown_plan (plan, pass_node_times (*times_state), (double)time (NULL), &err) < 0)
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

int pass_apply (struct cli *cli, struct ccas_plan *plan, struct ccas_state *times_state, const char *who,
                struct ccas_policy *pol, bool *held)
{
    struct ccas_error err = {""};
    int rc;
    if ((rc = pass_lock (cli, who)) != EXIT_OK)
        return rc;
    if ((rc = pass_carry_out (cli, plan, pol, held)) == EXIT_INTERNAL)
        return rc;
    if (times_state && ccas_state_save (times_state, &err) < 0)
        ccas_log (LOG_WARNING, "%s", err.text);
    ccas_report_model (plan->cluster, (double)time (NULL));
    return rc;
}

size_t pass_observe_failures (struct ccas_policy *pol, struct ccas_plan *plan, pass_booting_f booting,
                              void *arg)
{
    bool opened = false;
    for (size_t i = 0; i < plan->nterminates; i++) {
        const struct ccas_node *n = plan->terminates[i].node;
        struct ccas_observation o;
        if (n->kind == CCAS_NODE_FAILED)
            o = ccas_policy_observe_vm (n, booting ? booting (n, arg) : true);
        else if (n->kind == CCAS_NODE_BOOTING)
            o = (struct ccas_observation){.seen = CCAS_SEEN_BOOT_FAILED,
                                          .nodearray = n->nodearray,
                                          .node = n->name,
                                          .message = plan->terminates[i].reason};
        else
            continue;
        enum ccas_decision d;
        ccas_policy_decide (pol, plan->cluster, &o, 1, &d);
        opened |= d == CCAS_DECIDED_OPENED;
    }
    if (!opened)
        return 0;
    size_t kept = 0, n = plan->ncreates;
    for (size_t i = 0; i < n; i++) {
        const struct ccas_bucket *b = plan->creates[i].bucket;
        if (ccas_holds_reason (pol->holds, b->na->name, b->machine_type, pol->now))
            ccas_log (LOG_WARNING, "%s/%s: %u node%s not created: the breaker just opened", b->na->name,
                      b->machine_type, plan->creates[i].count, plan->creates[i].count == 1 ? "" : "s");
        else
            plan->creates[kept++] = plan->creates[i];
    }
    plan->ncreates = kept;
    return n - kept;
}

/* The sets the server could not fill, to the policy: a bucket that failed a
 * create for capacity or quota is held back for capacity_failure_backoff
 * seconds (state_dir/holds.json), so that the next pass of any program tries
 * the other buckets the jobs allow.  Returns how many buckets it held. */
static size_t observe_short_creates (struct ccas_policy *pol, const struct ccas_plan *plan)
{
    size_t held = 0;
    for (size_t i = 0; i < plan->ncreates; i++) {
        const struct ccas_plan_set *s = &plan->creates[i];
        if (s->outcome == CCAS_PLANNED || (uint32_t)s->added >= s->count)
            continue;
        struct ccas_observation o = {.seen = CCAS_SEEN_SHORT_CREATE,
                                     .nodearray = s->bucket->na->name,
                                     .machine_type = s->bucket->machine_type,
                                     .message = s->message,
                                     .cls = s->cls};
        held += ccas_policy_decide (pol, plan->cluster, &o, 1, NULL);
    }
    return held;
}

int pass_carry_out (struct cli *cli, struct ccas_plan *plan, struct ccas_policy *pol, bool *held)
{
    struct ccas_error err = {""};
    struct ccas_policy *own = NULL;
    struct ccas_state *requests = ccas_state_load (cli->cfg->state_dir, "requests", &err);
    int rc = EXIT_OK;
    if (!requests)
        return cli_fail (cli, EXIT_INTERNAL, "%s", err.text);
    if (!pol && !(pol = own = ccas_policy_load (cli->cfg, (double)time (NULL), false, &err))) {
        ccas_state_destroy (requests);
        return cli_fail (cli, EXIT_INTERNAL, "%s", err.text);
    }
    if (ccas_apply_reconcile (cli->api, requests, &err) < 0)
        ccas_log (LOG_WARNING, "%s", err.text);
    if (ccas_apply (plan, cli->api, requests, NULL, &err) < 0)
        rc = cli_fail_api (cli, &err);
    else if (plan_shortfalls (plan))
        rc = EXIT_PARTIAL;
    size_t h = observe_short_creates (pol, plan);
    if (held)
        *held = h > 0;
    if (ccas_policy_save (pol, &err) < 0)
        ccas_log (LOG_WARNING, "%s", err.text);
    ccas_policy_destroy (own);
    ccas_state_destroy (requests);
    return rc;
}
