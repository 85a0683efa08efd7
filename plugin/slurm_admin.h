/* SPDX-License-Identifier: MIT */
/* slurm_admin.h: what the administrator's Slurm commands share (keep-alive, dynamic, remove-nodes, ...).
 *
 * Their arguments mix options and hostlists ("keep-alive add hpc-[1-4]
 * --dry-run"); they read Slurm's nodes and CycleCloud's status in one go,
 * as the programs slurmctld runs do (power.h), and fail with the same exit
 * codes as `slurm sync`.
 */
#ifndef CCAS_SLURM_ADMIN_H
#define CCAS_SLURM_ADMIN_H

#include <stdbool.h>
#include <stddef.h>

#include "cli.h"
#include "power.h"

/* Options and operands in any order: cli_getopt() for the options (each
 * returned to the caller as it comes, -1 at the end), the operands moved
 * into `operands` (at most argc of them, in order, borrowed from argv). */
int slurm_admin_getopt (struct cli *cli, int argc, char **argv, const char *shortopts,
                        const struct option *longopts, char **operands, size_t *noperands);

/* Expand the operands (hostlists) into names; none is a usage error that
 * says what `what` is ("the nodes to keep").  Returns EXIT_OK (caller frees
 * `*names` with ccas_slurm_names_free()) or an exit code, printed. */
int slurm_admin_names (struct cli *cli, char *const *operands, size_t n, const char *what, char ***names,
                       size_t *nnames);

/* cli_prepare(), then a run on the command's configuration and client
 * (ccas_power_attach) with Slurm's nodes and CycleCloud's status and nodes
 * loaded.  A `read_only` run saves no policy state.  Returns EXIT_OK
 * (release with ccas_power_detach()) or an exit code, printed: 5 when
 * Slurm does not answer, 3 when CycleCloud does not. */
int slurm_admin_open (struct cli *cli, struct ccas_power *p, bool read_only);

/* The names of `names` that are not Slurm nodes ccautoscale manages, with
 * why, printed; EXIT_USAGE if any (nothing is done then), else EXIT_OK. */
int slurm_admin_check_managed (struct cli *cli, struct ccas_power *p, char *const *names, size_t n);

/* "requested by <user>", for reasons and logs.  Returns `buf`. */
const char *slurm_admin_who (char *buf, size_t size);

#endif /* !CCAS_SLURM_ADMIN_H */
