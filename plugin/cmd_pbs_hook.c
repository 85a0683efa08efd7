/* SPDX-License-Identifier: MIT */
/* cmd_pbs_hook.c: `ccautoscale pbs install-hook` — the site resources, the periodic hook, placement
 * sets, and the cutover from azpbs. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "builtins.h"
#include "pbs_cmds.h"
#include "pbs_qmgr.h"
#include "pbs_removed.h"
#include "pbs_sched.h"
#include "pbs_validate.h"
#include "run.h"
#include "util/file.h"
#include "util/json.h"
#include "util/state.h"

/* Where CycleCloud's stock PBS cluster runs azpbs from (cyclecloud-pbspro's
 * install.sh): a periodic hook, or cron (the template's default). */
#define AZPBS_HOOK "autoscale"
#define AZPBS_CRON "/etc/cron.d/azpbs_autoscale"
#define AZPBS_HISTORY "/opt/cycle/pbspro/nodehistory.db"

#ifndef CCAS_PBS_HOOK_DIR
#define CCAS_PBS_HOOK_DIR "/usr/share/ccautoscale/pbs"
#endif
#ifndef CCAS_SBINDIR
#define CCAS_SBINDIR "/usr/sbin"
#endif

static const struct cmd_option options[] = {
    {"--dry-run", "print the qmgr commands and the cutover instead of carrying them out"},
    {"--hook-file FILE", "the hook script (default " CCAS_PBS_HOOK_DIR "/ccautoscale_hook.py)"},
    {"--azpbs disable|refuse", "when azpbs still runs (its hook 'autoscale' enabled, or its cron file "
                               "there): disable it, the default, or "
                               "change nothing and say how"},
    {"--azpbs-cron FILE", "azpbs's cron file (default " AZPBS_CRON ")"},
    {"--azpbs-history FILE", "azpbs's node history, whose VMs kept out of PBS (remove_nodes --permanent) "
                             "stay out (default " AZPBS_HISTORY "; read with sqlite3)"},
    {"--reset-scheduler", "set ccautoscale's placement settings even where the site has its own (default: "
                          "kept when node_group_key is "
                          "set)"},
    {NULL, NULL},
};

const struct cmd_help help_pbs_install_hook = {
    .synopsis =
        "pbs install-hook [--dry-run] [--hook-file FILE] [--azpbs disable|refuse] [--azpbs-cron FILE]\n"
        "    [--azpbs-history FILE] [--reset-scheduler]",
    .summary =
        "create the site resources and the periodic hook in PBS, and take over from azpbs (idempotent)",
    .description =
        "Creates the host resources ccautoscale uses (slot_type, group_id, ungrouped, vm_size,\n"
        "nodearray, ccnodeid, instance_id as strings; ngpus and disk consumable), unless they\n"
        "exist; creates the hook 'ccautoscale' (unless it exists), imports the script and its\n"
        "config (this program, this configuration, pbs.hook_timeout, and $PBS_CONF_FILE when\n"
        "set: pbs_server does not hand it to its hooks), sets event=periodic,\n"
        "freq=pbs.hook_freq, alarm=pbs.hook_timeout+20.\n"
        "\n"
        "Placement: a job runs inside one placement group when the server's node_group_enable\n"
        "is True and node_group_key is group_id, and the scheduler's do_not_span_psets is True.\n"
        "On a server whose node_group_key is not set, install-hook sets those, and\n"
        "only_explicit_psets=False (PBS's default: nodes without group_id, the site's own, make a\n"
        "placement set of their own and keep running jobs).  Where the site has set\n"
        "node_group_key (CycleCloud's stock server sets it with only_explicit_psets=True), its\n"
        "settings are kept, and a warning says what ccautoscale needs that they lack;\n"
        "--reset-scheduler sets ccautoscale's instead.  Then it checks, and warns about, what\n"
        "qmgr cannot set: the resources: line of $PBS_HOME/sched_priv/sched_config (PBS_HOME from\n"
        "the environment or pbs.conf) must name slot_type, group_id, ungrouped, disk, ngpus,\n"
        "nodearray and vm_size, or the scheduler ignores them in a job's select (the warning\n"
        "prints the line to write; then send pbs_sched SIGHUP).  The line is never edited.\n"
        "\n"
        "Moving from azpbs (CycleCloud's stock cluster): when azpbs still runs, from its periodic\n"
        "hook 'autoscale' or from " AZPBS_CRON " (--azpbs-cron), the hook is disabled and the\n"
        "cron file moved to state_dir/azpbs/ once ccautoscale's hook is in place, and only then\n"
        "is ccautoscale's enabled, so the two never run at once; --azpbs refuse changes nothing\n"
        "and says how.  The VMs azpbs kept out of PBS (its node history's ignore list,\n"
        "--azpbs-history) are kept out (pbs remove-nodes --permanent), read with sqlite3.  Nodes\n"
        "azpbs joined (ccnodeid and its 'cyclecloud' comments) are ccautoscale's from the next\n"
        "pass.  It prints how to go back.\n"
        "Run it as a PBS manager on the server host; run it again after an upgrade.",
    .options = options,
    .examples =
        "$ ccautoscale pbs install-hook --dry-run\n$ ccautoscale pbs install-hook\n"
        "$ ccautoscale pbs install-hook --azpbs refuse    # fails, changing nothing, while azpbs runs",
    .see_also = "ccautoscale-pbs-autoscale(8), ccautoscale-pbs-validate(8), ccautoscale-pbs-import-azpbs(8)",
};

