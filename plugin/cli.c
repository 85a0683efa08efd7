/* SPDX-License-Identifier: MIT */
/* cli.c: option parsing, setup and output shared by every ccautoscale command. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "model/constraint.h"
#include "model/resources.h"
#include "util/clock.h"
#include "util/events.h"
#include "util/lock.h"
#include "util/log.h"
#include "util/metrics.h"

static const struct cmd_option common_options[] = {
    {"-c, --config FILE", "configuration file (default $CCAUTOSCALE_CONFIG, else " CCAS_DEFAULT_CONFIG ")"},
    {"--json", "print JSON for scripts instead of a table"},
    {"-v, --verbose", "log more (repeat for debug); logs go to stderr"},
    {"-q, --quiet", "log errors only"},
    {"-h, --help", "show this help"},
    {NULL, NULL},
};

#define MAX_LONGOPTS 64

int cli_getopt (struct cli *cli, int argc, char **argv, const char *shortopts, const struct option *longopts)
{
    static const struct option common_long[] = {
        {"config", required_argument, NULL, 'c'}, {"json", no_argument, NULL, 0x100},
        {"verbose", no_argument, NULL, 'v'},      {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
    };
    struct option all[MAX_LONGOPTS];
    char shorts[128];
    size_t n = 0;

    for (size_t i = 0; i < sizeof (common_long) / sizeof (common_long[0]); i++)
        all[n++] = common_long[i];
    for (size_t i = 0; longopts && longopts[i].name && n < MAX_LONGOPTS - 1; i++)
        all[n++] = longopts[i];
    memset (&all[n], 0, sizeof (all[n]));
    snprintf (shorts, sizeof (shorts), "+:c:vqh%s", shortopts ? shortopts : "");

    for (;;) {
        int c = getopt_long (argc, argv, shorts, all, NULL);
        switch (c) {
        case 'c':
            cli->config_path = optarg;
            continue;
        case 0x100:
            cli->json = true;
            continue;
        case 'v':
            cli->verbosity++;
            continue;
        case 'q':
            cli->quiet = true;
            continue;
        case 'h':
            cli_print_help (stdout, cli->prog, cli->cmdname, cli->cmd->help);
            cli_release (cli);
            exit (EXIT_OK);
        case ':':
            exit (cli_usage_error (cli, "option '%s' needs a value", argv[optind - 1]));
        case '?':
            if (optopt)
                exit (cli_usage_error (cli, "unknown option '-%c'", optopt));
            exit (cli_usage_error (cli, "unknown option '%s'", argv[optind - 1]));
        default:
            return c;
        }
    }
}

/* syslog and the log file get the configured level; stderr shows warnings
 * unless -v or -q say otherwise. */
static void setup_logging (struct cli *cli)
{
    struct ccas_error err = {""};
    int level = cli->cfg ? (int)cli->cfg->logging.level : LOG_WARNING;
    unsigned sinks = CCAS_LOG_STDERR;
    /* -v shows info, -vv debug */
    int stderr_level = cli->quiet ? LOG_ERR : cli->verbosity ? LOG_NOTICE + cli->verbosity : LOG_WARNING;

    if (stderr_level > LOG_DEBUG)
        stderr_level = LOG_DEBUG;
    if (cli->cfg && cli->cfg->logging.syslog)
        sinks |= CCAS_LOG_SYSLOG;
    ccas_log_open (cli->prog, level, sinks);
    ccas_log_set_stderr_level (stderr_level);
    if (cli->cfg && cli->cfg->logging.file && ccas_log_set_file (cli->cfg->logging.file, &err) < 0)
        ccas_log (LOG_WARNING, "%s", err.text);
}

int cli_open_client (struct cli *cli)
{
    struct ccas_error err = {""};
    struct ccas_ccapi_opts opts;
    ccas_conf_client_opts (cli->cfg, &opts);
    if (!(cli->api = ccas_ccapi_create (&opts, &err)))
        return cli_fail (cli, EXIT_CONFIG, "%s", err.text);
    return EXIT_OK;
}

int cli_prepare (struct cli *cli)
{
    struct ccas_error err = {""};
    unsigned flags = cli->cmd->flags;

    if (flags & NEED_CONFIG) {
        if (!cli->config_path)
            cli->config_path = getenv ("CCAUTOSCALE_CONFIG");
        if (!cli->config_path || !*cli->config_path)
            cli->config_path = CCAS_DEFAULT_CONFIG;
        if (!(cli->cfg = ccas_conf_load (cli->config_path, &err)))
            return cli_fail (cli, EXIT_CONFIG, "%s", err.text);
    }
    setup_logging (cli);
    cli->t0 = ccas_clock_monotonic ();
    if (cli->cfg) {
        static char name[96];
        snprintf (name, sizeof (name), "%s %s", cli->prog, cli->cmdname);
        ccas_events_open (cli->cfg->events.path, cli->cfg->events.max_mb, cli->cfg->events.keep, name);
    }
    if ((flags & NEED_API) == NEED_API) {
        int rc = cli_open_client (cli);
        if (rc != EXIT_OK)
            return rc;
    }
    if ((flags & NEED_LOCK) == NEED_LOCK)
        return cli_lock (cli, cli->prog);
    return EXIT_OK;
}

