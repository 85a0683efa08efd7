/* SPDX-License-Identifier: MIT */
/* pbs_jobs.c: qstat's queued jobs -> core jobs, one compiled shape per distinct select and place. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model/resdict.h"
#include "model/value.h"
#include "pbs_jobs.h"
#include "pbs_json.h"
#include "pbs_limits.h"
#include "pbs_select.h"
#include "util/arena.h"
#include "util/json.h"
#include "util/log.h"
#include "util/units.h"

#define MAX_CHUNKS 64

/* What a select and place compile to; jobs with the same pair share it. */
struct shape {
    const struct ccas_constraint *cons[MAX_CHUNKS];
    uint32_t counts[MAX_CHUNKS];
    uint32_t nchunks;
    enum ccas_packing packing;
    bool colocated;
    bool single_set; /* one placement group, or none: see compile_shape */
    char *error;     /* why jobs of this shape cannot be read */
};

struct shapes {
    struct ccas_resdict *keys; /* "select\x1fplace" -> index */
    struct shape *v;
    size_t n, cap;
};

/* Chunk resources that say nothing about which node a VM must be. */
static bool ignored (const char *name)
{
    static const char *const names[] = {"mpiprocs", "ompthreads", "arch", "aoe",
                                        "group_id", "ungrouped",  NULL};
    for (int i = 0; names[i]; i++)
        if (strcmp (name, names[i]) == 0)
            return true;
    return false;
}

