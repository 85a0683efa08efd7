/* SPDX-License-Identifier: MIT */
/* cmd_create.c: `ccautoscale create` — add nodes to a nodearray by hand. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "act.h"
#include "builtins.h"
#include "model_load.h"
#include "wait.h"

static const struct cmd_option options[] = {
    {"-n, --nodearray NAME", "the nodearray to add nodes to (required)"},
    {"-t, --machine-type TYPE",
     "the machine type (default: with --count, CycleCloud chooses; with --cores, the first valid bucket with "
     "room)"},
    {"--count N", "how many nodes"},
    {"--cores C", "enough nodes for C cores (rounded up to whole nodes)"},
    {"-g, --placement-group NAME", "put the nodes in this placement group (made if new)"},
    {"--keep-alive", "mark the nodes KeepAlive: scale-down never terminates them"},
    {"--dry-run", "show what would be created, create nothing"},
    {"--wait[=SECONDS]",
     "then follow the nodes until Ready (or Failed), showing progress; give up after SECONDS (default 1200)"},
    {NULL, NULL},
};

const struct cmd_help help_create = {
    .synopsis = "create --nodearray NAME [--machine-type TYPE] (--count N | --cores C) "
                "[--placement-group NAME] [--keep-alive] [--dry-run] [--wait[=SECONDS]]",
    .summary = "create nodes in a nodearray by hand, within its limits and quotas",
    .description = "Checks the bucket's room first (its own count, the nodearray's and cluster's limits,\n"
                   "family and regional quota) and asks only for what fits, saying why when that is\n"
                   "less than asked.  One create request; the new nodes' names are printed.  Exit\n"
                   "status 4 when fewer nodes were created than asked for.\n\n"
                   "Without --machine-type, --count leaves the machine type to CycleCloud: the set is\n"
                   "sent without one, and CycleCloud takes the first bucket of the nodearray that can\n"
                   "take it (the API's rule); the room is checked in the first valid bucket that has it\n"
                   "for all the nodes (else the first valid one), and the output names the machine\n"
                   "type the nodes got.  --cores needs the cores of a machine type to count nodes, so\n"
                   "without --machine-type it takes that same bucket and names it in the request.\n\n"
                   "With --wait the new nodes are followed (GET /nodes?request_id=) until each is Ready\n"
                   "or Failed: on a terminal one line of counts refreshes in place, otherwise a line is\n"
                   "printed whenever the counts change.  A Failed node, or one still booting when\n"
                   "SECONDS run out, is named on stderr and the exit status is 4.",
    .options = options,
    .examples = "$ ccautoscale create --nodearray htc --count 4 --dry-run\n"
                "$ ccautoscale create --nodearray hpc --cores 480 --placement-group hpc-pg-a\n"
                "$ ccautoscale create --nodearray htc --count 2 --wait=600\n"
                "[   0s] 2 nodes: Acquiring 2\n"
                "[  41s] 2 nodes: Preparing 2\n"
                "[ 188s] 2 nodes: Ready 2",
    .see_also = "ccautoscale-terminate(8), ccautoscale-scale(8)",
};

struct create_opts {
    const char *nodearray, *machine_type, *pg;
    long count, cores;
    bool keep_alive, dry_run;
    double wait;
};

static int parse (struct cli *cli, int argc, char **argv, struct create_opts *o)
{
    static const struct option longopts[] = {
        {"nodearray", required_argument, NULL, 'n'},
        {"machine-type", required_argument, NULL, 't'},
        {"count", required_argument, NULL, 0x401},
        {"cores", required_argument, NULL, 0x402},
        {"placement-group", required_argument, NULL, 'g'},
        {"keep-alive", no_argument, NULL, 0x403},
        {"dry-run", no_argument, NULL, 0x404},
        {"wait", optional_argument, NULL, 0x405},
        {NULL, 0, NULL, 0},
    };
    int c, rc;
    char *end;
    while ((c = cli_getopt (cli, argc, argv, "n:t:g:", longopts)) != -1) {
        switch (c) {
        case 'n':
            o->nodearray = optarg;
            break;
        case 't':
            o->machine_type = optarg;
            break;
        case 'g':
            o->pg = optarg;
            break;
        case 0x401:
        case 0x402:
            *(c == 0x401 ? &o->count : &o->cores) = strtol (optarg, &end, 10);
            if (*end || end == optarg || *(c == 0x401 ? &o->count : &o->cores) < 1)
                return cli_usage_error (cli, "--%s: expected a positive integer, got '%s'",
                                        c == 0x401 ? "count" : "cores", optarg);
            break;
        case 0x403:
            o->keep_alive = true;
            break;
        case 0x404:
            o->dry_run = true;
            break;
        case 0x405:
            if ((rc = wait_parse_timeout (cli, optarg, &o->wait)) != EXIT_OK)
                return rc;
            break;
        }
    }
    if (optind < argc)
        return cli_usage_error (cli, "unexpected argument '%s'", argv[optind]);
    if (!o->nodearray)
        return cli_usage_error (cli, "--nodearray is required");
    if ((o->count > 0) == (o->cores > 0))
        return cli_usage_error (cli, "give exactly one of --count and --cores");
    return EXIT_OK;
}

/* Without a machine type: the first valid bucket of `first`'s nodearray
 * with room for `count` nodes (or `cores` cores) at once, else `first` (the
 * first valid one), as CycleCloud takes the first bucket that fits. */
