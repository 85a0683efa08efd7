/* SPDX-License-Identifier: MIT */
/* cmd_pbs_validate.c: `ccautoscale pbs validate` — PBS's configuration against what ccautoscale needs. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builtins.h"
#include "pbs_cmds.h"
#include "pbs_json.h"
#include "pbs_sched.h"
#include "pbs_validate.h"
#include "run.h"
#include "util/file.h"
#include "util/json.h"

#define AZPBS_CRON "/etc/cron.d/azpbs_autoscale"

static const struct cmd_option options[] = {
    {"--azpbs-cron FILE", "azpbs's cron file, which must not be there (default " AZPBS_CRON ")"},
    {NULL, NULL},
};

const struct cmd_help help_pbs_validate = {
    .synopsis = "pbs validate [--azpbs-cron FILE] [--json]",
    .summary =
        "check PBS's resources, placement settings, sched_config, queues and hooks, with the fix for each",
    .description =
        "Reads qmgr's list of resources, server, scheduler and hooks, qstat -Q and\n"
        "$PBS_HOME/sched_priv/sched_config, and says, check by check, 'ok', 'warn' or 'FAIL' and the\n"
        "command or line that fixes it:\n"
        "  resources     every resource a join sets is defined, a host resource of the type\n"
        "                ccautoscale writes (ungrouped a string), or PBS refuses the create node;\n"
        "  placement     node_group_enable True, node_group_key group_id, do_not_span_psets\n"
        "                True (one placement group a job); only_explicit_psets True warns;\n"
        "  sched_config  its resources: line names slot_type, group_id, ungrouped, disk, ngpus,\n"
        "                nodearray, vm_size, or the scheduler ignores them;\n"
        "  queues        a queue's resources_default or default_chunk of a host resource no\n"
        "                node ccautoscale makes has (its jobs would run on none of its VMs), an\n"
        "                ungrouped default not 'true' or 'false'; stopped and ignored queues;\n"
        "  hooks         'ccautoscale' installed and enabled; azpbs ('autoscale', its cron\n"
        "                file) off.\n"
        "Nothing changes.  Exit 0 when nothing fails (warnings allowed), 5 when something does.",
    .options = options,
    .examples = "$ ccautoscale pbs validate\n$ ccautoscale pbs validate --json | jq '.[] | select(.level == "
                "\"fail\")'",
    .see_also = "ccautoscale-pbs-install-hook(8)",
};

static json_object *qstat_queues (void)
{
    struct ccas_error err = {""};
    struct ccas_run_result r;
    char *argv[] = {"qstat", "-Q", "-f", "-F", "json", NULL};
    if (ccas_run (argv, 30, (size_t)1 << 26, &r, &err) < 0)
        return NULL;
    json_object *doc =
        r.status == 0 ? ccas_pbs_json_parse (r.out, r.outlen, "qstat -Q", "", NULL, NULL, &err) : NULL;
    ccas_run_result_release (&r);
    return doc;
}

int cmd_pbs_validate (struct cli *cli, int argc, char **argv)
{
    static const struct option longopts[] = {{"azpbs-cron", required_argument, NULL, 0x701},
                                             {NULL, 0, NULL, 0}};
    const char *cron = AZPBS_CRON;
    struct ccas_error err = {""};
    char path[4200];
    size_t len;
    int c, rc;
    while ((c = cli_getopt (cli, argc, argv, "", longopts)) != -1)
        if (c == 0x701)
            cron = optarg;
    if (optind < argc)
        return cli_usage_error (cli, "unexpected argument '%s'", argv[optind]);
    if ((rc = cli_prepare (cli)) != EXIT_OK)
        return rc;
    ccas_run_set_bin_dir (cli->cfg->pbs.bin_dir);
    ccas_pbs_set_timeout (cli->cfg->pbs.command_timeout);
    ccas_pbs_sched_config_path (path, sizeof (path));
    struct ccas_pbs_site site = {
        .resources = ccas_pbs_qmgr_list ("resource", &err),
        .server = ccas_pbs_qmgr_list ("server", &err),
        .sched = ccas_pbs_qmgr_list ("sched", &err),
        .hooks = ccas_pbs_qmgr_list ("hook", &err),
        .queues = qstat_queues (),
        .sched_config = ccas_file_read (path, 1 << 20, &len, &err),
        .sched_config_path = path,
        .azpbs_cron = access (cron, F_OK) == 0 ? cron : NULL,
    };
    json_object *f = ccas_pbs_validate (&site, cli->cfg);
    if (!f)
        rc = cli_fail (cli, EXIT_INTERNAL, "out of memory");
    else if (cli->json)
        cli_print_json (f);
    else
        for (size_t i = 0; i < json_object_array_length (f); i++) {
            json_object *x = json_object_array_get_idx (f, i);
            const char *level = ccas_json_str (x, "level"), *fix = ccas_json_str (x, "fix");
            printf ("%-5s %-12s %s\n", strcmp (level, "fail") == 0 ? "FAIL" : level,
                    ccas_json_str (x, "check"), ccas_json_str (x, "what"));
            if (fix && strcmp (level, "ok") != 0)
                printf ("%-5s %-12s fix: %s\n", "", "", fix);
        }
    if (rc == EXIT_OK && ccas_pbs_validate_count (f, "fail"))
        rc = EXIT_SCHEDULER;
    json_object_put (f);
    json_object_put (site.resources);
    json_object_put (site.server);
    json_object_put (site.sched);
    json_object_put (site.hooks);
    json_object_put (site.queues);
    free ((char *)site.sched_config);
    return rc;
}