static json_object *field_value (const char *v)
{
    char *end;
    double d = strtod (v, &end);
    if (*v && !*end && end != v) {
        int64_t i = ccas_double_to_int64 (d); /* saturated: a cast of 1e30 is undefined */
        return (double)i == d ? json_object_new_int64 (i) : json_object_new_double (d);
    }
    /* PBS's boolean words: T t Y y / F f N n, and true/false in any case
     * (1 and 0 stay numbers; asked of a boolean they match it) */
    int b = ccas_value_bool_word (v);
    if (b >= 0)
        return json_object_new_boolean (b);
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

/* What a chunk's ungrouped asks.  PBS compares string resources exactly
 * (case included), and the nodes ccautoscale joins carry "true" (outside any
 * placement group) or "false" (inside one). */
enum grouping { UG_ANY, UG_TRUE, UG_FALSE, UG_OTHER };

static enum grouping chunk_grouping (const struct ccas_pbs_chunk *ch)
{
    const char *ug = ccas_pbs_chunk_get (ch, "ungrouped");
    if (!ug)
        return UG_ANY;
    return strcmp (ug, "true") == 0 ? UG_TRUE : strcmp (ug, "false") == 0 ? UG_FALSE : UG_OTHER;
}

/* The placement terms every chunk of the shape gets.  `excl` is the
 * exclusivity term place asks for, or NULL. */
static void add_placement (json_object *o, enum grouping ug, const char *ugtext, const char *excl,
                           bool colocated)
{
    if (excl)
        json_object_object_add (o, excl, json_object_new_boolean (1));
    if (colocated)
        json_object_object_add (o, "in-a-placement-group", json_object_new_boolean (1));
    if (ug == UG_TRUE && !colocated)
        json_object_object_add (o, "in-a-placement-group", json_object_new_boolean (0));
    else if (ug == UG_TRUE)
        json_object_object_add (o, "never",
                                json_object_new_string ("ungrouped=true asks for nodes outside any "
                                                        "placement group, and ungrouped=false elsewhere "
                                                        "in the job for one placement group"));
    if (ug == UG_OTHER) {
        char msg[256];
        snprintf (msg, sizeof (msg),
                  "ungrouped='%s': the nodes ccautoscale joins have ungrouped 'true' or 'false' "
                  "(PBS compares strings exactly)",
                  ugtext);
        json_object_object_add (o, "never", json_object_new_string (msg));
    }
}

/* A chunk's group_id=V: the nodes ccautoscale joins carry their placement
 * group's name, or CCAS_PBS_NO_GROUP outside any; it names the groups it
 * makes itself, so V can only be an existing node's group. */
static void add_group_id (const struct ccas_cluster *c, json_object *o, const char *v)
{
    if (!v)
        return;
    if (strcmp (v, CCAS_PBS_NO_GROUP) == 0) {
        json_object_object_add (o, "in-a-placement-group", json_object_new_boolean (0));
        return;
    }
    for (size_t i = 0; i < c->nexisting; i++)
        if (c->nodes[i]->placement_group && strcmp (c->nodes[i]->placement_group, v) == 0) {
            json_object_object_add (o, "node.placement_group", json_object_new_string (v));
            return;
        }
    char msg[400];
    snprintf (
        msg, sizeof (msg),
        "group_id=%s: no node is in a placement group of that name, and the nodes ccautoscale makes get "
        "group_id '%s' or the name of the placement group it makes for them",
        v, CCAS_PBS_NO_GROUP);
    json_object_object_add (o, "never", json_object_new_string (msg));
}

static json_object *chunk_constraint (const struct ccas_cluster *c, const struct ccas_pbs_chunk *ch,
                                      const char *excl, bool colocated)
{
    json_object *o = json_object_new_object ();
    for (uint32_t i = 0; i < ch->nfields; i++)
        if (!ignored (ch->fields[i].name))
            json_object_object_add (o, constraint_key (c, ch->fields[i].name),
                                    field_value (ch->fields[i].value));
    add_placement (o, chunk_grouping (ch), ccas_pbs_chunk_get (ch, "ungrouped"), excl, colocated);
    add_group_id (c, o, ccas_pbs_chunk_get (ch, "group_id"));
    return o;
}

/* An amount to add up: a number, or a size ("8gb") in bytes. */
static bool amount_of (json_object *v, double *amount, bool *size)
{
    struct ccas_error e;
    *size = false;
    if (json_object_is_type (v, json_type_int) || json_object_is_type (v, json_type_double)) {
        *amount = json_object_get_double (v);
        return true;
    }
    const char *s = json_object_is_type (v, json_type_string) ? json_object_get_string (v) : NULL;
    if (s && ccas_units_looks_like_size (s) && ccas_units_parse (s, 1, amount, &e) == 0) {
        *size = true;
        return true;
    }
    return false;
}

static json_object *amount_value (double amount, bool size)
{
    char buf[64];
    if (size)
        return json_object_new_string (ccas_units_format (amount, buf, sizeof (buf)));
    if (amount == floor (amount) && fabs (amount) < 9e15)
        return json_object_new_int64 ((int64_t)amount);
    return json_object_new_double (amount);
}

/* Add `times` of chunk field `fd` to the one host's request `o`: amounts add
 * up; anything else must agree, else `why` says which field clashes. */
static void pack_field (const struct ccas_cluster *c, json_object *o, const struct ccas_pbs_field *fd,
                        uint32_t times, char *why, size_t whysize)
{
    const char *key = constraint_key (c, fd->name);
    json_object *v = field_value (fd->value), *old = NULL;
    double a, b;
    bool asize, bsize;
    bool number = amount_of (v, &a, &asize);
    if (!json_object_object_get_ex (o, key, &old)) {
        json_object_object_add (o, key, number ? amount_value (a * times, asize) : json_object_get (v));
    } else if (number && amount_of (old, &b, &bsize)) {
        json_object_object_add (o, key, amount_value (b + a * times, asize || bsize));
    } else if (!json_object_equal (old, v)) {
        snprintf (why, whysize,
                  "place=pack puts every chunk on one host, but its chunks ask for %s=%s and %s=%s", fd->name,
                  json_object_get_string (old), fd->name, fd->value);
    }
    json_object_put (v);
}

/* place=pack: one host holds every chunk, so the job is one node request
 * holding the chunks' summed amounts and their (agreeing) matches. */
static json_object *pack_constraint (const struct ccas_cluster *c, const struct ccas_pbs_chunk *chunks, int n,
                                     const char *excl, bool colocated)
{
    json_object *o = json_object_new_object ();
    char why[400] = "";
    enum grouping ug = UG_ANY;
    const char *ugtext = NULL;
    for (int i = 0; i < n && !why[0]; i++) {
        enum grouping g = chunk_grouping (&chunks[i]);
        if (g != UG_ANY && ug != UG_ANY && strcmp (ugtext, ccas_pbs_chunk_get (&chunks[i], "ungrouped")) != 0)
            snprintf (why, sizeof (why),
                      "place=pack puts every chunk on one host, but its chunks ask for "
                      "ungrouped=%s and ungrouped=%s",
                      ugtext, ccas_pbs_chunk_get (&chunks[i], "ungrouped"));
        if (g != UG_ANY) {
            ug = g;
            ugtext = ccas_pbs_chunk_get (&chunks[i], "ungrouped");
        }
        for (uint32_t f = 0; f < chunks[i].nfields && !why[0]; f++) {
            if (!ignored (chunks[i].fields[f].name))
                pack_field (c, o, &chunks[i].fields[f], chunks[i].count, why, sizeof (why));
        }
    }
    const char *gid = NULL;
    for (int i = 0; i < n && !why[0]; i++) {
        const char *g = ccas_pbs_chunk_get (&chunks[i], "group_id");
        if (g && gid && strcmp (g, gid) != 0)
            snprintf (why, sizeof (why),
                      "place=pack puts every chunk on one host, but its chunks ask for group_id=%s and "
                      "group_id=%s",
                      gid, g);
        gid = g ? g : gid;
    }
    if (why[0]) {
        json_object_put (o);
        o = json_object_new_object ();
        json_object_object_add (o, "never", json_object_new_string (why));
        return o;
    }
    add_placement (o, ug, ugtext, excl, colocated);
    add_group_id (c, o, gid);
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
    /* as azpbs: excl is scalelib's exclusive-task (the job's own chunks may
     * share its hosts), exclhost its exclusive (one chunk a host) */
    const char *excl = pl.sharing == CCAS_PBS_EXCL       ? "exclusive-task"
                       : pl.sharing == CCAS_PBS_EXCLHOST ? "exclusive"
                                                         : NULL;
    /* one placement group: group=group_id (unless the job asks for nodes
     * outside any, PBS's "_none_" set) or ungrouped=false */
    bool any_true = false, any_false = false;
    for (int i = 0; i < n; i++) {
        any_true |= chunk_grouping (&chunks[i]) == UG_TRUE;
        any_false |= chunk_grouping (&chunks[i]) == UG_FALSE;
    }
    s->colocated = (strcmp (pl.group, "group_id") == 0 && !any_true) || any_false;
    /* PBS's scheduler keeps a job inside one placement set (install-hook sets
     * do_not_span_psets, as cyclecloud-pbspro does): a job of several nodes
     * that says nothing of ungrouped must have them all in one group_id —
     * one placement group, or all outside any ("_none_").  One node is
     * always in one set. */
    uint32_t slots = 0;
    for (int i = 0; i < n; i++)
        slots += chunks[i].count;
    s->single_set = !s->colocated && !any_true && pl.arrangement != CCAS_PBS_PACK && slots > 1;
    s->packing =
        pl.arrangement == CCAS_PBS_SCATTER || pl.arrangement == CCAS_PBS_VSCATTER ? CCAS_SCATTER : CCAS_PACK;
    bool pack = pl.arrangement == CCAS_PBS_PACK;
    s->nchunks = pack ? 1 : (uint32_t)n;
    int rc = 0;
    for (uint32_t i = 0; i < s->nchunks && rc == 0; i++) {
        char path[64] = "select (place=pack)";
        if (!pack)
            snprintf (path, sizeof (path), "select chunk %u", i + 1);
        json_object *o = pack ? pack_constraint (c, chunks, n, excl, s->colocated)
                              : chunk_constraint (c, &chunks[i], excl, s->colocated);
        s->counts[i] = pack ? 1 : chunks[i].count;
        if (!(s->cons[i] = ccas_constraint_compile (c->cons, o, path, err)))
            rc = -1;
        json_object_put (o);
    }
    free (copy);
    return rc;
}

/* The table's entry for `id`, a key just interned: the one made for it before,
 * or a new zeroed entry (*fresh set) the caller fills in.  NULL when out of
 * memory. */
static struct shape *shape_entry (struct shapes *sh, int id, bool *fresh)
{
    *fresh = false;
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
    memset (s, 0, sizeof (*s));
    *fresh = true;
    return s;
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
    bool fresh;
    struct shape *s = shape_entry (sh, id, &fresh);
    struct ccas_error err = {""};
    if (s && fresh && compile_shape (c, select, place, s, &err) < 0)
        s->error = strdup (err.text);
    return s;
}

/* A shape that never matches, `why` being its reason (one per distinct reason). */
static const struct shape *never_shape (struct ccas_cluster *c, struct shapes *sh, const char *why,
                                        struct ccas_error *err)
{
    size_t len = strlen (why) + 8;
    char *key = malloc (len);
    if (!key) {
        ccas_errorf (err, "out of memory");
        return NULL;
    }
    snprintf (key, len, "\x1e%s", why);
    int id = ccas_resdict_intern (sh->keys, key);
    free (key);
    if (id < 0) {
        ccas_errorf (err, "out of memory");
        return NULL;
    }
    bool fresh;
    struct shape *s = shape_entry (sh, id, &fresh);
    if (!s) {
        ccas_errorf (err, "out of memory");
        return NULL;
    }
    if (!fresh)
        return s;
    json_object *o = json_object_new_object ();
    json_object_object_add (o, "never", json_object_new_string (why));
    s->nchunks = 1;
    s->counts[0] = 1;
    s->packing = CCAS_PACK;
    s->cons[0] = ccas_constraint_compile (c->cons, o, "PBS limit", err);
    json_object_put (o);
    return s->cons[0] ? s : NULL;
}

static void shapes_free (struct shapes *sh)
{
    for (size_t i = 0; i < sh->n; i++)
        free (sh->v[i].error);
    free (sh->v);
    ccas_resdict_destroy (sh->keys);
}

/* A queued job as read from qstat: what translation needs, copied out of
 * the JSON so that each entry's tree can go as soon as it is read. */
struct queued {
    const char *id, *select, *place, *comment;
    const char *queue;    /* its queue, or NULL: it draws on that queue's shared pools */
    const char *defaults; /* Resource_List's words, "name=value" joined by '\x1f', or NULL */
    int64_t priority;
    unsigned long seq, index;
    struct ccas_pbs_entity who; /* for the limits: strings in the arena, resources referenced */
};

struct ccas_pbs_queue {
    struct ccas_arena *strings;
    struct queued *v;
    size_t n, cap;
    struct ccas_pbs_jobs_stats stats;
    struct ccas_pbs_limits *limits; /* NULL: none read */
    struct ccas_resdict *ignored;   /* pbs.ignore_queues, or NULL */
    size_t *entry_of_job;           /* after translation: core job index -> v index */
    size_t njobs;
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
    const char *s = ccas_pbs_json_text (job, "schedselect");
    json_object *rl = ccas_json_get (job, "Resource_List");
    if (!s && rl)
        s = ccas_pbs_json_text (rl, "select");
    if (!s) {
        snprintf (buf, size, "1:ncpus=%lld", (long long)(rl ? ccas_json_int (rl, "ncpus", 1) : 1));
        s = buf;
    }
    return s;
}

static int add_job (struct ccas_jobs *jobs, const struct queued *q, const struct shape *s,
                    struct ccas_error *err)
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
    j->single_set = s->single_set;
    if (q->queue) {
        size_t len = strlen (q->queue) + 1;
        char *copy = ccas_jobs_alloc (jobs, len);
        if (!copy)
            return ccas_errorf (err, "out of memory");
        j->queue = memcpy (copy, q->queue, len);
    }
    return 0;
}

