/* SPDX-License-Identifier: MIT */
/* wait.c: --wait — follow the nodes an action touched until they settle. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/clock.h"
#include "wait.h"

#define WAIT_DEFAULT_TIMEOUT 1200.0

/* Statuses in lifecycle order, so that progress reads left to right. */
static const char *const order[] = {
    "Off", "Acquiring", "Preparing", "Ready", "Failed", "Terminating", "Terminated", "removed", NULL,
};

struct seen {
    const char *name;
    const char *status;  /* "removed" when absent from the answer */
    const char *message; /* the server's StatusMessage, or NULL */
};

int wait_parse_timeout (struct cli *cli, const char *arg, double *timeout)
{
    char *end;
    if (!arg) {
        *timeout = WAIT_DEFAULT_TIMEOUT;
        return EXIT_OK;
    }
    *timeout = strtod (arg, &end);
    if (*end || end == arg || !(*timeout > 0))
        return cli_usage_error (cli, "--wait: expected a number of seconds, got '%s'", arg);
    return EXIT_OK;
}

static int by_name (const void *a, const void *b)
{
    return strcmp (((const struct ccas_record *)a)->name, ((const struct ccas_record *)b)->name);
}

/* One poll: fill `seen` (*nseen entries) from the server's answer.  The
 * strings are borrowed from `*list`, which the caller keeps until the next poll. */
static int poll_nodes (struct cli *cli, const struct wait_spec *spec, struct ccas_record_list **list,
                       struct seen **seen, size_t *nseen, struct ccas_error *err)
{
    ccas_record_list_destroy (*list);
    *list = NULL;
    if (ccas_ccapi_get_nodes (cli->api, NULL, spec->goal == WAIT_READY ? spec->request_id : NULL, list, err) <
        0)
        return -1;
    struct ccas_record_list *l = *list;
    size_t n = spec->goal == WAIT_READY ? l->nnodes : spec->nnames;
    struct seen *s = realloc (*seen, (n ? n : 1) * sizeof (*s));
    if (!s) {
        snprintf (err->text, sizeof (err->text), "out of memory");
        return -1;
    }
    *seen = s;
    *nseen = n;
    if (spec->goal == WAIT_READY) {
        for (size_t i = 0; i < n; i++)
            s[i] = (struct seen){l->nodes[i].name,
                                 ccas_record_is_ready (&l->nodes[i]) ? "Ready" : l->nodes[i].status,
                                 l->nodes[i].status_message};
        return 0;
    }
    qsort (l->nodes, l->nnodes, sizeof (*l->nodes), by_name);
    for (size_t i = 0; i < n; i++) {
        struct ccas_record key = {.name = spec->names[i]};
        const struct ccas_record *r = bsearch (&key, l->nodes, l->nnodes, sizeof (*l->nodes), by_name);
        s[i] = (struct seen){spec->names[i], r ? r->status : "removed", r ? r->status_message : NULL};
    }
    return 0;
}

static bool settled (const struct wait_spec *spec, const struct seen *s)
{
    if (!s->status)
        return false;
    if (spec->goal == WAIT_READY)
        return strcmp (s->status, "Ready") == 0 || strcmp (s->status, "Failed") == 0;
    return strcmp (s->status, "removed") == 0 || strcmp (s->status, "Terminated") == 0;
}

static bool known_status (const char *status)
{
    for (size_t k = 0; order[k]; k++)
        if (strcmp (order[k], status) == 0)
            return true;
    return false;
}

/* "4 nodes: Acquiring 2, Preparing 1, Ready 1" */
static void summarize (const struct seen *s, size_t n, char *buf, size_t size)
{
    size_t len = (size_t)snprintf (buf, size, "%zu node%s:", n, n == 1 ? "" : "s");
    bool first = true;
    for (size_t k = 0; order[k] && len < size; k++) {
        size_t count = 0;
        for (size_t i = 0; i < n; i++)
            count += s[i].status && strcmp (s[i].status, order[k]) == 0;
        if (count)
            len += (size_t)snprintf (buf + len, size - len, "%s %s %zu", first ? "" : ",", order[k], count);
        first = first && !count;
    }
    size_t other = 0;
    for (size_t i = 0; i < n; i++)
        other += !s[i].status || !known_status (s[i].status);
    if (other && len < size)
        snprintf (buf + len, size - len, "%s other %zu", first ? "" : ",", other);
}

