/* SPDX-License-Identifier: MIT */
/* resume.c: ResumeProgram — create, start or leave alone the VMs behind Slurm node names.
 *
 * One status read, one nodes read, one create request for every name that
 * needs a VM (contiguous names of one bucket and placement group become one
 * set: nameFormat + nameOffset + count), one start request for deallocated
 * nodes, and a nodes read of the create operation only when the server added
 * fewer than asked.  Whatever cannot be had is handed back to Slurm at once
 * with a reason, so its job is requeued instead of waiting ResumeTimeout.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "ccapi/failure.h"
#include "dynamic.h"
#include "giveback.h"
#include "keepalive.h"
#include "power.h"
#include "resume_file.h"
#include "util/events.h"
#include "util/log.h"
#include "util/metrics.h"
#include "util/state.h"

struct want {
    const char *name;
    const char *stem; /* the name up to `index` ("hpc-", "f4-"), or all of it when index < 0 */
    long index;       /* nameOffset, or -1: the VM is made alone, named `stem` */
    struct ccas_bucket *bucket;
    struct ccas_pg *pg;
    uint32_t job;
    bool keep_alive; /* 'slurm keep-alive add' named it: KeepAlive in CycleCloud too */
};

struct resume_run {
    struct ccas_power *p;
    const struct ccas_resume_file *rf;
    struct want *wants;
    size_t nwants;
    const char **start_ids, **start_names;
    size_t nstarts;
    const char **release_ids;
    size_t nreleases;
    uint32_t asked_job; /* the last job whose nodes job_nodes() asked slurmctld for, */
    char **asked;       /* and its nodes */
    size_t nasked;
    struct ccas_state *keepalive; /* the names 'slurm keep-alive add' keeps, or NULL */
};

/* ---- sorting names into create / start / leave / hand back --------------------------------- */

static const char *held_reason (struct ccas_power *p, const struct ccas_bucket *b, char *buf, size_t size)
{
    const char *r = ccas_holds_reason (p->pass->policy->holds, b->na->name, b->machine_type, p->now);
    if (!r)
        return NULL;
    double left = ccas_holds_remaining (p->pass->policy->holds, b->na->name, b->machine_type, p->now);
    if (left > 365 * 86400.0)
        snprintf (buf, size, "%s (held until reset)", r);
    else
        snprintf (buf, size, "%s (held %.0f s more)", r, left);
    return buf;
}

static void existing (struct resume_run *r, const char *name, struct ccas_node *n)
{
    struct ccas_power *p = r->p;
    char reason[512];
    switch (n->kind) {
    case CCAS_NODE_READY:
    case CCAS_NODE_BOOTING:
    case CCAS_NODE_NEW: {
        char jobs[64];
        ccas_power_jobs (p, &name, 1, jobs, sizeof (jobs));
        ccas_power_say (p, LOG_INFO, "%s: VM %s already %s; left alone%s%s", name,
                        n->node_id ? n->node_id : "?", n->status ? n->status : "there", *jobs ? " for " : "",
                        jobs);
        return;
    }
    case CCAS_NODE_STOPPED:
        r->start_ids[r->nstarts] = n->node_id;
        r->start_names[r->nstarts++] = name;
        return;
    case CCAS_NODE_FAILED:
        if (p->cfg->slurm.failed_vms == CCAS_CONF_FAILED_KEEP) {
            snprintf (reason, sizeof (reason), CCAS_POWER_KEPT "the VM failed (%s); kept for inspection",
                      n->status_message ? n->status_message : "no message");
            ccas_power_handback (p, name, reason);
            return;
        }
        r->release_ids[r->nreleases++] = n->node_id;
        snprintf (reason, sizeof (reason),
                  "ccautoscale: transient: the previous VM failed (%s); released, try again",
                  n->status_message ? n->status_message : "no message");
        ccas_power_handback (p, name, reason);
        return;
    case CCAS_NODE_GOING:
        ccas_power_handback (p, name,
                             "ccautoscale: transient: the previous VM is still terminating; try again");
        return;
    }
}

