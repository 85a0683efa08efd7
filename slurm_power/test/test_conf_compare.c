/* SPDX-License-Identifier: MIT */
/* test_conf_compare.c: what differs between a site's Slurm files and what
 * ccautoscale writes (conf_compare.c), by meaning: the azure.conf azslurm
 * writes for the stock template's cluster against ccautoscale's for the
 * same cluster; nodes by name and value, in any case of key, with Slurm's
 * defaults; partitions, nodesets, other lines; gres.conf by node; which
 * nodes share a switch; no file at all; a hostlist Slurm refuses. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "conf_compare.h"
#include "conf_gen.h"
#include "model/test/fixture.h"

static void assert_report (enum ccas_conf_kind kind, const char *theirs, const char *ours, const char *want,
                           int want_differences)
{
    struct ccas_error err = {""};
    int n = -1;
    char *got = ccas_conf_compare (kind, "azure.conf", theirs, ours, &n, &err);
    if (!got)
        fail_msg ("%s", err.text);
    if (strcmp (got, want) != 0)
        fail_msg ("report:\n%s\nwant:\n%s", got, want);
    assert_int_equal (n, want_differences);
    free (got);
}

/* azure.conf as azslurm 4.0.9 writes it for the stock cluster (its header, its spellings). */
static const char stock_azure_conf[] =
    "# Note: To account for OS/VM overhead, by default we reduce the reported memory from CycleCloud by 5%.\n"
    "# Note that slurm.dampen_memory will take precedence.\n"
    "PartitionName=hpc Nodes=mycluster-hpc-[1-16] Default=YES DefMemPerCPU=1536 MaxTime=INFINITE State=UP\n"
    "Nodename=mycluster-hpc-[1-16] Feature=cloud STATE=CLOUD CPUs=2 ThreadsPerCore=2 RealMemory=3072\n"
    "PartitionName=htc Nodes=mycluster-htc-[1-100] Default=NO DefMemPerCPU=1536 MaxTime=INFINITE State=UP\n"
    "Nodename=mycluster-htc-[1-100] Feature=cloud STATE=CLOUD CPUs=2 ThreadsPerCore=1 RealMemory=3072\n"
    "PartitionName=gpu Nodes=mycluster-gpu-[1-8] Default=YES DefMemPerCPU=18158 MaxTime=INFINITE State=UP\n"
    "Nodename=mycluster-gpu-[1-8] Feature=cloud STATE=CLOUD CPUs=24 ThreadsPerCore=1 RealMemory=435814 "
    "Gres=gpu:4\n"
    "# Creating dynamic nodeset and partition using slurm.dynamic_feature=dyn\n"
    "Nodeset=dynamicns Feature=dyn\n"
    "PartitionName=dynamic Nodes=dynamicns\n";

/* The stock cluster: every node and partition means the same, but the
 * default partition (azslurm writes two, Slurm takes the last: ccautoscale
 * writes that one only), with the lines ccautoscale adds. */
static void test_stock_azure_conf (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct ccas_slurm_files f;
    struct ccas_config *cfg = fx_config ("{\"slurm\": {\"keepalive_file\": \"\"}}");
    struct ccas_cluster *c = fx_cluster (cfg, "stock-slurm-cluster.json", NULL, NULL);
    struct ccas_slurm_layout *l = ccas_slurm_layout_create (c);
    assert_int_equal (ccas_slurm_files_render (c, l, &f, &err), 0);
    assert_report (CCAS_CONF_NODES, stock_azure_conf, f.nodes,
                   "= nodes mycluster-hpc-[1-16]: (ccautoscale adds features Standard_F2s_v2,hpc)\n"
                   "= nodes mycluster-htc-[1-100]: (ccautoscale adds features Standard_F2s_v2,htc)\n"
                   "= nodes mycluster-gpu-[1-8]: (ccautoscale adds features Standard_NC24rs_v3,gpu)\n"
                   "~ partition hpc: Default YES -> NO\n"
                   "= partition htc\n"
                   "= partition gpu\n"
                   "= partition dynamic\n"
                   "= nodeset dynamicns\n"
                   "+ GresTypes=gpu: only in what ccautoscale writes\n",
                   2);
    assert_report (CCAS_CONF_GRES,
                   "\n\nNodename=mycluster-gpu-[1-8] Name=gpu Count=4 File=/dev/nvidia[0-3]\n\n", f.gres,
                   "= gres of nodes mycluster-gpu-[1-8]\n", 0);
    /* azslurm's topology (azslurm topology: a switch per placement group, htc for the rest) */
    assert_report (CCAS_CONF_TOPOLOGY,
                   "SwitchName=Standard_F2s_v2_pg0 Nodes=mycluster-hpc-1,mycluster-hpc-10,mycluster-hpc-11,"
                   "mycluster-hpc-12,mycluster-hpc-13,mycluster-hpc-14,mycluster-hpc-15,mycluster-hpc-16,"
                   "mycluster-hpc-2,mycluster-hpc-3,mycluster-hpc-4,mycluster-hpc-5,mycluster-hpc-6,"
                   "mycluster-hpc-7,mycluster-hpc-8,mycluster-hpc-9\n"
                   "SwitchName=Standard_NC24rs_v3_pg0 Nodes=mycluster-gpu-[1-8]\n"
                   "SwitchName=htc Nodes=mycluster-htc-[1-100]\n",
                   f.topology,
                   "= nodes mycluster-hpc-[1-16]: switch Standard_F2s_v2_pg0 -> hpc_Standard_F2s_v2\n"
                   "= nodes mycluster-gpu-[1-8]: switch Standard_NC24rs_v3_pg0 -> gpu_Standard_NC24rs_v3\n"
                   "= nodes mycluster-htc-[1-100]: switch htc -> htc\n",
                   0);
    ccas_slurm_files_release (&f);
    ccas_slurm_layout_destroy (l);
    ccas_cluster_destroy (c);
    ccas_conf_destroy (cfg);
}

