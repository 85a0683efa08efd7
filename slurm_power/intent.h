/* SPDX-License-Identifier: MIT */
/* intent.h: what the cluster template says about Slurm, nodearray by
 * nodearray, and where each setting came from.
 *
 * CycleCloud's stock Slurm template (Azure/cyclecloud-slurm 4.x,
 * templates/slurm.txt) states its Slurm settings in each nodearray's
 * Configuration, where azslurm reads them: slurm.node_prefix,
 * slurm.partition, slurm.default_partition, slurm.hpc, slurm.use_pcpu,
 * slurm.dampen_memory, slurm.autoscale, slurm.dynamic_feature (or the
 * Feature= of the older slurm.dynamic_config),
 * slurm.use_nodename_as_hostname and slurm.gpu_device_config; azslurm's
 * autoscale.json adds the slurm_memory and slurm_gpus rules of
 * default_resources.  Each setting comes from ccautoscale's own key when
 * autoscale.json sets it, else from the nodearray's Configuration, else from
 * its default; the source is kept, and `config check --cluster` prints it.
 *
 * Values are read as azslurm reads them: a boolean is true or false, or the
 * word in any case; a number may be written as text.  What cannot work is an
 * error naming the nodearray and the key: a value of the wrong type, a prefix
 * that cannot begin a hostname, a partition name Slurm would not take, a
 * slurm_memory above the VM's memory, two nodearrays naming their nodes
 * alike.  A nodearray ccautoscale does not manage is read but never in
 * error: a login nodearray's settings are not ours to judge.
 *
 * Lifecycle: ccas_slurm_intents_read() -> read the fields ->
 * ccas_slurm_intents_destroy().  Depends on the model; no libslurm.
 */
#ifndef CCAS_SLURM_INTENT_H
#define CCAS_SLURM_INTENT_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

#include "model/cluster.h"

enum ccas_intent_from {
    CCAS_FROM_DEFAULT,
    CCAS_FROM_CONFIG,     /* ccautoscale's autoscale.json */
    CCAS_FROM_TEMPLATE,   /* the nodearray's Configuration in CycleCloud */
    CCAS_FROM_CYCLECLOUD, /* another fact of the status: PlacementGroupId, gpuCount */
    CCAS_FROM_RULE,       /* a default_resources rule of autoscale.json */
};

struct ccas_intent_origin {
    enum ccas_intent_from from;
    char key[128]; /* the key it was read from, or what the default is */
};

/* The settings of a nodearray, each with its origin. */
enum ccas_intent_setting {
    CCAS_SET_PREFIX,
    CCAS_SET_PARTITION,
    CCAS_SET_DEFAULT,
    CCAS_SET_COLOCATED,
    CCAS_SET_EXCLUSIVE,
    CCAS_SET_USE_PCPU,
    CCAS_SET_MEMORY,
    CCAS_SET_AUTOSCALE,
    CCAS_SET_DYNAMIC,
    CCAS_SET_NODE_ADDR,
    CCAS_SET_GPU_FILES,
    CCAS_SET_COUNT
};

/* One nodearray's Slurm settings. */
struct ccas_slurm_intent {
    const struct ccas_nodearray *na; /* borrowed from the model */
    bool managed;                    /* ccas_slurm_nodearray_managed() */
    char prefix[64];                 /* of its node names, made a hostname */
    const char *partition;           /* borrowed from the configuration or the status */
    bool is_default;                 /* its partition is Default=YES */
    bool colocated;                  /* the model's: jobs keep to a placement group */
    bool exclusive;                  /* OverSubscribe=EXCLUSIVE */
    bool use_pcpu;                   /* ThreadsPerCore = vCPUs / cores, else 1 */
    bool autoscale;                  /* false: State=FUTURE (scaled by hand) */
    char dynamic_feature[128];       /* a dynamic partition's feature, or "" */
    bool set_node_addr;              /* sync sets NodeAddr from the VM's address */
    /* RealMemory: the VM's memory less the greater of a share and a floor,
     * or the slurm_memory rule where it defines one (use_rule) */
    double margin_percent;
    double margin_min_mb;
    bool use_rule;
    const char *gpu_device_config; /* slurm.gpu_device_config: gres.conf File= verbatim, or NULL */
    struct ccas_intent_origin origin[CCAS_SET_COUNT];
};

/* What a node of one bucket looks like to Slurm. */
struct ccas_slurm_shape {
    int cpus, cores, threads;
    long real_memory_mb;
    long def_mem_per_cpu; /* RealMemory / CPUs: a job without --mem gets its share */
    int gpus;
    char gpu_files[512]; /* gres.conf File=, "" without GPUs */
    struct ccas_intent_origin memory, gpu_count;
};

struct ccas_slurm_intents {
    struct ccas_slurm_intent *na;   /* one per nodearray of the model, in its order */
    struct ccas_slurm_shape *shape; /* one per bucket of the model, in its order */
    size_t nna, nbuckets;
    char **warnings; /* what works, but not as the file may expect */
    size_t nwarnings;
    char **errors; /* "nodearray 'hpc': Configuration slurm.partition: ..." */
    size_t nerrors;
};

/* Read every nodearray's settings and every bucket's shape from the model
 * `c` (its configuration and status).  Problems go to `errors` and
 * `warnings` (logged at debug level), not to the return value.  Returns
 * the intents (caller frees with ccas_slurm_intents_destroy()), or NULL
 * when out of memory. */
struct ccas_slurm_intents *ccas_slurm_intents_read (const struct ccas_cluster *c);

/* The feature slurmd's -Z arguments give a dynamic node (slurm.dynamic_config,
 * azslurm's older form): the last Feature= token, quotes ignored, up to its
 * first comma; "" when none.  Written to buf, which is returned. */
const char *ccas_slurm_config_feature (const char *args, char *buf, size_t size);
void ccas_slurm_intents_destroy (struct ccas_slurm_intents *in);

/* Add a warning or, with `error`, an error, to those of `in`.  Warnings
 * are logged at debug level only: the programs slurmctld runs would say
 * them at every run (a stock template marks two default partitions); the
 * commands that show the settings print them.  Returns 0, or -1 when out
 * of memory. */
int ccas_slurm_intents_note (struct ccas_slurm_intents *in, bool error, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));

/* The settings of the nodearray `na` of the model; borrowed. */
const struct ccas_slurm_intent *ccas_slurm_intent_of (const struct ccas_slurm_intents *in,
                                                      const struct ccas_cluster *c,
                                                      const struct ccas_nodearray *na);

/* The shape of bucket `b` of the model; borrowed. */
const struct ccas_slurm_shape *ccas_slurm_shape_of (const struct ccas_slurm_intents *in,
                                                    const struct ccas_cluster *c,
                                                    const struct ccas_bucket *b);

/* "autoscale.json slurm.node_prefix", "Configuration slurm.partition",
 * "default (the nodearray's name)".  Returns `buf`. */
const char *ccas_slurm_origin_text (const struct ccas_intent_origin *o, char *buf, size_t size);

/* Everything read, for `config check --cluster`: {"nodearrays": {NAME:
 * {"managed", "settings": {SETTING: {"value", "from"}}, "buckets":
 * {MACHINE TYPE: {...}}}}, "warnings", "errors"}.  Caller puts it; NULL
 * when out of memory. */
json_object *ccas_slurm_intents_json (const struct ccas_slurm_intents *in, const struct ccas_cluster *c);

#endif /* !CCAS_SLURM_INTENT_H */
