/* SPDX-License-Identifier: MIT */
/* value.c: format, compare and match resource values. */
#include "config.h"

#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model/value.h"
#include "util/units.h"

int ccas_value_bool_word (const char *s)
{
    static const char *const yes[] = {"T", "t", "Y", "y", "1", NULL};
    static const char *const no[] = {"F", "f", "N", "n", "0", NULL};
    if (!s)
        return -1;
    if (strcasecmp (s, "true") == 0)
        return 1;
    if (strcasecmp (s, "false") == 0)
        return 0;
    for (int i = 0; yes[i]; i++) {
        if (strcmp (s, yes[i]) == 0)
            return 1;
        if (strcmp (s, no[i]) == 0)
            return 0;
    }
    return -1;
}

static void format_list (const struct ccas_vlist *l, char *buf, size_t size)
{
    size_t o = 0;
    o += (size_t)snprintf (buf, size, "[");
    for (unsigned i = 0; l && i < l->n && o < size; i++) {
        char item[128];
        ccas_value_format (&l->v[i], item, sizeof (item));
        o += (size_t)snprintf (buf + o, size - o, "%s%s", i ? ", " : "", item);
    }
    if (o < size)
        snprintf (buf + o, size - o, "]");
}

const char *ccas_value_format (const struct ccas_value *v, char *buf, size_t size)
{
    switch (v->type) {
    case CCAS_V_LIST:
        format_list (v->u.list, buf, size);
        break;
    case CCAS_V_NONE:
        snprintf (buf, size, "undefined");
        break;
    case CCAS_V_NUM:
        if (v->size)
            ccas_units_format (v->u.num, buf, size);
        else if (v->u.num == floor (v->u.num) && fabs (v->u.num) < 1e15)
            snprintf (buf, size, "%.0f", v->u.num);
        else
            snprintf (buf, size, "%g", v->u.num);
        break;
    case CCAS_V_STR:
        snprintf (buf, size, "'%s'", v->u.str);
        break;
    case CCAS_V_BOOL:
        snprintf (buf, size, "%s", v->u.b ? "true" : "false");
        break;
    }
    return buf;
}

bool ccas_value_equal (const struct ccas_value *a, const struct ccas_value *b)
{
    if (a->type != b->type)
        return false;
    switch (a->type) {
    case CCAS_V_NONE:
        return true;
    case CCAS_V_NUM:
        return a->u.num == b->u.num;
    case CCAS_V_STR:
        return strcmp (a->u.str, b->u.str) == 0;
    case CCAS_V_BOOL:
        return a->u.b == b->u.b;
    case CCAS_V_LIST:
        if (a->u.list->n != b->u.list->n)
            return false;
        for (unsigned i = 0; i < a->u.list->n; i++)
            if (!ccas_value_equal (&a->u.list->v[i], &b->u.list->v[i]))
                return false;
        return true;
    }
    return false;
}

static bool has_wildcard (const char *s)
{
    return strpbrk (s, "*?[") != NULL;
}

bool ccas_value_matches (const struct ccas_value *pattern, const struct ccas_value *v)
{
    if (pattern->type == CCAS_V_LIST) {
        if (v->type != CCAS_V_LIST || v->u.list->n != pattern->u.list->n)
            return false;
        for (unsigned i = 0; i < v->u.list->n; i++)
            if (!ccas_value_matches (&pattern->u.list->v[i], &v->u.list->v[i]))
                return false;
        return true;
    }
    if (v->type == CCAS_V_LIST) {
        for (unsigned i = 0; i < v->u.list->n; i++)
            if (ccas_value_matches (pattern, &v->u.list->v[i]))
                return true;
        return false;
    }
    if (pattern->type == CCAS_V_STR && v->type == CCAS_V_STR) {
        if (has_wildcard (pattern->u.str))
            return fnmatch (pattern->u.str, v->u.str, 0) == 0;
        return strcmp (pattern->u.str, v->u.str) == 0;
    }
    if (pattern->type == CCAS_V_STR && v->type == CCAS_V_NUM) {
        char *end;
        double d = strtod (pattern->u.str, &end);
        return end != pattern->u.str && *end == '\0' && d == v->u.num;
    }
    if (pattern->type == CCAS_V_STR && v->type == CCAS_V_BOOL) {
        int b = ccas_value_bool_word (pattern->u.str);
        return b >= 0 && (b == 1) == v->u.b;
    }
    if (pattern->type == CCAS_V_BOOL && v->type == CCAS_V_STR) {
        int b = ccas_value_bool_word (v->u.str);
        return b >= 0 && (b == 1) == pattern->u.b;
    }
    if (pattern->type == CCAS_V_NUM && v->type == CCAS_V_BOOL)
        return (pattern->u.num == 1 && v->u.b) || (pattern->u.num == 0 && !v->u.b);
    if (pattern->type == CCAS_V_NUM && v->type == CCAS_V_STR) {
        char *end;
        double d = strtod (v->u.str, &end);
        return end != v->u.str && *end == '\0' && d == pattern->u.num;
    }
    return ccas_value_equal (pattern, v);
}
