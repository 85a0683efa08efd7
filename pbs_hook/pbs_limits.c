/* SPDX-License-Identifier: MIT */
/* pbs_limits.c: PBS's run limits, counted as PBS's scheduler would count them. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model/resdict.h"
#include "pbs_json.h"
#include "pbs_limits.h"
#include "util/json.h"
#include "util/units.h"

struct limit {
    char scope[128]; /* "" for the server, else the queue */
    char type;       /* o, u, g, p */
    char name[128];  /* PBS_ALL, PBS_GENERIC or an entity */
    char res[64];    /* "" for a number of jobs */
    double value;
    bool size;      /* the value was a size (bytes): amounts in use are shown as sizes */
    char text[200]; /* "max_run [o:PBS_ALL=2]" */
};

struct closed {
    char queue[128];
    char why[160];
};

struct ccas_pbs_limits {
    struct limit *v;
    size_t n, cap;
    struct closed *closed;
    size_t nclosed, capclosed;
    struct ccas_resdict *keys; /* counter key -> index into used */
    double *used;
    size_t capused;
    char why[600];
};

struct ccas_pbs_limits *ccas_pbs_limits_create (void)
{
    struct ccas_pbs_limits *l = calloc (1, sizeof (*l));
    if (l && !(l->keys = ccas_resdict_create ())) {
        free (l);
        return NULL;
    }
    return l;
}

void ccas_pbs_limits_destroy (struct ccas_pbs_limits *l)
{
    if (!l)
        return;
    free (l->v);
    free (l->closed);
    free (l->used);
    ccas_resdict_destroy (l->keys);
    free (l);
}

bool ccas_pbs_limits_none (const struct ccas_pbs_limits *l)
{
    return !l || (l->n == 0 && l->nclosed == 0);
}

/* An amount: a plain number, or a size ("10gb") in bytes (then *size is
 * set, when `size` is not NULL). */
static int amount_of (const char *text, double *out, bool *size)
{
    struct ccas_error e;
    char *end;
    double d = strtod (text, &end);
    if (size)
        *size = false;
    if (end != text && *end == '\0') {
        *out = d;
        return 0;
    }
    if (!ccas_units_looks_like_size (text) || ccas_units_parse (text, 1, out, &e) < 0)
        return -1;
    if (size)
        *size = true;
    return 0;
}

static int add_limit (struct ccas_pbs_limits *l, const char *scope, char type, const char *name,
                      size_t namelen, const char *res, double value, bool size, const char *attr,
                      const char *text, struct ccas_error *err)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 8;
        struct limit *v = realloc (l->v, cap * sizeof (*v));
        if (!v)
            return ccas_errorf (err, "out of memory");
        l->v = v;
        l->cap = cap;
    }
    struct limit *x = &l->v[l->n++];
    memset (x, 0, sizeof (*x));
    snprintf (x->scope, sizeof (x->scope), "%s", scope);
    x->type = type;
    snprintf (x->name, sizeof (x->name), "%.*s", (int)namelen, name);
    snprintf (x->res, sizeof (x->res), "%s", res);
    x->value = value;
    x->size = size;
    snprintf (x->text, sizeof (x->text), "%s %s", attr, text);
    return 0;
}

/* "[o:PBS_ALL=2], [u:PBS_GENERIC=1]" (entity limits) into limits. */
static int parse_entities (struct ccas_pbs_limits *l, const char *scope, const char *res, const char *attr,
                           const char *text, struct ccas_error *err)
{
    const char *p = text;
    while ((p = strchr (p, '['))) {
        const char *close = strchr (p, ']');
        const char *colon = strchr (p, ':');
        const char *eq = strchr (p, '=');
        if (!close || !colon || !eq || colon > eq || eq > close || colon != p + 2 || !strchr ("ougp", p[1]))
            return ccas_errorf (err, "%s: '%s': expected [o|u|g|p:NAME=VALUE]", attr, text);
        char value[64], entry[200];
        double v;
        bool size;
        snprintf (value, sizeof (value), "%.*s", (int)(close - eq - 1), eq + 1);
        snprintf (entry, sizeof (entry), "%.*s", (int)(close - p + 1), p);
        if (amount_of (value, &v, &size) < 0)
            return ccas_errorf (err, "%s: '%s': '%s' is not a number or size", attr, text, value);
        if (add_limit (l, scope, p[1], colon + 1, (size_t)(eq - colon - 1), res, v, size, attr, entry, err) <
            0)
            return -1;
        p = close + 1;
    }
    return 0;
}

