/* SPDX-License-Identifier: MIT */
/* cmd_pbs_admin.c: `ccautoscale pbs online | offline | remove-nodes | join-nodes | retry-failed`, the
 * administrator's hand on PBS's nodes, as azpbs's commands of those names were. */
#include "config.h"

#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "builtins.h"
#include "pbs_cmds.h"
#include "pbs_pass.h"
#include "pbs_removed.h"
#include "util/json.h"
#include "util/log.h"

/* ---- which nodes: -H HOST, -N NAME, --all ------------------------------------------------------------ */

static const struct cmd_option target_options[] = {
    {"-H, --hostname HOST", "a node by its hostname, its PBS name (repeat for more)"},
    {"-N, --name NAME", "a node by its CycleCloud name (repeat for more)"},
    {"--all", "every VM of the cluster PBS has a node of"},
    {NULL, NULL},
};

struct target {
    struct ccas_node *node;    /* the VM, or NULL (a PBS node only) */
    struct ccas_pbs_node *pbs; /* its PBS node, or NULL */
    const char *host;          /* the PBS name */
};

struct targets {
    struct target *v;
    size_t n;
    const char **hosts, **names; /* as given */
    size_t nhosts, nnames;
    bool all;
};

static struct ccas_pbs_node *pbs_named (struct ccas_pbs_nodes *pn, const char *host)
{
    for (size_t i = 0; i < pn->n; i++)
        if (strcasecmp (pn->v[i].name, host) == 0)
            return &pn->v[i];
    return NULL;
}

static void add_target (struct targets *t, struct ccas_node *n, struct ccas_pbs_node *p, const char *host)
{
    for (size_t i = 0; i < t->n; i++)
        if ((n && t->v[i].node == n) || (p && t->v[i].pbs == p))
            return;
    t->v[t->n++] = (struct target){n, p, host};
}

/* Resolve what was given against the pass's model and PBS's nodes; an exit
 * code (printed): every one given must be a VM or a PBS node. */
static int resolve (struct cli *cli, struct ccas_pbs_pass *r, struct targets *t, bool need_pbs)
{
    struct ccas_cluster *c = r->model;
    if (!(t->v = calloc (c->nexisting + r->nodes->n + t->nhosts + t->nnames + 1, sizeof (*t->v))))
        return cli_fail (cli, EXIT_INTERNAL, "out of memory");
    for (size_t i = 0; i < t->nnames; i++) {
        struct ccas_node *n = NULL;
        for (size_t k = 0; k < c->nexisting && !n; k++)
            n = strcmp (c->nodes[k]->name, t->names[i]) == 0 ? c->nodes[k] : NULL;
        if (!n)
            return cli_fail (cli, EXIT_USAGE, "no node named '%s' in cluster '%s'; nothing changed",
                             t->names[i], cli->cfg->cluster_name);
        struct ccas_pbs_node *p = ccas_pbs_nodes_find (r->nodes, n);
        add_target (t, n, p, p ? p->name : ccas_pbs_host (n));
    }
    for (size_t i = 0; i < t->nhosts; i++) {
        struct ccas_pbs_node *p = pbs_named (r->nodes, t->hosts[i]);
        struct ccas_node *n = p && p->cc ? p->cc : ccas_cluster_find_node (c, t->hosts[i]);
        if (n && n->index >= c->nexisting)
            n = NULL;
        if (!p && !n)
            return cli_fail (cli, EXIT_USAGE, "neither PBS nor CycleCloud has a node '%s'; nothing changed",
                             t->hosts[i]);
        if (!p && n)
            p = ccas_pbs_nodes_find (r->nodes, n);
        add_target (t, n, p, p ? p->name : t->hosts[i]);
    }
    for (size_t i = 0; t->all && i < c->nexisting; i++) {
        struct ccas_pbs_node *p = ccas_pbs_nodes_find (r->nodes, c->nodes[i]);
        if (p || !need_pbs)
            add_target (t, c->nodes[i], p, p ? p->name : ccas_pbs_host (c->nodes[i]));
    }
    if (!t->n)
        return cli_fail (cli, EXIT_USAGE, "no node to act on");
    for (size_t i = 0; need_pbs && i < t->n; i++)
        if (!t->v[i].pbs)
            return cli_fail (cli, EXIT_USAGE, "PBS has no node '%s'; nothing changed", t->v[i].host);
    return EXIT_OK;
}

