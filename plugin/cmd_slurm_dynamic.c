/* SPDX-License-Identifier: MIT */
/* cmd_slurm_dynamic.c: `ccautoscale slurm dynamic add|delete|list` — dynamic node records. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "builtins.h"
#include "dynamic_nodes.h"
#include "slurm_admin.h"
#include "util/log.h"

#define COUNT_MAX 10000

static const struct cmd_option options[] = {
    {"-a, --nodearray NAME", "add: the dynamic nodearray (its Configuration has slurm.dynamic_feature)"},
    {"-m, --machine-type TYPE", "add: one of its machine types (default: its first)"},
    {"-N, --count N", "add: how many records, 1 to 10000"},
    {"-p, --prefix STEM",
     "add: names are STEM1, STEM2, ... from one past the highest STEM<n> Slurm has (default:"
     " <slurm.node_prefix><nodearray>-<machine type>-, e.g. dynamic-f4s-v2-)"},
    {"--topology UNITS",
     "add: the records' Topology= (Slurm 25.11+; default under TopologyPlugin=topology/tree:"
     " default:htc, the switch of every node outside a colocated range in 'slurm conf''s topology.conf)"},
    {"--force", "delete: also records ccautoscale did not make"},
    {"-n, --dry-run", "say what would be done; do nothing"},
    {NULL, NULL},
};

const struct cmd_help help_slurm_dynamic = {
    .synopsis = "slurm dynamic add --nodearray NAME [--machine-type TYPE] --count N [--prefix STEM]\n"
                "       [--topology UNITS] |\n"
                "       delete HOSTLIST... [--force] | list  [--dry-run] [--json]",
    .summary = "make, delete and list Slurm dynamic node records for a dynamic partition",
    .description =
        "A nodearray whose Configuration has slurm.dynamic_feature (the stock template's\n"
        "'dynamic' nodearray: \"dyn\") is a dynamic partition: a Nodeset of the nodes with that\n"
        "feature.  Its nodes are not in slurm.conf: they are records made at run time, by the\n"
        "administrator ('scontrol create NodeName=f4-[1-10] State=CLOUD Feature=dyn,Standard_F4s_v2',\n"
        "as the stock azslurm expects), by a VM's 'slurmd -Z', or by 'dynamic add'.  Their names\n"
        "are free; each node's machine type is the one among its features (else the nodearray's\n"
        "first), and resume, suspend, resume-fail and sync treat them as any cloud node: the VM\n"
        "is named as the node, in that nodearray and machine type.\n"
        "\n"
        "'add' makes COUNT records State=CLOUD Feature=<feature>,<machine type> with the machine\n"
        "type's CPUs, cores, threads, memory (as 'slurm conf' computes them) and GPUs, so Slurm\n"
        "schedules jobs that ask for them before any VM exists.  'delete' deletes records that\n"
        "are powered down with no VM (slurmctld refuses one running a job); without --force,\n"
        "only records 'add' made.  'list' shows every dynamic node, its bucket, who made it\n"
        "and its VM.  Records 'add' made are deleted by sync once Slurm has powered them down\n"
        "and their VM is gone when slurm.dynamic_delete is true; by default they stay, to be\n"
        "used again, as the stock azslurm's do (it never deletes a record).  slurmctld needs\n"
        "SelectType=select/cons_tres and a MaxNodeCount above its node count; Slurm 22.05 and\n"
        "later.  Under TopologyPlugin=topology/tree a node in no switch gets no job: from Slurm\n"
        "25.11 'add' puts its records under the machine type's switch (--topology to choose);\n"
        "before 25.11 a dynamic partition needs another TopologyPlugin (the stock template sets\n"
        "none).",
    .options = options,
    .examples =
        "$ ccautoscale slurm dynamic add --nodearray dynamic --machine-type Standard_F4s_v2 --count 10\n"
        "$ ccautoscale slurm dynamic add -a dynamic -N 2 --prefix f4- --dry-run\n"
        "would create NodeName=f4-[1-2] State=CLOUD CPUs=4 ... Feature=dyn,Standard_F4s_v2\n"
        "$ ccautoscale slurm dynamic list --json\n"
        "$ ccautoscale slurm dynamic delete dynamic-f4s-v2-[1-10]",
    .see_also = "ccautoscale-slurm-conf(8), ccautoscale-slurm-sync(8), ccautoscale-resume(8)",
};

struct dyn_opts {
    const char *nodearray, *machine_type, *prefix, *count, *topology;
    bool force, dry_run;
};

/* The bucket `add` makes records for: a managed dynamic nodearray, and
 * the machine type asked (any case) or its first; else a usage error that
 * names the option. */