/* An old-style limit ("max_user_run": 4) as the entity limit it stands for. */
static int parse_plain (struct ccas_pbs_limits *l, const char *scope, char type, const char *res,
                        const char *attr, json_object *val, struct ccas_error *err)
{
    const char *text = json_object_get_string (val);
    double v;
    bool size;
    if (!text || amount_of (text, &v, &size) < 0)
        return ccas_errorf (err, "%s: '%s' is not a number or size", attr, text ? text : "");
    const char *name = type == 'o' ? "PBS_ALL" : "PBS_GENERIC";
    return add_limit (l, scope, type, name, strlen (name), res, v, size, attr, text, err);
}

static int add_closed (struct ccas_pbs_limits *l, const char *queue, const char *why, struct ccas_error *err)
{
    if (l->nclosed == l->capclosed) {
        size_t cap = l->capclosed ? l->capclosed * 2 : 4;
        struct closed *v = realloc (l->closed, cap * sizeof (*v));
        if (!v)
            return ccas_errorf (err, "out of memory");
        l->closed = v;
        l->capclosed = cap;
    }
    snprintf (l->closed[l->nclosed].queue, sizeof (l->closed[0].queue), "%s", queue);
    snprintf (l->closed[l->nclosed].why, sizeof (l->closed[0].why), "%s", why);
    l->nclosed++;
    return 0;
}

/* The limits of one queue's or the server's attributes. */
static int read_object (struct ccas_pbs_limits *l, const char *scope, const char *what, json_object *o,
                        struct ccas_error *err)
{
    static const struct {
        const char *attr;
        char type;
    } plain[] = {{"max_running", 'o'}, {"max_user_run", 'u'}, {"max_group_run", 'g'}};
    static const struct {
        const char *attr;
        char type;
    } plain_res[] = {{"max_user_res", 'u'}, {"max_group_res", 'g'}};
    char attr[300];
    const char *run = ccas_pbs_json_text (o, "max_run");
    snprintf (attr, sizeof (attr), "%s max_run", what);
    if (run && parse_entities (l, scope, "", attr, run, err) < 0)
        return -1;
    json_object *res = ccas_json_get (o, "max_run_res");
    if (res && json_object_is_type (res, json_type_object)) {
        json_object_object_foreach (res, name, val)
        {
            const char *text = val ? json_object_get_string (val) : NULL;
            snprintf (attr, sizeof (attr), "%s max_run_res.%s", what, name);
            if (text && parse_entities (l, scope, name, attr, text, err) < 0)
                return -1;
        }
    }
    for (size_t i = 0; i < sizeof (plain) / sizeof (plain[0]); i++) {
        json_object *v = ccas_json_get (o, plain[i].attr);
        snprintf (attr, sizeof (attr), "%s %s", what, plain[i].attr);
        if (v && parse_plain (l, scope, plain[i].type, "", attr, v, err) < 0)
            return -1;
    }
    for (size_t i = 0; i < sizeof (plain_res) / sizeof (plain_res[0]); i++) {
        json_object *r = ccas_json_get (o, plain_res[i].attr);
        if (!r || !json_object_is_type (r, json_type_object))
            continue;
        json_object_object_foreach (r, name, val)
        {
            snprintf (attr, sizeof (attr), "%s %s.%s", what, plain_res[i].attr, name);
            if (val && parse_plain (l, scope, plain_res[i].type, name, attr, val, err) < 0)
                return -1;
        }
    }
    return 0;
}

int ccas_pbs_limits_read (struct ccas_pbs_limits *l, json_object *queues, json_object *server,
                          struct ccas_error *err)
{
    json_object *qs = ccas_json_get (queues, "Queue");
    json_object *ss = ccas_json_get (server, "Server");
    char what[200], why[200];
    if (qs && json_object_is_type (qs, json_type_object)) {
        json_object_object_foreach (qs, name, q)
        {
            if (!q || !json_object_is_type (q, json_type_object))
                continue;
            snprintf (what, sizeof (what), "queue %s", name);
            if (read_object (l, name, what, q, err) < 0)
                return -1;
            const char *type = ccas_pbs_json_text (q, "queue_type");
            const char *started = ccas_pbs_json_text (q, "started");
            if (type && strncasecmp (type, "Route", 5) == 0) {
                snprintf (why, sizeof (why),
                          "queue %s is a routing queue: its jobs run from the queue PBS moves "
                          "them to",
                          name);
                if (add_closed (l, name, why, err) < 0)
                    return -1;
            } else if (started && strcasecmp (started, "false") == 0) {
                snprintf (why, sizeof (why), "queue %s is stopped (started = False)", name);
                if (add_closed (l, name, why, err) < 0)
                    return -1;
            }
        }
    }
    if (ss && json_object_is_type (ss, json_type_object)) {
        json_object_object_foreach (ss, name, s)
        {
            snprintf (what, sizeof (what), "server %s", name);
            if (s && json_object_is_type (s, json_type_object) && read_object (l, "", what, s, err) < 0)
                return -1;
            break; /* one server */
        }
    }
    return 0;
}

