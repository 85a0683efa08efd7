/* SPDX-License-Identifier: MIT */
/* resources.c: compile default_resources rules and apply them to nodes. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/resources.h"
#include "util/arena.h"
#include "util/json.h"
#include "util/units.h"

enum modifier { MOD_NONE, MOD_ADD, MOD_SUBTRACT, MOD_MULTIPLY, MOD_DIVIDE, MOD_DIVIDE_FLOOR };

static const char *const modifier_keys[] = {
    [MOD_ADD] = "add",       [MOD_SUBTRACT] = "subtract",         [MOD_MULTIPLY] = "multiply",
    [MOD_DIVIDE] = "divide", [MOD_DIVIDE_FLOOR] = "divide_floor",
};

struct rule {
    const struct ccas_constraint *select;
    int res;                   /* resdict id of the name */
    int prop;                  /* >= 0: value is this node property */
    int ref;                   /* >= 0: value is this resource of the node (node.resources.NAME) */
    bool ref_number;           /* ... its number, not its size (node.resources.NAME.value) */
    const char *conf_key;      /* non-NULL: value is node.software_configuration.<conf_key> */
    struct ccas_value literal; /* otherwise this */
    enum modifier mod;
    double operand;
};

struct ccas_rules {
    struct rule *v;
    size_t n;
    json_object *builtin_json; /* owns the strings of the built-in rules */
    struct ccas_resdict *dict;
    struct ccas_arena *arena; /* list values */
};

/* Scalars and (one level of) lists from JSON; NULL `alloc` borrows nothing
 * but the strings.  CCAS_V_NONE for what has no value form (objects, null). */
static struct ccas_value json_value (json_object *val, ccas_alloc_f alloc, void *arg, bool nested)
{
    switch (json_object_get_type (val)) {
    case json_type_int:
    case json_type_double:
        return ccas_value_num (json_object_get_double (val));
    case json_type_boolean:
        return ccas_value_bool (json_object_get_boolean (val));
    case json_type_string:
        return ccas_value_str (json_object_get_string (val));
    case json_type_array: {
        if (nested)
            break;
        size_t n = json_object_array_length (val);
        struct ccas_vlist *l = alloc (arg, sizeof (*l) + (n + 1) * sizeof (l->v[0]));
        if (!l)
            break;
        l->n = 0;
        for (size_t i = 0; i < n; i++) {
            struct ccas_value e = json_value (json_object_array_get_idx (val, i), alloc, arg, true);
            if (e.type != CCAS_V_NONE)
                l->v[l->n++] = e;
        }
        return ccas_value_list (l);
    }
    default:
        break;
    }
    return ccas_value_str (NULL);
}

static void *rules_alloc (void *arg, size_t size)
{
    return ccas_arena_alloc (arg, size);
}

static const char builtin_rules[] =
    "["
    "{\"select\": {}, \"name\": \"ncpus\", \"value\": \"node.vcpu_count\"},"
    "{\"select\": {}, \"name\": \"pcpus\", \"value\": \"node.pcpu_count\"},"
    "{\"select\": {}, \"name\": \"ngpus\", \"value\": \"node.gpu_count\"},"
    "{\"select\": {}, \"name\": \"mem\", \"value\": \"node.memory\"},"
    "{\"select\": {}, \"name\": \"memgb\", \"value\": \"node.memory\", \"divide\": 1073741824},"
    "{\"select\": {}, \"name\": \"nodearray\", \"value\": \"node.nodearray\"},"
    "{\"select\": {}, \"name\": \"vm_size\", \"value\": \"node.vm_size\"}"
    "]";

void ccas_resources_destroy (struct ccas_rules *r)
{
    if (!r)
        return;
    json_object_put (r->builtin_json);
    ccas_arena_destroy (r->arena);
    free (r->v);
    free (r);
}

static int parse_operand (json_object *val, const char *path, double *out, struct ccas_error *err)
{
    char brief[64];
    if (json_object_is_type (val, json_type_int) || json_object_is_type (val, json_type_double)) {
        *out = json_object_get_double (val);
        return 0;
    }
    if (json_object_is_type (val, json_type_string) &&
        ccas_units_looks_like_size (json_object_get_string (val))) {
        if (ccas_units_parse (json_object_get_string (val), 1, out, err) < 0)
            return ccas_error_prefix (err, "%s", path);
        return 0;
    }
    return ccas_errorf (err, "%s: expected a number or a size, got %s", path,
                        ccas_json_brief (val, brief, sizeof (brief)));
}