/* A job whose select or place cannot be read: one slot that never matches,
 * its reason saying why. */
static int add_unreadable (struct ccas_cluster *c, struct ccas_jobs *jobs, const struct queued *q,
                           const char *error, struct ccas_error *err)
{
    char text[600];
    snprintf (text, sizeof (text), "PBS job cannot be read: %s (select '%s'%s%s%s)", error, q->select,
              *q->place ? ", place '" : "", q->place, *q->place ? "'" : "");
    json_object *o = json_object_new_object ();
    json_object_object_add (o, "never", json_object_new_string (text));
    const struct ccas_constraint *k = ccas_constraint_compile (c->cons, o, "select", err);
    json_object_put (o);
    if (!k)
        return -1;
    struct ccas_job *j = ccas_jobs_add (jobs, q->id, 1);
    if (!j)
        return ccas_errorf (err, "out of memory");
    j->chunks[0].count = 1;
    j->chunks[0].cons = k;
    j->nslots = 1;
    j->packing = CCAS_PACK;
    return 0;
}

struct ccas_pbs_queue *ccas_pbs_queue_create (void)
{
    struct ccas_pbs_queue *q = calloc (1, sizeof (*q));
    if (q && !(q->strings = ccas_arena_create ())) {
        free (q);
        q = NULL;
    }
    return q;
}

