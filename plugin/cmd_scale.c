/* SPDX-License-Identifier: MIT */
/* cmd_scale.c: `ccautoscale scale` — grow a nodearray to a node, core or group target. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "act.h"
#include "builtins.h"
#include "model_load.h"
#include "wait.h"

static const struct cmd_option options[] = {
    {"-n, --nodearray NAME", "the nodearray to grow (required)"},
    {"--nodes N", "target: N nodes in the nodearray (like TargetCount)"},
    {"--cores C", "target: C cores in the nodearray (like TargetCoreCount)"},
    {"--groups G", "target: G placement groups (like TargetGroupCount)"},
    {"--group-nodes N", "with --groups: N nodes per group"},
    {"--group-cores C", "with --groups: C cores per group (like GroupCoreCount)"},
    {"--dry-run", "show what would be created, create nothing"},
    {"--wait[=SECONDS]",
     "then follow the nodes until Ready (or Failed), showing progress; give up after SECONDS (default 1200)"},
    {NULL, NULL},
};

const struct cmd_help help_scale = {
    .synopsis =
        "scale --nodearray NAME (--nodes N | --cores C | --groups G (--group-nodes N | --group-cores C)) "
        "[--dry-run] [--wait[=SECONDS]]",
    .summary = "grow a nodearray to a target count of nodes, cores or placement groups",
    .description = "Counts the nodearray's nodes that are ready or booting; to reach the target it starts\n"
                   "deallocated nodes first, then creates the rest; it never shrinks (use terminate).\n"
                   "Machine types are used in the\n"
                   "configured order (nodearrays.NAME.machine_types, else the server's), the first until\n"
                   "its room runs out.  With --groups each group is a new placement group of one\n"
                   "machine type holding all its nodes; existing groups with nodes count towards G.",
    .options = options,
    .examples = "$ ccautoscale scale --nodearray htc --nodes 20\n"
                "$ ccautoscale scale --nodearray hpc --groups 2 --group-cores 960 --dry-run",
    .see_also = "ccautoscale-create(8)",
};

struct scale_opts {
    const char *nodearray;
    long nodes, cores, groups, group_nodes, group_cores;
    bool dry_run;
    double wait;
};

static int number (struct cli *cli, const char *opt, const char *arg, long *out)
{
    char *end;
    *out = strtol (arg, &end, 10);
    if (*end || end == arg || *out < 0)
        return cli_usage_error (cli, "--%s: expected a non-negative integer, got '%s'", opt, arg);
    return EXIT_OK;
}

static int parse (struct cli *cli, int argc, char **argv, struct scale_opts *o)
{
    static const struct option longopts[] = {
        {"nodearray", required_argument, NULL, 'n'},
        {"nodes", required_argument, NULL, 0x601},
        {"cores", required_argument, NULL, 0x602},
        {"groups", required_argument, NULL, 0x603},
        {"group-nodes", required_argument, NULL, 0x604},
        {"group-cores", required_argument, NULL, 0x605},
        {"dry-run", no_argument, NULL, 0x606},
        {"wait", optional_argument, NULL, 0x607},
        {NULL, 0, NULL, 0},
    };
    long *slot[] = {&o->nodes, &o->cores, &o->groups, &o->group_nodes, &o->group_cores};
    int c, rc;
    while ((c = cli_getopt (cli, argc, argv, "n:", longopts)) != -1) {
        if (c == 'n')
            o->nodearray = optarg;
        else if (c == 0x606)
            o->dry_run = true;
        else if (c == 0x607 && (rc = wait_parse_timeout (cli, optarg, &o->wait)) != EXIT_OK)
            return rc;
        else if (c >= 0x601 && c <= 0x605 &&
                 (rc = number (cli, longopts[c - 0x601 + 1].name, optarg, slot[c - 0x601])) != EXIT_OK)
            return rc;
    }
    if (optind < argc)
        return cli_usage_error (cli, "unexpected argument '%s'", argv[optind]);
    if (!o->nodearray)
        return cli_usage_error (cli, "--nodearray is required");
    int targets = (o->nodes >= 0) + (o->cores >= 0) + (o->groups >= 0);
    if (targets != 1)
        return cli_usage_error (cli, "give exactly one target: --nodes, --cores or --groups");
    if (o->groups >= 0 && (o->group_nodes > 0) == (o->group_cores > 0))
        return cli_usage_error (cli, "--groups needs exactly one of --group-nodes and --group-cores");
    if (o->groups < 0 && (o->group_nodes >= 0 || o->group_cores >= 0))
        return cli_usage_error (cli, "--group-nodes and --group-cores go with --groups");
    return EXIT_OK;
}

/* Nodes and cores the nodearray has running now (ready or booting). */
static void current (struct ccas_cluster *c, struct ccas_nodearray *na, long *nodes, long *cores)
{
    *nodes = *cores = 0;
    for (size_t i = 0; i < c->nexisting; i++) {
        const struct ccas_node *n = c->nodes[i];
        if (n->nodearray && strcmp (n->nodearray, na->name) == 0 && ccas_node_usable (n) &&
            n->kind != CCAS_NODE_STOPPED) {
            (*nodes)++;
            *cores += n->vcpu_count;
        }
    }
}

/* Deallocated nodes are started before any node is created: they count
 * towards the target only once they run. */
static void start_stopped (struct ccas_cluster *c, struct ccas_nodearray *na, long *need_nodes,
                           long *need_cores)
{
    for (size_t i = 0; i < c->nexisting && (*need_nodes > 0 || *need_cores > 0); i++) {
        struct ccas_node *n = c->nodes[i];
        if (n->kind != CCAS_NODE_STOPPED || !ccas_node_usable (n) || !n->nodearray ||
            strcmp (n->nodearray, na->name) != 0)
            continue;
        n->njobs = 1; /* given work: the plan starts it */
        n->matched = true;
        (*need_nodes)--;
        *need_cores -= n->vcpu_count;
    }
}