static int add_bucket (struct cli *cli, struct ccas_power *p, const struct dyn_opts *o,
                       struct ccas_bucket **out, char *feature, size_t fsize)
{
    const struct ccas_nodearray *na = NULL;
    char why[400];
    *out = NULL;
    if (!o->nodearray)
        return cli_usage_error (cli, "--nodearray: say which dynamic nodearray");
    for (size_t i = 0; i < p->model->nnodearrays && !na; i++)
        if (strcmp (p->model->nodearrays[i].name, o->nodearray) == 0)
            na = &p->model->nodearrays[i];
    if (!na)
        return cli_usage_error (cli, "--nodearray: cluster '%s' has no nodearray '%s'",
                                cli->cfg->cluster_name, o->nodearray);
    if (!ccas_slurm_nodearray_managed (na, why, sizeof (why)))
        return cli_usage_error (cli, "--nodearray: %s", why);
    if (!ccas_slurm_dynamic_feature (na, feature, fsize))
        return cli_usage_error (cli,
                                "--nodearray: '%s' is not dynamic (its Configuration has no"
                                " slurm.dynamic_feature nor slurm.dynamic_config)",
                                na->name);
    *out = NULL;
    for (size_t i = 0; i < p->model->nbuckets && !*out; i++) {
        struct ccas_bucket *b = &p->model->buckets[i];
        if (b->na == na && (!o->machine_type || strcasecmp (b->machine_type, o->machine_type) == 0))
            *out = b;
    }
    if (!*out && o->machine_type)
        return cli_usage_error (cli, "--machine-type: nodearray '%s' has no machine type '%s'", na->name,
                                o->machine_type);
    if (!*out)
        return cli_usage_error (cli, "--nodearray: '%s' has no machine type in CycleCloud", na->name);
    return EXIT_OK;
}

static int parse_count (struct cli *cli, const char *text, size_t *count)
{
    char *end;
    long n = text ? strtol (text, &end, 10) : 0;
    if (!text)
        return cli_usage_error (cli, "--count: say how many records to make");
    if (*end || end == text || n < 1 || n > COUNT_MAX)
        return cli_usage_error (cli, "--count: '%s' is not a whole number from 1 to %d", text, COUNT_MAX);
    *count = (size_t)n;
    return EXIT_OK;
}

/* Under topology/tree, from 25.11, the machine type's switch; else none. */
static const char *add_topology (const struct ccas_slurm_traits *t, const struct ccas_slurm_controller *ctl,
                                 const struct ccas_bucket *b, char *buf, size_t size)
{
    if (!t->dynamic_topology || strcmp (ctl->topology_plugin, "topology/tree") != 0)
        return NULL;
    return ccas_slurm_dynamic_nodes_topology (b, buf, size);
}

/* Slurm 25.11 schedules no node made after others were deleted until
 * slurmctld starts again: when ccautoscale deleted records since it did,
 * `scontrol reconfigure` (which, from 23.11, starts a new slurmctld). */
static void after_deletions (struct cli *cli, const struct ccas_slurm_traits *t,
                             const struct ccas_slurm_controller *ctl)
{
    struct ccas_error err = {""};
    struct ccas_state *st = ccas_slurm_dynamic_nodes_load (cli->cfg->state_dir, &err);
    double deleted = ccas_slurm_dynamic_nodes_deleted (st);
    ccas_state_destroy (st);
    if (!t->reconfigure_applies_nodes || !(deleted >= ctl->boot_time) || !ctl->boot_time)
        return;
    ccas_log (LOG_NOTICE, "records were deleted since slurmctld started: 'scontrol reconfigure', so that"
                          " Slurm schedules the new ones");
    if (ccas_slurm_reconfigure (&err) < 0)
        ccas_log (LOG_WARNING, "%s: run 'scontrol reconfigure' before the new nodes get jobs", err.text);
}