void ccas_pbs_queue_destroy (struct ccas_pbs_queue *q)
{
    if (!q)
        return;
    for (size_t i = 0; i < q->n; i++)
        json_object_put (q->v[i].who.resources);
    ccas_arena_destroy (q->strings);
    ccas_pbs_limits_destroy (q->limits);
    ccas_resdict_destroy (q->ignored);
    free (q->entry_of_job);
    free (q->v);
    free (q);
}

int ccas_pbs_queue_ignore_queues (struct ccas_pbs_queue *q, json_object *names)
{
    size_t n = names && json_object_is_type (names, json_type_array) ? json_object_array_length (names) : 0;
    if (!n)
        return 0;
    if (!q->ignored && !(q->ignored = ccas_resdict_create ()))
        return -1;
    for (size_t i = 0; i < n; i++) {
        const char *name = json_object_get_string (json_object_array_get_idx (names, i));
        if (name && ccas_resdict_intern (q->ignored, name) < 0)
            return -1;
    }
    return 0;
}

/* Resource_List's words (strings and booleans; numbers too for the three
 * placement resources, which OpenPBS prints typed when they look like one),
 * "name=value" joined by '\x1f', in the arena; NULL when it has none. */
static const char *list_words (struct ccas_pbs_queue *q, json_object *rl)
{
    char buf[2048];
    size_t len = 0;
    if (!rl || !json_object_is_type (rl, json_type_object))
        return NULL;
    json_object_object_foreach (rl, key, val)
    {
        bool word =
            json_object_is_type (val, json_type_string) || json_object_is_type (val, json_type_boolean) ||
            ((json_object_is_type (val, json_type_int) || json_object_is_type (val, json_type_double)) &&
             (strcmp (key, "group_id") == 0 || strcmp (key, "slot_type") == 0));
        const char *text = word ? ccas_pbs_json_text (rl, key) : NULL;
        if (!text || strcmp (key, "select") == 0 || strcmp (key, "place") == 0 ||
            !ccas_pbs_name_valid (key) || strchr (text, ':') || strchr (text, '+') || strchr (text, '\x1f'))
            continue;
        int n = snprintf (buf + len, sizeof (buf) - len, "%s%s=%s", len ? "\x1f" : "", key, text);
        if (n < 0 || (size_t)n >= sizeof (buf) - len)
            break;
        len += (size_t)n;
    }
    return len ? ccas_arena_strdup (q->strings, buf) : NULL;
}

