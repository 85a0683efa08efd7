/* SPDX-License-Identifier: MIT */
/* record.c: CycleCloud's node records (PascalCase), one at a time or a list. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ccapi/record.h"
#include "util/json.h"

bool ccas_record_is_ready (const struct ccas_record *n)
{
    return n->status && strcmp (n->status, "Ready") == 0 && n->private_ip && *n->private_ip;
}

bool ccas_record_is_failed (const struct ccas_record *n)
{
    return n->status && strcmp (n->status, "Failed") == 0;
}

bool ccas_record_is_settled (const struct ccas_record *n)
{
    return n->status && n->target_state && strcmp (n->status, n->target_state) == 0;
}

/* Every member of object `want` is in `have` with an equal value; objects
 * inside are judged the same way, anything else by json_object_equal. */
static bool settings_within (json_object *want, json_object *have)
{
    if (!json_object_is_type (want, json_type_object) || !json_object_is_type (have, json_type_object))
        return json_object_equal (want, have) != 0;
    json_object_object_foreach (want, key, value)
    {
        json_object *other = NULL;
        if (!json_object_object_get_ex (have, key, &other) || !settings_within (value, other))
            return false;
    }
    return true;
}

bool ccas_record_made_with (const struct ccas_record *n, json_object *node_attributes)
{
    json_object *want = ccas_json_get (node_attributes, "Configuration");
    if (!want)
        return true;
    return n->raw && settings_within (want, ccas_json_get (n->raw, "Configuration"));
}

int ccas_record_parse (json_object *rec, struct ccas_record *out, struct ccas_error *err)
{
    char brief[64];
    memset (out, 0, sizeof (*out));
    if (!json_object_is_type (rec, json_type_object))
        return ccas_errorf (err, "expected a node record, got %s",
                            ccas_json_brief (rec, brief, sizeof (brief)));
    out->raw = rec;
    out->name = ccas_json_str (rec, "Name");
    if (!out->name)
        return ccas_errorf (err, "Name: missing");
    out->node_id = ccas_json_str (rec, "NodeId");
    out->nodearray = ccas_json_str (rec, "Template");
    out->machine_type = ccas_json_str (rec, "MachineType");
    out->status = ccas_json_str (rec, "Status");
    out->target_state = ccas_json_str (rec, "TargetState");
    out->state = ccas_json_str (rec, "State");
    out->status_message = ccas_json_str (rec, "StatusMessage");
    out->hostname = ccas_json_str (rec, "Hostname");
    out->private_ip = ccas_json_str (rec, "PrivateIp");
    out->instance_id = ccas_json_str (rec, "InstanceId");
    out->region = ccas_json_str (rec, "Region");
    out->placement_group_id = ccas_json_str (rec, "PlacementGroupId");
    out->shutdown_policy = ccas_json_str (rec, "ShutdownPolicy");
    out->keep_alive = ccas_json_bool (rec, "KeepAlive", false);
    out->interruptible = ccas_json_bool (rec, "Interruptible", false);
    out->fixed = ccas_json_bool (rec, "Fixed", false);
    out->core_count = (int)ccas_json_int (rec, "CoreCount", 0);
    out->memory_gb = ccas_json_double (rec, "Memory", 0);
    if (out->placement_group_id && !*out->placement_group_id)
        out->placement_group_id = NULL;
    return 0;
}

int ccas_record_parse_array (json_object *arr, const char *path, struct ccas_record **out, size_t *n,
                             struct ccas_error *err)
{
    size_t len = json_object_array_length (arr);
    struct ccas_record *v = calloc (len + 1, sizeof (*v));
    if (!v)
        return ccas_errorf (err, "%s: out of memory", path);
    for (size_t i = 0; i < len; i++)
        if (ccas_record_parse (json_object_array_get_idx (arr, i), &v[i], err) < 0) {
            ccas_error_prefix (err, "%s[%zu]", path, i);
            free (v);
            return -1;
        }
    *out = v;
    *n = len;
    return 0;
}

struct ccas_record_list *ccas_record_list_from_json (json_object *root, struct ccas_error *err)
{
    char brief[64];
    struct ccas_record_list *list = calloc (1, sizeof (*list));
    json_object *arr = root;
    if (!list) {
        json_object_put (root);
        ccas_errorf (err, "out of memory");
        return NULL;
    }
    list->root = root;
    if (json_object_is_type (root, json_type_object)) {
        arr = ccas_json_get (root, "nodes");
        json_object *op = ccas_json_get (root, "operation");
        list->operation_id = ccas_json_str (op, "id");
        if (!list->operation_id)
            list->operation_id = ccas_json_str (root, "operationId");
    }
    if (!arr) {
        ccas_errorf (err, "nodes: missing");
        ccas_record_list_destroy (list);
        return NULL;
    }
    if (!json_object_is_type (arr, json_type_array)) {
        ccas_errorf (err, "nodes: expected an array of node records, got %s",
                     ccas_json_brief (arr, brief, sizeof (brief)));
        ccas_record_list_destroy (list);
        return NULL;
    }
    if (ccas_record_parse_array (arr, "nodes", &list->nodes, &list->nnodes, err) < 0) {
        ccas_record_list_destroy (list);
        return NULL;
    }
    return list;
}

void ccas_record_list_destroy (struct ccas_record_list *list)
{
    if (!list)
        return;
    free (list->nodes);
    json_object_put (list->root);
    free (list);
}