static int add (struct cli *cli, struct ccas_power *p, const struct dyn_opts *o)
{
    struct ccas_error err = {""};
    struct ccas_bucket *b = NULL;
    char feature[128], stem[128], why[300], line[2048];
    size_t count = 0;
    int rc;
    if ((rc = parse_count (cli, o->count, &count)) != EXIT_OK ||
        (rc = add_bucket (cli, p, o, &b, feature, sizeof (feature))) != EXIT_OK)
        return rc;
    if (!b)
        return cli_fail (cli, EXIT_INTERNAL, "no bucket");
    if (o->prefix)
        snprintf (stem, sizeof (stem), "%s", o->prefix);
    else
        ccas_slurm_dynamic_nodes_stem (cli->cfg, b, stem, sizeof (stem));
    if (!ccas_slurm_dynamic_nodes_stem_ok (stem, why, sizeof (why)))
        return cli_usage_error (cli, "--prefix: %s", why);
    char **names = ccas_slurm_dynamic_nodes_names (p->snodes, stem, count);
    char *hl = names ? ccas_slurm_hostlist_compress ((const char *const *)names, count) : NULL;
    if (!hl) {
        ccas_slurm_names_free (names, count);
        return cli_fail (cli, EXIT_INTERNAL, "out of memory");
    }
    char topo[300];
    struct ccas_slurm_traits t;
    struct ccas_slurm_controller ctl;
    if (ccas_slurm_traits_load (&t, &ctl, &err) < 0) {
        ccas_slurm_names_free (names, count);
        free (hl);
        return cli_fail (cli, EXIT_SCHEDULER, "%s", err.text);
    }
    const char *topology = o->topology ? o->topology : add_topology (&t, &ctl, b, topo, sizeof (topo));
    ccas_slurm_dynamic_nodes_line (cli->cfg, b, feature, hl, count,
                                   ccas_slurm_dynamic_nodes_port (cli->cfg, p->snodes), topology, line,
                                   sizeof (line));
    if (o->dry_run)
        printf ("would create %s\n", line);
    else if (ccas_slurm_create_nodes (line, &err) < 0)
        rc = cli_fail (cli, EXIT_SCHEDULER, "%s", err.text);
    else {
        ccas_log (LOG_NOTICE, "created dynamic node records: %s", line);
        after_deletions (cli, &t, &ctl);
        if (ccas_slurm_dynamic_nodes_remember (cli->cfg->state_dir, b, names, count, p->now, &err) < 0)
            rc = cli_fail (cli, EXIT_INTERNAL, "%s (the records were made: delete them with --force)",
                           err.text);
    }
    if (cli->json) {
        json_object *obj = json_object_new_object ();
        json_object_object_add (obj, "nodes", json_object_new_string (hl));
        json_object_object_add (obj, "nodearray", json_object_new_string (b->na->name));
        json_object_object_add (obj, "machine_type", json_object_new_string (b->machine_type));
        json_object_object_add (obj, "node_line", json_object_new_string (line));
        json_object_object_add (obj, "dry_run", json_object_new_boolean (o->dry_run));
        cli_print_json (obj);
        json_object_put (obj);
    } else if (!o->dry_run && rc == EXIT_OK)
        printf ("created %s (%s/%s)\n", hl, b->na->name, b->machine_type);
    free (hl);
    ccas_slurm_names_free (names, count);
    return rc;
}

/* delete: every name a dynamic record with no VM, and (without --force)
 * one 'add' made; else nothing is deleted. */
static int check_delete (struct cli *cli, struct ccas_power *p, struct ccas_state *st, char *const *names,
                         size_t n, bool force)
{
    int rc = EXIT_OK;
    for (size_t i = 0; i < n; i++) {
        const struct ccas_slurm_node *sn = ccas_slurm_nodes_find (p->snodes, names[i]);
        const struct ccas_node *vm = ccas_cluster_find_node (p->model, names[i]);
        if (!sn)
            rc = cli_fail (cli, EXIT_USAGE, "'%s' is not a Slurm node; nothing deleted", names[i]);
        else if (!ccas_slurm_node_dynamic (sn))
            rc = cli_fail (cli, EXIT_USAGE,
                           "'%s' is not a dynamic node (it is in slurm.conf); nothing deleted", names[i]);
        else if (vm && vm->kind != CCAS_NODE_GOING)
            rc = cli_fail (cli, EXIT_USAGE, "'%s' has a VM (%s): power it down first; nothing deleted",
                           names[i], vm->status ? vm->status : "?");
        else if (!force && !ccas_slurm_dynamic_nodes_ours (st, names[i]))
            rc = cli_fail (
                cli, EXIT_USAGE,
                "'%s' was not made by 'slurm dynamic add' (--force deletes it anyway); nothing deleted",
                names[i]);
    }
    return rc;
}

