/* SPDX-License-Identifier: MIT */
/* constraint_compile.c: compile constraint JSON into terms, interned in a
 * cache by their canonical form. */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model/constraint.h"
#include "model/constraint_term.h"
#include "util/arena.h"
#include "util/json.h"
#include "util/units.h"

/* A growing buffer. */
struct buf {
    char *p;
    size_t len, cap;
};

/* A slot of the cache's table: the hash beside the constraint, so that a
 * probe reads no constraint but the one whose hash is equal. */
struct cache_slot {
    uint64_t hash;
    struct ccas_constraint *k; /* NULL: empty */
};

struct ccas_cons_cache {
    struct ccas_resdict *dict;
    struct ccas_shared *shared;
    struct cache_slot *slots; /* hash table of interned constraints */
    size_t nslots, count;
    struct ccas_constraint **byid;
    size_t byid_cap;
    struct ccas_arena *arena; /* constraints, their terms, values and strings */
    struct ccas_constraint any;
    struct buf key; /* scratch: the canonical form of what is looked up */
};

static void *arena_alloc (struct ccas_cons_cache *c, size_t size)
{
    return ccas_arena_alloc (c->arena, size);
}

/* ---- cache ---------------------------------------------------------------- */

struct ccas_cons_cache *ccas_constraint_cache_create (struct ccas_resdict *dict, struct ccas_shared *shared)
{
    struct ccas_cons_cache *c = calloc (1, sizeof (*c));
    if (!c)
        return NULL;
    c->dict = dict;
    c->shared = shared;
    c->nslots = 64;
    c->arena = ccas_arena_create ();
    if (!c->arena || !(c->slots = calloc (c->nslots, sizeof (*c->slots)))) {
        ccas_arena_destroy (c->arena);
        free (c);
        return NULL;
    }
    c->any.root.kind = T_TRUE;
    c->any.info.monotone = true;
    c->any.text = "{}";
    return c;
}

void ccas_constraint_cache_destroy (struct ccas_cons_cache *c)
{
    if (!c)
        return;
    free (c->key.p);
    ccas_arena_destroy (c->arena);
    free (c->byid);
    free (c->slots);
    free (c);
}

const struct ccas_constraint *ccas_constraint_any (struct ccas_cons_cache *c)
{
    return &c->any;
}

/* ---- canonical form ------------------------------------------------------
 * Constraints are interned by a canonical form of their JSON: members of an
 * object sorted by name, each value tagged with its type, so that JSON equal
 * as json_object_equal() judges it (objects compare without order) has equal
 * forms.  The cache keeps the form, not the JSON: a shape costs its terms and
 * a few strings, not a json-c tree. */

/* Room for n more bytes and a NUL. */
static bool grow (struct buf *b, size_t n)
{
    size_t cap = b->cap ? b->cap : 256;
    while (b->len + n + 1 > cap)
        cap *= 2;
    char *q = realloc (b->p, cap);
    if (!q)
        return false;
    b->p = q;
    b->cap = cap;
    return true;
}

/* (inline: a key is made for every job, of many small pieces) */
static inline bool put (struct buf *b, const void *p, size_t n)
{
    if (b->len + n + 1 > b->cap && !grow (b, n))
        return false;
    memcpy (b->p + b->len, p, n);
    b->len += n;
    b->p[b->len] = '\0';
    return true;
}

static bool putf (struct buf *b, const char *fmt, ...) __attribute__ ((format (printf, 2, 3)));
static bool putf (struct buf *b, const char *fmt, ...)
{
    char tmp[64];
    va_list ap;
    va_start (ap, fmt);
    int n = vsnprintf (tmp, sizeof (tmp), fmt, ap);
    va_end (ap);
    return n >= 0 && (size_t)n < sizeof (tmp) && put (b, tmp, (size_t)n);
}

/* A number in decimal, without printf (a key is made for every job). */
static bool put_uint (struct buf *b, uint64_t v)
{
    char digits[24];
    int n = sizeof (digits);
    do
        digits[--n] = (char)('0' + v % 10);
    while ((v /= 10) > 0);
    return put (b, digits + n, sizeof (digits) - (size_t)n);
}