int ccas_pbs_queue_limits (struct ccas_pbs_queue *q, json_object *queues, json_object *server,
                           struct ccas_error *err)
{
    if (!q->limits && !(q->limits = ccas_pbs_limits_create ()))
        return ccas_errorf (err, "out of memory");
    return ccas_pbs_limits_read (q->limits, queues, server, err);
}

const char *ccas_pbs_queue_comment (const struct ccas_pbs_queue *q, size_t job)
{
    return q->entry_of_job && job < q->njobs ? q->v[q->entry_of_job[job]].comment : NULL;
}

/* Who the job is, for the limits (strings copied into the arena). */
static int entity (struct ccas_pbs_queue *q, json_object *job, struct ccas_pbs_entity *e)
{
    static const char *const keys[] = {"queue", "euser", "egroup", "project"};
    const char **fields[] = {&e->queue, &e->user, &e->group, &e->project};
    memset (e, 0, sizeof (*e));
    for (int i = 0; i < 4; i++) {
        const char *v = ccas_pbs_json_text (job, keys[i]);
        if (v && !(*fields[i] = ccas_arena_strdup (q->strings, v)))
            return -1;
    }
    e->resources = ccas_json_get (job, "Resource_List");
    return 0;
}

int ccas_pbs_queue_add (struct ccas_pbs_queue *q, const char *id, json_object *job, struct ccas_error *err)
{
    q->stats.seen++;
    if (!job || !json_object_is_type (job, json_type_object)) {
        q->stats.skipped++; /* cut out by the repair, which said why */
        return 0;
    }
    const char *state = ccas_pbs_json_text (job, "job_state");
    bool counted = !ccas_pbs_limits_none (q->limits);
    if (state && counted && (strcmp (state, "R") == 0 || strcmp (state, "E") == 0) &&
        !ccas_json_bool (job, "array", false)) {
        struct ccas_pbs_entity who;
        if (entity (q, job, &who) < 0)
            return ccas_errorf (err, "out of memory");
        ccas_pbs_limits_running (q->limits, &who); /* what runs counts against the limits */
        return 0;
    }
    if (!state || strcmp (state, "Q") != 0 || ccas_json_bool (job, "array", false))
        return 0;
    const char *queue = ccas_pbs_json_text (job, "queue");
    if (queue && q->ignored && ccas_resdict_find (q->ignored, queue) >= 0) {
        q->stats.ignored++;
        return 0;
    }
    if (q->n == q->cap) {
        size_t cap = q->cap ? q->cap * 2 : 1024;
        struct queued *v = realloc (q->v, cap * sizeof (*v));
        if (!v)
            return ccas_errorf (err, "out of memory");
        q->v = v;
        q->cap = cap;
    }
    char buf[64];
    json_object *rl = ccas_json_get (job, "Resource_List");
    const char *place = rl ? ccas_pbs_json_text (rl, "place") : NULL;
    const char *comment = ccas_pbs_json_text (job, "comment");
    struct queued *e = &q->v[q->n];
    memset (e, 0, sizeof (*e));
    e->id = ccas_arena_strdup (q->strings, id);
    e->queue = queue ? ccas_arena_strdup (q->strings, queue) : NULL;
    e->select = ccas_arena_strdup (q->strings, job_select (job, buf, sizeof (buf)));
    e->place = ccas_arena_strdup (q->strings, place ? place : "");
    e->comment = comment ? ccas_arena_strdup (q->strings, comment) : NULL;
    e->defaults = list_words (q, rl);
    if (!e->id || !e->select || !e->place || (comment && !e->comment) || (queue && !e->queue) ||
        (counted && entity (q, job, &e->who) < 0))
        return ccas_errorf (err, "out of memory");
    json_object_get (e->who.resources); /* kept past this entry's tree, for the limits */
    e->priority = ccas_json_int (job, "Priority", 0);
    id_numbers (id, &e->seq, &e->index);
    q->n++;
    return 0;
}