static void show_progress (struct cli *cli, double elapsed, const char *line, char *last, size_t lastsize)
{
    if (cli->json)
        return;
    if (cli->interactive) {
        printf ("\r\033[K[%4.0fs] %s", elapsed, line);
        fflush (stdout);
    } else if (strcmp (line, last) != 0) {
        printf ("[%4.0fs] %s\n", elapsed, line);
        fflush (stdout);
    }
    snprintf (last, lastsize, "%s", line);
}

static json_object *make_report (const struct seen *s, size_t n, double elapsed, bool timed_out)
{
    json_object *r = json_object_new_object ();
    json_object *arr = json_object_new_array ();
    json_object_object_add (r, "seconds", json_object_new_double (round (elapsed * 10) / 10));
    json_object_object_add (r, "timed_out", json_object_new_boolean (timed_out));
    for (size_t i = 0; i < n; i++) {
        json_object *o = json_object_new_object ();
        json_object_object_add (o, "name", json_object_new_string (s[i].name ? s[i].name : ""));
        json_object_object_add (o, "status", json_object_new_string (s[i].status ? s[i].status : ""));
        if (s[i].message)
            json_object_object_add (o, "message", json_object_new_string (s[i].message));
        json_object_array_add (arr, o);
    }
    json_object_object_add (r, "nodes", arr);
    return r;
}

/* Name what did not reach the goal: failed nodes with the server's message,
 * then the ones still on their way when time ran out. */
static int outcome (struct cli *cli, const struct wait_spec *spec, const struct seen *s, size_t n,
                    bool timed_out)
{
    int rc = EXIT_OK;
    for (size_t i = 0; i < n; i++) {
        bool failed = s[i].status && strcmp (s[i].status, "Failed") == 0;
        if (failed)
            rc = cli_fail (cli, EXIT_PARTIAL, "%s failed: %s", s[i].name,
                           s[i].message ? s[i].message : "no message");
        else if (timed_out && !settled (spec, &s[i]))
            rc = cli_fail (cli, EXIT_PARTIAL, "%s still %s after %g s", s[i].name,
                           s[i].status ? s[i].status : "without a status", spec->timeout);
    }
    return rc;
}

int wait_nodes (struct cli *cli, const struct wait_spec *spec, json_object **report)
{
    struct ccas_error err = {""};
    struct ccas_record_list *list = NULL;
    struct seen *seen = NULL;
    size_t nseen = 0;
    char line[512], last[512] = "";
    double start = ccas_clock_monotonic (), elapsed = 0;
    bool timed_out = false;
    int rc;

    *report = NULL;
    for (;;) {
        if (poll_nodes (cli, spec, &list, &seen, &nseen, &err) < 0) {
            rc = cli_fail_api (cli, &err);
            goto done;
        }
        elapsed = ccas_clock_monotonic () - start;
        summarize (seen, nseen, line, sizeof (line));
        show_progress (cli, elapsed, line, last, sizeof (last));
        size_t open = 0;
        for (size_t i = 0; i < nseen; i++)
            open += !settled (spec, &seen[i]);
        if (!open)
            break;
        if (elapsed >= spec->timeout) {
            timed_out = true;
            break;
        }
        /* quick while VMs usually move, gentle on the server after */
        double pause = elapsed < 10 ? 1 : elapsed < 60 ? 2 : 5;
        ccas_clock_sleep (fmin (pause, spec->timeout - elapsed + 0.05));
    }
    if (cli->interactive && !cli->json)
        printf ("\n");
    rc = outcome (cli, spec, seen, nseen, timed_out);
    *report = make_report (seen, nseen, elapsed, timed_out);
done:
    free (seen);
    ccas_record_list_destroy (list);
    return rc;
}
