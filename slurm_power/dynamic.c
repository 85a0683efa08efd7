/* SPDX-License-Identifier: MIT */
/* dynamic.c: a dynamic node's nodearray and machine type, from its Slurm features. */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "dynamic.h"
#include "intent.h"
#include "util/json.h"

/* Configuration's "slurm" -> `key`, nested as CycleCloud returns it, or
 * flat ("slurm.dynamic_feature") as a record may carry it. */
static json_object *slurm_setting (const struct ccas_nodearray *na, const char *key)
{
    json_object *conf = na->st ? ccas_json_get (na->st->record, "Configuration") : NULL;
    json_object *v = ccas_json_get (ccas_json_get (conf, "slurm"), key);
    if (!v && conf) {
        char flat[128];
        snprintf (flat, sizeof (flat), "slurm.%s", key);
        v = ccas_json_get (conf, flat);
    }
    return v;
}

/* The first item of a comma list, trimmed, into buf ("" if none). */
static const char *first_item (const char *list, size_t len, char *buf, size_t size)
{
    while (len && isspace ((unsigned char)*list)) {
        list++;
        len--;
    }
    size_t n = 0;
    while (n < len && list[n] != ',' && !isspace ((unsigned char)list[n]))
        n++;
    snprintf (buf, size, "%.*s", (int)(n < size ? n : size - 1), list);
    return buf;
}

const char *ccas_slurm_dynamic_feature (const struct ccas_nodearray *na, char *buf, size_t size)
{
    json_object *v = slurm_setting (na, "dynamic_feature");
    if (v && json_object_is_type (v, json_type_string)) {
        const char *s = json_object_get_string (v);
        return *first_item (s, strlen (s), buf, size) ? buf : NULL;
    }
    v = slurm_setting (na, "dynamic_config");
    if (v && json_object_is_type (v, json_type_string))
        return *ccas_slurm_config_feature (json_object_get_string (v), buf, size) ? buf : NULL;
    return NULL;
}

bool ccas_slurm_features_have (const char *features, const char *feature, bool nocase)
{
    size_t len = strlen (feature);
    for (const char *p = features; p && *p && len;) {
        const char *comma = strchr (p, ',');
        size_t plen = comma ? (size_t)(comma - p) : strlen (p);
        if (plen == len && (nocase ? strncasecmp (p, feature, len) : strncmp (p, feature, len)) == 0)
            return true;
        p = comma ? comma + 1 : NULL;
    }
    return false;
}

/* The bucket of `na` whose machine type is among `features`, or NULL. */
static struct ccas_bucket *bucket_by_feature (const struct ccas_cluster *c, const struct ccas_nodearray *na,
                                              const char *features)
{
    for (size_t i = 0; i < c->nbuckets; i++)
        if (c->buckets[i].na == na && ccas_slurm_features_have (features, c->buckets[i].machine_type, true))
            return &c->buckets[i];
    return NULL;
}

static struct ccas_bucket *first_bucket (const struct ccas_cluster *c, const struct ccas_nodearray *na)
{
    for (size_t i = 0; i < c->nbuckets; i++)
        if (c->buckets[i].na == na)
            return &c->buckets[i];
    return NULL;
}

/* The dynamic node's bucket into *out: 1 found; 0 none of `features` is a
 * dynamic nodearray's feature; -1 one is, but its nodearray cannot take
 * the node (`why` says why). */
static int find_dynamic (const struct ccas_cluster *c, const char *features, struct ccas_bucket **out,
                         char *why, size_t whysize)
{
    const struct ccas_nodearray *first = NULL, *unmanaged = NULL;
    char feat[128];
    *out = NULL;
    for (size_t a = 0; features && *features && a < c->nnodearrays; a++) {
        const struct ccas_nodearray *na = &c->nodearrays[a];
        const char *f = ccas_slurm_dynamic_feature (na, feat, sizeof (feat));
        if (!f || !ccas_slurm_features_have (features, f, false))
            continue;
        if (!ccas_slurm_nodearray_managed (na, NULL, 0)) {
            unmanaged = unmanaged ? unmanaged : na;
            continue;
        }
        if ((*out = bucket_by_feature (c, na, features)))
            return 1;
        first = first ? first : na;
    }
    if (first && (*out = first_bucket (c, first)))
        return 1;
    if (first)
        snprintf (why, whysize, "dynamic nodearray '%s' has no machine type in CycleCloud", first->name);
    else if (unmanaged)
        ccas_slurm_nodearray_managed (unmanaged, why, whysize);
    else {
        snprintf (why, whysize, "features '%s' hold no nodearray's slurm.dynamic_feature",
                  features ? features : "");
        return 0;
    }
    return -1;
}

struct ccas_bucket *ccas_slurm_dynamic_bucket (const struct ccas_cluster *c, const char *features, char *why,
                                               size_t whysize)
{
    struct ccas_bucket *b;
    char dummy[8];
    find_dynamic (c, features, &b, why ? why : dummy, why ? whysize : sizeof (dummy));
    return b;
}

struct ccas_bucket *ccas_slurm_node_bucket (const struct ccas_cluster *c, const struct ccas_slurm_layout *l,
                                            const char *name, const struct ccas_slurm_node *sn, char *why,
                                            size_t whysize)
{
    struct ccas_bucket *b;
    int found = sn ? find_dynamic (c, sn->features, &b, why, whysize) : 0;
    if (found)
        return b; /* NULL, with why, when its nodearray cannot take it */
    return ccas_slurm_bucket_of (c, l, name, sn, why, whysize);
}

bool ccas_slurm_dynamic_nodearray (const struct ccas_cluster *c, const char *nodearray)
{
    char feat[128];
    for (size_t a = 0; nodearray && a < c->nnodearrays; a++)
        if (strcmp (c->nodearrays[a].name, nodearray) == 0)
            return ccas_slurm_nodearray_managed (&c->nodearrays[a], NULL, 0) &&
                   ccas_slurm_dynamic_feature (&c->nodearrays[a], feat, sizeof (feat));
    return false;
}

bool ccas_slurm_name_split (const char *name, char *stem, size_t size, long *number)
{
    size_t len = strlen (name), d = len;
    if (!len || len >= size || strchr (name, '%'))
        return false;
    while (d > 0 && isdigit ((unsigned char)name[d - 1]))
        d--;
    size_t digits = len - d;
    /* "07" would come back as "7" from "%d": such a name is made alone */
    if (digits == 0 || digits > 9 || (digits > 1 && name[d] == '0')) {
        memcpy (stem, name, len + 1);
        *number = -1;
        return true;
    }
    memcpy (stem, name, d);
    stem[d] = '\0';
    *number = strtol (name + d, NULL, 10);
    return true;
}
