/* SPDX-License-Identifier: MIT */
/* pg.c: placement groups: their limits, names, members, and room. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/cluster.h"
#include "model/pg.h"
#include "util/arena.h"

#define ARENA(c) ((struct ccas_arena *)(c)->arena)

static int64_t min64 (int64_t a, int64_t b)
{
    return a < b ? a : b;
}

/* ---- the limits ---------------------------------------------------------------------- */

/* How many more nodes a group of `b` may take when it holds `active` nodes
 * and `active_cores` cores (<0: not stated). */
static int64_t own_room (const struct ccas_bucket *b, int64_t active, int64_t active_cores)
{
    const struct ccas_bucket_status *st = b->st;
    int64_t room = ccas_limit_left (st->max_pg_size > 0 ? st->max_pg_size : -1, active);
    if (st->max_pg_core_size > 0) {
        int64_t used = active_cores >= 0 ? active_cores : active * b->cores_per_vm;
        room = min64 (room, ccas_limit_left (st->max_pg_core_size, used) / b->cores_per_vm);
    }
    return room;
}

int64_t ccas_pg_room (const struct ccas_bucket *b, const struct ccas_pg *pg, enum ccas_pg_scope scope)
{
    if (!b)
        return 0;
    int64_t room = pg ? pg->room : b->max_pg_size; /* (a new group: own_room (b, 0, 0)) */
    if (scope == CCAS_PG_WITH_BUCKET)
        room = min64 (room, ccas_bucket_available (b, NULL, 0));
    return room;
}

bool ccas_pg_reserve (struct ccas_pg *pg)
{
    if (!pg || pg->room <= 0)
        return false;
    if (pg->room != CCAS_UNLIMITED)
        pg->room--;
    return true;
}

bool ccas_pg_too_small (const struct ccas_bucket *b, int64_t nodes)
{
    return b && nodes > b->max_pg_size;
}

void ccas_pg_size_bucket (struct ccas_cluster *c, struct ccas_bucket *b)
{
    const struct ccas_bucket_status *st = b->st;
    int64_t by_count = st->max_pg_size > 0 ? st->max_pg_size : CCAS_UNLIMITED;
    int64_t by_cores = st->max_pg_core_size > 0 ? st->max_pg_core_size / b->cores_per_vm : CCAS_UNLIMITED;
    b->max_pg_size = min64 (by_count, by_cores);
    if (by_cores < by_count)
        b->pg_limit = ccas_arena_printf (ARENA (c), "maxPlacementGroupCoreSize %lld (%lld cores per node)",
                                         (long long)st->max_pg_core_size, (long long)b->cores_per_vm);
    else if (by_count != CCAS_UNLIMITED)
        b->pg_limit = ccas_arena_printf (ARENA (c), "maxPlacementGroupSize %lld", (long long)by_count);
    else
        b->pg_limit = "no placement group limit";
}

/* ---- members ------------------------------------------------------------------------- */

static int add_member (struct ccas_cluster *c, struct ccas_pg *pg, struct ccas_node *n)
{
    if (pg->nmembers == pg->memcap) {
        uint32_t cap = pg->memcap ? pg->memcap * 2 : 8;
        struct ccas_node **v = ccas_arena_alloc (ARENA (c), cap * sizeof (*v));
        if (!v)
            return -1;
        if (pg->nmembers)
            memcpy (v, pg->members, pg->nmembers * sizeof (*v));
        pg->members = v;
        pg->memcap = cap;
    }
    n->member = pg->nmembers;
    pg->members[pg->nmembers++] = n;
    return 0;
}

static void pop_member (void *arg)
{
    struct ccas_pg *pg = arg;
    pg->nmembers--;
}

int ccas_pg_add_existing (struct ccas_cluster *c, struct ccas_node *n)
{
    struct ccas_pg *pg = n->pg;
    if (!pg->from_status && n->kind != CCAS_NODE_GOING) {
        /* a group the status did not list: its nodes are its count */
        pg->active++;
        if (pg->room != CCAS_UNLIMITED && pg->room > 0)
            pg->room--;
    }
    return ccas_node_usable (n) ? add_member (c, pg, n) : 0;
}

int ccas_pg_add_new (struct ccas_cluster *c, struct ccas_pg *pg, struct ccas_node *n, struct ccas_undo *undo)
{
    if (pg->room != CCAS_UNLIMITED) {
        ccas_undo_i64 (undo, &pg->room);
        pg->room--;
    }
    if (add_member (c, pg, n) < 0)
        return -1;
    ccas_undo_call (undo, pop_member, pg);
    return 0;
}

/* ---- finding and making groups ------------------------------------------------------- */

/* A dropped group stays in b->pgs past npgs, to be reused by the next one made. */
static void pop_pg (void *arg)
{
    struct ccas_bucket *b = arg;
    b->npgs--;
}

/* "<bucket order>/<name>" in `buf` (`size` bytes), or when longer in memory
 * the caller frees; NULL when out of memory.  (Names have no length limit:
 * cut short, two names would share a key.) */
static char *key_text (const struct ccas_bucket *b, const char *name, char *buf, size_t size)
{
    int n = snprintf (buf, size, "%u/%s", b->order, name);
    if (n < 0 || (size_t)n < size)
        return n < 0 ? NULL : buf;
    char *p = malloc ((size_t)n + 1);
    if (p)
        snprintf (p, (size_t)n + 1, "%u/%s", b->order, name);
    return p;
}

