/* SPDX-License-Identifier: MIT */
/* resume_file.c: read both shapes of SLURM_RESUME_FILE. */
#include "config.h"

#include <stdbool.h>
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
        free (rf->jobs[i].features);
        free (rf->jobs[i].reservation);
        free (rf->jobs[i].oversubscribe);
    }
    ccas_slurm_names_free (rf->all, rf->nall);
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
    const char *expr = NULL;
    if (ccas_json_get_str (job, path, key, &expr, err) < 0)
        return -1;
    if (!expr || !*expr)
        return 0;
    if (!(*out = ccas_slurm_hostlist_expand (expr, n, err)))
        return ccas_error_prefix (err, "%s.%s", path, key);
    return 0;
}

/* An optional string (null is absent) into *out: 0, or -1 with `err` naming the field. */
static int text_field (json_object *job, const char *path, const char *key, char **out,
                       struct ccas_error *err)
{
    const char *v = NULL;
    int rc = ccas_json_get_str (job, path, key, &v, err);
    if (rc < 0)
        return -1;
    if (rc > 0 && !(*out = strdup (v)))
        return ccas_errorf (err, "out of memory");
    return 0;
}

static int parse_job (json_object *job, const char *path, struct ccas_resume_job *out, struct ccas_error *err)
{
    int64_t id = 0;
    if (!json_object_is_type (job, json_type_object))
        return ccas_errorf (err, "%s: expected an object", path);
    int rc = ccas_json_get_int (job, path, "job_id", &id, err);
    if (rc < 0)
        return -1;
    if (rc == 0)
        return ccas_errorf (err, "%s.job_id: missing", path);
    if (id <= 0 || id > UINT32_MAX)
        return ccas_errorf (err, "%s.job_id: %lld is not a job id", path, (long long)id);
    out->job_id = (uint32_t)id;
    if (text_field (job, path, "partition", &out->partition, err) < 0 ||
        text_field (job, path, "features", &out->features, err) < 0 ||
        text_field (job, path, "reservation", &out->reservation, err) < 0 ||
        text_field (job, path, "oversubscribe", &out->oversubscribe, err) < 0)
        return -1;
    /* 23.02+: nodes_alloc / nodes_resume; 22.05: nodes (the job's nodes being resumed) */
    out->alloc_known = ccas_json_get (job, "nodes_alloc") != NULL;
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
    rf->len = len;
    /* 23.02+: all_nodes_resume; 22.05: all_nodes */
    if (expand (root, ccas_json_get (root, "all_nodes_resume") ? "all_nodes_resume" : "all_nodes",
                "SLURM_RESUME_FILE", &rf->all, &rf->nall, err) < 0) {
        ccas_resume_file_destroy (rf);
        rf = NULL;
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
    if (len == 0) {
        free (buf);
        ccas_errorf (err, "SLURM_RESUME_FILE: %s: empty", path);
        return NULL;
    }
    struct ccas_resume_file *rf = ccas_resume_file_parse (buf, len, err);
    if (rf) /* what slurmctld wrote, for whoever debugs a resume (the start of a long one) */
        snprintf (rf->head, sizeof (rf->head), "%.*s",
                  (int)(len < sizeof (rf->head) ? len : sizeof (rf->head) - 1), buf);
    free (buf);
    return rf;
}

static int cmp_name (const void *a, const void *b)
{
    return strcmp (*(char *const *)a, *(char *const *)b);
}

static bool among (char **sorted, size_t n, const char *name)
{
    return n && bsearch (&name, sorted, n, sizeof (*sorted), cmp_name) != NULL;
}

char *ccas_resume_file_outside (const struct ccas_resume_file *rf, char *const *names, size_t n)
{
    if (!rf)
        return NULL;
    char **sorted = calloc (n + 1, sizeof (*sorted));
    const char **out = calloc (rf->nby_name + rf->nall + 1, sizeof (*out));
    size_t k = 0;
    if (!sorted || !out)
        goto done;
    if (n)
        memcpy (sorted, names, n * sizeof (*names));
    qsort (sorted, n, sizeof (*sorted), cmp_name);
    for (size_t i = 0; i < rf->nby_name; i++)
        if (!among (sorted, n, rf->by_name[i].name) &&
            (k == 0 || strcmp (out[k - 1], rf->by_name[i].name) != 0))
            out[k++] = rf->by_name[i].name; /* by_name is sorted: a name in two jobs comes once */
    for (size_t i = 0; i < rf->nall; i++)
        if (!among (sorted, n, rf->all[i]) && !ccas_resume_file_job_of (rf, rf->all[i]))
            out[k++] = rf->all[i]; /* (a job's name outside is out[] already) */
done:;
    char *hl = k ? ccas_slurm_hostlist_compress (out, k) : NULL;
    free (sorted);
    free (out);
    return hl;
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
