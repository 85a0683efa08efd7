/* SPDX-License-Identifier: MIT */
/* cmd_autoscale.c: `ccautoscale autoscale update|run|show` — the CycleCloud autoscale API's
 * requests: record a request set, reconcile every set with the cluster, show them. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "act.h"
#include "builtins.h"
#include "engine/plan.h"
#include "engine/request.h"
#include "engine/request_set.h"
#include "engine/targets.h"
#include "model_load.h"
#include "plan_print.h"
#include "table.h"
#include "util/failpoint.h"
#include "util/file.h"
#include "util/json.h"
#include "util/log.h"

#define REQUEST_MAX_BYTES ((size_t)64 * 1024 * 1024)

static const struct cmd_option update_options[] = {
    {"--request-set NAME",
     "the request set this request replaces (default 'standard'); each independent program uses its own"},
    {"--expiration SECONDS",
     "pursue the request this long after it is recorded (default 300): repeat it before"},
    {"--dry-run", "check the request and show what it would create; record nothing, create nothing"},
    {NULL, NULL},
};

const struct cmd_help help_autoscale_update = {
    .synopsis = "autoscale update [--request-set NAME] [--expiration SECONDS] [--dry-run] FILE",
    .summary = "record a request of the CycleCloud autoscale API and reconcile it at once",
    .description =
        "FILE ('-' for standard input) is the autoscale API's own request: a JSON list of node array\n"
        "definitions, each with\n"
        "  Name                 the array: a nodearray of the cluster, or a dynamic array's own name\n"
        "  TargetCount          nodes the array should have, or\n"
        "  TargetCoreCount      cores it should have, or\n"
        "  TargetGroupCount     placement groups it should have, each GroupCoreCount cores or\n"
        "                       GroupInstanceCount nodes, all of one machine type\n"
        "  MachineType          a machine type, or a list in preference order (default: the nodearray's)\n"
        "  Configuration        settings its new nodes get (sent as the create's nodeAttributes)\n"
        "  Dynamic, Extends     \"Dynamic\": true with \"Extends\": NODEARRAY makes a dynamic array: nodes "
        "of\n"
        "                       NODEARRAY with their own Configuration, counted apart; without Extends it\n"
        "                       gives MachineType, SubnetId, Credentials and an image itself, and is made\n"
        "                       in the first nodearray with a bucket of each of its machine types\n"
        "  MaxCount, MaxCoreCount  the array grows to no more nodes, cores\n"
        "  ClusterName          accepted when it is this cluster's\n"
        "  ImageName, Priority, Tags, Azure.*, ...  any other nodearray attribute CycleCloud accepts,\n"
        "                       sent with the new nodes (nodeAttributes); Interruptible only as the\n"
        "                       nodearray's own; ComputerName, PlacementGroupId, IsReturnProxy,\n"
        "                       InitialCount, InitialCoreCount and Abstract refuse the entry\n"
        "\n"
        "The request replaces the request set's previous one whole (state_dir/autoscale-SET.json,\n"
        "written atomically) and is pursued for --expiration seconds: a program that scales\n"
        "repeats it before then, listing every array it still needs.  Nodes are created at once\n"
        "and by every later 'autoscale run' while the request lives, up to each target, within\n"
        "every limit CycleCloud states: deallocated nodes of the array are started first, then\n"
        "nodes are created in the first machine type with room, then the next.  A grouped target\n"
        "on array A is the dynamic array 'A:CORES' (or 'A:Nnodes'), one placement group of one\n"
        "machine type per group (the first in order with room for all of it), with\n"
        "cyclecloud.node.group_id in each node's Configuration.  A dynamic array's nodes carry\n"
        "ccautoscale.array and ccautoscale.request_set in theirs.\n"
        "\n"
        "Nothing is ever terminated here: a lower target, an expired request or a dynamic array\n"
        "left out of the set's latest request (flagged for removal) only lets its nodes stop when\n"
        "they ask, with 'ccautoscale autostop'.\n"
        "\n"
        "Each entry is checked on its own.  An unknown attribute, two targets, an Extends or a\n"
        "MachineType the cluster lacks (the error names the machine types there are), a\n"
        "dynamic array named like a nodearray, a negative target: that entry is refused, its\n"
        "index, name and attribute on standard error, and the others are recorded; an array the\n"
        "set's latest request had by the refused entry's Name keeps that request, so one\n"
        "mistake neither drops an array nor flags it for removal.  Exit 4 when an entry was\n"
        "refused or a target could not be reached (why is shown); exit 1, nothing recorded, when\n"
        "the file is not a list or every entry was refused with nothing to keep.",
    .options = update_options,
    .examples = "$ cat request.json\n"
                "[{\"Name\": \"htc\", \"TargetCoreCount\": 16, \"MachineType\": [\"Standard_F4s_v2\", "
                "\"Standard_F2s_v2\"]},\n"
                " {\"Name\": \"bigmem\", \"Extends\": \"htc\", \"Dynamic\": true, \"TargetCount\": 2,\n"
                "  \"Configuration\": {\"app\": {\"version\": \"1.2.3\"}}},\n"
                " {\"Name\": \"hpc\", \"TargetGroupCount\": 2, \"GroupInstanceCount\": 4}]\n"
                "$ ccautoscale autoscale update --dry-run request.json\n"
                "$ ccautoscale autoscale update --request-set nightly --expiration 900 request.json",
    .see_also = "ccautoscale-autoscale-run(8), ccautoscale-autoscale-show(8), ccautoscale-autostop(8)",
};

static const struct cmd_option run_options[] = {
    {"--dry-run", "show what reaching the targets would create; create nothing, forget nothing"},
    {NULL, NULL},
};

const struct cmd_help help_autoscale_run = {
    .synopsis = "autoscale run [--dry-run]",
    .summary = "reconcile every live request set with the cluster (for a timer)",
    .description = "Reads every request set recorded in state_dir and, for each request that has not\n"
                   "expired, starts or creates what its targets still lack, as 'autoscale update' does\n"
                   "when it records one: so a request recorded by a run that was killed before it\n"
                   "created anything, or nodes that failed or were lost since, are made up for.  Several\n"
                   "live sets that name one nodearray each hold it at or above their own target (the\n"
                   "highest wins).  Dynamic arrays flagged for removal whose nodes are all gone are\n"
                   "forgotten.  Nothing is terminated.  The ccautoscale-autoscale.timer unit runs this\n"
                   "every minute.",
    .options = run_options,
    .examples = "$ ccautoscale autoscale run\n"
                "$ systemctl enable --now ccautoscale-autoscale.timer",
    .see_also = "ccautoscale-autoscale-update(8), ccautoscale-autostop(8)",
};

const struct cmd_help help_autoscale_show = {
    .synopsis = "autoscale show",
    .summary = "list each request set's arrays, targets, current counts, expiry and pending removals",
    .description = "One line per array of every request set recorded in state_dir: its nodearray, its\n"
                   "target, the nodes (and cores, and whole groups) that count toward it now, and whether\n"
                   "its request is live or expired; dynamic arrays flagged for removal show how many of\n"
                   "their nodes are left.  Changes nothing.",
    .options = NULL,
    .examples = "$ ccautoscale autoscale show\n"
                "$ ccautoscale autoscale show --json | jq '.arrays[] | select(.removing)'",
    .see_also = "ccautoscale-autoscale-update(8)",
};

/* ---- shared ------------------------------------------------------------------------------- */

