/* SPDX-License-Identifier: MIT */
/* cmd_slurm_wait.c: `ccautoscale slurm wait-for-resume` — block until nodes are up in Slurm, or failed. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtins.h"
#include "power.h"
#include "slurm_admin.h"
#include "util/clock.h"

#define CC_EVERY 15.0 /* seconds between CycleCloud reads */

static const struct cmd_option options[] = {
    {"-l, --node-list HOSTLIST", "the nodes (as azslurm takes them; or give hostlists as arguments)"},
    {"-t, --timeout SECONDS", "give up after this long (default: slurmctld's ResumeTimeout and a minute)"},
    {"-i, --interval SECONDS", "how often to ask slurmctld (default 2)"},
    {NULL, NULL},
};

const struct cmd_help help_slurm_wait_for_resume = {
    .synopsis = "slurm wait-for-resume HOSTLIST... [--timeout SECONDS] [--interval SECONDS] [--json]",
    .summary = "wait until nodes being powered up are up in Slurm, or have failed",
    .description = "Blocks until every node named is up in Slurm (its slurmd registered: not powering up,\n"
                   "powered down, down nor drained) or has failed: down or drained in Slurm, powered down\n"
                   "again with a reason (resume or sync handed it back, ResumeTimeout), or its VM Failed in\n"
                   "CycleCloud.  A node powered down without a reason is still waited for (Slurm powers it\n"
                   "up soon: 'scontrol update nodename=... state=power_up' first).  It asks slurmctld every\n"
                   "--interval seconds and CycleCloud every 15; it holds no lock and changes nothing.\n"
                   "Progress goes to stderr as nodes settle; at the end one line per node (or --json).\n"
                   "\n"
                   "Exit status: 0 every node is up; 4 some failed (each named with its reason); 9 time\n"
                   "ran out with nodes still powering up.  The stock azslurm's 'wait_for_resume' fails\n"
                   "before it starts (azslurm 4.0.9).",
    .options = options,
    .examples = "$ scontrol update nodename=hpc-[1-4] state=power_up\n"
                "$ ccautoscale slurm wait-for-resume hpc-[1-4] --timeout 900\n"
                "hpc-1 up\nhpc-2 up\nhpc-3 up\nhpc-4 failed: ccautoscale: capacity: ...",
    .see_also = "ccautoscale-resume(8), ccautoscale-slurm-retry-failed(8)",
};

enum verdict { WAITING, UP, FAILED };

struct watched {
    const char *name;
    enum verdict v;
    char why[400];
    char *kept; /* its "ccautoscale: kept:" reason when the wait began, or NULL */
};

static enum verdict judge_slurm (const struct ccas_slurm_node *sn, const char *kept, char *why, size_t size)
{
    char state[32];
    ccas_slurm_node_state_text (sn, state, sizeof (state));
    if (ccas_slurm_node_down (sn) || ccas_slurm_node_drained (sn)) {
        snprintf (why, size, "%s in Slurm: %s", state, sn->reason ? sn->reason : "no reason");
        return FAILED;
    }
    if (ccas_slurm_node_powering_up (sn))
        return WAITING;
    if (ccas_slurm_node_powered_down (sn) || ccas_slurm_node_powering_down (sn)) {
        /* a kept node that retry-failed returned: Slurm clears its reason
         * only when the node registers, not when it is powered up */
        if (kept && sn->reason && strcmp (kept, sn->reason) == 0)
            return WAITING;
        if (sn->reason && *sn->reason) {
            snprintf (why, size, "%s in Slurm: %s", state, sn->reason);
            return FAILED;
        }
        return WAITING; /* not (yet) asked to power up */
    }
    return UP;
}