static const char *entity_of (const struct ccas_pbs_entity *e, char type)
{
    switch (type) {
    case 'u':
        return e->user;
    case 'g':
        return e->group;
    case 'p':
        return e->project;
    default:
        return "PBS_ALL";
    }
}

/* Does limit `x` bind job `e`?  A PBS_GENERIC limit binds an entity that has
 * no limit of its own of the same kind. */
static bool binds (const struct ccas_pbs_limits *l, const struct limit *x, const struct ccas_pbs_entity *e)
{
    if (x->scope[0] && (!e->queue || strcmp (x->scope, e->queue) != 0))
        return false;
    const char *who = entity_of (e, x->type);
    if (!who)
        return false;
    if (x->type == 'o')
        return strcmp (x->name, "PBS_ALL") == 0;
    if (strcmp (x->name, "PBS_GENERIC") != 0)
        return strcmp (x->name, who) == 0;
    for (size_t i = 0; i < l->n; i++) {
        const struct limit *y = &l->v[i];
        if (y->type == x->type && strcmp (y->scope, x->scope) == 0 && strcmp (y->res, x->res) == 0 &&
            strcmp (y->name, who) == 0)
            return false;
    }
    return true;
}

/* How much of the limit's resource the job asks (1 for a number of jobs). */
static double asks (const struct limit *x, const struct ccas_pbs_entity *e)
{
    if (!x->res[0])
        return 1;
    const char *text = ccas_pbs_json_text (e->resources, x->res);
    double v;
    return text && amount_of (text, &v, NULL) == 0 ? v : 0;
}

/* The counter of limit `x` for job `e`: NULL when out of memory. */
static double *counter (struct ccas_pbs_limits *l, const struct limit *x, const struct ccas_pbs_entity *e)
{
    char key[512];
    snprintf (key, sizeof (key), "%s\x1f%c\x1f%s\x1f%s", x->scope, x->type, entity_of (e, x->type), x->res);
    int id = ccas_resdict_intern (l->keys, key);
    if (id < 0)
        return NULL;
    if ((size_t)id >= l->capused) {
        size_t cap = l->capused ? l->capused * 2 : 16;
        while (cap <= (size_t)id)
            cap *= 2;
        double *v = realloc (l->used, cap * sizeof (*v));
        if (!v)
            return NULL;
        memset (v + l->capused, 0, (cap - l->capused) * sizeof (*v));
        l->used = v;
        l->capused = cap;
    }
    return &l->used[id];
}

void ccas_pbs_limits_running (struct ccas_pbs_limits *l, const struct ccas_pbs_entity *e)
{
    for (size_t i = 0; l && i < l->n; i++) {
        double *used;
        if (binds (l, &l->v[i], e) && (used = counter (l, &l->v[i], e)))
            *used += asks (&l->v[i], e);
    }
}

const char *ccas_pbs_limits_admit (struct ccas_pbs_limits *l, const struct ccas_pbs_entity *e)
{
    if (ccas_pbs_limits_none (l))
        return NULL;
    for (size_t i = 0; i < l->nclosed; i++)
        if (e->queue && strcmp (l->closed[i].queue, e->queue) == 0) {
            snprintf (l->why, sizeof (l->why), "%s%s", CCAS_PBS_LIMIT_PREFIX, l->closed[i].why);
            return l->why;
        }
    for (size_t i = 0; i < l->n; i++) {
        const struct limit *x = &l->v[i];
        double *used, want;
        if (!binds (l, x, e) || (want = asks (x, e)) <= 0 || !(used = counter (l, x, e)))
            continue;
        if (*used + want > x->value) {
            char amount[96], size[32];
            if (x->res[0] && x->size)
                snprintf (amount, sizeof (amount), "%s %s in use",
                          ccas_units_format (*used, size, sizeof (size)), x->res);
            else if (x->res[0])
                snprintf (amount, sizeof (amount), "%g %s in use", *used, x->res);
            else
                snprintf (amount, sizeof (amount), "%g running", *used);
            snprintf (l->why, sizeof (l->why), "%s%s: %s%s%s", CCAS_PBS_LIMIT_PREFIX, x->text, amount,
                      x->type == 'o'   ? ""
                      : x->type == 'u' ? " for user "
                      : x->type == 'g' ? " for group "
                                       : " for project ",
                      x->type == 'o' ? "" : entity_of (e, x->type));
            return l->why;
        }
    }
    ccas_pbs_limits_running (l, e);
    return NULL;
}
