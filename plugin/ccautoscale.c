/* SPDX-License-Identifier: MIT */
/* ccautoscale.c: main() — global options, the command table, dispatch. */
#include "config.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builtins.h"
#include "cli.h"
#include "thp.h"
#ifdef WITH_SLURM
#include "slurmapi.h"
#endif

static const struct cmd config_cmds[] = {
    {"check", cmd_config_check, NEED_CONFIG, &help_config_check, NULL},
    {"keys", cmd_config_keys, 0, &help_config_keys, NULL},
    {NULL, NULL, 0, NULL, NULL},
};

static const struct cmd autoscale_cmds[] = {
    {"run", cmd_autoscale_run, NEED_API | NEED_LOCK, &help_autoscale_run, NULL},
    {"show", cmd_autoscale_show, NEED_API, &help_autoscale_show, NULL},
    {"update", cmd_autoscale_update, NEED_API | NEED_LOCK, &help_autoscale_update, NULL},
    {NULL, NULL, 0, NULL, NULL},
};

static const struct cmd_help help_autoscale = {
    .synopsis = "autoscale update|run|show [OPTIONS]",
    .summary = "the CycleCloud autoscale API for any scheduler: targets, dynamic arrays, request sets",
    .description = "A program of a scheduler that is neither Slurm nor PBS states what it needs with\n"
                   "'autoscale update FILE' (TargetCount, TargetCoreCount or TargetGroupCount per node\n"
                   "array, dynamic arrays with their own Configuration, request sets that expire); a timer\n"
                   "runs 'autoscale run'; 'autoscale show' lists the sets; nodes stop through\n"
                   "'ccautoscale autostop'.",
};

static const struct cmd breaker_cmds[] = {
    {"list", cmd_breaker_list, NEED_CONFIG, &help_breaker_list, NULL},
    {"reset", cmd_breaker_reset, NEED_LOCK, &help_breaker_reset, NULL},
    {NULL, NULL, 0, NULL, NULL},
};

static const struct cmd_help help_breaker = {
    .synopsis = "breaker list|reset [NODEARRAY]",
    .summary = "the circuit breaker: nodearrays where creating stopped after repeated boot failures",
    .description = "'breaker list' shows each nodearray's consecutive boot failures and open breakers;\n"
                   "'breaker reset NODEARRAY' closes one.",
};

static const struct cmd pbs_cmds[] = {
    {"analyze", cmd_pbs_analyze, NEED_API, &help_pbs_analyze, NULL},
    {"autoscale", cmd_pbs_autoscale, NEED_API | NEED_LOCK, &help_pbs_autoscale, NULL},
    {"demand", cmd_pbs_demand, NEED_API, &help_pbs_demand, NULL},
    {"import-azpbs", cmd_pbs_import_azpbs, 0, &help_pbs_import_azpbs, NULL},
    {"install-hook", cmd_pbs_install_hook, NEED_CONFIG, &help_pbs_install_hook, NULL},
    {"join-nodes", cmd_pbs_join_nodes, NEED_API | NEED_LOCK, &help_pbs_join_nodes, NULL},
    {"nodes", cmd_pbs_nodes, NEED_API, &help_pbs_nodes, NULL},
    {"offline", cmd_pbs_offline, NEED_API | NEED_LOCK, &help_pbs_offline, NULL},
    {"online", cmd_pbs_online, NEED_API | NEED_LOCK, &help_pbs_online, NULL},
    {"remove-nodes", cmd_pbs_remove_nodes, NEED_API | NEED_LOCK, &help_pbs_remove_nodes, NULL},
    {"retry-failed", cmd_pbs_retry_failed, NEED_API | NEED_LOCK, &help_pbs_retry_failed, NULL},
    {"validate", cmd_pbs_validate, NEED_CONFIG, &help_pbs_validate, NULL},
    {NULL, NULL, 0, NULL, NULL},
};

static const struct cmd_help help_pbs = {
    .synopsis = "pbs autoscale|demand|analyze|install-hook|import-azpbs|validate|nodes|online|offline|\n"
                "    remove-nodes|join-nodes|retry-failed [OPTIONS]",
    .summary =
        "the PBS integration: the periodic hook's pass, dry run, analysis, installation, nodes by hand",
    .description = "PBS's periodic hook runs 'ccautoscale pbs autoscale' every pbs.hook_freq seconds;\n"
                   "'pbs demand' is the same pass without changes, 'pbs analyze' explains one job.\n"
                   "'pbs import-azpbs' and 'pbs install-hook' move a CycleCloud stock cluster from azpbs;\n"
                   "'pbs validate' checks PBS's configuration; 'pbs nodes' shows VMs and PBS nodes side by\n"
                   "side; online, offline, remove-nodes, join-nodes and retry-failed are azpbs's commands\n"
                   "of those names.",
};

