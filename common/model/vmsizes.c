/* SPDX-License-Identifier: MIT */
/* vmsizes.c: Azure machine types' family, vCPUs, memory and GPUs, as Azure publishes them. */
#include "config.h"

#include <stdlib.h>
#include <strings.h>

#include "model/vmsizes.h"
#include "util/json.h"

/* Sorted by machine type, case-insensitively (bsearch).  Sources: Azure's
 * size pages ("Sizes for virtual machines in Azure") and `az vm list-skus`
 * (family, vCPUsAvailable, MemoryGB, GPUs, RdmaEnabled).  Fractional-GPU
 * sizes (NVadsA10_v5 below 36 vCPUs) are left out: no whole GPU to schedule. */
static const struct ccas_vmsize table[] = {
    /* clang-format off */
    {"Standard_D16_v3", "standardDv3Family", 16, 64, 0, false},
    {"Standard_D16ads_v5", "standardDADSv5Family", 16, 64, 0, false},
    {"Standard_D16as_v4", "standardDASv4Family", 16, 64, 0, false},
    {"Standard_D16as_v5", "standardDASv5Family", 16, 64, 0, false},
    {"Standard_D16ds_v4", "standardDDSv4Family", 16, 64, 0, false},
    {"Standard_D16ds_v5", "standardDDSv5Family", 16, 64, 0, false},
    {"Standard_D16s_v3", "standardDSv3Family", 16, 64, 0, false},
    {"Standard_D16s_v4", "standardDSv4Family", 16, 64, 0, false},
    {"Standard_D16s_v5", "standardDSv5Family", 16, 64, 0, false},
    {"Standard_D2_v3", "standardDv3Family", 2, 8, 0, false},
    {"Standard_D2ads_v5", "standardDADSv5Family", 2, 8, 0, false},
    {"Standard_D2as_v4", "standardDASv4Family", 2, 8, 0, false},
    {"Standard_D2as_v5", "standardDASv5Family", 2, 8, 0, false},
    {"Standard_D2ds_v4", "standardDDSv4Family", 2, 8, 0, false},
    {"Standard_D2ds_v5", "standardDDSv5Family", 2, 8, 0, false},
    {"Standard_D2s_v3", "standardDSv3Family", 2, 8, 0, false},
    {"Standard_D2s_v4", "standardDSv4Family", 2, 8, 0, false},
    {"Standard_D2s_v5", "standardDSv5Family", 2, 8, 0, false},
    {"Standard_D32_v3", "standardDv3Family", 32, 128, 0, false},
    {"Standard_D32ads_v5", "standardDADSv5Family", 32, 128, 0, false},
    {"Standard_D32as_v4", "standardDASv4Family", 32, 128, 0, false},
    {"Standard_D32as_v5", "standardDASv5Family", 32, 128, 0, false},
    {"Standard_D32ds_v4", "standardDDSv4Family", 32, 128, 0, false},
    {"Standard_D32ds_v5", "standardDDSv5Family", 32, 128, 0, false},
    {"Standard_D32s_v3", "standardDSv3Family", 32, 128, 0, false},
    {"Standard_D32s_v4", "standardDSv4Family", 32, 128, 0, false},
    {"Standard_D32s_v5", "standardDSv5Family", 32, 128, 0, false},
    {"Standard_D48_v3", "standardDv3Family", 48, 192, 0, false},
    {"Standard_D48ads_v5", "standardDADSv5Family", 48, 192, 0, false},
    {"Standard_D48as_v4", "standardDASv4Family", 48, 192, 0, false},
    {"Standard_D48as_v5", "standardDASv5Family", 48, 192, 0, false},
    {"Standard_D48ds_v4", "standardDDSv4Family", 48, 192, 0, false},
    {"Standard_D48ds_v5", "standardDDSv5Family", 48, 192, 0, false},
    {"Standard_D48s_v3", "standardDSv3Family", 48, 192, 0, false},
    {"Standard_D48s_v4", "standardDSv4Family", 48, 192, 0, false},
    {"Standard_D48s_v5", "standardDSv5Family", 48, 192, 0, false},
    {"Standard_D4_v3", "standardDv3Family", 4, 16, 0, false},
    {"Standard_D4ads_v5", "standardDADSv5Family", 4, 16, 0, false},
    {"Standard_D4as_v4", "standardDASv4Family", 4, 16, 0, false},
    {"Standard_D4as_v5", "standardDASv5Family", 4, 16, 0, false},
    {"Standard_D4ds_v4", "standardDDSv4Family", 4, 16, 0, false},
    {"Standard_D4ds_v5", "standardDDSv5Family", 4, 16, 0, false},
    {"Standard_D4s_v3", "standardDSv3Family", 4, 16, 0, false},
    {"Standard_D4s_v4", "standardDSv4Family", 4, 16, 0, false},
    {"Standard_D4s_v5", "standardDSv5Family", 4, 16, 0, false},
    {"Standard_D64_v3", "standardDv3Family", 64, 256, 0, false},
    {"Standard_D64ads_v5", "standardDADSv5Family", 64, 256, 0, false},
    {"Standard_D64as_v4", "standardDASv4Family", 64, 256, 0, false},
    {"Standard_D64as_v5", "standardDASv5Family", 64, 256, 0, false},
    {"Standard_D64ds_v4", "standardDDSv4Family", 64, 256, 0, false},
    {"Standard_D64ds_v5", "standardDDSv5Family", 64, 256, 0, false},
    {"Standard_D64s_v3", "standardDSv3Family", 64, 256, 0, false},
    {"Standard_D64s_v4", "standardDSv4Family", 64, 256, 0, false},
    {"Standard_D64s_v5", "standardDSv5Family", 64, 256, 0, false},
    {"Standard_D8_v3", "standardDv3Family", 8, 32, 0, false},
    {"Standard_D8ads_v5", "standardDADSv5Family", 8, 32, 0, false},
    {"Standard_D8as_v4", "standardDASv4Family", 8, 32, 0, false},
    {"Standard_D8as_v5", "standardDASv5Family", 8, 32, 0, false},
    {"Standard_D8ds_v4", "standardDDSv4Family", 8, 32, 0, false},
    {"Standard_D8ds_v5", "standardDDSv5Family", 8, 32, 0, false},
    {"Standard_D8s_v3", "standardDSv3Family", 8, 32, 0, false},
    {"Standard_D8s_v4", "standardDSv4Family", 8, 32, 0, false},
    {"Standard_D8s_v5", "standardDSv5Family", 8, 32, 0, false},
    {"Standard_D96ads_v5", "standardDADSv5Family", 96, 384, 0, false},
    {"Standard_D96as_v4", "standardDASv4Family", 96, 384, 0, false},
    {"Standard_D96as_v5", "standardDASv5Family", 96, 384, 0, false},
    {"Standard_D96ds_v5", "standardDDSv5Family", 96, 384, 0, false},
    {"Standard_D96s_v5", "standardDSv5Family", 96, 384, 0, false},
    {"Standard_E16_v3", "standardEv3Family", 16, 128, 0, false},
    {"Standard_E16as_v5", "standardEASv5Family", 16, 128, 0, false},
    {"Standard_E16ds_v4", "standardEDSv4Family", 16, 128, 0, false},
    {"Standard_E16ds_v5", "standardEDSv5Family", 16, 128, 0, false},
    {"Standard_E16s_v3", "standardESv3Family", 16, 128, 0, false},
    {"Standard_E16s_v4", "standardESv4Family", 16, 128, 0, false},
    {"Standard_E16s_v5", "standardESv5Family", 16, 128, 0, false},
    {"Standard_E20_v3", "standardEv3Family", 20, 160, 0, false},
    {"Standard_E20as_v5", "standardEASv5Family", 20, 160, 0, false},
    {"Standard_E20ds_v4", "standardEDSv4Family", 20, 160, 0, false},
    {"Standard_E20ds_v5", "standardEDSv5Family", 20, 160, 0, false},
    {"Standard_E20s_v3", "standardESv3Family", 20, 160, 0, false},
    {"Standard_E20s_v4", "standardESv4Family", 20, 160, 0, false},
    {"Standard_E20s_v5", "standardESv5Family", 20, 160, 0, false},
    {"Standard_E2_v3", "standardEv3Family", 2, 16, 0, false},
    {"Standard_E2as_v5", "standardEASv5Family", 2, 16, 0, false},
    {"Standard_E2ds_v4", "standardEDSv4Family", 2, 16, 0, false},
    {"Standard_E2ds_v5", "standardEDSv5Family", 2, 16, 0, false},
    {"Standard_E2s_v3", "standardESv3Family", 2, 16, 0, false},
    {"Standard_E2s_v4", "standardESv4Family", 2, 16, 0, false},
    {"Standard_E2s_v5", "standardESv5Family", 2, 16, 0, false},
    {"Standard_E32_v3", "standardEv3Family", 32, 256, 0, false},
    {"Standard_E32as_v5", "standardEASv5Family", 32, 256, 0, false},
    {"Standard_E32ds_v4", "standardEDSv4Family", 32, 256, 0, false},
    {"Standard_E32ds_v5", "standardEDSv5Family", 32, 256, 0, false},
    {"Standard_E32s_v3", "standardESv3Family", 32, 256, 0, false},
    {"Standard_E32s_v4", "standardESv4Family", 32, 256, 0, false},
    {"Standard_E32s_v5", "standardESv5Family", 32, 256, 0, false},
    {"Standard_E48_v3", "standardEv3Family", 48, 384, 0, false},
    {"Standard_E48as_v5", "standardEASv5Family", 48, 384, 0, false},
    {"Standard_E48ds_v4", "standardEDSv4Family", 48, 384, 0, false},
    {"Standard_E48ds_v5", "standardEDSv5Family", 48, 384, 0, false},
    {"Standard_E48s_v3", "standardESv3Family", 48, 384, 0, false},
    {"Standard_E48s_v4", "standardESv4Family", 48, 384, 0, false},
    {"Standard_E48s_v5", "standardESv5Family", 48, 384, 0, false},
    {"Standard_E4_v3", "standardEv3Family", 4, 32, 0, false},
    {"Standard_E4as_v5", "standardEASv5Family", 4, 32, 0, false},
    {"Standard_E4ds_v4", "standardEDSv4Family", 4, 32, 0, false},
    {"Standard_E4ds_v5", "standardEDSv5Family", 4, 32, 0, false},
    {"Standard_E4s_v3", "standardESv3Family", 4, 32, 0, false},
    {"Standard_E4s_v4", "standardESv4Family", 4, 32, 0, false},
    {"Standard_E4s_v5", "standardESv5Family", 4, 32, 0, false},
    {"Standard_E64_v3", "standardEv3Family", 64, 432, 0, false},
    {"Standard_E64as_v5", "standardEASv5Family", 64, 512, 0, false},
    {"Standard_E64ds_v4", "standardEDSv4Family", 64, 504, 0, false},
    {"Standard_E64ds_v5", "standardEDSv5Family", 64, 512, 0, false},
    {"Standard_E64s_v3", "standardESv3Family", 64, 432, 0, false},
    {"Standard_E64s_v4", "standardESv4Family", 64, 504, 0, false},
    {"Standard_E64s_v5", "standardESv5Family", 64, 512, 0, false},
    {"Standard_E8_v3", "standardEv3Family", 8, 64, 0, false},
    {"Standard_E8as_v5", "standardEASv5Family", 8, 64, 0, false},
    {"Standard_E8ds_v4", "standardEDSv4Family", 8, 64, 0, false},
    {"Standard_E8ds_v5", "standardEDSv5Family", 8, 64, 0, false},
    {"Standard_E8s_v3", "standardESv3Family", 8, 64, 0, false},
    {"Standard_E8s_v4", "standardESv4Family", 8, 64, 0, false},
    {"Standard_E8s_v5", "standardESv5Family", 8, 64, 0, false},
    {"Standard_E96as_v5", "standardEASv5Family", 96, 672, 0, false},
    {"Standard_E96ds_v5", "standardEDSv5Family", 96, 672, 0, false},
    {"Standard_E96s_v5", "standardESv5Family", 96, 672, 0, false},
    {"Standard_F1", "standardFFamily", 1, 2, 0, false},
    {"Standard_F16", "standardFFamily", 16, 32, 0, false},
    {"Standard_F16s", "standardFSFamily", 16, 32, 0, false},
    {"Standard_F16s_v2", "standardFSv2Family", 16, 32, 0, false},
    {"Standard_F1s", "standardFSFamily", 1, 2, 0, false},
    {"Standard_F2", "standardFFamily", 2, 4, 0, false},
    {"Standard_F2s", "standardFSFamily", 2, 4, 0, false},
    {"Standard_F2s_v2", "standardFSv2Family", 2, 4, 0, false},
    {"Standard_F32s_v2", "standardFSv2Family", 32, 64, 0, false},
    {"Standard_F4", "standardFFamily", 4, 8, 0, false},
    {"Standard_F48s_v2", "standardFSv2Family", 48, 96, 0, false},
    {"Standard_F4s", "standardFSFamily", 4, 8, 0, false},
    {"Standard_F4s_v2", "standardFSv2Family", 4, 8, 0, false},
    {"Standard_F64s_v2", "standardFSv2Family", 64, 128, 0, false},
    {"Standard_F72s_v2", "standardFSv2Family", 72, 144, 0, false},
    {"Standard_F8", "standardFFamily", 8, 16, 0, false},
    {"Standard_F8s", "standardFSFamily", 8, 16, 0, false},
    {"Standard_F8s_v2", "standardFSv2Family", 8, 16, 0, false},
    {"Standard_HB120-16rs_v3", "standardHBrsv3Family", 16, 448, 0, true},
    {"Standard_HB120-32rs_v3", "standardHBrsv3Family", 32, 448, 0, true},
    {"Standard_HB120-64rs_v3", "standardHBrsv3Family", 64, 448, 0, true},
    {"Standard_HB120-96rs_v3", "standardHBrsv3Family", 96, 448, 0, true},
    {"Standard_HB120rs_v2", "standardHBrsv2Family", 120, 456, 0, true},
    {"Standard_HB120rs_v3", "standardHBrsv3Family", 120, 448, 0, true},
    {"Standard_HB176-144rs_v4", "standardHBv4Family", 144, 768, 0, true},
    {"Standard_HB176-24rs_v4", "standardHBv4Family", 24, 768, 0, true},
    {"Standard_HB176-48rs_v4", "standardHBv4Family", 48, 768, 0, true},
    {"Standard_HB176-96rs_v4", "standardHBv4Family", 96, 768, 0, true},
    {"Standard_HB176rs_v4", "standardHBv4Family", 176, 768, 0, true},
    {"Standard_HB60rs", "standardHBSFamily", 60, 228, 0, true},
    {"Standard_HC44-16rs", "standardHCSFamily", 16, 352, 0, true},
    {"Standard_HC44-32rs", "standardHCSFamily", 32, 352, 0, true},
    {"Standard_HC44rs", "standardHCSFamily", 44, 352, 0, true},
    {"Standard_HX176-144rs", "standardHXFamily", 144, 1408, 0, true},
    {"Standard_HX176-24rs", "standardHXFamily", 24, 1408, 0, true},
    {"Standard_HX176-48rs", "standardHXFamily", 48, 1408, 0, true},
    {"Standard_HX176-96rs", "standardHXFamily", 96, 1408, 0, true},
    {"Standard_HX176rs", "standardHXFamily", 176, 1408, 0, true},
    {"Standard_NC12", "standardNCFamily", 12, 112, 2, false},
    {"Standard_NC12s_v2", "standardNCSv2Family", 12, 224, 2, false},
    {"Standard_NC12s_v3", "standardNCSv3Family", 12, 224, 2, false},
    {"Standard_NC16as_T4_v3", "standardNCASv3_T4Family", 16, 110, 1, false},
    {"Standard_NC24", "standardNCFamily", 24, 224, 4, false},
    {"Standard_NC24ads_A100_v4", "StandardNCADSA100v4Family", 24, 220, 1, false},
    {"Standard_NC24r", "standardNCFamily", 24, 224, 4, true},
    {"Standard_NC24rs_v2", "standardNCSv2Family", 24, 448, 4, true},
    {"Standard_NC24rs_v3", "standardNCSv3Family", 24, 448, 4, true},
    {"Standard_NC24s_v2", "standardNCSv2Family", 24, 448, 4, false},
    {"Standard_NC24s_v3", "standardNCSv3Family", 24, 448, 4, false},
    {"Standard_NC40ads_H100_v5", "standardNCadsH100v5Family", 40, 320, 1, false},
    {"Standard_NC48ads_A100_v4", "StandardNCADSA100v4Family", 48, 440, 2, false},
    {"Standard_NC4as_T4_v3", "standardNCASv3_T4Family", 4, 28, 1, false},
    {"Standard_NC6", "standardNCFamily", 6, 56, 1, false},
    {"Standard_NC64as_T4_v3", "standardNCASv3_T4Family", 64, 440, 4, false},
    {"Standard_NC6s_v2", "standardNCSv2Family", 6, 112, 1, false},
    {"Standard_NC6s_v3", "standardNCSv3Family", 6, 112, 1, false},
    {"Standard_NC80adis_H100_v5", "standardNCadsH100v5Family", 80, 640, 2, false},
    {"Standard_NC8as_T4_v3", "standardNCASv3_T4Family", 8, 56, 1, false},
    {"Standard_NC96ads_A100_v4", "StandardNCADSA100v4Family", 96, 880, 4, false},
    {"Standard_ND12s", "standardNDSFamily", 12, 224, 2, false},
    {"Standard_ND24rs", "standardNDSFamily", 24, 448, 4, true},
    {"Standard_ND24s", "standardNDSFamily", 24, 448, 4, false},
    {"Standard_ND40rs_v2", "standardNDSv2Family", 40, 672, 8, true},
    {"Standard_ND6s", "standardNDSFamily", 6, 112, 1, false},
    {"Standard_ND96amsr_A100_v4", "standardNDAMSv4_A100Family", 96, 1900, 8, true},
    {"Standard_ND96asr_v4", "standardNDASv4_A100Family", 96, 900, 8, true},
    {"Standard_ND96isr_H100_v5", "standardNDSH100v5Family", 96, 1900, 8, true},
    {"Standard_NV12", "standardNVFamily", 12, 112, 2, false},
    {"Standard_NV12s_v3", "standardNVSv3Family", 12, 112, 1, false},
    {"Standard_NV24", "standardNVFamily", 24, 224, 4, false},
    {"Standard_NV24s_v3", "standardNVSv3Family", 24, 224, 2, false},
    {"Standard_NV36adms_A10_v5", "StandardNVADSA10v5Family", 36, 880, 1, false},
    {"Standard_NV36ads_A10_v5", "StandardNVADSA10v5Family", 36, 440, 1, false},
    {"Standard_NV48s_v3", "standardNVSv3Family", 48, 448, 4, false},
    {"Standard_NV6", "standardNVFamily", 6, 56, 1, false},
    {"Standard_NV72ads_A10_v5", "StandardNVADSA10v5Family", 72, 880, 2, false},
    /* clang-format on */
};