/* The VMs that Failed in CycleCloud, into the watched (one nodes read). */
static int check_cyclecloud (struct cli *cli, struct watched *w, size_t n)
{
    struct ccas_error err = {""};
    struct ccas_record_list *list = NULL;
    if (ccas_ccapi_get_nodes (cli->api, NULL, NULL, &list, &err) < 0)
        return cli_fail_api (cli, &err);
    for (size_t i = 0; i < list->nnodes; i++) {
        const struct ccas_record *r = &list->nodes[i];
        for (size_t k = 0; r->name && k < n; k++)
            if (w[k].v == WAITING && strcmp (w[k].name, r->name) == 0 && ccas_record_is_failed (r)) {
                w[k].v = FAILED;
                snprintf (w[k].why, sizeof (w[k].why), "its VM Failed in CycleCloud: %s",
                          r->status_message ? r->status_message : "no message");
            }
    }
    ccas_record_list_destroy (list);
    return EXIT_OK;
}

/* One look at Slurm: each node still waiting judged again. */
static int check_slurm (struct cli *cli, struct watched *w, size_t n, size_t *waiting)
{
    struct ccas_error err = {""};
    struct ccas_slurm_nodes *nodes = ccas_slurm_nodes_load (&err);
    if (!nodes)
        return cli_fail (cli, EXIT_SCHEDULER, "%s", err.text);
    *waiting = 0;
    for (size_t i = 0; i < n; i++) {
        const struct ccas_slurm_node *sn = ccas_slurm_nodes_find (nodes, w[i].name);
        if (w[i].v == WAITING && !sn) {
            w[i].v = FAILED;
            snprintf (w[i].why, sizeof (w[i].why), "no longer a Slurm node");
        } else if (w[i].v == WAITING) {
            w[i].v = judge_slurm (sn, w[i].kept, w[i].why, sizeof (w[i].why));
            if (w[i].v != WAITING && !cli->json && !cli->quiet)
                fprintf (stderr, "%s %s%s%s\n", w[i].name, w[i].v == UP ? "up" : "failed",
                         w[i].v == UP ? "" : ": ", w[i].v == UP ? "" : w[i].why);
        }
        *waiting += w[i].v == WAITING;
    }
    ccas_slurm_nodes_destroy (nodes);
    return EXIT_OK;
}

static int parse_seconds (struct cli *cli, const char *opt, const char *arg, double *out)
{
    char *end;
    double v = strtod (arg, &end);
    if (*end || end == arg || !(v > 0) || v > 1e7)
        return cli_usage_error (cli, "%s: '%s' is not a number of seconds", opt, arg);
    *out = v;
    return EXIT_OK;
}

static int finish (struct cli *cli, struct watched *w, size_t n, bool timed_out, double seconds)
{
    size_t failed = 0;
    json_object *arr = json_object_new_array ();
    for (size_t i = 0; i < n; i++) {
        static const char *const words[] = {"waiting", "up", "failed"};
        failed += w[i].v == FAILED;
        if (cli->json) {
            json_object *o = json_object_new_object ();
            json_object_object_add (o, "name", json_object_new_string (w[i].name));
            json_object_object_add (o, "result", json_object_new_string (words[w[i].v]));
            if (w[i].v == FAILED)
                json_object_object_add (o, "reason", json_object_new_string (w[i].why));
            json_object_array_add (arr, o);
        } else
            printf ("%s %s%s%s\n", w[i].name, words[w[i].v], w[i].v == FAILED ? ": " : "",
                    w[i].v == FAILED    ? w[i].why
                    : w[i].v == WAITING ? " (timed out)"
                                        : "");
    }
    if (cli->json) {
        json_object *o = json_object_new_object ();
        json_object_object_add (o, "nodes", arr);
        json_object_object_add (o, "timed_out", json_object_new_boolean (timed_out));
        json_object_object_add (o, "seconds", json_object_new_double (seconds));
        cli_print_json (o);
        json_object_put (o);
    } else
        json_object_put (arr);
    return timed_out ? EXIT_TIMEOUT : failed ? EXIT_PARTIAL : EXIT_OK;
}

