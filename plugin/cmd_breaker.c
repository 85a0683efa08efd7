/* SPDX-License-Identifier: MIT */
/* cmd_breaker.c: `ccautoscale breaker list | reset NODEARRAY`. */
#include "config.h"

#include <stdio.h>
#include <time.h>

#include "builtins.h"
#include "engine/breaker.h"
#include "table.h"
#include "util/json.h"

const struct cmd_help help_breaker_list = {
    .synopsis = "breaker list [--json]",
    .summary = "show each nodearray's consecutive boot failures and whether its breaker is open",
    .description = "After breaker.threshold consecutive boot failures (a VM Failed, stuck past\n"
                   "boot_timeout, or without slurmd at ResumeTimeout) a nodearray's breaker opens and\n"
                   "nothing is created there until 'breaker reset' or breaker.cooldown seconds.\n"
                   "Reads state_dir/breakers.json; nothing is sent to CycleCloud.",
    .examples = "$ ccautoscale breaker list",
    .see_also = "ccautoscale-status(8)",
};

const struct cmd_help help_breaker_reset = {
    .synopsis = "breaker reset NODEARRAY",
    .summary = "close a nodearray's breaker: creating there may start again",
    .description = "Closes the breaker and ends the holds it put on the nodearray's buckets; the next\n"
                   "'slurm sync' returns the nodes it drained to the pool.  Fix what made the VMs fail\n"
                   "first (image, network, quota): the breaker opens again after as many failures.",
    .examples = "$ ccautoscale breaker reset hpc",
    .see_also = "ccautoscale-breaker-list(8)",
};

int cmd_breaker_list (struct cli *cli, int argc, char **argv)
{
    static const char *const headers[] = {"NODEARRAY", "STATE", ">FAILURES", "UNTIL", "LAST FAILURE", NULL};
    struct ccas_error err = {""};
    int rc;
    if ((rc = cli_no_arguments (cli, argc, argv)) != EXIT_OK || (rc = cli_prepare (cli)) != EXIT_OK)
        return rc;
    struct ccas_breakers *b = ccas_breakers_load (cli->cfg, &err);
    if (!b)
        return cli_fail (cli, EXIT_INTERNAL, "%s", err.text);
    json_object *all = ccas_breakers_json (b);
    if (cli->json)
        cli_print_json (all);
    else {
        struct table *t = table_create (headers);
        json_object_object_foreach (all, na, o)
        {
            bool open = ccas_json_bool (o, "open", false);
            double until = ccas_json_double (o, "until", 0);
            char when[64] = "-";
            if (open && until > 0) {
                time_t u = (time_t)until;
                struct tm tm;
                strftime (when, sizeof (when), "%Y-%m-%d %H:%M:%S", localtime_r (&u, &tm));
            } else if (open)
                snprintf (when, sizeof (when), "reset");
            table_addf (t, "%s\t%s\t%lld\t%s\t%s", na, open ? "OPEN" : "closed",
                        (long long)ccas_json_int (o, "failures", 0), when,
                        ccas_json_str (o, "last") ? ccas_json_str (o, "last") : "-");
        }
        table_print (t, stdout);
        table_destroy (t);
    }
    ccas_breakers_destroy (b);
    return EXIT_OK;
}

int cmd_breaker_reset (struct cli *cli, int argc, char **argv)
{
    struct ccas_error err = {""};
    int rc;
    while (cli_getopt (cli, argc, argv, "", NULL) != -1)
        ;
    if (optind + 1 != argc)
        return cli_usage_error (cli, "give one NODEARRAY");
    const char *na = argv[optind];
    if ((rc = cli_prepare (cli)) != EXIT_OK)
        return rc;
    struct ccas_breakers *b = ccas_breakers_load (cli->cfg, &err);
    struct ccas_holds *h = b ? ccas_holds_load (cli->cfg->state_dir, &err) : NULL;
    if (!b || !h) {
        ccas_breakers_destroy (b);
        return cli_fail (cli, EXIT_INTERNAL, "%s", err.text);
    }
    bool was_open = ccas_breaker_reset (b, h, na, (double)time (NULL));
    if (ccas_holds_save (h, &err) < 0 || ccas_breakers_save (b, &err) < 0)
        rc = cli_fail (cli, EXIT_INTERNAL, "%s", err.text);
    else if (!cli->quiet)
        printf ("%s: breaker %s\n", na,
                was_open ? "closed; creating may start again" : "was not open (count reset)");
    ccas_holds_destroy (h);
    ccas_breakers_destroy (b);
    return rc;
}
