/* SPDX-License-Identifier: MIT */
/* test_intent.c: the Slurm settings of each nodearray (intent.c) — read
 * from the stock Slurm template's Configuration (tests/data/
 * stock-slurm-cluster.json: hpc, htc, gpu, dynamic and login as
 * templates/slurm.txt of cyclecloud-slurm 4.0.9 makes them), ccautoscale's
 * own keys before them, the defaults after; each source told; values read
 * as azslurm reads them; every rule of memory (dampen_memory, slurm_memory,
 * the margin), GPUs (slurm_gpus, NVIDIA and AMD device files,
 * gpu_device_config) and threads (use_pcpu); bad input first refused with
 * the nodearray and the key named, and left alone where ccautoscale does not
 * manage the nodearray.  No slurmctld. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "intent.h"
#include "model/test/fixture.h"

struct world {
    struct ccas_config *cfg;
    struct ccas_cluster *c;
    struct ccas_slurm_intents *in;
};

static void world_make (struct world *w, const char *file, const char *config, const char *patch)
{
    w->cfg = fx_config (config);
    w->c = fx_cluster (w->cfg, file, patch, NULL);
    w->in = ccas_slurm_intents_read (w->c);
    assert_non_null (w->in);
}

static void world_free (struct world *w)
{
    ccas_slurm_intents_destroy (w->in);
    ccas_cluster_destroy (w->c);
    ccas_conf_destroy (w->cfg);
}

static const struct ccas_slurm_intent *na_of (const struct world *w, const char *name)
{
    for (size_t i = 0; i < w->c->nnodearrays; i++)
        if (strcmp (w->c->nodearrays[i].name, name) == 0)
            return ccas_slurm_intent_of (w->in, w->c, &w->c->nodearrays[i]);
    fail_msg ("no nodearray %s", name);
    return NULL;
}

static const struct ccas_slurm_shape *shape (const struct world *w, const char *na, const char *mt)
{
    return ccas_slurm_shape_of (w->in, w->c, fx_bucket (w->c, na, mt));
}

static void assert_from (const struct ccas_intent_origin *o, const char *want)
{
    char text[256];
    ccas_slurm_origin_text (o, text, sizeof (text));
    if (strcmp (text, want) != 0)
        fail_msg ("from '%s', want '%s'", text, want);
}

static const char *all (char **list, size_t n, char *buf, size_t size)
{
    buf[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen (buf);
        snprintf (buf + len, size - len, "%s%s", i ? " | " : "", list[i]);
    }
    return buf;
}

static void assert_no_errors (const struct world *w)
{
    char text[4096];
    if (w->in->nerrors)
        fail_msg ("errors: %s", all (w->in->errors, w->in->nerrors, text, sizeof (text)));
}

/* The stock template as it is: its names, partitions and rules, each
 * from the nodearray's Configuration, with no key of ccautoscale's. */
