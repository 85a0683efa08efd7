/* SPDX-License-Identifier: MIT */
/* failpoint.c: SIGKILL (or SIGSTOP) at a named point when CCAUTOSCALE_FAILPOINT asks for it. */
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
    static bool read, stop;
    static long hits;
    if (!read) {
        const char *action = getenv ("CCAUTOSCALE_FAILPOINT_ACTION");
        spec = getenv ("CCAUTOSCALE_FAILPOINT");
        stop = action && strcmp (action, "stop") == 0;
        read = true;
    }
    if (!spec || !*spec)
        return;
    size_t n = strcspn (spec, "@");
    if (strlen (name) != n || strncmp (spec, name, n) != 0)
        return;
    long want = spec[n] == '@' ? strtol (spec + n + 1, NULL, 10) : 1;
    if (++hits < want || (stop && hits > want))
        return; /* a stopped process, continued, stops once only */
    if (stop) {
        ccas_log (LOG_NOTICE, "failpoint %s: stopping this process (CCAUTOSCALE_FAILPOINT_ACTION=stop)",
                  name);
        raise (SIGSTOP);
        return; /* continued: on as if nothing happened */
    }
    ccas_log (LOG_NOTICE, "failpoint %s: killing this process (CCAUTOSCALE_FAILPOINT)", name);
    raise (SIGKILL);
}