/* A string as "<length>:<bytes>": no escaping, no ambiguity. */
static bool put_str (struct buf *b, const char *s, size_t n)
{
    return put_uint (b, n) && put (b, ":", 1) && put (b, s, n);
}

struct member {
    const char *key;
    json_object *val;
};

static int cmp_member (const void *a, const void *b)
{
    return strcmp (((const struct member *)a)->key, ((const struct member *)b)->key);
}

static bool canonical (struct buf *b, json_object *j, int depth)
{
    if (depth > 64)
        return false; /* compile_term() refuses nothing this deep either: treat it as new */
    switch (json_object_get_type (j)) {
    case json_type_null:
        return put (b, "n,", 2);
    case json_type_boolean:
        return put (b, json_object_get_boolean (j) ? "t," : "f,", 2);
    case json_type_int: {
        int64_t i = json_object_get_int64 (j);
        if (i == INT64_MAX) /* json-c keeps larger values as unsigned */
            return put (b, "u", 1) && put_uint (b, json_object_get_uint64 (j)) && put (b, ",", 1);
        return put (b, i < 0 ? "i-" : "i", i < 0 ? 2 : 1) &&
               put_uint (b, i < 0 ? 0 - (uint64_t)i : (uint64_t)i) && put (b, ",", 1);
    }
    case json_type_double:
        return putf (b, "d%.17g,", json_object_get_double (j));
    case json_type_string:
        return put (b, "s", 1) &&
               put_str (b, json_object_get_string (j), (size_t)json_object_get_string_len (j));
    case json_type_array:
        if (!put (b, "[", 1))
            return false;
        for (size_t i = 0; i < json_object_array_length (j); i++)
            if (!canonical (b, json_object_array_get_idx (j, i), depth + 1))
                return false;
        return put (b, "]", 1);
    case json_type_object: {
        size_t n = (size_t)json_object_object_length (j), k = 0;
        struct member few[16], *m = n <= 16 ? few : malloc (n * sizeof (*m));
        bool ok = m != NULL && put (b, "{", 1);
        if (m) {
            json_object_object_foreach (j, key, val) if (k < n) m[k++] = (struct member){key, val};
            n = k; /* (the members the walk gave, however many it said) */
            if (n > 16)
                qsort (m, n, sizeof (*m), cmp_member);
            for (size_t i = 1; n <= 16 && i < n; i++) { /* a few members: by insertion */
                struct member t = m[i];
                size_t d = i;
                for (; d > 0 && strcmp (m[d - 1].key, t.key) > 0; d--)
                    m[d] = m[d - 1];
                m[d] = t;
            }
        }
        for (size_t i = 0; ok && i < n; i++)
            ok = put_str (b, m[i].key, strlen (m[i].key)) && canonical (b, m[i].val, depth + 1);
        if (m != few)
            free (m);
        return ok && put (b, "}", 1);
    }
    }
    return false;
}

static uint64_t hash_bytes (const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
    return h;
}

static struct ccas_constraint *cache_find (struct ccas_cons_cache *c, const struct buf *key, uint64_t h,
                                           size_t *slot)
{
    size_t mask = c->nslots - 1;
    size_t i = (size_t)h & mask;
    while (c->slots[i].k) {
        struct ccas_constraint *k = c->slots[i].k;
        if (c->slots[i].hash == h && k->keylen == key->len && memcmp (k->key, key->p, key->len) == 0)
            return k;
        i = (i + 1) & mask;
    }
    *slot = i;
    return NULL;
}

