/* SPDX-License-Identifier: MIT */
/* job.c: jobs from the scheduler-neutral JSON form. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/job.h"
#include "util/arena.h"
#include "util/json.h"

#define ARENA(j) ((struct ccas_arena *)(j)->arena)

struct ccas_jobs *ccas_jobs_create (size_t hint)
{
    struct ccas_jobs *jobs = calloc (1, sizeof (*jobs));
    if (!jobs)
        return NULL;
    jobs->cap = hint ? hint : 16;
    if (!(jobs->arena = ccas_arena_create ()) ||
        !(jobs->v = ccas_arena_alloc (ARENA (jobs), jobs->cap * sizeof (*jobs->v)))) {
        ccas_jobs_destroy (jobs);
        return NULL;
    }
    return jobs;
}

void ccas_jobs_destroy (struct ccas_jobs *jobs)
{
    if (!jobs)
        return;
    ccas_arena_destroy (jobs->arena);
    free (jobs);
}

void *ccas_jobs_alloc (struct ccas_jobs *jobs, size_t size)
{
    return ccas_arena_alloc (ARENA (jobs), size);
}

/* The job array grows by doubling inside the arena; the old copy is left
 * there (the arena frees it with everything else). */
struct ccas_job *ccas_jobs_add (struct ccas_jobs *jobs, const char *id, uint32_t nchunks)
{
    if (jobs->n == jobs->cap) {
        struct ccas_job *v = ccas_arena_alloc (ARENA (jobs), jobs->cap * 2 * sizeof (*v));
        if (!v)
            return NULL;
        memcpy (v, jobs->v, jobs->n * sizeof (*v));
        jobs->v = v;
        jobs->cap *= 2;
    }
    struct ccas_job *j = &jobs->v[jobs->n];
    memset (j, 0, sizeof (*j));
    j->id = ccas_arena_strdup (ARENA (jobs), id);
    j->nchunks = nchunks;
    j->chunks = ccas_arena_alloc (ARENA (jobs), (nchunks ? nchunks : 1) * sizeof (*j->chunks));
    j->packing = CCAS_SCATTER;
    if (!j->id || !j->chunks)
        return NULL;
    jobs->n++;
    return j;
}

/* ---- JSON form ------------------------------------------------------------------ */

struct parser {
    struct ccas_jobs *jobs;
    struct ccas_cons_cache *cache;
    const char *origin;
    struct ccas_error *err;
};

static int fail (struct parser *p, const char *path, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));
static int fail (struct parser *p, const char *path, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start (ap, fmt);
    vsnprintf (msg, sizeof (msg), fmt, ap);
    va_end (ap);
    return ccas_errorf (p->err, "%s: %s: %s", p->origin, path, msg);
}

/* Paths for messages, made for every job whether it has an error or not:
 * plain copies, not snprintf (which was a third of reading a job). */
static char *put_text (char *b, const char *end, const char *s)
{
    while (*s && b + 1 < end)
        *b++ = *s++;
    *b = '\0';
    return b;
}

static char *put_number (char *b, const char *end, size_t v)
{
    char digits[24];
    int n = 0;
    do
        digits[n++] = (char)('0' + v % 10);
    while ((v /= 10) > 0);
    while (n > 0 && b + 1 < end)
        *b++ = digits[--n];
    *b = '\0';
    return b;
}

/* "<path>.<key>" (or "<key>" when path is empty) into buf. */
static void join_key (char *buf, size_t size, const char *path, const char *key)
{
    char *b = buf, *end = buf + size;
    if (path && *path)
        b = put_text (put_text (b, end, path), end, ".");
    put_text (b, end, key);
}

static int check_keys (struct parser *p, json_object *obj, const char *path)
{
    static const char *const known[] = {"id",        "node_count", "constraints", "packing",
                                        "exclusive", "colocated",  "chunks",      "state",
                                        "nodes",     "queue",      NULL};
    const char *key = ccas_json_unknown_key (obj, known);
    if (key)
        return fail (p, path, "unknown key '%s'", key);
    return 0;
}

/* Fold job-level flags into the constraint so that equal jobs share one
 * compiled shape: {"and": [constraints, {"exclusive": true}, ...]}. */
