/* SPDX-License-Identifier: MIT */
/* breaker.c: consecutive boot failures per nodearray, and the holds that stop creating there. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/breaker.h"
#include "util/events.h"
#include "util/json.h"
#include "util/log.h"
#include "util/metrics.h"
#include "util/state.h"

/* "until reset": ten years, a hold that never ends by itself */
#define FOREVER (10.0 * 365 * 86400)

struct ccas_breakers {
    struct ccas_state *st;
    int threshold;
    double cooldown;
};

struct ccas_breakers *ccas_breakers_load (const struct ccas_config *cfg, struct ccas_error *err)
{
    struct ccas_breakers *b = calloc (1, sizeof (*b));
    if (!b) {
        ccas_errorf (err, "out of memory");
        return NULL;
    }
    if (!(b->st = ccas_state_load (cfg->state_dir, "breakers", err))) {
        free (b);
        return NULL;
    }
    b->threshold = (int)cfg->breaker.threshold;
    b->cooldown = cfg->breaker.cooldown;
    return b;
}

void ccas_breakers_destroy (struct ccas_breakers *b)
{
    if (!b)
        return;
    ccas_state_destroy (b->st);
    free (b);
}

int ccas_breakers_save (struct ccas_breakers *b, struct ccas_error *err)
{
    return b ? ccas_state_save (b->st, err) : 0;
}

static json_object *entry (struct ccas_breakers *b, const char *na)
{
    json_object *root = ccas_state_root (b->st), *o = NULL;
    if (!json_object_object_get_ex (root, na, &o) || !o || !json_object_is_type (o, json_type_object)) {
        o = json_object_new_object ();
        json_object_object_add (o, "failures", json_object_new_int (0));
        json_object_object_add (o, "open", json_object_new_boolean (0));
        json_object_object_add (root, na, o);
    }
    return o;
}

static void hold_nodearray (struct ccas_holds *holds, const struct ccas_cluster *c, const char *na,
                            double now, double seconds, const char *reason)
{
    for (size_t i = 0; c && holds && i < c->nbuckets; i++)
        if (strcmp (c->buckets[i].na->name, na) == 0)
            ccas_holds_add_class (holds, na, c->buckets[i].machine_type, now, seconds, "breaker", reason);
}

bool ccas_breaker_boot_failed (struct ccas_breakers *b, struct ccas_holds *holds,
                               const struct ccas_cluster *c, const char *nodearray, const char *what,
                               double now)
{
    if (!b || !nodearray || b->threshold <= 0)
        return false;
    json_object *o = entry (b, nodearray);
    int failures = (int)ccas_json_int (o, "failures", 0) + 1;
    json_object_object_add (o, "failures", json_object_new_int (failures));
    json_object_object_add (o, "last", json_object_new_string (what));
    if (ccas_json_bool (o, "open", false) || failures < b->threshold)
        return false;
    double secs = b->cooldown > 0 ? b->cooldown : FOREVER;
    char reason[400];
    snprintf (reason, sizeof (reason),
              "ccautoscale: breaker: %d consecutive boot failures in %s (last: %s);"
              " 'ccautoscale breaker reset %s'%s",
              failures, nodearray, what, nodearray, b->cooldown > 0 ? " or the cool-down ends" : "");
    json_object_object_add (o, "open", json_object_new_boolean (1));
    json_object_object_add (o, "since", json_object_new_double (now));
    json_object_object_add (o, "until", json_object_new_double (b->cooldown > 0 ? now + secs : 0));
    json_object_object_add (o, "reason", json_object_new_string (reason));
    hold_nodearray (holds, c, nodearray, now, secs, reason);
    ccas_log (LOG_ERR,
              "%s: breaker open: %d consecutive boot failures (last: %s); nothing is created there until"
              " 'ccautoscale breaker reset %s'%s",
              nodearray, failures, what, nodearray, b->cooldown > 0 ? " or the cool-down ends" : "");
    json_object *ev = json_object_new_object ();
    json_object_object_add (ev, "nodearray", json_object_new_string (nodearray));
    json_object_object_add (ev, "failures", json_object_new_int (failures));
    json_object_object_add (ev, "last", json_object_new_string (what));
    json_object_object_add (ev, "reason", json_object_new_string (reason));
    ccas_event ("breaker_opened", ev);
    return true;
}

void ccas_breaker_booted (struct ccas_breakers *b, const char *nodearray)
{
    json_object *o = NULL;
    if (b && nodearray && json_object_object_get_ex (ccas_state_root (b->st), nodearray, &o) && o &&
        !ccas_json_bool (o, "open", false))
        json_object_object_add (o, "failures", json_object_new_int (0));
}

bool ccas_breaker_reset (struct ccas_breakers *b, struct ccas_holds *holds, const char *nodearray, double now)
{
    json_object *o = NULL;
    bool was_open = json_object_object_get_ex (ccas_state_root (b->st), nodearray, &o) && o &&
                    ccas_json_bool (o, "open", false);
    if (o) {
        json_object_object_add (o, "open", json_object_new_boolean (0));
        json_object_object_add (o, "failures", json_object_new_int (0));
        json_object_object_del (o, "reason");
    }
    if (holds)
        ccas_holds_end_class (holds, nodearray, "breaker", now);
    if (was_open) {
        json_object *ev = json_object_new_object ();
        json_object_object_add (ev, "nodearray", json_object_new_string (nodearray));
        ccas_event ("breaker_reset", ev);
    }
    return was_open;
}

void ccas_breakers_expire (struct ccas_breakers *b, double now)
{
    if (!b)
        return;
    json_object_object_foreach (ccas_state_root (b->st), na, o)
    {
        double until = ccas_json_double (o, "until", 0);
        if (ccas_json_bool (o, "open", false) && until > 0 && until <= now) {
            json_object_object_add (o, "open", json_object_new_boolean (0));
            json_object_object_add (o, "failures", json_object_new_int (0));
            ccas_log (LOG_NOTICE, "%s: breaker closed: the cool-down ended", na);
        }
    }
}

json_object *ccas_breakers_json (const struct ccas_breakers *b)
{
    return ccas_state_root (b->st);
}

void ccas_breakers_metrics (const struct ccas_breakers *b)
{
    char labels[200];
    if (!b)
        return;
    ccas_metrics_clear ("ccautoscale_breaker_open");
    json_object_object_foreach (ccas_state_root (b->st), na, o)
        ccas_metrics_set ("ccautoscale_breaker_open",
                          ccas_metrics_labels (labels, sizeof (labels), "nodearray", na, NULL, NULL),
                          ccas_json_bool (o, "open", false) ? 1 : 0);
}
