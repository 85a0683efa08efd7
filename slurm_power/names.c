/* SPDX-License-Identifier: MIT */
/* names.c: the name layout and resolving a name to its bucket. */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "names.h"

/* When CycleCloud states no limit at all: as many names as this, with a warning. */
#define UNSTATED_LIMIT 1000

/* A hostname's label: letters, digits and '-', at most 63. */
#define HOSTNAME_MAX 63

/* How many names a bucket gets: what CycleCloud allows it (its maxCount and
 * its nodearray's), capped by slurm.max_nodes when the site sets it.  0
 * when out of memory. */
static long bucket_size (const struct ccas_cluster *c, struct ccas_slurm_intents *in,
                         const struct ccas_bucket *b, bool *oom)
{
    const struct ccas_config *cfg = c->cfg;
    long n = -1;
    if (b->st->max_count >= 0)
        n = (long)b->st->max_count;
    if (b->na->st->max_count >= 0 && (n < 0 || b->na->st->max_count < n))
        n = (long)b->na->st->max_count;
    if (n < 0 && b->st->max_core_count >= 0 && b->cores_per_vm > 0)
        n = (long)(b->st->max_core_count / b->cores_per_vm);
    if (n < 0 && !(cfg->slurm.max_nodes > 0 && ccas_conf_given (cfg, "slurm.max_nodes"))) {
        n = UNSTATED_LIMIT;
        *oom = *oom || ccas_slurm_intents_note (in, false,
                                                "nodearray '%s' machine type '%s': CycleCloud states no"
                                                " maxCount: %d names (set the nodearray's MaxCount, or"
                                                " slurm.max_nodes)",
                                                b->na->name, b->machine_type, UNSTATED_LIMIT) < 0;
    }
    if (cfg->slurm.max_nodes > 0 && ccas_conf_given (cfg, "slurm.max_nodes") &&
        (n < 0 || n > cfg->slurm.max_nodes)) {
        if (n >= 0)
            *oom =
                *oom || ccas_slurm_intents_note (in, false,
                                                 "nodearray '%s' machine type '%s': %d names of the %ld"
                                                 " CycleCloud allows (slurm.max_nodes)",
                                                 b->na->name, b->machine_type, cfg->slurm.max_nodes, n) < 0;
        n = cfg->slurm.max_nodes;
    }
    return n;
}

/* na->enabled is CycleCloud's Configuration.autoscale.enabled unless
 * nodearrays.NAME.enabled says otherwise (cluster.c): the same answer for
 * the Slurm programs as for every other command. */
bool ccas_slurm_nodearray_managed (const struct ccas_nodearray *na, char *why, size_t whysize)
{
    if (na->enabled)
        return true;
    if (why && !na->st->autoscale_enabled)
        snprintf (why, whysize,
                  "nodearray '%s' is not autoscaled (Configuration.autoscale.enabled is false"
                  " in CycleCloud; nodearrays.%s.enabled true manages it anyway)",
                  na->name, na->name);
    else if (why)
        snprintf (why, whysize, "nodearray '%s' is disabled in the configuration (nodearrays.%s.enabled)",
                  na->name, na->name);
    return false;
}

/* A hostname holds at most 63 characters: the longest name must fit. */
static int check_length (struct ccas_slurm_intents *in, const struct ccas_slurm_intent *it, long last)
{
    char name[512];
    int len = snprintf (name, sizeof (name), "%s%s-%ld", it->prefix, it->na->name, last);
    if (len <= HOSTNAME_MAX)
        return 0;
    return ccas_slurm_intents_note (in, true,
                                    "nodearray '%s': slurm.node_prefix: names such as '%s' are longer than a"
                                    " hostname's %d characters",
                                    it->na->name, name, HOSTNAME_MAX);
}

struct ccas_slurm_layout *ccas_slurm_layout_create (const struct ccas_cluster *c)
{
    struct ccas_slurm_layout *l = calloc (1, sizeof (*l));
    bool oom = false;
    if (!l || !(l->ranges = calloc (c->nbuckets + 1, sizeof (*l->ranges))) ||
        !(l->intents = ccas_slurm_intents_read (c))) {
        ccas_slurm_layout_destroy (l);
        return NULL;
    }
    for (size_t a = 0; a < c->nnodearrays; a++) {
        const struct ccas_slurm_intent *it = &l->intents->na[a];
        long next = 1;
        if (!ccas_slurm_nodearray_managed (&c->nodearrays[a], NULL, 0) || it->dynamic_feature[0])
            continue;
        /* buckets are in preference order; each nodearray's ranges follow it */
        for (size_t i = 0; i < c->nbuckets; i++) {
            struct ccas_bucket *b = &c->buckets[i];
            if (b->na != &c->nodearrays[a])
                continue;
            long n = bucket_size (c, l->intents, b, &oom);
            if (n <= 0)
                continue;
            l->ranges[l->nranges++] = (struct ccas_slurm_range){b, next, next + n - 1};
            next += n;
        }
        if (next > 1 && check_length (l->intents, it, next - 1) < 0)
            oom = true;
    }
    if (oom) {
        ccas_slurm_layout_destroy (l);
        return NULL;
    }
    return l;
}

void ccas_slurm_layout_destroy (struct ccas_slurm_layout *l)
{
    if (!l)
        return;
    ccas_slurm_intents_destroy (l->intents);
    free (l->ranges);
    free (l);
}