static json_object *with_flags (json_object *cons, bool exclusive, bool colocated)
{
    if (!exclusive && !colocated)
        return json_object_get (cons);
    json_object *and = json_object_new_array ();
    if (cons)
        json_object_array_add (and, json_object_get (cons));
    if (exclusive) {
        json_object *e = json_object_new_object ();
        json_object_object_add (e, "exclusive", json_object_new_boolean (true));
        json_object_array_add (and, e);
    }
    if (colocated) {
        json_object *g = json_object_new_object ();
        json_object_object_add (g, "in-a-placement-group", json_object_new_boolean (true));
        json_object_array_add (and, g);
    }
    json_object *o = json_object_new_object ();
    json_object_object_add (o, "and", and);
    return o;
}

static int get_count (struct parser *p, json_object *obj, const char *path, const char *key, uint32_t *out)
{
    int64_t v = 1;
    char sub[256];
    join_key (sub, sizeof (sub), path, key);
    json_object *val = ccas_json_get (obj, key);
    if (val) {
        if (!json_object_is_type (val, json_type_int))
            return fail (p, sub, "expected a positive integer");
        v = json_object_get_int64 (val);
    }
    if (v < 1 || v > 1000000)
        return fail (p, sub, "expected a positive integer up to 1000000, got %lld", (long long)v);
    *out = (uint32_t)v;
    return 0;
}

static int compile_chunk (struct parser *p, json_object *cons, bool excl, bool coloc, const char *path,
                          struct ccas_chunk *chunk)
{
    char sub[256];
    join_key (sub, sizeof (sub), path, "constraints");
    json_object *full = with_flags (cons, excl, coloc);
    struct ccas_error cerr = {""};
    chunk->cons = ccas_constraint_compile (p->cache, full, sub, &cerr);
    json_object_put (full);
    if (!chunk->cons)
        return ccas_errorf (p->err, "%s: %s", p->origin, cerr.text);
    return 0;
}

static int parse_flags (struct parser *p, json_object *obj, const char *path, struct ccas_job *j, bool *excl)
{
    const char *packing = NULL, *queue = NULL;
    struct ccas_error e = {""};
    *excl = false;
    if (ccas_json_get_bool (obj, path, "exclusive", excl, &e) < 0 ||
        ccas_json_get_bool (obj, path, "colocated", &j->colocated, &e) < 0 ||
        ccas_json_get_str (obj, path, "packing", &packing, &e) < 0 ||
        ccas_json_get_str (obj, path, "queue", &queue, &e) < 0)
        return ccas_errorf (p->err, "%s: %s", p->origin, e.text);
    if (queue && !(j->queue = ccas_arena_strdup (ARENA (p->jobs), queue)))
        return fail (p, path, "out of memory");
    if (packing && strcmp (packing, "pack") == 0)
        j->packing = CCAS_PACK;
    else if (packing && strcmp (packing, "scatter") != 0)
        return fail (p, path, "packing: expected 'pack' or 'scatter', got '%s'", packing);
    return 0;
}

static int parse_running (struct parser *p, json_object *obj, const char *path, struct ccas_job *j)
{
    const char *state = ccas_json_str (obj, "state");
    if (!state)
        return 0;
    if (strcmp (state, "running") != 0 && strcmp (state, "pending") != 0)
        return fail (p, path, "state: expected 'pending' or 'running', got '%s'", state);
    if (strcmp (state, "running") != 0)
        return 0;
    json_object *nodes = ccas_json_get (obj, "nodes");
    if (!nodes || !json_object_is_type (nodes, json_type_array) || json_object_array_length (nodes) == 0)
        return fail (p, path, "nodes: a running job names the nodes it runs on");
    j->running = true;
    j->nrunning_on = (uint32_t)json_object_array_length (nodes);
    j->running_on = ccas_arena_alloc (ARENA (p->jobs), j->nrunning_on * sizeof (*j->running_on));
    if (!j->running_on)
        return fail (p, path, "out of memory");
    for (uint32_t i = 0; i < j->nrunning_on; i++) {
        json_object *e = json_object_array_get_idx (nodes, i);
        if (!json_object_is_type (e, json_type_string))
            return fail (p, path, "nodes[%u]: expected a node name", i);
        if (!(j->running_on[i] = ccas_arena_strdup (ARENA (p->jobs), json_object_get_string (e))))
            return fail (p, path, "out of memory");
    }
    return 0;
}