static void test_stock_template (void **state)
{
    (void)state;
    struct world w;
    char text[4096];
    world_make (&w, "stock-slurm-cluster.json", NULL, NULL);
    assert_no_errors (&w);
    static const struct {
        const char *na, *partition;
        bool is_default, colocated, use_pcpu;
        const char *dynamic;
    } want[] = {
        {"hpc", "hpc", false, true, true, ""},
        {"htc", "htc", false, false, false, ""},
        {"gpu", "gpu", true, true, true, ""},
        {"dynamic", "dynamic", false, false, false, "dyn"},
    };
    for (size_t i = 0; i < sizeof (want) / sizeof (want[0]); i++) {
        const struct ccas_slurm_intent *it = na_of (&w, want[i].na);
        assert_true (it->managed);
        assert_string_equal (it->prefix, "mycluster-");
        assert_from (&it->origin[CCAS_SET_PREFIX], "Configuration slurm.node_prefix");
        assert_string_equal (it->partition, want[i].partition);
        if (want[i].is_default != it->is_default || want[i].colocated != it->colocated ||
            want[i].use_pcpu != it->use_pcpu || strcmp (it->dynamic_feature, want[i].dynamic) != 0)
            fail_msg ("%s: default %d colocated %d use_pcpu %d dynamic '%s'", want[i].na, it->is_default,
                      it->colocated, it->use_pcpu, it->dynamic_feature);
        assert_false (it->exclusive); /* slurm.hpc partitions share nodes, as under azslurm */
        assert_true (it->autoscale);
        assert_false (it->set_node_addr); /* use_nodename_as_hostname: names resolve */
        assert_from (&it->origin[CCAS_SET_NODE_ADDR], "Configuration slurm.use_nodename_as_hostname");
        assert_from (&it->origin[CCAS_SET_DEFAULT], "Configuration slurm.default_partition");
    }
    assert_from (&na_of (&w, "hpc")->origin[CCAS_SET_PARTITION], "Configuration slurm.partition");
    assert_from (&na_of (&w, "dynamic")->origin[CCAS_SET_PARTITION], "default (the nodearray's name)");
    assert_from (&na_of (&w, "hpc")->origin[CCAS_SET_COLOCATED], "Configuration slurm.hpc");
    assert_from (&na_of (&w, "hpc")->origin[CCAS_SET_USE_PCPU], "default (true)");
    assert_from (&na_of (&w, "htc")->origin[CCAS_SET_USE_PCPU], "Configuration slurm.use_pcpu");
    assert_from (&na_of (&w, "dynamic")->origin[CCAS_SET_DYNAMIC], "Configuration slurm.dynamic_feature");
    assert_false (na_of (&w, "login")->managed);
    /* hpc and gpu both say default_partition: Slurm takes the last */
    assert_string_equal (
        all (w.in->warnings, w.in->nwarnings, text, sizeof (text)),
        "Configuration slurm.default_partition is true on nodearrays 'hpc', 'gpu': Slurm makes"
        " the last one its default, and so does ccautoscale ('gpu')");

    /* F2s_v2: 2 vCPUs on 1 core, 4 GiB: 4096 - 1024 MB */
    const struct ccas_slurm_shape *s = shape (&w, "hpc", "Standard_F2s_v2");
    assert_int_equal (s->cpus, 2);
    assert_int_equal (s->threads, 2);
    assert_int_equal (s->cores, 1);
    assert_int_equal (s->real_memory_mb, 3072);
    assert_int_equal (s->def_mem_per_cpu, 1536);
    assert_int_equal (s->gpus, 0);
    assert_from (&s->memory, "default (5%, at least 1024 MB, or the slurm_memory rule)");
    s = shape (&w, "htc", "Standard_F2s_v2");
    assert_int_equal (s->threads, 1);
    assert_int_equal (s->cores, 2);
    /* NC24rs_v3: 448 GiB less 5 %; four V100 */
    s = shape (&w, "gpu", "Standard_NC24rs_v3");
    assert_int_equal (s->real_memory_mb, 435814);
    assert_int_equal (s->def_mem_per_cpu, 18158);
    assert_int_equal (s->gpus, 4);
    assert_string_equal (s->gpu_files, "/dev/nvidia[0-3]");
    assert_from (&s->gpu_count, "CycleCloud gpuCount");
    world_free (&w);
}

