/* SPDX-License-Identifier: MIT */
/* analyze.h: explain one job, bucket by bucket (`analyze`, `pbs analyze`). */
#ifndef CCAS_ANALYZE_H
#define CCAS_ANALYZE_H

#include "cli.h"
#include "model/cluster.h"
#include "model/job.h"

/* Match the jobs ahead of `job_id` (the ones behind it are left out), then
 * print why `job_id` matches or not, as text or (--json) JSON.  Returns an
 * exit code: EXIT_USAGE when the job is not pending among `jobs`. */
int analyze_job (struct cli *cli, struct ccas_cluster *c, struct ccas_jobs *jobs, const char *job_id);

#endif /* !CCAS_ANALYZE_H */