static int delete (struct cli *cli, struct ccas_power *p, const struct dyn_opts *o, char **names, size_t n)
{
    struct ccas_error err = {""};
    struct ccas_state *st = ccas_slurm_dynamic_nodes_load (cli->cfg->state_dir, &err);
    int rc;
    if (!st)
        return cli_fail (cli, EXIT_INTERNAL, "%s", err.text);
    rc = check_delete (cli, p, st, names, n, o->force);
    ccas_state_destroy (st);
    if (rc != EXIT_OK)
        return rc;
    char *hl = ccas_slurm_hostlist_compress ((const char *const *)names, n);
    if (!hl)
        return cli_fail (cli, EXIT_INTERNAL, "out of memory");
    if (o->dry_run)
        printf ("would delete %s\n", hl);
    else if (ccas_slurm_delete_nodes (hl, &err) < 0)
        rc = cli_fail (cli, EXIT_SCHEDULER, "%s", err.text);
    else {
        ccas_log (LOG_NOTICE, "deleted dynamic node records %s", hl);
        if (ccas_slurm_dynamic_nodes_forget (cli->cfg->state_dir, names, n, p->now, &err) < 0)
            rc = cli_fail (cli, EXIT_INTERNAL, "%s", err.text);
    }
    if (cli->json) {
        json_object *obj = json_object_new_object ();
        json_object_object_add (obj, "deleted", json_object_new_string (o->dry_run || rc ? "" : hl));
        json_object_object_add (obj, "dry_run", json_object_new_boolean (o->dry_run));
        cli_print_json (obj);
        json_object_put (obj);
    } else if (!o->dry_run && rc == EXIT_OK)
        printf ("deleted %s\n", hl);
    free (hl);
    return rc;
}

static int list (struct cli *cli, struct ccas_power *p)
{
    struct ccas_error err = {""};
    struct ccas_state *st = ccas_slurm_dynamic_nodes_load (cli->cfg->state_dir, &err);
    json_object *arr = json_object_new_array ();
    if (!st)
        ccas_log (LOG_WARNING, "%s", err.text);
    if (!cli->json)
        printf ("%-20s %-10s %-24s %-12s %-11s %s\n", "NODE", "STATE", "BUCKET", "MADE BY", "VM", "");
    for (size_t i = 0; i < ccas_slurm_nodes_count (p->snodes); i++) {
        const struct ccas_slurm_node *sn = ccas_slurm_nodes_at (p->snodes, i);
        char why[300], state[32], bucket[200] = "";
        struct ccas_bucket *b = ccas_slurm_dynamic_bucket (p->model, sn->features, why, sizeof (why));
        if (!ccas_slurm_node_dynamic (sn) && !b)
            continue; /* neither a run-time record nor a node of a dynamic nodearray */
        if (b)
            snprintf (bucket, sizeof (bucket), "%s/%s", b->na->name, b->machine_type);
        const struct ccas_node *vm = ccas_cluster_find_node (p->model, sn->name);
        const char *by = ccas_slurm_dynamic_nodes_ours (st, sn->name) ? "ccautoscale"
                         : ccas_slurm_node_dynamic (sn)               ? "other"
                                                                      : "slurm.conf";
        ccas_slurm_node_state_text (sn, state, sizeof (state));
        if (cli->json) {
            json_object *o = json_object_new_object ();
            json_object_object_add (o, "name", json_object_new_string (sn->name));
            json_object_object_add (o, "state", json_object_new_string (state));
            json_object_object_add (o, "nodearray", b ? json_object_new_string (b->na->name) : NULL);
            json_object_object_add (o, "machine_type", b ? json_object_new_string (b->machine_type) : NULL);
            json_object_object_add (o, "made_by", json_object_new_string (by));
            json_object_object_add (o, "vm", vm && vm->status ? json_object_new_string (vm->status) : NULL);
            json_object_object_add (o, "features", json_object_new_string (sn->features ? sn->features : ""));
            if (!b)
                json_object_object_add (o, "why", json_object_new_string (why));
            json_object_array_add (arr, o);
        } else
            printf ("%-20s %-10s %-24s %-12s %-11s %s\n", sn->name, state, b ? bucket : "-", by,
                    vm && vm->status ? vm->status : "-", b ? "" : why);
    }
    if (cli->json)
        cli_print_json (arr);
    json_object_put (arr);
    ccas_state_destroy (st);
    return EXIT_OK;
}