#define RESOURCES_PREFIX "node.resources."
#define SOFTWARE_PREFIX "node.software_configuration."

static int parse_value (json_object *val, const char *path, struct rule *rule, struct ccas_rules *r,
                        struct ccas_error *err)
{
    char brief[64];
    rule->prop = -1;
    rule->ref = -1;
    switch (json_object_get_type (val)) {
    case json_type_int:
    case json_type_double:
        rule->literal = ccas_value_num (json_object_get_double (val));
        return 0;
    case json_type_boolean:
        rule->literal = ccas_value_bool (json_object_get_boolean (val));
        return 0;
    case json_type_array:
        for (size_t i = 0; i < json_object_array_length (val); i++) {
            json_type t = json_object_get_type (json_object_array_get_idx (val, i));
            if (t == json_type_array || t == json_type_object || t == json_type_null)
                return ccas_errorf (
                    err, "%s[%zu]: a list holds numbers, strings and booleans, got %s", path, i,
                    ccas_json_brief (json_object_array_get_idx (val, i), brief, sizeof (brief)));
        }
        rule->literal = json_value (val, rules_alloc, r->arena, false);
        return rule->literal.type == CCAS_V_LIST ? 0 : ccas_errorf (err, "%s: out of memory", path);
    case json_type_string:
        break;
    default:
        return ccas_errorf (err, "%s: expected a number, string, boolean, list or node.<property>, got %s",
                            path, val ? ccas_json_brief (val, brief, sizeof (brief)) : "nothing");
    }
    const char *s = json_object_get_string (val);
    if (strncmp (s, RESOURCES_PREFIX, strlen (RESOURCES_PREFIX)) == 0) {
        char name[256];
        snprintf (name, sizeof (name), "%s", s + strlen (RESOURCES_PREFIX));
        size_t len = strlen (name);
        if (len > 6 && strcmp (name + len - 6, ".value") == 0) {
            name[len - 6] = '\0'; /* scalelib's Size.value: the number without its unit */
            rule->ref_number = true;
        }
        if (!*name)
            return ccas_errorf (err, "%s: '%s' names no resource", path, s);
        if ((rule->ref = ccas_resdict_intern (r->dict, name)) < 0)
            return ccas_errorf (err, "%s: out of memory", path);
        return 0;
    }
    if (strncmp (s, SOFTWARE_PREFIX, strlen (SOFTWARE_PREFIX)) == 0) {
        rule->conf_key = s + strlen (SOFTWARE_PREFIX);
        if (!*rule->conf_key)
            return ccas_errorf (err, "%s: '%s' names no configuration key", path, s);
        return 0;
    }
    if (strncmp (s, "node.", 5) == 0) {
        if ((rule->prop = ccas_node_prop_parse (s + 5)) < 0)
            return ccas_errorf (err, "%s: unknown node property '%s'", path, s);
        return 0;
    }
    /* "4gbb" is a size with a typo, as for constraints: an error, not a string */
    if (ccas_units_looks_like_size (s)) {
        double bytes;
        if (ccas_units_parse (s, 1, &bytes, err) < 0)
            return ccas_error_prefix (err, "%s", path);
        rule->literal = ccas_value_num (bytes);
        rule->literal.size = true;
        return 0;
    }
    rule->literal = ccas_value_str (s);
    return 0;
}

static int parse_modifier (json_object *obj, const char *path, struct rule *rule, struct ccas_error *err)
{
    for (int m = MOD_ADD; m <= MOD_DIVIDE_FLOOR; m++) {
        json_object *val = ccas_json_get (obj, modifier_keys[m]);
        if (!val)
            continue;
        char sub[512];
        ccas_json_path_key (sub, sizeof (sub), path, modifier_keys[m]);
        if (rule->mod != MOD_NONE)
            return ccas_errorf (err, "%s: only one of add, subtract, multiply, divide, divide_floor", sub);
        if (parse_operand (val, sub, &rule->operand, err) < 0)
            return -1;
        if ((m == MOD_DIVIDE || m == MOD_DIVIDE_FLOOR) && rule->operand == 0)
            return ccas_errorf (err, "%s: cannot divide by zero", sub);
        rule->mod = (enum modifier)m;
    }
    return 0;
}

