/* SPDX-License-Identifier: MIT */
/* test_failure.c: failure classes from the messages Azure and CycleCloud give
 * and from failed requests; throttling and transient never read as capacity. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "ccapi/failure.h"

struct message_case {
    const char *message;
    enum ccas_failure_class want;
};

/* Real wordings where we know them (Azure's ARM errors, CycleCloud's and
 * ccsim's partial-create messages), and the traps that misled the words. */
static const struct message_case messages[] = {
    {NULL, CCAS_CLASS_TRANSIENT},
    {"", CCAS_CLASS_TRANSIENT},
    {"Allocation failed. We do not have sufficient capacity for the requested VM size in this region.",
     CCAS_CLASS_CAPACITY},
    {"OverconstrainedAllocationRequest: VM(s) with the following constraints cannot be allocated",
     CCAS_CLASS_CAPACITY},
    {"ZonalAllocationFailed: Allocation failed for zone 1", CCAS_CLASS_CAPACITY},
    {"The requested size for resource 'vm1' is currently not available in location 'eastus' zones '1'"
     " (SkuNotAvailable)",
     CCAS_CLASS_CAPACITY},
    {"Allocation failed: OverconstrainedAllocationRequest: insufficient capacity for Standard_F2s_v2 in this"
     " region (ccsim)",
     CCAS_CLASS_CAPACITY},
    {"Operation could not be completed as it results in exceeding approved standardHBv3Family Cores quota."
     " Current Limit: 0, Current Usage: 0, Additional Required: 120",
     CCAS_CLASS_QUOTA},
    {"0 of 3 nodes added: the standardNCADSA100v4Family family quota (48 cores) limit reached",
     CCAS_CLASS_QUOTA},
    {"1 of 4 nodes added: the nodearray's maxCount limit reached", CCAS_CLASS_QUOTA},
    {"0 of 2 nodes added: the cluster's maxCoreCount limit reached", CCAS_CLASS_QUOTA},
    {"Too many requests, retry later", CCAS_CLASS_THROTTLING},
    {"Request was throttled", CCAS_CLASS_THROTTLING},
    /* a full placement group is that group's, not the bucket's: never held as quota */
    {"2 of 4 nodes added: placement group hpc_pg0 limit reached (maxPlacementGroupSize 4)",
     CCAS_CLASS_TRANSIENT},
    /* ... but a group Azure cannot allocate is capacity */
    {"Allocation failed in placement group pg1: OverconstrainedAllocationRequest", CCAS_CLASS_CAPACITY},
    /* traps: a permission is not capacity, a missing size is not a quota */
    {"The client has insufficient privileges to perform this action", CCAS_CLASS_PERMANENT},
    {"The client 'x' does not have authorization to perform action 'Microsoft.Compute/write'",
     CCAS_CLASS_PERMANENT},
    {"Invalid machine type 'Standard_X'", CCAS_CLASS_PERMANENT},
    {"connection reset by peer", CCAS_CLASS_TRANSIENT},
};

static void test_messages (void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof (messages) / sizeof (messages[0]); i++) {
        enum ccas_failure_class got = ccas_failure_classify_message (messages[i].message);
        if (got != messages[i].want)
            fail_msg ("'%s': %s, want %s", messages[i].message ? messages[i].message : "(null)",
                      ccas_failure_class_name (got), ccas_failure_class_name (messages[i].want));
    }
}

struct request_case {
    struct ccas_http_failure f;
    enum ccas_failure_class want;
};

static void test_requests (void **state)
{
    (void)state;
    static const struct request_case cases[] = {
        {{CCAS_FAIL_TRANSPORT, 0, -1, false, "Couldn't connect to server"}, CCAS_CLASS_TRANSIENT},
        {{CCAS_FAIL_TRANSPORT, 0, -1, true, "SSL certificate problem: self-signed certificate"},
         CCAS_CLASS_PERMANENT},
        {{CCAS_FAIL_RESPONSE, 200, -1, false, "not JSON"}, CCAS_CLASS_TRANSIENT},
        {{CCAS_FAIL_HTTP, 429, 5, false, "Too many requests"}, CCAS_CLASS_THROTTLING},
        /* a 429 whose body talks of quota or capacity is still throttling */
        {{CCAS_FAIL_HTTP, 429, -1, false, "subscription request quota exceeded"}, CCAS_CLASS_THROTTLING},
        {{CCAS_FAIL_HTTP, 503, -1, false, "no capacity to serve"}, CCAS_CLASS_THROTTLING},
        {{CCAS_FAIL_HTTP, 500, -1, false, "injected HTTP 500 (ccsim)"}, CCAS_CLASS_TRANSIENT},
        {{CCAS_FAIL_HTTP, 502, -1, false, "Bad Gateway"}, CCAS_CLASS_TRANSIENT},
        {{CCAS_FAIL_HTTP, 408, -1, false, "timeout"}, CCAS_CLASS_TRANSIENT},
        {{CCAS_FAIL_HTTP, 400, -1, false, "injected HTTP 400 (ccsim)"}, CCAS_CLASS_PERMANENT},
        {{CCAS_FAIL_HTTP, 401, -1, false, "Unauthorized"}, CCAS_CLASS_PERMANENT},
        {{CCAS_FAIL_HTTP, 409, -1, false, "exceeding approved Cores quota"}, CCAS_CLASS_QUOTA},
    };
    assert_int_equal (ccas_failure_classify_request (NULL), CCAS_CLASS_TRANSIENT);
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        enum ccas_failure_class got = ccas_failure_classify_request (&cases[i].f);
        if (got != cases[i].want)
            fail_msg ("case %zu (%d '%s'): %s, want %s", i, cases[i].f.http_status, cases[i].f.message,
                      ccas_failure_class_name (got), ccas_failure_class_name (cases[i].want));
    }
}

static void test_holds_and_names (void **state)
{
    (void)state;
    assert_true (ccas_failure_holds_bucket (CCAS_CLASS_CAPACITY));
    assert_true (ccas_failure_holds_bucket (CCAS_CLASS_QUOTA));
    assert_false (ccas_failure_holds_bucket (CCAS_CLASS_THROTTLING));
    assert_false (ccas_failure_holds_bucket (CCAS_CLASS_TRANSIENT));
    assert_false (ccas_failure_holds_bucket (CCAS_CLASS_PERMANENT));
    assert_string_equal (ccas_failure_class_name (CCAS_CLASS_COUNT), "unknown");
}

static void test_reason_form (void **state)
{
    (void)state;
    char buf[40];
    assert_string_equal (ccas_failure_reason (CCAS_CLASS_QUOTA, "a\nb\tc", buf, sizeof (buf)),
                         "ccautoscale: quota: a b c");
    assert_string_equal (ccas_failure_reason (CCAS_CLASS_CAPACITY, NULL, buf, sizeof (buf)),
                         "ccautoscale: capacity: no message");
    /* too long: cut, marked, still NUL-terminated within the buffer */
    ccas_failure_reason (CCAS_CLASS_TRANSIENT, "a message far longer than forty bytes in all", buf,
                         sizeof (buf));
    assert_int_equal (strlen (buf), sizeof (buf) - 1);
    assert_string_equal (buf + sizeof (buf) - 4, "...");
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_messages),
        cmocka_unit_test (test_requests),
        cmocka_unit_test (test_holds_and_names),
        cmocka_unit_test (test_reason_form),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
