/* SPDX-License-Identifier: MIT */
/* table.c: collect rows, then print them aligned. */
#include "config.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "table.h"

struct table {
    size_t ncols;
    const char *const *headers;
    char **cells; /* rows * ncols */
    size_t nrows, cap;
};

struct table *table_create (const char *const *headers)
{
    struct table *t = calloc (1, sizeof (*t));
    if (!t)
        return NULL;
    while (headers[t->ncols])
        t->ncols++;
    t->headers = headers;
    return t;
}

void table_destroy (struct table *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->nrows * t->ncols; i++)
        free (t->cells[i]);
    free (t->cells);
    free (t);
}

static bool grow (struct table *t)
{
    if (t->nrows < t->cap)
        return true;
    size_t cap = t->cap ? t->cap * 2 : 16;
    char **cells = realloc (t->cells, cap * (t->ncols ? t->ncols : 1) * sizeof (*cells));
    if (!cells)
        return false;
    t->cells = cells;
    t->cap = cap;
    return true;
}

void table_add (struct table *t, const char *const *cells)
{
    if (!t || !grow (t))
        return;
    for (size_t c = 0; c < t->ncols; c++)
        t->cells[t->nrows * t->ncols + c] = strdup (cells[c] && *cells[c] ? cells[c] : "-");
    t->nrows++;
}

void table_addf (struct table *t, const char *fmt, ...)
{
    char *line = NULL;
    va_list ap;
    va_start (ap, fmt);
    int n = vasprintf (&line, fmt, ap);
    va_end (ap);
    if (n < 0 || !t)
        return;
    const char *cells[64] = {NULL};
    char *p = line;
    for (size_t c = 0; c < t->ncols && c < 64; c++) {
        char *tab = strchr (p, '\t');
        if (tab)
            *tab = '\0';
        cells[c] = p;
        if (!tab) {
            for (size_t d = c + 1; d < t->ncols; d++)
                cells[d] = "";
            break;
        }
        p = tab + 1;
    }
    table_add (t, cells);
    free (line);
}

size_t table_rows (const struct table *t)
{
    return t ? t->nrows : 0;
}

static const char *header_text (const char *h)
{
    return h[0] == '>' ? h + 1 : h;
}

void table_print (const struct table *t, FILE *f)
{
    size_t width[64] = {0};
    if (!t || t->ncols > 64)
        return;
    for (size_t c = 0; c < t->ncols; c++)
        width[c] = strlen (header_text (t->headers[c]));
    for (size_t r = 0; r < t->nrows; r++)
        for (size_t c = 0; c < t->ncols; c++) {
            size_t w = strlen (t->cells[r * t->ncols + c]);
            if (w > width[c])
                width[c] = w;
        }
    for (size_t r = 0; r <= t->nrows; r++) {
        for (size_t c = 0; c < t->ncols; c++) {
            const char *cell = r == 0 ? header_text (t->headers[c]) : t->cells[(r - 1) * t->ncols + c];
            bool right = t->headers[c][0] == '>';
            bool last = c + 1 == t->ncols;
            if (right)
                fprintf (f, "%*s%s", (int)width[c], cell, last ? "" : "  ");
            else if (last)
                fputs (cell, f);
            else
                fprintf (f, "%-*s  ", (int)width[c], cell);
        }
        fputc ('\n', f);
    }
}
