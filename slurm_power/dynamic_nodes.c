/* SPDX-License-Identifier: MIT */
/* dynamic_nodes.c: the dynamic node records ccautoscale makes: names, node lines, bookkeeping. */
#include "config.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dynamic_nodes.h"
#include "util/json.h"

#define DYNAMIC_NODES "slurm_dynamic"
#define STEM_MAX 50

struct ccas_state *ccas_slurm_dynamic_nodes_load (const char *state_dir, struct ccas_error *err)
{
    return ccas_state_load (state_dir, DYNAMIC_NODES, err);
}

/* The state's "nodes" object, made if missing (or not an object). */
static json_object *nodes_of (struct ccas_state *st)
{
    json_object *root = ccas_state_root (st), *nodes = NULL;
    if (!json_object_object_get_ex (root, "nodes", &nodes) ||
        !json_object_is_type (nodes, json_type_object)) {
        nodes = json_object_new_object ();
        json_object_object_add (root, "nodes", nodes);
    }
    return nodes;
}

bool ccas_slurm_dynamic_nodes_ours (struct ccas_state *st, const char *name)
{
    json_object *nodes = NULL;
    return st && json_object_object_get_ex (ccas_state_root (st), "nodes", &nodes) &&
           json_object_object_get_ex (nodes, name, NULL);
}

double ccas_slurm_dynamic_nodes_deleted (struct ccas_state *st)
{
    return st ? ccas_json_double (ccas_state_root (st), "deleted", 0) : 0;
}

const char *ccas_slurm_dynamic_nodes_stem (const struct ccas_config *cfg, const struct ccas_bucket *b,
                                           char *buf, size_t size)
{
    const char *mt = b->machine_type;
    if (strncasecmp (mt, "standard_", 9) == 0)
        mt += 9;
    snprintf (buf, size, "%s%s-", cfg->slurm.node_prefix ? cfg->slurm.node_prefix : "", b->na->name);
    size_t len = strlen (buf);
    for (const char *p = mt; *p && len + 2 < size; p++)
        buf[len++] = isalnum ((unsigned char)*p) ? (char)tolower ((unsigned char)*p) : '-';
    buf[len++] = '-';
    buf[len] = '\0';
    return buf;
}

bool ccas_slurm_dynamic_nodes_stem_ok (const char *stem, char *why, size_t whysize)
{
    size_t len = strlen (stem);
    if (!len || !isalpha ((unsigned char)stem[0])) {
        snprintf (why, whysize, "'%s' does not start with a letter", stem);
        return false;
    }
    if (len > STEM_MAX) {
        snprintf (why, whysize, "'%s' is longer than %d characters (a node name is also a hostname)", stem,
                  STEM_MAX);
        return false;
    }
    for (const char *p = stem; *p; p++)
        if (!isalnum ((unsigned char)*p) && *p != '-') {
            snprintf (why, whysize, "'%s' holds '%c': a node name is also a hostname (letters, digits, '-')",
                      stem, *p);
            return false;
        }
    return true;
}

char **ccas_slurm_dynamic_nodes_names (const struct ccas_slurm_nodes *snodes, const char *stem, size_t count)
{
    long highest = 0;
    size_t slen = strlen (stem);
    for (size_t i = 0; snodes && i < ccas_slurm_nodes_count (snodes); i++) {
        const char *name = ccas_slurm_nodes_at (snodes, i)->name;
        char *end;
        if (strncmp (name, stem, slen) != 0 || !isdigit ((unsigned char)name[slen]))
            continue;
        long n = strtol (name + slen, &end, 10);
        if (!*end && n > highest)
            highest = n;
    }
    char **names = calloc (count + 1, sizeof (*names));
    for (size_t i = 0; names && i < count; i++) {
        char name[128];
        snprintf (name, sizeof (name), "%s%ld", stem, highest + 1 + (long)i);
        if (!(names[i] = strdup (name))) {
            ccas_slurm_names_free (names, i);
            return NULL;
        }
    }
    return names;
}

/* RealMemory as `slurm conf` writes it for the same machine type: the VM's
 * memory less slurm.memory_margin_percent, at least memory_margin_min_mb. */
