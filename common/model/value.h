/* SPDX-License-Identifier: MIT */
/* value.h: a resource or property value — a number, a string or a boolean.
 *
 * Numbers are doubles; sizes are numbers of bytes with `size` set so they
 * print as "4g".  Strings are borrowed from whatever document or pool they
 * came from; a value never owns memory.
 */
#ifndef CCAS_VALUE_H
#define CCAS_VALUE_H

#include <stdbool.h>
#include <stddef.h>

enum ccas_vtype {
    CCAS_V_NONE = 0, /* undefined: no such resource on this node */
    CCAS_V_NUM,
    CCAS_V_STR,
    CCAS_V_BOOL,
};

struct ccas_value {
    enum ccas_vtype type;
    bool size; /* a number of bytes */
    union {
        double num;
        const char *str; /* borrowed */
        bool b;
    } u;
};

static inline struct ccas_value ccas_value_num (double d)
{
    struct ccas_value v = {.type = CCAS_V_NUM};
    v.u.num = d;
    return v;
}

static inline struct ccas_value ccas_value_str (const char *s)
{
    struct ccas_value v = {.type = s ? CCAS_V_STR : CCAS_V_NONE};
    v.u.str = s;
    return v;
}

static inline struct ccas_value ccas_value_bool (bool b)
{
    struct ccas_value v = {.type = CCAS_V_BOOL};
    v.u.b = b;
    return v;
}

/* Render for messages: 4, "4g", 'execute', true.  Returns `buf`. */
const char *ccas_value_format (const struct ccas_value *v, char *buf, size_t size);

/* Equal in type and value; strings compare exactly. */
bool ccas_value_equal (const struct ccas_value *a, const struct ccas_value *b);

/* `pattern` matches `v`: a string pattern with shell wildcards against a
 * string; otherwise equality.  Numbers given as strings compare as numbers
 * ("4" matches 4); booleans accept "true"/"false". */
bool ccas_value_matches (const struct ccas_value *pattern, const struct ccas_value *v);

#endif /* !CCAS_VALUE_H */