static json_object *set_json (const struct ccas_request_set *s, double now)
{
    json_object *o = json_object_new_object ();
    json_object_object_add (o, "name", json_object_new_string (s->name));
    json_object_object_add (o, "recorded", s->time > 0 ? json_object_new_double (s->time) : NULL);
    json_object_object_add (o, "expiration", json_object_new_double (s->expiration));
    json_object_object_add (o, "live", json_object_new_boolean (ccas_request_set_live (s, now)));
    if (s->time > 0)
        json_object_object_add (o, "expires_in", json_object_new_double (s->time + s->expiration - now));
    json_object_object_add (o, "arrays", json_object_new_int64 ((int64_t)s->narrays));
    json_object_object_add (o, "removing", json_object_new_int64 ((int64_t)s->nremoving));
    return o;
}

static const char *state_text (const struct ccas_target_view *v, double now, char *buf, size_t size)
{
    if (v->removing)
        snprintf (buf, size, "removal pending: %lld node%s left", (long long)v->present,
                  v->present == 1 ? "" : "s");
    else if (v->set->time <= 0)
        snprintf (buf, size, "never recorded");
    else if (v->live)
        snprintf (buf, size, "live, %.0f s left", v->set->time + v->set->expiration - now);
    else
        snprintf (buf, size, "expired %.0f s ago", now - (v->set->time + v->set->expiration));
    return buf;
}