int cmd_slurm_wait_for_resume (struct cli *cli, int argc, char **argv)
{
    static const struct option longopts[] = {
        {"node-list", required_argument, NULL, 'l'},
        {"timeout", required_argument, NULL, 't'},
        {"interval", required_argument, NULL, 'i'},
        {NULL, 0, NULL, 0},
    };
    char **operands = calloc ((size_t)argc + 1, sizeof (*operands)), **names = NULL;
    size_t noperands = 0, nnames = 0;
    double timeout = 0, interval = 2;
    int ch, rc = EXIT_OK;

    if (!operands)
        return cli_fail (cli, EXIT_INTERNAL, "out of memory");
    while ((ch = slurm_admin_getopt (cli, argc, argv, "l:t:i:", longopts, operands, &noperands)) != -1) {
        if (ch == 'l')
            operands[noperands++] = optarg;
        else if (ch == 't' && rc == EXIT_OK)
            rc = parse_seconds (cli, "--timeout", optarg, &timeout);
        else if (ch == 'i' && rc == EXIT_OK)
            rc = parse_seconds (cli, "--interval", optarg, &interval);
    }
    if (rc == EXIT_OK)
        rc = slurm_admin_names (cli, operands, noperands, "the nodes to wait for", &names, &nnames);
    free (operands);
    if (rc != EXIT_OK)
        return rc;
    struct watched *w = calloc (nnames + 1, sizeof (*w));
    if (!w) {
        ccas_slurm_names_free (names, nnames);
        return cli_fail (cli, EXIT_INTERNAL, "out of memory");
    }
    for (size_t i = 0; i < nnames; i++)
        w[i].name = names[i];
    struct ccas_error err = {""};
    struct ccas_slurm_nodes *known = NULL;
    if ((rc = cli_prepare (cli)) == EXIT_OK && ccas_slurm_init (&err) == 0 &&
        !(known = ccas_slurm_nodes_load (&err)))
        rc = cli_fail (cli, EXIT_SCHEDULER, "%s", err.text);
    for (size_t i = 0; known && i < nnames; i++) {
        const struct ccas_slurm_node *sn = ccas_slurm_nodes_find (known, names[i]);
        if (!sn)
            rc = cli_fail (cli, EXIT_USAGE, "'%s' is not a Slurm node; nothing waited for", names[i]);
        else if (sn->reason && strncmp (sn->reason, CCAS_POWER_KEPT, strlen (CCAS_POWER_KEPT)) == 0)
            w[i].kept = strdup (sn->reason);
    }
    ccas_slurm_nodes_destroy (known);
    if (rc == EXIT_OK && !(timeout > 0)) {
        struct ccas_slurm_controller ctl;
        timeout = ccas_slurm_controller_load (&ctl, &err) == 0 && ctl.resume_timeout
                      ? ctl.resume_timeout + 60.0
                      : 1800 + 60.0;
    }
    double t0 = ccas_clock_monotonic (), cc_next = t0;
    size_t waiting = nnames;
    bool timed_out = false;
    while (rc == EXIT_OK) {
        double now = ccas_clock_monotonic ();
        if ((rc = check_slurm (cli, w, nnames, &waiting)) != EXIT_OK || !waiting)
            break;
        if (now >= cc_next) {
            if ((rc = check_cyclecloud (cli, w, nnames)) != EXIT_OK)
                break;
            cc_next = now + CC_EVERY;
        }
        if (now - t0 >= timeout) {
            timed_out = true;
            break;
        }
        ccas_clock_sleep (interval);
    }
    if (rc == EXIT_OK)
        rc = finish (cli, w, nnames, timed_out, ccas_clock_monotonic () - t0);
    for (size_t i = 0; i < nnames; i++)
        free (w[i].kept);
    free (w);
    ccas_slurm_names_free (names, nnames);
    ccas_slurm_fini ();
    return rc;
}
