/* SPDX-License-Identifier: MIT */
/* conf_gen.c: render the Slurm configuration ccautoscale manages. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf_gen.h"
#include "util/text.h"

static void range_text (const struct ccas_slurm_layout *l, const struct ccas_slurm_range *r, char *buf,
                        size_t size)
{
    char format[300];
    ccas_slurm_name_format (l, r->bucket->na->name, format, sizeof (format));
    int stem = (int)strlen (format) - 2; /* without its "%d" */
    if (r->first == r->last)
        snprintf (buf, size, "%.*s%ld", stem, format, r->first);
    else
        snprintf (buf, size, "%.*s[%ld-%ld]", stem, format, r->first, r->last);
}

/* Nodes of every nodearray share one machine when node_port_base is set, so
 * each nodearray's ports start after the highest index of the ones before it:
 * htc-1 and hpc-1 must not both listen on base+1. */
static long port_offset (const struct ccas_cluster *c, const struct ccas_slurm_layout *l,
                         const struct ccas_nodearray *na)
{
    long offset = 0;
    for (size_t a = 0; a < c->nnodearrays && &c->nodearrays[a] != na; a++) {
        long last = 0;
        for (size_t r = 0; r < l->nranges; r++)
            if (l->ranges[r].bucket->na == &c->nodearrays[a] && l->ranges[r].last > last)
                last = l->ranges[r].last;
        offset += last;
    }
    return offset;
}

static void node_line (struct ccas_text *b, const struct ccas_cluster *c, const struct ccas_slurm_layout *l,
                       const struct ccas_slurm_range *r)
{
    const struct ccas_bucket *bk = r->bucket;
    const struct ccas_slurm_intent *it = ccas_slurm_intent_of (l->intents, c, bk->na);
    const struct ccas_slurm_shape *s = ccas_slurm_shape_of (l->intents, c, bk);
    char names[512];
    range_text (l, r, names, sizeof (names));
    /* Feature=cloud as azslurm writes it (constraints sites wrote keep
     * working), then the machine type, which resolves a name to its bucket */
    ccas_text_printf (
        b,
        "NodeName=%s Feature=cloud,%s,%s State=%s CPUs=%d Boards=1 SocketsPerBoard=1 CoresPerSocket=%d"
        " ThreadsPerCore=%d RealMemory=%ld",
        names, bk->machine_type, bk->na->name, it->autoscale ? "CLOUD" : "FUTURE", s->cpus, s->cores,
        s->threads, s->real_memory_mb);
    if (s->gpus > 0)
        ccas_text_printf (b, " Gres=gpu:%d", s->gpus);
    if (c->cfg->slurm.node_port_base) {
        /* every node is on this machine: reachable on loopback, each on its own port */
        ccas_text_printf (b, " NodeAddr=127.0.0.1 NodeHostname=localhost");
        long base = c->cfg->slurm.node_port_base + port_offset (c, l, bk->na);
        if (r->last > r->first)
            ccas_text_printf (b, " Port=[%ld-%ld]", base + r->first, base + r->last);
        else
            ccas_text_printf (b, " Port=%ld", base + r->first);
    }
    ccas_text_printf (b, "\n");
}

/* `expr` (names and ranges, comma-separated) as Slurm compresses it:
 * "htc-[1-30],htc-[31-60]" is "htc-[1-60]".  Caller frees.  Only called
 * where two ranges of one nodearray meet: ranges of different nodearrays
 * never merge, and one range is already as Slurm prints it. */
static char *compressed (const char *expr)
{
    struct ccas_error err = {""};
    size_t n;
    char **names = ccas_slurm_hostlist_expand (expr, &n, &err);
    if (!names)
        return NULL;
    char *s = ccas_slurm_hostlist_compress ((const char *const *)names, n);
    ccas_slurm_names_free (names, n);
    return s;
}

/* The partitions, by name in the order nodearrays first name them: the
 * ranges of their static nodearrays and the nodesets of their dynamic ones
 * (a nodeset per feature), Default=YES for the default (the first one
 * when no setting names one), DefMemPerCPU the least of their nodes'. */