/* The settings of the nodearray named `nodearray`, or NULL. */
static const struct ccas_slurm_intent *intent_named (const struct ccas_slurm_layout *l, const char *nodearray)
{
    for (size_t i = 0; i < l->intents->nna; i++)
        if (strcmp (l->intents->na[i].na->name, nodearray) == 0)
            return &l->intents->na[i];
    return NULL;
}

static const char *prefix_of (const struct ccas_slurm_layout *l, const char *nodearray)
{
    const struct ccas_slurm_intent *it = intent_named (l, nodearray);
    return it ? it->prefix : "";
}

const char *ccas_slurm_name (const struct ccas_slurm_layout *l, const char *nodearray, long index, char *buf,
                             size_t size)
{
    snprintf (buf, size, "%s%s-%ld", prefix_of (l, nodearray), nodearray, index);
    return buf;
}

const char *ccas_slurm_name_format (const struct ccas_slurm_layout *l, const char *nodearray, char *buf,
                                    size_t size)
{
    snprintf (buf, size, "%s%s-%%d", prefix_of (l, nodearray), nodearray);
    return buf;
}

/* "<n>" of a name: from 1, no leading zero, at most nine digits (sync
 * would take "hpc-01" or a 20-digit index for an orphan); -1 if not so. */
static long parse_index (const char *s)
{
    char *end;
    if (!isdigit ((unsigned char)s[0]) || s[0] == '0' || strlen (s) > 9)
        return -1;
    long i = strtol (s, &end, 10);
    return *end || i < 1 ? -1 : i;
}

/* <prefix><nodearray>-<index> with this prefix, the nodearray being what
 * is between the prefix and the last '-'. */
static bool split (const char *prefix, const char *name, char *nodearray, size_t size, long *index)
{
    size_t plen = strlen (prefix);
    if (strncmp (name, prefix, plen) != 0)
        return false;
    const char *rest = name + plen;
    const char *dash = strrchr (rest, '-');
    long i;
    if (!dash || dash == rest || (i = parse_index (dash + 1)) < 0)
        return false;
    size_t nlen = (size_t)(dash - rest);
    if (nlen >= size)
        return false;
    memcpy (nodearray, rest, nlen);
    nodearray[nlen] = '\0';
    *index = i;
    return true;
}

bool ccas_slurm_name_parse (const struct ccas_slurm_layout *l, const char *name, char *nodearray, size_t size,
                            long *index)
{
    const struct ccas_slurm_intent *found = NULL;
    for (size_t i = 0; i < l->intents->nna; i++) {
        const struct ccas_slurm_intent *it = &l->intents->na[i];
        char na[256];
        long at;
        if (split (it->prefix, name, na, sizeof (na), &at) && strcmp (na, it->na->name) == 0 &&
            (!found || (it->managed && !found->managed)))
            found = it;
    }
    if (!found || strlen (found->na->name) >= size)
        return false;
    return split (found->prefix, name, nodearray, size, index);
}

/* The prefix most names have: the first managed nodearray's. */
static const char *usual_prefix (const struct ccas_slurm_layout *l)
{
    for (size_t i = 0; i < l->intents->nna; i++)
        if (l->intents->na[i].managed)
            return l->intents->na[i].prefix;
    return l->intents->nna ? l->intents->na[0].prefix : "";
}

const struct ccas_nodearray *ccas_slurm_nodearray_of (const struct ccas_cluster *c,
                                                      const struct ccas_slurm_layout *l, const char *name,
                                                      long *index, char *why, size_t whysize)
{
    char na[256];
    if (!ccas_slurm_name_parse (l, name, na, sizeof (na), index)) {
        if (split (usual_prefix (l), name, na, sizeof (na), index))
            snprintf (why, whysize, "cluster '%s' has no nodearray '%s'", c->cfg->cluster_name, na);
        else
            snprintf (why, whysize, "'%s' is not a ccautoscale name (%s<nodearray>-<n>)", name,
                      usual_prefix (l));
        return NULL;
    }
    const struct ccas_nodearray *nap = NULL;
    for (size_t i = 0; i < c->nnodearrays && !nap; i++)
        if (strcmp (c->nodearrays[i].name, na) == 0)
            nap = &c->nodearrays[i];
    if (!nap) {
        snprintf (why, whysize, "cluster '%s' has no nodearray '%s'", c->cfg->cluster_name, na);
        return NULL;
    }
    return ccas_slurm_nodearray_managed (nap, why, whysize) ? nap : NULL;
}

struct ccas_bucket *ccas_slurm_bucket_of (const struct ccas_cluster *c, const struct ccas_slurm_layout *l,
                                          const char *name, const struct ccas_slurm_node *sn, char *why,
                                          size_t whysize)
{
    long index;
    const struct ccas_nodearray *nap = ccas_slurm_nodearray_of (c, l, name, &index, why, whysize);
    if (!nap)
        return NULL;
    const char *na = nap->name;
    for (size_t i = 0; i < c->nbuckets; i++) {
        struct ccas_bucket *b = &c->buckets[i];
        if (b->na == nap && sn && sn->features && ccas_slurm_node_has_feature (sn, b->machine_type))
            return b;
    }
    for (size_t r = 0; r < l->nranges; r++) {
        const struct ccas_slurm_range *rg = &l->ranges[r];
        if (strcmp (rg->bucket->na->name, na) == 0 && index >= rg->first && index <= rg->last)
            return rg->bucket;
    }
    snprintf (why, whysize,
              "'%s': no machine type feature in Slurm and index %ld is past nodearray '%s''s ranges", name,
              index, na);
    return NULL;
}
