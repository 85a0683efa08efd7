/* SPDX-License-Identifier: MIT */
/* dynamic_nodes.h: the Slurm dynamic node records ccautoscale makes and deletes.
 *
 * Stock azslurm never makes a node record: the administrator runs `scontrol
 * create NodeName=... State=CLOUD Feature=dyn,<machine type>`, or a VM's
 * `slurmd -Z` registers itself.  `ccautoscale slurm dynamic add` does the
 * first for them: N records of a dynamic nodearray and machine type, with
 * the bucket's CPUs, cores, threads, memory and GPUs (so that Slurm
 * schedules jobs that ask for them before any VM exists), State=CLOUD and
 * Feature=<the nodearray's dynamic feature>,<machine type> (so the
 * partition's Nodeset takes them and resume finds their bucket, dynamic.h).
 * Each record it makes is kept in state_dir/slurm_dynamic.json
 * ({"nodes": {"<name>": {"nodearray", "machine_type", "time"}}, "deleted":
 * when it last deleted some}): only those are
 * deleted by `slurm dynamic delete` without --force, and by sync once
 * powered down with no VM when slurm.dynamic_delete is set.  slurmctld
 * needs SelectType=select/cons_tres, and MaxNodeCount above its node count.
 */
#ifndef CCAS_SLURM_DYNAMIC_NODES_H
#define CCAS_SLURM_DYNAMIC_NODES_H

#include <stdbool.h>
#include <stddef.h>

#include "power.h"
#include "util/state.h"

/* state_dir/slurm_dynamic.json.  Caller frees with ccas_state_destroy(). */
struct ccas_state *ccas_slurm_dynamic_nodes_load (const char *state_dir, struct ccas_error *err);

/* Whether ccautoscale made the record `name` (`st` may be NULL: no). */
bool ccas_slurm_dynamic_nodes_ours (struct ccas_state *st, const char *name);

/* The default stem of the names of bucket `b`'s records:
 * "<slurm.node_prefix><nodearray>-<machine type, short>-" ("dynamic-f4s-v2-"
 * for Standard_F4s_v2).  Returns `buf`. */
const char *ccas_slurm_dynamic_nodes_stem (const struct ccas_config *cfg, const struct ccas_bucket *b,
                                           char *buf, size_t size);

/* Whether `stem` may start a Slurm node name that is also a hostname:
 * letters, digits and '-', a letter first, at most 50 characters.  If
 * not, `why` says why. */
bool ccas_slurm_dynamic_nodes_stem_ok (const char *stem, char *why, size_t whysize);

/* `count` new names "<stem><i>", i from one past the highest number any
 * Slurm node (of `snodes`) with that stem has.  An array of `count` names
 * (caller frees with ccas_slurm_names_free()), or NULL when out of memory. */
char **ccas_slurm_dynamic_nodes_names (const struct ccas_slurm_nodes *snodes, const char *stem, size_t count);

/* The node line of `n` names `hostlist` in bucket `b` with dynamic feature
 * `feature`: "NodeName=<hostlist> State=CLOUD CPUs=... RealMemory=...
 * Feature=<feature>,<machine type> [Gres=gpu:N] [Topology=<topology>]"
 * (`topology` may be NULL); with slurm.node_port_base (a cluster on one
 * machine, for tests) also NodeAddr=127.0.0.1 and ports from `port_first`.
 * Returns `buf`. */
const char *ccas_slurm_dynamic_nodes_line (const struct ccas_config *cfg, const struct ccas_bucket *b,
                                           const char *feature, const char *hostlist, size_t n,
                                           long port_first, const char *topology, char *buf, size_t size);

/* The topology unit of bucket `b`'s records under TopologyPlugin=topology/tree
 * (Slurm 25.11+): "default:htc", the switch 'slurm conf' gives every node
 * outside a colocated bucket's range (a dynamic nodearray has no ranges, so
 * no switch of its own).  Returns `buf`. */
const char *ccas_slurm_dynamic_nodes_topology (const struct ccas_bucket *b, char *buf, size_t size);

/* The first port free for new records on one machine (slurm.node_port_base):
 * one past the highest any node of `snodes` has. */
long ccas_slurm_dynamic_nodes_port (const struct ccas_config *cfg, const struct ccas_slurm_nodes *snodes);

/* Record `names` as made, in bucket `b` (load, add, save). */
int ccas_slurm_dynamic_nodes_remember (const char *state_dir, const struct ccas_bucket *b, char *const *names,
                                       size_t n, double now, struct ccas_error *err);

/* Take `names`, deleted from Slurm at `now`, out of the record (load,
 * remove, save). */
int ccas_slurm_dynamic_nodes_forget (const char *state_dir, char *const *names, size_t n, double now,
                                     struct ccas_error *err);

/* When ccautoscale last deleted records (Unix seconds; 0 never).  Slurm
 * 25.11 does not schedule a node made after others were deleted until
 * slurmctld restarts ('scontrol reconfigure'): 'dynamic add' does that
 * when it deleted some since slurmctld started. */
double ccas_slurm_dynamic_nodes_deleted (struct ccas_state *st);

#endif /* !CCAS_SLURM_DYNAMIC_NODES_H */
