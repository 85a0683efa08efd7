/* SPDX-License-Identifier: MIT */
/* table.h: aligned text tables for people (scripts use --json).
 *
 * Cells are copied.  A column whose header starts with '>' is right-aligned
 * (numbers); the '>' is not printed.
 */
#ifndef CCAS_TABLE_H
#define CCAS_TABLE_H

#include <stdio.h>

struct table;

/* `headers` is a NULL-terminated list.  Caller frees with table_destroy(). */
struct table *table_create (const char *const *headers);
void table_destroy (struct table *t);

/* Add a row of exactly as many cells as headers (NULL prints "-"). */
void table_add (struct table *t, const char *const *cells);

/* Add a row from printf formats, one format per cell, cells separated by '\t'. */
void table_addf (struct table *t, const char *fmt, ...) __attribute__ ((format (printf, 2, 3)));

void table_print (const struct table *t, FILE *f);

size_t table_rows (const struct table *t);

#endif /* !CCAS_TABLE_H */