static void sort_name (struct resume_run *r, const char *name)
{
    struct ccas_power *p = r->p;
    char why[400], reason[600];
    const struct ccas_slurm_node *sn = ccas_slurm_nodes_find (p->snodes, name);
    struct ccas_bucket *b = ccas_slurm_node_bucket (p->model, p->layout, name, sn, why, sizeof (why));
    if (!b) {
        ccas_log (LOG_WARNING, "%s: not managed by ccautoscale: %s", name, why);
        ccas_power_handback (p, name,
                             ccas_failure_reason (CCAS_CLASS_PERMANENT, why, reason, sizeof (reason)));
        return;
    }
    struct ccas_node *n = ccas_cluster_find_node (p->model, name);
    if (n) {
        existing (r, name, n);
        return;
    }
    if (held_reason (p, b, reason, sizeof (reason))) {
        ccas_power_handback (p, name, reason);
        return;
    }
    char stem[256];
    const char *kept = NULL;
    long index = -1;
    if (!ccas_slurm_name_split (name, stem, sizeof (stem), &index) ||
        !(kept = ccas_cluster_strdup (p->model, stem))) {
        snprintf (why, sizeof (why), "'%s' cannot be a CycleCloud node name (a '%%', or too long)", name);
        ccas_power_handback (p, name,
                             ccas_failure_reason (CCAS_CLASS_PERMANENT, why, reason, sizeof (reason)));
        return;
    }
    const struct ccas_resume_job *job = ccas_resume_file_job_of (r->rf, name);
    r->wants[r->nwants++] = (struct want){
        name, kept, index, b, NULL, job ? job->job_id : 0, ccas_slurm_keepalive_has (r->keepalive, name)};
}

/* A cluster that is not Started: nothing is created or started there, and
 * every name goes back to Slurm at once with the reason. */
static void hand_back_closed (struct resume_run *r, char **names, size_t n)
{
    char reason[600];
    ccas_failure_reason (CCAS_CLASS_PERMANENT, r->p->model->closed, reason, sizeof (reason));
    ccas_log (LOG_WARNING, "%zu node%s handed back: %s", n, n == 1 ? "" : "s", r->p->model->closed);
    for (size_t i = 0; i < n; i++)
        ccas_power_handback (r->p, names[i], reason);
}

/* ---- placement groups ------------------------------------------------------------------------ */

/* The job's nodes: the file's nodes_alloc (23.02+), else slurmctld's list,
 * asked once per job — 22.05's file names only the nodes being resumed, not
 * one already up — else the resumed ones.  Borrowed until the next call. */
static char *const *job_nodes (struct resume_run *r, const struct ccas_resume_job *job, size_t *n)
{
    if (!job->alloc_known && r->asked_job != job->job_id) {
        struct ccas_error err = {""};
        ccas_slurm_names_free (r->asked, r->nasked);
        if (!(r->asked = ccas_slurm_job_nodes (job->job_id, &r->nasked, &err))) {
            r->nasked = 0;
            ccas_log (LOG_DEBUG, "%s (its nodes from SLURM_RESUME_FILE alone)", err.text);
        }
        r->asked_job = job->job_id;
    }
    if (!job->alloc_known && r->asked) {
        *n = r->nasked;
        return r->asked;
    }
    *n = job->nalloc;
    return job->alloc;
}

/* The group an existing node of the same job (and bucket) is in, if any. */
static struct ccas_pg *job_pg (struct resume_run *r, const struct want *w)
{
    const struct ccas_resume_job *job = ccas_resume_file_job_of (r->rf, w->name);
    size_t n = 0;
    char *const *names = job ? job_nodes (r, job, &n) : NULL;
    for (size_t i = 0; i < n; i++) {
        struct ccas_node *node = ccas_cluster_find_node (r->p->model, names[i]);
        if (node && node->bucket == w->bucket && node->pg &&
            ccas_pg_room (w->bucket, node->pg, CCAS_PG_ALONE) > 0)
            return node->pg;
    }
    return NULL;
}

static struct ccas_pg *named_pg (struct resume_run *r, const struct want *w, unsigned part)
{
    char name[256];
    const struct ccas_bucket *b = w->bucket;
    if (w->job)
        snprintf (name, sizeof (name), "%s_%s_j%u", b->na->name, b->machine_type, w->job);
    else
        snprintf (name, sizeof (name), "%s_%s_r%.0f", b->na->name, b->machine_type, r->p->now);
    if (part > 1) {
        size_t len = strlen (name);
        snprintf (name + len, sizeof (name) - len, "_%u", part);
    }
    char *copy = ccas_cluster_strdup (r->p->model, name);
    return copy ? ccas_pg_get (r->p->model, w->bucket, copy, NULL) : NULL;
}