/* Parse -H/-N/--all and `extra` (its options from 0x600); an exit code. */
static int parse_targets (struct cli *cli, int argc, char **argv, struct targets *t,
                          const struct option *extra, int (*opt) (int c, void *arg), void *arg)
{
    struct option longopts[16] = {
        {"hostname", required_argument, NULL, 'H'},
        {"name", required_argument, NULL, 'N'},
        {"all", no_argument, NULL, 0x5ff},
    };
    size_t n = 3;
    for (size_t i = 0; extra && extra[i].name && n < 15; i++)
        longopts[n++] = extra[i];
    longopts[n] = (struct option){NULL, 0, NULL, 0};
    t->hosts = calloc ((size_t)argc + 1, sizeof (*t->hosts));
    t->names = calloc ((size_t)argc + 1, sizeof (*t->names));
    if (!t->hosts || !t->names)
        return cli_fail (cli, EXIT_INTERNAL, "out of memory");
    int ch;
    while ((ch = cli_getopt (cli, argc, argv, "H:N:C:", longopts)) != -1) {
        if (ch == 'H')
            t->hosts[t->nhosts++] = optarg;
        else if (ch == 'N')
            t->names[t->nnames++] = optarg;
        else if (ch == 0x5ff)
            t->all = true;
        else if (opt && opt (ch, arg) < 0)
            return EXIT_USAGE;
    }
    if (optind < argc)
        return cli_usage_error (cli, "unexpected argument '%s' (use -H HOST or -N NAME)", argv[optind]);
    if (!t->nhosts && !t->nnames && !t->all)
        return cli_usage_error (cli, "name the nodes: -H HOST, -N NAME, or --all");
    return EXIT_OK;
}

static void targets_free (struct targets *t)
{
    free (t->v);
    free (t->hosts);
    free (t->names);
}

/* Read CycleCloud and PBS as a dry pass does; an exit code (printed). */
static int read_world (struct cli *cli, struct ccas_pbs_pass *r)
{
    struct ccas_error err = {""};
    if (ccas_pbs_pass_attach (r, cli->cfg, cli->api, cli->lock, true, &err) < 0 ||
        ccas_pbs_pass_load (r, &err) < 0)
        return r->failure == CCAS_PBS_PASS_PBS
                   ? EXIT_SCHEDULER
                   : cli_fail (cli, r->failure == CCAS_PBS_PASS_CYCLECLOUD ? EXIT_CYCLECLOUD : EXIT_CONFIG,
                               "%s", err.text);
    return EXIT_OK;
}

/* Run `ops` in one qmgr batch, say each outcome; an exit code. */
static int run_and_say (struct cli *cli, struct ccas_cluster *c, struct ccas_pbs_op *ops, size_t n,
                        const char *verb, json_object *out)
{
    int failed = 0;
    ccas_pbs_run_ops (c, ops, n, NULL);
    for (size_t i = 0; i < n; i++) {
        json_object *e = json_object_new_object ();
        json_object_object_add (e, "node", json_object_new_string (ops[i].host));
        json_object_object_add (e, "done", json_object_new_boolean (!ops[i].failed));
        if (ops[i].failed) {
            json_object_object_add (e, "error", json_object_new_string (ops[i].error));
            fprintf (stderr, "ccautoscale: %s: %s failed: %s\n", ops[i].host, verb, ops[i].error);
            failed++;
        } else if (!cli->json && !cli->quiet)
            printf ("%s: %s\n", ops[i].host, verb);
        json_object_array_add (out, e);
    }
    return failed ? EXIT_SCHEDULER : EXIT_OK;
}

static void print_json (struct cli *cli, json_object *o)
{
    if (cli->json)
        cli_print_json (o);
}

/* ---- pbs online / pbs offline ------------------------------------------------------------------------- */

static const struct cmd_option comment_options[] = {
    {"-H, --hostname HOST", "a node by its hostname, its PBS name (repeat for more)"},
    {"-N, --name NAME", "a node by its CycleCloud name (repeat for more)"},
    {"--all", "every VM of the cluster PBS has a node of"},
    {"-C, --comment TEXT", "said after the marker in the node's comment"},
    {NULL, NULL},
};

