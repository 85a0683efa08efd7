/* SPDX-License-Identifier: MIT */
/* node.c: node properties by name. */
#include "config.h"

#include <string.h>

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

struct ccas_value ccas_node_prop (const struct ccas_node *n, enum ccas_node_prop prop)
{
    struct ccas_value v;
    switch (prop) {
    case CCAS_PROP_NAME:
        return ccas_value_str (n->name);
    case CCAS_PROP_HOSTNAME:
        return ccas_value_str (n->hostname);
    case CCAS_PROP_NODEARRAY:
        return ccas_value_str (n->nodearray);
    case CCAS_PROP_VM_SIZE:
        return ccas_value_str (n->vm_size);
    case CCAS_PROP_VM_FAMILY:
        return ccas_value_str (n->vm_family);
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
        return ccas_value_str (n->status);
    case CCAS_PROP_STATE:
        return ccas_value_str (n->state);
    case CCAS_PROP_TARGET_STATE:
        return ccas_value_str (n->target_state);
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
        return ccas_value_bool (n->kind != CCAS_NODE_NEW);
    case CCAS_PROP_COLOCATED:
        return ccas_value_bool (n->placement_group != NULL);
    case CCAS_PROP_MANAGED:
        return ccas_value_bool (n->managed);
    case CCAS_PROP_COUNT:
        break;
    }
    return ccas_value_str (NULL);
}
