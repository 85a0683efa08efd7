/* SPDX-License-Identifier: MIT */
/* cmd_status.c: `ccautoscale status` — the cluster, its limits and its nodes by state. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "builtins.h"
#include "engine/breaker.h"
#include "engine/holds.h"
#include "table.h"
#include "util/json.h"

const struct cmd_help help_status = {
    .synopsis = "status [--json]",
    .summary = "show the cluster's state, limits, and nodes per nodearray by state",
    .description = "The first screen to open.  The cluster's state and its node and core limits; per\n"
                   "nodearray its limits, how many nodes are ready, booting (Acquiring, Preparing),\n"
                   "failed, deallocated or in another state, and how many more may be created now.\n"
                   "Then what holds creating back: buckets in a capacity window after a capacity or quota\n"
                   "failure, and nodearrays whose breaker opened after repeated boot failures, each with\n"
                   "its reason and time left; and the last failures from the events file, with their\n"
                   "class and message.  One status request and one nodes request.\n"
                   "\n"
                   "When CycleCloud cannot be reached, what is known locally (holds, breakers, recent\n"
                   "failures) is still shown, and the exit status is 3.",
    .examples = "$ ccautoscale status\n$ ccautoscale status --json | jq .nodearrays",
    .see_also = "ccautoscale-buckets(8), ccautoscale-nodes(8)",
};

enum state_col { COL_READY, COL_BOOTING, COL_FAILED, COL_DEALLOCATED, COL_OTHER, NCOLS };
static const char *const col_names[NCOLS] = {"ready", "booting", "failed", "deallocated", "other"};

static enum state_col classify (const struct ccas_record *n)
{
    if (ccas_record_is_failed (n))
        return COL_FAILED;
    if (ccas_record_is_ready (n))
        return COL_READY;
    if (n->status && (strcmp (n->status, "Acquiring") == 0 || strcmp (n->status, "Preparing") == 0 ||
                      strcmp (n->status, "Ready") == 0))
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

static void summarize (const struct ccas_status *st, const struct ccas_record_list *nodes,
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
        /* the buckets share the nodearray's limit: their sum may be more than it allows */
        if (na->max_count >= 0 && sum[i].available > na->max_count - sum[i].active)
            sum[i].available = na->max_count - sum[i].active > 0 ? na->max_count - sum[i].active : 0;
    }
    for (size_t k = 0; k < nodes->nnodes; k++) {
        const struct ccas_record *n = &nodes->nodes[k];
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

static void print_json (const struct ccas_status *st, const struct na_summary *sum, json_object *local)
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
    json_object_object_foreach (local, k, v) json_object_object_add (o, k, json_object_get (v));
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

static void print_table (const struct ccas_status *st, const struct na_summary *sum)
{
    static const char *const headers[] = {
        "NODEARRAY", ">MAX NODES", ">MAX CORES", ">READY", ">BOOTING",
        ">FAILED",   ">DEALLOC",   ">OTHER",     ">AVAIL", NULL,
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
            c[COL_READY],
            c[COL_BOOTING],
            c[COL_FAILED],
            c[COL_DEALLOCATED],
            c[COL_OTHER],
            num (sum[i].available, av, sizeof (av)),
        };
        table_add (t, cells);
    }
    table_print (t, stdout);
    table_destroy (t);
}

#define RECENT_FAILURES 8
#define EVENTS_TAIL (256 * 1024)

/* Append the failure events in the tail of `path` (it may be large) to `all`. */
static void failures_in (const char *path, json_object *all)
{
    FILE *f = fopen (path, "r");
    if (!f)
        return;
    char *buf = malloc (EVENTS_TAIL + 1);
    if (buf && fseek (f, 0, SEEK_END) == 0) {
        long size = ftell (f);
        long from = size > EVENTS_TAIL ? size - EVENTS_TAIL : 0;
        size_t n = fseek (f, from, SEEK_SET) == 0 ? fread (buf, 1, EVENTS_TAIL, f) : 0;
        buf[n] = '\0';
        char *save = NULL;
        for (char *line = strtok_r (buf, "\n", &save); line; line = strtok_r (NULL, "\n", &save)) {
            json_object *e = json_tokener_parse (line);
            const char *ev = e ? ccas_json_str (e, "event") : NULL;
            if (ev && (strcmp (ev, "create_failed") == 0 || strcmp (ev, "failed") == 0 ||
                       strcmp (ev, "breaker_opened") == 0 || strcmp (ev, "pbs_action_failed") == 0))
                json_object_array_add (all, e);
            else
                json_object_put (e);
        }
    }
    free (buf);
    fclose (f);
}

