/* SPDX-License-Identifier: MIT */
/* control.c: /ccsim/ — faults, node failures, state, the request log, hooks and config, for tests. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"
#include "util/json.h"

static json_object *state_json (const char *query)
{
    char na[128], st[64];
    const char *want_na = sim_query_value (query, "nodearray", na, sizeof (na));
    const char *want_st = sim_query_value (query, "status", st, sizeof (st));
    json_object *o = json_object_new_object ();
    json_object *nodes = json_object_new_array ();
    json_object *buckets = json_object_new_array ();
    json_object *counters = json_object_new_object ();
    for (size_t i = 0; i < sim.nnodes; i++) {
        const struct sim_node *n = sim.nodes[i];
        if (n->removed || (want_na && strcmp (n->bucket->na->name, want_na) != 0) ||
            (want_st && strcmp (sim_phase_status (n->phase), want_st) != 0))
            continue;
        json_object_array_add (nodes, sim_node_json (n));
    }
    for (size_t i = 0; i < sim.nbuckets; i++) {
        const struct sim_bucket *b = &sim.buckets[i];
        json_object *j = json_object_new_object ();
        int64_t avail = sim_bucket_available (b, NULL, 0);
        json_object_object_add (j, "nodearray", json_object_new_string (b->na->name));
        json_object_object_add (j, "machineType", json_object_new_string (b->machine_type));
        json_object_object_add (j, "activeCount", json_object_new_int64 (sim_bucket_active (b)));
        json_object_object_add (j, "availableCount", json_object_new_int64 (avail == INT64_MAX ? -1 : avail));
        json_object_array_add (buckets, j);
    }
    json_object_object_add (counters, "created", json_object_new_int ((int)sim.created));
    json_object_object_add (counters, "terminated", json_object_new_int ((int)sim.terminated));
    json_object_object_add (counters, "requests", json_object_new_int64 ((int64_t)sim.seq));
    json_object *faults = sim_faults_json ();
    json_object_object_add (counters, "faults_injected",
                            json_object_get (json_object_object_get (faults, "injected")));
    json_object_put (faults);
    json_object_object_add (o, "nodes", nodes);
    json_object_object_add (o, "buckets", buckets);
    json_object_object_add (o, "counters", counters);
    return o;
}

static void set_quota (json_object *spec, struct reply *r)
{
    json_object *v = ccas_json_get (spec, "cores");
    if (!v || !json_object_is_type (v, json_type_int)) {
        reply_error (r, 400, "BadRequest", "quota: cores: expected an integer");
        return;
    }
    int64_t cores = json_object_get_int64 (v);
    const char *mt = ccas_json_str (spec, "machine_type");
    const char *fam = ccas_json_str (spec, "family");
    const char *na = ccas_json_str (spec, "nodearray");
    bool regional = ccas_json_bool (spec, "regional", false),
         cluster = ccas_json_bool (spec, "cluster", false);
    int hit = 0;
    if (cluster) {
        sim.max_core_count = cores;
        hit++;
    }
    for (size_t i = 0; i < sim.nbuckets; i++) {
        struct sim_bucket *b = &sim.buckets[i];
        if (regional) {
            b->regional_quota_cores = cores;
            hit++;
        } else if ((mt && strcasecmp (b->machine_type, mt) == 0) || (fam && strcmp (b->family, fam) == 0)) {
            /* the family quota, and quotaCoreCount with it (it is the family's in the region) */
            b->family_quota_cores = cores;
            if (b->quota_core_count >= 0)
                b->quota_core_count = cores;
            hit++;
        } else if (na && strcmp (b->na->name, na) == 0) {
            b->na->max_core_count = cores;
            hit++;
        }
    }
    if (!hit)
        reply_error (r, 404, "NotFound",
                     "quota: nothing matched (give machine_type, family, nodearray, regional or cluster)");
    else
        reply_json (r, 200, json_object_new_object ());
}

