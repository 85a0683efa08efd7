/* SPDX-License-Identifier: MIT */
/* value.h: a resource or property value — a number, a string, a boolean or
 * a list of them.
 *
 * Numbers are doubles; sizes are numbers of bytes with `size` set so they
 * print as "4g".  Strings and lists are borrowed from whatever document or
 * pool they came from; a value never owns memory.
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
    CCAS_V_LIST,
};

struct ccas_vlist;

struct ccas_value {
    enum ccas_vtype type;
    bool size; /* a number of bytes */
    union {
        double num;
        const char *str; /* borrowed */
        bool b;
        const struct ccas_vlist *list; /* borrowed */
    } u;
};

struct ccas_vlist {
    unsigned n;
    struct ccas_value v[];
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

static inline struct ccas_value ccas_value_list (const struct ccas_vlist *l)
{
    struct ccas_value v = {.type = l ? CCAS_V_LIST : CCAS_V_NONE};
    v.u.list = l;
    return v;
}

/* The boolean a word means, as PBS and scalelib write them: true, True, T,
 * t, Y, y, 1 / false, False, F, f, N, n, 0 ("TRUE"/"FALSE" in any case).
 * Returns 1, 0, or -1 when `s` is not such a word. */
int ccas_value_bool_word (const char *s);

/* Render for messages: 4, "4g", 'execute', true, ['a', 'b'].  Returns `buf`. */
const char *ccas_value_format (const struct ccas_value *v, char *buf, size_t size);

/* Equal in type and value; strings compare exactly; lists element by element. */
bool ccas_value_equal (const struct ccas_value *a, const struct ccas_value *b);

/* `pattern` matches `v`: a string pattern with shell wildcards against a
 * string; otherwise equality.  Numbers given as strings compare as numbers
 * ("4" matches 4); booleans accept the words of ccas_value_bool_word() and 1
 * or 0.  A list value matches when one of its elements does (PBS's
 * string_array); a list pattern matches a list of as many elements, each
 * matching its own. */
bool ccas_value_matches (const struct ccas_value *pattern, const struct ccas_value *v);

#endif /* !CCAS_VALUE_H */