static const char *have_text (const struct ccas_target_view *v, char *buf, size_t size)
{
    if (v->req && v->req->kind == CCAS_TARGET_GROUPS)
        snprintf (buf, size, "%lld group%s (%lld nodes)", (long long)v->whole_groups,
                  v->whole_groups == 1 ? "" : "s", (long long)v->nodes);
    else
        snprintf (buf, size, "%lld node%s, %lld cores", (long long)v->nodes, v->nodes == 1 ? "" : "s",
                  (long long)v->cores);
    return buf;
}

static const char *new_text (const struct ccas_target_view *v, char *buf, size_t size)
{
    buf[0] = '\0';
    if (v->new_groups)
        snprintf (buf, size, "%lld group%s (%lld nodes)", (long long)v->new_groups,
                  v->new_groups == 1 ? "" : "s", (long long)v->new_nodes);
    else if (v->new_nodes)
        snprintf (buf, size, "%lld node%s", (long long)v->new_nodes, v->new_nodes == 1 ? "" : "s");
    if (v->started) {
        size_t len = strlen (buf);
        snprintf (buf + len, size - len, "%s%lld started", len ? ", " : "", (long long)v->started);
    }
    if (!buf[0])
        snprintf (buf, size, "-");
    return buf;
}

/* The arrays, with what this run makes of them when `acting`; the shortfalls below. */
static void print_views (const struct ccas_targets *t, bool acting)
{
    static const char *const show[] = {"SET", "ARRAY", "NODEARRAY", "TARGET", "HAVE", "STATE", NULL};
    static const char *const run[] = {"SET", "ARRAY", "NODEARRAY", "TARGET", "HAVE", "NEW", "STATE", NULL};
    char target[100], have[100], made[100], state[100];
    if (!t->nviews) {
        printf ("No arrays requested.\n\n");
        return;
    }
    struct table *tab = table_create (acting ? run : show);
    for (size_t i = 0; i < t->nviews; i++) {
        const struct ccas_target_view *v = &t->views[i];
        const char *tt = v->req ? ccas_array_request_target_text (v->req, target, sizeof (target)) : "-";
        have_text (v, have, sizeof (have));
        state_text (v, t->now, state, sizeof (state));
        if (acting)
            table_addf (tab, "%s\t%s\t%s\t%s\t%s\t%s\t%s", v->set->name, v->name, v->nodearray, tt, have,
                        new_text (v, made, sizeof (made)), state);
        else
            table_addf (tab, "%s\t%s\t%s\t%s\t%s\t%s", v->set->name, v->name, v->nodearray, tt, have, state);
    }
    table_print (tab, stdout);
    table_destroy (tab);
    for (size_t i = 0; i < t->nviews; i++) {
        const struct ccas_target_view *v = &t->views[i];
        if (v->short_by > 0 && v->req)
            printf ("%s (request set '%s'): %lld %s short: %s\n", v->name, v->set->name,
                    (long long)v->short_by, ccas_target_kind_name (v->req->kind), v->why);
    }
    putchar ('\n');
}

static json_object *views_json (const struct ccas_targets *t)
{
    json_object *arr = json_object_new_array ();
    for (size_t i = 0; i < t->nviews; i++)
        json_object_array_add (arr, ccas_target_view_to_json (&t->views[i]));
    return arr;
}

static json_object *sets_json (struct ccas_request_set *const *sets, size_t n, double now)
{
    json_object *arr = json_object_new_array ();
    for (size_t i = 0; i < n; i++)
        json_object_array_add (arr, set_json (sets[i], now));
    return arr;
}