int cli_lock (struct cli *cli, const char *who)
{
    struct ccas_error err = {""};
    if (cli->lock)
        return EXIT_OK;
    if (!(cli->lock = ccas_lock_acquire (cli->cfg->lock_file, who, 30, &err)))
        return cli_fail (cli, errno == EWOULDBLOCK ? EXIT_BUSY : EXIT_INTERNAL, "%s", err.text);
    cli_start_metrics (cli);
    return EXIT_OK;
}

int cli_check_rules (const struct ccas_config *cfg, struct ccas_error *err)
{
    struct ccas_resdict *dict = ccas_resdict_create ();
    struct ccas_shared *shared = ccas_shared_create ();
    struct ccas_cons_cache *cache = dict && shared ? ccas_constraint_cache_create (dict, shared) : NULL;
    struct ccas_rules *rules = NULL;
    int rc = -1;
    if (!cache)
        ccas_errorf (err, "out of memory");
    else if (ccas_shared_load (shared, cfg->shared_resources, "shared_resources", err) == 0 &&
             (rules = ccas_resources_compile (cfg->default_resources, !cfg->disable_default_resources, cache,
                                              dict, "default_resources", err)))
        rc = 0;
    ccas_resources_destroy (rules);
    ccas_constraint_cache_destroy (cache);
    ccas_shared_destroy (shared);
    ccas_resdict_destroy (dict);
    return rc;
}

int cli_no_arguments (struct cli *cli, int argc, char **argv)
{
    while (cli_getopt (cli, argc, argv, "", NULL) != -1)
        ;
    if (optind < argc)
        return cli_usage_error (cli, "unexpected argument '%s'", argv[optind]);
    return EXIT_OK;
}

void cli_start_metrics (struct cli *cli)
{
    static char name[96];
    snprintf (name, sizeof (name), "%s %s", cli->prog, cli->cmdname);
    ccas_metrics_open (cli->cfg->metrics.path, cli->cfg->state_dir, name);
}

void cli_release (struct cli *cli)
{
    struct ccas_error err = {""};
    if (cli->lock) {
        const char *result = cli->rc == EXIT_OK ? "ok" : cli->rc == EXIT_PARTIAL ? "partial" : "failed";
        if (cli->api)
            ccas_ccapi_stats_to_metrics (ccas_ccapi_stats (cli->api));
        if (ccas_metrics_flush (result, ccas_clock_monotonic () - cli->t0, &err) < 0)
            ccas_log (LOG_WARNING, "metrics: %s", err.text);
    }
    ccas_metrics_close ();
    ccas_events_close ();
    ccas_lock_release (cli->lock);
    cli->lock = NULL;
    ccas_ccapi_destroy (cli->api);
    cli->api = NULL;
    ccas_conf_destroy (cli->cfg);
    cli->cfg = NULL;
    ccas_log_close ();
}

int cli_fail (struct cli *cli, int code, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start (ap, fmt);
    vsnprintf (msg, sizeof (msg), fmt, ap);
    va_end (ap);
    ccas_log_redact (msg, sizeof (msg));
    fprintf (stderr, "%s: %s\n", cli->prog, msg);
    return code;
}

int cli_fail_api (struct cli *cli, const struct ccas_error *err)
{
    return cli_fail (cli, EXIT_CYCLECLOUD, "%s", err->text);
}

int cli_usage_error (struct cli *cli, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start (ap, fmt);
    vsnprintf (msg, sizeof (msg), fmt, ap);
    va_end (ap);
    fprintf (stderr, "%s: %s\n", cli->prog, msg);
    if (cli->cmd && cli->cmd->help)
        fprintf (stderr, "usage: %s %s\n", cli->prog, cli->cmd->help->synopsis);
    fprintf (stderr, "Try '%s%s%s --help' for more information.\n", cli->prog, cli->cmdname[0] ? " " : "",
             cli->cmdname);
    return EXIT_USAGE;
}

void cli_print_json (json_object *obj)
{
    fputs (json_object_to_json_string_ext (obj, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
                                                    JSON_C_TO_STRING_NOSLASHESCAPE),
           stdout);
    fputc ('\n', stdout);
}

/* ---- help ----------------------------------------------------------------- */