struct hook_ctx {
    struct cli *cli;
    bool dry_run;
    bool refuse_azpbs;
    bool reset_scheduler;
    const char *azpbs_cron;
    const char *azpbs_history;
    int failures;
    json_object *hooks;  /* qmgr list hook, or NULL */
    json_object *server; /* qmgr list server, or NULL */
    json_object *sched;  /* qmgr list sched, or NULL */
};

static int qmgr (struct hook_ctx *h, const char *directive)
{
    struct ccas_error err = {""};
    char *argv[] = {"qmgr", "-c", (char *)directive, NULL};
    if (h->dry_run) {
        printf ("qmgr -c '%s'\n", directive);
        return 0;
    }
    if (ccas_run_ok (argv, h->cli->cfg->pbs.command_timeout, &err) < 0) {
        fprintf (stderr, "ccautoscale: %s\n", err.text);
        h->failures++;
        return -1;
    }
    return 0;
}

/* True when `qmgr -c "list <what>"` succeeds (the object exists); a dry run
 * reads too. */
static bool exists (struct hook_ctx *h, const char *what)
{
    char cmd[256];
    struct ccas_error err = {""};
    (void)h;
    snprintf (cmd, sizeof (cmd), "list %s", what);
    char *argv[] = {"qmgr", "-c", cmd, NULL};
    return ccas_run_ok (argv, 30, &err) == 0;
}

static void create_resources (struct hook_ctx *h)
{
    char what[128], cmd[256];
    for (size_t i = 0; ccas_pbs_site_resources[i].name; i++) {
        snprintf (what, sizeof (what), "resource %s", ccas_pbs_site_resources[i].name);
        if (exists (h, what))
            continue;
        snprintf (cmd, sizeof (cmd), "create resource %s type=%s, flag=%s", ccas_pbs_site_resources[i].name,
                  ccas_pbs_site_resources[i].type, ccas_pbs_site_resources[i].flag);
        qmgr (h, cmd);
    }
}