/* ccautoscale's own keys come first, and say so. */
static void test_own_keys_first (void **state)
{
    (void)state;
    struct world w;
    world_make (
        &w, "stock-slurm-cluster.json",
        "{\"slurm\": {\"node_prefix\": \"cc-\", \"default_partition\": \"htc\", \"set_node_addr\": true,"
        " \"memory_margin_percent\": 10, \"exclusive_colocated\": true,"
        " \"gpu_device_files\": \"/dev/gpu%d\", \"gpu_device_first\": 2},"
        " \"nodearrays\": {\"hpc\": {\"slurm_partition\": \"fast\", \"colocated\": false},"
        " \"htc\": {\"colocated\": true}}}",
        NULL);
    assert_no_errors (&w);
    const struct ccas_slurm_intent *hpc = na_of (&w, "hpc"), *htc = na_of (&w, "htc"),
                                   *gpu = na_of (&w, "gpu");
    assert_string_equal (hpc->prefix, "cc-");
    assert_from (&hpc->origin[CCAS_SET_PREFIX], "autoscale.json slurm.node_prefix");
    assert_string_equal (hpc->partition, "fast");
    assert_from (&hpc->origin[CCAS_SET_PARTITION], "autoscale.json nodearrays.hpc.slurm_partition");
    assert_false (hpc->colocated);
    assert_from (&hpc->origin[CCAS_SET_COLOCATED], "autoscale.json nodearrays.hpc.colocated");
    assert_true (htc->colocated);
    assert_true (htc->exclusive);
    assert_from (&htc->origin[CCAS_SET_EXCLUSIVE], "autoscale.json slurm.exclusive_colocated");
    assert_true (gpu->exclusive); /* the site asked for it even over slurm.hpc */
    assert_true (htc->is_default);
    assert_false (gpu->is_default);
    assert_from (&gpu->origin[CCAS_SET_DEFAULT], "autoscale.json slurm.default_partition");
    assert_true (hpc->set_node_addr);
    assert_from (&hpc->origin[CCAS_SET_NODE_ADDR], "autoscale.json slurm.set_node_addr");
    /* 10 % of 4096 is less than the floor of 1024 */
    assert_int_equal (shape (&w, "hpc", "Standard_F2s_v2")->real_memory_mb, 3072);
    assert_from (&shape (&w, "hpc", "Standard_F2s_v2")->memory,
                 "autoscale.json slurm.memory_margin_percent 10, at least 1024 MB");
    assert_int_equal (shape (&w, "gpu", "Standard_NC24rs_v3")->real_memory_mb, 412876);
    assert_string_equal (shape (&w, "gpu", "Standard_NC24rs_v3")->gpu_files, "/dev/gpu[2-5]");
    assert_int_equal (w.in->nwarnings, 0);
    world_free (&w);
}

/* No setting anywhere: the defaults, said to be defaults. */
static void test_defaults (void **state)
{
    (void)state;
    struct world w;
    world_make (&w, "cluster-status.json", NULL, NULL);
    assert_no_errors (&w);
    const struct ccas_slurm_intent *htc = na_of (&w, "htc"), *hpc = na_of (&w, "hpc");
    assert_string_equal (htc->prefix, "");
    assert_from (&htc->origin[CCAS_SET_PREFIX], "default (none)");
    assert_string_equal (htc->partition, "htc");
    assert_false (htc->is_default); /* conf_gen makes the first partition it writes the default */
    assert_from (&htc->origin[CCAS_SET_DEFAULT], "default (the first partition written)");
    assert_true (hpc->colocated); /* InfiniBand */
    assert_true (hpc->exclusive);
    assert_from (&hpc->origin[CCAS_SET_COLOCATED], "default (InfiniBand machine types)");
    assert_from (&na_of (&w, "login")->origin[CCAS_SET_COLOCATED], "CycleCloud PlacementGroupId");
    assert_true (htc->set_node_addr);
    assert_true (htc->use_pcpu);
    assert_true (htc->autoscale);
    assert_string_equal (htc->dynamic_feature, "");
    assert_int_equal (shape (&w, "htc", "Standard_F4s_v2")->threads, 2);
    assert_int_equal (shape (&w, "htc", "Standard_F4s_v2")->real_memory_mb, 7168);
    world_free (&w);
}

#define HPC_CONF(fields)                                                                                     \
    "{\"hpc.nodearray\": {\"Configuration\": {\"autoscale\": {\"enabled\": true}, " fields "}}}"