int cmd_slurm_dynamic (struct cli *cli, int argc, char **argv)
{
    static const struct option longopts[] = {
        {"nodearray", required_argument, NULL, 'a'},
        {"machine-type", required_argument, NULL, 'm'},
        {"count", required_argument, NULL, 'N'},
        {"prefix", required_argument, NULL, 'p'},
        {"force", no_argument, NULL, 0x801},
        {"dry-run", no_argument, NULL, 'n'},
        {NULL, 0, NULL, 0},
    };
    struct dyn_opts o = {0};
    struct ccas_power p;
    char **operands = calloc ((size_t)argc + 1, sizeof (*operands)), **names = NULL;
    size_t noperands = 0, nnames = 0;
    int ch, rc = EXIT_OK;

    if (!operands)
        return cli_fail (cli, EXIT_INTERNAL, "out of memory");
    while ((ch = slurm_admin_getopt (cli, argc, argv, "a:m:N:p:n", longopts, operands, &noperands)) != -1) {
        if (ch == 'a')
            o.nodearray = optarg;
        else if (ch == 'm')
            o.machine_type = optarg;
        else if (ch == 'N')
            o.count = optarg;
        else if (ch == 'p')
            o.prefix = optarg;
        else if (ch == 0x801)
            o.force = true;
        else if (ch == 0x802)
            o.topology = optarg;
        else if (ch == 'n')
            o.dry_run = true;
    }
    const char *what = noperands ? operands[0] : NULL;
    if (!what) {
        free (operands);
        return cli_usage_error (cli, "say what to do: add, delete or list");
    }
    if (strcmp (what, "add") == 0) {
        if (noperands > 1)
            rc = cli_usage_error (
                cli, "add takes no hostlist (got '%s'): --count and --prefix name the nodes", operands[1]);
        else if (!o.nodearray)
            rc = cli_usage_error (cli, "--nodearray: say which dynamic nodearray");
        else if (!o.count)
            rc = cli_usage_error (cli, "--count: say how many records to make");
    } else if (strcmp (what, "delete") == 0)
        rc = slurm_admin_names (cli, operands + 1, noperands - 1, "the records to delete", &names, &nnames);
    else if (strcmp (what, "list") == 0) {
        if (noperands > 1)
            rc = cli_usage_error (cli, "list takes no hostlist (got '%s')", operands[1]);
    } else
        rc = cli_usage_error (cli, "'%s' is not add, delete or list", what);
    if (rc == EXIT_OK && strcmp (what, "add") != 0 &&
        (o.nodearray || o.machine_type || o.count || o.prefix || o.topology))
        rc = cli_usage_error (cli,
                              "--nodearray, --machine-type, --count, --prefix and --topology are for add");
    if (rc == EXIT_OK && o.force && strcmp (what, "delete") != 0)
        rc = cli_usage_error (cli, "--force is for delete");
    if (rc == EXIT_OK &&
        (rc = slurm_admin_open (cli, &p, o.dry_run || strcmp (what, "list") == 0)) == EXIT_OK) {
        if (strcmp (what, "add") == 0)
            rc = add (cli, &p, &o);
        else if (strcmp (what, "delete") == 0)
            rc = delete (cli, &p, &o, names, nnames);
        else
            rc = list (cli, &p);
        ccas_power_detach (&p);
    }
    ccas_slurm_names_free (names, nnames);
    free (operands);
    return rc;
}