/* The last failures in the events file, and in the one rotated before it
 * when the current file, just rotated, holds too few. */
static json_object *recent_failures (const struct ccas_config *cfg)
{
    json_object *out = json_object_new_array ();
    char older[4200];
    const char *path = cfg->events.path;
    if (!path)
        return out;
    json_object *all = json_object_new_array ();
    failures_in (path, all);
    if (json_object_array_length (all) < RECENT_FAILURES) {
        json_object *before = json_object_new_array ();
        snprintf (older, sizeof (older), "%s.1", path);
        failures_in (older, before);
        for (size_t i = 0; i < json_object_array_length (all); i++)
            json_object_array_add (before, json_object_get (json_object_array_get_idx (all, i)));
        json_object_put (all);
        all = before;
    }
    size_t total = json_object_array_length (all);
    for (size_t i = total > RECENT_FAILURES ? total - RECENT_FAILURES : 0; i < total; i++)
        json_object_array_add (out, json_object_get (json_object_array_get_idx (all, i)));
    json_object_put (all);
    return out;
}

/* Active holds, breakers and recent failures, from the state directory. */
static json_object *local_state (const struct ccas_config *cfg)
{
    struct ccas_error err = {""};
    double now = (double)time (NULL);
    json_object *o = json_object_new_object ();
    json_object *holds = json_object_new_object (), *breakers = json_object_new_object ();
    struct ccas_holds *h = ccas_holds_load (cfg->state_dir, &err);
    struct ccas_breakers *b = ccas_breakers_load (cfg, &err);
    if (h) {
        json_object_object_foreach (ccas_holds_json (h), key, rec)
        {
            double left = ccas_json_double (rec, "until", 0) - now;
            if (left <= 0)
                continue;
            json_object *x = json_object_new_object ();
            json_object_object_add (x, "class", json_object_get (ccas_json_get (rec, "class")));
            json_object_object_add (x, "reason", json_object_get (ccas_json_get (rec, "reason")));
            json_object_object_add (x, "seconds_left", json_object_new_int64 ((int64_t)left));
            json_object_object_add (holds, key, x);
        }
    }
    if (b) {
        json_object_object_foreach (ccas_breakers_json (b), na, rec)
        {
            if (!ccas_json_bool (rec, "open", false))
                continue;
            json_object *x = json_object_get (rec);
            double until = ccas_json_double (rec, "until", 0);
            /* 0: open until reset; else the cool-down's end */
            json_object_object_add (x, "seconds_left",
                                    until > 0 ? json_object_new_int64 ((int64_t)(until - now)) : NULL);
            json_object_object_add (breakers, na, x);
        }
    }
    json_object_object_add (o, "holds", holds);
    json_object_object_add (o, "breakers", breakers);
    json_object_object_add (o, "recent_failures", recent_failures (cfg));
    ccas_holds_destroy (h);
    ccas_breakers_destroy (b);
    return o;
}

