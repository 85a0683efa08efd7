/* SPDX-License-Identifier: MIT */
/* run.h: the one place ccautoscale runs a program (common/check-layers.sh
 * fails `make check` on any other): a scheduler command from an argv array —
 * never through a shell — with a time limit, collecting what it printed; and
 * the program itself again, in place (plugin/thp.c).
 *
 * PBS's commands are found in pbs.bin_dir when set, else on the PATH, else in
 * /opt/pbs/bin.  A command that outlives its limit is killed (SIGTERM, then
 * SIGKILL a second later) and reported as timed out.
 *
 * It lives in pbs_hook/ because PBS is what it runs; plugin/ may use it, the
 * core (common/) runs nothing, and slurm_power/ runs nothing either
 * (slurmctld runs its programs; libslurm is how they talk back).
 */
#ifndef CCAS_RUN_H
#define CCAS_RUN_H

#include <stdbool.h>
#include <stddef.h>

#include "util/error.h"

struct ccas_run_result {
    int status; /* exit status, or 128 + signal */
    char *out;  /* stdout, NUL-terminated; caller frees */
    size_t outlen;
    char err[512]; /* the first line of stderr, for messages */
    char *errs;    /* all of stderr (at most 4 KB), NUL-terminated; caller frees */
};

/* Free what a result holds (out and errs); the struct may be used again. */
void ccas_run_result_release (struct ccas_run_result *res);

/* Where PBS commands live: `bin_dir` (may be NULL) is borrowed and must
 * outlive the calls below. */
void ccas_run_set_bin_dir (const char *bin_dir);

/* Run argv[0] (a bare name, resolved as above) with `argv`, waiting at most
 * `timeout` seconds and keeping at most `max_out` bytes of stdout.  Returns 0
 * when the program ran to an exit (any status: see res->status), -1 with `err`
 * when it could not be started, timed out, or printed too much.  On success
 * the caller releases res with ccas_run_result_release(); on failure it holds
 * nothing. */
int ccas_run (char *const argv[], double timeout, size_t max_out, struct ccas_run_result *res,
              struct ccas_error *err);

/* The same, with `inlen` bytes of `input` (borrowed) on the command's stdin
 * instead of /dev/null. */
int ccas_run_input (char *const argv[], const char *input, size_t inlen, double timeout, size_t max_out,
                    struct ccas_run_result *res, struct ccas_error *err);

/* True when command `name` resolves (as ccas_run() looks it up): whether
 * PBS's commands are here at all. */
bool ccas_run_found (const char *name);

/* How many commands this process has started through ccas_run*(). */
unsigned long ccas_run_count (void);

/* Seconds this process has spent in ccas_run() so far (from the spawn to
 * the exit collected): the scheduler commands' own time. */
double ccas_run_seconds (void);

/* Run and require exit status 0; the error names the command and quotes its
 * stderr ("qmgr: exit 1: qmgr obj=... Unknown node").  Output is dropped. */
int ccas_run_ok (char *const argv[], double timeout, struct ccas_error *err);

/* Replace this process with a new run of its own executable
 * (/proc/self/exe) with `argv` and the current environment.  Returns only
 * when it could not, -1 with errno set; then nothing has changed. */
int ccas_run_exec_self (char *const argv[]);

#endif /* !CCAS_RUN_H */
