/* SPDX-License-Identifier: MIT */
/* conf_compare.h: what differs between two Slurm configurations, by meaning.
 *
 * Moving from azslurm, a site wants to know what changes when ccautoscale
 * writes its azure.conf, gres.conf and topology.conf: not lines (azslurm
 * writes Nodename and STATE, ccautoscale NodeName and State; its ranges may
 * be cut otherwise), but nodes, partitions and switches.  Each file is read
 * as Slurm reads it (KEY=VALUE words, keys in any case, '#' comments,
 * hostlists expanded by libslurm) and compared thing by thing:
 *   nodes      by name, each value azslurm writes, and those that change
 *              what a node is (State, CPUs, ThreadsPerCore, RealMemory, Gres,
 *              Feature); features ccautoscale adds beside azslurm's are
 *              said, not counted as a difference;
 *   partitions by name, their nodes as sets, each value, the defaults
 *              Slurm takes for a value not written (Default=NO, State=UP,
 *              MaxTime=UNLIMITED) counted as written;
 *   nodesets   by name; other lines (GresTypes, Include) as they are;
 *   gres.conf  by node name, each value;
 *   topology   which nodes share a switch (the switches' names aside).
 * One line per group of things that differ alike, names compressed as
 * hostlists: "= " the same, "~ " differs, "- " only in the site's file,
 * "+ " only in what ccautoscale writes.
 */
#ifndef CCAS_CONF_COMPARE_H
#define CCAS_CONF_COMPARE_H

#include "util/error.h"

enum ccas_conf_kind {
    CCAS_CONF_NODES,    /* azure.conf / ccautoscale.conf: NodeName, PartitionName, Nodeset */
    CCAS_CONF_GRES,     /* gres.conf */
    CCAS_CONF_TOPOLOGY, /* topology.conf: SwitchName */
};

/* Compare `theirs` (the site's file, NULL if it has none; `name` names it in
 * the lines) with `ours`.  Returns the report (caller frees), with
 * *differences the number of lines that are not "= ", or NULL with `err`
 * (a hostlist Slurm cannot expand, out of memory). */
char *ccas_conf_compare (enum ccas_conf_kind kind, const char *name, const char *theirs, const char *ours,
                         int *differences, struct ccas_error *err);

#endif /* !CCAS_CONF_COMPARE_H */