static int cache_add (struct ccas_cons_cache *c, struct ccas_constraint *k, size_t slot)
{
    if (c->count == c->byid_cap) { /* (doubling: a million shapes are not copied a million times) */
        size_t cap = c->byid_cap ? c->byid_cap * 2 : 64;
        struct ccas_constraint **v = realloc (c->byid, cap * sizeof (*v));
        if (!v)
            return -1;
        c->byid = v;
        c->byid_cap = cap;
    }
    c->slots[slot] = (struct cache_slot){k->hash, k};
    c->byid[c->count] = k;
    k->info.id = (uint32_t)c->count + 1; /* 0 is the always-true constraint */
    c->count++;
    if (c->count * 2 > c->nslots) {
        size_t nslots = c->nslots * 2;
        struct cache_slot *slots = calloc (nslots, sizeof (*slots));
        if (!slots)
            return 0; /* the table stays correct, only fuller */
        free (c->slots);
        c->slots = slots;
        c->nslots = nslots;
        for (size_t i = 0; i < c->count; i++) {
            size_t s = (size_t)c->byid[i]->hash & (nslots - 1);
            while (c->slots[s].k)
                s = (s + 1) & (nslots - 1);
            c->slots[s] = (struct cache_slot){c->byid[i]->hash, c->byid[i]};
        }
    }
    return 0;
}

/* ---- compile ---------------------------------------------------------------- */

struct compiler {
    struct ccas_cons_cache *cache;
    struct ccas_constraint *k;
    struct ccas_error *err;
};

static int compile_term (struct compiler *cc, json_object *j, const char *path, struct term *t);

static int fail (struct compiler *cc, const char *path, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));
static int fail (struct compiler *cc, const char *path, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start (ap, fmt);
    vsnprintf (msg, sizeof (msg), fmt, ap);
    va_end (ap);
    return ccas_errorf (cc->err, "%s: %s", path && *path ? path : "constraint", msg);
}

static int compile_list (struct compiler *cc, json_object *arr, const char *path, struct term *t)
{
    size_t n = json_object_array_length (arr);
    t->nkids = (uint32_t)n;
    if (n && !(t->kids = arena_alloc (cc->cache, n * sizeof (*t->kids))))
        return fail (cc, path, "out of memory");
    for (size_t i = 0; i < n; i++) {
        char sub[512];
        ccas_json_path_index (sub, sizeof (sub), path, i);
        if (compile_term (cc, json_object_array_get_idx (arr, i), sub, &t->kids[i]) < 0)
            return -1;
    }
    return 0;
}

/* A flag as scalelib reads it: true/false, 1/0 (any integer: 0 is false),
 * a string of digits, or "true"/"false" in any case. */
static int compile_bool_key (struct compiler *cc, json_object *val, const char *path, bool *out)
{
    char brief[64];
    switch (json_object_get_type (val)) {
    case json_type_boolean:
        *out = json_object_get_boolean (val);
        return 0;
    case json_type_int:
        *out = json_object_get_int64 (val) != 0;
        return 0;
    case json_type_string: {
        const char *s = json_object_get_string (val);
        if (*s && strspn (s, "0123456789") == strlen (s)) {
            *out = strspn (s, "0") != strlen (s);
            return 0;
        }
        if (strcasecmp (s, "true") == 0 || strcasecmp (s, "false") == 0) {
            *out = strcasecmp (s, "true") == 0;
            return 0;
        }
        break;
    }
    default:
        break;
    }
    return fail (cc, path, "expected true or false (or 1, 0, \"true\", \"false\"), got %s",
                 ccas_json_brief (val, brief, sizeof (brief)));
}

/* One option of a match: strings stay strings (sizes are turned into bytes
 * by the caller); a list is one option that a list value must equal element
 * by element (scalelib's whole-list comparison). */
static int scalar_value (struct compiler *cc, json_object *val, const char *path, struct ccas_value *out,
                         bool nested)
{
    char brief[64];
    switch (json_object_get_type (val)) {
    case json_type_int:
    case json_type_double:
        *out = ccas_value_num (json_object_get_double (val));
        return 0;
    case json_type_boolean:
        *out = ccas_value_bool (json_object_get_boolean (val));
        return 0;
    case json_type_string:
        *out = ccas_value_str (ccas_arena_strdup (cc->cache->arena, json_object_get_string (val)));
        if (!out->u.str)
            return fail (cc, path, "out of memory");
        return 0;
    case json_type_array:
        if (!nested) {
            size_t n = json_object_array_length (val);
            struct ccas_vlist *l = arena_alloc (cc->cache, sizeof (*l) + (n + 1) * sizeof (l->v[0]));
            if (!l)
                return fail (cc, path, "out of memory");
            l->n = (unsigned)n;
            for (size_t i = 0; i < n; i++) {
                char sub[512];
                ccas_json_path_index (sub, sizeof (sub), path, i);
                if (scalar_value (cc, json_object_array_get_idx (val, i), sub, &l->v[i], true) < 0)
                    return -1;
            }
            *out = ccas_value_list (l);
            return 0;
        }
        /* fall through */
    default:
        return fail (cc, path, "expected a number, string or boolean, got %s",
                     ccas_json_brief (val, brief, sizeof (brief)));
    }
}

