/* SPDX-License-Identifier: MIT */
/* slurm_jobs.c: translate Slurm jobs into the core's scheduler-neutral jobs. */
#include "config.h"

#include <slurm/slurm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slurm_jobs.h"
#include "slurmapi.h"

static const char *partition_nodearray (const struct ccas_cluster *c, const char *partition)
{
    if (!partition)
        return NULL;
    for (size_t i = 0; i < c->nnodearrays; i++) {
        const struct ccas_nodearray_config *na = ccas_conf_nodearray (c->cfg, c->nodearrays[i].name);
        const char *p = na && na->slurm_partition ? na->slurm_partition : c->nodearrays[i].name;
        if (p && strcmp (p, partition) == 0)
            return c->nodearrays[i].name;
    }
    return NULL;
}

/* "gres:gpu:2", "gres/gpu=2" or "gpu:2" in tres_per_node. */
static long gpus_per_node (const char *tres)
{
    const char *p = tres ? strstr (tres, "gpu") : NULL;
    if (!p)
        return 0;
    p += 3;
    while (*p && *p != ':' && *p != '=' && *p != ';' && *p != ',')
        p++; /* a type, e.g. gpu:a100:2 */
    const char *last = p;
    for (const char *q = p; *q && *q != ';' && *q != ','; q++)
        if (*q == ':' || *q == '=')
            last = q;
    return *last ? atol (last + 1) : 1;
}

static json_object *constraints (const struct ccas_cluster *c, const slurm_job_info_t *j)
{
    json_object *o = json_object_new_object ();
    json_object *nas = json_object_new_array ();
    char parts[1024];
    snprintf (parts, sizeof (parts), "%s", j->partition ? j->partition : "");
    char *save = NULL;
    for (char *p = strtok_r (parts, ",", &save); p; p = strtok_r (NULL, ",", &save)) {
        const char *na = partition_nodearray (c, p);
        json_object_array_add (nas, json_object_new_string (na ? na : p));
    }
    json_object_object_add (o, "node.nodearray", nas);
    uint32_t nodes = j->num_nodes ? j->num_nodes : 1;
    uint32_t cpus = j->pn_min_cpus ? j->pn_min_cpus : (j->num_cpus + nodes - 1) / nodes;
    if (cpus)
        json_object_object_add (o, "ncpus", json_object_new_int ((int)cpus));
    if (j->pn_min_memory && j->pn_min_memory != NO_VAL64) {
        uint64_t mb = j->pn_min_memory & ~MEM_PER_CPU;
        if (j->pn_min_memory & MEM_PER_CPU)
            mb *= cpus ? cpus : 1;
        json_object_object_add (o, "mem", json_object_new_double ((double)mb * 1048576.0));
    }
    long gpus = gpus_per_node (j->tres_per_node);
    if (gpus > 0)
        json_object_object_add (o, "ngpus", json_object_new_int ((int)gpus));
    for (size_t i = 0; j->features && i < c->nbuckets; i++)
        if (strstr (j->features, c->buckets[i].machine_type)) {
            json_object_object_add (o, "node.vm_size", json_object_new_string (c->buckets[i].machine_type));
            break;
        }
    return o;
}

static bool colocated (const struct ccas_cluster *c, const char *partition)
{
    const char *na = partition ? partition_nodearray (c, partition) : NULL;
    for (size_t i = 0; na && i < c->nnodearrays; i++)
        if (strcmp (c->nodearrays[i].name, na) == 0)
            return c->nodearrays[i].colocated;
    return false;
}

