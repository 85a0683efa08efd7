/* SPDX-License-Identifier: MIT */
/* holds.c: capacity windows kept in a small state file. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/holds.h"
#include "util/json.h"
#include "util/metrics.h"
#include "util/state.h"

struct ccas_holds {
    struct ccas_state *st;
};

static void key_of (char *buf, size_t size, const char *na, const char *mt)
{
    snprintf (buf, size, "%s/%s", na, mt);
}

struct ccas_holds *ccas_holds_load (const char *state_dir, struct ccas_error *err)
{
    struct ccas_holds *h = calloc (1, sizeof (*h));
    if (!h) {
        ccas_errorf (err, "out of memory");
        return NULL;
    }
    if (!(h->st = ccas_state_load (state_dir, "holds", err))) {
        free (h);
        return NULL;
    }
    return h;
}

void ccas_holds_destroy (struct ccas_holds *h)
{
    if (!h)
        return;
    ccas_state_destroy (h->st);
    free (h);
}

void ccas_holds_add_class (struct ccas_holds *h, const char *nodearray, const char *machine_type, double now,
                           double seconds, const char *class_name, const char *reason)
{
    char key[256];
    json_object *o = json_object_new_object ();
    key_of (key, sizeof (key), nodearray, machine_type);
    json_object_object_add (o, "since", json_object_new_double (now));
    json_object_object_add (o, "until", json_object_new_double (now + seconds));
    json_object_object_add (o, "class", json_object_new_string (class_name));
    json_object_object_add (o, "reason", json_object_new_string (reason));
    json_object_object_add (ccas_state_root (h->st), key, o);
}

void ccas_holds_add (struct ccas_holds *h, const char *nodearray, const char *machine_type, double now,
                     double seconds, enum ccas_failure_class cls, const char *reason)
{
    ccas_holds_add_class (h, nodearray, machine_type, now, seconds, ccas_failure_class_name (cls), reason);
}

void ccas_holds_end_class (struct ccas_holds *h, const char *nodearray, const char *class_name, double now)
{
    size_t n = strlen (nodearray);
    json_object_object_foreach (ccas_state_root (h->st), key, o)
    {
        const char *cls = ccas_json_str (o, "class");
        if (strncmp (key, nodearray, n) == 0 && key[n] == '/' && cls && strcmp (cls, class_name) == 0)
            json_object_object_add (o, "until", json_object_new_double (now));
    }
}

static json_object *active (const struct ccas_holds *h, const char *na, const char *mt, double now)
{
    char key[256];
    key_of (key, sizeof (key), na, mt);
    json_object *o = ccas_json_get (ccas_state_root (h->st), key);
    if (!o || ccas_json_double (o, "until", 0) <= now)
        return NULL;
    return o;
}

const char *ccas_holds_reason (const struct ccas_holds *h, const char *nodearray, const char *machine_type,
                               double now)
{
    return ccas_json_str (active (h, nodearray, machine_type, now), "reason");
}

double ccas_holds_remaining (const struct ccas_holds *h, const char *nodearray, const char *machine_type,
                             double now)
{
    json_object *o = active (h, nodearray, machine_type, now);
    return o ? ccas_json_double (o, "until", now) - now : 0;
}

int ccas_holds_apply (const struct ccas_holds *h, struct ccas_cluster *c, double now)
{
    for (size_t i = 0; i < c->nbuckets; i++) {
        struct ccas_bucket *b = &c->buckets[i];
        const char *reason = ccas_holds_reason (h, b->na->name, b->machine_type, now);
        if (reason) {
            char text[600];
            double left = ccas_holds_remaining (h, b->na->name, b->machine_type, now);
            if (left > 365 * 86400.0)
                snprintf (text, sizeof (text), "held back until reset: %s", reason);
            else
                snprintf (text, sizeof (text), "held back %.0f s more: %s", left, reason);
            if (ccas_cluster_hold (c, b, text) < 0)
                return -1;
        }
    }
    return 0;
}

/* The keys are collected first (json-c objects must not change under a
 * foreach), as many as there are: a cap left the rest held for another run. */
int ccas_holds_expire (struct ccas_holds *h, double now, ccas_holds_ended_f fn, void *arg)
{
    json_object *root = ccas_state_root (h->st);
    size_t cap = (size_t)json_object_object_length (root) + 1;
    char **ended = calloc (cap, sizeof (*ended));
    int n = 0;
    if (!ended)
        return 0;
    json_object_object_foreach (root, key, o)
    {
        if (ccas_json_double (o, "until", 0) <= now && (size_t)n < cap)
            ended[n++] = strdup (key);
    }
    for (int i = 0; i < n; i++) {
        if (!ended[i])
            continue;
        char *slash = strchr (ended[i], '/');
        if (slash && fn) {
            *slash = '\0';
            fn (ended[i], slash + 1, arg);
            *slash = '/';
        }
        json_object_object_del (root, ended[i]);
        free (ended[i]);
    }
    free (ended);
    return n;
}

json_object *ccas_holds_json (const struct ccas_holds *h)
{
    return ccas_state_root (h->st);
}

int ccas_holds_save (struct ccas_holds *h, struct ccas_error *err)
{
    return ccas_state_save (h->st, err);
}

void ccas_holds_metrics (const struct ccas_holds *h, double now)
{
    char labels[300];
    if (!h)
        return;
    ccas_metrics_clear ("ccautoscale_bucket_held");
    json_object_object_foreach (ccas_holds_json (h), key, rec)
    {
        char na[128];
        const char *slash = strchr (key, '/');
        if (!slash || ccas_json_double (rec, "until", 0) <= now)
            continue;
        snprintf (na, sizeof (na), "%.*s", (int)(slash - key), key);
        ccas_metrics_set (
            "ccautoscale_bucket_held",
            ccas_metrics_labels (labels, sizeof (labels), "nodearray", na, "machine_type", slash + 1), 1);
    }
}
