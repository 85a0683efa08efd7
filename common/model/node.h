/* SPDX-License-Identifier: MIT */
/* node.h: a node as the matching engine sees it — existing or potential.
 *
 * An existing node comes from CycleCloud's node list, merged with what the
 * scheduler reports (jobs running, resources in use).  A potential node is
 * made from a bucket when the engine decides to create one.  Both carry the
 * same properties (node.vm_size, node.nodearray, ...) and resources (ncpus,
 * mem, ...), so constraints need not know which they look at.
 *
 * Strings are borrowed from the model that owns the node (cluster.h).
 * Resources live in two arrays indexed by resdict id: `res` is what the node
 * has, `avail` what is still free this pass (numbers only).  `res` does not
 * change once the model is built; potential nodes share their bucket's.
 */
#ifndef CCAS_NODE_H
#define CCAS_NODE_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

#include "model/value.h"

struct ccas_bucket;
struct ccas_pg;

/* The node properties constraints and default_resources may name as
 * "node.<name>"; ccas_node_prop_parse() maps the name to this.  They mean
 * what scalelib's do: state is CycleCloud's Status ("Off" for a node not yet
 * created), exists is TargetState Started, vm_family is Azure's family name
 * ("standardFSv2Family", "unknown" when the built-in table does not know the
 * size), colocated holds for a node not yet created in a colocated bucket,
 * version is "7.9"; the *_time properties are local dates, *_time_unix
 * seconds (0 when unknown). */
enum ccas_node_prop {
    CCAS_PROP_NAME,
    CCAS_PROP_HOSTNAME,
    CCAS_PROP_NODEARRAY,
    CCAS_PROP_VM_SIZE,
    CCAS_PROP_VM_FAMILY,
    CCAS_PROP_LOCATION,
    CCAS_PROP_PLACEMENT_GROUP,
    CCAS_PROP_BUCKET_ID,
    CCAS_PROP_NODE_ID,
    CCAS_PROP_INSTANCE_ID,
    CCAS_PROP_PRIVATE_IP,
    CCAS_PROP_STATUS,
    CCAS_PROP_STATE,
    CCAS_PROP_TARGET_STATE,
    CCAS_PROP_VCPU_COUNT,
    CCAS_PROP_PCPU_COUNT,
    CCAS_PROP_CORES_PER_SOCKET,
    CCAS_PROP_GPU_COUNT,
    CCAS_PROP_MEMORY,
    CCAS_PROP_INFINIBAND,
    CCAS_PROP_SPOT,
    CCAS_PROP_KEEP_ALIVE,
    CCAS_PROP_EXISTS,
    CCAS_PROP_COLOCATED,
    CCAS_PROP_MANAGED,
    CCAS_PROP_FQDN,
    CCAS_PROP_HOSTNAME_OR_UUID,
    CCAS_PROP_VERSION,
    CCAS_PROP_CREATE_TIME,
    CCAS_PROP_CREATE_TIME_UNIX,
    CCAS_PROP_CREATE_TIME_REMAINING,
    CCAS_PROP_LAST_MATCH_TIME,
    CCAS_PROP_LAST_MATCH_TIME_UNIX,
    CCAS_PROP_DELETE_TIME,
    CCAS_PROP_DELETE_TIME_UNIX,
    CCAS_PROP_COUNT
};

enum ccas_node_kind {
    CCAS_NODE_READY,   /* Ready with an address */
    CCAS_NODE_BOOTING, /* Acquiring / Preparing / Ready without address */
    CCAS_NODE_STOPPED, /* Deallocated: may be started */
    CCAS_NODE_FAILED,  /* never matched; terminated by scale-down */
    CCAS_NODE_GOING,   /* terminating, or otherwise unusable */
    CCAS_NODE_NEW,     /* potential: to be created this pass */
};