static int compile_options (struct compiler *cc, json_object *val, const char *path, struct term *t)
{
    bool is_list = json_object_is_type (val, json_type_array);
    size_t n = is_list ? json_object_array_length (val) : 1;
    if (n == 0)
        return fail (cc, path, "an empty list matches nothing; remove the key or give options");
    if (!(t->values = arena_alloc (cc->cache, n * sizeof (*t->values))))
        return fail (cc, path, "out of memory");
    t->nvalues = (uint32_t)n;
    for (size_t i = 0; i < n; i++) {
        char sub[512];
        json_object *e = is_list ? json_object_array_get_idx (val, i) : val;
        if (is_list)
            ccas_json_path_index (sub, sizeof (sub), path, i);
        else
            snprintf (sub, sizeof (sub), "%s", path);
        if (scalar_value (cc, e, sub, &t->values[i], !is_list) < 0)
            return -1;
    }
    return 0;
}

static int compile_property (struct compiler *cc, const char *key, json_object *val, const char *path,
                             struct term *t)
{
    int prop = ccas_node_prop_parse (key + 5);
    if (prop < 0)
        return fail (cc, path, "unknown node property '%s'", key);
    t->kind = T_PROP;
    t->index = prop;
    return compile_options (cc, val, path, t);
}

/* A resource key: a number (or a size string) is a minimum that consumes;
 * anything else is a read-only match.  Shared resources go to the pool. */
static int compile_resource (struct compiler *cc, const char *key, json_object *val, const char *path,
                             struct term *t)
{
    int shared = ccas_shared_find (cc->cache->shared, key);
    bool number = json_object_is_type (val, json_type_int) || json_object_is_type (val, json_type_double);
    const char *str = json_object_is_type (val, json_type_string) ? json_object_get_string (val) : NULL;

    if (number || (str && ccas_units_looks_like_size (str))) {
        double amount;
        if (number)
            amount = json_object_get_double (val);
        else if (ccas_units_parse (str, 1, &amount, cc->err) < 0)
            return ccas_error_prefix (cc->err, "%s", path);
        if (amount < 0 || !isfinite (amount))
            return fail (cc, path, "a minimum must be a non-negative number");
        t->kind = shared >= 0 ? T_SHARED_MIN : T_MIN;
        /* a pool a job has drawn on takes its other slots whatever is left:
         * a node this fails for one job may take the next */
        if (shared >= 0)
            cc->k->info.monotone = false;
        t->amount = amount;
        t->size = !number;
    } else {
        if (compile_options (cc, val, path, t) < 0)
            return -1;
        /* a size among the options compares as bytes */
        for (uint32_t i = 0; i < t->nvalues; i++)
            if (t->values[i].type == CCAS_V_STR && ccas_units_is_size (t->values[i].u.str)) {
                double b;
                if (ccas_units_parse (t->values[i].u.str, 1, &b, cc->err) < 0)
                    return ccas_error_prefix (cc->err, "%s", path);
                t->values[i] = ccas_value_num (b);
                t->values[i].size = true;
            }
        t->kind = shared >= 0 ? T_SHARED_MATCH : T_RES_MATCH;
    }
    if (shared >= 0)
        t->index = shared;
    else if ((t->index = ccas_resdict_intern (cc->cache->dict, key)) < 0)
        return fail (cc, path, "out of memory");
    return 0;
}

