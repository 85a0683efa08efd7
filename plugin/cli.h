/* SPDX-License-Identifier: MIT */
/* cli.h: what every `ccautoscale` command shares: options, setup, output, exit codes.
 *
 * main() fills a struct cli, finds the command in the table and calls it.
 * The command parses its own options with cli_getopt() (which also handles
 * -c/--config, --json, -v, -q and -h/--help for every command), then calls
 * cli_prepare() to load the configuration, open the client or take the lock
 * as its table flags say.  Everything cli_prepare() opens is closed by main().
 */
#ifndef CCAS_CLI_H
#define CCAS_CLI_H

#include <getopt.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>

#include "ccapi/ccapi.h"
#include "conf/conf.h"
#include "util/error.h"

/* Documented in ccautoscale(8), EXIT STATUS. */
enum cli_exit {
    EXIT_OK = 0,
    EXIT_USAGE = 1,      /* bad command line */
    EXIT_CONFIG = 2,     /* configuration missing or invalid */
    EXIT_CYCLECLOUD = 3, /* CycleCloud unreachable, refused or answered nonsense */
    EXIT_PARTIAL = 4,    /* done in part: some nodes or jobs could not be served */
    EXIT_SCHEDULER = 5,  /* Slurm or PBS refused or failed */
    EXIT_BUSY = 6,       /* another run holds the lock */
    EXIT_INTERNAL = 7,   /* out of memory, I/O error, a bug */
    EXIT_REFUSED = 8,    /* autostop refused: the node is still needed (it should keep running) */
    EXIT_TIMEOUT = 9,    /* slurm wait-for-resume: time ran out with nodes still powering up */
};

enum cmd_flags {
    NEED_CONFIG = 1,   /* load the configuration */
    NEED_API = 2 | 1,  /* ... and create the CycleCloud client */
    NEED_LOCK = 4 | 1, /* ... and hold the lock */
    NEED_SLURM = 8,    /* the command talks to slurmctld */
};

struct cmd_option {
    const char *flags; /* "-n, --nodearray NAME" */
    const char *doc;
};

struct cmd_help {
    const char *synopsis;             /* after "ccautoscale ": "buckets [--nodearray NAME]" */
    const char *summary;              /* one line, lowercase, no full stop */
    const char *description;          /* paragraphs separated by blank lines */
    const struct cmd_option *options; /* NULL-terminated; the common ones are added */
    const char *examples;             /* lines "$ command" then output or comment lines */
    const char *see_also;             /* "ccautoscale-nodes(8), ..." or NULL */
};

struct cli;
typedef int (*cmd_f) (struct cli *cli, int argc, char **argv);

struct cmd {
    const char *name;
    cmd_f fn; /* NULL for a group */
    unsigned flags;
    const struct cmd_help *help;
    const struct cmd *sub; /* a group's table, terminated by a NULL name */
};

struct cli {
    const char *prog; /* "ccautoscale" */
    char cmdname[64]; /* "buckets", "slurm conf" */
    const struct cmd *cmd;
    const char *config_path;
    bool json;
    int verbosity; /* -v count */
    bool quiet;
    bool interactive; /* stdout is a terminal */
    struct ccas_config *cfg;
    struct ccas_ccapi *api;
    struct ccas_lock *lock;
    double t0; /* monotonic start of the run (its duration metric) */
    int rc;    /* the command's exit code, for the metrics (set by main) */
};

/* getopt_long with the common options merged in.  Returns the next
 * command-specific option character, -1 at the end.  On -h prints help and
 * exits 0; on an unknown option prints a hint and exits EXIT_USAGE. */
int cli_getopt (struct cli *cli, int argc, char **argv, const char *shortopts, const struct option *longopts);

/* For commands with no options and no arguments of their own: the common
 * options only; any other argument is a usage error.  Returns EXIT_OK or
 * EXIT_USAGE (printed). */
int cli_no_arguments (struct cli *cli, int argc, char **argv);

/* Apply the command's flags: load config, set up logging, create the client,
 * take the lock.  Returns EXIT_OK or an exit code after printing the error. */
int cli_prepare (struct cli *cli);

/* Compile what only a pass would otherwise compile (default_resources,
 * shared_resources), so that mistakes show before anything runs.  0, or -1
 * with `err` naming the rule. */
int cli_check_rules (const struct ccas_config *cfg, struct ccas_error *err);

/* Print "ccautoscale: <msg>" to stderr and return `code`. */
int cli_fail (struct cli *cli, int code, const char *fmt, ...) __attribute__ ((format (printf, 3, 4)));

/* Print the error of a failed CycleCloud call and return EXIT_CYCLECLOUD. */
int cli_fail_api (struct cli *cli, const struct ccas_error *err);

/* Create cli->api from cli->cfg (what NEED_API does); an exit code. */
int cli_open_client (struct cli *cli);

/* Print "usage: ..." plus a hint and return EXIT_USAGE. */
int cli_usage_error (struct cli *cli, const char *fmt, ...) __attribute__ ((format (printf, 2, 3)));

/* Print `obj` as pretty JSON on stdout (takes no reference). */
void cli_print_json (json_object *obj);

/* Help for a command, as text (--help) or as a man page (roff). */
void cli_print_help (FILE *f, const char *prog, const char *cmdname, const struct cmd_help *h);
void cli_print_man (FILE *f, const char *prog, const char *cmdname, const struct cmd_help *h);

/* `len` bytes of `s` as roff text: backslashes, hyphens and a leading dot
 * or quote escaped (for other pages made from the program's own data). */
void cli_print_roff (FILE *f, const char *s, size_t len);

/* Take the lock unless it is held, naming `who` its holder, and start the
 * metrics.  A command that acts only when asked (demand --apply) takes it
 * before it reads the cluster, so that what it plans from is not changed
 * under it by another run.  Returns an exit code (printed). */
int cli_lock (struct cli *cli, const char *who);

/* Start the events and metrics of an acting run; call with the lock held
 * (cli_prepare() does for NEED_LOCK commands). */
void cli_start_metrics (struct cli *cli);

/* Release what cli_prepare() opened; a run holding the lock writes its
 * metrics first. */
void cli_release (struct cli *cli);

#endif /* !CCAS_CLI_H */
