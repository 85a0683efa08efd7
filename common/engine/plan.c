/* SPDX-License-Identifier: MIT */
/* plan.c: group a matched model into create sets and starts; render as JSON. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ccapi/failure.h"
#include "engine/plan.h"
#include "util/arena.h"

#define ARENA(p) ((struct ccas_arena *)(p)->arena)

char *ccas_plan_strdup (struct ccas_plan *plan, const char *s)
{
    return s ? ccas_arena_strdup (ARENA (plan), s) : NULL;
}

void ccas_plan_destroy (struct ccas_plan *plan)
{
    if (!plan)
        return;
    free (plan->creates);
    free (plan->starts);
    free (plan->terminates);
    free (plan->terminating);
    free (plan->kept);
    ccas_arena_destroy (plan->arena);
    free (plan);
}

/* Create sets by key, in O(1): (bucket, group) first, by the group's place
 * in its bucket's table or, outside groups, by the bucket's order; then the
 * few sets of it with other node attributes, chained. */
struct set_index {
    size_t **by_pg;    /* [bucket order][pg->id] -> first set + 1, 0 none */
    size_t *by_bucket; /* [bucket order] -> first set + 1, 0 none */
    size_t *next;      /* [set] -> next set of the same bucket and group + 1, 0 none */
    size_t nbuckets;
};

static size_t *set_slot (struct set_index *x, const struct ccas_node *n)
{
    uint32_t b = n->bucket->order;
    if (!n->pg)
        return &x->by_bucket[b];
    if (!x->by_pg[b] && !(x->by_pg[b] = calloc (n->bucket->npgs + 1, sizeof (size_t))))
        return NULL;
    return &x->by_pg[b][n->pg->id];
}

/* The set of `n` (made if need be), or NULL when out of memory. */
static struct ccas_plan_set *find_set (struct ccas_plan *plan, struct set_index *x, const struct ccas_node *n,
                                       bool make)
{
    size_t *link = set_slot (x, n);
    while (link && *link) {
        struct ccas_plan_set *set = &plan->creates[*link - 1];
        if (set->node_attributes == n->create_attributes)
            return set;
        link = &x->next[*link - 1];
    }
    if (!link || !make)
        return NULL;
    struct ccas_plan_set *set = &plan->creates[plan->ncreates++];
    set->bucket = n->bucket;
    set->pg = n->pg;
    set->node_attributes = n->create_attributes;
    *link = plan->ncreates;
    return set;
}

static void set_index_release (struct set_index *x)
{
    for (size_t i = 0; x->by_pg && i < x->nbuckets; i++)
        free (x->by_pg[i]);
    free (x->by_pg);
    free (x->by_bucket);
    free (x->next);
}

/* The new nodes from node `from` on into sets appended to the plan's.  Two
 * sweeps: count per set, then fill, so each set's node array is allocated
 * once.  Sets come in the order of their first node. */
static int gather_creates (struct ccas_plan *plan, struct ccas_cluster *c, size_t from)
{
    size_t nnew = c->nnodes - from, base = plan->ncreates;
    struct set_index x = {calloc (c->nbuckets + 1, sizeof (size_t *)),
                          calloc (c->nbuckets + 1, sizeof (size_t)),
                          calloc (base + nnew + 1, sizeof (size_t)), c->nbuckets};
    struct ccas_plan_set *v = realloc (plan->creates, (base + nnew + 1) * sizeof (*v));
    int rc = -1;
    if (v) {
        memset (v + base, 0, (nnew + 1) * sizeof (*v));
        plan->creates = v;
    }
    if (!x.by_pg || !x.by_bucket || !x.next || !v)
        goto done;
    for (size_t i = from; i < c->nnodes; i++) {
        struct ccas_plan_set *set = find_set (plan, &x, c->nodes[i], true);
        if (!set)
            goto done;
        set->count++;
    }
    for (size_t i = base; i < plan->ncreates; i++) {
        if (!(plan->creates[i].nodes =
                  ccas_arena_alloc (ARENA (plan), plan->creates[i].count * sizeof (struct ccas_node *))))
            goto done;
        plan->creates[i].count = 0;
    }
    for (size_t i = from; i < c->nnodes; i++) {
        struct ccas_plan_set *set = find_set (plan, &x, c->nodes[i], false);
        set->nodes[set->count++] = c->nodes[i];
    }
    rc = 0;
done:
    set_index_release (&x);
    return rc;
}