static int compile_key (struct compiler *cc, const char *key, json_object *val, const char *path,
                        struct term *t)
{
    char brief[64];
    if (!(t->key = ccas_arena_strdup (cc->cache->arena, key)))
        return fail (cc, path, "out of memory");
    if (!val)
        return fail (cc, path, "null is not a constraint");
    if (strcmp (key, "and") == 0 || strcmp (key, "or") == 0 || strcmp (key, "xor") == 0) {
        if (!json_object_is_type (val, json_type_array))
            return fail (cc, path, "expected a list of constraints, got %s",
                         ccas_json_brief (val, brief, sizeof (brief)));
        if (key[0] == 'x' && json_object_array_length (val) < 2)
            return fail (cc, path, "xor needs at least two constraints");
        t->kind = key[0] == 'a' ? T_AND : key[0] == 'o' ? T_OR : T_XOR;
        if (t->kind != T_AND)
            cc->k->info.monotone = cc->k->info.monotone && t->kind == T_OR;
        return compile_list (cc, val, path, t);
    }
    if (strcmp (key, "not") == 0) {
        t->kind = T_NOT;
        t->nkids = 1;
        if (!(t->kids = arena_alloc (cc->cache, sizeof (*t->kids))))
            return fail (cc, path, "out of memory");
        return compile_term (cc, val, path, t->kids);
    }
    if (strcmp (key, "exclusive") == 0) {
        t->kind = T_EXCLUSIVE;
        return compile_bool_key (cc, val, path, &t->flag);
    }
    if (strcmp (key, "exclusive-task") == 0 || strcmp (key, "exclusive_task") == 0) {
        t->kind = T_EXCL_TASK;
        return compile_bool_key (cc, val, path, &t->flag);
    }
    if (strcmp (key, "in-a-placement-group") == 0) {
        t->kind = T_IN_PG;
        return compile_bool_key (cc, val, path, &t->flag);
    }
    if (strcmp (key, "never") == 0) {
        if (!json_object_is_type (val, json_type_string))
            return fail (cc, path, "expected a message, got %s",
                         ccas_json_brief (val, brief, sizeof (brief)));
        t->kind = T_NEVER;
        if (!(t->message = ccas_arena_strdup (cc->cache->arena, json_object_get_string (val))))
            return fail (cc, path, "out of memory");
        return 0;
    }
    if (strcmp (key, "capacity-failure-backoff") == 0) {
        if (!json_object_is_type (val, json_type_int) && !json_object_is_type (val, json_type_double))
            return fail (cc, path, "expected seconds, got %s", ccas_json_brief (val, brief, sizeof (brief)));
        t->kind = T_CAPFAIL;
        t->amount = json_object_get_double (val);
        if (t->amount < 0)
            return fail (cc, path, "seconds cannot be negative");
        return 0;
    }
    if (strncmp (key, "node.", 5) == 0)
        return compile_property (cc, key, val, path, t);
    if (json_object_is_type (val, json_type_object))
        return fail (cc, path, "expected a value or a list of values, got an object");
    return compile_resource (cc, key, val, path, t);
}

static int compile_object (struct compiler *cc, json_object *j, const char *path, struct term *t)
{
    size_t n = (size_t)json_object_object_length (j);
    if (n == 0) {
        t->kind = T_TRUE;
        return 0;
    }
    if (n == 1) {
        json_object_object_foreach (j, key, val)
        {
            char sub[512];
            ccas_json_path_key (sub, sizeof (sub), path, key);
            return compile_key (cc, key, val, sub, t);
        }
    }
    t->kind = T_AND;
    t->nkids = (uint32_t)n;
    if (!(t->kids = arena_alloc (cc->cache, n * sizeof (*t->kids))))
        return fail (cc, path, "out of memory");
    size_t i = 0;
    json_object_object_foreach (j, key2, val2)
    {
        char sub[512];
        ccas_json_path_key (sub, sizeof (sub), path, key2);
        if (compile_key (cc, key2, val2, sub, &t->kids[i++]) < 0)
            return -1;
    }
    return 0;
}

