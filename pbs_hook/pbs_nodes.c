/* SPDX-License-Identifier: MIT */
/* pbs_nodes.c: read pbsnodes' JSON and fold it into the model. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/scaledown.h"
#include "pbs_json.h"
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
    const char *state = ccas_pbs_json_text (o, "state");
    const char *version = ccas_pbs_json_text (o, "pbs_version");
    json_object *avail = ccas_json_get (o, "resources_available");
    json_object *jobs = ccas_json_get (o, "jobs");
    memset (p, 0, sizeof (*p));
    p->name = name;
    p->comment = ccas_pbs_json_text (o, "comment");
    p->ccnodeid = avail ? ccas_pbs_json_text (avail, "ccnodeid") : NULL;
    p->offline = has_state (state, "offline");
    p->down = has_state (state, "down") || has_state (state, "state-unknown");
    p->reported = ccas_json_get (o, "pcpus") || (version && strcmp (version, "unavailable") != 0);
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
    free (nodes->waiting);
    free (nodes->out);
    free (nodes);
}

size_t ccas_pbs_nodes_ignore (struct ccas_pbs_nodes *nodes, const regex_t *re)
{
    size_t kept = 0, dropped = 0;
    char names[300] = "";
    for (size_t i = 0; i < nodes->n; i++) {
        regmatch_t m;
        if (re && regexec (re, nodes->v[i].name, 1, &m, 0) == 0 && m.rm_so == 0) {
            if (dropped < 5)
                snprintf (names + strlen (names), sizeof (names) - strlen (names), "%s%s",
                          dropped ? ", " : "", nodes->v[i].name);
            dropped++;
            continue;
        }
        nodes->v[kept++] = nodes->v[i];
    }
    nodes->n = kept;
    if (dropped)
        ccas_log (LOG_INFO, "pbs: %zu PBS node%s ignored (pbs.ignore_hostnames): %s%s", dropped,
                  dropped == 1 ? "" : "s", names, dropped > 5 ? ", ..." : "");
    return dropped;
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

void ccas_pbs_nodes_merge (struct ccas_pbs_nodes *nodes, struct ccas_cluster *c)
{
    free (nodes->by_node);
    free (nodes->waiting);
    free (nodes->out);
    nodes->waiting = NULL;
    nodes->out = NULL;
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
        /* down before its mom ever reported: booting (ccas_pbs_nodes_judge) */
        n->sched_offline = (p->offline && !ccas_pbs_node_joining (p)) || (p->down && p->reported);
        use_assigned (c, n, p->assigned);
    }
}

/* The time kept under `key`, set to `now` when missing. */
static double since (json_object *t, const char *key, double now)
{
    json_object *v = NULL;
    if (json_object_object_get_ex (t, key, &v) && v &&
        (json_object_is_type (v, json_type_double) || json_object_is_type (v, json_type_int)))
        return json_object_get_double (v);
    json_object_object_add (t, key, json_object_new_double (now));
    return now;
}

const char *ccas_pbs_nodes_waiting_why (struct ccas_pbs_nodes *nodes, const struct ccas_node *n)
{
    const struct ccas_pbs_node *p = ccas_pbs_nodes_find (nodes, n);
    if (!p)
        return "PBS has no node for it (its create has not been done, or fails)";
    if (!p->ccnodeid && ccas_pbs_node_joining (p))
        return "its join has not finished";
    if (!p->ccnodeid)
        return "PBS has a node of its name that ccautoscale did not join";
    if (p->down && !p->reported)
        return "its pbs_mom has not reported (state-unknown,down)";
    if (ccas_pbs_node_joining (p) && p->down)
        return "its pbs_mom reads down, and the node was never put online";
    return NULL;
}

/* Ready VM `n` (its times `t`) not serving PBS yet: since when; past
 * boot_timeout it is boot_timed_out (true). */
static bool waiting (struct ccas_pbs_nodes *nodes, const struct ccas_cluster *c, struct ccas_node *n,
                     json_object *t, double now)
{
    const char *why = ccas_pbs_nodes_waiting_why (nodes, n);
    if (!why) {
        json_object_object_del (t, "pbs_waiting");
        return false;
    }
    const struct ccas_pbs_node *p = ccas_pbs_nodes_find (nodes, n);
    double from = since (t, "pbs_waiting", now);
    double limit = ccas_conf_boot_timeout (c->cfg, n->nodearray);
    nodes->waiting[n->index] = from;
    if (now - from <= limit || n->busy)
        return false;
    n->boot_timed_out = true;
    ccas_log (LOG_WARNING, "pbs: %s: Ready for %.0f s but %s: past boot_timeout (%.0f s), replaced",
              p ? p->name : n->name, now - from, why, limit);
    return true;
}