static int gather_starts (struct ccas_plan *plan, struct ccas_cluster *c)
{
    if (!(plan->starts = calloc (c->nexisting + 1, sizeof (*plan->starts))))
        return -1;
    for (size_t i = 0; i < c->nexisting; i++) {
        struct ccas_node *n = c->nodes[i];
        if (n->kind == CCAS_NODE_STOPPED && n->njobs > 0) {
            plan->starts[plan->nstarts].node = n;
            plan->starts[plan->nstarts].reason = "deallocated node given work";
            plan->nstarts++;
        }
    }
    return 0;
}

struct ccas_plan *ccas_plan_create (struct ccas_cluster *c, struct ccas_jobs *jobs, struct ccas_error *err)
{
    struct ccas_plan *plan = calloc (1, sizeof (*plan));
    if (!plan || !(plan->arena = ccas_arena_create ())) {
        free (plan);
        ccas_errorf (err, "out of memory");
        return NULL;
    }
    plan->cluster = c;
    plan->jobs = jobs;
    if (gather_creates (plan, c, c->nexisting) < 0 || gather_starts (plan, c) < 0 ||
        !(plan->terminates = calloc (c->nexisting + 1, sizeof (*plan->terminates))) ||
        !(plan->terminating = calloc (c->nexisting + 1, sizeof (*plan->terminating))) ||
        !(plan->kept = calloc (c->nexisting + 1, sizeof (*plan->kept)))) {
        ccas_plan_destroy (plan);
        ccas_errorf (err, "out of memory");
        return NULL;
    }
    return plan;
}

int ccas_plan_extend (struct ccas_plan *plan, size_t from, unsigned round, struct ccas_error *err)
{
    size_t first = plan->ncreates;
    if (gather_creates (plan, plan->cluster, from) < 0)
        return ccas_errorf (err, "out of memory");
    for (size_t i = first; i < plan->ncreates; i++)
        plan->creates[i].round = round;
    return 0;
}

int ccas_plan_terminate (struct ccas_plan *plan, struct ccas_node *n, const char *reason)
{
    /* a node asked for before is looked for (scale-down asks for each idle
     * node once: a scan for every one of 100,000 was quadratic); the mark
     * may outlive an entry an adapter dropped, then the scan says so */
    bool marked = n->index >= plan->cluster->nexisting || plan->terminating[n->index];
    for (size_t i = 0; marked && i < plan->nterminates; i++)
        if (plan->terminates[i].node == n)
            return 0;
    struct ccas_plan_action *a = &plan->terminates[plan->nterminates];
    a->node = n;
    if (!(a->reason = ccas_plan_strdup (plan, reason)))
        return -1;
    if (n->index < plan->cluster->nexisting)
        plan->terminating[n->index] = true;
    plan->nterminates++;
    return 0;
}

uint32_t ccas_plan_new_nodes (const struct ccas_plan *plan)
{
    uint32_t n = 0;
    for (size_t i = 0; i < plan->ncreates; i++)
        n += plan->creates[i].count;
    return n;
}

/* ---- JSON ------------------------------------------------------------------------------ */

static const char *outcome_name (enum ccas_outcome o)
{
    return o == CCAS_DONE ? "done" : o == CCAS_FAILED ? "failed" : "planned";
}

static json_object *str_or_null (const char *s)
{
    return s ? json_object_new_string (s) : NULL;
}

