/* SPDX-License-Identifier: MIT */
/* cmd_metrics.c: `ccautoscale metrics` — what the metrics file says, from the accumulated state. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "builtins.h"
#include "util/metrics.h"

const struct cmd_help help_metrics = {
    .synopsis = "metrics",
    .summary = "print the Prometheus metrics every acting run writes to metrics.file",
    .description = "Every run that changes something (resume, suspend, resume-fail, slurm sync, pbs\n"
                   "autoscale, demand --apply, create, scale, terminate) adds what it did to the counters\n"
                   "in state_dir/metrics.json and rewrites metrics.file (default\n"
                   "state_dir/ccautoscale.prom) atomically, in Prometheus's text format.  Point\n"
                   "node_exporter's textfile collector at that directory, or run this command.\n"
                   "\n"
                   "Families: ccautoscale_nodes{nodearray,state}, ccautoscale_nodes_created_total,\n"
                   "ccautoscale_create_failures_total{nodearray,class}, ccautoscale_nodes_terminated_total,\n"
                   "ccautoscale_resume_latency_seconds (histogram: create request to the first run that saw\n"
                   "the node Ready), ccautoscale_run_duration_seconds{program},\n"
                   "ccautoscale_runs_total{program,result}, ccautoscale_requests_total{endpoint},\n"
                   "ccautoscale_retries_total{endpoint}, ccautoscale_bucket_held{nodearray,machine_type},\n"
                   "ccautoscale_breaker_open{nodearray}.\n"
                   "Nothing is sent to CycleCloud.",
    .examples = "$ ccautoscale metrics | grep create_failures",
    .see_also = "ccautoscale-status(8)",
};

int cmd_metrics (struct cli *cli, int argc, char **argv)
{
    int rc;
    if ((rc = cli_no_arguments (cli, argc, argv)) != EXIT_OK || (rc = cli_prepare (cli)) != EXIT_OK)
        return rc;
    ccas_metrics_open (cli->cfg->metrics.path, cli->cfg->state_dir, "ccautoscale metrics");
    char *text = ccas_metrics_text ();
    ccas_metrics_close ();
    if (!text)
        return cli_fail (cli, EXIT_CONFIG,
                         "metrics are off (metrics.file is \"\") or their state cannot be read");
    fputs (text, stdout);
    free (text);
    return EXIT_OK;
}
