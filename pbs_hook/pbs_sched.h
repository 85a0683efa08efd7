/* SPDX-License-Identifier: MIT */
/* pbs_sched.h: the PBS scheduler's sched_config, as install-hook checks it.
 *
 * PBS's scheduler matches a job's select only on the resources named on the
 * `resources:` line of $PBS_HOME/sched_priv/sched_config (every resource when
 * there is no such line): a slot_type or ungrouped missing there is ignored,
 * and jobs land on nodes ccautoscale did not make for them.  The line can
 * only be changed in the file (then pbs_sched re-reads it on SIGHUP), so
 * install-hook says what to write rather than editing a file the site may
 * manage otherwise.  Nothing here runs a command.
 */
#ifndef CCAS_PBS_SCHED_H
#define CCAS_PBS_SCHED_H

#include <stddef.h>

#include "util/error.h"

/* The resources ccautoscale's matching relies on PBS checking (NULL-terminated). */
extern const char *const ccas_pbs_sched_resources[];

/* $PBS_HOME/sched_priv/sched_config: PBS_HOME from the environment, else
 * from the pbs.conf that $PBS_CONF_FILE names (default /etc/pbs.conf), else
 * /var/spool/pbs — the way PBS's own commands find it.  Writes `buf`. */
void ccas_pbs_sched_config_path (char *buf, size_t size);

/* Check sched_config's text: which of `wanted` (NULL-terminated) its last
 * `resources:` line leaves out.  Returns how many, 0 when the line names all
 * or there is none (the scheduler then checks every resource).  When some
 * are missing, `missing` gets them ("slot_type, ungrouped") and `line` the
 * whole line to write instead, the existing names first. */
int ccas_pbs_sched_check (const char *text, const char *const *wanted, char *missing, size_t msize,
                          char *line, size_t lsize);

#endif /* !CCAS_PBS_SCHED_H */