/* The hook's own config, written next to the state so qmgr can import it. */
static int write_hook_config (struct hook_ctx *h, char *path, size_t size)
{
    struct ccas_error err = {""};
    char self[4096];
    ssize_t n = readlink ("/proc/self/exe", self, sizeof (self) - 1);
    if (n > 0)
        self[n] = '\0';
    else
        snprintf (self, sizeof (self), "%s/ccautoscale", CCAS_SBINDIR);
    json_object *o = json_object_new_object ();
    json_object_object_add (o, "program", json_object_new_string (self));
    json_object_object_add (o, "config", json_object_new_string (h->cli->config_path));
    json_object_object_add (o, "timeout", json_object_new_int ((int)h->cli->cfg->pbs.hook_timeout));
    /* pbs_server gives its hooks no PBS_CONF_FILE: a site whose pbs.conf is
     * not /etc/pbs.conf needs it handed on to the commands the pass runs */
    const char *conf = getenv ("PBS_CONF_FILE");
    if (conf && *conf)
        json_object_object_add (o, "pbs_conf_file", json_object_new_string (conf));
    const char *text = json_object_to_json_string_ext (o, JSON_C_TO_STRING_PRETTY);
    snprintf (path, size, "%s/pbs_hook_config.json", h->cli->cfg->state_dir);
    int rc = 0;
    if (h->dry_run)
        printf ("# %s:\n%s\n", path, text);
    else if (ccas_file_write_atomic (path, text, strlen (text), 0644, &err) < 0) {
        fprintf (stderr, "ccautoscale: %s\n", err.text);
        rc = -1;
    }
    json_object_put (o);
    return rc;
}

static void install_hook (struct hook_ctx *h, const char *hook_file)
{
    char cmd[4300], config[4096];
    int freq = (int)h->cli->cfg->pbs.hook_freq;
    int timeout = (int)h->cli->cfg->pbs.hook_timeout;
    if (!exists (h, "hook ccautoscale"))
        qmgr (h, "create hook ccautoscale");
    snprintf (cmd, sizeof (cmd), "import hook ccautoscale application/x-python default %s", hook_file);
    qmgr (h, cmd);
    if (write_hook_config (h, config, sizeof (config)) == 0) {
        snprintf (cmd, sizeof (cmd), "import hook ccautoscale application/x-config default %s", config);
        qmgr (h, cmd);
    } else
        h->failures++;
    qmgr (h, "set hook ccautoscale event = periodic");
    snprintf (cmd, sizeof (cmd), "set hook ccautoscale freq = %d", freq);
    qmgr (h, cmd);
    snprintf (cmd, sizeof (cmd), "set hook ccautoscale alarm = %d", timeout + 20);
    qmgr (h, cmd);
}

/* A qmgr boolean as PBS writes them (True, true, 1, ...). */
static bool truth (const char *v)
{
    return v && (strcasecmp (v, "true") == 0 || strcmp (v, "1") == 0 || strcasecmp (v, "t") == 0 ||
                 strcasecmp (v, "y") == 0);
}

/* The server's and scheduler's placement settings: ccautoscale's on a server
 * that has none of its own (node_group_key unset) or with --reset-scheduler;
 * else the site's are kept and what ccautoscale needs that they lack is said. */
static void placement (struct hook_ctx *h)
{
    const char *key = NULL, *enable = NULL, *span = NULL, *explicit = NULL;
    if (h->server) {
        /* one server: the first (and only) record */
        json_object_object_foreach (h->server, sname, sv)
        {
            (void)sv;
            key = ccas_pbs_qmgr_attr (h->server, sname, "node_group_key");
            enable = ccas_pbs_qmgr_attr (h->server, sname, "node_group_enable");
            break;
        }
    }
    span = ccas_pbs_qmgr_attr (h->sched, "default", "do_not_span_psets");
    explicit = ccas_pbs_qmgr_attr (h->sched, "default", "only_explicit_psets");
    if (!key || h->reset_scheduler) {
        qmgr (h, "set server node_group_enable = True");
        qmgr (h, "set server node_group_key = group_id");
        /* nodes without group_id (the site's own) form a set of their own: with
         * True they would be in none, and no job would run there */
        qmgr (h, "set sched only_explicit_psets = False");
        qmgr (h, "set sched do_not_span_psets = True");
        return;
    }
    if (!h->cli->quiet)
        printf ("kept the site's placement settings: node_group_enable = %s, node_group_key = %s, "
                "do_not_span_psets = %s, only_explicit_psets = %s\n",
                enable ? enable : "False", key, span ? span : "False", explicit ? explicit : "False");
    if (strcmp (key, "group_id") != 0 || !truth (enable) || !truth (span))
        fprintf (stderr,
                 "ccautoscale: warning: a job of several nodes keeps them in one placement group only with "
                 "node_group_enable = True, node_group_key = group_id and do_not_span_psets = True; "
                 "--reset-scheduler sets them\n");
    if (truth (explicit))
        fprintf (stderr,
                 "ccautoscale: warning: only_explicit_psets = True: a node without group_id (one ccautoscale "
                 "did not make) is in no placement set and runs no job of several nodes; "
                 "--reset-scheduler sets it False\n");
}