static int queue_entry (const char *key, json_object *value, bool in_section, void *arg,
                        struct ccas_error *err)
{
    if (in_section)
        return ccas_pbs_queue_add (arg, key, value, err);
    if (value && strcmp (key, "Jobs") == 0)
        return ccas_errorf (err, "qstat: Jobs: expected an object, got %s", ccas_json_type_name (value));
    return 0;
}

int ccas_pbs_queue_read (struct ccas_pbs_queue *q, const char *text, size_t len, ccas_pbs_skipped_f skipped,
                         void *arg, struct ccas_error *err)
{
    struct ccas_pbs_scan_cb cb = {"Jobs", queue_entry, q, skipped, arg};
    return ccas_pbs_json_each (text, len, "qstat", &cb, err);
}

/* ---- Resource_List's words as every chunk's defaults ------------------------------------------------ */

/* The resources that place a job: each chunk takes the job's value. */
static bool placement_name (const char *name)
{
    return strcmp (name, "ungrouped") == 0 || strcmp (name, "group_id") == 0 ||
           strcmp (name, "slot_type") == 0;
}

/* PBS's own job-wide words, which are no node's resource. */
static bool builtin_word (const char *name)
{
    static const char *const names[] = {
        "nodes",  "software",        "site", "arch", "aoe", "eoe", "host", "vnode", "file",
        "nodect", "preempt_targets", NULL};
    for (int i = 0; names[i]; i++)
        if (strcmp (name, names[i]) == 0)
            return true;
    return false;
}