static void print_local (json_object *local)
{
    json_object *holds = ccas_json_get (local, "holds"), *breakers = ccas_json_get (local, "breakers");
    json_object *fails = ccas_json_get (local, "recent_failures");
    if (json_object_object_length (breakers)) {
        printf ("\nBreakers open (nothing is created there; 'ccautoscale breaker reset NODEARRAY'):\n");
        json_object_object_foreach (breakers, na, rec)
        {
            char left[48] = "until reset";
            if (ccas_json_get (rec, "seconds_left"))
                snprintf (left, sizeof (left), "%lld s more",
                          (long long)ccas_json_int (rec, "seconds_left", 0));
            printf ("  %s: %lld consecutive boot failures, open %s; last: %s\n", na,
                    (long long)ccas_json_int (rec, "failures", 0), left,
                    ccas_json_str (rec, "last") ? ccas_json_str (rec, "last") : "?");
        }
    }
    if (json_object_object_length (holds)) {
        static const char *const headers[] = {"HELD BUCKET", "CLASS", ">LEFT", "REASON", NULL};
        struct table *t = table_create (headers);
        printf ("\n");
        json_object_object_foreach (holds, key, rec)
        {
            int64_t left = ccas_json_int (rec, "seconds_left", 0);
            char l[32];
            if (left > 365 * 86400)
                snprintf (l, sizeof (l), "until reset");
            else
                snprintf (l, sizeof (l), "%lld s", (long long)left);
            table_addf (t, "%s\t%s\t%s\t%s", key,
                        ccas_json_str (rec, "class") ? ccas_json_str (rec, "class") : "?", l,
                        ccas_json_str (rec, "reason") ? ccas_json_str (rec, "reason") : "");
        }
        table_print (t, stdout);
        table_destroy (t);
    }
    if (json_object_array_length (fails)) {
        printf ("\nLast failures (events file):\n");
        for (size_t i = 0; i < json_object_array_length (fails); i++) {
            json_object *e = json_object_array_get_idx (fails, i);
            const char *what =
                ccas_json_str (e, "node") ? ccas_json_str (e, "node") : ccas_json_str (e, "nodearray");
            const char *msg =
                ccas_json_str (e, "message") ? ccas_json_str (e, "message") : ccas_json_str (e, "reason");
            printf ("  %s  %-15s %-12s %s: %s\n", ccas_json_str (e, "time") ? ccas_json_str (e, "time") : "?",
                    ccas_json_str (e, "event"), ccas_json_str (e, "class") ? ccas_json_str (e, "class") : "-",
                    what ? what : "?", msg ? msg : "");
        }
    }
}

/* CycleCloud did not answer: what the state directory knows is still worth
 * seeing at 3 a.m., then the error and exit status 3. */
static int local_only (struct cli *cli, const struct ccas_error *err)
{
    json_object *local = local_state (cli->cfg);
    if (cli->json) {
        json_object *o = json_object_new_object ();
        json_object_object_add (o, "cluster", json_object_new_string (cli->cfg->cluster_name));
        json_object_object_add (o, "error", json_object_new_string (err->text));
        json_object_object_foreach (local, k, v) json_object_object_add (o, k, json_object_get (v));
        cli_print_json (o);
        json_object_put (o);
    } else {
        printf ("cluster %s: CycleCloud unreachable or refused (the error follows); local state only\n",
                cli->cfg->cluster_name);
        if (!json_object_object_length (ccas_json_get (local, "holds")) &&
            !json_object_object_length (ccas_json_get (local, "breakers")) &&
            !json_object_array_length (ccas_json_get (local, "recent_failures")))
            printf ("  no bucket held back, no breaker open, no failure in the events file\n");
        print_local (local);
    }
    json_object_put (local);
    return cli_fail_api (cli, err);
}

int cmd_status (struct cli *cli, int argc, char **argv)
{
    struct ccas_error err = {""};
    struct ccas_status *st = NULL;
    struct ccas_record_list *nodes = NULL;
    struct na_summary *sum = NULL;
    int rc;

    if ((rc = cli_no_arguments (cli, argc, argv)) != EXIT_OK)
        return rc;
    if ((rc = cli_prepare (cli)) != EXIT_OK)
        return rc;
    if (ccas_ccapi_get_status (cli->api, false, &st, &err) < 0 ||
        ccas_ccapi_get_nodes (cli->api, NULL, NULL, &nodes, &err) < 0) {
        ccas_status_destroy (st);
        return local_only (cli, &err);
    }
    if (!(sum = calloc (st->nnodearrays + 1, sizeof (*sum)))) {
        rc = cli_fail (cli, EXIT_INTERNAL, "out of memory");
        goto done;
    }
    summarize (st, nodes, sum);
    json_object *local = local_state (cli->cfg);
    if (cli->json)
        print_json (st, sum, local);
    else {
        print_table (st, sum);
        print_local (local);
    }
    json_object_put (local);
done:
    free (sum);
    ccas_record_list_destroy (nodes);
    ccas_status_destroy (st);
    return rc;
}
