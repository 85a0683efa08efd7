/* SPDX-License-Identifier: MIT */
/* cmd_pbs_hook.c: `ccautoscale pbs install-hook` — the site resources, the periodic hook, placement sets. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builtins.h"
#include "pbs_cmds.h"
#include "pbs_sched.h"
#include "run.h"
#include "util/file.h"
#include "util/json.h"
#include "util/state.h"

#ifndef CCAS_PBS_HOOK_DIR
#define CCAS_PBS_HOOK_DIR "/usr/share/ccautoscale/pbs"
#endif
#ifndef CCAS_SBINDIR
#define CCAS_SBINDIR "/usr/sbin"
#endif

/* The resources ccautoscale sets on nodes and jobs ask for. */
static const struct {
    const char *name, *type, *flag;
} site_resources[] = {
    {"slot_type", "string", "h"},   {"group_id", "string", "h"},  {"ungrouped", "string", "h"},
    {"vm_size", "string", "h"},     {"nodearray", "string", "h"}, {"ccnodeid", "string", "h"},
    {"instance_id", "string", "h"}, {"ngpus", "long", "nh"},      {"disk", "size", "nh"},
};

static const struct cmd_option options[] = {
    {"--dry-run", "print the qmgr commands instead of running them"},
    {"--hook-file FILE", "the hook script (default " CCAS_PBS_HOOK_DIR "/ccautoscale_hook.py)"},
    {NULL, NULL},
};

const struct cmd_help help_pbs_install_hook = {
    .synopsis = "pbs install-hook [--dry-run] [--hook-file FILE]",
    .summary = "create the site resources and the periodic hook in PBS (idempotent)",
    .description = "Creates the host resources ccautoscale uses (slot_type, group_id, ungrouped, vm_size,\n"
                   "nodearray, ccnodeid, instance_id as strings; ngpus and disk consumable), unless they\n"
                   "exist; creates the hook 'ccautoscale' (unless it exists), imports the script and its\n"
                   "config (this program, this configuration, pbs.hook_timeout, and $PBS_CONF_FILE when\n"
                   "set: pbs_server does not hand it to its hooks), sets event=periodic,\n"
                   "freq=pbs.hook_freq, alarm=pbs.hook_timeout+20, enabled; and, as cyclecloud-pbspro\n"
                   "does, sets the server's node_group_enable=True and node_group_key=group_id and the\n"
                   "scheduler's do_not_span_psets=True, so that a job runs inside one placement group\n"
                   "(nodes ccautoscale joins outside any have group_id=_none_, one placement set) and\n"
                   "never spans groups; and only_explicit_psets=False (PBS's default), so that the\n"
                   "nodes the site had, without group_id, make a placement set of their own and keep\n"
                   "running jobs.\n"
                   "Then it checks, and warns about, what qmgr cannot set: the resources: line of\n"
                   "$PBS_HOME/sched_priv/sched_config (PBS_HOME from the environment or pbs.conf)\n"
                   "must name slot_type, group_id, ungrouped, disk, ngpus, nodearray and vm_size, or\n"
                   "the scheduler ignores them in a job's select (the warning prints the line to\n"
                   "write; then send pbs_sched SIGHUP).\n"
                   "Run it as a PBS manager on the server host; run it again after an upgrade.",
    .options = options,
    .examples = "$ ccautoscale pbs install-hook --dry-run\n$ ccautoscale pbs install-hook",
    .see_also = "ccautoscale-pbs-autoscale(8)",
};

struct hook_ctx {
    struct cli *cli;
    bool dry_run;
    int failures;
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

/* True when `qmgr -c "list <what>"` succeeds (the object exists). */
static bool exists (struct hook_ctx *h, const char *what)
{
    char cmd[256];
    struct ccas_error err = {""};
    snprintf (cmd, sizeof (cmd), "list %s", what);
    char *argv[] = {"qmgr", "-c", cmd, NULL};
    return !h->dry_run && ccas_run_ok (argv, 30, &err) == 0;
}

static void create_resources (struct hook_ctx *h)
{
    char what[128], cmd[256];
    for (size_t i = 0; i < sizeof (site_resources) / sizeof (site_resources[0]); i++) {
        snprintf (what, sizeof (what), "resource %s", site_resources[i].name);
        if (exists (h, what))
            continue;
        snprintf (cmd, sizeof (cmd), "create resource %s type=%s, flag=%s", site_resources[i].name,
                  site_resources[i].type, site_resources[i].flag);
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
    qmgr (h, "set hook ccautoscale enabled = true");
    qmgr (h, "set server node_group_enable = True");
    qmgr (h, "set server node_group_key = group_id");
    /* nodes without group_id (the site's own) form a set of their own: with
     * True they would be in none, and no job would run there */
    qmgr (h, "set sched only_explicit_psets = False");
    qmgr (h, "set sched do_not_span_psets = True");
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
        {NULL, 0, NULL, 0},
    };
    struct hook_ctx h = {.cli = cli};
    const char *hook_file = CCAS_PBS_HOOK_DIR "/ccautoscale_hook.py";
    int c, rc;
    while ((c = cli_getopt (cli, argc, argv, "", longopts)) != -1) {
        if (c == 0x401)
            h.dry_run = true;
        else if (c == 0x402)
            hook_file = optarg;
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
    create_resources (&h);
    install_hook (&h, hook_file);
    check_sched_config ();
    if (h.failures)
        return cli_fail (cli, EXIT_SCHEDULER,
                         "%d qmgr command%s failed; run again once fixed (each step is idempotent)",
                         h.failures, h.failures == 1 ? "" : "s");
    if (!cli->quiet && !h.dry_run)
        printf ("hook ccautoscale installed: every %d s, alarm %d s\n", (int)cli->cfg->pbs.hook_freq,
                (int)cli->cfg->pbs.hook_timeout + 20);
    return EXIT_OK;
}