#ifdef WITH_SERVE
static const struct cmd serve_cmds[] = {
    {"token", cmd_serve_token, NEED_API, &help_serve_token, NULL},
    {NULL, NULL, 0, NULL, NULL},
};
#endif

#ifdef WITH_SLURM
static const struct cmd slurm_cmds[] = {
    {"accounting-info", cmd_slurm_accounting_info, NEED_API | NEED_SLURM, &help_slurm_accounting_info, NULL},
    {"conf", cmd_slurm_conf, NEED_API, &help_slurm_conf, NULL},
    {"demand", cmd_slurm_demand, NEED_API | NEED_SLURM, &help_slurm_demand, NULL},
    {"dynamic", cmd_slurm_dynamic, NEED_API | NEED_LOCK | NEED_SLURM, &help_slurm_dynamic, NULL},
    {"import-azslurm", cmd_slurm_import_azslurm, 0, &help_slurm_import_azslurm, NULL},
    {"keep-alive", cmd_slurm_keep_alive, NEED_API | NEED_LOCK | NEED_SLURM, &help_slurm_keep_alive, NULL},
    {"remove-nodes", cmd_slurm_remove_nodes, NEED_API | NEED_LOCK | NEED_SLURM, &help_slurm_remove_nodes,
     NULL},
    {"retry-failed", cmd_slurm_retry_failed, NEED_API | NEED_LOCK | NEED_SLURM, &help_slurm_retry_failed,
     NULL},
    {"sync", cmd_slurm_sync, NEED_API | NEED_LOCK | NEED_SLURM, &help_slurm_sync, NULL},
    {"wait-for-resume", cmd_slurm_wait_for_resume, NEED_API | NEED_SLURM, &help_slurm_wait_for_resume, NULL},
    {NULL, NULL, 0, NULL, NULL},
};
#endif

static const struct cmd_help help_config = {
    .synopsis = "config check|keys [OPTIONS]",
    .summary = "validate the configuration and list every key",
    .description = "'config check' loads the configuration, validates every key and prints the\n"
                   "effective configuration (defaults filled in, the password shown as ****).\n"
                   "'config keys' lists every key with its type, default and meaning.",
};

#ifdef WITH_SLURM
static const struct cmd_help help_slurm = {
    .synopsis = "slurm conf|demand|sync|import-azslurm|dynamic|keep-alive|accounting-info|wait-for-resume|"
                "retry-failed|remove-nodes [OPTIONS]",
    .summary = "the Slurm integration: slurm.conf generation, dry run, reconciliation, moving from azslurm, "
               "node administration",
    .description = "The programs slurmctld runs are ccautoscale-resume(8), ccautoscale-suspend(8)\n"
                   "and ccautoscale-resume-fail(8); these commands are for the administrator, the sync\n"
                   "timer and a job's prolog.",
};
#endif

/* Sorted by name; `help` walks it in this order. */
static const struct cmd commands[] = {
    {"analyze", cmd_analyze, NEED_API, &help_analyze, NULL},
    {"autoscale", NULL, 0, &help_autoscale, autoscale_cmds},
    {"autostop", cmd_autostop, NEED_API | NEED_LOCK, &help_autostop, NULL},
    {"breaker", NULL, 0, &help_breaker, breaker_cmds},
    {"buckets", cmd_buckets, NEED_API, &help_buckets, NULL},
    {"config", NULL, 0, &help_config, config_cmds},
    {"create", cmd_create, NEED_API | NEED_LOCK, &help_create, NULL},
    {"demand", cmd_demand, NEED_API, &help_demand, NULL},
    {"initconfig", cmd_initconfig, 0, &help_initconfig, NULL},
    {"metrics", cmd_metrics, NEED_CONFIG, &help_metrics, NULL},
    {"nodes", cmd_nodes, NEED_API, &help_nodes, NULL},
    {"pbs", NULL, 0, &help_pbs, pbs_cmds},
    {"scale", cmd_scale, NEED_API | NEED_LOCK, &help_scale, NULL},
#ifdef WITH_SERVE
    /* a command and a group: `serve` runs the service, `serve token` prints a node's token */
    {"serve", cmd_serve, NEED_API, &help_serve, serve_cmds},
#endif
#ifdef WITH_SLURM
    {"slurm", NULL, 0, &help_slurm, slurm_cmds},
#endif
    {"status", cmd_status, NEED_API, &help_status, NULL},
    {"terminate", cmd_terminate, NEED_API | NEED_LOCK, &help_terminate, NULL},
    {NULL, NULL, 0, NULL, NULL},
};

