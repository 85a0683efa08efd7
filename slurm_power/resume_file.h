/* SPDX-License-Identifier: MIT */
/* resume_file.h: SLURM_RESUME_FILE — which jobs the nodes being resumed are for.
 *
 * Slurm 22.05 writes {"jobs": [{"job_id": 1, "nodes": "hpc-[1-2]"}],
 * "all_nodes": "..."}; 23.02 and later write per job "nodes_alloc",
 * "nodes_resume", "partition", "features", ... and "all_nodes_resume".  Both
 * are read.  The file is a descriptor of slurmctld's that disappears when
 * the program exits, so it is read once, first.
 */
#ifndef CCAS_RESUME_FILE_H
#define CCAS_RESUME_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

struct ccas_resume_job {
    uint32_t job_id;
    char **alloc; /* every node of the job */
    size_t nalloc;
    char **resume; /* the job's nodes being resumed now */
    size_t nresume;
    char *partition; /* or NULL */
};

struct ccas_resume_name { /* one resumed name and its job, for lookups */
    const char *name;     /* borrowed from the job's resume[] */
    size_t job;           /* index into jobs[] */
};

struct ccas_resume_file {
    struct ccas_resume_job *jobs;
    size_t njobs;
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

#endif /* !CCAS_RESUME_FILE_H */
