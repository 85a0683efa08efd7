/* SPDX-License-Identifier: MIT */
/* reqlog.c: every REST request received, in order, for tests to prove what the client sent. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

void sim_log_request (const char *method, const char *path, int status, const char *request_id,
                      json_object *nodes, json_object *sets)
{
    if (sim.nlog == sim.logcap) {
        size_t cap = sim.logcap ? sim.logcap * 2 : 1024;
        struct reqlog_entry *v = realloc (sim.log, cap * sizeof (*v));
        if (!v) {
            json_object_put (nodes);
            json_object_put (sets);
            return;
        }
        sim.log = v;
        sim.logcap = cap;
    }
    struct reqlog_entry *e = &sim.log[sim.nlog++];
    e->seq = ++sim.seq;
    snprintf (e->method, sizeof (e->method), "%s", method);
    e->path = strdup (path);
    e->status = status;
    e->request_id = request_id ? strdup (request_id) : NULL;
    e->time = sim_now ();
    e->nodes = nodes;
    e->sets = sets;
}

json_object *sim_log_json (void)
{
    json_object *arr = json_object_new_array_ext ((int)sim.nlog);
    for (size_t i = 0; i < sim.nlog; i++) {
        const struct reqlog_entry *e = &sim.log[i];
        json_object *o = json_object_new_object ();
        json_object_object_add (o, "seq", json_object_new_int64 ((int64_t)e->seq));
        json_object_object_add (o, "method", json_object_new_string (e->method));
        json_object_object_add (o, "path", json_object_new_string (e->path ? e->path : ""));
        json_object_object_add (o, "status", json_object_new_int (e->status));
        if (e->status == 0)
            json_object_object_add (o, "dropped", json_object_new_boolean (true));
        if (e->request_id)
            json_object_object_add (o, "request_id", json_object_new_string (e->request_id));
        json_object_object_add (o, "time", json_object_new_double (e->time));
        if (e->nodes)
            json_object_object_add (o, "nodes", json_object_get (e->nodes));
        if (e->sets)
            json_object_object_add (o, "sets", json_object_get (e->sets));
        json_object_array_add (arr, o);
    }
    return arr;
}

void sim_log_clear (void)
{
    for (size_t i = 0; i < sim.nlog; i++) {
        free (sim.log[i].path);
        free (sim.log[i].request_id);
        json_object_put (sim.log[i].nodes);
        json_object_put (sim.log[i].sets);
    }
    sim.nlog = 0;
}