/* Groups by bucket and name, in O(1): the key of a group and its slot. */
static int pg_key (struct ccas_cluster *c, const struct ccas_bucket *b, const char *name, bool add)
{
    char buf[320];
    char *key = key_text (b, name, buf, sizeof (buf));
    if (!key)
        return -1;
    int id = add ? ccas_resdict_intern (c->pg_names, key) : ccas_resdict_find (c->pg_names, key);
    if (key != buf)
        free (key);
    if (!add || id < 0)
        return id;
    if ((size_t)id >= c->pg_by_name_cap) {
        size_t cap = c->pg_by_name_cap ? c->pg_by_name_cap * 2 : 64;
        struct ccas_pg **v = realloc (c->pg_by_name, cap * sizeof (*v));
        if (!v)
            return -1;
        memset (v + c->pg_by_name_cap, 0, (cap - c->pg_by_name_cap) * sizeof (*v));
        c->pg_by_name = v;
        c->pg_by_name_cap = cap;
    }
    return id;
}

/* The live group of `b` named `name`, or NULL. */
static struct ccas_pg *pg_find (struct ccas_cluster *c, const struct ccas_bucket *b, const char *name)
{
    int id = c->pg_names ? pg_key (c, b, name, false) : -1;
    struct ccas_pg *pg = id >= 0 ? c->pg_by_name[id] : NULL;
    /* a dropped group is past npgs; its struct may since carry another name */
    if (pg && pg->bucket == b && pg->id < b->npgs && b->pgs[pg->id] == pg && strcmp (pg->name, name) == 0)
        return pg;
    return NULL;
}

/* The smallest "<na>_<mt>_pg<i>" not taken.  Every name below b->pg_next is
 * (groups are only ever dropped last made first, and the counter goes back
 * with them), so the search starts there.  `reuse` is the name of the group
 * struct about to be reused, kept if it is the one chosen. */
static const char *new_pg_name (struct ccas_cluster *c, struct ccas_bucket *b, const char *reuse,
                                struct ccas_undo *undo)
{
    char buf[256];
    size_t size = strlen (b->na->name) + strlen (b->machine_type) + sizeof ("__pg4294967295");
    char *name = size <= sizeof (buf) ? buf : malloc (size);
    const char *chosen = NULL;
    for (uint32_t i = b->pg_next; name; i++) {
        snprintf (name, size, "%s_%s_pg%u", b->na->name, b->machine_type, i);
        if (pg_find (c, b, name))
            continue;
        ccas_undo_u32 (undo, &b->pg_next);
        b->pg_next = i + 1;
        chosen = reuse && strcmp (reuse, name) == 0 ? reuse : ccas_arena_strdup (ARENA (c), name);
        break;
    }
    if (name != buf)
        free (name);
    return chosen;
}

struct ccas_pg *ccas_pg_get (struct ccas_cluster *c, struct ccas_bucket *b, const char *name,
                             struct ccas_undo *undo)
{
    if (!c || !b)
        return NULL;
    struct ccas_pg *pg = name ? pg_find (c, b, name) : NULL;
    if (pg)
        return pg;
    if (!c->pg_names && !(c->pg_names = ccas_resdict_create ()))
        return NULL;
    if (b->npgs == b->pgcap) {
        size_t cap = b->pgcap ? b->pgcap * 2 : 8;
        struct ccas_pg **v = realloc (b->pgs, cap * sizeof (*v));
        if (!v)
            return NULL;
        memset (v + b->pgcap, 0, (cap - b->pgcap) * sizeof (*v));
        b->pgs = v;
        b->pgcap = cap;
    }
    /* the struct (and member array) of a group a rollback dropped, or a new one */
    struct ccas_pg *spare = b->pgs[b->npgs];
    pg = spare ? spare : ccas_arena_alloc (ARENA (c), sizeof (*pg));
    if (!pg)
        return NULL;
    const char *pgname = name ? name : new_pg_name (c, b, spare ? spare->name : NULL, undo);
    if (!pgname)
        return NULL;
    struct ccas_node **members = spare ? spare->members : NULL;
    uint32_t memcap = spare ? spare->memcap : 0;
    memset (pg, 0, sizeof (*pg));
    pg->members = members;
    pg->memcap = memcap;
    pg->bucket = b;
    pg->is_new = name == NULL;
    pg->name = pgname;
    pg->room = own_room (b, 0, 0);
    pg->id = (uint32_t)b->npgs;
    int key = pg_key (c, b, pg->name, true);
    if (key < 0)
        return NULL;
    c->pg_by_name[key] = pg;
    b->pgs[b->npgs++] = pg;
    ccas_undo_call (undo, pop_pg, b);
    return pg;
}

int ccas_pg_load_status (struct ccas_cluster *c, struct ccas_bucket *b)
{
    for (size_t i = 0; i < b->st->npgs; i++) {
        struct ccas_pg *pg = ccas_pg_get (c, b, b->st->pgs[i].name, NULL);
        if (!pg)
            return -1;
        pg->active = b->st->pgs[i].active_count;
        pg->from_status = true;
        pg->room = own_room (b, pg->active, b->st->pgs[i].active_core_count);
    }
    return 0;
}

void ccas_pg_release (struct ccas_cluster *c)
{
    for (size_t i = 0; i < c->nbuckets; i++)
        free (c->buckets[i].pgs);
    free (c->pg_by_name);
    ccas_resdict_destroy (c->pg_names);
}