struct ccas_node {
    /* identity and properties (borrowed strings) */
    const char *name;
    const char *hostname;
    const char *node_id;
    const char *instance_id;
    const char *private_ip;
    const char *nodearray;
    const char *vm_size;
    const char *vm_family;
    const char *location;
    const char *placement_group;
    const char *bucket_id;
    const char *status;
    const char *state;
    const char *target_state;
    const char *status_message;
    int vcpu_count;
    int pcpu_count;
    int cores_per_socket;
    int gpu_count;
    double memory; /* bytes */
    bool infiniband;
    bool spot;
    bool keep_alive;
    bool colocated;     /* in a placement group, or (not yet created) made in one */
    bool managed;       /* created by CycleCloud for this cluster */
    double capfail_age; /* potential nodes: seconds since the bucket's last capacity
                         * failure; <0 never or not applicable */
    /* times, Unix seconds (0: unknown): first seen, last given work (or not
     * Ready), gone; boot time left before boot_timeout (-1 once Ready) */
    double create_time, last_match_time, delete_time, create_time_remaining;
    json_object *software_configuration; /* borrowed: the record's (or nodearray's)
                                          * Configuration, or NULL */
    enum ccas_node_kind kind;
    json_object *create_attributes; /* new nodes: the nodeAttributes their create sends (a
                                     * Configuration, ...), borrowed from whoever made the
                                     * node; NULL for none.  Nodes with different attributes
                                     * go in different create sets */
    struct ccas_bucket *bucket;     /* NULL if no bucket matches it */
    struct ccas_pg *pg;             /* NULL outside placement groups */

    /* resources, indexed by resdict id; `nres` may be smaller than the
     * dictionary: ids beyond it are undefined on this node */
    struct ccas_value *res;
    double *avail;
    uint32_t nres;

    /* scheduler view */
    bool busy;           /* jobs run here (never terminated) */
    uint32_t sched_jobs; /* how many */
    bool sched_offline;  /* the scheduler will not place work here */

    /* matching state for one pass */
    uint32_t index;      /* position in the model's node list */
    uint32_t member;     /* position in its placement group's member list */
    uint32_t njobs;      /* jobs given this node in this pass */
    int32_t last_job;    /* index of the last job that took it, -1 none */
    bool exclusive;      /* an exclusive (or exclusive-task) job owns it this pass */
    bool matched;        /* given work this pass (busy or matched) */
    bool boot_timed_out; /* booting past boot_timeout: given no work, terminated */
};

/* "vm_size" (without "node.") -> property; -1 if unknown. */
int ccas_node_prop_parse (const char *name);

/* "vm_size" for CCAS_PROP_VM_SIZE.  Static string. */
const char *ccas_node_prop_name (enum ccas_node_prop prop);

/* True for the properties every node of a bucket shares with the bucket's
 * template node (cluster.c copies them and nothing changes them): nodearray,
 * vm_size, vm_family, bucket_id and the machine type's sizes.  An index may
 * judge these once per bucket instead of once per node. */
static inline bool ccas_node_prop_of_bucket (enum ccas_node_prop prop)
{
    switch (prop) {
    case CCAS_PROP_NODEARRAY:
    case CCAS_PROP_VM_SIZE:
    case CCAS_PROP_VM_FAMILY:
    case CCAS_PROP_BUCKET_ID:
    case CCAS_PROP_VCPU_COUNT:
    case CCAS_PROP_PCPU_COUNT:
    case CCAS_PROP_CORES_PER_SOCKET:
    case CCAS_PROP_GPU_COUNT:
    case CCAS_PROP_MEMORY:
    case CCAS_PROP_INFINIBAND:
        return true;
    default:
        return false;
    }
}

/* The value of a property.  Strings are borrowed from the node, except the
 * ones made on demand (hostname_or_uuid of a node without a hostname, the
 * *_time dates), which are written into `buf` (`size` bytes, 48 is enough):
 * copy them if they must outlive it. */
struct ccas_value ccas_node_prop (const struct ccas_node *n, enum ccas_node_prop prop, char *buf,
                                  size_t size);

/* The node's value of resource `id`: CCAS_V_NONE when undefined. */
static inline const struct ccas_value *ccas_node_res (const struct ccas_node *n, int id)
{
    static const struct ccas_value none = {.type = CCAS_V_NONE};
    return id >= 0 && (uint32_t)id < n->nres ? &n->res[id] : &none;
}

/* True for the states in which a node may be given new work. */
static inline bool ccas_node_usable (const struct ccas_node *n)
{
    return (n->kind == CCAS_NODE_READY || n->kind == CCAS_NODE_BOOTING || n->kind == CCAS_NODE_STOPPED ||
            n->kind == CCAS_NODE_NEW) &&
           !n->boot_timed_out;
}

#endif /* !CCAS_NODE_H */
