/* SPDX-License-Identifier: MIT */
/* gputable.c: the built-in GPU counts of Azure GPU machine types. */
#include "config.h"

#include <string.h>
#include <strings.h>

#include "model/gputable.h"
#include "util/json.h"

static const struct {
    const char *machine_type;
    int gpus;
} gpu_table[] = {
    {"Standard_NC6", 1},
    {"Standard_NC12", 2},
    {"Standard_NC24", 4},
    {"Standard_NC24r", 4},
    {"Standard_NC6s_v2", 1},
    {"Standard_NC12s_v2", 2},
    {"Standard_NC24s_v2", 4},
    {"Standard_NC24rs_v2", 4},
    {"Standard_NC6s_v3", 1},
    {"Standard_NC12s_v3", 2},
    {"Standard_NC24s_v3", 4},
    {"Standard_NC24rs_v3", 4},
    {"Standard_NC4as_T4_v3", 1},
    {"Standard_NC8as_T4_v3", 1},
    {"Standard_NC16as_T4_v3", 1},
    {"Standard_NC64as_T4_v3", 4},
    {"Standard_NC24ads_A100_v4", 1},
    {"Standard_NC48ads_A100_v4", 2},
    {"Standard_NC96ads_A100_v4", 4},
    {"Standard_NC40ads_H100_v5", 1},
    {"Standard_NC80adis_H100_v5", 2},
    {"Standard_ND6s", 1},
    {"Standard_ND12s", 2},
    {"Standard_ND24s", 4},
    {"Standard_ND24rs", 4},
    {"Standard_ND40rs_v2", 8},
    {"Standard_ND96asr_v4", 8},
    {"Standard_ND96amsr_A100_v4", 8},
    {"Standard_ND96isr_H100_v5", 8},
    {"Standard_ND96isr_H200_v5", 8},
    {"Standard_ND96isr_MI300X_v5", 8},
    {"Standard_NV6", 1},
    {"Standard_NV12", 2},
    {"Standard_NV24", 4},
    {"Standard_NV12s_v3", 1},
    {"Standard_NV24s_v3", 2},
    {"Standard_NV48s_v3", 4},
    {"Standard_NV36ads_A10_v5", 1},
    {"Standard_NV36adms_A10_v5", 1},
    {"Standard_NV72ads_A10_v5", 2},
};

int ccas_gputable_count (const char *machine_type, int reported, json_object *overrides)
{
    if (!machine_type)
        return reported;
    json_object *o = ccas_json_get (overrides, machine_type);
    /* gpu_counts takes integers, and the configuration accepts 2.0 as one */
    if (o && (json_object_is_type (o, json_type_int) || json_object_is_type (o, json_type_double)))
        return (int)json_object_get_int64 (o);
    if (reported > 0)
        return reported;
    for (size_t i = 0; i < sizeof (gpu_table) / sizeof (gpu_table[0]); i++)
        if (strcasecmp (gpu_table[i].machine_type, machine_type) == 0)
            return gpu_table[i].gpus;
    return reported;
}
