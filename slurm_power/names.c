/* SPDX-License-Identifier: MIT */
/* names.c: the name layout and resolving a name to its bucket. */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"

static long bucket_size (const struct ccas_bucket *b, long cap)
{
    long n = cap;
    if (b->st->max_count >= 0 && b->st->max_count < n)
        n = (long)b->st->max_count;
    if (b->na->st->max_count >= 0 && b->na->st->max_count < n)
        n = (long)b->na->st->max_count;
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

struct ccas_slurm_layout *ccas_slurm_layout_create (const struct ccas_cluster *c)
{
    struct ccas_slurm_layout *l = calloc (1, sizeof (*l));
    if (!l || !(l->ranges = calloc (c->nbuckets + 1, sizeof (*l->ranges)))) {
        free (l);
        return NULL;
    }
    l->prefix = c->cfg->slurm.node_prefix;
    if (!l->prefix)
        l->prefix = "";
    long cap = (long)c->cfg->slurm.max_nodes;
    for (size_t a = 0; a < c->nnodearrays; a++) {
        long next = 1;
        if (!ccas_slurm_nodearray_managed (&c->nodearrays[a], NULL, 0))
            continue;
        /* buckets are in preference order; each nodearray's ranges follow it */
        for (size_t i = 0; i < c->nbuckets; i++) {
            struct ccas_bucket *b = &c->buckets[i];
            if (b->na != &c->nodearrays[a])
                continue;
            long n = bucket_size (b, cap);
            if (n <= 0)
                continue;
            l->ranges[l->nranges++] = (struct ccas_slurm_range){b, next, next + n - 1};
            next += n;
        }
    }
    return l;
}

void ccas_slurm_layout_destroy (struct ccas_slurm_layout *l)
{
    if (!l)
        return;
    free (l->ranges);
    free (l);
}

const char *ccas_slurm_name (const struct ccas_slurm_layout *l, const char *nodearray, long index, char *buf,
                             size_t size)
{
    snprintf (buf, size, "%s%s-%ld", l->prefix, nodearray, index);
    return buf;
}

bool ccas_slurm_name_parse (const struct ccas_slurm_layout *l, const char *name, char *nodearray, size_t size,
                            long *index)
{
    size_t plen = strlen (l->prefix);
    if (strncmp (name, l->prefix, plen) != 0)
        return false;
    const char *rest = name + plen;
    const char *dash = strrchr (rest, '-');
    /* only the names ccautoscale gives: "hpc-01" or a 20-digit index is not
     * one (sync would take such a VM for an orphan) */
    if (!dash || dash == rest || !isdigit ((unsigned char)dash[1]) || dash[1] == '0' || strlen (dash + 1) > 9)
        return false;
    char *end;
    long i = strtol (dash + 1, &end, 10);
    if (*end || i < 1)
        return false;
    size_t nlen = (size_t)(dash - rest);
    if (nlen >= size)
        return false;
    memcpy (nodearray, rest, nlen);
    nodearray[nlen] = '\0';
    *index = i;
    return true;
}

const struct ccas_nodearray *ccas_slurm_nodearray_of (const struct ccas_cluster *c,
                                                      const struct ccas_slurm_layout *l, const char *name,
                                                      long *index, char *why, size_t whysize)
{
    char na[256];
    if (!ccas_slurm_name_parse (l, name, na, sizeof (na), index)) {
        snprintf (why, whysize, "'%s' is not a ccautoscale name (%s<nodearray>-<n>)", name, l->prefix);
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