/* The version, and the libslurm the Slurm commands were built against (a
 * Slurm client must match the Slurm it talks to). */
static void print_version (void)
{
    printf ("%s %s\n", PACKAGE_NAME, PACKAGE_VERSION);
#ifdef WITH_SLURM
    char slurm[512];
    printf ("Slurm: built against %s\n", ccas_slurm_describe (slurm, sizeof (slurm)));
#else
    printf ("Slurm: not built in (configure --without-slurm)\n");
#endif
}

static const struct cmd_help help_main = {
    .synopsis = "[-c FILE] [-v] [--json] COMMAND [ARGS]",
    .summary = "autoscale Slurm and PBS clusters on Azure CycleCloud",
    .description = "ccautoscale starts the virtual machines that queued jobs need, in the right machine\n"
                   "types and placement groups and within quotas, and gives them back when idle or broken.\n"
                   "This command is the administrator's tool: look first, dry-run, then act.\n"
                   "\n"
                   "Run 'ccautoscale COMMAND --help' for a command's options.  Commands that change\n"
                   "anything in CycleCloud print what they would do unless told to act.",
    .examples = "$ ccautoscale status\n"
                "$ ccautoscale buckets --nodearray hpc\n"
                "$ ccautoscale demand --jobs jobs.json            # dry run\n"
                "$ ccautoscale demand --jobs jobs.json --apply",
    .see_also = "ccautoscale-resume(8), ccautoscale-suspend(8), ccautoscale-resume-fail(8), ccsim(1)",
};

static void list_commands (FILE *f, const struct cmd *table, const char *prefix)
{
    for (const struct cmd *c = table; c->name; c++) {
        char name[64];
        snprintf (name, sizeof (name), "%s%s", prefix, c->name);
        if (c->fn) { /* a group that is a command too is listed first by itself */
            /* two spaces at least: scripts (and the bash completion) split there */
            int width = strlen (name) < 18 ? 18 : (int)strlen (name) + 1;
            fprintf (f, "  %-*s %s\n", width, name, c->help->summary);
        }
        if (c->sub) {
            char sub[64];
            snprintf (sub, sizeof (sub), "%s ", name);
            list_commands (f, c->sub, sub);
        }
    }
}

static void print_main_help (FILE *f, const char *prog)
{
    fprintf (f, "usage: %s %s\n\n%s - %s.\n\n", prog, help_main.synopsis, prog, help_main.summary);
    fputs (help_main.description, f);
    fputs ("\n\nCommands:\n", f);
    list_commands (f, commands, "");
    fprintf (f,
             "\nGlobal options:\n"
             "  -c, --config FILE            configuration (default $CCAUTOSCALE_CONFIG, else %s)\n"
             "  --json                       JSON output for scripts\n"
             "  -v, --verbose                log more to stderr (repeat for debug)\n"
             "  -q, --quiet                  log errors only\n"
             "  -h, --help                   this help; COMMAND --help for a command's\n"
             "  --version                    print the version\n",
             CCAS_DEFAULT_CONFIG);
    fputs ("\nExit status: 0 ok, 1 usage, 2 configuration, 3 CycleCloud unreachable or refused,\n"
           "4 done in part, 5 scheduler error, 6 lock busy, 7 internal error, 8 autostop refused,\n"
           "9 timed out (slurm wait-for-resume).\n"
           "\nEnvironment: CCAUTOSCALE_CONFIG (the configuration); CCAUTOSCALE_THP=1 puts malloc on\n"
           "transparent huge pages (demand, analyze, nodes, pbs and slurm restart once with\n"
           "GLIBC_TUNABLES=glibc.malloc.hugetlb=1: faster where huge pages are cheap to fault in).\n",
           f);
}

static const struct cmd *find_cmd (const struct cmd *table, const char *name)
{
    for (const struct cmd *c = table; c->name; c++)
        if (strcmp (c->name, name) == 0)
            return c;
    return NULL;
}