static int parse_job (struct parser *p, json_object *obj, size_t index)
{
    char path[64] = "", idbuf[32];
    put_text (put_number (put_text (path, path + sizeof (path), "["), path + sizeof (path), index),
              path + sizeof (path), "]");
    if (!json_object_is_type (obj, json_type_object))
        return fail (p, path, "expected a job object");
    if (check_keys (p, obj, path) < 0)
        return -1;
    json_object *idv = ccas_json_get (obj, "id");
    const char *id;
    if (idv && json_object_is_type (idv, json_type_string))
        id = json_object_get_string (idv);
    else if (idv && json_object_is_type (idv, json_type_int))
        id = json_object_get_string (idv);
    else if (!idv) {
        snprintf (idbuf, sizeof (idbuf), "job%zu", index);
        id = idbuf;
    } else
        return fail (p, path, "id: expected a string or a number");
    json_object *chunks = ccas_json_get (obj, "chunks");
    if (chunks && (ccas_json_get (obj, "node_count") || ccas_json_get (obj, "constraints")))
        return fail (p, path, "give either chunks or node_count/constraints, not both");
    if (chunks && (!json_object_is_type (chunks, json_type_array) || json_object_array_length (chunks) == 0))
        return fail (p, path, "chunks: expected a non-empty list of {count, constraints}");
    uint32_t nchunks = chunks ? (uint32_t)json_object_array_length (chunks) : 1;
    struct ccas_job *j = ccas_jobs_add (p->jobs, id, nchunks);
    bool excl;
    if (!j)
        return fail (p, path, "out of memory");
    if (parse_flags (p, obj, path, j, &excl) < 0 || parse_running (p, obj, path, j) < 0)
        return -1;
    for (uint32_t i = 0; i < nchunks; i++) {
        char cpath[96] = "";
        json_object *c = chunks ? json_object_array_get_idx (chunks, i) : obj;
        if (chunks) {
            char *b = put_number (
                put_text (put_text (cpath, cpath + sizeof (cpath), path), cpath + sizeof (cpath), ".chunks["),
                cpath + sizeof (cpath), i);
            put_text (b, cpath + sizeof (cpath), "]");
            if (!json_object_is_type (c, json_type_object))
                return fail (p, cpath, "expected {count, constraints}");
        } else
            put_text (cpath, cpath + sizeof (cpath), path);
        if (get_count (p, c, cpath, chunks ? "count" : "node_count", &j->chunks[i].count) < 0 ||
            compile_chunk (p, ccas_json_get (c, "constraints"), excl, j->colocated, cpath, &j->chunks[i]) < 0)
            return -1;
        j->nslots += j->chunks[i].count;
    }
    return 0;
}

struct ccas_jobs *ccas_jobs_from_json (json_object *root, struct ccas_cons_cache *cache, const char *origin,
                                       struct ccas_error *err)
{
    if (!root || !json_object_is_type (root, json_type_array)) {
        ccas_errorf (err, "%s: expected an array of jobs", origin);
        json_object_put (root);
        return NULL;
    }
    size_t n = json_object_array_length (root);
    struct ccas_jobs *jobs = ccas_jobs_create (n);
    if (!jobs) {
        ccas_errorf (err, "%s: out of memory", origin);
        json_object_put (root);
        return NULL;
    }
    struct parser p = {jobs, cache, origin, err};
    for (size_t i = 0; i < n; i++)
        if (parse_job (&p, json_object_array_get_idx (root, i), i) < 0) {
            ccas_jobs_destroy (jobs);
            jobs = NULL;
            break;
        }
    json_object_put (root);
    return jobs;
}

static int parse_each (json_object *elem, size_t index, void *arg)
{
    return parse_job (arg, elem, index);
}

struct ccas_jobs *ccas_jobs_from_text (const char *text, size_t len, struct ccas_cons_cache *cache,
                                       const char *origin, struct ccas_error *err)
{
    /* about 40 bytes of JSON per job at the least: a capacity guess, not a limit */
    struct ccas_jobs *jobs = ccas_jobs_create (len / 40 + 16);
    if (!jobs) {
        ccas_errorf (err, "%s: out of memory", origin);
        return NULL;
    }
    struct parser p = {jobs, cache, origin, err};
    if (ccas_json_array_each (text, len, origin, parse_each, &p, err) < 0) {
        if (err && !err->text[0])
            ccas_errorf (err, "%s: expected an array of jobs", origin);
        ccas_jobs_destroy (jobs);
        return NULL;
    }
    return jobs;
}
