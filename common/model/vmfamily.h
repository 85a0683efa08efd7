/* SPDX-License-Identifier: MIT */
/* vmfamily.h: the quota family of an Azure machine type.
 *
 * Azure counts cores against a per-family quota that several machine types
 * share (Standard_F2s_v2 and Standard_F4s_v2 draw on one).  The server does not
 * name the family in a bucket, so both the client and the simulator derive the
 * same key from the machine type: the name without its size digits.
 */
#ifndef CCAS_VMFAMILY_H
#define CCAS_VMFAMILY_H

#include <stddef.h>

/* Write the family key of `machine_type` into `buf`: "Standard_HB120rs_v3"
 * -> "Standard_HBrs_v3", "Standard_NC24ads_A100_v4" -> "Standard_NCads_A100_v4".
 * Returns `buf`. */
const char *ccas_vmfamily_of (const char *machine_type, char *buf, size_t size);

#endif /* !CCAS_VMFAMILY_H */