/* An amount, not a word: a number or a size ("8gb"), which Resource_List
 * holds as the job's total. */
static bool amount_text (const char *v)
{
    char *end;
    (void)strtod (v, &end);
    return (*v && !*end) || ccas_units_looks_like_size (v);
}

/* By resdict id: the resources default_resources gives some bucket's nodes as
 * a word (a string or a boolean).  Caller frees. */
static bool *word_resources (const struct ccas_cluster *c, size_t *n)
{
    *n = ccas_resdict_count (c->dict);
    bool *w = calloc (*n + 1, sizeof (*w));
    for (size_t b = 0; w && b < c->nbuckets; b++) {
        const struct ccas_node *t = &c->buckets[b].template_node;
        for (uint32_t id = 0; id < t->nres && id < *n; id++) {
            enum ccas_vtype type = ccas_node_res (t, (int)id)->type;
            w[id] = w[id] || type == CCAS_V_STR || type == CCAS_V_BOOL;
        }
    }
    return w;
}

/* Does chunk text `chunk` (`len` bytes, "2:ncpus=1:slot_type=hpc") set `name`? */
static bool chunk_sets (const char *chunk, size_t len, const char *name, size_t nlen)
{
    for (const char *f = chunk; f < chunk + len;) {
        size_t flen = strcspn (f, ":");
        if (flen > len - (size_t)(f - chunk))
            flen = len - (size_t)(f - chunk);
        if (flen > nlen && strncmp (f, name, nlen) == 0 && f[nlen] == '=')
            return true;
        f += flen + 1;
    }
    return false;
}

struct words {
    const bool *known; /* word_resources () */
    size_t nknown;
    const struct ccas_cluster *c;
    struct ccas_resdict *warned; /* "queue\x1fname" said once */
};

/* Should Resource_List's `name` (a word) be every chunk's default?  When it
 * is neither that nor PBS's own, say so once for its queue. */
static bool spreads (struct words *w, const struct queued *e, const char *name, const char *value)
{
    if (placement_name (name))
        return true;
    if (amount_text (value) || builtin_word (name))
        return false;
    int id = ccas_resdict_find (w->c->dict, name);
    if (id >= 0 && (size_t)id < w->nknown && w->known[id])
        return true;
    char key[512];
    snprintf (key, sizeof (key), "%s\x1f%s", e->queue ? e->queue : "", name);
    int before = (int)ccas_resdict_count (w->warned);
    if (ccas_resdict_intern (w->warned, key) >= before)
        ccas_log (
            LOG_WARNING,
            "pbs: queue %s: jobs carry %s=%s (Resource_List: the queue's or server's resources_default, "
            "or qsub -l): no node ccautoscale makes has a resource '%s' (default_resources does not give "
            "it), so it is not asked of their VMs; give it in default_resources, or drop the default "
            "(pbs validate)",
            e->queue ? e->queue : "?", name, value, name);
    return false;
}

/* Job `e`'s select with its Resource_List words added to every chunk that
 * does not set them (see pbs_jobs.h): e->select itself when none applies, else
 * a new string in the arena.  NULL when out of memory. */