static json_object *create_json (const struct ccas_plan_set *set)
{
    json_object *o = json_object_new_object ();
    json_object_object_add (o, "nodearray", json_object_new_string (set->bucket->na->name));
    const char *mt = set->bucket->machine_type;
    if (set->cyclecloud_chooses) /* what the first node got, once named */
        mt =
            set->outcome != CCAS_PLANNED && set->count && set->nodes[0]->name ? set->nodes[0]->vm_size : NULL;
    json_object_object_add (o, "machine_type", str_or_null (mt));
    if (set->cyclecloud_chooses)
        json_object_object_add (o, "chosen_by_cyclecloud", json_object_new_boolean (true));
    json_object_object_add (o, "placement_group", str_or_null (set->pg ? set->pg->name : NULL));
    json_object_object_add (o, "count", json_object_new_int ((int)set->count));
    if (set->node_attributes)
        json_object_object_add (o, "node_attributes", json_object_get (set->node_attributes));
    json_object_object_add (o, "outcome", json_object_new_string (outcome_name (set->outcome)));
    if (set->round)
        json_object_object_add (o, "fallback", json_object_new_boolean (true));
    if (set->replaced)
        json_object_object_add (o, "replaced", json_object_new_int ((int)set->replaced));
    if (set->request_id)
        json_object_object_add (o, "request_id", json_object_new_string (set->request_id));
    if (set->outcome != CCAS_PLANNED) {
        json_object_object_add (o, "added", json_object_new_int (set->added));
        json_object_object_add (o, "message", str_or_null (set->message));
        if ((uint32_t)set->added < set->count) {
            char reason[600];
            enum ccas_failure_class cls = set->cls;
            json_object_object_add (o, "class", json_object_new_string (ccas_failure_class_name (cls)));
            json_object_object_add (
                o, "failure",
                json_object_new_string (ccas_failure_reason (
                    cls, set->message ? set->message : "no reason given", reason, sizeof (reason))));
        }
        json_object *names = json_object_new_array ();
        for (uint32_t i = 0; i < set->count; i++)
            if (set->nodes[i]->name)
                json_object_array_add (names, json_object_new_string (set->nodes[i]->name));
        json_object_object_add (o, "names", names);
    }
    return o;
}

static json_object *action_json (const struct ccas_plan_action *a)
{
    json_object *o = json_object_new_object ();
    json_object_object_add (o, "name", str_or_null (a->node->name));
    json_object_object_add (o, "node_id", str_or_null (a->node->node_id));
    json_object_object_add (o, "nodearray", str_or_null (a->node->nodearray));
    json_object_object_add (o, "reason", str_or_null (a->reason));
    json_object_object_add (o, "outcome", json_object_new_string (outcome_name (a->outcome)));
    if (a->error)
        json_object_object_add (o, "error", json_object_new_string (a->error));
    return o;
}

static json_object *actions_json (const struct ccas_plan_action *v, size_t n)
{
    json_object *arr = json_object_new_array_ext ((int)n);
    for (size_t i = 0; i < n; i++)
        json_object_array_add (arr, action_json (&v[i]));
    return arr;
}

/* A new node that has no name yet. */
static int cmp_node_index (const void *a, const void *b)
{
    uint32_t x = (*(struct ccas_node *const *)a)->index, y = (*(struct ccas_node *const *)b)->index;
    return x < y ? -1 : x > y;
}

/* The jobs' lines are made in a buffer and written a buffer at a time: a
 * million jobs were some twenty million stdio calls, each taking the
 * stream's lock. */
struct out {
    FILE *f;
    size_t n;
    char b[16384];
};

static void out_flush (struct out *o)
{
    if (o->n)
        fwrite (o->b, 1, o->n, o->f);
    o->n = 0;
}

static void out_put (struct out *o, const char *s, size_t len)
{
    if (o->n + len > sizeof (o->b)) {
        out_flush (o);
        if (len > sizeof (o->b)) {
            fwrite (s, 1, len, o->f);
            return;
        }
    }
    memcpy (o->b + o->n, s, len);
    o->n += len;
}

static void out_str (struct out *o, const char *s)
{
    out_put (o, s, strlen (s));
}

static void out_uint (struct out *o, uint32_t v)
{
    char digits[12];
    int d = sizeof (digits);
    do
        digits[--d] = (char)('0' + v % 10);
    while ((v /= 10) > 0);
    out_put (o, digits + d, sizeof (digits) - (size_t)d);
}