/* Read as azslurm reads them: booleans as the word in any case, numbers as
 * text, the keys nested or dotted, null as absent; the older
 * slurm.dynamic_config's last Feature=, its first feature naming the
 * nodeset; a prefix with characters a hostname cannot hold made one. */
static void test_values_as_azslurm_reads (void **state)
{
    (void)state;
    struct world w;
    world_make (
        &w, "cluster-status.json", NULL,
        HPC_CONF ("\"slurm\": {\"use_pcpu\": \"FALSE\", \"autoscale\": \"false\", \"hpc\": \"True\","
                  " \"dampen_memory\": \"25\", \"partition\": null, \"node_prefix\": \"My_Cluster.x-\","
                  " \"dynamic_config\": \"-Z --conf \\\"Feature=first\\\" Feature=mydyn,other\"}"));
    assert_no_errors (&w);
    const struct ccas_slurm_intent *hpc = na_of (&w, "hpc");
    assert_false (hpc->use_pcpu);
    assert_false (hpc->autoscale);
    assert_true (hpc->colocated);
    assert_string_equal (hpc->partition, "hpc");
    assert_string_equal (hpc->prefix, "My-Cluster-x-");
    assert_string_equal (hpc->dynamic_feature, "mydyn");
    assert_from (&hpc->origin[CCAS_SET_DYNAMIC], "Configuration slurm.dynamic_config");
    assert_int_equal (w.in->nwarnings, 1);
    assert_string_equal (w.in->warnings[0],
                         "nodearray 'hpc': Configuration slurm.node_prefix 'My_Cluster.x-' made a hostname: "
                         "'My-Cluster-x-'");
    /* HB120rs_v3's 456 GiB less 25 % */
    assert_int_equal (shape (&w, "hpc", "Standard_HB120rs_v3")->real_memory_mb, 350208);
    assert_from (&shape (&w, "hpc", "Standard_HB120rs_v3")->memory,
                 "Configuration slurm.dampen_memory 25%, at least 1024 MB");
    world_free (&w);

    world_make (&w, "cluster-status.json", NULL,
                HPC_CONF ("\"slurm.partition\": \"dotted\", \"slurm.dampen_memory\": 0.1,"
                          " \"slurm.dynamic_feature\": \"a,b\""));
    assert_no_errors (&w);
    assert_string_equal (na_of (&w, "hpc")->partition, "dotted");
    assert_string_equal (na_of (&w, "hpc")->dynamic_feature, "a");
    /* 0.1 %: the floor of 1024 MB */
    assert_int_equal (shape (&w, "hpc", "Standard_HB120rs_v3")->real_memory_mb, 465920);
    world_free (&w);
}

/* Memory: the slurm_memory rule where it defines one, dampen_memory over
 * it (with a warning, as azslurm), the site's margin over both; never
 * above the VM, at least 1 GiB where the VM has it.  GPUs: the slurm_gpus
 * rule over the VM's count; device files by vendor, or as the template's
 * slurm.gpu_device_config says. */
