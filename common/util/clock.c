/* SPDX-License-Identifier: MIT */
/* clock.c: elapsed time and waiting on the monotonic clock. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <time.h>

#include "util/clock.h"

double ccas_clock_monotonic (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void ccas_clock_sleep (double seconds)
{
    if (!(seconds > 0))
        return;
    struct timespec ts = {(time_t)seconds, (long)((seconds - floor (seconds)) * 1e9)};
    while (nanosleep (&ts, &ts) < 0 && errno == EINTR)
        ;
}
