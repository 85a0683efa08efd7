/* SPDX-License-Identifier: MIT */
/* vmfamily.h: the quota family of an Azure machine type.
 *
 * Azure counts cores against a per-family quota that several machine types
 * share (Standard_F2s_v2 and Standard_F4s_v2 draw on one).  The server does not
 * name the family in a bucket, so both the client and the simulator find the
 * same key from the machine type: Azure's own family name where the built-in
 * table knows the size (vmsizes.h), else the name without its size digits.
 */
#ifndef CCAS_VMFAMILY_H
#define CCAS_VMFAMILY_H

#include <stddef.h>

/* Write the family key of `machine_type` into `buf`: "Standard_F4s_v2" ->
 * "standardFSv2Family" (the table's), "Standard_X12ab_v9" -> "Standard_Xab_v9"
 * (derived: the first run of digits after the series letters dropped).
 * Returns `buf`. */
const char *ccas_vmfamily_of (const char *machine_type, char *buf, size_t size);

#endif /* !CCAS_VMFAMILY_H */
