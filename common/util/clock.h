/* SPDX-License-Identifier: MIT */
/* clock.h: elapsed time and waiting, on the monotonic clock (never the wall
 * clock, which an administrator or NTP may move under a timeout). */
#ifndef CCAS_CLOCK_H
#define CCAS_CLOCK_H

/* Seconds on CLOCK_MONOTONIC: only differences mean anything. */
double ccas_clock_monotonic (void);

/* Sleep `seconds` (fractions allowed), resuming after a signal. */
void ccas_clock_sleep (double seconds);

#endif /* !CCAS_CLOCK_H */