static int check_keys (json_object *obj, const char *path, struct ccas_error *err)
{
    static const char *const known[] = {"select",   "name",   "value",        "add", "subtract",
                                        "multiply", "divide", "divide_floor", NULL};
    const char *key = ccas_json_unknown_key (obj, known);
    if (key)
        return ccas_errorf (err, "%s.%s: unknown key (a rule has select, name, value and one modifier)", path,
                            key);
    return 0;
}

static int compile_rule (json_object *obj, const char *path, struct ccas_cons_cache *cache,
                         struct ccas_rules *r, struct rule *rule, struct ccas_error *err)
{
    char sub[512], brief[64];
    const char *name = NULL;
    if (!json_object_is_type (obj, json_type_object))
        return ccas_errorf (err, "%s: expected a rule {select, name, value}, got %s", path,
                            ccas_json_brief (obj, brief, sizeof (brief)));
    if (check_keys (obj, path, err) < 0)
        return -1;
    ccas_json_path_key (sub, sizeof (sub), path, "name");
    int rc = ccas_json_get_str (obj, path, "name", &name, err);
    if (rc < 0)
        return -1;
    if (rc == 0 || !*name)
        return ccas_errorf (err, "%s: missing", sub);
    if (strncmp (name, "node.", 5) == 0)
        return ccas_errorf (err, "%s: '%s' is a node property, not a resource name", sub, name);
    if ((rule->res = ccas_resdict_intern (r->dict, name)) < 0)
        return ccas_errorf (err, "%s: out of memory", sub);
    ccas_json_path_key (sub, sizeof (sub), path, "select");
    json_object *sel = ccas_json_get (obj, "select");
    if (!(rule->select = ccas_constraint_compile (cache, sel, sub, err)))
        return -1;
    ccas_json_path_key (sub, sizeof (sub), path, "value");
    if (parse_value (ccas_json_get (obj, "value"), sub, rule, r, err) < 0)
        return -1;
    if (parse_modifier (obj, path, rule, err) < 0)
        return -1;
    if (rule->mod != MOD_NONE && rule->prop < 0 && rule->ref < 0 && !rule->conf_key &&
        rule->literal.type != CCAS_V_NUM)
        return ccas_errorf (err, "%s: a modifier needs a numeric value", path);
    return 0;
}

static int compile_array (struct ccas_rules *r, json_object *arr, const char *path,
                          struct ccas_cons_cache *cache, struct ccas_error *err)
{
    size_t n = json_object_array_length (arr);
    struct rule *v = realloc (r->v, (r->n + n + 1) * sizeof (*v));
    if (!v)
        return ccas_errorf (err, "%s: out of memory", path);
    r->v = v;
    for (size_t i = 0; i < n; i++) {
        char sub[512];
        ccas_json_path_index (sub, sizeof (sub), path, i);
        memset (&r->v[r->n], 0, sizeof (r->v[r->n]));
        if (compile_rule (json_object_array_get_idx (arr, i), sub, cache, r, &r->v[r->n], err) < 0)
            return -1;
        r->n++;
    }
    return 0;
}

struct ccas_rules *ccas_resources_compile (json_object *rules, bool builtins, struct ccas_cons_cache *cache,
                                           struct ccas_resdict *dict, const char *path,
                                           struct ccas_error *err)
{
    char brief[64];
    struct ccas_rules *r = calloc (1, sizeof (*r));
    if (!r) {
        ccas_errorf (err, "%s: out of memory", path);
        return NULL;
    }
    r->dict = dict;
    if (!(r->arena = ccas_arena_create ())) {
        ccas_errorf (err, "%s: out of memory", path);
        goto error;
    }
    if (rules && !json_object_is_type (rules, json_type_array)) {
        ccas_errorf (err, "%s: expected an array of rules, got %s", path,
                     ccas_json_brief (rules, brief, sizeof (brief)));
        goto error;
    }
    if (rules && compile_array (r, rules, path, cache, err) < 0)
        goto error;
    if (builtins) {
        r->builtin_json = json_tokener_parse (builtin_rules);
        if (!r->builtin_json || compile_array (r, r->builtin_json, "built-in rules", cache, err) < 0)
            goto error;
    }
    return r;
error:
    ccas_resources_destroy (r);
    return NULL;
}

/* node.software_configuration.KEY: KEY whole first (scalelib looks it up as
 * one key), then as a dotted path into the nested Configuration. */
