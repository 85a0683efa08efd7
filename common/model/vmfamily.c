/* SPDX-License-Identifier: MIT */
/* vmfamily.c: the quota family key of a machine type: Azure's name, or one derived. */
#include "config.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "model/vmfamily.h"
#include "model/vmsizes.h"

/* Drop the first run of digits after the series letters of the second
 * underscore-separated word: that run is the size (vCPU count). */
const char *ccas_vmfamily_of (const char *machine_type, char *buf, size_t size)
{
    size_t o = 0;
    const char *p = machine_type ? machine_type : "";
    const char *word = strchr (p, '_');
    const char *start = word ? word + 1 : p;
    bool dropped = false;

    if (size == 0)
        return buf;
    const struct ccas_vmsize *known = ccas_vmsizes_find (machine_type);
    if (known) {
        snprintf (buf, size, "%s", known->family);
        return buf;
    }
    for (; *p && o + 1 < size; p++) {
        if (!dropped && p >= start && isdigit ((unsigned char)*p)) {
            while (isdigit ((unsigned char)p[1]))
                p++;
            dropped = true;
            continue;
        }
        buf[o++] = *p;
    }
    buf[o] = '\0';
    return buf;
}
