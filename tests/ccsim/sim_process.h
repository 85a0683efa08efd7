/* SPDX-License-Identifier: MIT */
/* sim_process.h: a real ccsim for a C test — started on an ephemeral
 * loopback port with a cluster file, in a temporary directory of its own,
 * and stopped (SIGTERM, waited for) at the end.  The program is $CCSIM. */
#ifndef CCAS_SIM_PROCESS_H
#define CCAS_SIM_PROCESS_H

#include <sys/types.h>

struct sim_process {
    pid_t pid;
    char dir[64]; /* the temporary directory, for the port file and the test's own files */
    char url[64]; /* http://127.0.0.1:PORT */
};

/* Start $CCSIM serving `cluster` (a file) with boot delay 0, in a new
 * directory /tmp/ccas-`tag`.XXXXXX.  Returns 0, or -1 with nothing left
 * running (no $CCSIM, no directory, or no port within 5 s). */
int sim_process_start (struct sim_process *s, const char *tag, const char *cluster);

/* Stop ccsim, remove the port file, each of `files` (a NULL-ended list of
 * names in the directory, may be NULL) and the directory. */
void sim_process_stop (struct sim_process *s, const char *const *files);

#endif /* !CCAS_SIM_PROCESS_H */