static int add_job (struct ccas_jobs *jobs, struct ccas_cluster *c, const slurm_job_info_t *j,
                    struct ccas_error *err)
{
    uint32_t base = j->job_state & JOB_STATE_BASE;
    char id[32], path[64];
    snprintf (id, sizeof (id), "%u", j->job_id);
    snprintf (path, sizeof (path), "job %u", j->job_id);
    struct ccas_job *job = ccas_jobs_add (jobs, id, 1);
    if (!job)
        return ccas_errorf (err, "out of memory");
    /* its partition is its queue: the shared pools of that name apply (a job
     * of several partitions is in none of them alone) */
    if (j->partition && !strchr (j->partition, ',')) {
        size_t len = strlen (j->partition) + 1;
        char *queue = ccas_jobs_alloc (jobs, len);
        if (!queue)
            return ccas_errorf (err, "out of memory");
        job->queue = memcpy (queue, j->partition, len);
    }
    json_object *cons = constraints (c, j);
    bool excl = j->shared == 0;
    job->colocated = colocated (c, j->partition);
    if (excl || job->colocated) {
        json_object *and = json_object_new_array ();
        json_object_array_add (and, cons);
        if (excl)
            json_object_array_add (and, json_tokener_parse ("{\"exclusive\": true}"));
        if (job->colocated)
            json_object_array_add (and, json_tokener_parse ("{\"in-a-placement-group\": true}"));
        cons = json_object_new_object ();
        json_object_object_add (cons, "and", and);
    }
    job->chunks[0].count = j->num_nodes ? j->num_nodes : 1;
    job->nslots = job->chunks[0].count;
    job->packing = CCAS_SCATTER;
    job->chunks[0].cons = ccas_constraint_compile (c->cons, cons, path, err);
    json_object_put (cons);
    if (!job->chunks[0].cons)
        return -1;
    /* Slurm allocates the nodes first: a job whose nodes power up is
     * RUNNING with the CONFIGURING flag until they register */
    bool waiting = base == JOB_RUNNING && (j->job_state & JOB_CONFIGURING);
    if (base == JOB_RUNNING) {
        size_t n = 0;
        char **names = j->nodes ? ccas_slurm_hostlist_expand (j->nodes, &n, NULL) : NULL;
        job->running = true; /* its nodes are taken, booting or not */
        job->ignore = waiting;
        job->nrunning_on = (uint32_t)n;
        job->running_on = ccas_jobs_alloc (jobs, (n + 1) * sizeof (*job->running_on));
        for (size_t i = 0; job->running_on && i < n; i++) {
            size_t size = strlen (names[i]) + 1;
            char *copy = ccas_jobs_alloc (jobs, size);
            if (copy)
                memcpy (copy, names[i], size);
            job->running_on[i] = copy;
        }
        ccas_slurm_names_free (names, n);
    }
    return 0;
}

/* The scheduler's order: higher priority first, then older. */
static int cmp_priority (const void *pa, const void *pb)
{
    const slurm_job_info_t *a = *(slurm_job_info_t *const *)pa, *b = *(slurm_job_info_t *const *)pb;
    if (a->priority != b->priority)
        return a->priority > b->priority ? -1 : 1;
    return a->job_id < b->job_id ? -1 : a->job_id > b->job_id;
}

struct ccas_jobs *ccas_slurm_jobs_load (struct ccas_cluster *c, struct ccas_error *err)
{
    job_info_msg_t *msg = NULL;
    if (slurm_load_jobs ((time_t)0, &msg, SHOW_ALL) != SLURM_SUCCESS) {
        ccas_errorf (err, "cannot load Slurm jobs: %s", ccas_slurm_last_error ());
        return NULL;
    }
    struct ccas_jobs *jobs = ccas_jobs_create (msg->record_count + 1);
    slurm_job_info_t **order = calloc (msg->record_count + 1, sizeof (*order));
    for (uint32_t i = 0; order && i < msg->record_count; i++)
        order[i] = &msg->job_array[i];
    if (order)
        qsort (order, msg->record_count, sizeof (*order), cmp_priority);
    for (uint32_t i = 0; jobs && order && i < msg->record_count; i++) {
        const slurm_job_info_t *j = order[i];
        uint32_t base = j->job_state & JOB_STATE_BASE;
        if (base != JOB_PENDING && base != JOB_RUNNING)
            continue;
        if (add_job (jobs, c, j, err) < 0) {
            ccas_jobs_destroy (jobs);
            jobs = NULL;
        }
    }
    free (order);
    slurm_free_job_info_msg (msg);
    if (!jobs && err && !err->text[0])
        ccas_errorf (err, "out of memory");
    return jobs;
}
