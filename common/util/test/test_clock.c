/* SPDX-License-Identifier: MIT */
/* test_clock.c: the monotonic clock only moves forward; a sleep lasts at
 * least what was asked, through signals, and nothing for a non-positive or
 * NaN request. */
#include "config.h"

#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/time.h>

#include <cmocka.h>

#include "util/clock.h"

static void test_no_wait (void **state)
{
    static const double waits[] = {0, -1, -1e9, NAN, -INFINITY};
    (void)state;
    for (size_t i = 0; i < sizeof (waits) / sizeof (waits[0]); i++) {
        double t0 = ccas_clock_monotonic ();
        ccas_clock_sleep (waits[i]);
        assert_true (ccas_clock_monotonic () - t0 < 0.05);
    }
}

static void test_monotonic (void **state)
{
    (void)state;
    double last = ccas_clock_monotonic ();
    assert_true (last > 0);
    for (int i = 0; i < 10000; i++) {
        double now = ccas_clock_monotonic ();
        assert_true (now >= last);
        last = now;
    }
}

static void test_sleep_lasts (void **state)
{
    static const double waits[] = {0.001, 0.02, 0.15, 1.05 - 1.0};
    (void)state;
    for (size_t i = 0; i < sizeof (waits) / sizeof (waits[0]); i++) {
        double t0 = ccas_clock_monotonic ();
        ccas_clock_sleep (waits[i]);
        double took = ccas_clock_monotonic () - t0;
        assert_true (took >= waits[i]);
        assert_true (took < waits[i] + 1.0);
    }
}

static volatile sig_atomic_t alarms;

static void on_alarm (int sig)
{
    (void)sig;
    alarms++;
}

/* A signal every 10 ms does not cut a 200 ms sleep short. */
static void test_sleep_through_signals (void **state)
{
    (void)state;
    struct sigaction sa, old;
    memset (&sa, 0, sizeof (sa));
    sa.sa_handler = on_alarm; /* no SA_RESTART: nanosleep returns EINTR */
    assert_int_equal (sigaction (SIGALRM, &sa, &old), 0);
    struct itimerval it = {{0, 10000}, {0, 10000}}, off = {{0, 0}, {0, 0}};
    alarms = 0;
    assert_int_equal (setitimer (ITIMER_REAL, &it, NULL), 0);
    double t0 = ccas_clock_monotonic ();
    ccas_clock_sleep (0.2);
    double took = ccas_clock_monotonic () - t0;
    setitimer (ITIMER_REAL, &off, NULL);
    sigaction (SIGALRM, &old, NULL);
    assert_true (alarms >= 2);
    assert_true (took >= 0.2);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_no_wait),
        cmocka_unit_test (test_monotonic),
        cmocka_unit_test (test_sleep_lasts),
        cmocka_unit_test (test_sleep_through_signals),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
