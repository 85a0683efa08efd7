/* SPDX-License-Identifier: MIT */
/* cmd_analyze.c: `ccautoscale analyze --job ID` — why one job does or does not match, bucket by bucket. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "builtins.h"
#include "model_load.h"

static const struct cmd_option options[] = {
    {"--job ID", "the job to explain (required)"},
    {"-j, --jobs FILE", "the jobs, as for demand; '-' reads stdin (default '-')"},
    {"--status FILE", "replay a saved status response"},
    {"--nodes FILE", "with --status: a saved nodes response"},
    {NULL, NULL},
};

const struct cmd_help help_analyze = {
    .synopsis = "analyze --job ID [--jobs FILE|-] [--status FILE [--nodes FILE]] [--json]",
    .summary = "explain, bucket by bucket, why a job does or does not match",
    .description = "Runs the same pass as demand (jobs ahead of this one take their share first), then\n"
                   "shows for each chunk of the job every bucket: whether a new node there would\n"
                   "satisfy the constraint and, if not, which term fails; how many more nodes the bucket\n"
                   "may take after the jobs ahead (this job's own nodes not counted); and how many\n"
                   "existing nodes fit.  Nothing changes.",
    .options = options,
    .examples = "$ ccautoscale analyze --job 1234 --jobs jobs.json",
    .see_also = "ccautoscale-demand(8)",
};

int cmd_analyze (struct cli *cli, int argc, char **argv)
{
    static const struct option longopts[] = {
        {"job", required_argument, NULL, 0x301},
        {"jobs", required_argument, NULL, 'j'},
        {"status", required_argument, NULL, 0x302},
        {"nodes", required_argument, NULL, 0x303},
        {NULL, 0, NULL, 0},
    };
    struct model_source src = {.with_nodes = true, .apply_holds = true};
    const char *job_id = NULL, *jobs_file = "-";
    struct ccas_cluster *c = NULL;
    struct ccas_jobs *jobs = NULL;
    int ch, rc;

    while ((ch = cli_getopt (cli, argc, argv, "j:", longopts)) != -1) {
        if (ch == 0x301)
            job_id = optarg;
        else if (ch == 'j')
            jobs_file = optarg;
        else if (ch == 0x302)
            src.status_file = optarg;
        else if (ch == 0x303)
            src.nodes_file = optarg;
    }
    if (optind < argc)
        return cli_usage_error (cli, "unexpected argument '%s'", argv[optind]);
    if (!job_id)
        return cli_usage_error (cli, "--job ID is required");
    if ((rc = cli_prepare (cli)) != EXIT_OK)
        return rc;
    if ((rc = model_load (cli, &src, &c)) != EXIT_OK ||
        (rc = jobs_load (cli, c, jobs_file, &jobs)) != EXIT_OK)
        goto done;
    rc = analyze_job (cli, c, jobs, job_id);
done:
    ccas_jobs_destroy (jobs);
    ccas_cluster_destroy (c);
    return rc;
}