/* A string as JSON.  One that needs no escape (names, most reasons) is
 * written as it is; any other is escaped by json-c through `str`, one string
 * object reused for every call (so no object is made per string). */
static void write_string (struct out *o, json_object *str, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p >= 0x20 && *p != '"' && *p != '\\')
        p++;
    if (!*p) {
        out_put (o, "\"", 1);
        out_put (o, s, (size_t)(p - (const unsigned char *)s));
        out_put (o, "\"", 1);
        return;
    }
    json_object_set_string (str, s);
    out_str (o, json_object_to_json_string_ext (str, JSON_C_TO_STRING_NOSLASHESCAPE));
}

/* A new node that has no name yet, as json-c would print its object. */
static void write_new_slot (struct out *o, const struct ccas_node *n, json_object *str)
{
    out_str (o, "{ \"new\": true, \"nodearray\": ");
    write_string (o, str, n->nodearray);
    out_str (o, ", \"machine_type\": ");
    write_string (o, str, n->vm_size);
    out_str (o, ", \"placement_group\": ");
    if (n->placement_group)
        write_string (o, str, n->placement_group);
    else
        out_str (o, "null");
    out_str (o, ", \"placeholder\": \"new-");
    out_uint (o, n->index);
    out_str (o, "\" }");
}

/* The nodes a job was given, each once, in model order: names, or objects for
 * new nodes that have none yet. */
static void write_job_nodes (struct out *o, const struct ccas_job *j, json_object *str)
{
    struct ccas_node *one = NULL, **v = j->nslots <= 1 ? &one : malloc (j->nslots * sizeof (*v));
    if (!v) {
        out_str (o, "[ ]");
        return;
    }
    memcpy (v, j->slots, j->nslots * sizeof (*v));
    if (j->nslots > 1)
        qsort (v, j->nslots, sizeof (*v), cmp_node_index);
    out_str (o, "[");
    for (uint32_t s = 0; s < j->nslots; s++) {
        if (s > 0 && v[s] == v[s - 1])
            continue;
        out_str (o, s ? ", " : " ");
        if (v[s]->kind != CCAS_NODE_NEW || v[s]->name) {
            write_string (o, str, v[s]->name);
            continue;
        }
        write_new_slot (o, v[s], str);
    }
    out_str (o, " ]");
    if (v != &one)
        free (v);
}

/* One job on one line, written as it goes: a json-c tree per job was a fifth
 * of the time of a demand over 100,000 jobs. */
static void write_job (struct out *o, const struct ccas_job *j, json_object *str)
{
    out_str (o, "{ \"id\": ");
    write_string (o, str, j->id);
    out_str (o, j->matched ? ", \"matched\": true, " : ", \"matched\": false, ");
    if (j->matched) {
        out_str (o, "\"nodes\": ");
        write_job_nodes (o, j, str);
    } else {
        out_str (o, "\"reason\": ");
        write_string (o, str, j->reason ? j->reason : "unknown");
    }
    out_str (o, " }");
}

static json_object *summary_json (const struct ccas_plan *plan)
{
    size_t matched = 0, pending = 0;
    for (size_t i = 0; i < plan->jobs->n; i++) {
        const struct ccas_job *j = &plan->jobs->v[i];
        if (j->running || j->ignore)
            continue;
        pending++;
        matched += j->matched;
    }
    json_object *sum = json_object_new_object ();
    json_object_object_add (sum, "jobs", json_object_new_int64 ((int64_t)pending));
    json_object_object_add (sum, "matched", json_object_new_int64 ((int64_t)matched));
    json_object_object_add (sum, "unmatched", json_object_new_int64 ((int64_t)(pending - matched)));
    json_object_object_add (sum, "new_nodes", json_object_new_int64 (ccas_plan_new_nodes (plan)));
    return sum;
}

