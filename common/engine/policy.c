/* SPDX-License-Identifier: MIT */
/* policy.c: holds, breaker counts and what is saved, from what a pass observed. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "engine/policy.h"
#include "util/failpoint.h"
#include "util/log.h"

struct ccas_policy *ccas_policy_load (const struct ccas_config *cfg, double now, bool dry_run,
                                      struct ccas_error *err)
{
    struct ccas_policy *pol = calloc (1, sizeof (*pol));
    if (!pol) {
        ccas_errorf (err, "out of memory");
        return NULL;
    }
    pol->backoff = cfg->capacity_failure_backoff;
    pol->now = now;
    pol->dry_run = dry_run;
    if (!(pol->holds = ccas_holds_load (cfg->state_dir, err)) ||
        !(pol->breakers = ccas_breakers_load (cfg, err))) {
        ccas_policy_destroy (pol);
        return NULL;
    }
    ccas_breakers_expire (pol->breakers, now);
    return pol;
}

void ccas_policy_destroy (struct ccas_policy *pol)
{
    if (!pol)
        return;
    ccas_holds_destroy (pol->holds);
    ccas_breakers_destroy (pol->breakers);
    free (pol);
}

struct ccas_observation ccas_policy_observe_vm (const struct ccas_node *n, bool booting)
{
    return (struct ccas_observation){
        .seen = CCAS_SEEN_VM_FAILED,
        .nodearray = n->nodearray,
        .machine_type = n->bucket ? n->bucket->machine_type : NULL,
        .node = n->name,
        .message = n->status_message,
        .cls = ccas_failure_classify_message (n->status_message),
        .booting = booting,
    };
}

static void say (struct ccas_policy *pol, int level, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));

static void say (struct ccas_policy *pol, int level, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start (ap, fmt);
    vsnprintf (msg, sizeof (msg), fmt, ap);
    va_end (ap);
    if (pol->say)
        pol->say (pol->say_arg, level, msg);
    else
        ccas_log (level, "%s", msg);
}

/* Capacity or quota: hold the bucket once. */
static enum ccas_decision hold (struct ccas_policy *pol, const struct ccas_observation *o)
{
    char reason[300];
    if (!o->nodearray || !o->machine_type || pol->backoff <= 0)
        return CCAS_DECIDED_NOTHING;
    if (ccas_holds_reason (pol->holds, o->nodearray, o->machine_type, pol->now))
        return CCAS_DECIDED_ALREADY_HELD;
    ccas_failure_reason (o->cls, o->message, reason, sizeof (reason));
    if (!pol->dry_run)
        ccas_holds_add (pol->holds, o->nodearray, o->machine_type, pol->now, pol->backoff, o->cls, reason);
    say (pol, LOG_WARNING, "%s/%s: %sheld back for %.0f s: %s", o->nodearray, o->machine_type,
         pol->dry_run ? "would be " : "", pol->backoff, reason);
    return CCAS_DECIDED_HELD;
}

/* A boot failure for the breaker; "what" is "node: message". */
static enum ccas_decision count (struct ccas_policy *pol, const struct ccas_cluster *model,
                                 const struct ccas_observation *o)
{
    char what[300];
    if (!o->nodearray)
        return CCAS_DECIDED_NOTHING;
    snprintf (what, sizeof (what), "%s: %s", o->node ? o->node : "?", o->message ? o->message : "Failed");
    if (pol->dry_run)
        return CCAS_DECIDED_COUNTED;
    return ccas_breaker_boot_failed (pol->breakers, pol->holds, model, o->nodearray, what, pol->now)
               ? CCAS_DECIDED_OPENED
               : CCAS_DECIDED_COUNTED;
}

static enum ccas_decision decide_one (struct ccas_policy *pol, const struct ccas_cluster *model,
                                      const struct ccas_observation *o)
{
    switch (o->seen) {
    case CCAS_SEEN_SHORT_CREATE:
        return ccas_failure_holds_bucket (o->cls) ? hold (pol, o) : CCAS_DECIDED_NOTHING;
    case CCAS_SEEN_VM_FAILED:
        if (ccas_failure_holds_bucket (o->cls))
            return hold (pol, o);
        return o->booting ? count (pol, model, o) : CCAS_DECIDED_NOTHING;
    case CCAS_SEEN_BOOT_FAILED:
        return count (pol, model, o);
    case CCAS_SEEN_BOOTED:
        if (!pol->dry_run)
            ccas_breaker_booted (pol->breakers, o->nodearray);
        return CCAS_DECIDED_RESET;
    }
    CCAS_BUG ("unhandled observation %d", (int)o->seen);
}

size_t ccas_policy_decide (struct ccas_policy *pol, const struct ccas_cluster *model,
                           const struct ccas_observation *obs, size_t n, enum ccas_decision *out)
{
    size_t held = 0;
    for (size_t i = 0; i < n; i++) {
        enum ccas_decision d = decide_one (pol, model, &obs[i]);
        held += d == CCAS_DECIDED_HELD;
        if (out)
            out[i] = d;
    }
    return held;
}

int ccas_policy_save (struct ccas_policy *pol, struct ccas_error *err)
{
    ccas_holds_metrics (pol->holds, pol->now);
    ccas_breakers_metrics (pol->breakers);
    if (pol->dry_run)
        return 0;
    ccas_failpoint ("policy:before-save");
    if (ccas_holds_save (pol->holds, err) < 0 || ccas_breakers_save (pol->breakers, err) < 0)
        return -1;
    return 0;
}