static const char *effective_select (struct ccas_pbs_queue *q, struct words *w, const struct queued *e)
{
    const char *add[32];
    size_t nadd = 0;
    if (!e->defaults)
        return e->select;
    char pairs[2048];
    snprintf (pairs, sizeof (pairs), "%s", e->defaults);
    char *save = NULL;
    for (char *p = strtok_r (pairs, "\x1f", &save); p && nadd < 32; p = strtok_r (NULL, "\x1f", &save)) {
        char *eq = strchr (p, '=');
        if (!eq)
            continue;
        *eq = '\0';
        bool yes = spreads (w, e, p, eq + 1);
        *eq = '=';
        if (yes)
            add[nadd++] = p;
    }
    if (!nadd)
        return e->select;
    size_t chunks = 1, extra = 0;
    for (const char *p = e->select; *p; p++)
        chunks += *p == '+';
    for (size_t i = 0; i < nadd; i++)
        extra += strlen (add[i]) + 1;
    size_t cap = strlen (e->select) + chunks * extra + 1;
    char stackbuf[4096];
    char *out = cap <= sizeof (stackbuf) ? stackbuf : malloc (cap);
    if (!out)
        return NULL;
    size_t len = 0;
    for (const char *chunk = e->select; *chunk;) {
        size_t clen = strcspn (chunk, "+");
        int n = snprintf (out + len, cap - len, "%s%.*s", len ? "+" : "", (int)clen, chunk);
        len += n > 0 ? (size_t)n : 0;
        for (size_t i = 0; i < nadd && len < cap; i++) {
            size_t nlen = strcspn (add[i], "=");
            if (!chunk_sets (chunk, clen, add[i], nlen)) {
                n = snprintf (out + len, cap - len, ":%s", add[i]);
                len += n > 0 ? (size_t)n : 0;
            }
        }
        chunk += clen + (chunk[clen] == '+');
    }
    const char *kept = len < cap ? ccas_arena_strdup (q->strings, out) : e->select;
    if (out != stackbuf)
        free (out);
    return kept;
}

struct ccas_jobs *ccas_pbs_queue_jobs (struct ccas_cluster *c, struct ccas_pbs_queue *q,
                                       struct ccas_pbs_jobs_stats *stats, struct ccas_error *err)
{
    struct ccas_pbs_jobs_stats st = q->stats;
    struct shapes sh = {.keys = ccas_resdict_create ()};
    struct ccas_jobs *jobs = ccas_jobs_create (q->n + 1);
    size_t nknown = 0;
    bool *known = word_resources (c, &nknown);
    struct words w = {.known = known, .nknown = nknown, .c = c, .warned = ccas_resdict_create ()};
    if (!sh.keys || !jobs || !known || !w.warned) {
        ccas_errorf (err, "out of memory");
        goto fail;
    }
    if (q->n)
        qsort (q->v, q->n, sizeof (*q->v), cmp_queued);
    free (q->entry_of_job);
    q->njobs = 0;
    if (!(q->entry_of_job = calloc (q->n + 1, sizeof (*q->entry_of_job)))) {
        ccas_errorf (err, "out of memory");
        goto fail;
    }
    for (size_t i = 0; i < q->n; i++) {
        const char *select = effective_select (q, &w, &q->v[i]);
        const struct shape *s = select ? shape_of (c, &sh, select, q->v[i].place) : NULL;
        if (!s) {
            ccas_errorf (err, "out of memory");
            goto fail;
        }
        if (s->error) {
            /* kept as a job that can never match, so that demand and
             * analyze give the reason, not only the log */
            ccas_log (LOG_WARNING, "pbs: job %s cannot be matched: %s", q->v[i].id, s->error);
            st.skipped++;
            if (add_unreadable (c, jobs, &q->v[i], s->error, err) < 0)
                goto fail;
            q->entry_of_job[q->njobs++] = i;
            continue;
        }
        const char *limit = ccas_pbs_limits_admit (q->limits, &q->v[i].who);
        if (limit) {
            /* a job PBS will not start makes no nodes: it stays in the
             * report, unmatched, with the limit as its reason */
            if (!(s = never_shape (c, &sh, limit, err)))
                goto fail;
            st.limited++;
        }
        if (add_job (jobs, &q->v[i], s, err) < 0)
            goto fail;
        q->entry_of_job[q->njobs++] = i;
        st.queued++;
    }
    shapes_free (&sh);
    free (known);
    ccas_resdict_destroy (w.warned);
    if (stats)
        *stats = st;
    return jobs;
fail:
    if (sh.keys)
        shapes_free (&sh);
    free (known);
    ccas_resdict_destroy (w.warned);
    ccas_jobs_destroy (jobs);
    return NULL;
}