/* A job's nodes in a colocated bucket that one placement group cannot hold:
 * they go back to Slurm at once, every name the job is resuming, with a
 * permanent reason (the job would never run on nodes spread over groups). */
static void hand_back_job (struct resume_run *r, uint32_t job, const struct ccas_bucket *b, size_t need,
                           int64_t holds, const char *where)
{
    char msg[400], reason[600];
    snprintf (msg, sizeof (msg), "job %u needs %zu nodes in one placement group of %s/%s; %s %lld (%s)", job,
              need, b->na->name, b->machine_type, where, (long long)holds, b->pg_limit);
    ccas_failure_reason (CCAS_CLASS_PERMANENT, msg, reason, sizeof (reason));
    ccas_log (LOG_WARNING, "%s", msg);
    size_t k = 0;
    for (size_t i = 0; i < r->nwants; i++) {
        if (r->wants[i].job == job)
            ccas_power_handback (r->p, r->wants[i].name, reason);
        else
            r->wants[k++] = r->wants[i];
    }
    r->nwants = k;
}

/* Names resumed for no job (scontrol power_up) in a colocated bucket share a
 * group named for this run, continued in "<name>_2" past its size. */
static void assign_unowned (struct resume_run *r, struct want *w)
{
    struct ccas_pg *pg = NULL;
    for (size_t k = 0; k < r->nwants && !pg; k++)
        if (&r->wants[k] != w && r->wants[k].bucket == w->bucket && !r->wants[k].job && r->wants[k].pg &&
            ccas_pg_room (w->bucket, r->wants[k].pg, CCAS_PG_ALONE) > 0)
            pg = r->wants[k].pg;
    for (unsigned part = 1; !pg || ccas_pg_room (w->bucket, pg, CCAS_PG_ALONE) <= 0; part++)
        if (!(pg = named_pg (r, w, part)))
            break;
    w->pg = pg;
    ccas_pg_reserve (pg);
}

/* The nodes of one job in a colocated bucket share one placement group: one
 * the job already has nodes in, else one named for it.  A job of one node
 * needs none.  A job whose nodes there one group cannot hold (its
 * maxPlacementGroupSize, or maxPlacementGroupCoreSize over the VM's cores)
 * is never spread over groups: its nodes are handed back. */
static void assign_pgs (struct resume_run *r)
{
    for (size_t i = 0; i < r->nwants; i++) {
        struct want *w = &r->wants[i];
        if (!w->bucket->colocated || w->pg)
            continue;
        if (!w->job) {
            assign_unowned (r, w);
            continue;
        }
        const struct ccas_resume_job *job = ccas_resume_file_job_of (r->rf, w->name);
        size_t nalloc = 0;
        if (job && (job_nodes (r, job, &nalloc), nalloc <= 1))
            continue; /* one node: nothing to colocate it with */
        size_t need = 0;
        for (size_t k = i; k < r->nwants; k++)
            need += r->wants[k].bucket == w->bucket && r->wants[k].job == w->job;
        struct ccas_pg *pg = job_pg (r, w);
        int64_t room = pg ? ccas_pg_room (w->bucket, pg, CCAS_PG_ALONE) : 0;
        if (pg && room != CCAS_UNLIMITED && room < (int64_t)need) {
            hand_back_job (r, w->job, w->bucket, need + (size_t)pg->active, pg->active + room,
                           "its placement group holds");
            i = (size_t)-1; /* the list changed: start again (wants already placed keep their group) */
            continue;
        }
        if (!pg && (!(pg = named_pg (r, w, 1)) ||
                    ((room = ccas_pg_room (w->bucket, pg, CCAS_PG_ALONE)) != CCAS_UNLIMITED &&
                     room < (int64_t)need))) {
            if (pg)
                hand_back_job (r, w->job, w->bucket, need, room, "one holds");
            else
                ccas_log (LOG_ERR, "out of memory");
            i = (size_t)-1;
            continue;
        }
        for (size_t k = i; k < r->nwants; k++)
            if (r->wants[k].bucket == w->bucket && r->wants[k].job == w->job) {
                r->wants[k].pg = pg;
                ccas_pg_reserve (pg);
            }
    }
}

