/* SPDX-License-Identifier: MIT */
/* analyze.c: explain one job, bucket by bucket — the report behind `analyze` and `pbs analyze`. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "engine/match.h"
#include "table.h"

struct chunk_view {
    size_t existing_fit;  /* existing nodes that would take a slot if empty */
    size_t existing_room; /* ... that have room now */
};

static void existing_counts (struct ccas_cluster *c, const struct ccas_chunk *ch, struct chunk_view *v)
{
    struct ccas_eval ev = {.job = -1};
    struct ccas_eval tev = {.job = -1, .template_node = true};
    for (size_t i = 0; i < c->nexisting; i++) {
        const struct ccas_node *n = c->nodes[i];
        if (!ccas_node_usable (n))
            continue;
        if (n->bucket && ccas_constraint_fits (ch->cons, &n->bucket->template_node, &tev, NULL, 0))
            v->existing_fit++;
        if (ccas_constraint_fits (ch->cons, n, &ev, NULL, 0))
            v->existing_room++;
    }
}

/* How many more nodes each bucket may take once the jobs ahead have had
 * their share, before this job takes its own. */
struct room {
    int64_t avail;
    char why[400];
};

static json_object *bucket_json (const struct ccas_bucket *b, const struct ccas_chunk *ch,
                                 const struct room *r)
{
    char why[512] = "";
    struct ccas_eval ev = {.job = -1, .template_node = true};
    bool fits = ccas_constraint_fits (ch->cons, &b->template_node, &ev, why, sizeof (why));
    int64_t avail = r->avail;
    const char *avail_why = r->why;
    json_object *o = json_object_new_object ();
    json_object_object_add (o, "nodearray", json_object_new_string (b->na->name));
    json_object_object_add (o, "machine_type", json_object_new_string (b->machine_type));
    json_object_object_add (o, "fits", json_object_new_boolean (fits));
    json_object_object_add (o, "why_not", fits ? NULL : json_object_new_string (why));
    json_object_object_add (o, "available", json_object_new_int64 (avail == CCAS_UNLIMITED ? -1 : avail));
    json_object_object_add (o, "available_why", avail ? NULL : json_object_new_string (avail_why));
    return o;
}

static json_object *analysis_json (struct ccas_cluster *c, const struct ccas_job *j, const struct room *rooms)
{
    json_object *o = json_object_new_object ();
    json_object *chunks = json_object_new_array ();
    json_object_object_add (o, "job", json_object_new_string (j->id));
    json_object_object_add (o, "matched", json_object_new_boolean (j->matched));
    json_object_object_add (o, "reason", j->reason ? json_object_new_string (j->reason) : NULL);
    if (j->matched) {
        json_object *nodes = json_object_new_array ();
        char label[256];
        for (uint32_t s = 0; s < j->nslots; s++)
            if (s == 0 || j->slots[s] != j->slots[s - 1])
                json_object_array_add (
                    nodes, json_object_new_string (ccas_node_label (j->slots[s], label, sizeof (label))));
        json_object_object_add (o, "nodes", nodes);
    }
    for (uint32_t ci = 0; ci < j->nchunks; ci++) {
        const struct ccas_chunk *ch = &j->chunks[ci];
        struct chunk_view v = {0, 0};
        json_object *co = json_object_new_object ();
        json_object *buckets = json_object_new_array ();
        existing_counts (c, ch, &v);
        json_object_object_add (co, "count", json_object_new_int ((int)ch->count));
        json_object_object_add (co, "constraints", json_tokener_parse (ccas_constraint_text (ch->cons)));
        json_object_object_add (co, "existing_nodes_that_fit",
                                json_object_new_int64 ((int64_t)v.existing_fit));
        json_object_object_add (co, "existing_nodes_with_room",
                                json_object_new_int64 ((int64_t)v.existing_room));
        for (size_t i = 0; i < c->nbuckets; i++)
            json_object_array_add (buckets, bucket_json (&c->buckets[i], ch, &rooms[i]));
        json_object_object_add (co, "buckets", buckets);
        json_object_array_add (chunks, co);
    }
    json_object_object_add (o, "chunks", chunks);
    return o;
}