static void partitions (struct ccas_text *b, const struct ccas_cluster *c, const struct ccas_slurm_layout *l)
{
    const struct ccas_slurm_intents *in = l->intents;
    bool any_default = false;
    for (size_t a = 0; a < in->nna; a++)
        any_default = any_default || (in->na[a].managed && in->na[a].is_default);
    bool default_written = false;
    for (size_t a = 0; a < in->nna; a++) {
        const struct ccas_slurm_intent *first = &in->na[a];
        bool seen = false;
        for (size_t p = 0; p < a && !seen; p++)
            seen = in->na[p].managed && strcmp (in->na[p].partition, first->partition) == 0;
        if (!first->managed || seen)
            continue;
        struct ccas_text nodes = {0}, sets = {0};
        long def_mem = -1;
        bool is_default = false, exclusive = false;
        size_t nsets = 0;
        bool merge = false; /* a nodearray gives several ranges */
        for (size_t m = a; m < in->nna; m++) {
            const struct ccas_slurm_intent *it = &in->na[m];
            if (!it->managed || strcmp (it->partition, first->partition) != 0)
                continue;
            if (it->dynamic_feature[0]) {
                if (!it->autoscale)
                    continue; /* the template's EnableDynamicPartition false */
                bool dup = false;
                for (size_t p = a; p < m && !dup; p++)
                    dup = in->na[p].managed && strcmp (in->na[p].partition, first->partition) == 0 &&
                          strcmp (in->na[p].dynamic_feature, it->dynamic_feature) == 0;
                if (!dup) {
                    char name[300];
                    snprintf (name, sizeof (name), nsets ? "%sns%zu" : "%sns", first->partition, nsets + 1);
                    ccas_text_printf (
                        &sets,
                        "# a dynamic partition: Slurm's dynamic nodes with feature '%s' (nodearray %s)\n"
                        "Nodeset=%s Feature=%s\n",
                        it->dynamic_feature, it->na->name, name, it->dynamic_feature);
                    ccas_text_printf (&nodes, "%s%s", nodes.len ? "," : "", name);
                    nsets++;
                }
            } else
                for (size_t r = 0, mine = 0; r < l->nranges; r++) {
                    if (l->ranges[r].bucket->na != it->na)
                        continue;
                    merge = merge || mine++ > 0;
                    char names[512];
                    const struct ccas_slurm_shape *s = ccas_slurm_shape_of (in, c, l->ranges[r].bucket);
                    range_text (l, &l->ranges[r], names, sizeof (names));
                    ccas_text_printf (&nodes, "%s%s", nodes.len ? "," : "", names);
                    if (def_mem < 0 || s->def_mem_per_cpu < def_mem)
                        def_mem = s->def_mem_per_cpu;
                }
            is_default = is_default || it->is_default;
            exclusive = exclusive || it->exclusive;
        }
        if (!nodes.len || nodes.oom) {
            b->oom = b->oom || nodes.oom || sets.oom;
            free (nodes.p);
            free (sets.p);
            continue;
        }
        if (!any_default && !default_written)
            is_default = true;
        default_written = default_written || is_default;
        char *list = nsets || !merge ? NULL : compressed (nodes.p);
        if (sets.len)
            ccas_text_printf (b, "%s", sets.p);
        ccas_text_printf (b, "PartitionName=%s Nodes=%s Default=%s", first->partition, list ? list : nodes.p,
                          is_default ? "YES" : "NO");
        if (def_mem > 0)
            ccas_text_printf (b, " DefMemPerCPU=%ld", def_mem);
        ccas_text_printf (b, " MaxTime=INFINITE State=UP%s\n", exclusive ? " OverSubscribe=EXCLUSIVE" : "");
        free (list);
        free (nodes.p);
        free (sets.p);
    }
}

/* topology.conf: one switch for each colocated bucket (a job's placement
 * group is made in one bucket), one switch, htc as azslurm names it, for
 * all the other nodes, and a root above them. */
static void topology (struct ccas_text *b, const struct ccas_cluster *c, const struct ccas_slurm_layout *l)
{
    struct ccas_text rest = {0}, switches = {0};
    const struct ccas_nodearray *last = NULL;
    bool merge = false; /* a nodearray gives the rest several ranges (each nodearray's are together) */
    for (size_t r = 0; r < l->nranges; r++) {
        const struct ccas_bucket *bk = l->ranges[r].bucket;
        char names[512];
        range_text (l, &l->ranges[r], names, sizeof (names));
        if (bk->colocated) {
            ccas_text_printf (b, "SwitchName=%s_%s Nodes=%s\n", bk->na->name, bk->machine_type, names);
            ccas_text_printf (&switches, "%s%s_%s", switches.len ? "," : "", bk->na->name, bk->machine_type);
        } else {
            ccas_text_printf (&rest, "%s%s", rest.len ? "," : "", names);
            merge = merge || last == bk->na;
            last = bk->na;
        }
    }
    (void)c;
    if (rest.len) {
        char *list = merge ? compressed (rest.p) : NULL;
        ccas_text_printf (b, "SwitchName=htc Nodes=%s\n", list ? list : rest.p);
        ccas_text_printf (&switches, "%shtc", switches.len ? "," : "");
        free (list);
    }
    if (switches.len)
        ccas_text_printf (b, "SwitchName=root Switches=%s\n", switches.p);
    b->oom = b->oom || rest.oom || switches.oom;
    free (rest.p);
    free (switches.p);
}