static void test_memory_and_gpus (void **state)
{
    (void)state;
    struct world w;
    static const char rules[] =
        "{\"default_resources\": [{\"select\": {\"node.nodearray\": \"hpc\"}, \"name\": \"slurm_memory\","
        " \"value\": \"memory::400g\"}, {\"select\": {\"node.vm_size\": \"Standard_F4s_v2\"}, \"name\":"
        " \"slurm_memory\", \"value\": \"node.memory\"}, {\"select\": {\"node.nodearray\": \"login\"},"
        " \"name\": \"slurm_gpus\", \"value\": 2}, {\"select\": {}, \"name\": \"slurm_gpus\", \"value\":"
        " \"node.gpu_count\"}]}";
    world_make (&w, "cluster-status.json", rules,
                "{\"login/Standard_D2s_v3\": {\"virtualMachine\": {\"vcpuCount\": 2, \"gpuCount\": 4,"
                " \"memory\": 0.5}}}");
    assert_no_errors (&w);
    assert_int_equal (shape (&w, "hpc", "Standard_HB120rs_v3")->real_memory_mb, 409600);
    assert_from (&shape (&w, "hpc", "Standard_HB120rs_v3")->memory,
                 "autoscale.json default_resources slurm_memory 400g");
    assert_int_equal (shape (&w, "htc", "Standard_F4s_v2")->real_memory_mb, 8192); /* the whole VM */
    assert_int_equal (shape (&w, "htc", "Standard_F2s_v2")->real_memory_mb, 3072);
    /* 512 MB: no 1 GiB floor where the VM has less (1 MB, never 0); slurm_gpus 2 over gpuCount 4 */
    const struct ccas_slurm_shape *login = shape (&w, "login", "Standard_D2s_v3");
    assert_int_equal (login->real_memory_mb, 1);
    assert_int_equal (login->gpus, 2);
    assert_string_equal (login->gpu_files, "/dev/nvidia[0-1]");
    assert_from (&login->gpu_count, "autoscale.json default_resources slurm_gpus");
    world_free (&w);

    /* dampen_memory over the rule, with azslurm's warning */
    world_make (&w, "cluster-status.json", rules, HPC_CONF ("\"slurm\": {\"dampen_memory\": 50}"));
    assert_no_errors (&w);
    assert_int_equal (shape (&w, "hpc", "Standard_HB120rs_v3")->real_memory_mb, 233472);
    assert_int_equal (w.in->nwarnings, 1);
    assert_string_equal (
        w.in->warnings[0],
        "nodearray 'hpc': Configuration slurm.dampen_memory is set, so the slurm_memory rule "
        "of default_resources is not used (as under azslurm)");
    world_free (&w);

    /* AMD MI300X: render nodes 128, 136 ...; one GPU; the template's own files */
    world_make (
        &w, "cluster-status.json", "{\"nodearrays\": {\"gpu\": {\"enabled\": true}}}",
        "{\"gpu/Standard_NC24ads_A100_v4\": {\"definition\": {\"machineType\": "
        "\"Standard_ND96isr_MI300X_v5\"},"
        " \"virtualMachine\": {\"vcpuCount\": 96, \"gpuCount\": 8, \"memory\": 1850}},"
        " \"hpc/Standard_HB120rs_v3\": {\"virtualMachine\": {\"vcpuCount\": 120, \"gpuCount\": 1,"
        " \"memory\": 456}}, \"htc/Standard_F2s_v2\": {\"definition\": {\"machineType\": "
        "\"Standard_X_mi300\"},"
        " \"virtualMachine\": {\"vcpuCount\": 2, \"gpuCount\": 1, \"memory\": 4}},"
        " \"htc/Standard_F4s_v2\": {\"virtualMachine\": {\"vcpuCount\": 4, \"gpuCount\": 2, \"memory\": 8}},"
        " \"htc.nodearray\": {\"Configuration\": {\"slurm\": {\"gpu_device_config\": \"/dev/my[0-1]\"}}}}");
    assert_no_errors (&w);
    assert_string_equal (shape (&w, "gpu", "Standard_ND96isr_MI300X_v5")->gpu_files,
                         "/dev/dri/renderD[128,136,144,152,160,168,176,184]");
    assert_string_equal (shape (&w, "hpc", "Standard_HB120rs_v3")->gpu_files, "/dev/nvidia0");
    assert_string_equal (shape (&w, "htc", "Standard_X_mi300")->gpu_files, "/dev/my[0-1]");
    assert_string_equal (shape (&w, "htc", "Standard_F4s_v2")->gpu_files, "/dev/my[0-1]");
    assert_from (&na_of (&w, "htc")->origin[CCAS_SET_GPU_FILES], "Configuration slurm.gpu_device_config");
    world_free (&w);
    world_make (
        &w, "cluster-status.json", "{\"nodearrays\": {\"gpu\": {\"enabled\": true}}}",
        "{\"gpu/Standard_NC24ads_A100_v4\": {\"definition\": {\"machineType\": \"Standard_MI300_one\"},"
        " \"virtualMachine\": {\"vcpuCount\": 8, \"gpuCount\": 1, \"memory\": 64}}}");
    assert_string_equal (shape (&w, "gpu", "Standard_MI300_one")->gpu_files, "/dev/dri/renderD128");
    world_free (&w);
}

