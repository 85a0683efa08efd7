/* SPDX-License-Identifier: MIT */
/* node.c: node properties by name. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model/node.h"

static const char *const prop_names[CCAS_PROP_COUNT] = {
    [CCAS_PROP_NAME] = "name",
    [CCAS_PROP_HOSTNAME] = "hostname",
    [CCAS_PROP_NODEARRAY] = "nodearray",
    [CCAS_PROP_VM_SIZE] = "vm_size",
    [CCAS_PROP_VM_FAMILY] = "vm_family",
    [CCAS_PROP_LOCATION] = "location",
    [CCAS_PROP_PLACEMENT_GROUP] = "placement_group",
    [CCAS_PROP_BUCKET_ID] = "bucket_id",
    [CCAS_PROP_NODE_ID] = "node_id",
    [CCAS_PROP_INSTANCE_ID] = "instance_id",
    [CCAS_PROP_PRIVATE_IP] = "private_ip",
    [CCAS_PROP_STATUS] = "status",
    [CCAS_PROP_STATE] = "state",
    [CCAS_PROP_TARGET_STATE] = "target_state",
    [CCAS_PROP_VCPU_COUNT] = "vcpu_count",
    [CCAS_PROP_PCPU_COUNT] = "pcpu_count",
    [CCAS_PROP_CORES_PER_SOCKET] = "cores_per_socket",
    [CCAS_PROP_GPU_COUNT] = "gpu_count",
    [CCAS_PROP_MEMORY] = "memory",
    [CCAS_PROP_INFINIBAND] = "infiniband",
    [CCAS_PROP_SPOT] = "spot",
    [CCAS_PROP_KEEP_ALIVE] = "keep_alive",
    [CCAS_PROP_EXISTS] = "exists",
    [CCAS_PROP_COLOCATED] = "colocated",
    [CCAS_PROP_MANAGED] = "managed",
    [CCAS_PROP_FQDN] = "fqdn",
    [CCAS_PROP_HOSTNAME_OR_UUID] = "hostname_or_uuid",
    [CCAS_PROP_VERSION] = "version",
    [CCAS_PROP_CREATE_TIME] = "create_time",
    [CCAS_PROP_CREATE_TIME_UNIX] = "create_time_unix",
    [CCAS_PROP_CREATE_TIME_REMAINING] = "create_time_remaining",
    [CCAS_PROP_LAST_MATCH_TIME] = "last_match_time",
    [CCAS_PROP_LAST_MATCH_TIME_UNIX] = "last_match_time_unix",
    [CCAS_PROP_DELETE_TIME] = "delete_time",
    [CCAS_PROP_DELETE_TIME_UNIX] = "delete_time_unix",
};

int ccas_node_prop_parse (const char *name)
{
    for (int i = 0; i < CCAS_PROP_COUNT; i++)
        if (strcmp (prop_names[i], name) == 0)
            return i;
    /* scalelib spellings that mean the same thing */
    if (strcmp (name, "machine_type") == 0)
        return CCAS_PROP_VM_SIZE;
    if (strcmp (name, "region") == 0)
        return CCAS_PROP_LOCATION;
    if (strcmp (name, "interruptible") == 0)
        return CCAS_PROP_SPOT;
    return -1;
}

const char *ccas_node_prop_name (enum ccas_node_prop prop)
{
    return prop < CCAS_PROP_COUNT ? prop_names[prop] : "?";
}

/* A uuid-shaped name for a node without a hostname: the same for one node
 * all through a run, different between nodes and between runs. */
static const char *transient_id (const struct ccas_node *n, char *buf, size_t size)
{
    static unsigned long long salt;
    if (!salt)
        salt = ((unsigned long long)time (NULL) << 20) ^ (unsigned long long)rand () ^ 0x9e3779b97f4a7c15ULL;
    unsigned long long h =
        (salt ^ (unsigned long long)n->index * 0xff51afd7ed558ccdULL) * 0xc4ceb9fe1a85ec53ULL;
    snprintf (buf, size, "%08llx-%04llx-4%03llx-8%03llx-%012llx", h >> 32, (h >> 16) & 0xffff, h & 0xfff,
              (salt >> 4) & 0xfff,
              ((unsigned long long)n->index * 0x9e3779b97f4a7c15ULL) & 0xffffffffffffULL);
    return buf;
}

