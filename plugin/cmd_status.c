/* SPDX-License-Identifier: MIT */
/* cmd_status.c: `ccautoscale status` — the cluster, its limits and its nodes by state. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtins.h"
#include "table.h"

const struct cmd_help help_status = {
    .synopsis = "status [--json]",
    .summary = "show the cluster's state, limits, and nodes per nodearray by state",
    .description =
        "The first screen to open.  The cluster's state and its node and core limits; per\n"
        "nodearray its limits, how many nodes are ready, booting (Acquiring, Preparing),\n"
        "failed, deallocated or in another state, and how many more may be created now.\n"
        "One status request and one nodes request.",
    .examples = "$ ccautoscale status\n$ ccautoscale status --json | jq .nodearrays",
    .see_also = "ccautoscale-buckets(8), ccautoscale-nodes(8)",
};

enum state_col { COL_READY, COL_BOOTING, COL_FAILED, COL_DEALLOCATED, COL_OTHER, NCOLS };
static const char *const col_names[NCOLS] = { "ready", "booting", "failed", "deallocated", "other" };

static enum state_col classify (const struct ccas_node_record *n)
{
    if (ccas_node_is_failed (n))
        return COL_FAILED;
    if (ccas_node_is_ready (n))
        return COL_READY;
    if (n->status && (strcmp (n->status, "Acquiring") == 0 || strcmp (n->status, "Preparing") == 0
                      || strcmp (n->status, "Ready") == 0))
        return COL_BOOTING;
    if (n->status && strcmp (n->status, "Deallocated") == 0)
        return COL_DEALLOCATED;
    return COL_OTHER;
}

struct na_summary {
    int64_t counts[NCOLS];
    int64_t available;
    int64_t active;
};

static void summarize (const struct ccas_cluster_status *st, const struct ccas_node_list *nodes,
                       struct na_summary *sum)
{
    for (size_t i = 0; i < st->nnodearrays; i++) {
        const struct ccas_nodearray_status *na = &st->nodearrays[i];
        for (size_t j = 0; j < na->nbuckets; j++) {
            if (na->buckets[j].available_count > 0)
                sum[i].available += na->buckets[j].available_count;
            if (na->buckets[j].active_count > 0)
                sum[i].active += na->buckets[j].active_count;
        }
    }
    for (size_t k = 0; k < nodes->nnodes; k++) {
        const struct ccas_node_record *n = &nodes->nodes[k];
        for (size_t i = 0; i < st->nnodearrays; i++)
            if (n->nodearray && strcmp (n->nodearray, st->nodearrays[i].name) == 0) {
                sum[i].counts[classify (n)]++;
                break;
            }
    }
}

static json_object *limit_json (int64_t v)
{
    return v < 0 ? NULL : json_object_new_int64 (v);
}

static void print_json (const struct ccas_cluster_status *st, const struct na_summary *sum)
{
    json_object *o = json_object_new_object ();
    json_object *arr = json_object_new_array ();
    json_object_object_add (o, "cluster", json_object_new_string (st->name ? st->name : ""));
    json_object_object_add (o, "state", st->state ? json_object_new_string (st->state) : NULL);
    json_object_object_add (o, "target_state",
                            st->target_state ? json_object_new_string (st->target_state) : NULL);
    json_object_object_add (o, "max_count", limit_json (st->max_count));
    json_object_object_add (o, "max_core_count", limit_json (st->max_core_count));
    for (size_t i = 0; i < st->nnodearrays; i++) {
        json_object *na = json_object_new_object ();
        json_object *nodes = json_object_new_object ();
        json_object_object_add (na, "name", json_object_new_string (st->nodearrays[i].name));
        json_object_object_add (na, "max_count", limit_json (st->nodearrays[i].max_count));
        json_object_object_add (na, "max_core_count", limit_json (st->nodearrays[i].max_core_count));
        json_object_object_add (na, "active_count", json_object_new_int64 (sum[i].active));
        json_object_object_add (na, "available_count", json_object_new_int64 (sum[i].available));
        for (int c = 0; c < NCOLS; c++)
            json_object_object_add (nodes, col_names[c], json_object_new_int64 (sum[i].counts[c]));
        json_object_object_add (na, "nodes", nodes);
        json_object_array_add (arr, na);
    }
    json_object_object_add (o, "nodearrays", arr);
    cli_print_json (o);
    json_object_put (o);
}

static const char *num (int64_t v, char *buf, size_t size)
{
    if (v < 0)
        return "-";
    snprintf (buf, size, "%lld", (long long)v);
    return buf;
}

static void print_table (const struct ccas_cluster_status *st, const struct na_summary *sum)
{
    static const char *const headers[] = {
        "NODEARRAY", ">MAX NODES", ">MAX CORES", ">READY", ">BOOTING", ">FAILED", ">DEALLOC",
        ">OTHER", ">AVAIL", NULL,
    };
    char b1[24], b2[24];
    printf ("cluster %s: %s (target %s); limits: %s nodes, %s cores\n\n", st->name ? st->name : "?",
            st->state ? st->state : "?", st->target_state ? st->target_state : "?",
            num (st->max_count, b1, sizeof (b1)), num (st->max_core_count, b2, sizeof (b2)));
    struct table *t = table_create (headers);
    for (size_t i = 0; i < st->nnodearrays; i++) {
        char c[NCOLS][24], mx[24], mc[24], av[24];
        for (int k = 0; k < NCOLS; k++)
            snprintf (c[k], sizeof (c[k]), "%lld", (long long)sum[i].counts[k]);
        const char *cells[] = {
            st->nodearrays[i].name,
            num (st->nodearrays[i].max_count, mx, sizeof (mx)),
            num (st->nodearrays[i].max_core_count, mc, sizeof (mc)),
            c[COL_READY], c[COL_BOOTING], c[COL_FAILED], c[COL_DEALLOCATED], c[COL_OTHER],
            num (sum[i].available, av, sizeof (av)),
        };
        table_add (t, cells);
    }
    table_print (t, stdout);
    table_destroy (t);
}

int cmd_status (struct cli *cli, int argc, char **argv)
{
    struct ccas_error err = { "" };
    struct ccas_cluster_status *st = NULL;
    struct ccas_node_list *nodes = NULL;
    struct na_summary *sum = NULL;
    int rc;

    while (cli_getopt (cli, argc, argv, "", NULL) != -1)
        ;
    if (optind < argc)
        return cli_usage_error (cli, "unexpected argument '%s'", argv[optind]);
    if ((rc = cli_prepare (cli)) != EXIT_OK)
        return rc;
    if (ccas_ccapi_get_status (cli->api, false, &st, &err) < 0
        || ccas_ccapi_get_nodes (cli->api, NULL, NULL, &nodes, &err) < 0) {
        ccas_cluster_status_destroy (st);
        return cli_fail_api (cli, &err);
    }
    if (!(sum = calloc (st->nnodearrays + 1, sizeof (*sum)))) {
        rc = cli_fail (cli, EXIT_INTERNAL, "out of memory");
        goto done;
    }
    summarize (st, nodes, sum);
    if (cli->json)
        print_json (st, sum);
    else
        print_table (st, sum);
done:
    free (sum);
    ccas_node_list_destroy (nodes);
    ccas_cluster_status_destroy (st);
    return rc;
}
