/* SPDX-License-Identifier: MIT */
/* shared.c: a small table of cluster-wide resources. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "model/shared.h"
#include "util/json.h"
#include "util/units.h"

struct shared_res {
    char *name;
    char *str; /* owned copy of a string value */
    struct ccas_value value;
    int32_t taker; /* the job that last took from it, -1 none */
};

struct ccas_shared {
    struct shared_res *v;
    size_t n;
};

struct ccas_shared *ccas_shared_create (void)
{
    return calloc (1, sizeof (struct ccas_shared));
}

void ccas_shared_destroy (struct ccas_shared *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n; i++) {
        free (s->v[i].name);
        free (s->v[i].str);
    }
    free (s->v);
    free (s);
}

int ccas_shared_find (const struct ccas_shared *s, const char *name)
{
    for (size_t i = 0; s && i < s->n; i++)
        if (strcmp (s->v[i].name, name) == 0)
            return (int)i;
    return -1;
}

int ccas_shared_set (struct ccas_shared *s, const char *name, struct ccas_value value)
{
    int i = ccas_shared_find (s, name);
    struct shared_res *r;
    if (i < 0) {
        struct shared_res *v = realloc (s->v, (s->n + 1) * sizeof (*v));
        if (!v)
            return -1;
        s->v = v;
        r = &s->v[s->n];
        memset (r, 0, sizeof (*r));
        r->taker = -1;
        if (!(r->name = strdup (name)))
            return -1;
        s->n++;
    } else {
        r = &s->v[i];
        free (r->str);
        r->str = NULL;
    }
    r->value = value;
    if (value.type == CCAS_V_STR) {
        if (!(r->str = strdup (value.u.str)))
            return -1;
        r->value.u.str = r->str;
    }
    return 0;
}

struct ccas_value *ccas_shared_value (struct ccas_shared *s, int index)
{
    return &s->v[index].value;
}

int ccas_shared_load (struct ccas_shared *s, json_object *obj, const char *path, struct ccas_error *err)
{
    if (!obj)
        return 0;
    if (!json_object_is_type (obj, json_type_object))
        return ccas_errorf (err, "%s: expected an object of name: value", path);
    json_object_object_foreach (obj, name, val)
    {
        struct ccas_value v; /* every case sets it or returns */
        switch (json_object_get_type (val)) {
        case json_type_int:
        case json_type_double:
            v = ccas_value_num (json_object_get_double (val));
            if (v.u.num < 0)
                return ccas_errorf (err, "%s.%s: a shared amount cannot be negative", path, name);
            break;
        case json_type_boolean:
            v = ccas_value_bool (json_object_get_boolean (val));
            break;
        case json_type_string: {
            const char *str = json_object_get_string (val);
            if (ccas_units_looks_like_size (str)) { /* "4gbb": an error, not a string */
                double bytes;
                if (ccas_units_parse (str, 1, &bytes, err) < 0)
                    return ccas_error_prefix (err, "%s.%s", path, name);
                v = ccas_value_num (bytes);
                v.size = true;
            } else
                v = ccas_value_str (str);
            break;
        }
        default:
            return ccas_errorf (err, "%s.%s: expected a number, string or boolean, got %s", path, name,
                                ccas_json_type_name (val));
        }
        if (ccas_shared_set (s, name, v) < 0)
            return ccas_errorf (err, "%s.%s: out of memory", path, name);
    }
    return 0;
}

int32_t *ccas_shared_taker (struct ccas_shared *s, int index)
{
    return &s->v[index].taker;
}