int ccas_slurm_files_render (const struct ccas_cluster *c, const struct ccas_slurm_layout *l,
                             struct ccas_slurm_files *out, struct ccas_error *err)
{
    struct ccas_text nodes = {0}, gres = {0}, topo = {0};
    bool any_gpu = false;
    if (l->intents->nerrors)
        return ccas_errorf (err, "%s%s", l->intents->errors[0],
                            l->intents->nerrors > 1 ? " (and more: see 'config check --cluster')" : "");
#define HEADER                                                                                               \
    "# Generated by ccautoscale from CycleCloud cluster '%s'.  Do not edit: run\n"                           \
    "# 'ccautoscale slurm conf --write DIR' again after changing the cluster.\n"
    ccas_text_printf (&nodes, HEADER, c->cfg->cluster_name);
    ccas_text_printf (&gres, HEADER, c->cfg->cluster_name);
    ccas_text_printf (&topo, HEADER, c->cfg->cluster_name);
    for (size_t r = 0; r < l->nranges; r++)
        any_gpu = any_gpu || ccas_slurm_shape_of (l->intents, c, l->ranges[r].bucket)->gpus > 0;
    if (any_gpu)
        ccas_text_printf (&nodes, "GresTypes=gpu\n");
    for (size_t r = 0; r < l->nranges; r++) {
        const struct ccas_slurm_range *rg = &l->ranges[r];
        const struct ccas_slurm_shape *s = ccas_slurm_shape_of (l->intents, c, rg->bucket);
        char names[512];
        range_text (l, rg, names, sizeof (names));
        node_line (&nodes, c, l, rg);
        if (s->gpus > 0)
            ccas_text_printf (&gres, "NodeName=%s Name=gpu Count=%d File=%s\n", names, s->gpus, s->gpu_files);
    }
    topology (&topo, c, l);
    partitions (&nodes, c, l);
    const char *ka = c->cfg->slurm.keepalive_file;
    if (ka && *ka)
        ccas_text_printf (
            &nodes, "# KeepAlive nodes (SuspendExcNodes), kept by 'ccautoscale slurm sync':\nInclude %s/%s\n",
            c->cfg->slurm.conf_dir, ka);
    if (nodes.oom || gres.oom || topo.oom) {
        free (nodes.p);
        free (gres.p);
        free (topo.p);
        return ccas_errorf (err, "out of memory");
    }
    out->nodes = nodes.p;
    out->gres = gres.p;
    out->topology = topo.p;
    return 0;
}

void ccas_slurm_files_release (struct ccas_slurm_files *f)
{
    free (f->nodes);
    free (f->gres);
    free (f->topology);
    memset (f, 0, sizeof (*f));
}

/* Node definitions: the NodeName lines (their order does not matter). */
static bool same_node_lines (const char *a, const char *b)
{
    size_t na = 0, nb = 0;
    if (!a || !b)
        return a == b;
    for (const char *p = a; p && (p = strstr (p, "\nNodeName=")); p++)
        na++;
    for (const char *p = b; p && (p = strstr (p, "\nNodeName=")); p++)
        nb++;
    if (na != nb)
        return false;
    for (const char *p = a; p && (p = strstr (p, "\nNodeName=")); p++) {
        size_t len = strcspn (p + 1, "\n");
        char line[2048];
        snprintf (line, sizeof (line), "\n%.*s\n", (int)len, p + 1);
        if (!strstr (b, line))
            return false;
    }
    return true;
}

int ccas_slurm_change_needs (const char *old_nodes, const char *new_nodes, bool other_changed)
{
    if (!old_nodes)
        return 2;
    if (!same_node_lines (old_nodes, new_nodes))
        return 2;
    if (strcmp (old_nodes, new_nodes) != 0 || other_changed)
        return 1;
    return 0;
}
