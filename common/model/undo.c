/* SPDX-License-Identifier: MIT */
/* undo.c: record old values, restore them in reverse. */
#include "config.h"

#include <stdlib.h>

#include "model/undo.h"
#include "util/error.h"

enum entry_type { U_DOUBLE, U_BOOL, U_U32, U_I32, U_I64, U_CALL };

struct entry {
    enum entry_type type;
    void *p;
    union {
        double d;
        bool b;
        uint32_t u32;
        int32_t i32;
        int64_t i64;
        ccas_undo_f fn;
    } old;
};

struct ccas_undo {
    struct entry *v;
    size_t n, cap;
};

struct ccas_undo *ccas_undo_create (void)
{
    return calloc (1, sizeof (struct ccas_undo));
}

void ccas_undo_destroy (struct ccas_undo *u)
{
    if (!u)
        return;
    free (u->v);
    free (u);
}

size_t ccas_undo_mark (const struct ccas_undo *u)
{
    return u ? u->n : 0;
}

void ccas_undo_clear (struct ccas_undo *u)
{
    if (u)
        u->n = 0;
}

static struct entry *push (struct ccas_undo *u)
{
    if (u->n == u->cap) {
        size_t cap = u->cap ? u->cap * 2 : 256;
        struct entry *v = realloc (u->v, cap * sizeof (*v));
        if (!v)
            CCAS_BUG ("out of memory in the undo log"); /* a partial rollback would corrupt the pass */
        u->v = v;
        u->cap = cap;
    }
    return &u->v[u->n++];
}

void ccas_undo_double (struct ccas_undo *u, double *p)
{
    if (u) {
        struct entry *e = push (u);
        *e = (struct entry){.type = U_DOUBLE, .p = p, .old.d = *p};
    }
}

void ccas_undo_bool (struct ccas_undo *u, bool *p)
{
    if (u) {
        struct entry *e = push (u);
        *e = (struct entry){.type = U_BOOL, .p = p, .old.b = *p};
    }
}

void ccas_undo_u32 (struct ccas_undo *u, uint32_t *p)
{
    if (u) {
        struct entry *e = push (u);
        *e = (struct entry){.type = U_U32, .p = p, .old.u32 = *p};
    }
}

void ccas_undo_i32 (struct ccas_undo *u, int32_t *p)
{
    if (u) {
        struct entry *e = push (u);
        *e = (struct entry){.type = U_I32, .p = p, .old.i32 = *p};
    }
}

void ccas_undo_i64 (struct ccas_undo *u, int64_t *p)
{
    if (u) {
        struct entry *e = push (u);
        *e = (struct entry){.type = U_I64, .p = p, .old.i64 = *p};
    }
}

void ccas_undo_call (struct ccas_undo *u, ccas_undo_f fn, void *arg)
{
    if (u) {
        struct entry *e = push (u);
        *e = (struct entry){.type = U_CALL, .p = arg, .old.fn = fn};
    }
}

void ccas_undo_rollback (struct ccas_undo *u, size_t mark)
{
    if (!u)
        return;
    while (u->n > mark) {
        struct entry *e = &u->v[--u->n];
        switch (e->type) {
        case U_DOUBLE:
            *(double *)e->p = e->old.d;
            break;
        case U_BOOL:
            *(bool *)e->p = e->old.b;
            break;
        case U_U32:
            *(uint32_t *)e->p = e->old.u32;
            break;
        case U_I32:
            *(int32_t *)e->p = e->old.i32;
            break;
        case U_I64:
            *(int64_t *)e->p = e->old.i64;
            break;
        case U_CALL:
            e->old.fn (e->p);
            break;
        }
    }
}
