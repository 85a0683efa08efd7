/* SPDX-License-Identifier: MIT */
/* arena.c: a bump allocator over a chain of blocks. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/arena.h"

/* Blocks start small and double up to BLOCK_SIZE: most arenas (a small
 * cluster's model, a pass with a few jobs) need a few KiB, and zeroing
 * 64 KiB for each of them was most of the cost of a short run. */
#define FIRST_BLOCK_SIZE (4 * 1024)
#define BLOCK_SIZE (64 * 1024)

struct block {
    struct block *next;
    size_t used, size;
    max_align_t data[];
};

struct ccas_arena {
    struct block *blocks;
    size_t next_size; /* of the next block, unless an allocation needs more */
};

struct ccas_arena *ccas_arena_create (void)
{
    struct ccas_arena *a = calloc (1, sizeof (*a));
    if (a)
        a->next_size = FIRST_BLOCK_SIZE;
    return a;
}

void ccas_arena_destroy (struct ccas_arena *a)
{
    if (!a)
        return;
    while (a->blocks) {
        struct block *next = a->blocks->next;
        free (a->blocks);
        a->blocks = next;
    }
    free (a);
}

void *ccas_arena_alloc (struct ccas_arena *a, size_t size)
{
    /* a size whose rounding or block header would wrap around is refused,
     * not turned into a small block the caller would overrun */
    if (size > SIZE_MAX - sizeof (struct block) - sizeof (max_align_t))
        return NULL;
    size = (size + sizeof (max_align_t) - 1) / sizeof (max_align_t) * sizeof (max_align_t);
    if (size == 0)
        size = sizeof (max_align_t);
    struct block *b = a->blocks;
    if (!b || b->used + size > b->size) {
        size_t bsize = size > a->next_size ? size : a->next_size;
        if (a->next_size < BLOCK_SIZE)
            a->next_size *= 2;
        /* calloc: memory fresh from the system comes zeroed without a pass
         * over it, and the pages of a large block untouched stay unmapped
         * (a job array sized for the worst case costs only what is used) */
        if (!(b = calloc (1, sizeof (*b) + bsize)))
            return NULL;
        b->next = a->blocks;
        b->used = 0;
        b->size = bsize;
        a->blocks = b;
    }
    void *p = (char *)b->data + b->used;
    b->used += size;
    return p; /* zero: blocks are calloc'd and never reused */
}

char *ccas_arena_strdup (struct ccas_arena *a, const char *s)
{
    size_t n = strlen (s) + 1;
    char *p = ccas_arena_alloc (a, n);
    if (p)
        memcpy (p, s, n);
    return p;
}

/* Measured first, then written in place: the text is whole however long. */
char *ccas_arena_printf (struct ccas_arena *a, const char *fmt, ...)
{
    va_list ap, again;
    va_start (ap, fmt);
    va_copy (again, ap);
    int n = vsnprintf (NULL, 0, fmt, ap);
    va_end (ap);
    char *p = n >= 0 ? ccas_arena_alloc (a, (size_t)n + 1) : NULL;
    if (p)
        vsnprintf (p, (size_t)n + 1, fmt, again);
    va_end (again);
    return p;
}
