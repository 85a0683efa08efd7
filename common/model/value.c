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

const char *ccas_value_format (const struct ccas_value *v, char *buf, size_t size)
{
    switch (v->type) {
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
    }
    return false;
}

static bool has_wildcard (const char *s)
{
    return strpbrk (s, "*?[") != NULL;
}

bool ccas_value_matches (const struct ccas_value *pattern, const struct ccas_value *v)
{
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
        if (strcasecmp (pattern->u.str, "true") == 0)
            return v->u.b;
        if (strcasecmp (pattern->u.str, "false") == 0)
            return !v->u.b;
        return false;
    }
    if (pattern->type == CCAS_V_NUM && v->type == CCAS_V_STR) {
        char *end;
        double d = strtod (v->u.str, &end);
        return end != v->u.str && *end == '\0' && d == pattern->u.num;
    }
    return ccas_value_equal (pattern, v);
}
