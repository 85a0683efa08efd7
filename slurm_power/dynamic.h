/* SPDX-License-Identifier: MIT */
/* dynamic.h: Slurm dynamic nodes — which nodearray and machine type a node of a dynamic partition is.
 *
 * A nodearray is dynamic when its Configuration in CycleCloud says so, as
 * the stock Slurm template does: slurm.dynamic_feature ("dyn"), or the
 * older slurm.dynamic_config, whose Feature= token names the feature
 * ("-Z --conf \"Feature=mydyn\"").  A dynamic partition is a Nodeset by that
 * feature; its nodes have any name (no <prefix><nodearray>-N), made by the
 * administrator (`scontrol create NodeName=f4-[1-10] State=CLOUD
 * Feature=dyn,Standard_F4s_v2`), by `ccautoscale slurm dynamic add`, or by
 * a VM's `slurmd -Z`.  Such a node belongs to the managed nodearray whose
 * feature it has; its machine type is the one among its features (case
 * does not matter), else the nodearray's first (as the stock azslurm
 * does).  Its VM is named as the node, in that bucket.
 *
 * Nothing here is kept: each call reads the nodearrays' Configuration (a
 * few hash lookups), so the answer follows the status it is given.
 */
#ifndef CCAS_SLURM_DYNAMIC_H
#define CCAS_SLURM_DYNAMIC_H

#include <stdbool.h>
#include <stddef.h>

#include "model/cluster.h"
#include "names.h"
#include "slurmapi.h"

/* The feature that marks `na`'s dynamic nodes: the first of
 * slurm.dynamic_feature's comma list, else the feature of
 * slurm.dynamic_config (ccas_slurm_config_feature(), intent.h); NULL when `na` is not dynamic (or the value
 * is not a string).  Written to `buf`, which it returns. */
const char *ccas_slurm_dynamic_feature (const struct ccas_nodearray *na, char *buf, size_t size);

/* Whether the comma-separated `features` hold `feature` exactly (Slurm's
 * features are case-sensitive), or, with `nocase`, in any case. */
bool ccas_slurm_features_have (const char *features, const char *feature, bool nocase);

/* The bucket of a dynamic node with Slurm features `features` ("dyn,
 * Standard_F4s_v2"): the managed dynamic nodearray whose feature is among
 * them (of several, the one with a bucket of a machine type among them,
 * else the first in the status), and in it the bucket of the machine type
 * among the features, else its first.  NULL when no dynamic nodearray's
 * feature is there; `why` (may be NULL) says why.  Borrowed from `c`. */
struct ccas_bucket *ccas_slurm_dynamic_bucket (const struct ccas_cluster *c, const char *features, char *why,
                                               size_t whysize);

/* Any Slurm node's bucket: a dynamic node's (above) when its features
 * (from `sn`, which may be NULL) carry a dynamic feature, else the
 * <prefix><nodearray>-N layout's (names.h).  NULL with `why` when
 * ccautoscale does not manage the name. */
struct ccas_bucket *ccas_slurm_node_bucket (const struct ccas_cluster *c, const struct ccas_slurm_layout *l,
                                            const char *name, const struct ccas_slurm_node *sn, char *why,
                                            size_t whysize);

/* Whether `nodearray` (a name, may be NULL) is a managed dynamic nodearray of `c`. */
bool ccas_slurm_dynamic_nodearray (const struct ccas_cluster *c, const char *nodearray);

/* A node name split for a create set: "f4-17" is stem "f4-" and number 17
 * (nameFormat "f4-%d", nameOffset 17); a name that does not end in a
 * number without leading zeros ("f4-07", "login") has number -1 and is
 * created alone, its nameFormat the name itself.  `stem` gets the name up
 * to the number.  False for a name that cannot be a nameFormat (one holding
 * '%', or longer than `size`). */
bool ccas_slurm_name_split (const char *name, char *stem, size_t size, long *number);

#endif /* !CCAS_SLURM_DYNAMIC_H */