/* ---- the cutover from azpbs ----------------------------------------------------------------------- */

/* Is azpbs running, from its hook or its cron file?  `what` says from where. */
static bool azpbs_runs (struct hook_ctx *h, bool *hook, bool *cron, char *what, size_t size)
{
    const char *enabled = ccas_pbs_qmgr_attr (h->hooks, AZPBS_HOOK, "enabled");
    *hook = ccas_json_get (h->hooks, AZPBS_HOOK) && (!enabled || truth (enabled));
    *cron = access (h->azpbs_cron, F_OK) == 0;
    snprintf (what, size, "%s%s%s%s", *hook ? "its periodic hook '" AZPBS_HOOK "'" : "",
              *hook && *cron ? " and " : "", *cron ? "its cron file " : "", *cron ? h->azpbs_cron : "");
    return *hook || *cron;
}

/* azpbs off: its hook disabled, its cron file moved to state_dir/azpbs/.
 * Returns 0, or -1 (said) with azpbs as it was. */
static int azpbs_off (struct hook_ctx *h, bool hook, bool cron)
{
    char dir[4200], to[4400];
    const char *base = strrchr (h->azpbs_cron, '/');
    snprintf (dir, sizeof (dir), "%s/azpbs", h->cli->cfg->state_dir);
    snprintf (to, sizeof (to), "%s/%s", dir, base ? base + 1 : h->azpbs_cron);
    if (hook && qmgr (h, "set hook " AZPBS_HOOK " enabled = false") < 0)
        return -1;
    if (!cron)
        return 0;
    if (h->dry_run) {
        printf ("mv %s %s\n", h->azpbs_cron, to);
        return 0;
    }
    if ((mkdir (h->cli->cfg->state_dir, 0755) < 0 && errno != EEXIST) ||
        (mkdir (dir, 0700) < 0 && errno != EEXIST) || rename (h->azpbs_cron, to) < 0) {
        fprintf (stderr, "ccautoscale: cannot move %s to %s: %s\n", h->azpbs_cron, to, strerror (errno));
        h->failures++;
        /* azpbs as it was: its hook back on, or the report below would not be true */
        if (hook)
            qmgr (h, "set hook " AZPBS_HOOK " enabled = true");
        return -1;
    }
    if (!h->cli->quiet)
        printf ("azpbs's cron entry %s moved to %s\n", h->azpbs_cron, to);
    return 0;
}

/* The VMs azpbs kept out of PBS (its node history's nodes.ignore) stay out:
 * read with sqlite3, written to the kept-out list (pbs_removed.h). */