static void faults (const char *method, const char *body, struct reply *r)
{
    char err[512];
    if (strcmp (method, "GET") == 0) {
        reply_json (r, 200, sim_faults_json ());
        return;
    }
    if (strcmp (method, "DELETE") == 0) {
        sim_faults_clear ();
        sim.released++; /* and the answers they hold back go now */
        reply_json (r, 200, json_object_new_object ());
        return;
    }
    json_object *spec = body ? json_tokener_parse (body) : NULL;
    const char *kind = ccas_json_str (spec, "kind");
    if (kind && strcmp (kind, "quota") == 0)
        set_quota (spec, r);
    else if (sim_fault_add (spec, err, sizeof (err)) < 0)
        reply_error (r, 400, "BadRequest", "%s", err);
    else
        reply_json (r, 201, json_object_new_object ());
    json_object_put (spec);
}

static void node_control (const char *name, const char *what, const char *body, struct reply *r)
{
    struct sim_node *n = sim_node_find (name);
    if (!n) {
        reply_error (r, 404, "NotFound", "no node %s", name);
        return;
    }
    if (strcmp (what, "fail") == 0) {
        json_object *b = body ? json_tokener_parse (body) : NULL;
        sim_node_fail (n, ccas_json_str (b, "message"));
        json_object_put (b);
    } else if (strcmp (what, "hang") == 0) {
        n->hang = true;
        n->phase = PH_ACQUIRING;
        n->next = 0;
    } else if (strcmp (what, "ready") == 0) {
        if (n->boot_pid)
            sim_hook_kill (n->boot_pid); /* the test says it is Ready, whatever its setup was doing */
        n->boot_pid = 0;
        n->held = false;
        n->hang = false;
        n->phase = PH_PREPARING;
        n->next = sim_now ();
    } else {
        reply_error (r, 404, "NotFound", "no node control '%s' (fail, hang, ready)", what);
        return;
    }
    sim.dirty = true;
    reply_json (r, 200, sim_node_json (n));
}

/* A node made directly, as if someone created it outside ccautoscale. */
static void add_node (const char *body, struct reply *r)
{
    json_object *rec = body ? json_tokener_parse (body) : NULL;
    const char *name = ccas_json_str (rec, "Name");
    struct sim_bucket *b =
        sim_bucket_find (ccas_json_str (rec, "Template") ? ccas_json_str (rec, "Template") : "",
                         ccas_json_str (rec, "MachineType"));
    if (!name || !b || sim_node_find (name)) {
        reply_error (r, 400, "BadRequest",
                     "give a new Name, a Template and a MachineType of an existing bucket");
        json_object_put (rec);
        return;
    }
    struct sim_node *n = sim_node_add (b, name, ccas_json_str (rec, "PlacementGroupId"), NULL);
    n->keep_alive = ccas_json_bool (rec, "KeepAlive", false);
    n->no_hooks = !ccas_json_bool (rec, "Hooks", true);
    const char *status = ccas_json_str (rec, "Status");
    if (!status || strcmp (status, "Ready") == 0) {
        n->phase = PH_PREPARING;
        n->next = sim_now ();
    } else if (strcmp (status, "Failed") == 0)
        sim_node_fail (n, ccas_json_str (rec, "StatusMessage"));
    reply_json (r, 201, sim_node_json (n));
    json_object_put (rec);
}

/* GET /ccsim/cluster: the cluster's state; POST sets "state" and
 * "targetState" (strings), as CycleCloud moves a cluster through Starting,
 * Started, Terminating, Terminated. */