int ccas_pbs_nodes_judge (struct ccas_pbs_nodes *nodes, struct ccas_cluster *c, json_object *times,
                          double now)
{
    int marked = 0;
    if (!nodes->by_node || !times)
        return 0;
    free (nodes->waiting);
    if (!(nodes->waiting = calloc (nodes->nby + 1, sizeof (*nodes->waiting))))
        return -1;
    for (size_t i = 0; i < c->nexisting && i < nodes->nby; i++) {
        struct ccas_node *n = c->nodes[i];
        struct ccas_pbs_node *p = nodes->by_node[i];
        /* a booting VM's mom may report before CycleCloud says Ready (the
         * stock setup starts it): the down grace holds for it too */
        if (!n->node_id || (n->kind != CCAS_NODE_READY && !(n->kind == CCAS_NODE_BOOTING && p)))
            continue;
        json_object *t = ccas_scaledown_node_times (times, n->node_id, now);
        if (!t)
            return -1;
        if (n->kind == CCAS_NODE_READY && waiting (nodes, c, n, t, now))
            marked++;
        if (p && p->down && p->reported) {
            double down = since (t, "pbs_down", now);
            n->sched_offline = (p->offline && !ccas_pbs_node_joining (p)) || now - down > CCAS_PBS_DOWN_GRACE;
            if (!n->sched_offline)
                ccas_log (LOG_DEBUG, "pbs: %s: down for %.0f s: still counted as capacity", p->name,
                          now - down);
        } else
            json_object_object_del (t, "pbs_down");
    }
    return marked;
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

bool ccas_pbs_comment_marked (const char *comment)
{
    static const char *const marks[] = {CCAS_PBS_MARK_OFFLINE, CCAS_PBS_MARK_JOINED, CCAS_PBS_MARK_RESTORED};
    if (!comment)
        return false;
    for (size_t i = 0; i < sizeof (marks) / sizeof (marks[0]); i++)
        if (strncmp (comment, marks[i], strlen (marks[i])) == 0)
            return true;
    return strcmp (comment, CCAS_PBS_OLD_JOINING) == 0;
}

bool ccas_pbs_node_joining (const struct ccas_pbs_node *p)
{
    return p->offline && ccas_pbs_comment_marked (p->comment);
}

int ccas_pbs_nodes_keep_out (struct ccas_pbs_nodes *nodes, struct ccas_cluster *c, json_object *removed)
{
    int n = 0;
    free (nodes->out);
    if (!(nodes->out = calloc (nodes->nby + 1, sizeof (*nodes->out))))
        return -1;
    if (!removed || !json_object_is_type (removed, json_type_object))
        return 0;
    for (size_t i = 0; i < c->nexisting && i < nodes->nby; i++) {
        struct ccas_node *node = c->nodes[i];
        if (!node->node_id || !json_object_object_get_ex (removed, node->node_id, NULL))
            continue;
        nodes->out[i] = true;
        node->keep_alive = true; /* the administrator's: never terminated by a pass */
        node->sched_offline = true;
        ccas_log (LOG_DEBUG, "pbs: %s: kept out of PBS (pbs remove-nodes --permanent)", node->name);
        n++;
    }
    return n;
}

bool ccas_pbs_nodes_kept_out (const struct ccas_pbs_nodes *nodes, const struct ccas_node *n)
{
    return nodes->out && n->index < nodes->nby && nodes->out[n->index];
}

/* A VM PBS has no node of. */
static const char *vm_role (const struct ccas_node *n)
{
    switch (n->kind) {
    case CCAS_NODE_READY:
        return "Ready, no vnode";
    case CCAS_NODE_BOOTING:
        return n->hostname && n->private_ip ? "booting, no vnode yet" : "booting, no address yet";
    case CCAS_NODE_STOPPED:
        return "deallocated";
    case CCAS_NODE_FAILED:
        return "failed";
    default:
        return "leaving";
    }
}

const char *ccas_pbs_nodes_role (const struct ccas_pbs_nodes *nodes, const struct ccas_node *n,
                                 const struct ccas_pbs_node *p)
{
    if (n && ccas_pbs_nodes_kept_out (nodes, n))
        return p ? "kept out, its vnode still there" : "kept out (pbs remove-nodes --permanent)";
    if (!p)
        return n ? vm_role (n) : "?";
    if (!n)
        return p->ccnodeid || (p->offline && p->comment && strcmp (p->comment, CCAS_PBS_OLD_JOINING) == 0)
                   ? "its VM has gone"
                   : "not CycleCloud's";
    if (n->kind == CCAS_NODE_FAILED)
        return "failed";
    if (ccas_pbs_node_draining (p))
        return p->njobs ? "draining, jobs still run" : "drained";
    if (p->offline && !ccas_pbs_node_joining (p))
        return "offline (the administrator's)";
    if (!p->ccnodeid)
        return "no marker yet";
    if (p->offline)
        return n->kind != CCAS_NODE_READY ? "booting, vnode made"
               : !p->reported || p->down  ? "Ready, its mom has not reported"
                                          : "to be put online";
    if (p->down)
        return p->reported ? "down" : "its mom has not reported";
    return p->njobs ? "busy" : "idle";
}