static void azpbs_history (struct hook_ctx *h)
{
    struct ccas_error err = {""};
    struct ccas_run_result r;
    char sql[] = "SELECT node_id, hostname FROM nodes WHERE ignore";
    char *argv[] = {
        "sqlite3", "-readonly", "-batch", "-noheader", "-separator", "\t", (char *)h->azpbs_history,
        sql,       NULL};
    if (access (h->azpbs_history, F_OK) != 0)
        return;
    if (h->dry_run) {
        printf ("sqlite3 -readonly %s '%s'  # VMs azpbs kept out of PBS stay out\n", h->azpbs_history, sql);
        return;
    }
    ccas_run_set_bin_dir (NULL); /* sqlite3 is on the PATH, not with PBS's commands */
    int rc = ccas_run (argv, h->cli->cfg->pbs.command_timeout, 1 << 20, &r, &err);
    ccas_run_set_bin_dir (h->cli->cfg->pbs.bin_dir);
    if (rc < 0 || r.status != 0) {
        fprintf (stderr,
                 "ccautoscale: cannot read azpbs's node history %s: %s (install sqlite3, or give "
                 "--azpbs-history): the VMs azpbs kept out of PBS would join it\n",
                 h->azpbs_history, rc < 0 ? err.text : r.err);
        if (rc == 0)
            ccas_run_result_release (&r);
        h->failures++;
        return;
    }
    struct ccas_state *st = ccas_pbs_removed_load (h->cli->cfg->state_dir, &err);
    size_t added = 0;
    for (char *line = r.out, *next; st && line && *line; line = next) {
        next = strchr (line, '\n');
        if (next)
            *next++ = '\0';
        char *tab = strchr (line, '\t');
        if (tab)
            *tab++ = '\0';
        if (*line && ccas_pbs_removed_add (ccas_state_root (st), line, NULL, tab && *tab ? tab : NULL,
                                           "azpbs", (double)time (NULL)) > 0)
            added++;
    }
    ccas_run_result_release (&r);
    if (!st || (added && ccas_state_save (st, &err) < 0)) {
        fprintf (stderr, "ccautoscale: %s\n", err.text);
        h->failures++;
    } else if (added && !h->cli->quiet)
        printf (
            "%zu VM%s azpbs kept out of PBS (remove_nodes --permanent) stay out: 'pbs join-nodes' lets them "
            "back\n",
            added, added == 1 ? "" : "s");
    ccas_state_destroy (st);
}

/* What qmgr cannot set: the scheduler's resources: line. */
static void check_sched_config (void)
{
    char path[4200], missing[256], line[4600];
    struct ccas_error err = {""};
    size_t len;
    ccas_pbs_sched_config_path (path, sizeof (path));
    char *text = ccas_file_read (path, 1 << 20, &len, &err);
    if (!text) {
        fprintf (stderr, "ccautoscale: warning: %s; if that file has a resources: line, it must name",
                 err.text);
        for (size_t i = 0; ccas_pbs_sched_resources[i]; i++)
            fprintf (stderr, "%s%s", i ? ", " : " ", ccas_pbs_sched_resources[i]);
        fprintf (stderr, "\n");
        return;
    }
    if (ccas_pbs_sched_check (text, ccas_pbs_sched_resources, missing, sizeof (missing), line,
                              sizeof (line)) > 0)
        fprintf (
            stderr,
            "ccautoscale: warning: %s: the scheduler ignores %s in a job's select: its resources: line does "
            "not name them; make that line\n%s\nthen send pbs_sched SIGHUP\n",
            path, missing, line);
    free (text);
}

