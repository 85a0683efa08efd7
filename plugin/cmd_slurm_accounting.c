/* SPDX-License-Identifier: MIT */
/* cmd_slurm_accounting.c: `ccautoscale slurm accounting-info` — a node's VM for a job's prolog, as azslurm
 * prints it. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtins.h"
#include "slurm_admin.h"

static const struct cmd_option options[] = {
    {"-N, --node-name NAME", "the node (a job's first node, in a prolog)"},
    {NULL, NULL},
};

const struct cmd_help help_slurm_accounting_info = {
    .synopsis = "slurm accounting-info --node-name NAME",
    .summary = "print a node's VM (size, region, spot, CPUs, memory) as one line of JSON, for a job's prolog",
    .description =
        "What the stock azslurm's 'accounting_info --node-name NAME' prints, key for key and in\n"
        "the same order, so that a PrologSlurmctld written for it keeps working: a JSON list\n"
        "with one object,\n"
        "  name, location, vm_size, spot, nodearray, cpus, pcpu_count, vcpu_count, gpu_count, memgb\n"
        "(cpus is Slurm's CPUTot for the node, -1 if Slurm does not know it; memgb the VM's\n"
        "memory in GB), or [] when CycleCloud has no VM of that name yet.  The stock prolog\n"
        "asks up to five times, two seconds apart, until the list is not empty, then stores it\n"
        "in the job's AdminComment:\n"
        "  info=$(ccautoscale slurm accounting-info --node-name \"$node\")\n"
        "  scontrol update job=\"$SLURM_JOB_ID\" admincomment=\"$info\"\n"
        "One line always: --json changes nothing.  It reads CycleCloud and Slurm, holds no lock\n"
        "and changes nothing.",
    .options = options,
    .examples =
        "$ ccautoscale slurm accounting-info --node-name hpc-1\n"
        "[{\"name\": \"hpc-1\", \"location\": \"westeurope\", \"vm_size\": \"Standard_HB120rs_v3\","
        " \"spot\": false, \"nodearray\": \"hpc\", \"cpus\": 120, \"pcpu_count\": 120, \"vcpu_count\": 120,"
        " \"gpu_count\": 0, \"memgb\": 456.0}]",
    .see_also = "ccautoscale-slurm-wait-for-resume(8)",
};

/* The object as Python's json.dump writes it (", " and ": "): the stock
 * output, byte for byte, for a prolog that greps it. */
static void print_python_style (json_object *o)
{
    bool first = true;
    fputs ("[{", stdout);
    json_object_object_foreach (o, key, v)
    {
        printf ("%s\"%s\": %s", first ? "" : ", ", key,
                json_object_to_json_string_ext (v, JSON_C_TO_STRING_PLAIN));
        first = false;
    }
    fputs ("}]\n", stdout);
}

int cmd_slurm_accounting_info (struct cli *cli, int argc, char **argv)
{
    static const struct option longopts[] = {{"node-name", required_argument, NULL, 'N'}, {NULL, 0, NULL, 0}};
    const char *name = NULL;
    struct ccas_power p;
    int ch, rc;

    while ((ch = cli_getopt (cli, argc, argv, "N:", longopts)) != -1)
        if (ch == 'N')
            name = optarg;
    if (optind < argc)
        return cli_usage_error (cli, "unexpected argument '%s' (use --node-name)", argv[optind]);
    if (!name || !*name)
        return cli_usage_error (cli, "--node-name: say which node");
    if ((rc = slurm_admin_open (cli, &p, true)) != EXIT_OK)
        return rc;
    const struct ccas_node *n = ccas_cluster_find_node (p.model, name);
    const struct ccas_slurm_node *sn = ccas_slurm_nodes_find (p.snodes, name);
    if (!n) {
        puts ("[]");
        ccas_power_detach (&p);
        return EXIT_OK;
    }
    json_object *o = json_object_new_object ();
    json_object_object_add (o, "name", json_object_new_string (n->name));
    json_object_object_add (o, "location", json_object_new_string (n->location ? n->location : ""));
    json_object_object_add (o, "vm_size", json_object_new_string (n->vm_size ? n->vm_size : ""));
    json_object_object_add (o, "spot", json_object_new_boolean (n->spot));
    json_object_object_add (o, "nodearray", json_object_new_string (n->nodearray ? n->nodearray : ""));
    json_object_object_add (o, "cpus", json_object_new_int (sn ? (int)sn->cpus : -1));
    json_object_object_add (o, "pcpu_count", json_object_new_int (n->pcpu_count));
    json_object_object_add (o, "vcpu_count", json_object_new_int (n->vcpu_count));
    json_object_object_add (o, "gpu_count", json_object_new_int (n->gpu_count));
    /* Python's repr of a float: the shortest digits, ".0" on a whole number */
    char mem[64];
    double gb = n->memory / (1024.0 * 1024.0 * 1024.0);
    int len = snprintf (mem, sizeof (mem), "%.15g", gb);
    if (!strpbrk (mem, ".eEn") && len > 0 && (size_t)len + 2 < sizeof (mem))
        snprintf (mem + len, sizeof (mem) - (size_t)len, ".0");
    json_object_object_add (o, "memgb", json_object_new_double_s (gb, mem));
    print_python_style (o);
    json_object_put (o);
    ccas_power_detach (&p);
    return EXIT_OK;
}
