/* SPDX-License-Identifier: MIT */
/* run.h: run a scheduler command from an argv array — never through a shell —
 * with a time limit, and collect what it printed.
 *
 * PBS's commands are found in pbs.bin_dir when set, else on the PATH, else in
 * /opt/pbs/bin.  A command that outlives its limit is killed (SIGTERM, then
 * SIGKILL a second later) and reported as timed out.
 */
#ifndef CCAS_RUN_H
#define CCAS_RUN_H

#include <stddef.h>

#include "util/error.h"

struct ccas_run_result {
    int status; /* exit status, or 128 + signal */
    char *out;  /* stdout, NUL-terminated; caller frees */
    size_t outlen;
    char err[512]; /* the first line(s) of stderr, for messages */
};

/* Where PBS commands live: `bin_dir` (may be NULL) is borrowed and must
 * outlive the calls below. */
void ccas_run_set_bin_dir (const char *bin_dir);

/* Run argv[0] (a bare name, resolved as above) with `argv`, waiting at most
 * `timeout` seconds and keeping at most `max_out` bytes of stdout.  Returns 0
 * when the program ran to an exit (any status: see res->status), -1 with `err`
 * when it could not be started, timed out, or printed too much.  On success
 * res->out must be freed by the caller; on failure it is NULL. */
int ccas_run (char *const argv[], double timeout, size_t max_out, struct ccas_run_result *res,
              struct ccas_error *err);

/* Seconds this process has spent in ccas_run() so far (from the spawn to
 * the exit collected): the scheduler commands' own time. */
double ccas_run_seconds (void);

/* Run and require exit status 0; the error names the command and quotes its
 * stderr ("qmgr: exit 1: qmgr obj=... Unknown node").  Output is dropped. */
int ccas_run_ok (char *const argv[], double timeout, struct ccas_error *err);

#endif /* !CCAS_RUN_H */
