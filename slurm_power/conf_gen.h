/* SPDX-License-Identifier: MIT */
/* conf_gen.h: slurm.conf node and partition lines, gres.conf and topology.conf from the buckets.
 *
 * For each bucket: NodeName=<prefix><nodearray>-[first-last] State=CLOUD
 * CPUs (vCPUs), Boards=1 SocketsPerBoard=1 CoresPerSocket (pCPUs)
 * ThreadsPerCore (vCPU/pCPU), RealMemory (less a margin), Gres=gpu:N,
 * Feature=<machine type>,<nodearray>.  For each nodearray a partition.
 * gres.conf gives each GPU its device file (slurm.gpu_device_files).
 * topology.conf puts each bucket under its own switch, so Slurm keeps a
 * job's nodes on one machine type (one placement group per job needs that).
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
