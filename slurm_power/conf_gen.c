/* SPDX-License-Identifier: MIT */
/* conf_gen.c: render the Slurm configuration ccautoscale manages. */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf_gen.h"

struct buf {
    char *p;
    size_t len, cap;
    bool oom;
};

static void put (struct buf *b, const char *fmt, ...) __attribute__ ((format (printf, 2, 3)));
static void put (struct buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start (ap, fmt);
    int n = vsnprintf (NULL, 0, fmt, ap);
    va_end (ap);
    if (n < 0 || b->oom)
        return;
    if (b->len + (size_t)n + 1 > b->cap) {
        size_t cap = (b->len + (size_t)n + 1) * 2;
        char *p = realloc (b->p, cap);
        if (!p) {
            b->oom = true;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    va_start (ap, fmt);
    vsnprintf (b->p + b->len, b->cap - b->len, fmt, ap);
    va_end (ap);
    b->len += (size_t)n;
}

static long real_memory_mb (const struct ccas_config *cfg, double memory_gb)
{
    double mb = memory_gb * 1024.0;
    double pct = cfg->slurm.memory_margin_percent;
    double min = cfg->slurm.memory_margin_min_mb;
    double margin = mb * pct / 100.0;
    if (margin < min)
        margin = min;
    double real = floor (mb - margin);
    /* a status answer may claim any size: RealMemory is at most what Slurm's field holds */
    return real > 1 ? (real < 1e15 ? (long)real : (long)1e15) : 1;
}

static const char *partition_of (const struct ccas_config *cfg, const char *nodearray)
{
    const struct ccas_nodearray_config *na = ccas_conf_nodearray (cfg, nodearray);
    return na && na->slurm_partition ? na->slurm_partition : nodearray;
}

static void range_text (const struct ccas_slurm_layout *l, const struct ccas_slurm_range *r, char *buf,
                        size_t size)
{
    if (r->first == r->last)
        snprintf (buf, size, "%s%s-%ld", l->prefix, r->bucket->na->name, r->first);
    else
        snprintf (buf, size, "%s%s-[%ld-%ld]", l->prefix, r->bucket->na->name, r->first, r->last);
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

static void node_line (struct buf *b, const struct ccas_cluster *c, const struct ccas_slurm_layout *l,
                       const struct ccas_slurm_range *r)
{
    const struct ccas_bucket *bk = r->bucket;
    const struct ccas_node *t = &bk->template_node;
    char names[512];
    int vcpu = t->vcpu_count > 0 ? t->vcpu_count : 1;
    int pcpu = t->pcpu_count > 0 && vcpu % t->pcpu_count == 0 ? t->pcpu_count : vcpu;
    range_text (l, r, names, sizeof (names));
    put (b,
         "NodeName=%s State=CLOUD CPUs=%d Boards=1 SocketsPerBoard=1 CoresPerSocket=%d ThreadsPerCore=%d"
         " RealMemory=%ld Feature=%s,%s",
         names, vcpu, pcpu, vcpu / pcpu, real_memory_mb (c->cfg, bk->st->vm.memory_gb), bk->machine_type,
         bk->na->name);
    if (t->gpu_count > 0)
        put (b, " Gres=gpu:%d", t->gpu_count);
    if (c->cfg->slurm.node_port_base) {
        /* every node is on this machine: reachable on loopback, each on its own port */
        put (b, " NodeAddr=127.0.0.1 NodeHostname=localhost");
        long base = c->cfg->slurm.node_port_base + port_offset (c, l, bk->na);
        if (r->last > r->first)
            put (b, " Port=[%ld-%ld]", base + r->first, base + r->last);
        else
            put (b, " Port=%ld", base + r->first);
    }
    put (b, "\n");
}

static void partitions (struct buf *b, const struct ccas_cluster *c, const struct ccas_slurm_layout *l)
{
    const char *dflt = c->cfg->slurm.default_partition;
    bool excl = c->cfg->slurm.exclusive_colocated;
    for (size_t a = 0; a < c->nnodearrays; a++) {
        const struct ccas_nodearray *na = &c->nodearrays[a];
        struct buf nodes = {0};
        for (size_t r = 0; r < l->nranges; r++)
            if (l->ranges[r].bucket->na == na) {
                char names[512];
                range_text (l, &l->ranges[r], names, sizeof (names));
                put (&nodes, "%s%s", nodes.len ? "," : "", names);
            }
        if (!nodes.len)
            continue;
        bool is_default = dflt ? strcmp (dflt, na->name) == 0 : a == 0;
        put (b, "PartitionName=%s Nodes=%s Default=%s State=UP MaxTime=INFINITE%s\n",
             partition_of (c->cfg, na->name), nodes.p, is_default ? "YES" : "NO",
             na->colocated && excl ? " OverSubscribe=EXCLUSIVE" : "");
        free (nodes.p);
    }
}

/* gres.conf's File= for `count` GPUs: slurm.gpu_device_files with its %d
 * as a range ("/dev/nvidia[0-7]").  Every GPU needs one: 25.11 drops a GPU
 * without, and marks a node whose slurmd then reports fewer GPUs than
 * slurm.conf says INVALID.  Returns 0, or -1 with `err` naming the key. */
static int gpu_files (const struct ccas_config *cfg, int count, char *buf, size_t size,
                      struct ccas_error *err)
{
    const char *pat = cfg->slurm.gpu_device_files ? cfg->slurm.gpu_device_files : "/dev/nvidia%d";
    const char *d = strstr (pat, "%d");
    if (!d || strchr (d + 2, '%') || strchr (pat, '%') != d || strpbrk (pat, " \t\n[]"))
        return ccas_errorf (
            err, "slurm.gpu_device_files: '%s': expected a path with one %%d (the GPU's number)", pat);
    int first = cfg->slurm.gpu_device_first;
    if (count == 1)
        snprintf (buf, size, "%.*s%d%s", (int)(d - pat), pat, first, d + 2);
    else
        snprintf (buf, size, "%.*s[%d-%d]%s", (int)(d - pat), pat, first, first + count - 1, d + 2);
    return 0;
}

int ccas_slurm_files_render (const struct ccas_cluster *c, const struct ccas_slurm_layout *l,
                             struct ccas_slurm_files *out, struct ccas_error *err)
{
    struct buf nodes = {0}, gres = {0}, topo = {0};
    bool any_gpu = false;
#define HEADER                                                                                               \
    "# Generated by ccautoscale from CycleCloud cluster '%s'.  Do not edit: run\n"                           \
    "# 'ccautoscale slurm conf --write DIR' again after changing the cluster.\n"
    put (&nodes, HEADER, c->cfg->cluster_name);
    put (&gres, HEADER, c->cfg->cluster_name);
    put (&topo, HEADER, c->cfg->cluster_name);
    for (size_t r = 0; r < l->nranges; r++)
        any_gpu = any_gpu || l->ranges[r].bucket->template_node.gpu_count > 0;
    if (any_gpu)
        put (&nodes, "GresTypes=gpu\n");
    for (size_t r = 0; r < l->nranges; r++) {
        const struct ccas_slurm_range *rg = &l->ranges[r];
        char names[512];
        range_text (l, rg, names, sizeof (names));
        node_line (&nodes, c, l, rg);
        int gpus = rg->bucket->template_node.gpu_count;
        char files[600];
        if (gpus > 0 && gpu_files (c->cfg, gpus, files, sizeof (files), err) < 0) {
            free (nodes.p);
            free (gres.p);
            free (topo.p);
            return -1;
        }
        if (gpus > 0)
            put (&gres, "NodeName=%s Name=gpu Count=%d File=%s\n", names, gpus, files);
        put (&topo, "SwitchName=%s_%s Nodes=%s\n", rg->bucket->na->name, rg->bucket->machine_type, names);
    }
    if (l->nranges) {
        put (&topo, "SwitchName=root Switches=");
        for (size_t r = 0; r < l->nranges; r++)
            put (&topo, "%s%s_%s", r ? "," : "", l->ranges[r].bucket->na->name,
                 l->ranges[r].bucket->machine_type);
        put (&topo, "\n");
    }
    partitions (&nodes, c, l);
    const char *ka = c->cfg->slurm.keepalive_file;
    if (ka && *ka)
        put (&nodes,
             "# KeepAlive nodes (SuspendExcNodes), kept by 'ccautoscale slurm sync':\nInclude %s/%s\n",
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