const struct cmd_help help_pbs_online = {
    .synopsis = "pbs online (-H HOST | -N NAME | --all)... [-C TEXT] [--json]",
    .summary = "put PBS nodes online, comment 'cyclecloud restored[: TEXT]'",
    .description =
        "'qmgr set node H state -= offline', in one qmgr call for all of them, with the comment a\n"
        "pass also writes when it puts a node online.  A node offline for any reason (the\n"
        "administrator's 'cyclecloud keep offline', a drain) is put back; a pass then treats it\n"
        "as its own again.  Every node named must be in PBS, or nothing changes.",
    .options = comment_options,
    .examples = "$ ccautoscale pbs online -H execute-4 -C 'disk replaced'",
    .see_also = "ccautoscale-pbs-offline(8), ccautoscale-pbs-nodes(8)",
};

const struct cmd_help help_pbs_offline = {
    .synopsis = "pbs offline (-H HOST | -N NAME | --all)... [-C TEXT] [--json]",
    .summary = "take PBS nodes offline for good: 'cyclecloud keep offline[: TEXT]'",
    .description = "'qmgr set node H state += offline', in one qmgr call, with the comment 'cyclecloud keep\n"
                   "offline' (and ': TEXT'), as azpbs's offline wrote it.  Running jobs go on; PBS starts\n"
                   "nothing new there, and no pass drains, deletes, terminates or puts such a node back\n"
                   "online: 'pbs online' does.  Every node named must be in PBS, or nothing changes.",
    .options = comment_options,
    .examples = "$ ccautoscale pbs offline -H execute-4 -C 'bad DIMM, ticket 42'",
    .see_also = "ccautoscale-pbs-online(8), ccautoscale-pbs-remove-nodes(8)",
};

static int take_comment (int c, void *arg)
{
    if (c != 'C')
        return -1;
    *(const char **)arg = optarg;
    return 0;
}

static int on_off (struct cli *cli, int argc, char **argv, bool online)
{
    static const struct option extra[] = {{"comment", required_argument, NULL, 'C'}, {NULL, 0, NULL, 0}};
    struct targets t = {0};
    struct ccas_pbs_pass r = {0};
    const char *text = NULL;
    char comment[400];
    int rc = parse_targets (cli, argc, argv, &t, extra, take_comment, &text);
    if (rc == EXIT_OK && (rc = cli_prepare (cli)) == EXIT_OK && (rc = read_world (cli, &r)) == EXIT_OK &&
        (rc = resolve (cli, &r, &t, true)) == EXIT_OK) {
        snprintf (comment, sizeof (comment), "%s%s%s",
                  online ? CCAS_PBS_MARK_RESTORED : CCAS_PBS_KEEP_OFFLINE, text ? ": " : "",
                  text ? text : "");
        struct ccas_pbs_op *ops = calloc (t.n + 1, sizeof (*ops));
        json_object *out = json_object_new_array ();
        if (!ops) {
            rc = cli_fail (cli, EXIT_INTERNAL, "out of memory");
        } else {
            for (size_t i = 0; i < t.n; i++)
                ops[i] = (struct ccas_pbs_op){.kind = online ? CCAS_PBS_OP_ONLINE : CCAS_PBS_OP_OFFLINE,
                                              .host = t.v[i].host,
                                              .comment = comment};
            rc = run_and_say (cli, r.model, ops, t.n, online ? "online" : "offline", out);
            print_json (cli, out);
        }
        json_object_put (out);
        free (ops);
    }
    ccas_pbs_pass_close (&r);
    targets_free (&t);
    return rc;
}

int cmd_pbs_online (struct cli *cli, int argc, char **argv)
{
    return on_off (cli, argc, argv, true);
}

int cmd_pbs_offline (struct cli *cli, int argc, char **argv)
{
    return on_off (cli, argc, argv, false);
}

/* ---- pbs remove-nodes ------------------------------------------------------------------------------------
 */

static const struct cmd_option remove_options[] = {
    {"-H, --hostname HOST", "a node by its hostname, its PBS name (repeat for more)"},
    {"-N, --name NAME", "a node by its CycleCloud name (repeat for more)"},
    {"--all", "every VM of the cluster PBS has a node of"},
    {"--permanent", "keep the VMs out of PBS: no pass joins, gives work to or terminates them"},
    {"--force", "also nodes that run jobs (PBS refuses to delete one that still does)"},
    {NULL, NULL},
};