/* Grow the model to the live targets of `sets`, forget what has gone, plan,
 * apply unless `dry_run`, print (with the entries `refused`, may be NULL).
 * Returns an exit code. */
static int reconcile (struct cli *cli, struct ccas_cluster *c, struct ccas_request_set *const *sets,
                      size_t nsets, bool dry_run, bool recorded, json_object *refused)
{
    struct ccas_error err = {""};
    struct ccas_plan *plan = NULL;
    double now = (double)time (NULL);
    int rc = EXIT_OK, nshort;
    bool applied = false;

    struct ccas_targets *t = ccas_targets_create (c, sets, nsets, now, &err);
    if (!t || (nshort = ccas_targets_grow (t, &err)) < 0 || !(plan = ccas_targets_plan (t, &err))) {
        rc = cli_fail (cli, EXIT_INTERNAL, "%s", err.text);
        goto done;
    }
    if (!dry_run && ccas_targets_forget (t) > 0)
        for (size_t i = 0; i < nsets; i++)
            if (sets[i]->changed && ccas_request_set_save (sets[i], &err) < 0)
                ccas_log (LOG_WARNING, "%s", err.text);
    for (size_t i = 0; i < t->nviews; i++)
        if (t->views[i].short_by > 0 && t->views[i].req)
            ccas_log (LOG_NOTICE, "autoscale: %s (request set '%s'): %lld %s short: %s", t->views[i].name,
                      t->views[i].set->name, (long long)t->views[i].short_by,
                      ccas_target_kind_name (t->views[i].req->kind), t->views[i].why);
    if (!dry_run) {
        /* also when there is nothing to do: create requests an earlier run left open are settled */
        if ((rc = act_carry_out (cli, plan)) == EXIT_INTERNAL)
            goto done; /* nothing was sent */
        applied = plan->ncreates || plan->nstarts;
        nshort = 0; /* a fallback after a capacity failure may have made up for some */
        for (size_t i = 0; i < t->nviews; i++)
            nshort += t->views[i].short_by > 0 && t->views[i].req;
    }
    if (rc == EXIT_OK && (nshort > 0 || (refused && json_object_array_length (refused) > 0)))
        rc = EXIT_PARTIAL;
    if (cli->json) {
        json_object *out = ccas_plan_to_json (plan);
        if (refused)
            json_object_object_add (out, "refused", json_object_get (refused));
        json_object_object_add (out, "request_sets", sets_json (sets, nsets, now));
        json_object_object_add (out, "arrays", views_json (t));
        json_object_object_add (out, "recorded", json_object_new_boolean (recorded));
        json_object_object_add (out, "dry_run", json_object_new_boolean (dry_run));
        json_object_object_add (out, "applied", json_object_new_boolean (applied));
        cli_print_json (out);
        json_object_put (out);
    } else {
        print_views (t, true);
        plan_print (stdout, plan, applied, false);
    }
done:
    ccas_plan_destroy (plan); /* before the targets: its nodes borrow their attributes */
    ccas_targets_destroy (t);
    return rc;
}

/* ---- update ------------------------------------------------------------------------------- */

struct update_opts {
    const char *set;
    double expiration;
    bool dry_run;
    const char *file;
};

static int parse_update (struct cli *cli, int argc, char **argv, struct update_opts *o)
{
    static const struct option longopts[] = {
        {"request-set", required_argument, NULL, 0x701},
        {"expiration", required_argument, NULL, 0x702},
        {"dry-run", no_argument, NULL, 0x703},
        {NULL, 0, NULL, 0},
    };
    struct ccas_error err = {""};
    int c;
    while ((c = cli_getopt (cli, argc, argv, "", longopts)) != -1) {
        if (c == 0x701)
            o->set = optarg;
        else if (c == 0x702) {
            char *end;
            o->expiration = strtod (optarg, &end);
            if (*end || end == optarg || !(o->expiration > 0) || o->expiration > 366.0 * 86400)
                return cli_usage_error (
                    cli, "--expiration: expected seconds (more than 0, at most a year), got '%s'", optarg);
        } else if (c == 0x703)
            o->dry_run = true;
    }
    if (optind + 1 != argc)
        return cli_usage_error (cli, optind < argc ? "give one request file" : "the request file is missing");
    o->file = argv[optind];
    if (ccas_request_set_check_name (o->set, &err) < 0)
        return cli_usage_error (cli, "--request-set: %s", err.text);
    return EXIT_OK;
}