/* What cannot work: an error naming the nodearray and the key, whatever
 * else is right; nothing of the kind where the nodearray is not managed. */
static void test_bad_input (void **state)
{
    (void)state;
    static const struct {
        const char *config, *patch, *error;
    } cases[] = {
        {NULL, HPC_CONF ("\"slurm\": {\"partition\": 5}"),
         "nodearray 'hpc': Configuration slurm.partition: expected a string, got 5"},
        {NULL, HPC_CONF ("\"slurm\": {\"hpc\": \"yes\"}"),
         "nodearray 'hpc': Configuration slurm.hpc: expected true or false, got \"yes\""},
        {NULL, HPC_CONF ("\"slurm\": {\"use_pcpu\": 1}"),
         "nodearray 'hpc': Configuration slurm.use_pcpu: expected true or false, got 1"},
        {NULL, HPC_CONF ("\"slurm\": {\"autoscale\": []}"),
         "nodearray 'hpc': Configuration slurm.autoscale: expected true or false, got []"},
        {NULL, HPC_CONF ("\"slurm\": {\"default_partition\": \"on\"}"),
         "nodearray 'hpc': Configuration slurm.default_partition: expected true or false, got \"on\""},
        {NULL, HPC_CONF ("\"slurm\": {\"use_nodename_as_hostname\": {}}"),
         "nodearray 'hpc': Configuration slurm.use_nodename_as_hostname: expected true or false, got {}"},
        {NULL, HPC_CONF ("\"slurm\": {\"node_prefix\": false}"),
         "nodearray 'hpc': Configuration slurm.node_prefix: expected a string, got false"},
        {NULL, HPC_CONF ("\"slurm\": {\"dynamic_feature\": 3}"),
         "nodearray 'hpc': Configuration slurm.dynamic_feature: expected a string, got 3"},
        {NULL, HPC_CONF ("\"slurm\": {\"dampen_memory\": \"five\"}"),
         "nodearray 'hpc': Configuration slurm.dampen_memory: expected a number, got \"five\""},
        {NULL, HPC_CONF ("\"slurm\": {\"dampen_memory\": 100}"),
         "nodearray 'hpc': Configuration slurm.dampen_memory: 100 is no percentage of memory (0 to 99)"},
        {NULL, HPC_CONF ("\"slurm\": {\"dampen_memory\": -5}"),
         "nodearray 'hpc': Configuration slurm.dampen_memory: -5 is no percentage of memory (0 to 99)"},
        {NULL, HPC_CONF ("\"slurm\": {\"node_prefix\": \"-x\"}"),
         "nodearray 'hpc': Configuration slurm.node_prefix: '-x' cannot begin a hostname (it begins with "
         "'-')"},
        {"{\"slurm\": {\"node_prefix\": \"c_c-\"}}", NULL,
         "slurm.node_prefix: 'c_c-' cannot begin a hostname ('_'; letters, digits and '-' only)"},
        {"{\"slurm\": {\"node_prefix\": \"-c\"}}", NULL,
         "slurm.node_prefix: '-c' cannot begin a hostname (it begins with '-')"},
        {NULL,
         HPC_CONF ("\"slurm\": {\"node_prefix\": "
                   "\"a-very-long-prefix-of-many-many-characters-more-than-63-here-xyz-\"}"),
         "nodearray 'hpc': Configuration slurm.node_prefix: "
         "'a-very-long-prefix-of-many-many-characters-more-than-63-here-xyz-' is longer than a hostname's 63 "
         "characters"},
        {NULL, HPC_CONF ("\"slurm\": {\"partition\": \"DEFAULT\"}"),
         "nodearray 'hpc': Configuration slurm.partition: partition name 'DEFAULT' is the name Slurm keeps "
         "for "
         "the defaults of partitions"},
        {NULL, HPC_CONF ("\"slurm\": {\"partition\": \"\"}"),
         "nodearray 'hpc': Configuration slurm.partition: partition name '' is empty"},
        {NULL, HPC_CONF ("\"slurm\": {\"partition\": \"a b\"}"),
         "nodearray 'hpc': Configuration slurm.partition: partition name 'a b' holds a blank or control "
         "character"},
        {NULL, HPC_CONF ("\"slurm\": {\"partition\": \"a,b\"}"),
         "nodearray 'hpc': Configuration slurm.partition: partition name 'a,b' holds ',', which Slurm does "
         "not "
         "take in a partition name"},
        {"{\"nodearrays\": {\"htc\": {\"slurm_partition\": \"x#y\"}}}", NULL,
         "nodearray 'htc': nodearrays.htc.slurm_partition: partition name 'x#y' holds '#', which Slurm does "
         "not "
         "take in a partition name"},
        {NULL, HPC_CONF ("\"slurm\": {\"dynamic_config\": \"-Z --conf gres=gpu:1\"}"),
         "nodearray 'hpc': Configuration slurm.dynamic_config: '-Z --conf gres=gpu:1' has no Feature= "
         "(Slurm's "
         "nodeset of a dynamic partition needs one)"},
        {NULL, HPC_CONF ("\"slurm\": {\"dynamic_feature\": \"a=b\"}"),
         "nodearray 'hpc': Configuration slurm.dynamic_feature: feature 'a=b' is not one Slurm takes"},
        {NULL, HPC_CONF ("\"slurm\": {\"gpu_device_config\": \"/dev/a /dev/b\"}"),
         "nodearray 'hpc': Configuration slurm.gpu_device_config: '/dev/a /dev/b' holds a blank"},
        {"{\"default_resources\": [{\"select\": {\"node.nodearray\": \"hpc\"}, \"name\": \"slurm_memory\","
         " \"value\": \"memory::500g\"}]}",
         NULL,
         "nodearray 'hpc' machine type 'Standard_HB120rs_v3': default_resources slurm_memory: '500g' is more "
         "than the VM's memory (466944 MB)"},
        {"{\"default_resources\": [{\"select\": {\"node.nodearray\": \"htc\"}, \"name\": \"slurm_memory\","
         " \"value\": 15000}]}",
         NULL,
         "nodearray 'htc' machine type 'Standard_F2s_v2': default_resources slurm_memory: '15000' is no size "
         "of "
         "memory (write 'memory::15g' or 'node.memory')"},
        {"{\"default_resources\": [{\"select\": {\"node.nodearray\": \"htc\"}, \"name\": \"slurm_gpus\","
         " \"value\": \"four\"}]}",
         NULL,
         "nodearray 'htc' machine type 'Standard_F2s_v2': default_resources slurm_gpus: 'four' is no count "
         "of "
         "GPUs"},
        {"{\"default_resources\": [{\"select\": {\"node.nodearray\": \"htc\"}, \"name\": \"slurm_gpus\","
         " \"value\": 1.5}]}",
         NULL,
         "nodearray 'htc' machine type 'Standard_F2s_v2': default_resources slurm_gpus: '1.5' is no count of "
         "GPUs"},
        {"{\"slurm\": {\"gpu_device_files\": \"/dev/gpu\"}}",
         "{\"hpc/Standard_HB120rs_v3\": {\"virtualMachine\": {\"vcpuCount\": 120, \"gpuCount\": 2, "
         "\"memory\": 456}}}",
         "slurm.gpu_device_files: '/dev/gpu': expected a path with one %d (the GPU's number)"},
        {"{\"nodearrays\": {\"htc\": {\"slurm_partition\": \"x\"}}}",
         HPC_CONF ("\"slurm\": {\"node_prefix\": \"ht\"}"),
         NULL}, /* partition names do not clash with node names */
        {NULL,
         "{\"hpc.nodearray\": {\"Configuration\": {\"autoscale\": {\"enabled\": true}, \"slurm\": "
         "{\"node_prefix\": "
         "\"h\"}}}, \"htc.nodearray\": {\"Configuration\": {\"autoscale\": {\"enabled\": true}, \"slurm\": "
         "{\"node_prefix\": \"hhp\"}}}, \"htc\": {\"name\": \"c\"}}",
         "nodearrays 'c' and 'hpc': slurm.node_prefix: both would name their nodes 'hhpc-N'"},
    };
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        struct world w;
        char text[4096];
        world_make (&w, "cluster-status.json", cases[i].config, cases[i].patch);
        all (w.in->errors, w.in->nerrors, text, sizeof (text));
        if (cases[i].error ? strcmp (text, cases[i].error) != 0 : w.in->nerrors != 0)
            fail_msg ("case %zu: errors '%s', want '%s'", i, text, cases[i].error ? cases[i].error : "");
        world_free (&w);
    }

    /* gpu is not autoscaled in CycleCloud: its settings are not ours to judge */
    struct world w;
    world_make (&w, "cluster-status.json", NULL,
                "{\"gpu.nodearray\": {\"Configuration\": {\"autoscale\": {\"enabled\": false}, \"slurm\": "
                "{\"partition\": \"DEFAULT\", \"hpc\": 7, \"node_prefix\": \"-\"}}}}");
    assert_no_errors (&w);
    assert_int_equal (w.in->nwarnings, 0);
    world_free (&w);
}