const struct cmd_help help_pbs_remove_nodes = {
    .synopsis = "pbs remove-nodes (-H HOST | -N NAME | --all)... [--permanent] [--force] [--json]",
    .summary = "take nodes out of PBS without terminating their VMs",
    .description =
        "Each node is drained (offline, 'ccautoscale: draining: removed by USER') and deleted from\n"
        "PBS, in one qmgr call each, its VM left running.  A node that runs jobs is refused unless\n"
        "--force, and then PBS itself refuses to delete it while they run (it stays drained).\n"
        "Without --permanent the next pass joins the VM again (a fresh vnode: what azpbs's\n"
        "remove_nodes did); with --permanent the VMs are kept out of PBS (the list is\n"
        "state_dir/pbs_removed.json): no pass joins them, gives them work or terminates them, as\n"
        "KeepAlive nodes, until 'pbs join-nodes' lets them back or 'ccautoscale terminate' ends\n"
        "them.  A VM PBS has no node of may be kept out with --permanent.",
    .options = remove_options,
    .examples = "$ ccautoscale pbs remove-nodes -H execute-4 --permanent     # keep it for a look",
    .see_also = "ccautoscale-pbs-join-nodes(8), ccautoscale-pbs-offline(8), ccautoscale-terminate(8)",
};

struct remove_opts {
    bool permanent, force;
};

static int remove_opt (int c, void *arg)
{
    struct remove_opts *o = arg;
    if (c == 0x601)
        o->permanent = true;
    else if (c == 0x602)
        o->force = true;
    else
        return -1;
    return 0;
}

/* The VMs of `t` into the kept-out list; an exit code. */
static int keep_out (struct cli *cli, const struct targets *t)
{
    struct ccas_error err = {""};
    struct ccas_state *st = ccas_pbs_removed_load (cli->cfg->state_dir, &err);
    struct passwd *pw = getpwuid (getuid ());
    int rc = EXIT_OK;
    if (!st)
        return cli_fail (cli, EXIT_INTERNAL, "%s", err.text);
    for (size_t i = 0; i < t->n; i++)
        if (t->v[i].node && t->v[i].node->node_id &&
            ccas_pbs_removed_add (ccas_state_root (st), t->v[i].node->node_id, t->v[i].node->name,
                                  t->v[i].node->hostname, pw ? pw->pw_name : "ccautoscale",
                                  (double)time (NULL)) < 0)
            rc = cli_fail (cli, EXIT_INTERNAL, "out of memory");
    if (rc == EXIT_OK && ccas_state_save (st, &err) < 0)
        rc = cli_fail (cli, EXIT_INTERNAL, "%s", err.text);
    ccas_state_destroy (st);
    return rc;
}

