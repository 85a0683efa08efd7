/* SPDX-License-Identifier: MIT */
/* failpoint.c: SIGKILL at a named point when CCAUTOSCALE_FAILPOINT asks for it. */
#include "config.h"

#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/failpoint.h"
#include "util/log.h"

void ccas_failpoint (const char *name)
{
    static const char *spec;
    static bool read;
    static long hits;
    if (!read) {
        spec = getenv ("CCAUTOSCALE_FAILPOINT");
        read = true;
    }
    if (!spec || !*spec)
        return;
    size_t n = strcspn (spec, "@");
    if (strlen (name) != n || strncmp (spec, name, n) != 0)
        return;
    long want = spec[n] == '@' ? strtol (spec + n + 1, NULL, 10) : 1;
    if (++hits < want)
        return;
    ccas_log (LOG_NOTICE, "failpoint %s: killing this process (CCAUTOSCALE_FAILPOINT)", name);
    raise (SIGKILL);
}