/* Grow by nodes or cores: the first bucket until its room runs out.  What
 * is still needed afterwards is left in *need_nodes and *need_cores. */
static void grow_flat (struct ccas_cluster *c, struct ccas_nodearray *na, long *need_nodes, long *need_cores)
{
    for (size_t i = 0; i < c->nbuckets && (*need_nodes > 0 || *need_cores > 0); i++) {
        struct ccas_bucket *b = &c->buckets[i];
        if (b->na != na)
            continue;
        while ((*need_nodes > 0 || *need_cores > 0) && ccas_cluster_new_node (c, b, NULL, NULL)) {
            (*need_nodes)--;
            *need_cores -= b->st->vm.vcpu_count;
        }
    }
}

static long existing_groups (struct ccas_cluster *c, struct ccas_nodearray *na)
{
    long n = 0;
    for (size_t i = 0; i < c->nbuckets; i++)
        if (c->buckets[i].na == na)
            for (size_t p = 0; p < c->buckets[i].npgs; p++)
                n += c->buckets[i].pgs[p]->nmembers > 0;
    return n;
}

/* One new placement group of `size` nodes in the first bucket that can hold it whole. */
static bool grow_group (struct ccas_cluster *c, struct ccas_nodearray *na, const struct scale_opts *o)
{
    for (size_t i = 0; i < c->nbuckets; i++) {
        struct ccas_bucket *b = &c->buckets[i];
        long size =
            o->group_nodes > 0 ? o->group_nodes : (o->group_cores + b->cores_per_vm - 1) / b->cores_per_vm;
        if (b->na != na || ccas_pg_room (b, NULL, CCAS_PG_WITH_BUCKET) < size)
            continue;
        struct ccas_undo *undo = ccas_undo_create ();
        struct ccas_pg *pg = undo ? ccas_pg_get (c, b, NULL, undo) : NULL;
        long k = 0;
        while (pg && k < size && ccas_cluster_new_node (c, b, pg, undo))
            k++;
        if (k == size) {
            ccas_undo_destroy (undo);
            return true;
        }
        ccas_undo_rollback (undo, 0);
        ccas_undo_destroy (undo);
    }
    return false;
}

int cmd_scale (struct cli *cli, int argc, char **argv)
{
    struct scale_opts o = {NULL, -1, -1, -1, -1, -1, false, 0};
    struct model_source src = {.with_nodes = true, .apply_holds = true};
    struct ccas_error err = {""};
    struct ccas_cluster *c = NULL;
    struct ccas_plan *plan = NULL;
    long have_nodes, have_cores, shortfall = 0;
    int rc;

    if ((rc = parse (cli, argc, argv, &o)) != EXIT_OK || (rc = cli_prepare (cli)) != EXIT_OK)
        return rc;
    if ((rc = model_load (cli, &src, &c)) != EXIT_OK)
        return rc;
    struct ccas_nodearray *na = act_nodearray (cli, c, o.nodearray);
    if (!na) {
        rc = EXIT_USAGE;
        goto done;
    }
    current (c, na, &have_nodes, &have_cores);
    if (o.groups >= 0) {
        long need = o.groups - existing_groups (c, na);
        for (long g = 0; g < need; g++)
            shortfall += !grow_group (c, na, &o);
        if (shortfall) {
            /* a group is never made in parts: say when no bucket's group holds that many */
            char why[300] = "";
            for (size_t i = 0; i < c->nbuckets; i++) {
                struct ccas_bucket *b = &c->buckets[i];
                long size = o.group_nodes > 0 ? o.group_nodes
                                              : (o.group_cores + b->cores_per_vm - 1) / b->cores_per_vm;
                if (b->na == na && ccas_pg_too_small (b, size) && !why[0])
                    snprintf (why, sizeof (why), " (a group of %ld nodes: one of %s/%s holds %lld, %s)", size,
                              na->name, b->machine_type, (long long)b->max_pg_size, b->pg_limit);
            }
            cli_fail (cli, EXIT_PARTIAL, "%s: room for only %ld of %ld new placement groups%s", na->name,
                      need - shortfall, need, why);
        }
    } else {
        long need_nodes = o.nodes >= 0 ? o.nodes - have_nodes : 0;
        long need_cores = o.cores >= 0 ? o.cores - have_cores : 0;
        start_stopped (c, na, &need_nodes, &need_cores);
        grow_flat (c, na, &need_nodes, &need_cores);
        if (need_nodes > 0 || need_cores > 0) {
            char why[400] = "";
            struct ccas_bucket *b = act_bucket (cli, c, na, NULL);
            if (b)
                ccas_bucket_available (b, why, sizeof (why));
            shortfall = 1;
            cli_fail (cli, EXIT_PARTIAL, "%s: the target is %ld %s short after this: %s", na->name,
                      need_nodes > 0 ? need_nodes : need_cores, need_nodes > 0 ? "nodes" : "cores", why);
        }
    }
    if (!(plan = ccas_plan_create (c, NULL, &err))) {
        rc = cli_fail (cli, EXIT_INTERNAL, "%s", err.text);
        goto done;
    }
    rc = act_finish (cli, plan, o.dry_run, o.wait);
    if (rc == EXIT_OK && shortfall)
        rc = EXIT_PARTIAL;
done:
    ccas_plan_destroy (plan);
    ccas_cluster_destroy (c);
    return rc;
}