/* ---- creating ------------------------------------------------------------------------------------ */

static int cmp_want (const void *pa, const void *pb)
{
    const struct want *a = pa, *b = pb;
    if (a->bucket != b->bucket)
        return a->bucket->order < b->bucket->order ? -1 : 1;
    const char *pa_name = a->pg ? a->pg->name : "", *pb_name = b->pg ? b->pg->name : "";
    int c = strcmp (pa_name, pb_name);
    if (c)
        return c;
    if (a->keep_alive != b->keep_alive)
        return a->keep_alive ? 1 : -1;
    if ((c = strcmp (a->stem, b->stem)))
        return c;
    return a->index < b->index ? -1 : a->index > b->index;
}

struct set_span {
    size_t first, count; /* into wants */
};

/* Names of one bucket and group that differ only in a number counting up
 * make one set ("<stem>%d" from nameOffset); a name without such a number
 * is a set of its own, named by nameFormat alone. */
static size_t make_sets (struct resume_run *r, struct ccas_create_set *sets, struct set_span *spans,
                         char (*formats)[300], json_object *keep_alive)
{
    size_t nsets = 0;
    for (size_t i = 0; i < r->nwants;) {
        const struct want *w = &r->wants[i];
        size_t k = i + 1;
        while (w->index >= 0 && k < r->nwants && r->wants[k].bucket == w->bucket && r->wants[k].pg == w->pg &&
               r->wants[k].keep_alive == w->keep_alive && strcmp (r->wants[k].stem, w->stem) == 0 &&
               r->wants[k].index == r->wants[k - 1].index + 1)
            k++;
        snprintf (formats[nsets], sizeof (formats[nsets]), "%s%s", w->stem, w->index >= 0 ? "%d" : "");
        sets[nsets] = (struct ccas_create_set){
            .nodearray = w->bucket->na->name,
            .machine_type = w->bucket->machine_type,
            .placement_group = w->pg ? w->pg->name : NULL,
            .count = (int)(k - i),
            .name_format = formats[nsets],
            .name_offset = w->index >= 0 ? (int)w->index : 1,
            .node_attributes = w->keep_alive ? keep_alive : NULL,
        };
        spans[nsets++] = (struct set_span){i, k - i};
        i = k;
    }
    return nsets;
}

/* Keep the bucket's powered-down nodes out of scheduling while it is held. */
static void drain_bucket (struct resume_run *r, const struct ccas_bucket *b, const char *reason)
{
    struct ccas_power *p = r->p;
    size_t n = ccas_slurm_nodes_count (p->snodes), k = 0;
    const char **names = calloc (n + 1, sizeof (*names));
    char why[200];
    for (size_t i = 0; names && i < n; i++) {
        const struct ccas_slurm_node *sn = ccas_slurm_nodes_at (p->snodes, i);
        if (!ccas_slurm_node_powered_down (sn) || ccas_slurm_node_drained (sn) || ccas_slurm_node_down (sn))
            continue;
        if (ccas_slurm_node_bucket (p->model, p->layout, sn->name, sn, why, sizeof (why)) == b)
            names[k++] = sn->name;
    }
    ccas_power_update (p, names, k, CCAS_SLURM_DRAIN, reason);
    free (names);
}

/* A set the server could not fill: the policy decides whether its bucket
 * is held back; a bucket held from now has its powered-down nodes drained
 * with the reason, so Slurm sends the jobs elsewhere. */
static void short_create (struct resume_run *r, struct ccas_bucket *b, enum ccas_failure_class cls,
                          const char *message, const char *reason)
{
    struct ccas_observation o = {
        .seen = CCAS_SEEN_SHORT_CREATE,
        .nodearray = b->na->name,
        .machine_type = b->machine_type,
        .message = message,
        .cls = cls,
    };
    if (ccas_policy_decide (r->p->pass->policy, r->p->model, &o, 1, NULL))
        drain_bucket (r, b, reason);
}

