/* SPDX-License-Identifier: MIT */
/* gputable.h: GPUs per VM for machine types CycleCloud reports with 0 GPUs.
 *
 * Older servers report gpuCount 0 for many GPU sizes.  The built-in table
 * covers Azure's whole-GPU sizes; the configuration's gpu_counts overrides it
 * entry by entry.  Fractional-GPU sizes (NVadsA10_v5 below 36 vCPUs) are left
 * out: they have no whole GPU to schedule.
 */
#ifndef CCAS_GPUTABLE_H
#define CCAS_GPUTABLE_H

#include <json-c/json.h>

/* GPUs for `machine_type`: `overrides` (a JSON object of name -> integer,
 * may be NULL) first, then the built-in table, then `reported`. */
int ccas_gputable_count (const char *machine_type, int reported, json_object *overrides);

#endif /* !CCAS_GPUTABLE_H */