/* `ccautoscale --man [COMMAND [SUB]]` renders a man page; the build uses it. */
static int print_man (const char *prog, int argc, char **argv)
{
    if (argc == 0) {
        cli_print_man (stdout, prog, "", &help_main);
        return EXIT_OK;
    }
    const struct cmd *c = find_cmd (commands, argv[0]);
    char name[64];
    snprintf (name, sizeof (name), "%s", argv[0]);
    if (c && c->sub && argc > 1) {
        c = find_cmd (c->sub, argv[1]);
        snprintf (name, sizeof (name), "%s %s", argv[0], argv[1]);
    }
    if (!c) {
        fprintf (stderr, "%s: --man: unknown command '%s'\n", prog, argv[argc > 1 ? 1 : 0]);
        return EXIT_USAGE;
    }
    cli_print_man (stdout, prog, name, c->help);
    return EXIT_OK;
}

/* Global options come before the command; each command takes them too. */
static int parse_global (struct cli *cli, int argc, char **argv)
{
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        const char *a = argv[i];
        if ((strcmp (a, "-c") == 0 || strcmp (a, "--config") == 0) && i + 1 < argc)
            cli->config_path = argv[++i];
        else if (strncmp (a, "--config=", 9) == 0)
            cli->config_path = a + 9;
        else if (strcmp (a, "--json") == 0)
            cli->json = true;
        else if (strcmp (a, "-v") == 0 || strcmp (a, "--verbose") == 0)
            cli->verbosity++;
        else if (strcmp (a, "-vv") == 0)
            cli->verbosity += 2;
        else if (strcmp (a, "-q") == 0 || strcmp (a, "--quiet") == 0)
            cli->quiet = true;
        else if (strcmp (a, "-h") == 0 || strcmp (a, "--help") == 0) {
            print_main_help (stdout, cli->prog);
            exit (EXIT_OK);
        } else if (strcmp (a, "--version") == 0) {
            print_version ();
            exit (EXIT_OK);
        } else if (strcmp (a, "--man") == 0)
            exit (print_man (cli->prog, argc - i - 1, argv + i + 1));
        else {
            fprintf (stderr, "%s: unknown option '%s'\nTry '%s --help'.\n", cli->prog, a, cli->prog);
            exit (EXIT_USAGE);
        }
    }
    return i;
}

static int dispatch (struct cli *cli, const struct cmd *table, int argc, char **argv)
{
    if (argc < 1) {
        print_main_help (stderr, cli->prog);
        return EXIT_USAGE;
    }
    const struct cmd *c = find_cmd (table, argv[0]);
    if (!c) {
        fprintf (stderr, "%s: '%s%s%s' is not a command. See '%s --help'.\n", cli->prog, cli->cmdname,
                 cli->cmdname[0] ? " " : "", argv[0], cli->prog);
        return EXIT_USAGE;
    }
    size_t len = strlen (cli->cmdname);
    snprintf (cli->cmdname + len, sizeof (cli->cmdname) - len, "%s%s", len ? " " : "", c->name);
    cli->cmd = c;
    if (c->sub && c->fn && !(argc >= 2 && find_cmd (c->sub, argv[1]))) {
        optind = 1;
        return c->fn (cli, argc, argv);
    }
    if (c->sub) {
        if (argc < 2 || strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0) {
            FILE *f = argc < 2 ? stderr : stdout;
            cli_print_help (f, cli->prog, cli->cmdname, c->help);
            fprintf (f, "\nCommands:\n");
            char prefix[64];
            snprintf (prefix, sizeof (prefix), "%s ", c->name);
            list_commands (f, c->sub, prefix);
            return argc < 2 ? EXIT_USAGE : EXIT_OK;
        }
        return dispatch (cli, c->sub, argc - 1, argv + 1);
    }
    optind = 1;
    return c->fn (cli, argc, argv);
}

/* The commands whose time is a whole cluster's or queue's JSON: only they may
 * gain from malloc on huge pages (thp.h); the rest would pay a second start-up
 * (some 17 ms: libslurm, libcurl and TLS loaded twice) for nothing. */
static bool reads_whole_cluster (const char *command)
{
    static const char *const big[] = {"demand", "analyze", "nodes", "pbs", "slurm", NULL};
    for (int i = 0; big[i]; i++)
        if (strcmp (command, big[i]) == 0)
            return true;
    return false;
}

int main (int argc, char **argv)
{
    struct cli cli = {.prog = "ccautoscale", .interactive = isatty (STDOUT_FILENO)};
    int first = parse_global (&cli, argc, argv);
    if (first < argc && reads_whole_cluster (argv[first]))
        thp_reexec (argv);
    int rc = dispatch (&cli, commands, argc - first, argv + first);
    cli.rc = rc;
    cli_release (&cli);
    return rc;
}
