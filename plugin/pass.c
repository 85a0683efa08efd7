/* SPDX-License-Identifier: MIT */
/* pass.c: scale-down from the node times, and applying a plan under the lock. */
#include "config.h"

#include <errno.h>
#include <time.h>

#include "apply.h"
#include "lock.h"
#include "log.h"
#include "metrics.h"
#include "pass.h"
#include "plan_print.h"

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
    struct ccas_error err = { "" };
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
    struct ccas_error err = { "" };
    if (!*times_state && !(*times_state = ccas_state_load (cli->cfg->state_dir, "nodes", &err)))
        return cli_fail (cli, EXIT_INTERNAL, "%s", err.text);
    if (ccas_plan_scaledown (plan, times_of_state (*times_state), (double)time (NULL), &err) < 0)
        return cli_fail (cli, EXIT_INTERNAL, "%s", err.text);
    return EXIT_OK;
}

int pass_lock (struct cli *cli, const char *who)
{
    struct ccas_error err = { "" };
    if (cli->lock)
        return EXIT_OK;
    if (!(cli->lock = ccas_lock_acquire (cli->cfg->lock_file, who, 30, &err)))
        return cli_fail (cli, errno == EWOULDBLOCK ? EXIT_BUSY : EXIT_INTERNAL, "%s", err.text);
    cli_start_metrics (cli);
    return EXIT_OK;
}

int pass_apply (struct cli *cli, struct ccas_plan *plan, struct ccas_state *times_state, const char *who)
{
    struct ccas_error err = { "" };
    int rc;
    if ((rc = pass_lock (cli, who)) != EXIT_OK)
        return rc;
    if ((rc = pass_carry_out (cli, plan)) == EXIT_INTERNAL)
        return rc;
    if (times_state && ccas_state_save (times_state, &err) < 0)
        ccas_log (LOG_WARNING, "%s", err.text);
    ccas_metrics_from_model (plan->cluster, (double)time (NULL));
    return rc;
}

int pass_carry_out (struct cli *cli, struct ccas_plan *plan)
{
    struct ccas_error err = { "" };
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
    ccas_state_destroy (requests);
    return rc;
}