static bool created (const struct ccas_record_list *made, const char *name)
{
    for (size_t i = 0; made && i < made->nnodes; i++)
        if (made->nodes[i].name && strcmp (made->nodes[i].name, name) == 0)
            return true;
    return false;
}

/* A set came back short: hand back the names the server did not make. */
static json_object *span_jobs (const struct resume_run *r, const struct set_span *span)
{
    json_object *a = json_object_new_array ();
    uint32_t last = 0;
    for (size_t i = span->first; i < span->first + span->count; i++)
        if (r->wants[i].job && r->wants[i].job != last) {
            char id[16];
            snprintf (id, sizeof (id), "%u", r->wants[i].job);
            json_object_array_add (a, json_object_new_string (id));
            last = r->wants[i].job;
        }
    return a;
}

/* The set as an event ("created" or "create_failed") and in the metrics. */
static void report_set (const struct resume_run *r, const struct ccas_create_set *set,
                        const struct set_span *span, const struct ccas_create_set_result *res,
                        const char *request_id, const char *operation_id, const struct ccas_record_list *made,
                        const char *cls)
{
    char labels[300];
    json_object *o = json_object_new_object ();
    json_object_object_add (o, "nodearray", json_object_new_string (set->nodearray));
    json_object_object_add (o, "machine_type", json_object_new_string (set->machine_type));
    json_object_object_add (o, "placement_group",
                            set->placement_group ? json_object_new_string (set->placement_group) : NULL);
    json_object_object_add (o, "count", json_object_new_int (set->count));
    json_object_object_add (o, "added", json_object_new_int (res->added));
    json_object_object_add (o, "request_id", json_object_new_string (request_id));
    json_object_object_add (o, "operation_id", operation_id ? json_object_new_string (operation_id) : NULL);
    json_object_object_add (o, "jobs", span_jobs (r, span));
    if (cls) {
        json_object_object_add (o, "class", json_object_new_string (cls));
        json_object_object_add (o, "message",
                                json_object_new_string (res->message ? res->message : "no reason given"));
        ccas_metrics_add (
            "ccautoscale_create_failures_total",
            ccas_metrics_labels (labels, sizeof (labels), "nodearray", set->nodearray, "class", cls),
            set->count - res->added);
        ccas_event ("create_failed", o);
        return;
    }
    const char **names = calloc (span->count + 1, sizeof (*names));
    size_t k = 0;
    for (size_t i = span->first; names && i < span->first + span->count; i++)
        if (made ? created (made, r->wants[i].name) : (int)(i - span->first) < res->added) {
            names[k++] = r->wants[i].name;
            ccas_metrics_node_requested (r->wants[i].name, r->p->now);
        }
    /* Slurm's own form: "hpc-[1-100]" is shorter to write and to read than a hundred names */
    char *hl = names ? ccas_slurm_hostlist_compress (names, k) : NULL;
    json_object_object_add (o, "nodes", json_object_new_string (hl ? hl : ""));
    free (hl);
    free (names);
    ccas_metrics_add ("ccautoscale_nodes_created_total",
                      ccas_metrics_labels (labels, sizeof (labels), "nodearray", set->nodearray, NULL, NULL),
                      res->added);
    ccas_event ("created", o);
}

static void set_shortfall (struct resume_run *r, const struct ccas_create_set *set,
                           const struct set_span *span, const struct ccas_create_set_result *res,
                           const struct ccas_record_list *made)
{
    char msg[400], reason[600];
    struct ccas_bucket *b = r->wants[span->first].bucket;
    if (res->message && *res->message)
        snprintf (msg, sizeof (msg), "%s", res->message);
    else
        ccas_bucket_available (b, msg, sizeof (msg));
    enum ccas_failure_class cls = ccas_failure_classify_message (msg);
    ccas_failure_reason (cls, msg, reason, sizeof (reason));
    for (size_t i = span->first; i < span->first + span->count; i++) {
        /* without the operation's node list, the first `added` names are the ones made */
        bool ok = made ? created (made, r->wants[i].name) : (int)(i - span->first) < res->added;
        if (!ok)
            ccas_power_handback (r->p, r->wants[i].name, reason);
    }
    ccas_log (LOG_WARNING, "create %s/%s: %d of %d added: %s", set->nodearray, set->machine_type, res->added,
              set->count, msg);
    short_create (r, b, cls, msg, reason);
}

