/* SPDX-License-Identifier: MIT */
/* shared.c: a small table of shared resources, each with a cluster-wide pool and pools per queue. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/shared.h"
#include "util/json.h"
#include "util/units.h"

struct pool {
    struct ccas_shared_pool p;
    int32_t queue; /* 0: the cluster's */
    char *str;     /* owned copy of a string value */
};

struct shared_res {
    char *name;
    struct pool *pools; /* the cluster's (if any) and the queues', in the order defined */
    size_t npools;
};

struct ccas_shared {
    struct shared_res *v;
    size_t n;
    char **queues; /* queue q is queues[q - 1] */
    size_t nqueues;
};

struct ccas_shared *ccas_shared_create (void)
{
    return calloc (1, sizeof (struct ccas_shared));
}

void ccas_shared_destroy (struct ccas_shared *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n; i++) {
        for (size_t k = 0; k < s->v[i].npools; k++)
            free (s->v[i].pools[k].str);
        free (s->v[i].pools);
        free (s->v[i].name);
    }
    for (size_t q = 0; q < s->nqueues; q++)
        free (s->queues[q]);
    free (s->queues);
    free (s->v);
    free (s);
}

int ccas_shared_find (const struct ccas_shared *s, const char *name)
{
    for (size_t i = 0; s && i < s->n; i++)
        if (strcmp (s->v[i].name, name) == 0)
            return (int)i;
    return -1;
}

int32_t ccas_shared_queue (const struct ccas_shared *s, const char *name)
{
    for (size_t q = 0; s && name && q < s->nqueues; q++)
        if (strcmp (s->queues[q], name) == 0)
            return (int32_t)q + 1;
    return 0;
}

/* The number of queue `name`, made if new; -1 when out of memory. */
static int32_t queue_id (struct ccas_shared *s, const char *name)
{
    int32_t q = ccas_shared_queue (s, name);
    if (q > 0)
        return q;
    char **v = realloc (s->queues, (s->nqueues + 1) * sizeof (*v));
    if (!v)
        return -1;
    s->queues = v;
    if (!(s->queues[s->nqueues] = strdup (name)))
        return -1;
    return (int32_t)++s->nqueues;
}

/* Resource `name`, made if new; NULL when out of memory. */
static struct shared_res *resource (struct ccas_shared *s, const char *name)
{
    int i = ccas_shared_find (s, name);
    if (i >= 0)
        return &s->v[i];
    struct shared_res *v = realloc (s->v, (s->n + 1) * sizeof (*v));
    if (!v)
        return NULL;
    s->v = v;
    struct shared_res *r = &s->v[s->n];
    memset (r, 0, sizeof (*r));
    if (!(r->name = strdup (name)))
        return NULL;
    s->n++;
    return r;
}

/* Pool `queue` (0: the cluster's) of `r` set to `value`. */
static int set_pool (struct ccas_shared *s, struct shared_res *r, int32_t queue, struct ccas_value value)
{
    struct pool *p = NULL;
    for (size_t k = 0; k < r->npools; k++)
        if (r->pools[k].queue == queue)
            p = &r->pools[k];
    if (!p) {
        struct pool *v = realloc (r->pools, (r->npools + 1) * sizeof (*v));
        if (!v)
            return -1;
        r->pools = v;
        p = &r->pools[r->npools++];
        memset (p, 0, sizeof (*p));
        p->queue = queue;
        p->p.queue = queue > 0 ? s->queues[queue - 1] : NULL;
    }
    free (p->str);
    p->str = NULL;
    p->p.value = value;
    p->p.taker = -1;
    if (value.type == CCAS_V_STR) {
        if (!(p->str = strdup (value.u.str)))
            return -1;
        p->p.value.u.str = p->str;
    }
    return 0;
}

int ccas_shared_set (struct ccas_shared *s, const char *name, struct ccas_value value)
{
    struct shared_res *r = resource (s, name);
    return r ? set_pool (s, r, 0, value) : -1;
}

int ccas_shared_set_queue (struct ccas_shared *s, const char *name, const char *queue,
                           struct ccas_value value)
{
    int32_t q = queue_id (s, queue);
    struct shared_res *r = q > 0 ? resource (s, name) : NULL;
    return r ? set_pool (s, r, q, value) : -1;
}

struct ccas_shared_pool *ccas_shared_cluster_pool (struct ccas_shared *s, int index)
{
    struct shared_res *r = &s->v[index];
    for (size_t k = 0; k < r->npools; k++)
        if (r->pools[k].queue == 0)
            return &r->pools[k].p;
    return NULL;
}

size_t ccas_shared_pools (struct ccas_shared *s, int index, int32_t queue, struct ccas_shared_pool *out[2])
{
    struct shared_res *r = &s->v[index];
    struct ccas_shared_pool *cluster = NULL, *own = NULL;
    for (size_t k = 0; k < r->npools; k++) {
        if (r->pools[k].queue == 0)
            cluster = &r->pools[k].p;
        else if (queue > 0 && r->pools[k].queue == queue)
            own = &r->pools[k].p;
    }
    size_t n = 0;
    const struct ccas_shared_pool *any = cluster ? cluster : own;
    if (any && any->value.type != CCAS_V_NUM) { /* compared: the queue's value wins */
        out[n++] = own ? own : cluster;
        return n;
    }
    if (cluster)
        out[n++] = cluster;
    if (own)
        out[n++] = own;
    return n;
}

