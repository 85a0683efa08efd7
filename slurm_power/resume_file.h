/* SPDX-License-Identifier: MIT */
/* resume_file.h: SLURM_RESUME_FILE — which jobs the nodes being resumed are for.
 *
 * Slurm 22.05 writes {"jobs": [{"job_id": 1, "nodes": "hpc-[1-2]"}],
 * "all_nodes": "..."}; 23.02 and later write per job "nodes_alloc" (all the
 * job's nodes), "nodes_resume" (those being resumed now), "partition",
 * "features" (its --constraint), "reservation", "oversubscribe" and
 * "extra", each a string or null, and "all_nodes_resume".  Both shapes are
 * read; a field of the wrong type is an error naming it.  The hostlist
 * slurmctld passes decides what is resumed: the file only says which jobs
 * the names are for (ccas_resume_file_outside finds names it has that the
 * hostlist has not).  In 23.02 and later the file is a memfd of
 * slurmscriptd's (/proc/PID/fd/N) that disappears when the program exits,
 * so it is read once, first.
 */
#ifndef CCAS_RESUME_FILE_H
#define CCAS_RESUME_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

struct ccas_resume_job {
    uint32_t job_id;
    char **alloc; /* every node of the job (23.02+; 22.05: those being resumed) */
    size_t nalloc;
    bool alloc_known; /* the file said (23.02+ nodes_alloc); 22.05 names only the resumed ones */
    char **resume;    /* the job's nodes being resumed now */
    size_t nresume;
    char *partition;     /* or NULL */
    char *features;      /* the job's --constraint, or NULL (23.02+) */
    char *reservation;   /* or NULL (23.02+) */
    char *oversubscribe; /* "OK", "NO", "USER", "MCS", "TOPO"..., or NULL (23.02+) */
};

struct ccas_resume_name { /* one resumed name and its job, for lookups */
    const char *name;     /* borrowed from the job's resume[] */
    size_t job;           /* index into jobs[] */
};

struct ccas_resume_file {
    struct ccas_resume_job *jobs;
    size_t njobs;
    char **all; /* all_nodes_resume (23.02+) or all_nodes (22.05), or NULL */
    size_t nall;
    size_t len;                       /* bytes read */
    char head[1024];                  /* their start (ccas_resume_file_read), for the log */
    struct ccas_resume_name *by_name; /* every resumed name, sorted by name then job */
    size_t nby_name;
};

/* Parse the file's text.  Returns the parsed file (caller frees with
 * ccas_resume_file_destroy()), or NULL with `err` (the caller then falls
 * back to the hostlist alone). */
struct ccas_resume_file *ccas_resume_file_parse (const char *text, size_t len, struct ccas_error *err);

/* Read $SLURM_RESUME_FILE now.  NULL with `err` if unset, unreadable or malformed. */
struct ccas_resume_file *ccas_resume_file_read (struct ccas_error *err);

void ccas_resume_file_destroy (struct ccas_resume_file *rf);

/* The job (if any) whose resumed nodes include `name`; the first in the file
 * if several do.  A binary search: resume asks once per name, and a resume
 * of tens of thousands of names must not cost their square. */
const struct ccas_resume_job *ccas_resume_file_job_of (const struct ccas_resume_file *rf, const char *name);

/* The names the file has (a job's resumed names, all_nodes_resume) that are
 * not among the `n` of `names` (the hostlist), as a hostlist expression
 * (caller frees with free()), or NULL if there are none. */
char *ccas_resume_file_outside (const struct ccas_resume_file *rf, char *const *names, size_t n);

#endif /* !CCAS_RESUME_FILE_H */