static void log_sets (struct resume_run *r, const struct ccas_create_set *sets, const struct set_span *spans,
                      size_t nsets)
{
    for (size_t s = 0; s < nsets; s++) {
        const char *first = r->wants[spans[s].first].name;
        const char *last = r->wants[spans[s].first + spans[s].count - 1].name;
        char jobs[200], job[220] = "";
        const char **names = calloc (spans[s].count + 1, sizeof (*names));
        for (size_t i = 0; names && i < spans[s].count; i++)
            names[i] = r->wants[spans[s].first + i].name;
        if (names && *ccas_power_jobs (r->p, names, spans[s].count, jobs, sizeof (jobs)))
            snprintf (job, sizeof (job), " for %s", jobs);
        free (names);
        ccas_power_say (r->p, LOG_NOTICE, "%s %d node%s %s..%s in %s/%s%s%s%s%s",
                        r->p->dry_run ? "would create" : "create", sets[s].count,
                        sets[s].count == 1 ? "" : "s", first, last, sets[s].nodearray, sets[s].machine_type,
                        sets[s].placement_group ? " placement group " : "",
                        sets[s].placement_group ? sets[s].placement_group : "",
                        sets[s].node_attributes ? " KeepAlive" : "", job);
    }
}

static int record_request (struct ccas_power *p, const char *id, size_t nsets, struct ccas_error *err)
{
    struct ccas_state *st = ccas_power_requests (p, err);
    if (!st)
        return -1;
    json_object *rec = json_object_new_object ();
    json_object_object_add (rec, "time", json_object_new_double (p->now));
    json_object_object_add (rec, "program", json_object_new_string (p->prog));
    json_object_object_add (rec, "sets", json_object_new_int ((int)nsets));
    json_object_object_add (ccas_state_root (st), id, rec);
    int rc = ccas_state_save (st, err);
    ccas_state_destroy (st);
    return rc;
}

static void forget_request (struct ccas_power *p, const char *id)
{
    struct ccas_error err = {""};
    struct ccas_state *st = ccas_power_requests (p, &err);
    if (st)
        json_object_object_del (ccas_state_root (st), id);
    if (!st || ccas_state_save (st, &err) < 0)
        ccas_log (LOG_WARNING, "%s", err.text);
    ccas_state_destroy (st);
}

/* The names the server may hold VMs for that nobody wants: sync gives them back (giveback.h). */
static void giveback_wants (struct resume_run *r, const char *why)
{
    struct ccas_error err = {""};
    const char **names = calloc (r->nwants + 1, sizeof (*names));
    for (size_t i = 0; names && i < r->nwants; i++)
        names[i] = r->wants[i].name;
    if (names && ccas_slurm_giveback_add (r->p->cfg->state_dir, names, r->nwants, r->p->now, why, &err) < 0)
        ccas_log (LOG_WARNING, "%s", err.text);
    free (names);
}

static void create_all_failed (struct resume_run *r, const struct ccas_error *err)
{
    char reason[600];
    const struct ccas_http_failure *f = ccas_ccapi_last_failure (r->p->api);
    enum ccas_failure_class cls = ccas_failure_classify_request (f);
    char msg[560];
    if (f->kind == CCAS_FAIL_TRANSPORT)
        snprintf (msg, sizeof (msg), "CycleCloud unreachable: %s", f->message);
    else
        snprintf (msg, sizeof (msg), "%s", err->text);
    ccas_failure_reason (cls, msg, reason, sizeof (reason));
    for (size_t i = 0; i < r->nwants; i++)
        ccas_power_handback (r->p, r->wants[i].name, reason);
    r->p->failures++;
    /* no answer: the server may have made them after all, and nobody wants them now */
    if (f->kind != CCAS_FAIL_HTTP)
        giveback_wants (r, "a create whose answer was lost");
}

