/* SPDX-License-Identifier: MIT */
/* conf_gen.h: slurm.conf node and partition lines, gres.conf and topology.conf from the buckets.
 *
 * What azslurm writes (azure.conf, gres.conf, its topology) for the same
 * cluster, from each nodearray's settings (intent.h) and names (names.h):
 * for each bucket NodeName=<prefix><nodearray>-[first-last]
 * Feature=cloud,<machine type>,<nodearray> State=CLOUD (FUTURE where
 * slurm.autoscale is false) CPUs (vCPUs), Boards=1 SocketsPerBoard=1
 * CoresPerSocket ThreadsPerCore (vCPUs per core, or 1: slurm.use_pcpu)
 * RealMemory Gres=gpu:N; for each partition (slurm.partition) its nodes,
 * hostlist-compressed as Slurm prints them, DefMemPerCPU (RealMemory per
 * CPU), one Default=YES, OverSubscribe=EXCLUSIVE where ccautoscale colocates
 * jobs by its own rules; a dynamic partition's Nodeset by its feature.
 * gres.conf gives each GPU its device file; topology.conf puts each
 * colocated bucket under a switch of its own (a job's placement group is in
 * one bucket), the other nodes under one switch, htc as azslurm names it,
 * and a root above.  Where this differs from azslurm, and why, is in the
 * README's table "Moving from azslurm".
 */
#ifndef CCAS_CONF_GEN_H
#define CCAS_CONF_GEN_H

#include <stdbool.h>

#include "model/cluster.h"
#include "names.h"

struct ccas_slurm_files {
    char *nodes;    /* the include for slurm.conf (ccautoscale.conf) */
    char *gres;     /* gres.conf */
    char *topology; /* topology.conf */
};

/* Render the three files.  Returns 0 (caller frees with
 * ccas_slurm_files_release()) or -1 with `err`. */
int ccas_slurm_files_render (const struct ccas_cluster *c, const struct ccas_slurm_layout *l,
                             struct ccas_slurm_files *out, struct ccas_error *err);
void ccas_slurm_files_release (struct ccas_slurm_files *f);

/* What applying a change needs: 0 nothing, 1 `scontrol reconfigure`,
 * 2 a restart of slurmctld (node definitions changed). */
int ccas_slurm_change_needs (const char *old_nodes, const char *new_nodes, bool other_changed);

#endif /* !CCAS_CONF_GEN_H */
