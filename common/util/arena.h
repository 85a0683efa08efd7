/* SPDX-License-Identifier: MIT */
/* arena.h: memory for one pass, freed all at once.
 *
 * The model and the constraint cache allocate many small objects that live
 * exactly as long as they do; an arena makes that one free and keeps them
 * close together.  Allocations are zeroed and suitably aligned.
 */
#ifndef CCAS_ARENA_H
#define CCAS_ARENA_H

#include <stddef.h>

struct ccas_arena;

/* Caller frees with ccas_arena_destroy(), which frees every allocation. */
struct ccas_arena *ccas_arena_create (void);
void ccas_arena_destroy (struct ccas_arena *a);

/* Zeroed memory valid until the arena is destroyed, or NULL. */
void *ccas_arena_alloc (struct ccas_arena *a, size_t size);

/* A copy of `s` in the arena, or NULL. */
char *ccas_arena_strdup (struct ccas_arena *a, const char *s);

/* printf into the arena, or NULL. */
char *ccas_arena_printf (struct ccas_arena *a, const char *fmt, ...) __attribute__ ((format (printf, 2, 3)));

#endif /* !CCAS_ARENA_H */