static void create (struct resume_run *r)
{
    struct ccas_power *p = r->p;
    struct ccas_error err = {""};
    struct ccas_create_set *sets = calloc (r->nwants + 1, sizeof (*sets));
    struct set_span *spans = calloc (r->nwants + 1, sizeof (*spans));
    char (*formats)[300] = calloc (r->nwants + 1, sizeof (*formats));
    struct ccas_create_result *res = NULL;
    struct ccas_record_list *made = NULL;
    json_object *keep_alive = json_object_new_object ();
    char id[64];

    json_object_object_add (keep_alive, "KeepAlive", json_object_new_boolean (true));
    if (!sets || !spans || !formats)
        goto done;
    qsort (r->wants, r->nwants, sizeof (*r->wants), cmp_want);
    size_t nsets = make_sets (r, sets, spans, formats, keep_alive);
    log_sets (r, sets, spans, nsets);
    if (p->dry_run)
        goto done;
    ccas_ccapi_new_request_id (id, sizeof (id));
    if (record_request (p, id, nsets, &err) < 0) {
        create_all_failed (r, &err);
        goto done;
    }
    struct ccas_create_request req = {id, sets, nsets};
    if (ccas_ccapi_create_nodes (p->api, &req, &res, &err) < 0) {
        ccas_log (LOG_ERR, "%s", err.text);
        create_all_failed (r, &err);
        if (ccas_ccapi_last_failure (p->api)->kind == CCAS_FAIL_HTTP)
            forget_request (p, id);
        goto done;
    }
    bool short_any = false;
    for (size_t s = 0; s < nsets; s++)
        short_any = short_any || res->sets[s].added < sets[s].count;
    if (short_any && !res->nodes && res->operation_id &&
        ccas_ccapi_get_nodes (p->api, res->operation_id, NULL, &made, &err) < 0)
        ccas_log (LOG_WARNING, "cannot list what operation %s made (%s); assuming the first names",
                  res->operation_id, err.text);
    for (size_t s = 0; s < nsets; s++) {
        const struct ccas_record_list *list = res->nodes ? res->nodes : made;
        if (res->sets[s].added > 0)
            report_set (r, &sets[s], &spans[s], &res->sets[s], id, res->operation_id, list, NULL);
        if (res->sets[s].added < sets[s].count) {
            set_shortfall (r, &sets[s], &spans[s], &res->sets[s], list);
            report_set (r, &sets[s], &spans[s], &res->sets[s], id, res->operation_id, list,
                        ccas_failure_class_name (ccas_failure_classify_message (res->sets[s].message)));
        }
    }
    forget_request (p, id);
done:
    json_object_put (keep_alive);
    ccas_record_list_destroy (made);
    ccas_create_result_destroy (res);
    free (formats);
    free (spans);
    free (sets);
}

/* ---- starting and releasing ------------------------------------------------------------------- */

static void start (struct resume_run *r)
{
    struct ccas_power *p = r->p;
    struct ccas_error err = {""};
    struct ccas_action_result *res = NULL;
    char reason[600];
    if (!r->nstarts)
        return;
    char jobs[200];
    char *hl = ccas_slurm_hostlist_compress (r->start_names, r->nstarts);
    ccas_power_jobs (p, r->start_names, r->nstarts, jobs, sizeof (jobs));
    ccas_power_say (p, LOG_NOTICE, "%s %s (deallocated)%s%s", p->dry_run ? "would start" : "start",
                    hl ? hl : "?", *jobs ? " for " : "", jobs);
    free (hl);
    if (p->dry_run)
        return;
    struct ccas_node_selector sel = {.ids = r->start_ids, .nids = r->nstarts};
    if (ccas_ccapi_node_action (p->api, CCAS_ACTION_START, &sel, NULL, &res, &err) < 0) {
        ccas_failure_reason (ccas_failure_classify_request (ccas_ccapi_last_failure (p->api)), err.text,
                             reason, sizeof (reason));
        for (size_t i = 0; i < r->nstarts; i++)
            ccas_power_handback (p, r->start_names[i], reason);
        p->failures++;
        /* no answer: the VMs may be starting, and their nodes are handed back */
        if (ccas_ccapi_last_failure (p->api)->kind != CCAS_FAIL_HTTP &&
            ccas_slurm_giveback_add (p->cfg->state_dir, r->start_names, r->nstarts, p->now,
                                     "a start whose answer was lost", &err) < 0)
            ccas_log (LOG_WARNING, "%s", err.text);
        return;
    }
    for (size_t i = 0; i < r->nstarts; i++) {
        bool ok = false;
        const char *error = "the server did not start it";
        for (size_t k = 0; k < res->nnodes; k++)
            if (res->nodes[k].id && strcmp (res->nodes[k].id, r->start_ids[i]) == 0) {
                ok = res->nodes[k].ok;
                error = res->nodes[k].error ? res->nodes[k].error : error;
            }
        if (!ok)
            ccas_power_handback (
                p, r->start_names[i],
                ccas_failure_reason (ccas_failure_classify_message (error), error, reason, sizeof (reason)));
    }
    ccas_action_result_destroy (res);
}