#define NSIZES (sizeof (table) / sizeof (table[0]))

static int cmp_size (const void *key, const void *elem)
{
    return strcasecmp (key, ((const struct ccas_vmsize *)elem)->machine_type);
}

const struct ccas_vmsize *ccas_vmsizes_find (const char *machine_type)
{
    if (!machine_type)
        return NULL;
    return bsearch (machine_type, table, NSIZES, sizeof (table[0]), cmp_size);
}

const char *ccas_vmsizes_family (const char *machine_type)
{
    const struct ccas_vmsize *s = ccas_vmsizes_find (machine_type);
    return s ? s->family : "unknown";
}

int ccas_vmsizes_gpus (const char *machine_type, int reported, json_object *overrides)
{
    json_object *o = machine_type ? ccas_json_get (overrides, machine_type) : NULL;
    /* gpu_counts takes integers, and the configuration accepts 2.0 as one */
    if (o && (json_object_is_type (o, json_type_int) || json_object_is_type (o, json_type_double)))
        return (int)json_object_get_int64 (o);
    const struct ccas_vmsize *s = ccas_vmsizes_find (machine_type);
    return s && s->gpus > reported ? s->gpus : reported;
}

unsigned ccas_vmsizes_count (void)
{
    return (unsigned)NSIZES;
}

const struct ccas_vmsize *ccas_vmsizes_at (unsigned i)
{
    return i < NSIZES ? &table[i] : NULL;
}
