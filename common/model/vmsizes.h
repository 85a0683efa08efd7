/* SPDX-License-Identifier: MIT */
/* vmsizes.h: what Azure publishes about its machine types — the built-in
 * fallback for what a status response leaves out.
 *
 * For each machine type the table gives Azure's quota family as `az vm
 * list-skus` names it ("standardFSv2Family"), the vCPUs available to the
 * guest, memory in GiB, whole GPUs and whether it has an RDMA (InfiniBand)
 * network.  It is the source of node.vm_family, and it fills vCPUs and memory
 * when a bucket's virtualMachine does not state them.  For GPUs the higher of
 * the table and CycleCloud wins (older servers report 0, or a GPU count per
 * board).  The table covers the sizes HPC clusters commonly use; a size it
 * does not know has family "unknown" and no fallback.  Static data: nothing
 * to create or free; pure functions, safe from any thread.
 */
#ifndef CCAS_VMSIZES_H
#define CCAS_VMSIZES_H

#include <json-c/json.h>
#include <stdbool.h>

struct ccas_vmsize {
    const char *machine_type; /* "Standard_F4s_v2" */
    const char *family;       /* "standardFSv2Family" */
    int vcpus;                /* vCPUs available (constrained-core sizes: the smaller count) */
    double memory_gb;         /* GiB */
    int gpus;                 /* whole GPUs */
    bool rdma;                /* InfiniBand */
};

/* The entry for `machine_type` (case-insensitive), or NULL.  Static. */
const struct ccas_vmsize *ccas_vmsizes_find (const char *machine_type);

/* Azure's family of `machine_type`, or "unknown" (scalelib's word) when the
 * table does not know it.  Static string. */
const char *ccas_vmsizes_family (const char *machine_type);

/* GPUs for `machine_type`: `overrides` (a JSON object of name -> integer,
 * may be NULL; the configuration's gpu_counts) first, else the higher of
 * the table and `reported`. */
int ccas_vmsizes_gpus (const char *machine_type, int reported, json_object *overrides);

/* The number of entries, and entry `i` (for tests and `ccautoscale
 * buckets`).  Static. */
unsigned ccas_vmsizes_count (void);
const struct ccas_vmsize *ccas_vmsizes_at (unsigned i);

#endif /* !CCAS_VMSIZES_H */
