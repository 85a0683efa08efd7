/* SPDX-License-Identifier: MIT */
/* pbs_jobs.c: qstat's queued jobs -> core jobs, one compiled shape per distinct select and place. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "jsonutil.h"
#include "log.h"
#include "pbs_jobs.h"
#include "pbs_select.h"
#include "resdict.h"

#define MAX_CHUNKS 64

/* What a select and place compile to; jobs with the same pair share it. */
struct shape {
    const struct ccas_constraint *cons[MAX_CHUNKS];
    uint32_t counts[MAX_CHUNKS];
    uint32_t nchunks;
    enum ccas_packing packing;
    bool colocated;
    char *error;               /* why jobs of this shape cannot be read */
};

struct shapes {
    struct ccas_resdict *keys; /* "select\x1fplace" -> index */
    struct shape *v;
    size_t n, cap;
};

/* Chunk resources that say nothing about which node a VM must be. */
static bool ignored (const char *name)
{
    static const char *const names[] = { "mpiprocs", "ompthreads", "arch", "aoe", "group_id", "ungrouped", NULL };
    for (int i = 0; names[i]; i++)
        if (strcmp (name, names[i]) == 0)
            return true;
    return false;
}

static json_object *field_value (const char *v)
{
    char *end;
    double d = strtod (v, &end);
    if (*v && !*end && end != v)
    {
        int64_t i = ccas_double_to_int64 (d); /* saturated: a cast of 1e30 is undefined */
        return (double)i == d ? json_object_new_int64 (i) : json_object_new_double (d);
    }
    if (strcasecmp (v, "true") == 0)
        return json_object_new_boolean (1);
    if (strcasecmp (v, "false") == 0)
        return json_object_new_boolean (0);
    return json_object_new_string (v);
}

static const char *constraint_key (const struct ccas_cluster *c, const char *name)
{
    if (strcmp (name, "slot_type") == 0 && ccas_resdict_find (c->dict, "slot_type") < 0)
        return "node.nodearray";
    if (strcmp (name, "host") == 0 || strcmp (name, "vnode") == 0)
        return "node.hostname";
    return name;
}

static json_object *chunk_constraint (const struct ccas_cluster *c, const struct ccas_pbs_chunk *ch, bool excl,
                                      bool colocated)
{
    json_object *o = json_object_new_object ();
    for (uint32_t i = 0; i < ch->nfields; i++)
        if (!ignored (ch->fields[i].name))
            json_object_object_add (o, constraint_key (c, ch->fields[i].name), field_value (ch->fields[i].value));
    if (excl)
        json_object_object_add (o, "exclusive", json_object_new_boolean (1));
    if (colocated)
        json_object_object_add (o, "in-a-placement-group", json_object_new_boolean (1));
    return o;
}

static int compile_shape (struct ccas_cluster *c, const char *select, const char *place, struct shape *s,
                          struct ccas_error *err)
{
    struct ccas_pbs_chunk chunks[MAX_CHUNKS];
    struct ccas_pbs_place pl;
    char *copy = strdup (select);
    if (!copy)
        return ccas_errorf (err, "out of memory");
    int n = ccas_pbs_select_parse (copy, chunks, MAX_CHUNKS, err);
    if (n < 0 || ccas_pbs_place_parse (place, &pl, err) < 0) {
        free (copy);
        return -1;
    }
    bool excl = pl.sharing == CCAS_PBS_EXCL || pl.sharing == CCAS_PBS_EXCLHOST;
    s->colocated = strcmp (pl.group, "group_id") == 0;
    for (int i = 0; i < n; i++) {
        const char *ug = ccas_pbs_chunk_get (&chunks[i], "ungrouped");
        if (ug && strcasecmp (ug, "false") == 0)
            s->colocated = true;
    }
    s->packing = pl.arrangement == CCAS_PBS_SCATTER || pl.arrangement == CCAS_PBS_VSCATTER ? CCAS_SCATTER : CCAS_PACK;
    s->nchunks = (uint32_t)n;
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        char path[64];
        snprintf (path, sizeof (path), "select chunk %d", i + 1);
        json_object *o = chunk_constraint (c, &chunks[i], excl, s->colocated);
        s->counts[i] = chunks[i].count;
        if (!(s->cons[i] = ccas_constraint_compile (c->cons, o, path, err)))
            rc = -1;
        json_object_put (o);
    }
    free (copy);
    return rc;
}

static const struct shape *shape_of (struct ccas_cluster *c, struct shapes *sh, const char *select,
                                     const char *place)
{
    size_t len = strlen (select) + strlen (place) + 2;
    char stackbuf[512];
    char *key = len <= sizeof (stackbuf) ? stackbuf : malloc (len);
    if (!key)
        return NULL;
    snprintf (key, len, "%s\x1f%s", select, place);
    int id = ccas_resdict_intern (sh->keys, key);
    if (key != stackbuf)
        free (key);
    if (id < 0)
        return NULL;
    if ((size_t)id < sh->n)
        return &sh->v[id];
    if (sh->n == sh->cap) {
        size_t cap = sh->cap ? sh->cap * 2 : 16;
        struct shape *v = realloc (sh->v, cap * sizeof (*v));
        if (!v)
            return NULL;
        sh->v = v;
        sh->cap = cap;
    }
    struct shape *s = &sh->v[sh->n++];
    struct ccas_error err = { "" };
    memset (s, 0, sizeof (*s));
    if (compile_shape (c, select, place, s, &err) < 0)
        s->error = strdup (err.text);
    return s;
}