json_object *ccas_plan_to_json (const struct ccas_plan *plan)
{
    json_object *o = json_object_new_object ();
    json_object *creates = json_object_new_array ();
    for (size_t i = 0; i < plan->ncreates; i++)
        json_object_array_add (creates, create_json (&plan->creates[i]));
    json_object_object_add (o, "create", creates);
    json_object_object_add (o, "start", actions_json (plan->starts, plan->nstarts));
    json_object_object_add (o, "terminate", actions_json (plan->terminates, plan->nterminates));
    json_object_object_add (o, "keep_alive", actions_json (plan->kept, plan->nkept));
    if (plan->request_id[0])
        json_object_object_add (o, "request_id", json_object_new_string (plan->request_id));
    if (plan->create_operation)
        json_object_object_add (o, "create_operation", json_object_new_string (plan->create_operation));
    if (plan->cluster && plan->cluster->closed)
        json_object_object_add (o, "cluster_closed", json_object_new_string (plan->cluster->closed));
    return o;
}

static void write_member (FILE *f, const char *key, json_object *val, bool *first)
{
    fprintf (f, "%s\n  \"%s\": %s", *first ? "{" : ",", key,
             json_object_to_json_string_ext (val, JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE));
    *first = false;
}

/* An array member written an element a line as it goes: each element is
 * built, written and freed in turn.  `elem(v, i)` builds element i. */
static void write_array (FILE *f, const char *key, const void *v, size_t n,
                         json_object *(*elem) (const void *v, size_t i), bool *first)
{
    fprintf (f, "%s\n  \"%s\": [", *first ? "{" : ",", key);
    *first = false;
    for (size_t i = 0; i < n; i++) {
        json_object *o = elem (v, i);
        fprintf (
            f, "%s\n    %s", i ? "," : "",
            json_object_to_json_string_ext (o, JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE));
        json_object_put (o);
    }
    fputs (n ? "\n  ]" : " ]", f);
}

static json_object *create_elem (const void *v, size_t i)
{
    return create_json (&((const struct ccas_plan_set *)v)[i]);
}

static json_object *action_elem (const void *v, size_t i)
{
    return action_json (&((const struct ccas_plan_action *)v)[i]);
}

/* Streamed: every set, action and job is built, written and freed in turn,
 * so the output of a plan never exists as a second copy in memory, however
 * many jobs and sets it has.  One member a line, and one element of the
 * arrays a line. */
int ccas_plan_write_json (const struct ccas_plan *plan, json_object *extra, FILE *f)
{
    bool first = true;
    write_array (f, "create", plan->creates, plan->ncreates, create_elem, &first);
    write_array (f, "start", plan->starts, plan->nstarts, action_elem, &first);
    write_array (f, "terminate", plan->terminates, plan->nterminates, action_elem, &first);
    write_array (f, "keep_alive", plan->kept, plan->nkept, action_elem, &first);
    json_object *head = json_object_new_object ();
    if (plan->request_id[0])
        json_object_object_add (head, "request_id", json_object_new_string (plan->request_id));
    if (plan->create_operation)
        json_object_object_add (head, "create_operation", json_object_new_string (plan->create_operation));
    if (plan->cluster && plan->cluster->closed)
        json_object_object_add (head, "cluster_closed", json_object_new_string (plan->cluster->closed));
    if (plan->jobs)
        json_object_object_add (head, "summary", summary_json (plan));
    json_object_object_foreach (head, k, v) write_member (f, k, v, &first);
    json_object_put (head);
    if (extra) {
        json_object_object_foreach (extra, k2, v2) write_member (f, k2, v2, &first);
    }
    if (plan->jobs) {
        struct out o = {.f = f}; /* (16 KiB on the stack) */
        fprintf (f, ",\n  \"jobs\": [");
        first = true;
        json_object *str = json_object_new_string ("");
        for (size_t i = 0; i < plan->jobs->n; i++) {
            const struct ccas_job *j = &plan->jobs->v[i];
            if (j->running || j->ignore)
                continue;
            out_str (&o, first ? "\n    " : ",\n    ");
            write_job (&o, j, str);
            first = false;
        }
        out_flush (&o);
        json_object_put (str);
        fputs (first ? "]" : "\n  ]", f);
    }
    fputs ("\n}\n", f);
    return ferror (f) ? -1 : 0;
}
