/* SPDX-License-Identifier: MIT */
/* resume_file.c: read both shapes of SLURM_RESUME_FILE. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "resume_file.h"
#include "slurmapi.h"
#include "util/file.h"
#include "util/json.h"

#define RESUME_FILE_MAX (64 * 1024 * 1024)

void ccas_resume_file_destroy (struct ccas_resume_file *rf)
{
    if (!rf)
        return;
    for (size_t i = 0; i < rf->njobs; i++) {
        ccas_slurm_names_free (rf->jobs[i].alloc, rf->jobs[i].nalloc);
        ccas_slurm_names_free (rf->jobs[i].resume, rf->jobs[i].nresume);
        free (rf->jobs[i].partition);
    }
    free (rf->jobs);
    free (rf->by_name);
    free (rf);
}

static int by_name_cmp (const void *a, const void *b)
{
    const struct ccas_resume_name *x = a, *y = b;
    int c = strcmp (x->name, y->name);
    return c ? c : (x->job > y->job) - (x->job < y->job);
}

static int index_names (struct ccas_resume_file *rf, struct ccas_error *err)
{
    size_t total = 0;
    for (size_t i = 0; i < rf->njobs; i++)
        total += rf->jobs[i].nresume;
    if (total == 0)
        return 0;
    if (!(rf->by_name = calloc (total, sizeof (*rf->by_name))))
        return ccas_errorf (err, "out of memory");
    for (size_t i = 0; i < rf->njobs; i++)
        for (size_t k = 0; k < rf->jobs[i].nresume; k++)
            rf->by_name[rf->nby_name++] = (struct ccas_resume_name){rf->jobs[i].resume[k], i};
    qsort (rf->by_name, rf->nby_name, sizeof (*rf->by_name), by_name_cmp);
    return 0;
}

static int expand (json_object *job, const char *key, const char *path, char ***out, size_t *n,
                   struct ccas_error *err)
{
    const char *expr = ccas_json_str (job, key);
    if (!expr || !*expr)
        return 0;
    if (!(*out = ccas_slurm_hostlist_expand (expr, n, err)))
        return ccas_error_prefix (err, "%s.%s", path, key);
    return 0;
}

static int parse_job (json_object *job, const char *path, struct ccas_resume_job *out, struct ccas_error *err)
{
    int64_t id = 0;
    if (!json_object_is_type (job, json_type_object))
        return ccas_errorf (err, "%s: expected an object", path);
    if (ccas_json_get_int (job, path, "job_id", &id, err) <= 0 || id <= 0)
        return err && err->text[0] ? -1 : ccas_errorf (err, "%s.job_id: missing", path);
    out->job_id = (uint32_t)id;
    const char *part = ccas_json_str (job, "partition");
    out->partition = part ? strdup (part) : NULL;
    /* 23.02+: nodes_alloc / nodes_resume; 22.05: nodes (the job's nodes) */
    if (expand (job, ccas_json_get (job, "nodes_alloc") ? "nodes_alloc" : "nodes", path, &out->alloc,
                &out->nalloc, err) < 0)
        return -1;
    if (ccas_json_get (job, "nodes_resume"))
        return expand (job, "nodes_resume", path, &out->resume, &out->nresume, err);
    return expand (job, ccas_json_get (job, "nodes_alloc") ? "nodes_alloc" : "nodes", path, &out->resume,
                   &out->nresume, err);
}

struct ccas_resume_file *ccas_resume_file_parse (const char *text, size_t len, struct ccas_error *err)
{
    json_object *root = ccas_json_parse (text, len, "SLURM_RESUME_FILE", err);
    struct ccas_resume_file *rf = NULL;
    if (!root)
        return NULL;
    json_object *jobs = ccas_json_get (root, "jobs");
    if (!json_object_is_type (root, json_type_object) || !jobs ||
        !json_object_is_type (jobs, json_type_array)) {
        ccas_errorf (err, "SLURM_RESUME_FILE: jobs: expected an array");
        goto done;
    }
    size_t n = json_object_array_length (jobs);
    if (!(rf = calloc (1, sizeof (*rf))) || !(rf->jobs = calloc (n + 1, sizeof (*rf->jobs)))) {
        free (rf);
        rf = NULL;
        ccas_errorf (err, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        char path[64];
        snprintf (path, sizeof (path), "SLURM_RESUME_FILE: jobs[%zu]", i);
        rf->njobs++;
        if (parse_job (json_object_array_get_idx (jobs, i), path, &rf->jobs[i], err) < 0) {
            ccas_resume_file_destroy (rf);
            rf = NULL;
            goto done;
        }
    }
    if (index_names (rf, err) < 0) {
        ccas_resume_file_destroy (rf);
        rf = NULL;
    }
done:
    json_object_put (root);
    return rf;
}

struct ccas_resume_file *ccas_resume_file_read (struct ccas_error *err)
{
    const char *path = getenv ("SLURM_RESUME_FILE");
    if (!path || !*path) {
        ccas_errorf (err, "SLURM_RESUME_FILE is not set");
        return NULL;
    }
    size_t len;
    char *buf = ccas_file_read (path, RESUME_FILE_MAX, &len, err);
    if (!buf) {
        ccas_error_prefix (err, "SLURM_RESUME_FILE");
        return NULL;
    }
    struct ccas_resume_file *rf = ccas_resume_file_parse (buf, len, err);
    free (buf);
    return rf;
}

const struct ccas_resume_job *ccas_resume_file_job_of (const struct ccas_resume_file *rf, const char *name)
{
    if (!rf || !name)
        return NULL;
    size_t lo = 0, hi = rf->nby_name; /* the first entry not below name */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp (rf->by_name[mid].name, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < rf->nby_name && strcmp (rf->by_name[lo].name, name) == 0)
        return &rf->jobs[rf->by_name[lo].job];
    return NULL;
}