/* What config check --cluster prints: each setting, its value and source,
 * each bucket's shape, the warnings and errors. */
static void test_json (void **state)
{
    (void)state;
    struct world w;
    world_make (&w, "stock-slurm-cluster.json", NULL, NULL);
    json_object *o = ccas_slurm_intents_json (w.in, w.c);
    assert_non_null (o);
    json_object *hpc = ccas_json_get (ccas_json_get (o, "nodearrays"), "hpc");
    json_object *set = ccas_json_get (hpc, "settings");
    assert_true (ccas_json_bool (hpc, "managed", false));
    assert_string_equal (ccas_json_str (ccas_json_get (set, "node_prefix"), "value"), "mycluster-");
    assert_string_equal (ccas_json_str (ccas_json_get (set, "node_prefix"), "from"),
                         "Configuration slurm.node_prefix");
    assert_string_equal (ccas_json_str (ccas_json_get (set, "partition"), "from"),
                         "Configuration slurm.partition");
    json_object *f2 = ccas_json_get (ccas_json_get (hpc, "buckets"), "Standard_F2s_v2");
    assert_int_equal (ccas_json_int (ccas_json_get (f2, "RealMemory"), "value", 0), 3072);
    assert_int_equal (ccas_json_int (f2, "DefMemPerCPU", 0), 1536);
    assert_int_equal (ccas_json_int (f2, "ThreadsPerCore", 0), 2);
    assert_string_equal (
        ccas_json_str (
            ccas_json_get (
                ccas_json_get (ccas_json_get (ccas_json_get (o, "nodearrays"), "dynamic"), "settings"),
                "dynamic_feature"),
            "value"),
        "dyn");
    assert_int_equal (json_object_array_length (ccas_json_get (o, "warnings")), 1);
    assert_int_equal (json_object_array_length (ccas_json_get (o, "errors")), 0);
    json_object_put (o);
    world_free (&w);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_bad_input),
        cmocka_unit_test (test_stock_template),
        cmocka_unit_test (test_own_keys_first),
        cmocka_unit_test (test_defaults),
        cmocka_unit_test (test_values_as_azslurm_reads),
        cmocka_unit_test (test_memory_and_gpus),
        cmocka_unit_test (test_json),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