const char *ccas_shared_pool_where (const struct ccas_shared_pool *p, char *buf, size_t size)
{
    if (p->queue)
        snprintf (buf, size, "in queue '%s'", p->queue);
    else
        snprintf (buf, size, "in the cluster");
    return buf;
}

/* ---- the configuration ------------------------------------------------------------------- */

/* One pool's value: a number, a size, a string or a boolean. */
static int read_value (json_object *val, const char *path, const char *name, struct ccas_value *v,
                       struct ccas_error *err)
{
    switch (json_object_get_type (val)) {
    case json_type_int:
    case json_type_double:
        *v = ccas_value_num (json_object_get_double (val));
        if (v->u.num < 0)
            return ccas_errorf (err, "%s.%s: a shared amount cannot be negative", path, name);
        return 0;
    case json_type_boolean:
        *v = ccas_value_bool (json_object_get_boolean (val));
        return 0;
    case json_type_string: {
        const char *str = json_object_get_string (val);
        if (ccas_units_looks_like_size (str)) { /* "4gbb": an error, not a string */
            double bytes;
            if (ccas_units_parse (str, 1, &bytes, err) < 0) {
                ccas_error_prefix (err, "%s.%s", path, name);
                return -1;
            }
            *v = ccas_value_num (bytes);
            v->size = true;
        } else
            *v = ccas_value_str (str);
        return 0;
    }
    default:
        return ccas_errorf (err,
                            "%s.%s: expected a number, string, boolean or {\"cluster\", \"queues\"}, got %s",
                            path, name, ccas_json_type_name (val));
    }
}

/* {"cluster": V, "queues": {"Q": V, ...}}: every pool of `name` of one type. */
static int load_pools (struct ccas_shared *s, const char *name, json_object *obj, const char *path,
                       struct ccas_error *err)
{
    static const char *const known[] = {"cluster", "queues", NULL};
    char sub[512];
    struct ccas_value v = {.type = CCAS_V_NONE}, first = {.type = CCAS_V_NONE};
    const char *unknown = ccas_json_unknown_key (obj, known);
    json_object *cluster = ccas_json_get (obj, "cluster"), *queues = ccas_json_get (obj, "queues");
    if (unknown)
        return ccas_errorf (err, "%s.%s.%s: unknown key (known: cluster, queues)", path, name, unknown);
    if (!cluster && !queues)
        return ccas_errorf (err, "%s.%s: give \"cluster\", \"queues\" or both", path, name);
    if (queues && !json_object_is_type (queues, json_type_object))
        return ccas_errorf (err, "%s.%s.queues: expected an object of queue: value", path, name);
    snprintf (sub, sizeof (sub), "%s.%s", path, name);
    if (cluster) {
        if (json_object_is_type (cluster, json_type_object))
            return ccas_errorf (err, "%s.cluster: expected a number, string or boolean, got an object", sub);
        if (read_value (cluster, sub, "cluster", &first, err) < 0)
            return -1;
        if (ccas_shared_set (s, name, first) < 0)
            return ccas_errorf (err, "%s: out of memory", sub);
    }
    snprintf (sub, sizeof (sub), "%s.%s.queues", path, name);
    json_object_object_foreach (queues, queue, qv)
    {
        if (!*queue)
            return ccas_errorf (err, "%s: a queue needs a name", sub);
        if (json_object_is_type (qv, json_type_object))
            return ccas_errorf (err, "%s.%s: expected a number, string or boolean, got an object", sub,
                                queue);
        if (read_value (qv, sub, queue, &v, err) < 0)
            return -1;
        if (first.type != CCAS_V_NONE && (first.type == CCAS_V_NUM) != (v.type == CCAS_V_NUM))
            return ccas_errorf (err, "%s.%s: every pool of '%s' is an amount, or none is", sub, queue, name);
        if (first.type == CCAS_V_NONE)
            first = v;
        if (ccas_shared_set_queue (s, name, queue, v) < 0)
            return ccas_errorf (err, "%s.%s: out of memory", sub, queue);
    }
    return 0;
}

int ccas_shared_load (struct ccas_shared *s, json_object *obj, const char *path, struct ccas_error *err)
{
    if (!obj)
        return 0;
    if (!json_object_is_type (obj, json_type_object))
        return ccas_errorf (err, "%s: expected an object of name: value", path);
    json_object_object_foreach (obj, name, val)
    {
        struct ccas_value v = {.type = CCAS_V_NONE};
        if (json_object_is_type (val, json_type_object)) {
            if (load_pools (s, name, val, path, err) < 0)
                return -1;
            continue;
        }
        if (read_value (val, path, name, &v, err) < 0)
            return -1;
        if (ccas_shared_set (s, name, v) < 0)
            return ccas_errorf (err, "%s.%s: out of memory", path, name);
    }
    return 0;
}