static void print_options_text (FILE *f, const struct cmd_option *opts)
{
    for (size_t i = 0; opts && opts[i].flags; i++)
        fprintf (f, "  %-28s %s\n", opts[i].flags, opts[i].doc);
}

static void print_wrapped (FILE *f, const char *text, const char *indent)
{
    const char *p = text;
    while (*p) {
        const char *nl = strchr (p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen (p);
        if (len)
            fprintf (f, "%s%.*s\n", indent, (int)len, p);
        else
            fputc ('\n', f);
        p += len + (nl ? 1 : 0);
    }
}

void cli_print_help (FILE *f, const char *prog, const char *cmdname, const struct cmd_help *h)
{
    if (!h)
        return;
    fprintf (f, "usage: %s %s\n\n", prog, h->synopsis);
    fprintf (f, "%s%s%s.\n", cmdname && *cmdname ? cmdname : prog, " - ", h->summary);
    if (h->description) {
        fputc ('\n', f);
        print_wrapped (f, h->description, "");
    }
    fprintf (f, "\nOptions:\n");
    print_options_text (f, h->options);
    print_options_text (f, common_options);
    if (h->examples) {
        fprintf (f, "\nExamples:\n");
        print_wrapped (f, h->examples, "  ");
    }
    if (h->see_also)
        fprintf (f, "\nSee also: %s\n", h->see_also);
}

/* roff needs backslashes doubled and leading dots or quotes escaped */
static void roff_text (FILE *f, const char *s, size_t len)
{
    bool line_start = true;
    for (size_t i = 0; i < len && s[i]; i++) {
        char c = s[i];
        if (line_start && (c == '.' || c == '\''))
            fputs ("\\&", f);
        if (c == '\\')
            fputs ("\\e", f);
        else if (c == '-')
            fputs ("\\-", f);
        else
            fputc (c, f);
        line_start = (c == '\n');
    }
}

void cli_print_roff (FILE *f, const char *s, size_t len)
{
    roff_text (f, s, len);
}

static void roff_paragraphs (FILE *f, const char *text)
{
    const char *p = text;
    while (*p) {
        const char *nl = strchr (p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen (p);
        if (len == 0)
            fputs (".PP\n", f);
        else {
            roff_text (f, p, len);
            fputc ('\n', f);
        }
        p += len + (nl ? 1 : 0);
    }
}

static void roff_options (FILE *f, const struct cmd_option *opts)
{
    for (size_t i = 0; opts && opts[i].flags; i++) {
        fputs (".TP\n.B ", f);
        roff_text (f, opts[i].flags, strlen (opts[i].flags));
        fputc ('\n', f);
        roff_text (f, opts[i].doc, strlen (opts[i].doc));
        fputc ('\n', f);
    }
}

void cli_print_man (FILE *f, const char *prog, const char *cmdname, const struct cmd_help *h)
{
    char title[128];
    snprintf (title, sizeof (title), "%s%s%s", prog, cmdname && *cmdname ? "-" : "", cmdname ? cmdname : "");
    for (char *p = title; *p; p++)
        if (*p == ' ')
            *p = '-';
    fprintf (f, ".TH %s 8 \"\" \"%s %s\" \"ccautoscale manual\"\n", title, PACKAGE_NAME, PACKAGE_VERSION);
    fputs (".SH NAME\n", f);
    roff_text (f, title, strlen (title));
    fputs (" \\- ", f);
    roff_text (f, h->summary, strlen (h->summary));
    fputs ("\n.SH SYNOPSIS\n.B ", f);
    roff_text (f, prog, strlen (prog));
    fputc (' ', f);
    roff_text (f, h->synopsis, strlen (h->synopsis));
    fputc ('\n', f);
    if (h->description) {
        fputs (".SH DESCRIPTION\n", f);
        roff_paragraphs (f, h->description);
    }
    fputs (".SH OPTIONS\n", f);
    roff_options (f, h->options);
    roff_options (f, common_options);
    if (h->examples) {
        fputs (".SH EXAMPLES\n.nf\n", f);
        roff_text (f, h->examples, strlen (h->examples));
        fputs ("\n.fi\n", f);
    }
    fputs (".SH EXIT STATUS\n"
           "0 success; 1 usage error; 2 configuration error; 3 CycleCloud unreachable, "
           "refused or answered nonsense; 4 done in part; 5 scheduler error; "
           "6 another run holds the lock; 7 internal error; 8 autostop refused (the node is still "
           "needed); 9 timed out (slurm wait-for-resume).\n",
           f);
    fputs (".SH SEE ALSO\n", f);
    if (h->see_also)
        roff_text (f, h->see_also, strlen (h->see_also));
    else
        fputs ("ccautoscale(8)", f);
    fputc ('\n', f);
}