/* The entries refused, each on standard error (and logged), after keeping
 * what the set's latest request asked of their Names.  Returns how many. */
static size_t say_refused (struct cli *cli, const struct ccas_request_set *set, json_object *arrays,
                           json_object *refused)
{
    size_t n = json_object_array_length (refused);
    if (n)
        ccas_request_set_keep (set, arrays, refused);
    for (size_t i = 0; i < n; i++) {
        json_object *r = json_object_array_get_idx (refused, i);
        int64_t kept = ccas_json_int (r, "kept", 0);
        char note[120] = "";
        if (kept)
            snprintf (note, sizeof (note), " (the set's latest request of '%s' is kept)",
                      ccas_json_str (r, "name"));
        ccas_log (LOG_WARNING, "autoscale: %s; entry refused%s", ccas_json_str (r, "error"), note);
        cli_fail (cli, EXIT_PARTIAL, "%s; entry refused%s", ccas_json_str (r, "error"), note);
    }
    return n;
}

static int read_request (struct cli *cli, const char *path, json_object **doc)
{
    struct ccas_error err = {""};
    if (!path)
        return cli_usage_error (cli, "the request file is missing");
    bool in = strcmp (path, "-") == 0;
    const char *what = in ? "<stdin>" : path;
    size_t len;
    char *text = ccas_file_read (in ? "/dev/stdin" : path, REQUEST_MAX_BYTES, &len, &err);
    if (!text)
        return cli_fail (cli, EXIT_USAGE, "%s", err.text);
    *doc = ccas_json_parse (text, len, what, &err);
    free (text);
    if (!*doc)
        return cli_fail (cli, EXIT_USAGE, "%s; nothing recorded", err.text);
    return EXIT_OK;
}

int cmd_autoscale_update (struct cli *cli, int argc, char **argv)
{
    struct update_opts o = {CCAS_REQUEST_SET_DEFAULT, CCAS_REQUEST_EXPIRATION_DEFAULT, false, NULL};
    struct model_source src = {.with_nodes = true, .apply_holds = true};
    struct ccas_error err = {""};
    struct ccas_cluster *c = NULL;
    struct ccas_request_set *set = NULL;
    json_object *doc = NULL, *arrays = NULL, *refused = NULL;
    int rc;

    if ((rc = parse_update (cli, argc, argv, &o)) != EXIT_OK ||
        (rc = read_request (cli, o.file, &doc)) != EXIT_OK)
        return rc;
    if ((rc = cli_prepare (cli)) != EXIT_OK || (rc = model_load (cli, &src, &c)) != EXIT_OK)
        goto done;
    const char *what = o.file && strcmp (o.file, "-") != 0 ? o.file : "<stdin>";
    if (!(arrays = ccas_request_parse (doc, what, c, &refused, &err))) {
        rc = cli_fail (cli, EXIT_USAGE, "%s; nothing recorded", err.text);
        goto done;
    }
    if (!(set = ccas_request_set_load (cli->cfg->state_dir, o.set, &err))) {
        json_object_put (arrays);
        rc = cli_fail (cli, EXIT_INTERNAL, "%s; nothing recorded", err.text);
        goto done;
    }
    if (say_refused (cli, set, arrays, refused) == json_object_array_length (doc) &&
        json_object_array_length (doc) > 0 && json_object_array_length (arrays) == 0) {
        json_object_put (arrays);
        rc = cli_fail (cli, EXIT_USAGE, "every entry was refused; nothing recorded");
        goto done;
    }
    double now = (double)time (NULL);
    size_t narrays = json_object_array_length (arrays);
    if (ccas_request_set_replace (set, arrays, now, o.expiration, &err) < 0) {
        rc = cli_fail (cli, EXIT_INTERNAL, "%s; nothing recorded", err.text);
        goto done;
    }
    if (!o.dry_run) {
        if (ccas_request_set_save (set, &err) < 0) {
            rc = cli_fail (cli, EXIT_INTERNAL, "%s; nothing recorded", err.text);
            goto done;
        }
        ccas_log (LOG_INFO, "autoscale: request set '%s' recorded: %zu array%s, pursued for %.0f s",
                  set->name, narrays, narrays == 1 ? "" : "s", o.expiration);
        ccas_failpoint ("autoscale:recorded");
    }
    if (!cli->json)
        printf ("Request set '%s': %s %zu array%s, pursued for %.0f s%s.\n", set->name,
                o.dry_run ? "would record" : "recorded", narrays, narrays == 1 ? "" : "s", o.expiration,
                o.dry_run ? " (dry run: nothing recorded or created)" : "");
    rc = reconcile (cli, c, &set, 1, o.dry_run, !o.dry_run, refused);
done:
    ccas_request_set_destroy (set);
    ccas_cluster_destroy (c);
    json_object_put (refused);
    json_object_put (doc);
    return rc;
}