static void print_text (json_object *a)
{
    json_object *chunks = json_object_object_get (a, "chunks");
    const char *reason = json_object_get_string (json_object_object_get (a, "reason"));
    printf ("job %s: %s\n", json_object_get_string (json_object_object_get (a, "job")),
            json_object_get_boolean (json_object_object_get (a, "matched")) ? "matched" : "not matched");
    if (reason)
        printf ("  why not: %s\n", reason);
    json_object *nodes = json_object_object_get (a, "nodes");
    for (size_t i = 0; nodes && i < json_object_array_length (nodes); i++)
        printf ("  node: %s\n", json_object_get_string (json_object_array_get_idx (nodes, i)));
    for (size_t ci = 0; ci < json_object_array_length (chunks); ci++) {
        static const char *const headers[] = {"NODEARRAY",  "MACHINE TYPE", "FITS",
                                              ">AVAILABLE", "WHY NOT",      NULL};
        json_object *co = json_object_array_get_idx (chunks, ci);
        json_object *buckets = json_object_object_get (co, "buckets");
        printf ("\nchunk %zu: %d x %s\n  existing nodes that fit: %lld, with room now: %lld\n\n", ci + 1,
                json_object_get_int (json_object_object_get (co, "count")),
                json_object_to_json_string_ext (json_object_object_get (co, "constraints"),
                                                JSON_C_TO_STRING_PLAIN),
                (long long)json_object_get_int64 (json_object_object_get (co, "existing_nodes_that_fit")),
                (long long)json_object_get_int64 (json_object_object_get (co, "existing_nodes_with_room")));
        struct table *t = table_create (headers);
        for (size_t i = 0; i < json_object_array_length (buckets); i++) {
            json_object *b = json_object_array_get_idx (buckets, i);
            int64_t avail = json_object_get_int64 (json_object_object_get (b, "available"));
            bool fits = json_object_get_boolean (json_object_object_get (b, "fits"));
            const char *why = fits ? json_object_get_string (json_object_object_get (b, "available_why"))
                                   : json_object_get_string (json_object_object_get (b, "why_not"));
            char av[32];
            snprintf (av, sizeof (av), avail < 0 ? "unlimited" : "%lld", (long long)avail);
            table_addf (t, "%s\t%s\t%s\t%s\t%s",
                        json_object_get_string (json_object_object_get (b, "nodearray")),
                        json_object_get_string (json_object_object_get (b, "machine_type")),
                        fits ? "yes" : "no", av, why ? why : "");
        }
        table_print (t, stdout);
        table_destroy (t);
    }
}

/* The job alone, on the model the jobs ahead have shaped: every other job
 * left out (running jobs have taken their resources already). */
static int match_alone (struct ccas_cluster *c, struct ccas_jobs *jobs, struct ccas_job *j,
                        struct ccas_error *err)
{
    bool *saved = calloc (2 * jobs->n + 1, sizeof (*saved));
    if (!saved)
        return ccas_errorf (err, "out of memory");
    for (size_t i = 0; i < jobs->n; i++) {
        saved[2 * i] = jobs->v[i].running;
        saved[2 * i + 1] = jobs->v[i].ignore;
        jobs->v[i].running = false;
        jobs->v[i].ignore = &jobs->v[i] != j;
    }
    int rc = ccas_match (c, jobs, NULL, err);
    for (size_t i = 0; i < jobs->n; i++) {
        jobs->v[i].running = saved[2 * i];
        jobs->v[i].ignore = saved[2 * i + 1];
    }
    free (saved);
    return rc;
}

int analyze_job (struct cli *cli, struct ccas_cluster *c, struct ccas_jobs *jobs, const char *job_id)
{
    struct ccas_error err = {""};
    struct ccas_job *j = NULL;
    for (size_t i = 0; i < jobs->n; i++) {
        if (!j && strcmp (jobs->v[i].id, job_id) == 0)
            j = &jobs->v[i];
        if (j && !jobs->v[i].running)
            jobs->v[i].ignore = true; /* the jobs ahead take their share first */
    }
    if (!j || j->running)
        return cli_fail (cli, EXIT_USAGE, "job '%s': %s", job_id,
                         j ? "is running, not pending" : "not among the jobs given");
    if (ccas_match (c, jobs, NULL, &err) < 0)
        return cli_fail (cli, EXIT_INTERNAL, "%s", err.text);
    /* what the buckets have left for this job, not counting its own nodes */
    struct room *rooms = calloc (c->nbuckets + 1, sizeof (*rooms));
    if (!rooms)
        return cli_fail (cli, EXIT_INTERNAL, "out of memory");
    for (size_t i = 0; i < c->nbuckets; i++)
        rooms[i].avail = ccas_bucket_available (&c->buckets[i], rooms[i].why, sizeof (rooms[i].why));
    if (match_alone (c, jobs, j, &err) < 0) {
        free (rooms);
        return cli_fail (cli, EXIT_INTERNAL, "%s", err.text);
    }
    json_object *a = analysis_json (c, j, rooms);
    free (rooms);
    if (cli->json)
        cli_print_json (a);
    else
        print_text (a);
    json_object_put (a);
    return EXIT_OK;
}