int cmd_pbs_remove_nodes (struct cli *cli, int argc, char **argv)
{
    static const struct option extra[] = {
        {"permanent", no_argument, NULL, 0x601}, {"force", no_argument, NULL, 0x602}, {NULL, 0, NULL, 0}};
    struct targets t = {0};
    struct ccas_pbs_pass r = {0};
    struct remove_opts o = {0};
    char why[300];
    int rc = parse_targets (cli, argc, argv, &t, extra, remove_opt, &o);
    if (rc != EXIT_OK || (rc = cli_prepare (cli)) != EXIT_OK || (rc = read_world (cli, &r)) != EXIT_OK ||
        (rc = resolve (cli, &r, &t, !o.permanent)) != EXIT_OK)
        goto done;
    for (size_t i = 0; i < t.n; i++) {
        if (o.permanent && !t.v[i].node) {
            rc = cli_fail (cli, EXIT_USAGE,
                           "%s is no VM of cluster '%s': nothing to keep out; nothing changed", t.v[i].host,
                           cli->cfg->cluster_name);
            goto done;
        }
        if (t.v[i].pbs && t.v[i].pbs->njobs && !o.force) {
            rc = cli_fail (cli, EXIT_USAGE, "%s runs %u job%s: --force drains it anyway; nothing changed",
                           t.v[i].host, t.v[i].pbs->njobs, t.v[i].pbs->njobs == 1 ? "" : "s");
            goto done;
        }
    }
    if (o.permanent && (rc = keep_out (cli, &t)) != EXIT_OK)
        goto done;
    struct passwd *pw = getpwuid (getuid ());
    snprintf (why, sizeof (why), "removed by %s", pw ? pw->pw_name : "an administrator");
    struct ccas_pbs_op *ops = calloc (2 * t.n + 1, sizeof (*ops));
    json_object *out = json_object_new_array ();
    size_t n = 0;
    if (!ops) {
        json_object_put (out);
        rc = cli_fail (cli, EXIT_INTERNAL, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < t.n; i++)
        if (t.v[i].pbs)
            ops[n++] = (struct ccas_pbs_op){.kind = CCAS_PBS_OP_DRAIN, .host = t.v[i].host, .why = why};
    json_object *drained = json_object_new_array ();
    rc = n ? run_and_say (cli, r.model, ops, n, "drained", drained) : EXIT_OK;
    json_object_put (drained);
    for (size_t i = 0; i < n; i++)
        ops[i] = (struct ccas_pbs_op){.kind = CCAS_PBS_OP_DELETE, .host = ops[i].host};
    int drc = n ? run_and_say (cli, r.model, ops, n, "deleted from PBS", out) : EXIT_OK;
    if (rc == EXIT_OK)
        rc = drc;
    if (!cli->json && !cli->quiet)
        printf ("%s\n", o.permanent ? "kept out of PBS: 'pbs join-nodes' lets them back"
                                    : "the next pass joins them again (--permanent keeps them out)");
    print_json (cli, out);
    json_object_put (out);
    free (ops);
done:
    ccas_pbs_pass_close (&r);
    targets_free (&t);
    return rc;
}

/* ---- pbs join-nodes --------------------------------------------------------------------------------------
 */

const struct cmd_help help_pbs_join_nodes = {
    .synopsis = "pbs join-nodes (-H HOST | -N NAME | --all)... [--json]",
    .summary = "join VMs to PBS now, those kept out included",
    .description =
        "Lets the VMs 'pbs remove-nodes --permanent' (or azpbs's remove_nodes --permanent, which\n"
        "install-hook imported) kept out back, then does for them what a pass does, now:\n"
        "creates the vnode of each VM whose hostname and address CycleCloud reports (one\n"
        "create node with its resources and marker, offline), and puts online those Ready\n"
        "(a placement group only whole, every member's mom reported).  A node offline for any other\n"
        "reason is left as it is ('pbs online' puts it back).",
    .options = target_options,
    .examples = "$ ccautoscale pbs join-nodes -H execute-4",
    .see_also = "ccautoscale-pbs-remove-nodes(8), ccautoscale-pbs-online(8)",
};

int cmd_pbs_join_nodes (struct cli *cli, int argc, char **argv)
{
    struct targets t = {0};
    struct ccas_pbs_pass r = {0};
    struct ccas_pbs_actions a = {0};
    struct ccas_error err = {""};
    struct ccas_state *st = NULL;
    const char **only = NULL;
    int rc = parse_targets (cli, argc, argv, &t, NULL, NULL, NULL);
    if (rc != EXIT_OK || (rc = cli_prepare (cli)) != EXIT_OK || (rc = read_world (cli, &r)) != EXIT_OK ||
        (rc = resolve (cli, &r, &t, false)) != EXIT_OK)
        goto done;
    if (!(st = ccas_pbs_removed_load (cli->cfg->state_dir, &err))) {
        rc = cli_fail (cli, EXIT_INTERNAL, "%s", err.text);
        goto done;
    }
    bool changed = false;
    if (!(only = calloc (t.n + 1, sizeof (*only)))) {
        rc = cli_fail (cli, EXIT_INTERNAL, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < t.n; i++) {
        if (!t.v[i].node) {
            rc = cli_fail (cli, EXIT_USAGE, "%s is no VM of cluster '%s'; nothing changed", t.v[i].host,
                           cli->cfg->cluster_name);
            goto done;
        }
        only[i] = t.v[i].node->name;
        if (t.v[i].node->node_id && ccas_pbs_removed_drop (ccas_state_root (st), t.v[i].node->node_id)) {
            changed = true;
            if (!cli->json && !cli->quiet)
                printf ("%s: no longer kept out of PBS\n", t.v[i].node->name);
        }
    }
    if (changed && ccas_state_save (st, &err) < 0) {
        rc = cli_fail (cli, EXIT_INTERNAL, "%s", err.text);
        goto done;
    }
    /* the model as if they had never been kept out */
    ccas_pbs_nodes_keep_out (r.nodes, r.model, ccas_state_root (st));
    if (ccas_pbs_actions_joins (r.model, r.nodes, &(struct ccas_pbs_join_rules){r.valid, r.nvalid}, only, &a,
                                &err) < 0) {
        rc = cli_fail (cli, EXIT_INTERNAL, "%s", err.text);
        goto done;
    }
    static const char *const dflt[] = {"ncpus", "mem", "ngpus", "disk", "slot_type", NULL};
    const char *names[65];
    json_object *list = cli->cfg->pbs.node_resources;
    size_t nn = 0;
    for (size_t i = 0; list && i < json_object_array_length (list) && nn < 64; i++)
        names[nn++] = json_object_get_string (json_object_array_get_idx (list, i));
    names[nn] = NULL;
    ccas_pbs_actions_after (&a, r.model, list ? names : (const char *const *)dflt);
    json_object *out = ccas_pbs_actions_json (&a, true);
    if (cli->json)
        cli_print_json (out);
    else if (!cli->quiet) {
        for (size_t i = 0; i < a.n; i++)
            printf ("%s: %s (%s)%s%s\n", a.v[i].host,
                    a.v[i].outcome == CCAS_DONE ? (a.v[i].kind == CCAS_PBS_ONLINE ? "put online" : "joined")
                    : a.v[i].outcome == CCAS_FAILED ? "FAILED"
                                                    : "not yet",
                    a.v[i].why, a.v[i].error[0] ? ": " : "", a.v[i].error);
        if (!a.n)
            printf (
                "nothing to do now: joined already, offline for another reason, or not booted far enough\n");
    }
    json_object_put (out);
    if (ccas_pbs_actions_failures (&a))
        rc = EXIT_SCHEDULER;
done:
    ccas_pbs_actions_free (&a);
    ccas_state_destroy (st);
    free (only);
    ccas_pbs_pass_close (&r);
    targets_free (&t);
    return rc;
}

/* ---- pbs retry-failed -------------------------------------------------------------------------------- */

static const struct cmd_option no_options[] = {
    {NULL, NULL},
};

const struct cmd_help help_pbs_retry_failed = {
    .synopsis = "pbs retry-failed [--json]",
    .summary = "have CycleCloud boot the cluster's Failed VMs again",
    .description = "Lists the Failed VMs (with why CycleCloud says they failed) and asks CycleCloud to\n"
                   "retry them (POST /cloud/actions/retry/CLUSTER, what azpbs's retry_failed_nodes sent):\n"
                   "they boot again, their setup runs again.  A pass would otherwise terminate a Failed VM\n"
                   "and make a new one for its jobs.",
    .options = no_options,
    .examples = "$ ccautoscale pbs retry-failed",
    .see_also = "ccautoscale-pbs-nodes(8), ccautoscale-breaker(8)",
};

int cmd_pbs_retry_failed (struct cli *cli, int argc, char **argv)
{
    struct ccas_error err = {""};
    struct ccas_status *st = NULL;
    int rc = cli_no_arguments (cli, argc, argv);
    if (rc != EXIT_OK || (rc = cli_prepare (cli)) != EXIT_OK)
        return rc;
    if (ccas_ccapi_get_status (cli->api, true, &st, &err) < 0)
        return cli_fail_api (cli, &err);
    json_object *failed = json_object_new_array ();
    for (size_t i = 0; st->nodes && i < st->nnodes; i++) {
        const struct ccas_record *n = &st->nodes[i];
        if (!n->status || strcmp (n->status, "Failed") != 0)
            continue;
        json_object *e = json_object_new_object ();
        json_object_object_add (e, "name", json_object_new_string (n->name ? n->name : ""));
        json_object_object_add (e, "message",
                                n->status_message ? json_object_new_string (n->status_message) : NULL);
        json_object_array_add (failed, e);
        if (!cli->json && !cli->quiet)
            printf ("%s: %s\n", n->name ? n->name : "?", n->status_message ? n->status_message : "Failed");
    }
    size_t nfailed = json_object_array_length (failed);
    ccas_status_destroy (st);
    if (nfailed && ccas_ccapi_retry_failed (cli->api, &err) < 0) {
        json_object_put (failed);
        return cli_fail_api (cli, &err);
    }
    if (cli->json) {
        json_object *o = json_object_new_object ();
        json_object_object_add (o, "retried", failed);
        cli_print_json (o);
        json_object_put (o);
    } else {
        if (!cli->quiet)
            printf ("%s\n",
                    nfailed ? "retried: CycleCloud boots them again" : "no Failed VM: nothing to retry");
        json_object_put (failed);
    }
    return EXIT_OK;
}