/* ---- run and show --------------------------------------------------------------------------- */

static int load_sets (struct cli *cli, struct ccas_request_set ***sets, size_t *n)
{
    struct ccas_error err = {""};
    if (ccas_request_set_load_all (cli->cfg->state_dir, sets, n, &err) < 0)
        return cli_fail (cli, EXIT_INTERNAL, "%s", err.text);
    return EXIT_OK;
}

int cmd_autoscale_run (struct cli *cli, int argc, char **argv)
{
    static const struct option longopts[] = {
        {"dry-run", no_argument, NULL, 0x711},
        {NULL, 0, NULL, 0},
    };
    struct model_source src = {.with_nodes = true, .apply_holds = true};
    struct ccas_cluster *c = NULL;
    struct ccas_request_set **sets = NULL;
    size_t nsets = 0;
    bool dry_run = false;
    int rc, opt;

    while ((opt = cli_getopt (cli, argc, argv, "", longopts)) != -1)
        dry_run = dry_run || opt == 0x711;
    if (optind < argc)
        return cli_usage_error (cli, "unexpected argument '%s'", argv[optind]);
    if ((rc = cli_prepare (cli)) != EXIT_OK || (rc = load_sets (cli, &sets, &nsets)) != EXIT_OK)
        return rc;
    if (nsets == 0 && !cli->json) {
        printf ("No request sets recorded in %s.\n", cli->cfg->state_dir);
        goto done;
    }
    if ((rc = model_load (cli, &src, &c)) == EXIT_OK)
        rc = reconcile (cli, c, sets, nsets, dry_run, false, NULL);
done:
    ccas_cluster_destroy (c);
    ccas_request_set_destroy_all (sets, nsets);
    return rc;
}

int cmd_autoscale_show (struct cli *cli, int argc, char **argv)
{
    struct model_source src = {.with_nodes = true};
    struct ccas_error err = {""};
    struct ccas_cluster *c = NULL;
    struct ccas_targets *t = NULL;
    struct ccas_request_set **sets = NULL;
    size_t nsets = 0;
    int rc;

    if ((rc = cli_no_arguments (cli, argc, argv)) != EXIT_OK || (rc = cli_prepare (cli)) != EXIT_OK ||
        (rc = load_sets (cli, &sets, &nsets)) != EXIT_OK)
        return rc;
    if ((rc = model_load (cli, &src, &c)) != EXIT_OK)
        goto done;
    double now = (double)time (NULL);
    if (!(t = ccas_targets_create (c, sets, nsets, now, &err))) {
        rc = cli_fail (cli, EXIT_INTERNAL, "%s", err.text);
        goto done;
    }
    if (cli->json) {
        json_object *out = json_object_new_object ();
        json_object_object_add (out, "request_sets", sets_json (sets, nsets, now));
        json_object_object_add (out, "arrays", views_json (t));
        cli_print_json (out);
        json_object_put (out);
    } else if (!nsets)
        printf ("No request sets recorded in %s.\n", cli->cfg->state_dir);
    else
        print_views (t, false);
done:
    ccas_targets_destroy (t);
    ccas_cluster_destroy (c);
    ccas_request_set_destroy_all (sets, nsets);
    return rc;
}
