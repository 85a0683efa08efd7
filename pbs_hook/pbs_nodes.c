/* SPDX-License-Identifier: MIT */
/* pbs_nodes.c: read pbsnodes' JSON and fold it into the model. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pbs_nodes.h"
#include "util/json.h"
#include "util/log.h"
#include "util/units.h"

static bool has_state (const char *states, const char *word)
{
    size_t n = strlen (word);
    for (const char *p = states; p && (p = strstr (p, word)); p += n)
        if ((p == states || p[-1] == ',' || p[-1] == ' ') && (p[n] == '\0' || p[n] == ','))
            return true;
    return false;
}

static void read_node (struct ccas_pbs_node *p, const char *name, json_object *o)
{
    const char *state = ccas_json_str (o, "state");
    json_object *avail = ccas_json_get (o, "resources_available");
    json_object *jobs = ccas_json_get (o, "jobs");
    memset (p, 0, sizeof (*p));
    p->name = name;
    p->comment = ccas_json_str (o, "comment");
    p->ccnodeid = avail ? ccas_json_str (avail, "ccnodeid") : NULL;
    p->offline = has_state (state, "offline");
    p->down = has_state (state, "down") || has_state (state, "state-unknown");
    p->changed = ccas_json_double (o, "last_state_change_time", 0);
    p->njobs =
        jobs && json_object_is_type (jobs, json_type_array) ? (unsigned)json_object_array_length (jobs) : 0;
    p->assigned = ccas_json_get (o, "resources_assigned");
}

struct ccas_pbs_nodes *ccas_pbs_nodes_from_json (json_object *doc, struct ccas_error *err)
{
    json_object *all = ccas_json_get (doc, "nodes");
    struct ccas_pbs_nodes *nodes = calloc (1, sizeof (*nodes));
    if (!nodes) {
        json_object_put (doc);
        ccas_errorf (err, "out of memory");
        return NULL;
    }
    nodes->doc = doc;
    if (!all)
        return nodes; /* PBS omits "nodes" when it has none */
    if (!json_object_is_type (all, json_type_object)) {
        ccas_errorf (err, "pbsnodes: nodes: expected an object, got %s", ccas_json_type_name (all));
        goto fail;
    }
    if (!(nodes->v = calloc ((size_t)json_object_object_length (all) + 1, sizeof (*nodes->v)))) {
        ccas_errorf (err, "out of memory");
        goto fail;
    }
    json_object_object_foreach (all, name, o)
    {
        if (!o || !json_object_is_type (o, json_type_object)) {
            ccas_log (LOG_WARNING, "pbs: node %s skipped: its pbsnodes entry is not an object", name);
            continue;
        }
        read_node (&nodes->v[nodes->n++], name, o);
    }
    return nodes;
fail:
    ccas_pbs_nodes_destroy (nodes);
    return NULL;
}

void ccas_pbs_nodes_destroy (struct ccas_pbs_nodes *nodes)
{
    if (!nodes)
        return;
    json_object_put (nodes->doc);
    free (nodes->v);
    free (nodes->by_node);
    free (nodes);
}

/* Resources PBS has handed out on the node are not free for this pass. */
static void use_assigned (struct ccas_cluster *c, struct ccas_node *n, json_object *assigned)
{
    if (!assigned || !json_object_is_type (assigned, json_type_object))
        return;
    json_object_object_foreach (assigned, key, val)
    {
        double amount = 0;
        if (json_object_is_type (val, json_type_int) || json_object_is_type (val, json_type_double))
            amount = json_object_get_double (val);
        else if (json_object_is_type (val, json_type_string)) {
            struct ccas_error e;
            if (ccas_units_parse (json_object_get_string (val), 1, &amount, &e) < 0)
                continue;
        } else
            continue;
        if (amount > 0)
            ccas_node_use (c, n, key, amount);
    }
}

/* A node joining (offline with our comment) since longer than boot_timeout
 * has failed its join pass after pass: PBS runs nothing there, so it stops
 * counting as capacity — its jobs get other nodes and it idles out — while
 * a join that failed once is simply tried again. */
static bool join_stuck (const struct ccas_cluster *c, const struct ccas_pbs_node *p,
                        const struct ccas_node *n, double now)
{
    return ccas_pbs_node_joining (p) && p->changed > 0 &&
           now - p->changed > ccas_config_boot_timeout (c->cfg, n->nodearray);
}

void ccas_pbs_nodes_merge (struct ccas_pbs_nodes *nodes, struct ccas_cluster *c)
{
    double now = (double)time (NULL);
    free (nodes->by_node);
    nodes->nby = c->nexisting;
    nodes->by_node = calloc (c->nexisting + 1, sizeof (*nodes->by_node));
    for (size_t i = 0; i < nodes->n; i++) {
        struct ccas_pbs_node *p = &nodes->v[i];
        struct ccas_node *n = ccas_cluster_find_node (c, p->name);
        if (!n && strchr (p->name, '.')) {
            char shortname[256];
            snprintf (shortname, sizeof (shortname), "%.*s", (int)strcspn (p->name, "."), p->name);
            n = ccas_cluster_find_node (c, shortname);
        }
        if (!n || (p->ccnodeid && n->node_id && strcmp (p->ccnodeid, n->node_id) != 0))
            continue; /* not ours, or registered for a VM that has gone */
        p->cc = n;
        if (nodes->by_node && n->index < nodes->nby)
            nodes->by_node[n->index] = p;
        n->sched_jobs = p->njobs;
        n->busy = p->njobs > 0;
        n->sched_offline = (p->offline && !ccas_pbs_node_joining (p)) || p->down;
        if (join_stuck (c, p, n, now)) {
            n->boot_timed_out = true;
            ccas_log (LOG_WARNING, "pbs: %s: joining for %.0f s, more than boot_timeout: no work goes there",
                      p->name, now - p->changed);
        }
        use_assigned (c, n, p->assigned);
    }
}

struct ccas_pbs_node *ccas_pbs_nodes_find (struct ccas_pbs_nodes *nodes, const struct ccas_node *n)
{
    if (nodes->by_node)
        return n->index < nodes->nby ? nodes->by_node[n->index] : NULL;
    for (size_t i = 0; i < nodes->n; i++)
        if (nodes->v[i].cc == n)
            return &nodes->v[i];
    return NULL;
}

bool ccas_pbs_node_draining (const struct ccas_pbs_node *p)
{
    return p->comment && strncmp (p->comment, CCAS_PBS_DRAIN_COMMENT, strlen (CCAS_PBS_DRAIN_COMMENT)) == 0;
}

bool ccas_pbs_node_joining (const struct ccas_pbs_node *p)
{
    return p->offline && p->comment && strcmp (p->comment, CCAS_PBS_JOINING_COMMENT) == 0;
}