static void shapes_free (struct shapes *sh)
{
    for (size_t i = 0; i < sh->n; i++)
        free (sh->v[i].error);
    free (sh->v);
    ccas_resdict_destroy (sh->keys);
}

struct queued {
    const char *id;
    json_object *job;
    int64_t priority;
    unsigned long seq, index;
};

/* PBS's order: higher Priority first, then the older job, then the lower subjob index. */
static int cmp_queued (const void *pa, const void *pb)
{
    const struct queued *a = pa, *b = pb;
    if (a->priority != b->priority)
        return a->priority > b->priority ? -1 : 1;
    if (a->seq != b->seq)
        return a->seq < b->seq ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index;
}

static void id_numbers (const char *id, unsigned long *seq, unsigned long *index)
{
    char *end;
    *seq = strtoul (id, &end, 10);
    *index = *end == '[' ? strtoul (end + 1, NULL, 10) : 0;
}

/* The job's select after defaults; Resource_List.select or ncpus when PBS left schedselect out. */
static const char *job_select (json_object *job, char *buf, size_t size)
{
    const char *s = ccas_json_str (job, "schedselect");
    json_object *rl = ccas_json_get (job, "Resource_List");
    if (!s && rl)
        s = ccas_json_str (rl, "select");
    if (!s) {
        snprintf (buf, size, "1:ncpus=%lld", (long long)(rl ? ccas_json_int (rl, "ncpus", 1) : 1));
        s = buf;
    }
    return s;
}

static int add_job (struct ccas_jobs *jobs, const struct queued *q, const struct shape *s, struct ccas_error *err)
{
    struct ccas_job *j = ccas_jobs_add (jobs, q->id, s->nchunks);
    if (!j)
        return ccas_errorf (err, "out of memory");
    j->nslots = 0;
    for (uint32_t i = 0; i < s->nchunks; i++) {
        j->chunks[i].count = s->counts[i];
        j->chunks[i].cons = s->cons[i];
        j->nslots += s->counts[i];
    }
    j->packing = s->packing;
    j->colocated = s->colocated;
    return 0;
}

static size_t collect_queued (json_object *all, struct queued *q, struct ccas_pbs_jobs_stats *st)
{
    size_t n = 0;
    json_object_object_foreach (all, id, job) {
        st->seen++;
        if (!job || !json_object_is_type (job, json_type_object)) {
            st->skipped++; /* cut out by the repair, which said why */
            continue;
        }
        const char *state = ccas_json_str (job, "job_state");
        if (!state || strcmp (state, "Q") != 0 || ccas_json_bool (job, "array", false))
            continue;
        q[n].id = id;
        q[n].job = job;
        q[n].priority = ccas_json_int (job, "Priority", 0);
        id_numbers (id, &q[n].seq, &q[n].index);
        n++;
    }
    return n;
}

struct ccas_jobs *ccas_pbs_jobs_from_qstat (struct ccas_cluster *c, json_object *doc,
                                            struct ccas_pbs_jobs_stats *stats, struct ccas_error *err)
{
    struct ccas_pbs_jobs_stats st = { 0, 0, 0 };
    struct shapes sh = { .keys = ccas_resdict_create () };
    json_object *all = ccas_json_get (doc, "Jobs");
    size_t total = all && json_object_is_type (all, json_type_object) ? (size_t)json_object_object_length (all) : 0;
    struct queued *q = calloc (total + 1, sizeof (*q));
    struct ccas_jobs *jobs = ccas_jobs_create (total + 1);
    if (!sh.keys || !q || !jobs) {
        ccas_errorf (err, "out of memory");
        goto fail;
    }
    if (all && !json_object_is_type (all, json_type_object)) {
        ccas_errorf (err, "qstat: Jobs: expected an object, got %s", ccas_json_type_name (all));
        goto fail;
    }
    size_t n = total ? collect_queued (all, q, &st) : 0;
    qsort (q, n, sizeof (*q), cmp_queued);
    for (size_t i = 0; i < n; i++) {
        char buf[64];
        const char *select = job_select (q[i].job, buf, sizeof (buf));
        json_object *rl = ccas_json_get (q[i].job, "Resource_List");
        const char *place = rl ? ccas_json_str (rl, "place") : NULL;
        const struct shape *s = shape_of (c, &sh, select, place ? place : "");
        if (!s) {
            ccas_errorf (err, "out of memory");
            goto fail;
        }
        if (s->error) {
            ccas_log (LOG_WARNING, "pbs: job %s skipped: %s", q[i].id, s->error);
            st.skipped++;
            continue;
        }
        if (add_job (jobs, &q[i], s, err) < 0)
            goto fail;
        st.queued++;
    }
    free (q);
    shapes_free (&sh);
    if (stats)
        *stats = st;
    return jobs;
fail:
    free (q);
    if (sh.keys)
        shapes_free (&sh);
    ccas_jobs_destroy (jobs);
    return NULL;
}
