/* SPDX-License-Identifier: MIT */
/* pbs_select.c: split select and place strings. */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pbs_select.h"

static bool all_digits (const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!isdigit ((unsigned char)*s))
            return false;
    return true;
}

static int parse_chunk (char *text, int index, struct ccas_pbs_chunk *c, struct ccas_error *err)
{
    char *save = NULL;
    bool first = true;
    c->count = 1;
    c->nfields = 0;
    for (char *f = strtok_r (text, ":", &save); f; f = strtok_r (NULL, ":", &save), first = false) {
        if (first && all_digits (f)) {
            long n = strtol (f, NULL, 10);
            if (n < 1 || n > 1000000)
                return ccas_errorf (err, "select: chunk %d: count '%s' out of range 1..1000000", index, f);
            c->count = (uint32_t)n;
            continue;
        }
        char *eq = strchr (f, '=');
        if (!eq || eq == f || !eq[1])
            return ccas_errorf (err, "select: chunk %d: '%s': expected resource=value", index, f);
        *eq = '\0';
        if (!ccas_pbs_name_valid (f))
            return ccas_errorf (err, "select: chunk %d: '%s' is not a resource name", index, f);
        if (c->nfields == CCAS_PBS_MAX_FIELDS)
            return ccas_errorf (err, "select: chunk %d: more than %d resources", index, CCAS_PBS_MAX_FIELDS);
        c->fields[c->nfields].name = f;
        c->fields[c->nfields].value = eq + 1;
        c->nfields++;
    }
    return 0;
}

int ccas_pbs_select_parse (char *select, struct ccas_pbs_chunk *chunks, int max, struct ccas_error *err)
{
    int n = 0;
    char *p = select;
    if (!p || !*p)
        return ccas_errorf (err, "select: empty");
    while (p) {
        char *plus = strchr (p, '+');
        if (plus)
            *plus = '\0';
        if (!*p)
            return ccas_errorf (err, "select: chunk %d is empty", n + 1);
        if (n == max)
            return ccas_errorf (err, "select: more than %d chunks", max);
        if (parse_chunk (p, n + 1, &chunks[n], err) < 0)
            return -1;
        n++;
        p = plus ? plus + 1 : NULL;
    }
    return n;
}

int ccas_pbs_place_parse (const char *place, struct ccas_pbs_place *out, struct ccas_error *err)
{
    char copy[256];
    memset (out, 0, sizeof (*out));
    if (!place || !*place)
        return 0;
    if (strlen (place) >= sizeof (copy))
        return ccas_errorf (err, "place: too long");
    snprintf (copy, sizeof (copy), "%s", place);
    char *save = NULL;
    for (char *f = strtok_r (copy, ":", &save); f; f = strtok_r (NULL, ":", &save)) {
        if (strcmp (f, "free") == 0)
            out->arrangement = CCAS_PBS_FREE;
        else if (strcmp (f, "pack") == 0)
            out->arrangement = CCAS_PBS_PACK;
        else if (strcmp (f, "scatter") == 0)
            out->arrangement = CCAS_PBS_SCATTER;
        else if (strcmp (f, "vscatter") == 0)
            out->arrangement = CCAS_PBS_VSCATTER;
        else if (strcmp (f, "shared") == 0)
            out->sharing = CCAS_PBS_SHARED;
        else if (strcmp (f, "excl") == 0)
            out->sharing = CCAS_PBS_EXCL;
        else if (strcmp (f, "exclhost") == 0)
            out->sharing = CCAS_PBS_EXCLHOST;
        else if (strncmp (f, "group=", 6) == 0 && ccas_pbs_name_valid (f + 6) &&
                 strlen (f + 6) < sizeof (out->group))
            snprintf (out->group, sizeof (out->group), "%s", f + 6);
        else
            return ccas_errorf (err,
                                "place: '%s': expected free, pack, scatter, vscatter, shared, excl, "
                                "exclhost or group=RESOURCE",
                                f);
    }
    return 0;
}

const char *ccas_pbs_chunk_get (const struct ccas_pbs_chunk *chunk, const char *name)
{
    for (uint32_t i = 0; i < chunk->nfields; i++)
        if (strcmp (chunk->fields[i].name, name) == 0)
            return chunk->fields[i].value;
    return NULL;
}

bool ccas_pbs_name_valid (const char *name)
{
    size_t n = 0;
    if (!name || !isalnum ((unsigned char)name[0]))
        return false;
    for (; name[n]; n++)
        if (!isalnum ((unsigned char)name[n]) && name[n] != '_' && name[n] != '-' && name[n] != '.')
            return false;
    return n <= 255;
}
