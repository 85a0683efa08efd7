/* SPDX-License-Identifier: MIT */
/* slurm_jobs.h: Slurm's pending and running jobs as core jobs (for `slurm demand`). */
#ifndef CCAS_SLURM_JOBS_H
#define CCAS_SLURM_JOBS_H

#include "model/cluster.h"
#include "model/job.h"
#include "names.h"

/* Load jobs (one RPC) and translate: a pending job becomes num_nodes slots,
 * scattered, each wanting its per-node CPUs, memory and GPUs in the
 * nodearray(s) of its partition(s), a machine type if a feature names one,
 * exclusive if it does not share, colocated in a colocated nodearray.  A
 * running job holds its nodes (`running_on`).  A job whose nodes are still
 * powering up (Slurm: RUNNING and CONFIGURING) holds them too and is marked
 * `ignore`: it waits for VMs already asked for.  Caller frees with
 * ccas_jobs_destroy(). */
struct ccas_jobs *ccas_slurm_jobs_load (struct ccas_cluster *c, struct ccas_error *err);

#endif /* !CCAS_SLURM_JOBS_H */