static int compile_term (struct compiler *cc, json_object *j, const char *path, struct term *t)
{
    char brief[64];
    if (!j) {
        t->kind = T_TRUE;
        return 0;
    }
    if (json_object_is_type (j, json_type_array)) {
        t->kind = T_AND;
        return compile_list (cc, j, path, t);
    }
    if (!json_object_is_type (j, json_type_object))
        return fail (cc, path, "expected a constraint object, got %s",
                     ccas_json_brief (j, brief, sizeof (brief)));
    return compile_object (cc, j, path, t);
}

/* Facts the engine needs are read off the top-level AND only: a flag buried
 * in an "or" is a choice, not a requirement of the job. */
static void collect_info (const struct term *t, struct ccas_cons_info *info)
{
    switch (t->kind) {
    case T_AND:
        for (uint32_t i = 0; i < t->nkids; i++)
            collect_info (&t->kids[i], info);
        break;
    case T_EXCLUSIVE:
        info->exclusive = info->exclusive || t->flag;
        break;
    case T_EXCL_TASK:
        info->exclusive_task = info->exclusive_task || t->flag;
        break;
    case T_IN_PG:
        if (t->flag)
            info->wants_pg = true;
        else
            info->forbids_pg = true;
        break;
    case T_NEVER:
        info->never = true;
        info->bucket_terms = true;
        break;
    case T_PROP:
        info->bucket_terms = info->bucket_terms || ccas_node_prop_of_bucket ((enum ccas_node_prop)t->index);
        break;
    case T_SHARED_MIN:
    case T_SHARED_MATCH:
        info->pools = true;
        break;
    case T_CAPFAIL:
        if (t->amount > info->capacity_backoff)
            info->capacity_backoff = t->amount;
        break;
    default:
        break;
    }
}

const struct ccas_constraint *ccas_constraint_compile (struct ccas_cons_cache *cache, json_object *json,
                                                       const char *path, struct ccas_error *err)
{
    if (!json || (json_object_is_type (json, json_type_object) && json_object_object_length (json) == 0))
        return &cache->any;
    cache->key.len = 0;
    if (!canonical (&cache->key, json, 0)) {
        ccas_errorf (err, "%s: out of memory", path);
        return NULL;
    }
    uint64_t h = hash_bytes (cache->key.p, cache->key.len);
    size_t slot = 0;
    struct ccas_constraint *k = cache_find (cache, &cache->key, h, &slot);
    if (k)
        return k;
    if (!(k = arena_alloc (cache, sizeof (*k))) || !(k->key = arena_alloc (cache, cache->key.len + 1))) {
        ccas_errorf (err, "%s: out of memory", path);
        return NULL;
    }
    memcpy ((char *)k->key, cache->key.p, cache->key.len + 1);
    k->keylen = cache->key.len;
    k->info.monotone = true;
    k->shared = cache->shared;
    struct compiler cc = {cache, k, err};
    if (compile_term (&cc, json, path, &k->root) < 0)
        return NULL; /* the arena keeps the partial terms until the cache goes */
    collect_info (&k->root, &k->info);
    if (k->info.wants_pg && k->info.forbids_pg) {
        ccas_errorf (err, "%s: in-a-placement-group is both true and false", path);
        return NULL;
    }
    k->hash = h;
    k->text = ccas_arena_strdup (
        cache->arena,
        json_object_to_json_string_ext (json, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
    if (!k->text || cache_add (cache, k, slot) < 0) {
        ccas_errorf (err, "%s: out of memory", path);
        return NULL;
    }
    return k;
}

const struct ccas_cons_info *ccas_constraint_info (const struct ccas_constraint *c)
{
    return &c->info;
}

const char *ccas_constraint_text (const struct ccas_constraint *c)
{
    return c->text;
}

size_t ccas_constraint_cache_count (const struct ccas_cons_cache *cache)
{
    return cache->count;
}

const struct ccas_constraint *ccas_constraint_by_id (const struct ccas_cons_cache *cache, uint32_t id)
{
    if (id == 0)
        return &cache->any;
    return id <= cache->count ? cache->byid[id - 1] : NULL;
}