static void release_failed (struct resume_run *r)
{
    struct ccas_power *p = r->p;
    struct ccas_error err = {""};
    struct ccas_action_result *res = NULL;
    if (!r->nreleases || p->dry_run)
        return;
    struct ccas_node_selector sel = {.ids = r->release_ids, .nids = r->nreleases};
    if (ccas_ccapi_node_action (p->api, CCAS_ACTION_TERMINATE, &sel, NULL, &res, &err) < 0) {
        ccas_log (LOG_ERR, "cannot release failed VMs: %s", err.text);
        p->failures++;
    }
    ccas_action_result_destroy (res);
}

/* ---- the program -------------------------------------------------------------------------------- */

/* What SLURM_RESUME_FILE says of each job (the first few): the log then
 * shows what slurmctld asked for. */
static void log_jobs (const struct ccas_resume_file *rf)
{
    enum { SHOWN = 20 };
    for (size_t i = 0; rf && i < rf->njobs && i < SHOWN; i++) {
        const struct ccas_resume_job *j = &rf->jobs[i];
        char *alloc = ccas_slurm_hostlist_compress ((const char *const *)j->alloc, j->nalloc);
        char *resume = ccas_slurm_hostlist_compress ((const char *const *)j->resume, j->nresume);
        ccas_log (LOG_INFO,
                  "job %u: resume %s of %s (partition %s, features %s, reservation %s, oversubscribe %s)",
                  j->job_id, resume && *resume ? resume : "none", alloc && *alloc ? alloc : "none",
                  j->partition ? j->partition : "-", j->features ? j->features : "-",
                  j->reservation ? j->reservation : "-", j->oversubscribe ? j->oversubscribe : "-");
        free (alloc);
        free (resume);
    }
    if (rf && rf->njobs > SHOWN)
        ccas_log (LOG_INFO, "... and %zu jobs more", rf->njobs - SHOWN);
}

int ccas_power_resume (struct ccas_power *p, char **names, size_t n, const struct ccas_resume_file *rf)
{
    struct resume_run r = {.p = p, .rf = rf};
    p->rf = rf; /* hand-backs name their jobs */
    r.wants = calloc (n + 1, sizeof (*r.wants));
    r.start_ids = calloc (n + 1, sizeof (*r.start_ids));
    r.start_names = calloc (n + 1, sizeof (*r.start_names));
    r.release_ids = calloc (n + 1, sizeof (*r.release_ids));
    if (!r.wants || !r.start_ids || !r.start_names || !r.release_ids) {
        ccas_log (LOG_ERR, "out of memory");
        p->failures++;
    } else {
        struct ccas_error err = {""};
        ccas_power_requested (p, "resume_requested", names, n);
        log_jobs (rf);
        if (!(r.keepalive = ccas_slurm_keepalive_load (p->cfg->state_dir, &err)))
            ccas_log (LOG_WARNING, "%s; no VM is made KeepAlive this run", err.text);
        if (p->model->closed)
            hand_back_closed (&r, names, n);
        for (size_t i = 0; !p->model->closed && i < n; i++)
            sort_name (&r, names[i]);
        assign_pgs (&r);
        if (r.nwants)
            create (&r);
        start (&r);
        release_failed (&r);
    }
    ccas_power_flush (p);
    p->rf = NULL;
    ccas_slurm_names_free (r.asked, r.nasked);
    ccas_state_destroy (r.keepalive);
    free (r.wants);
    free (r.start_ids);
    free (r.start_names);
    free (r.release_ids);
    return p->failures ? -1 : 0;
}