static json_object *software_value (json_object *conf, const char *key)
{
    json_object *v = ccas_json_get (conf, key);
    if (v || !strchr (key, '.'))
        return v;
    char copy[256], *save = NULL;
    snprintf (copy, sizeof (copy), "%s", key);
    v = conf;
    for (char *part = strtok_r (copy, ".", &save); part && v; part = strtok_r (NULL, ".", &save))
        v = json_object_is_type (v, json_type_object) ? ccas_json_get (v, part) : NULL;
    return v;
}

struct applier {
    const struct ccas_rules *r;
    struct ccas_node *n;
    ccas_alloc_f alloc;
    void *arg;
    int depth;
};

static int define (struct applier *a, int res);

static struct ccas_value rule_value (struct applier *a, const struct rule *rule)
{
    struct ccas_node *n = a->n;
    struct ccas_value v = rule->literal;
    if (rule->prop >= 0) {
        char buf[64];
        v = ccas_node_prop (n, (enum ccas_node_prop)rule->prop, buf, sizeof (buf));
        if (v.type == CCAS_V_STR && v.u.str == buf) {
            size_t len = strlen (buf) + 1;
            char *copy = a->alloc (a->arg, len);
            v = ccas_value_str (copy ? memcpy (copy, buf, len) : NULL);
        }
    } else if (rule->ref >= 0) {
        /* another resource of the node: defined first if a rule defines it */
        if (define (a, rule->ref) < 0)
            return ccas_value_str (NULL);
        v = (uint32_t)rule->ref < n->nres ? n->res[rule->ref] : ccas_value_str (NULL);
        if (rule->ref_number)
            v.size = false;
    } else if (rule->conf_key)
        v = json_value (software_value (n->software_configuration, rule->conf_key), a->alloc, a->arg, false);
    if (rule->mod == MOD_NONE || v.type != CCAS_V_NUM)
        return v;
    switch (rule->mod) {
    case MOD_ADD:
        v.u.num += rule->operand;
        break;
    case MOD_SUBTRACT:
        v.u.num -= rule->operand;
        break;
    case MOD_MULTIPLY:
        v.u.num *= rule->operand;
        break;
    case MOD_DIVIDE:
        v.u.num /= rule->operand;
        v.size = false; /* bytes / bytes-per-unit is a count */
        break;
    case MOD_DIVIDE_FLOOR:
        v.u.num = floor (v.u.num / rule->operand);
        v.size = false;
        break;
    case MOD_NONE:
        break;
    }
    return v;
}

/* Apply rule `i` if its resource is still undefined and its select matches. */
static int apply_rule (struct applier *a, size_t i)
{
    const struct rule *rule = &a->r->v[i];
    struct ccas_node *n = a->n;
    struct ccas_eval ev = {.job = -1};
    if (n->res[rule->res].type != CCAS_V_NONE)
        return 0; /* an earlier rule defined it */
    if (!ccas_constraint_fits (rule->select, n, &ev, NULL, 0))
        return 0;
    struct ccas_value v = rule_value (a, rule);
    if (v.type == CCAS_V_NONE || n->res[rule->res].type != CCAS_V_NONE)
        return 0; /* nothing there (a later rule may define it), or a cycle defined it meanwhile */
    n->res[rule->res] = v;
    if (v.type == CCAS_V_NUM)
        n->avail[rule->res] = v.u.num;
    return 0;
}

/* Define resource `res` now, by the first rule for it that applies (as the
 * walk over them in order would), so that node.resources.NAME sees it whatever the
 * order of the rules.  A reference cycle leaves it undefined. */
static int define (struct applier *a, int res)
{
    if ((uint32_t)res >= a->n->nres || a->n->res[res].type != CCAS_V_NONE)
        return 0;
    if (a->depth >= 16)
        return -1;
    a->depth++;
    for (size_t i = 0; i < a->r->n && a->n->res[res].type == CCAS_V_NONE; i++)
        if (a->r->v[i].res == res)
            apply_rule (a, i);
    a->depth--;
    return 0;
}

int ccas_resources_apply (const struct ccas_rules *r, struct ccas_node *n, ccas_alloc_f alloc, void *arg)
{
    size_t nres = ccas_resdict_count (r->dict);
    struct applier a = {r, n, alloc, arg, 0};
    if (nres) {
        if (!(n->res = alloc (arg, nres * sizeof (*n->res))) ||
            !(n->avail = alloc (arg, nres * sizeof (*n->avail))))
            return -1;
    }
    n->nres = (uint32_t)nres;
    for (size_t i = 0; i < r->n; i++)
        apply_rule (&a, i);
    return 0;
}
