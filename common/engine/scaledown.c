/* SPDX-License-Identifier: MIT */
/* scaledown.c: decide which nodes to give back — failed, stuck booting, idle too long. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/plan.h"
#include "engine/scaledown.h"
#include "model/resdict.h"
#include "util/log.h"

json_object *ccas_scaledown_node_times (json_object *times, const char *node_id, double now)
{
    json_object *t = NULL;
    if (json_object_object_get_ex (times, node_id, &t) && t && json_object_is_type (t, json_type_object))
        return t;
    if (!(t = json_object_new_object ()))
        return NULL;
    json_object_object_add (t, "first_seen", json_object_new_double (now));
    if (json_object_object_add (times, node_id, t) < 0)
        return NULL;
    return t;
}

static double get_time (json_object *t, const char *key, double dflt)
{
    json_object *v = NULL;
    if (json_object_object_get_ex (t, key, &v) && v)
        return json_object_get_double (v);
    return dflt;
}

static bool boot_timed_out (const struct ccas_config *cfg, const struct ccas_node *n, json_object *t,
                            double now)
{
    return n->kind == CCAS_NODE_BOOTING &&
           now - get_time (t, "first_seen", now) > ccas_conf_boot_timeout (cfg, n->nodearray);
}

/* The node's times as scalelib's node history gives them (node.create_time,
 * node.last_match_time, node.create_time_remaining): first seen, last given
 * work (or not Ready), boot time left before boot_timeout (-1 once Ready). */
static void note_times (const struct ccas_config *cfg, struct ccas_node *n, json_object *times, double now)
{
    json_object *t = NULL;
    if (n->node_id)
        json_object_object_get_ex (times, n->node_id, &t);
    n->create_time = get_time (t, "first_seen", now);
    n->last_match_time = n->kind != CCAS_NODE_READY ? now : get_time (t, "last_busy", n->create_time);
    if (n->kind == CCAS_NODE_READY)
        n->create_time_remaining = -1;
    else {
        double left = ccas_conf_boot_timeout (cfg, n->nodearray) - (now - n->create_time);
        n->create_time_remaining = left > 0 ? left : 0;
    }
}

int ccas_scaledown_mark_stuck (struct ccas_cluster *c, json_object *times, double now)
{
    int marked = 0;
    for (size_t i = 0; i < c->nexisting; i++) {
        struct ccas_node *n = c->nodes[i];
        note_times (c->cfg, n, times, now);
        if (!n->node_id || n->kind != CCAS_NODE_BOOTING)
            continue;
        json_object *t = ccas_scaledown_node_times (times, n->node_id, now);
        if (!t)
            return -1;
        if (boot_timed_out (c->cfg, n, t, now) && !n->busy) {
            n->boot_timed_out = true;
            marked++;
        }
    }
    return marked;
}

/* Why `n` should go, or NULL.  `buf` holds the reason. */
static const char *verdict (const struct ccas_config *cfg, const struct ccas_node *n, json_object *t,
                            double now, char *buf, size_t size)
{
    double first = get_time (t, "first_seen", now);
    double busy = get_time (t, "last_busy", first);
    if (n->kind == CCAS_NODE_FAILED) {
        snprintf (buf, size, "failed: %s", n->status_message ? n->status_message : "no message");
        return buf;
    }
    if (n->kind == CCAS_NODE_BOOTING) {
        double limit = ccas_conf_boot_timeout (cfg, n->nodearray);
        if (boot_timed_out (cfg, n, t, now)) {
            snprintf (buf, size, "boot timeout: %s for %.0f s (boot_timeout %.0f s)",
                      n->status ? n->status : "booting", now - first, limit);
            return buf;
        }
        return NULL;
    }
    if (n->kind == CCAS_NODE_READY || n->kind == CCAS_NODE_STOPPED) {
        double limit = ccas_conf_idle_timeout (cfg, n->nodearray);
        if (now - busy > limit) {
            snprintf (buf, size, "idle for %.0f s (idle_timeout %.0f s)", now - busy, limit);
            return buf;
        }
    }
    return NULL;
}

/* Forget nodes CycleCloud no longer has; a hash set keeps this linear. */
static int drop_departed (json_object *times, const struct ccas_cluster *c)
{
    struct ccas_resdict *present = ccas_resdict_create ();
    const char **gone = NULL;
    size_t ngone = 0;
    if (!present)
        return -1;
    for (size_t i = 0; i < c->nexisting; i++)
        if (c->nodes[i]->node_id && ccas_resdict_intern (present, c->nodes[i]->node_id) < 0)
            goto error;
    if (!(gone = calloc ((size_t)json_object_object_length (times) + 1, sizeof (*gone))))
        goto error;
    json_object_object_foreach (times, id, val)
    {
        (void)val;
        if (ccas_resdict_find (present, id) < 0)
            gone[ngone++] = id;
    }
    /* delete after iterating: json-c objects must not change under a foreach */
    for (size_t i = 0; i < ngone; i++)
        json_object_object_del (times, gone[i]);
    free (gone);
    ccas_resdict_destroy (present);
    return 0;
error:
    ccas_resdict_destroy (present);
    return -1;
}

int ccas_scaledown_plan (struct ccas_plan *plan, json_object *times, double now, struct ccas_error *err)
{
    struct ccas_cluster *c = plan->cluster;
    char why[256];

    for (size_t i = 0; i < c->nexisting; i++) {
        struct ccas_node *n = c->nodes[i];
        if (!n->node_id || n->kind == CCAS_NODE_GOING)
            continue;
        json_object *t = ccas_scaledown_node_times (times, n->node_id, now);
        if (!t)
            return ccas_errorf (err, "out of memory");
        if (n->busy || n->matched || n->njobs > 0) {
            json_object_object_add (t, "last_busy", json_object_new_double (now));
            continue; /* never a node with work */
        }
        const char *reason = verdict (c->cfg, n, t, now, why, sizeof (why));
        if (!reason)
            continue;
        if (n->keep_alive) {
            struct ccas_plan_action *a = &plan->kept[plan->nkept++];
            a->node = n;
            a->reason = ccas_plan_strdup (plan, reason);
            ccas_log (LOG_INFO, "%s: KeepAlive, not terminated (%s)", n->name, reason);
            continue;
        }
        if (ccas_plan_terminate (plan, n, reason) < 0)
            return ccas_errorf (err, "out of memory");
        ccas_log (LOG_INFO, "%s: terminate: %s", n->name, reason);
    }
    if (drop_departed (times, c) < 0)
        return ccas_errorf (err, "out of memory");
    return 0;
}