static long real_memory_mb (const struct ccas_config *cfg, double memory_gb)
{
    double mb = memory_gb * 1024.0;
    double margin = mb * cfg->slurm.memory_margin_percent / 100.0;
    if (margin < cfg->slurm.memory_margin_min_mb)
        margin = cfg->slurm.memory_margin_min_mb;
    double real = floor (mb - margin);
    return real > 1 ? (real < 1e15 ? (long)real : (long)1e15) : 1;
}

long ccas_slurm_dynamic_nodes_port (const struct ccas_config *cfg, const struct ccas_slurm_nodes *snodes)
{
    long port = cfg->slurm.node_port_base;
    for (size_t i = 0; snodes && i < ccas_slurm_nodes_count (snodes); i++)
        if (ccas_slurm_nodes_at (snodes, i)->port > port)
            port = ccas_slurm_nodes_at (snodes, i)->port;
    return port + 1;
}

const char *ccas_slurm_dynamic_nodes_topology (const struct ccas_bucket *b, char *buf, size_t size)
{
    (void)b; /* a dynamic nodearray has no name ranges, so no switch of its own in topology.conf */
    snprintf (buf, size, "default:htc");
    return buf;
}

const char *ccas_slurm_dynamic_nodes_line (const struct ccas_config *cfg, const struct ccas_bucket *b,
                                           const char *feature, const char *hostlist, size_t n,
                                           long port_first, const char *topology, char *buf, size_t size)
{
    const struct ccas_node *t = &b->template_node;
    int vcpu = t->vcpu_count > 0 ? t->vcpu_count : 1;
    int pcpu = t->pcpu_count > 0 && vcpu % t->pcpu_count == 0 ? t->pcpu_count : vcpu;
    int len = snprintf (buf, size,
                        "NodeName=%s State=CLOUD CPUs=%d Boards=1 SocketsPerBoard=1 CoresPerSocket=%d"
                        " ThreadsPerCore=%d RealMemory=%ld Feature=%s,%s",
                        hostlist, vcpu, pcpu, vcpu / pcpu, real_memory_mb (cfg, b->st->vm.memory_gb), feature,
                        b->machine_type);
    if (t->gpu_count > 0 && len > 0 && (size_t)len < size)
        len += snprintf (buf + len, size - (size_t)len, " Gres=gpu:%d", t->gpu_count);
    if (topology && len > 0 && (size_t)len < size)
        len += snprintf (buf + len, size - (size_t)len, " Topology=%s", topology);
    if (cfg->slurm.node_port_base && len > 0 && (size_t)len < size) {
        /* every node on this machine: reachable on loopback, each on its own port */
        if (n > 1)
            snprintf (buf + len, size - (size_t)len,
                      " NodeAddr=127.0.0.1 NodeHostname=localhost Port=[%ld-%ld]", port_first,
                      port_first + (long)n - 1);
        else
            snprintf (buf + len, size - (size_t)len, " NodeAddr=127.0.0.1 NodeHostname=localhost Port=%ld",
                      port_first);
    }
    return buf;
}

int ccas_slurm_dynamic_nodes_remember (const char *state_dir, const struct ccas_bucket *b, char *const *names,
                                       size_t n, double now, struct ccas_error *err)
{
    struct ccas_state *st = ccas_slurm_dynamic_nodes_load (state_dir, err);
    if (!st)
        return -1;
    for (size_t i = 0; i < n; i++) {
        json_object *o = json_object_new_object ();
        json_object_object_add (o, "nodearray", json_object_new_string (b->na->name));
        json_object_object_add (o, "machine_type", json_object_new_string (b->machine_type));
        json_object_object_add (o, "time", json_object_new_double (now));
        json_object_object_add (nodes_of (st), names[i], o);
    }
    int rc = ccas_state_save (st, err);
    ccas_state_destroy (st);
    return rc;
}

int ccas_slurm_dynamic_nodes_forget (const char *state_dir, char *const *names, size_t n, double now,
                                     struct ccas_error *err)
{
    if (!n)
        return 0;
    struct ccas_state *st = ccas_slurm_dynamic_nodes_load (state_dir, err);
    if (!st)
        return -1;
    json_object *nodes = nodes_of (st);
    for (size_t i = 0; i < n; i++)
        json_object_object_del (nodes, names[i]);
    json_object_object_add (ccas_state_root (st), "deleted", json_object_new_double (now));
    int rc = ccas_state_save (st, err);
    ccas_state_destroy (st);
    return rc;
}
