/* SPDX-License-Identifier: MIT */
/* builtins.h: the `ccautoscale` command table.
 *
 * Adding a command:
 *   1. Write plugin/cmd_<name>.c with `int cmd_<name> (struct cli *cli, int argc, char **argv)`
 *      and a `const struct cmd_help help_<name>`: parse options with cli_getopt(),
 *      call cli_prepare() (which applies the table flags: config, client, lock),
 *      make one core call, print a table or JSON, return an exit code from
 *      enum cli_exit.
 *   2. Declare both below and add a row, in alphabetical order, to the table
 *      in ccautoscale.c (or to its group's sub-table).  A group may be a
 *      command itself too (`serve`, beside `serve token`): its row has both
 *      a function and a sub-table, and runs the function unless the next
 *      word names a subcommand.
 *   3. List the file in plugin/Makefile.am, and its man page in
 *      doc/Makefile.am's command_pages (pages are generated from the help
 *      text by `ccautoscale --man CMD`); tests/cli/t0001-help.sh runs --help
 *      and --man on every command the top-level help lists.
 */
#ifndef CCAS_BUILTINS_H
#define CCAS_BUILTINS_H

#include "cli.h"

int cmd_analyze (struct cli *cli, int argc, char **argv);
int cmd_autoscale_run (struct cli *cli, int argc, char **argv);
int cmd_autoscale_show (struct cli *cli, int argc, char **argv);
int cmd_autoscale_update (struct cli *cli, int argc, char **argv);
int cmd_autostop (struct cli *cli, int argc, char **argv);
int cmd_breaker_list (struct cli *cli, int argc, char **argv);
int cmd_breaker_reset (struct cli *cli, int argc, char **argv);
int cmd_buckets (struct cli *cli, int argc, char **argv);
int cmd_config_check (struct cli *cli, int argc, char **argv);
int cmd_config_keys (struct cli *cli, int argc, char **argv);
int cmd_create (struct cli *cli, int argc, char **argv);
int cmd_demand (struct cli *cli, int argc, char **argv);
int cmd_initconfig (struct cli *cli, int argc, char **argv);
int cmd_metrics (struct cli *cli, int argc, char **argv);
int cmd_nodes (struct cli *cli, int argc, char **argv);
int cmd_scale (struct cli *cli, int argc, char **argv);
int cmd_status (struct cli *cli, int argc, char **argv);
int cmd_terminate (struct cli *cli, int argc, char **argv);

extern const struct cmd_help help_analyze;
extern const struct cmd_help help_autoscale_run;
extern const struct cmd_help help_autoscale_show;
extern const struct cmd_help help_autoscale_update;
extern const struct cmd_help help_autostop;
extern const struct cmd_help help_breaker_list;
extern const struct cmd_help help_breaker_reset;
extern const struct cmd_help help_buckets;
extern const struct cmd_help help_config_check;
extern const struct cmd_help help_config_keys;
extern const struct cmd_help help_create;
extern const struct cmd_help help_demand;
extern const struct cmd_help help_initconfig;
extern const struct cmd_help help_metrics;
extern const struct cmd_help help_nodes;
extern const struct cmd_help help_scale;
extern const struct cmd_help help_status;
extern const struct cmd_help help_terminate;

int cmd_pbs_analyze (struct cli *cli, int argc, char **argv);
int cmd_pbs_autoscale (struct cli *cli, int argc, char **argv);
int cmd_pbs_demand (struct cli *cli, int argc, char **argv);
int cmd_pbs_import_azpbs (struct cli *cli, int argc, char **argv);
int cmd_pbs_install_hook (struct cli *cli, int argc, char **argv);
int cmd_pbs_join_nodes (struct cli *cli, int argc, char **argv);
int cmd_pbs_nodes (struct cli *cli, int argc, char **argv);
int cmd_pbs_offline (struct cli *cli, int argc, char **argv);
int cmd_pbs_online (struct cli *cli, int argc, char **argv);
int cmd_pbs_remove_nodes (struct cli *cli, int argc, char **argv);
int cmd_pbs_retry_failed (struct cli *cli, int argc, char **argv);
int cmd_pbs_validate (struct cli *cli, int argc, char **argv);
extern const struct cmd_help help_pbs_analyze;
extern const struct cmd_help help_pbs_autoscale;
extern const struct cmd_help help_pbs_demand;
extern const struct cmd_help help_pbs_import_azpbs;
extern const struct cmd_help help_pbs_install_hook;
extern const struct cmd_help help_pbs_join_nodes;
extern const struct cmd_help help_pbs_nodes;
extern const struct cmd_help help_pbs_offline;
extern const struct cmd_help help_pbs_online;
extern const struct cmd_help help_pbs_remove_nodes;
extern const struct cmd_help help_pbs_retry_failed;
extern const struct cmd_help help_pbs_validate;

#ifdef WITH_SERVE
int cmd_serve (struct cli *cli, int argc, char **argv);
int cmd_serve_token (struct cli *cli, int argc, char **argv);
extern const struct cmd_help help_serve;
extern const struct cmd_help help_serve_token;
#endif

#ifdef WITH_SLURM
int cmd_slurm_accounting_info (struct cli *cli, int argc, char **argv);
int cmd_slurm_conf (struct cli *cli, int argc, char **argv);
int cmd_slurm_demand (struct cli *cli, int argc, char **argv);
int cmd_slurm_import_azslurm (struct cli *cli, int argc, char **argv);
int cmd_slurm_dynamic (struct cli *cli, int argc, char **argv);
int cmd_slurm_keep_alive (struct cli *cli, int argc, char **argv);
int cmd_slurm_remove_nodes (struct cli *cli, int argc, char **argv);
int cmd_slurm_retry_failed (struct cli *cli, int argc, char **argv);
int cmd_slurm_sync (struct cli *cli, int argc, char **argv);
int cmd_slurm_wait_for_resume (struct cli *cli, int argc, char **argv);
extern const struct cmd_help help_slurm_accounting_info;
extern const struct cmd_help help_slurm_conf;
extern const struct cmd_help help_slurm_demand;
extern const struct cmd_help help_slurm_import_azslurm;
extern const struct cmd_help help_slurm_dynamic;
extern const struct cmd_help help_slurm_keep_alive;
extern const struct cmd_help help_slurm_remove_nodes;
extern const struct cmd_help help_slurm_retry_failed;
extern const struct cmd_help help_slurm_sync;
extern const struct cmd_help help_slurm_wait_for_resume;
#endif

#endif /* !CCAS_BUILTINS_H */