/* Values that differ, names on one side only, features taken away, nodes
 * of a partition; keys in any case, Slurm's defaults, comments. */
static void test_differences (void **state)
{
    (void)state;
    assert_report (
        CCAS_CONF_NODES,
        "NodeName=a-[1-4] Feature=cloud,big STATE=cloud CPUs=2 RealMemory=100 # as it was\n"
        "NodeName=b-[1-2] CPUs=4\n"
        "PartitionName=p Nodes=a-[1-4] MaxTime=UNLIMITED\n"
        "PartitionName=q Nodes=b-[1-2] Default=YES\n"
        "Include /x/keep_alive.conf\n",
        "nodename=a-[1-2] Feature=cloud,big,Standard_X State=CLOUD CPUs=2 RealMemory=100 Boards=1\n"
        "NodeName=a-[3-5] Feature=cloud State=CLOUD CPUs=2 RealMemory=90\n"
        "PartitionName=p Nodes=a-[1-5] Default=NO MaxTime=INFINITE State=UP\n"
        "PartitionName=r Nodes=a-5\n"
        "include /x/keep_alive.conf\n",
        "= nodes a-[1-2]: (ccautoscale adds features Standard_X)\n"
        "~ nodes a-[3-4]: Feature cloud,big -> cloud; RealMemory 100 -> 90\n"
        "- nodes b-[1-2]: only in azure.conf\n"
        "+ nodes a-5: only in what ccautoscale writes\n"
        "~ partition p: Nodes a-[1-4] -> a-[1-5]\n"
        "- partition q: only in azure.conf\n"
        "+ partition r: only in what ccautoscale writes\n"
        "= Include /x/keep_alive.conf\n",
        6);
    /* no file at all on the site's side */
    assert_report (
        CCAS_CONF_NODES, NULL, "NodeName=a-1 CPUs=2\nPartitionName=p Nodes=a-1\n",
        "+ nodes a-1: only in what ccautoscale writes\n+ partition p: only in what ccautoscale writes\n", 2);
    assert_report (CCAS_CONF_GRES, "NodeName=g-[1-2] Name=gpu Count=4 File=/dev/nvidia[0-3]\n",
                   "NodeName=g-[1-2] Name=gpu Count=2 File=/dev/nvidia[0-1]\n",
                   "~ gres of nodes g-[1-2]: Count 4 -> 2; File /dev/nvidia[0-3] -> /dev/nvidia[0-1]\n", 1);
    /* nodes grouped otherwise: the same names, other company */
    assert_report (CCAS_CONF_TOPOLOGY, "SwitchName=s1 Nodes=a-[1-4]\nSwitchName=top Switches=s1\n",
                   "SwitchName=x Nodes=a-[1-2]\nSwitchName=y Nodes=a-[3-4],b-1\n",
                   "~ nodes a-[1-2]: switch s1 -> x (grouped otherwise)\n"
                   "~ nodes a-[3-4]: switch s1 -> y (grouped otherwise)\n"
                   "+ nodes b-1: under switch y only in what ccautoscale writes\n",
                   3);
}

/* A hostlist Slurm cannot expand is an error, not a silent difference. */
static void test_bad_hostlist (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    int n = 0;
    assert_null (ccas_conf_compare (CCAS_CONF_NODES, "azure.conf", "NodeName=a-[1- CPUs=2\n", "", &n, &err));
    assert_non_null (strstr (err.text, "a-[1-"));
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_stock_azure_conf),
        cmocka_unit_test (test_differences),
        cmocka_unit_test (test_bad_hostlist),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
