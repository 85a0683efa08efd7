/* SPDX-License-Identifier: MIT */
/* failure.c: classify failures by status code and by the words Azure and CycleCloud use. */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "ccapi/failure.h"

static const char *const class_names[CCAS_CLASS_COUNT] = {
    [CCAS_CLASS_CAPACITY] = "capacity",     [CCAS_CLASS_QUOTA] = "quota",
    [CCAS_CLASS_THROTTLING] = "throttling", [CCAS_CLASS_PERMANENT] = "permanent",
    [CCAS_CLASS_TRANSIENT] = "transient",
};

const char *ccas_failure_class_name (enum ccas_failure_class c)
{
    return c < CCAS_CLASS_COUNT ? class_names[c] : "unknown";
}

static bool contains_any (const char *text, const char *const *words)
{
    for (; *words; words++)
        if (strcasestr (text, *words))
            return true;
    return false;
}

/* Azure's allocation errors and CycleCloud's wording for them ("insufficient"
 * alone is not one: "insufficient privileges" is a permission). */
static const char *const capacity_words[] = {
    "capacity",
    "AllocationFailed",
    "Allocation failed",
    "OverconstrainedAllocationRequest",
    "ZonalAllocationFailed",
    "SkuNotAvailable",
    "not available in",
    NULL,
};

/* A full placement group is that group's limit, not the bucket's: another
 * group has room, so it must not hold the bucket back as a quota would. */
static const char *const group_words[] = {"placement group", "PlacementGroup", NULL};

static const char *const quota_words[] = {
    "quota",      "QuotaExceeded", "OperationNotAllowed", "maxCount", "maxCoreCount",
    "core limit", "limit of",      "limit reached",       "exceed",   NULL,
};

static const char *const throttle_words[] = {"throttl", "too many requests", "TooManyRequests", "rate limit",
                                             NULL};

static const char *const permanent_words[] = {
    "invalid",   "unknown machine type", "not found", "InvalidParameter", "unauthorized", "forbidden",
    "not valid", "authorization",        "privilege", "permission",       NULL,
};

enum ccas_failure_class ccas_failure_classify_message (const char *message)
{
    if (!message || !*message)
        return CCAS_CLASS_TRANSIENT;
    if (contains_any (message, throttle_words))
        return CCAS_CLASS_THROTTLING;
    if (contains_any (message, group_words) && !contains_any (message, capacity_words))
        return CCAS_CLASS_TRANSIENT;
    if (contains_any (message, quota_words))
        return CCAS_CLASS_QUOTA;
    if (contains_any (message, capacity_words))
        return CCAS_CLASS_CAPACITY;
    if (contains_any (message, permanent_words))
        return CCAS_CLASS_PERMANENT;
    return CCAS_CLASS_TRANSIENT;
}

enum ccas_failure_class ccas_failure_classify_request (const struct ccas_http_failure *f)
{
    if (!f || f->kind == CCAS_FAIL_TRANSPORT || f->kind == CCAS_FAIL_RESPONSE)
        return f && f->tls ? CCAS_CLASS_PERMANENT : CCAS_CLASS_TRANSIENT;
    if (f->http_status == 429 || f->http_status == 503 || f->retry_after_s >= 0)
        return CCAS_CLASS_THROTTLING;
    if (f->http_status >= 500 || f->http_status == 408)
        return CCAS_CLASS_TRANSIENT;
    /* a 4xx: the message may still say quota or capacity (409 on a create) */
    enum ccas_failure_class c = ccas_failure_classify_message (f->message);
    return c == CCAS_CLASS_TRANSIENT ? CCAS_CLASS_PERMANENT : c;
}

int ccas_failure_holds_bucket (enum ccas_failure_class c)
{
    return c == CCAS_CLASS_CAPACITY || c == CCAS_CLASS_QUOTA;
}

const char *ccas_failure_reason (enum ccas_failure_class c, const char *message, char *buf, size_t size)
{
    int n = snprintf (buf, size, "ccautoscale: %s: %s", ccas_failure_class_name (c),
                      message && *message ? message : "no message");
    if (n >= (int)size && size > 4)
        memcpy (buf + size - 4, "...", 4);
    /* newlines in a reason break sinfo's columns */
    for (char *p = buf; *p; p++)
        if (*p == '\n' || *p == '\r' || *p == '\t')
            *p = ' ';
    return buf;
}
