/* SPDX-License-Identifier: MIT */
/* act.c: shared lookups and the print / apply / print tail of acting commands. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "act.h"
#include "plan_print.h"
#include "util/log.h"
#include "wait.h"

struct ccas_nodearray *act_nodearray (struct cli *cli, struct ccas_cluster *c, const char *name)
{
    char known[512] = "";
    for (size_t i = 0; i < c->nnodearrays; i++)
        if (strcmp (c->nodearrays[i].name, name) == 0)
            return &c->nodearrays[i];
    for (size_t i = 0; i < c->nnodearrays; i++) {
        size_t len = strlen (known);
        snprintf (known + len, sizeof (known) - len, "%s'%s'", i ? ", " : "", c->nodearrays[i].name);
    }
    cli_fail (cli, EXIT_USAGE, "nodearray '%s' not found in cluster '%s' (it has %s)", name,
              cli->cfg->cluster_name, known[0] ? known : "none");
    return NULL;
}

struct ccas_bucket *act_bucket (struct cli *cli, struct ccas_cluster *c, struct ccas_nodearray *na,
                                const char *machine_type)
{
    char known[512] = "";
    for (size_t i = 0; i < c->nbuckets; i++) {
        struct ccas_bucket *b = &c->buckets[i];
        if (b->na != na)
            continue;
        if (machine_type ? strcasecmp (b->machine_type, machine_type) == 0 : b->st->valid)
            return b;
        size_t len = strlen (known);
        snprintf (known + len, sizeof (known) - len, "%s'%s'", len ? ", " : "", b->machine_type);
    }
    if (machine_type)
        cli_fail (cli, EXIT_USAGE, "nodearray '%s' has no machine type '%s' (it has %s)", na->name,
                  machine_type, known[0] ? known : "none");
    else
        cli_fail (cli, EXIT_PARTIAL, "nodearray '%s' has no valid bucket", na->name);
    return NULL;
}

int act_carried (struct cli *cli, const struct ccas_pass *pass, const struct ccas_plan *plan, int rc,
                 const struct ccas_error *err)
{
    if (rc < 0)
        return cli_fail (cli, pass->sent ? EXIT_CYCLECLOUD : EXIT_INTERNAL, "%s", err->text);
    return plan_shortfalls (plan) ? EXIT_PARTIAL : EXIT_OK;
}

int act_carry_out (struct cli *cli, struct ccas_plan *plan)
{
    struct ccas_error err = {""};
    struct ccas_pass *pass =
        ccas_pass_load (cli->cfg, cli->lock, CCAS_PASS_POLICY, (double)time (NULL), &err);
    if (!pass)
        return cli_fail (cli, EXIT_INTERNAL, "%s", err.text);
    int rc = act_carried (cli, pass, plan, ccas_pass_carry_out (pass, plan, cli->api, NULL, &err), &err);
    if (pass->sent && ccas_pass_save (pass, &err) < 0)
        ccas_log (LOG_WARNING, "%s", err.text);
    ccas_pass_destroy (pass);
    return rc;
}

static void print_result (struct cli *cli, struct ccas_plan *plan, bool applied, json_object *wait_report)
{
    if (cli->json) {
        json_object *out = ccas_plan_to_json (plan);
        json_object_object_add (out, "applied", json_object_new_boolean (applied));
        if (wait_report)
            json_object_object_add (out, "wait", json_object_get (wait_report));
        cli_print_json (out);
        json_object_put (out);
    } else
        plan_print (stdout, plan, applied, true); /* the nodes asked for, all of them */
}

/* Follow what the plan did: the created nodes until Ready, else the
 * terminated ones until gone. */
static int follow (struct cli *cli, const struct ccas_plan *plan, double timeout, json_object **report)
{
    struct wait_spec spec = {.goal = WAIT_READY, .timeout = timeout, .request_id = plan->request_id};
    bool created = false;
    for (size_t i = 0; i < plan->ncreates; i++)
        created = created || (plan->creates[i].outcome == CCAS_DONE && plan->creates[i].added > 0);
    if (created)
        return wait_nodes (cli, &spec, report);
    const char **names = calloc (plan->nterminates + 1, sizeof (*names));
    if (!names)
        return cli_fail (cli, EXIT_INTERNAL, "out of memory");
    for (size_t i = 0; i < plan->nterminates; i++)
        if (plan->terminates[i].outcome == CCAS_DONE)
            names[spec.nnames++] = plan->terminates[i].node->name;
    spec.goal = WAIT_GONE;
    spec.names = names;
    int rc = spec.nnames ? wait_nodes (cli, &spec, report) : EXIT_OK;
    free (names);
    return rc;
}

int act_finish (struct cli *cli, struct ccas_plan *plan, bool dry_run, double wait)
{
    json_object *report = NULL;
    int rc;

    if (dry_run || (!plan->ncreates && !plan->nstarts && !plan->nterminates)) {
        print_result (cli, plan, false, NULL);
        return EXIT_OK;
    }
    if ((rc = act_carry_out (cli, plan)) == EXIT_INTERNAL)
        return rc; /* nothing was sent */
    /* people see what was asked for at once, then the progress; scripts get one document */
    if (!cli->json)
        print_result (cli, plan, true, NULL);
    if (wait > 0 && rc != EXIT_CYCLECLOUD) {
        int wrc = follow (cli, plan, wait, &report);
        if (wrc != EXIT_OK && (rc == EXIT_OK || wrc == EXIT_CYCLECLOUD))
            rc = wrc;
    }
    if (cli->json)
        print_result (cli, plan, true, report);
    json_object_put (report);
    return rc;
}
