/* SPDX-License-Identifier: MIT */
/* persist.c: keep ccsim's VMs across restarts (--state-dir), written atomically. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"
#include "util/file.h"
#include "util/json.h"
#include "util/state.h"

static void put_str (json_object *o, const char *k, const char *v)
{
    if (v)
        json_object_object_add (o, k, json_object_new_string (v));
}

static json_object *node_state (const struct sim_node *n)
{
    json_object *o = json_object_new_object ();
    put_str (o, "name", n->name);
    put_str (o, "id", n->id);
    put_str (o, "nodearray", n->bucket->na->name);
    put_str (o, "machine_type", n->bucket->machine_type);
    put_str (o, "pg", n->pg);
    put_str (o, "ip", n->ip);
    put_str (o, "hostname", n->hostname);
    put_str (o, "instance_id", n->instance_id);
    put_str (o, "status_message", n->status_message);
    put_str (o, "request_id", n->request_id);
    put_str (o, "operation_id", n->operation_id);
    json_object_object_add (o, "phase", json_object_new_int ((int)n->phase));
    json_object_object_add (o, "keep_alive", json_object_new_boolean (n->keep_alive));
    json_object_object_add (o, "fixed", json_object_new_boolean (n->fixed));
    json_object_object_add (o, "hang", json_object_new_boolean (n->hang));
    json_object_object_add (o, "created", json_object_new_double (n->created));
    json_object_object_add (o, "next", json_object_new_double (n->next));
    if (n->extra)
        json_object_object_add (o, "extra", json_object_get (n->extra));
    return o;
}

void sim_state_save (void)
{
    char path[4096];
    struct ccas_error err = {""};
    if (!sim.state_dir || !sim.dirty)
        return;
    json_object *root = json_object_new_object ();
    json_object *nodes = json_object_new_array ();
    json_object *ops = json_object_new_array ();
    for (size_t i = 0; i < sim.nnodes; i++)
        if (!sim.nodes[i]->removed)
            json_object_array_add (nodes, node_state (sim.nodes[i]));
    for (size_t i = 0; i < sim.nops; i++) {
        json_object *o = json_object_new_object ();
        put_str (o, "id", sim.ops[i].id);
        put_str (o, "action", sim.ops[i].action);
        put_str (o, "request_id", sim.ops[i].request_id);
        json_object_object_add (o, "start", json_object_new_double (sim.ops[i].start));
        json_object_array_add (ops, o);
    }
    json_object_object_add (root, "nodes", nodes);
    json_object_object_add (root, "operations", ops);
    json_object_object_add (root, "ip_next", json_object_new_int64 (sim.ip_next));
    size_t len;
    const char *text = json_object_to_json_string_length (root, JSON_C_TO_STRING_PLAIN, &len);
    snprintf (path, sizeof (path), "%s/state.json", sim.state_dir);
    if (ccas_file_write_atomic (path, text, len, 0600, &err) < 0)
        fprintf (stderr, "ccsim: %s\n", err.text);
    else
        sim.dirty = false;
    json_object_put (root);
}

static char *dup_str (json_object *o, const char *k)
{
    const char *s = ccas_json_str (o, k);
    return s ? strdup (s) : NULL;
}

int sim_state_load (char *errbuf, size_t errsize)
{
    char path[4096];
    struct ccas_error err = {""};
    snprintf (path, sizeof (path), "%s/state.json", sim.state_dir);
    FILE *f = fopen (path, "r");
    if (!f)
        return 0; /* first start */
    fclose (f);
    json_object *root = ccas_json_load_file (path, (size_t)1 << 30, &err);
    if (!root) {
        snprintf (errbuf, errsize, "%s", err.text);
        return -1;
    }
    json_object *nodes = ccas_json_get (root, "nodes");
    for (size_t i = 0; nodes && i < json_object_array_length (nodes); i++) {
        json_object *o = json_object_array_get_idx (nodes, i);
        struct sim_bucket *b =
            sim_bucket_find (ccas_json_str (o, "nodearray"), ccas_json_str (o, "machine_type"));
        if (!b || sim_node_find (ccas_json_str (o, "name")))
            continue;
        struct sim_node *n =
            sim_node_add (b, ccas_json_str (o, "name"), ccas_json_str (o, "pg"), ccas_json_get (o, "extra"));
        if (!n)
            continue;
        free (n->id);
        n->id = dup_str (o, "id");
        n->ip = dup_str (o, "ip");
        n->hostname = dup_str (o, "hostname");
        n->instance_id = dup_str (o, "instance_id");
        n->status_message = dup_str (o, "status_message");
        n->request_id = dup_str (o, "request_id");
        n->operation_id = dup_str (o, "operation_id");
        n->phase = (enum node_phase)ccas_json_int (o, "phase", PH_READY);
        sim_index_add (n); /* its id, hostname and address were just restored */
        n->keep_alive = ccas_json_bool (o, "keep_alive", false);
        n->fixed = ccas_json_bool (o, "fixed", false);
        n->hang = ccas_json_bool (o, "hang", false);
        n->created = ccas_json_double (o, "created", sim_now ());
        n->next = ccas_json_double (o, "next", 0);
    }
    json_object *ops = ccas_json_get (root, "operations");
    for (size_t i = 0; ops && i < json_object_array_length (ops); i++) {
        json_object *o = json_object_array_get_idx (ops, i);
        if (sim.nops == sim.opcap) {
            sim.opcap = sim.opcap ? sim.opcap * 2 : 64;
            sim.ops = realloc (sim.ops, sim.opcap * sizeof (*sim.ops));
        }
        struct operation *op = &sim.ops[sim.nops++];
        op->id = dup_str (o, "id");
        op->action = dup_str (o, "action");
        op->request_id = dup_str (o, "request_id");
        op->start = ccas_json_double (o, "start", 0);
    }
    sim.ip_next = (uint32_t)ccas_json_int (root, "ip_next", sim.ip_next);
    json_object_put (root);
    sim.created = 0;
    sim.dirty = false;
    return 0;
}