int cmd_pbs_install_hook (struct cli *cli, int argc, char **argv)
{
    static const struct option longopts[] = {
        {"dry-run", no_argument, NULL, 0x401},
        {"hook-file", required_argument, NULL, 0x402},
        {"azpbs", required_argument, NULL, 0x403},
        {"azpbs-cron", required_argument, NULL, 0x404},
        {"azpbs-history", required_argument, NULL, 0x405},
        {"reset-scheduler", no_argument, NULL, 0x406},
        {NULL, 0, NULL, 0},
    };
    struct hook_ctx h = {.cli = cli, .azpbs_cron = AZPBS_CRON, .azpbs_history = AZPBS_HISTORY};
    const char *hook_file = CCAS_PBS_HOOK_DIR "/ccautoscale_hook.py";
    struct ccas_error err = {""};
    char what[4400];
    bool hook = false, cron = false;
    int c, rc;
    while ((c = cli_getopt (cli, argc, argv, "", longopts)) != -1) {
        if (c == 0x401)
            h.dry_run = true;
        else if (c == 0x402)
            hook_file = optarg;
        else if (c == 0x403 && (strcmp (optarg, "disable") == 0 || strcmp (optarg, "refuse") == 0))
            h.refuse_azpbs = strcmp (optarg, "refuse") == 0;
        else if (c == 0x403)
            return cli_usage_error (cli, "--azpbs '%s': disable or refuse", optarg);
        else if (c == 0x404)
            h.azpbs_cron = optarg;
        else if (c == 0x405)
            h.azpbs_history = optarg;
        else if (c == 0x406)
            h.reset_scheduler = true;
    }
    if (optind < argc)
        return cli_usage_error (cli, "unexpected argument '%s'", argv[optind]);
    if ((rc = cli_prepare (cli)) != EXIT_OK)
        return rc;
    if (access (hook_file, R_OK) != 0)
        return cli_fail (cli, EXIT_CONFIG, "%s: cannot read the hook script (give --hook-file)", hook_file);
    if (strpbrk (hook_file, " \"'\n") || strpbrk (cli->cfg->state_dir, " \"'\n"))
        return cli_fail (cli, EXIT_CONFIG, "%s: qmgr cannot import a path with spaces or quotes", hook_file);
    ccas_run_set_bin_dir (cli->cfg->pbs.bin_dir);
    ccas_pbs_set_timeout (cli->cfg->pbs.command_timeout);
    if (!(h.hooks = ccas_pbs_qmgr_list ("hook", &err)) || !(h.server = ccas_pbs_qmgr_list ("server", &err)) ||
        !(h.sched = ccas_pbs_qmgr_list ("sched", &err))) {
        rc = h.dry_run ? EXIT_OK
                       : cli_fail (cli, EXIT_SCHEDULER, "cannot read PBS: %s; nothing changed", err.text);
        if (rc != EXIT_OK)
            goto done;
    }
    bool azpbs = azpbs_runs (&h, &hook, &cron, what, sizeof (what));
    if (azpbs && h.refuse_azpbs) {
        rc =
            cli_fail (cli, EXIT_SCHEDULER,
                      "azpbs still runs from %s; nothing changed.  Turn it off (qmgr -c 'set hook " AZPBS_HOOK
                      " enabled = false'; move %s out of /etc/cron.d), or run install-hook without --azpbs "
                      "refuse, which does so once ccautoscale's hook is in place",
                      what, h.azpbs_cron);
        goto done;
    }
    create_resources (&h);
    install_hook (&h, hook_file);
    placement (&h);
    check_sched_config ();
    /* azpbs off only once ccautoscale's hook is in place, ccautoscale's on
     * only once azpbs is off: never both, never neither for long */
    if (h.failures == 0)
        azpbs_history (&h);
    if (h.failures == 0 && azpbs && azpbs_off (&h, hook, cron) < 0 && !h.failures)
        h.failures++;
    if (h.failures == 0)
        qmgr (&h, "set hook ccautoscale enabled = true");
    if (h.failures) {
        rc = cli_fail (cli, EXIT_SCHEDULER,
                       "%d step%s failed; run again once fixed (each step is idempotent)%s", h.failures,
                       h.failures == 1 ? "" : "s", azpbs ? "; azpbs was left as it was" : "");
        goto done;
    }
    if (!cli->quiet && !h.dry_run) {
        printf ("hook ccautoscale installed: every %d s, alarm %d s\n", (int)cli->cfg->pbs.hook_freq,
                (int)cli->cfg->pbs.hook_timeout + 20);
        if (azpbs)
            printf (
                "azpbs is off (%s).  To go back: qmgr -c 'set hook ccautoscale enabled = false'%s%s%s%s\n",
                what, hook ? "; qmgr -c 'set hook " AZPBS_HOOK " enabled = true'" : "", cron ? "; move " : "",
                cron ? h.cli->cfg->state_dir : "", cron ? "/azpbs/ back into /etc/cron.d" : "");
    }
done:
    json_object_put (h.hooks);
    json_object_put (h.server);
    json_object_put (h.sched);
    return rc;
}
