/* SPDX-License-Identifier: MIT */
/* failure.h: what kind of failure a failed create, start or action was.
 *
 * Classes, in the order they are tested:
 *   throttling  429, 503, or a Retry-After: slow down, never "capacity";
 *   transient   no answer, timeouts, other 5xx, a full placement group: try again;
 *   quota       the subscription, region, family, nodearray or cluster limit;
 *   capacity    Azure has no machines of that type there now;
 *   permanent   invalid machine type, bad request, authentication: a person must act.
 * The text a node carries is always "ccautoscale: <class>: <message>", so a
 * script can split it.
 */
#ifndef CCAS_FAILURE_H
#define CCAS_FAILURE_H

#include <stddef.h>

#include "ccapi/ccapi.h"

enum ccas_failure_class {
    CCAS_CLASS_CAPACITY,
    CCAS_CLASS_QUOTA,
    CCAS_CLASS_THROTTLING,
    CCAS_CLASS_PERMANENT,
    CCAS_CLASS_TRANSIENT,
    CCAS_CLASS_COUNT
};

/* "capacity", "quota", ... (static). */
const char *ccas_failure_class_name (enum ccas_failure_class c);

/* Classify the message the server gave for a set that added fewer nodes
 * than asked (a 2xx answer). */
enum ccas_failure_class ccas_failure_classify_message (const char *message);

/* Classify a request that failed outright. */
enum ccas_failure_class ccas_failure_classify_request (const struct ccas_http_failure *f);

/* True for classes that should hold a bucket back for a while. */
int ccas_failure_holds_bucket (enum ccas_failure_class c);

/* "ccautoscale: <class>: <message>", shortened to fit `size` (Slurm keeps
 * reasons short).  Returns `buf`. */
const char *ccas_failure_reason (enum ccas_failure_class c, const char *message, char *buf, size_t size);

#endif /* !CCAS_FAILURE_H */
