/* SPDX-License-Identifier: MIT */
/* fuzz_constraint.c: the constraint language and default_resources rules —
 * compiled in a real model's cache, then judged against every bucket's node,
 * and (for an array) applied as rules to a copy of each bucket's node. */
#include "config.h"

#include <stdlib.h>

#include "fuzz.h"
#include "model/constraint.h"
#include "model/resources.h"
#include "util/json.h"

struct allocs {
    void *p[64];
    size_t n;
};

static void *alloc (void *arg, size_t size)
{
    struct allocs *a = arg;
    if (a->n == sizeof (a->p) / sizeof (a->p[0]))
        return NULL;
    return a->p[a->n++] = calloc (1, size ? size : 1);
}

static void judge (struct ccas_cluster *c, const struct ccas_constraint *cons)
{
    char why[256];
    struct ccas_eval ev = {.job = 0, .template_node = true};
    (void)ccas_constraint_text (cons);
    for (size_t i = 0; i < c->nbuckets; i++) {
        struct ccas_node *n = &c->buckets[i].template_node;
        (void)ccas_constraint_rank (cons, n);
        (void)ccas_constraint_closeness (cons, n);
        if (ccas_constraint_fits (cons, n, &ev, why, sizeof (why)))
            ccas_constraint_take (cons, n, &ev);
    }
}

static void apply_rules (struct ccas_cluster *c, json_object *json)
{
    struct ccas_error err = {""};
    struct ccas_rules *rules =
        ccas_resources_compile (json, true, c->cons, c->dict, "default_resources", &err);
    if (!rules)
        return;
    for (size_t i = 0; i < c->nbuckets; i++) {
        struct allocs a = {.n = 0};
        struct ccas_node copy = c->buckets[i].template_node;
        (void)ccas_resources_apply (rules, &copy, alloc, &a);
        for (size_t k = 0; k < a.n; k++)
            free (a.p[k]);
    }
    ccas_resources_destroy (rules);
}

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    struct ccas_error err = {""};
    json_object *json = ccas_json_parse ((const char *)data, size, "constraint", &err);
    if (!json)
        return 0;
    struct fuzz_model m = fuzz_model_create ();
    const struct ccas_constraint *cons = ccas_constraint_compile (m.cluster->cons, json, "constraints", &err);
    if (cons)
        judge (m.cluster, cons);
    if (json_object_is_type (json, json_type_array))
        apply_rules (m.cluster, json);
    json_object_put (json);
    fuzz_model_destroy (&m);
    return 0;
}
