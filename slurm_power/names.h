/* SPDX-License-Identifier: MIT */
/* names.h: Slurm node names for buckets, and buckets for Slurm node names.
 *
 * Names are <prefix><nodearray>-<i>, the prefix each nodearray's own
 * (slurm.node_prefix: the site's key, else the nodearray's Configuration,
 * where CycleCloud's Slurm template puts the cluster's name and '-'; see
 * intent.h).  Each nodearray's buckets get consecutive index ranges, in
 * preference order, one range per machine type, as many names as the
 * bucket's maxCount (and the nodearray's) allows: CycleCloud's limit, not
 * ours; slurm.max_nodes, when set, caps them with a warning naming the
 * nodearray.  The generated NodeName lines carry Feature=<machine type>;
 * when a name is resolved, that feature in Slurm is the authority and the
 * layout the fallback, so renaming ranges in the configuration never sends
 * a node to the wrong machine type.
 *
 * A nodearray with a dynamic partition (slurm.dynamic_feature) has no
 * ranges: its nodes are Slurm's dynamic nodes, of any name, and belong to it
 * by their features (dynamic.h).
 *
 * Only the nodearrays ccautoscale manages get names: not one whose
 * Configuration.autoscale.enabled is false in CycleCloud (a login nodearray,
 * as Microsoft's Slurm template marks it; scalelib ignores those too), nor
 * one disabled in the configuration (nodearrays.<name>.enabled false).  Their
 * VMs are never created, started or terminated by the Slurm programs or sync,
 * and `slurm conf` writes no node or partition for them.
 */
#ifndef CCAS_SLURM_NAMES_H
#define CCAS_SLURM_NAMES_H

#include <stdbool.h>
#include <stddef.h>

#include "intent.h"
#include "model/cluster.h"
#include "slurmapi.h"

struct ccas_slurm_range {
    struct ccas_bucket *bucket;
    long first, last; /* inclusive */
};

struct ccas_slurm_layout {
    struct ccas_slurm_intents *intents; /* owned: every nodearray's settings; its
                                         * warnings and errors include the layout's */
    struct ccas_slurm_range *ranges;
    size_t nranges;
};

/* Whether ccautoscale manages `na` for Slurm; if not, `why` (may be NULL) says why. */
bool ccas_slurm_nodearray_managed (const struct ccas_nodearray *na, char *why, size_t whysize);

/* Read the nodearrays' Slurm settings and lay out names for every bucket
 * of the managed, static nodearrays of `c`.  What the settings get wrong is
 * in l->intents->errors (a nodearray in error still gets its names: the
 * programs go on; `slurm conf` refuses to write).  Caller frees with
 * ccas_slurm_layout_destroy().  Returns NULL only when out of memory. */
struct ccas_slurm_layout *ccas_slurm_layout_create (const struct ccas_cluster *c);
void ccas_slurm_layout_destroy (struct ccas_slurm_layout *l);

/* "<prefix><nodearray>-<index>" into `buf`, with the nodearray's prefix.
 * Returns `buf`. */
const char *ccas_slurm_name (const struct ccas_slurm_layout *l, const char *nodearray, long index, char *buf,
                             size_t size);

/* "<prefix><nodearray>-%d": a create set's nameFormat.  Returns `buf`. */
const char *ccas_slurm_name_format (const struct ccas_slurm_layout *l, const char *nodearray, char *buf,
                                    size_t size);

/* Split a name into nodearray and index: <prefix><nodearray>-<index> with
 * some nodearray's own prefix (a managed nodearray's first).  False if it is
 * not of our form. */
bool ccas_slurm_name_parse (const struct ccas_slurm_layout *l, const char *name, char *nodearray, size_t size,
                            long *index);

/* The managed nodearray a node name belongs to (its index in `*index`), or
 * NULL with `why`.  Borrowed from `c`. */
const struct ccas_nodearray *ccas_slurm_nodearray_of (const struct ccas_cluster *c,
                                                      const struct ccas_slurm_layout *l, const char *name,
                                                      long *index, char *why, size_t whysize);

/* The bucket a node name belongs to: the nodearray from the name (a managed
 * one), the machine type from the Slurm node's features (`sn` may be NULL),
 * else from the layout.  NULL if ccautoscale does not manage the name; `why`
 * says why. */
struct ccas_bucket *ccas_slurm_bucket_of (const struct ccas_cluster *c, const struct ccas_slurm_layout *l,
                                          const char *name, const struct ccas_slurm_node *sn, char *why,
                                          size_t whysize);

#endif /* !CCAS_SLURM_NAMES_H */