static struct ccas_bucket *roomiest (struct ccas_cluster *c, struct ccas_bucket *first, long count,
                                     long cores)
{
    for (size_t i = 0; i < c->nbuckets; i++) {
        struct ccas_bucket *b = &c->buckets[i];
        long need = count ? count : (cores + b->cores_per_vm - 1) / b->cores_per_vm;
        if (b->na == first->na && b->st->valid && ccas_bucket_available (b, NULL, 0) >= need)
            return b;
    }
    return first;
}

int cmd_create (struct cli *cli, int argc, char **argv)
{
    struct create_opts o = {0};
    struct model_source src = {.with_nodes = false};
    struct ccas_error err = {""};
    struct ccas_cluster *c = NULL;
    struct ccas_plan *plan = NULL;
    int rc;

    if ((rc = parse (cli, argc, argv, &o)) != EXIT_OK || (rc = cli_prepare (cli)) != EXIT_OK)
        return rc;
    if ((rc = model_load (cli, &src, &c)) != EXIT_OK)
        return rc;
    struct ccas_nodearray *na = act_nodearray (cli, c, o.nodearray);
    struct ccas_bucket *b = na ? act_bucket (cli, c, na, o.machine_type) : NULL;
    if (!b) {
        rc = na ? (o.machine_type ? EXIT_USAGE : EXIT_PARTIAL) : EXIT_USAGE;
        goto done;
    }
    if (!o.machine_type)
        b = roomiest (c, b, o.count ? o.count : 0, o.cores);
    long want = o.count ? o.count : (o.cores + b->cores_per_vm - 1) / b->cores_per_vm;
    struct ccas_pg *pg = o.pg ? ccas_pg_get (c, b, o.pg, NULL) : NULL;
    long made = 0;
    while (made < want && ccas_cluster_new_node (c, b, pg, NULL))
        made++;
    if (made < want) {
        char why[400] = "";
        if (pg && ccas_pg_room (b, pg, CCAS_PG_ALONE) < 1)
            snprintf (why, sizeof (why), "placement group '%s' is full (one holds %lld: %s)", pg->name,
                      (long long)b->max_pg_size, b->pg_limit);
        else
            ccas_bucket_available (b, why, sizeof (why));
        cli_fail (cli, EXIT_PARTIAL, "%s/%s: only %ld of %ld nodes can be created now: %s", na->name,
                  b->machine_type, made, want, why);
    }
    if (!(plan = ccas_plan_create (c, NULL, &err))) {
        rc = cli_fail (cli, EXIT_INTERNAL, "%s", err.text);
        goto done;
    }
    for (size_t i = 0; i < plan->ncreates; i++) {
        plan->creates[i].keep_alive = o.keep_alive;
        plan->creates[i].cyclecloud_chooses = !o.machine_type && o.count;
    }
    rc = act_finish (cli, plan, o.dry_run, o.wait);
    if (rc == EXIT_OK && made < want)
        rc = EXIT_PARTIAL;
done:
    ccas_plan_destroy (plan);
    ccas_cluster_destroy (c);
    return rc;
}