static void cluster_control (const char *method, const char *body, struct reply *r)
{
    if (strcmp (method, "POST") == 0) {
        json_object *b = body ? json_tokener_parse (body) : NULL;
        json_object *st = ccas_json_get (b, "state"), *ts = ccas_json_get (b, "targetState");
        bool ok = json_object_is_type (b, json_type_object) && (st || ts) &&
                  (!st || json_object_is_type (st, json_type_string)) &&
                  (!ts || json_object_is_type (ts, json_type_string));
        if (!ok) {
            json_object_put (b);
            reply_error (r, 400, "BadRequest", "cluster: give \"state\" and/or \"targetState\" (strings)");
            return;
        }
        if (st) {
            free (sim.state);
            sim.state = strdup (json_object_get_string (st));
        }
        if (ts) {
            free (sim.target_state);
            sim.target_state = strdup (json_object_get_string (ts));
        }
        json_object_put (b);
    } else if (strcmp (method, "GET") != 0) {
        reply_error (r, 405, "MethodNotAllowed", "cluster: GET or POST");
        return;
    }
    json_object *o = json_object_new_object ();
    json_object_object_add (o, "name", json_object_new_string (sim.cluster_name));
    json_object_object_add (o, "state", json_object_new_string (sim.state));
    json_object_object_add (o, "targetState", json_object_new_string (sim.target_state));
    reply_json (r, 200, o);
}

/* A new boot_delay; a shorter one also brings forward the next step of the
 * VMs under way (booting, terminating, deallocating), so that a test that
 * held them in a step with a long delay lets them go. */
static void set_boot_delay (double delay)
{
    double now = sim_now ();
    sim.boot_delay = delay;
    for (size_t i = 0; i < sim.nnodes; i++) {
        struct sim_node *n = sim.nodes[i];
        double step = n->phase == PH_TERMINATING || n->phase == PH_DEALLOCATING
                          ? (delay / 4 > 0.1 ? delay / 4 : 0.1)
                          : delay / 2;
        if (n->next > now + step)
            n->next = now + step;
    }
}

static void set_string (char **slot, json_object *v)
{
    free (*slot);
    *slot = v && json_object_is_type (v, json_type_string) ? strdup (json_object_get_string (v)) : NULL;
}

void sim_control (const char *method, const char *url, const char *query, const char *body, struct reply *r)
{
    char name[256], what[64];
    const char *path = url + strlen ("/ccsim");
    if (strcmp (path, "/requests") == 0) {
        if (strcmp (method, "DELETE") == 0) {
            sim_log_clear ();
            reply_json (r, 200, json_object_new_object ());
        } else
            reply_json (r, 200, sim_log_json ());
    } else if (strcmp (path, "/state") == 0 || strcmp (path, "/state/nodes") == 0)
        reply_json (r, 200, state_json (query));
    else if (strcmp (path, "/faults") == 0)
        faults (method, body, r);
    else if (strcmp (path, "/cluster") == 0)
        cluster_control (method, body, r);
    else if (strcmp (path, "/nodes") == 0 && strcmp (method, "POST") == 0)
        add_node (body, r);
    else if (sscanf (path, "/nodes/%255[^/]/%63s", name, what) == 2 && strcmp (method, "POST") == 0)
        node_control (name, what, body, r);
    else if (strcmp (path, "/hooks") == 0 && strcmp (method, "POST") == 0) {
        json_object *b = body ? json_tokener_parse (body) : NULL;
        json_object *v;
        if (json_object_object_get_ex (b, "on_ready", &v))
            set_string (&sim.on_ready, v);
        if (json_object_object_get_ex (b, "on_terminate", &v))
            set_string (&sim.on_terminate, v);
        if (json_object_object_get_ex (b, "on_boot", &v))
            set_string (&sim.on_boot, v);
        json_object_put (b);
        reply_json (r, 200, json_object_new_object ());
    } else if (strcmp (path, "/config") == 0 && strcmp (method, "POST") == 0) {
        json_object *b = body ? json_tokener_parse (body) : NULL;
        set_boot_delay (ccas_json_double (b, "boot_delay", sim.boot_delay));
        sim.hold_preparing = ccas_json_bool (b, "hold_preparing", sim.hold_preparing);
        json_object_put (b);
        reply_json (r, 200, json_object_new_object ());
    } else
        reply_error (r, 404, "NotFound", "no control endpoint %s %s", method, url);
}