/* As Python's str(datetime.fromtimestamp(t)): local time. */
static const char *local_date (double t, char *buf, size_t size)
{
    time_t secs = (time_t)t;
    struct tm tm;
    if (!localtime_r (&secs, &tm) || strftime (buf, size, "%Y-%m-%d %H:%M:%S", &tm) == 0)
        snprintf (buf, size, "%.0f", t);
    return buf;
}

static bool is_new (const struct ccas_node *n)
{
    return n->kind == CCAS_NODE_NEW;
}

struct ccas_value ccas_node_prop (const struct ccas_node *n, enum ccas_node_prop prop, char *buf, size_t size)
{
    struct ccas_value v;
    switch (prop) {
    case CCAS_PROP_NAME:
        return ccas_value_str (n->name);
    case CCAS_PROP_HOSTNAME:
    case CCAS_PROP_FQDN:
        return ccas_value_str (n->hostname);
    case CCAS_PROP_HOSTNAME_OR_UUID:
        return ccas_value_str (n->hostname ? n->hostname : transient_id (n, buf, size));
    case CCAS_PROP_NODEARRAY:
        return ccas_value_str (n->nodearray);
    case CCAS_PROP_VM_SIZE:
        return ccas_value_str (n->vm_size);
    case CCAS_PROP_VM_FAMILY:
        return ccas_value_str (n->vm_family ? n->vm_family : "unknown");
    case CCAS_PROP_LOCATION:
        return ccas_value_str (n->location);
    case CCAS_PROP_PLACEMENT_GROUP:
        return ccas_value_str (n->placement_group);
    case CCAS_PROP_BUCKET_ID:
        return ccas_value_str (n->bucket_id);
    case CCAS_PROP_NODE_ID:
        return ccas_value_str (n->node_id);
    case CCAS_PROP_INSTANCE_ID:
        return ccas_value_str (n->instance_id);
    case CCAS_PROP_PRIVATE_IP:
        return ccas_value_str (n->private_ip);
    case CCAS_PROP_STATUS:
        return ccas_value_str (is_new (n) ? "Off" : n->status);
    case CCAS_PROP_STATE:
        return ccas_value_str (is_new (n) ? "Off" : n->status);
    case CCAS_PROP_TARGET_STATE:
        return ccas_value_str (is_new (n) ? "Off" : n->target_state);
    case CCAS_PROP_VCPU_COUNT:
        return ccas_value_num (n->vcpu_count);
    case CCAS_PROP_PCPU_COUNT:
        return ccas_value_num (n->pcpu_count);
    case CCAS_PROP_CORES_PER_SOCKET:
        return ccas_value_num (n->cores_per_socket);
    case CCAS_PROP_GPU_COUNT:
        return ccas_value_num (n->gpu_count);
    case CCAS_PROP_MEMORY:
        v = ccas_value_num (n->memory);
        v.size = true;
        return v;
    case CCAS_PROP_INFINIBAND:
        return ccas_value_bool (n->infiniband);
    case CCAS_PROP_SPOT:
        return ccas_value_bool (n->spot);
    case CCAS_PROP_KEEP_ALIVE:
        return ccas_value_bool (n->keep_alive);
    case CCAS_PROP_EXISTS:
        return ccas_value_bool (!is_new (n) && n->target_state && strcmp (n->target_state, "Started") == 0);
    case CCAS_PROP_COLOCATED:
        return ccas_value_bool (n->placement_group != NULL || (is_new (n) && n->colocated));
    case CCAS_PROP_MANAGED:
        return ccas_value_bool (n->managed);
    case CCAS_PROP_VERSION:
        return ccas_value_str ("7.9");
    case CCAS_PROP_CREATE_TIME:
        return ccas_value_str (local_date (n->create_time, buf, size));
    case CCAS_PROP_CREATE_TIME_UNIX:
        return ccas_value_num (n->create_time);
    case CCAS_PROP_CREATE_TIME_REMAINING:
        return ccas_value_num (n->create_time_remaining);
    case CCAS_PROP_LAST_MATCH_TIME:
        return ccas_value_str (local_date (n->last_match_time, buf, size));
    case CCAS_PROP_LAST_MATCH_TIME_UNIX:
        return ccas_value_num (n->last_match_time);
    case CCAS_PROP_DELETE_TIME:
        return ccas_value_str (local_date (n->delete_time, buf, size));
    case CCAS_PROP_DELETE_TIME_UNIX:
        return ccas_value_num (n->delete_time);
    case CCAS_PROP_COUNT:
        break;
    }
    return ccas_value_str (NULL);
}
