/* SPDX-License-Identifier: MIT */
/* apply.c: one create, one start, one terminate request; outcomes into the plan. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "ccapi/failure.h"
#include "engine/apply.h"
#include "engine/fallback.h"
#include "engine/report.h"
#include "util/events.h"
#include "util/json.h"
#include "util/log.h"
#include "util/metrics.h"

/* ---- pending request records --------------------------------------------------- */

/* The create sets [first, last) of a plan, sent in one request. */
struct range {
    size_t first, last;
};

static int record_request (struct ccas_state *requests, const char *id, const struct ccas_plan *plan,
                           struct range r, struct ccas_error *err)
{
    if (!requests)
        return 0;
    json_object *rec = json_object_new_object ();
    json_object *sets = json_object_new_array ();
    json_object_object_add (rec, "time", json_object_new_double ((double)time (NULL)));
    for (size_t i = r.first; i < r.last; i++) {
        const struct ccas_plan_set *s = &plan->creates[i];
        json_object *o = json_object_new_object ();
        json_object_object_add (o, "nodearray", json_object_new_string (s->bucket->na->name));
        json_object_object_add (o, "machine_type",
                                s->cyclecloud_chooses ? NULL
                                                      : json_object_new_string (s->bucket->machine_type));
        json_object_object_add (o, "count", json_object_new_int ((int)s->count));
        if (s->pg)
            json_object_object_add (o, "placement_group", json_object_new_string (s->pg->name));
        json_object_array_add (sets, o);
    }
    json_object_object_add (rec, "sets", sets);
    json_object_object_add (ccas_state_root (requests), id, rec);
    return ccas_state_save (requests, err);
}

static void forget_request (struct ccas_state *requests, const char *id)
{
    struct ccas_error err = {""};
    if (!requests)
        return;
    json_object_object_del (ccas_state_root (requests), id);
    if (ccas_state_save (requests, &err) < 0)
        ccas_log (LOG_WARNING, "%s", err.text);
}

int ccas_apply_reconcile (struct ccas_ccapi *api, struct ccas_state *requests, struct ccas_error *err)
{
    const char *ids[64];
    size_t n = 0;
    int pending = 0;
    if (!requests)
        return 0;
    json_object_object_foreach (ccas_state_root (requests), key, rec)
    {
        (void)rec;
        if (n < 64)
            ids[n++] = key;
    }
    for (size_t i = 0; i < n; i++) {
        struct ccas_record_list *list = NULL;
        struct ccas_error lerr = {""};
        char id[64];
        snprintf (id, sizeof (id), "%s", ids[i]);
        if (ccas_ccapi_get_nodes (api, NULL, id, &list, &lerr) == 0) {
            ccas_log (LOG_NOTICE, "create request %s from an earlier run made %zu node%s", id, list->nnodes,
                      list->nnodes == 1 ? "" : "s");
            ccas_record_list_destroy (list);
        } else if (ccas_ccapi_last_failure (api)->http_status == 404) {
            ccas_log (LOG_NOTICE, "create request %s from an earlier run never reached the server", id);
        } else {
            pending++;
            if (err)
                *err = lerr;
            continue;
        }
        forget_request (requests, id);
    }
    return pending;
}

/* ---- what happened, for events and metrics --------------------------------------------- */

#define EVENT_MAX_JOBS 100

/* The ids of the jobs given nodes of each create set (the correlation ids),
 * at most EVENT_MAX_JOBS per set: one walk over the jobs' slots.  Returns an
 * array of plan->ncreates JSON arrays (caller puts each and frees it), or NULL. */
static json_object **jobs_of_sets (const struct ccas_plan *plan)
{
    struct ccas_cluster *c = plan->cluster;
    json_object **out = calloc (plan->ncreates + 1, sizeof (*out));
    int32_t *set_of = calloc (c->nnodes + 1, sizeof (*set_of));
    const char **last = calloc (plan->ncreates + 1, sizeof (*last));
    if (!out || !set_of || !last) {
        free (out);
        out = NULL;
        goto done;
    }
    for (size_t i = 0; i < c->nnodes; i++)
        set_of[i] = -1;
    for (size_t i = 0; i < plan->ncreates; i++) {
        out[i] = json_object_new_array ();
        for (uint32_t k = 0; k < plan->creates[i].count; k++)
            if (plan->creates[i].nodes[k]->index < c->nnodes)
                set_of[plan->creates[i].nodes[k]->index] = (int32_t)i;
    }
    for (size_t j = 0; plan->jobs && j < plan->jobs->n; j++) {
        const struct ccas_job *job = &plan->jobs->v[j];
        for (uint32_t k = 0; job->matched && job->slots && k < job->nslots; k++) {
            uint32_t idx = job->slots[k]->index;
            int32_t si = idx < c->nnodes ? set_of[idx] : -1;
            if (si < 0 || last[si] == job->id || json_object_array_length (out[si]) >= EVENT_MAX_JOBS)
                continue;
            json_object_array_add (out[si], json_object_new_string (job->id));
            last[si] = job->id;
        }
    }
done:
    free (set_of);
    free (last);
    return out;
}

/* What every event about create set `s` says. */
static json_object *set_event (const struct ccas_plan *plan, const struct ccas_plan_set *s, json_object *jobs)
{
    json_object *o = json_object_new_object ();
    json_object_object_add (o, "nodearray", json_object_new_string (s->bucket->na->name));
    json_object_object_add (o, "machine_type", json_object_new_string (s->bucket->machine_type));
    json_object_object_add (o, "placement_group", s->pg ? json_object_new_string (s->pg->name) : NULL);
    json_object_object_add (o, "count", json_object_new_int ((int)s->count));
    json_object_object_add (o, "added", json_object_new_int (s->added));
    json_object_object_add (o, "request_id", json_object_new_string (s->request_id ? s->request_id : ""));
    json_object_object_add (o, "operation_id", s->operation ? json_object_new_string (s->operation) : NULL);
    json_object_object_add (o, "jobs", jobs ? json_object_get (jobs) : NULL);
    return o;
}

/* A "create_failed" event for the nodes of `s` not had, and their count by class. */
static void report_shortfall (const struct ccas_plan *plan, const struct ccas_plan_set *s, json_object *jobs,
                              enum ccas_failure_class cls)
{
    char labels[300];
    json_object *o = set_event (plan, s, jobs);
    json_object_object_add (o, "class", json_object_new_string (ccas_failure_class_name (cls)));
    json_object_object_add (o, "message",
                            json_object_new_string (s->message ? s->message : "no reason given"));
    ccas_event ("create_failed", o);
    ccas_metrics_add ("ccautoscale_create_failures_total",
                      ccas_metrics_labels (labels, sizeof (labels), "nodearray", s->bucket->na->name, "class",
                                           ccas_failure_class_name (cls)),
                      s->count - (uint32_t)(s->added > 0 ? s->added : 0));
}

/* A set the server answered: "created" for what it added, "create_failed" for the rest. */
static void report_set (const struct ccas_plan *plan, const struct ccas_plan_set *s, json_object *jobs,
                        double now)
{
    char labels[300];
    if (s->added > 0) {
        json_object *o = set_event (plan, s, jobs);
        json_object *names = json_object_new_array ();
        for (uint32_t k = 0; k < s->count; k++)
            if (s->nodes[k]->name && s->nodes[k]->kind == CCAS_NODE_NEW) {
                json_object_array_add (names, json_object_new_string (s->nodes[k]->name));
                ccas_metrics_node_requested (s->nodes[k]->name, now);
            }
        json_object_object_add (o, "nodes", names);
        ccas_metrics_add (
            "ccautoscale_nodes_created_total",
            ccas_metrics_labels (labels, sizeof (labels), "nodearray", s->bucket->na->name, NULL, NULL),
            s->added);
        ccas_event ("created", o);
    }
    if ((uint32_t)s->added < s->count)
        report_shortfall (plan, s, jobs, s->cls);
}

/* ---- create ------------------------------------------------------------------------ */

/* Every set of a create that failed as a whole (refused, unanswered, or
 * never sent) failed with the same message and class. */
static void fail_all_sets (struct ccas_plan *plan, struct range r, const char *message,
                           enum ccas_failure_class cls)
{
    for (size_t i = r.first; i < r.last; i++) {
        plan->creates[i].outcome = CCAS_FAILED;
        plan->creates[i].added = 0;
        plan->creates[i].message = ccas_plan_strdup (plan, message);
        plan->creates[i].cls = cls;
    }
}

static bool record_is (const struct ccas_record *r, const struct ccas_plan_set *s)
{
    const char *pg = s->pg ? s->pg->name : NULL;
    if (!r->nodearray || strcmp (r->nodearray, s->bucket->na->name) != 0)
        return false;
    if (!s->cyclecloud_chooses && r->machine_type &&
        strcasecmp (r->machine_type, s->bucket->machine_type) != 0)
        return false;
    if ((pg == NULL) != (r->placement_group_id == NULL))
        return false;
    if (pg && strcmp (pg, r->placement_group_id) != 0)
        return false;
    return ccas_record_made_with (r, s->node_attributes);
}

/* Give set `s`'s nodes, up to as many as the server added for it, the
 * identities of nodes made for it that no other set has taken. */
static void name_set_nodes (struct ccas_plan *plan, struct ccas_plan_set *s,
                            const struct ccas_record_list *list, bool *used)
{
    uint32_t k = 0, added = s->added > 0 ? (uint32_t)s->added : 0;
    for (size_t r = 0; r < list->nnodes && k < s->count && k < added; r++) {
        const struct ccas_record *rec = &list->nodes[r];
        if (used[r] || !record_is (rec, s))
            continue;
        used[r] = true;
        struct ccas_node *n = s->nodes[k++];
        n->name = ccas_plan_strdup (plan, rec->name);
        n->node_id = ccas_plan_strdup (plan, rec->node_id);
        n->hostname = ccas_plan_strdup (plan, rec->hostname);
        n->status = ccas_plan_strdup (plan, rec->status);
        if (s->cyclecloud_chooses && rec->machine_type)
            n->vm_size = ccas_plan_strdup (plan, rec->machine_type);
    }
}

/* Give each planned node the identity of a node the server made for its set.
 * Two sets may share a nodearray, type and group (their Configurations
 * differ), and the server lists nodes in no promised order: so a set takes
 * only nodes whose Configuration holds its own, sets with a Configuration
 * choose first, and no set takes more than the server says it added. */
static void name_new_nodes (struct ccas_plan *plan, struct range r, const struct ccas_record_list *list)
{
    bool *used = calloc (list->nnodes + 1, sizeof (*used));
    if (!used)
        return;
    for (int round = 0; round < 2; round++)
        for (size_t i = r.first; i < r.last; i++) {
            struct ccas_plan_set *s = &plan->creates[i];
            bool configured = ccas_json_get (s->node_attributes, "Configuration") != NULL;
            if (configured == (round == 0))
                name_set_nodes (plan, s, list, used);
        }
    free (used);
}

static void fill_results (struct ccas_plan *plan, struct range r, const struct ccas_create_result *res,
                          struct ccas_apply_stats *st)
{
    for (size_t i = r.first; i < r.last; i++) {
        struct ccas_plan_set *s = &plan->creates[i];
        size_t k = i - r.first;
        s->outcome = CCAS_DONE;
        s->added = k < res->nsets ? res->sets[k].added : 0;
        s->message = k < res->nsets ? ccas_plan_strdup (plan, res->sets[k].message) : NULL;
        s->cls = ccas_failure_classify_message (s->message);
        if ((uint32_t)s->added < s->count) {
            s->outcome = s->added ? CCAS_DONE : CCAS_FAILED;
            st->failed += s->count - (uint32_t)s->added;
            ccas_log (LOG_WARNING, "create %s/%s%s%s: %d of %u added: %s", s->bucket->na->name,
                      s->bucket->machine_type, s->pg ? " in " : "", s->pg ? s->pg->name : "", s->added,
                      s->count, s->message ? s->message : "no reason given");
        } else
            ccas_log (LOG_INFO, "create %s/%s%s%s: %d added", s->bucket->na->name, s->bucket->machine_type,
                      s->pg ? " in " : "", s->pg ? s->pg->name : "", s->added);
        st->created += (unsigned)s->added;
    }
}

/* The nodeAttributes of set `s`: its nodes' own, with KeepAlive added when
 * the set asks for it.  A new reference, or NULL for none. */
static json_object *set_attributes (const struct ccas_plan_set *s)
{
    json_object *attrs = NULL;
    if (!s->keep_alive)
        return s->node_attributes ? json_object_get (s->node_attributes) : NULL;
    if (!s->node_attributes || json_object_deep_copy (s->node_attributes, &attrs, NULL) < 0 ||
        !json_object_is_type (attrs, json_type_object)) {
        json_object_put (attrs);
        attrs = json_object_new_object ();
    }
    json_object_object_add (attrs, "KeepAlive", json_object_new_boolean (true));
    return attrs;
}

/* Send the create sets of `r` in one request, its id in `id` (64 bytes).
 * Returns 0, or -1 with `err` and *answered false when the server may be
 * unreachable (no HTTP answer). */
static int apply_creates (struct ccas_plan *plan, struct range r, char *id, struct ccas_ccapi *api,
                          struct ccas_state *requests, struct ccas_apply_stats *st, bool *answered,
                          struct ccas_error *err)
{
    size_t n = r.last - r.first;
    struct ccas_create_set *sets = calloc (n + 1, sizeof (*sets));
    struct ccas_create_result *res = NULL;
    json_object *attributes = json_object_new_array (); /* holds the sets' nodeAttributes */
    bool sent = false;
    const char *operation = NULL;
    int rc = -1;

    *answered = true;
    if (!sets || !attributes) {
        ccas_errorf (err, "out of memory");
        goto done;
    }
    for (size_t i = r.first; i < r.last; i++) {
        const struct ccas_plan_set *s = &plan->creates[i];
        json_object *attrs = set_attributes (s);
        if (attrs)
            json_object_array_add (attributes, attrs);
        sets[i - r.first] = (struct ccas_create_set){
            .nodearray = s->bucket->na->name,
            .machine_type = s->cyclecloud_chooses ? NULL : s->bucket->machine_type,
            .placement_group = s->pg ? s->pg->name : NULL,
            .count = (int)s->count,
            .node_attributes = attrs,
        };
        st->requested += s->count;
    }
    ccas_ccapi_new_request_id (id, 64);
    const char *kept_id = ccas_plan_strdup (plan, id);
    for (size_t i = r.first; i < r.last; i++)
        plan->creates[i].request_id = kept_id;
    if (record_request (requests, id, plan, r, err) < 0) {
        /* nothing sent: without the record a crash could not be reconciled */
        fail_all_sets (plan, r, err->text, CCAS_CLASS_PERMANENT);
        goto done;
    }
    struct ccas_create_request req = {id, sets, n};
    sent = true;
    if (ccas_ccapi_create_nodes (api, &req, &res, err) < 0) {
        const struct ccas_http_failure *f = ccas_ccapi_last_failure (api);
        fail_all_sets (plan, r, err->text, ccas_failure_classify_request (f));
        *answered = f->kind != CCAS_FAIL_TRANSPORT;
        if (f->kind == CCAS_FAIL_HTTP)
            forget_request (requests, id); /* refused: it will never have made nodes */
        goto done;
    }
    operation = ccas_plan_strdup (plan, res->operation_id);
    for (size_t i = r.first; i < r.last; i++)
        plan->creates[i].operation = operation;
    if (r.first == 0)
        plan->create_operation = operation;
    fill_results (plan, r, res, st);
    if (res->nodes)
        name_new_nodes (plan, r, res->nodes);
    else if (res->operation_id) {
        struct ccas_record_list *list = NULL;
        struct ccas_error lerr = {""};
        if (ccas_ccapi_get_nodes (api, res->operation_id, NULL, &list, &lerr) == 0) {
            name_new_nodes (plan, r, list);
            ccas_record_list_destroy (list);
        } else
            ccas_log (LOG_WARNING, "cannot list the nodes of operation %s: %s", res->operation_id, lerr.text);
    }
    forget_request (requests, id);
    rc = 0;
done:
    if (sent) {
        json_object **jobs = jobs_of_sets (plan);
        for (size_t i = r.first; i < r.last; i++) {
            if (rc == 0)
                report_set (plan, &plan->creates[i], jobs ? jobs[i] : NULL, (double)time (NULL));
            else /* the request failed outright: every set, with the request's class */
                report_shortfall (plan, &plan->creates[i], jobs ? jobs[i] : NULL, plan->creates[i].cls);
        }
        for (size_t i = 0; jobs && i < plan->ncreates; i++)
            json_object_put (jobs[i]);
        free (jobs);
    }
    ccas_create_result_destroy (res);
    json_object_put (attributes);
    free (sets);
    return rc;
}

/* ---- node actions ------------------------------------------------------------------- */

static const struct ccas_action_node *find_result (const struct ccas_action_result *res,
                                                   const struct ccas_node *n)
{
    for (size_t i = 0; i < res->nnodes; i++) {
        const struct ccas_action_node *r = &res->nodes[i];
        if ((r->id && n->node_id && strcmp (r->id, n->node_id) == 0) ||
            (r->name && n->name && strcmp (r->name, n->name) == 0))
            return r;
    }
    return NULL;
}

static int apply_action (struct ccas_plan *plan, struct ccas_ccapi *api, enum ccas_node_action action,
                         struct ccas_plan_action *v, size_t n, const char **operation, unsigned *done_count,
                         struct ccas_apply_stats *st, struct ccas_error *err)
{
    const char **ids = calloc (n + 1, sizeof (*ids));
    struct ccas_action_result *res = NULL;
    if (!ids)
        return ccas_errorf (err, "out of memory");
    for (size_t i = 0; i < n; i++)
        ids[i] = v[i].node->node_id;
    struct ccas_node_selector sel = {.ids = ids, .nids = n};
    int rc = ccas_ccapi_node_action (api, action, &sel, NULL, &res, err);
    free (ids);
    if (rc < 0) {
        for (size_t i = 0; i < n; i++) {
            v[i].outcome = CCAS_FAILED;
            v[i].error = ccas_plan_strdup (plan, err->text);
        }
        st->failed += (unsigned)n;
        return -1;
    }
    *operation = ccas_plan_strdup (plan, res->operation_id);
    for (size_t i = 0; i < n; i++) {
        const struct ccas_action_node *r = find_result (res, v[i].node);
        if (r && r->ok) {
            v[i].outcome = CCAS_DONE;
            (*done_count)++;
            ccas_log (LOG_INFO, "%s %s: %s", ccas_node_action_name (action), v[i].node->name, v[i].reason);
            ccas_report_action (NULL, action, v[i].node, v[i].reason, *operation);
            continue;
        }
        v[i].outcome = CCAS_FAILED;
        v[i].error = ccas_plan_strdup (plan, r ? (r->error ? r->error : "failed")
                                               : "the server does not know this node");
        st->failed++;
        ccas_log (LOG_WARNING, "%s %s: %s", ccas_node_action_name (action), v[i].node->name, v[i].error);
    }
    ccas_action_result_destroy (res);
    return 0;
}

/* Mark the actions of a kind not sent because the server did not answer the
 * request before it, so that they read as failed, not as done or planned. */
static void not_sent (struct ccas_plan *plan, struct ccas_plan_action *v, size_t n, const char *why,
                      struct ccas_apply_stats *st)
{
    char text[600];
    snprintf (text, sizeof (text), "not sent: %s", why);
    for (size_t i = 0; i < n; i++) {
        v[i].outcome = CCAS_FAILED;
        v[i].error = ccas_plan_strdup (plan, text);
    }
    st->failed += (unsigned)n;
}

/* ---- the fallback after a capacity failure ---------------------------------------------- */

static uint32_t sets_count (const struct ccas_plan *plan, size_t first, size_t last)
{
    uint32_t n = 0;
    for (size_t i = first; i < last; i++)
        n += plan->creates[i].count;
    return n;
}

/* A set of the first request that came back short for want of capacity, or
 * of quota the status did not show (both hold the bucket): what it did not
 * make is planned again elsewhere. */
static bool falls_back (const struct ccas_plan_set *s)
{
    return s->round == 0 && s->outcome != CCAS_PLANNED && (uint32_t)s->added < s->count &&
           (s->cls == CCAS_CLASS_CAPACITY || s->cls == CCAS_CLASS_QUOTA);
}

/* The potential nodes of the first request's sets that came back short for
 * want of capacity (or quota), their buckets held for the rest of the pass and the
 * nodes dropped from the model.  Returns how many (into *out, caller frees). */
static size_t lost_to_capacity (struct ccas_plan *plan, struct ccas_node ***out)
{
    struct ccas_cluster *c = plan->cluster;
    size_t n = 0;
    *out = NULL;
    for (size_t i = 0; i < plan->ncreates; i++) {
        const struct ccas_plan_set *s = &plan->creates[i];
        if (falls_back (s))
            n += s->count - (uint32_t)(s->added > 0 ? s->added : 0);
    }
    if (!n || !(*out = calloc (n + 1, sizeof (**out))))
        return 0;
    n = 0;
    for (size_t i = 0; i < plan->ncreates; i++) {
        struct ccas_plan_set *s = &plan->creates[i];
        char why[600];
        if (!falls_back (s))
            continue;
        snprintf (why, sizeof (why), "%s failure in this pass: %s", ccas_failure_class_name (s->cls),
                  s->message ? s->message : "no reason given");
        ccas_cluster_hold (c, s->bucket, why);
        for (uint32_t k = s->added > 0 ? (uint32_t)s->added : 0; k < s->count; k++) {
            ccas_cluster_drop_node (c, s->nodes[k]);
            (*out)[n++] = s->nodes[k];
        }
    }
    return n;
}

/* What the fallback sets made stands in for the nodes the short sets lost,
 * in order: each short set's `replaced`. */
static void count_replaced (struct ccas_plan *plan, size_t first)
{
    uint32_t made = 0;
    for (size_t i = first; i < plan->ncreates; i++)
        made += plan->creates[i].added > 0 ? (uint32_t)plan->creates[i].added : 0;
    for (size_t i = 0; i < first && made; i++) {
        struct ccas_plan_set *s = &plan->creates[i];
        if (!falls_back (s))
            continue;
        uint32_t lost = s->count - (uint32_t)(s->added > 0 ? s->added : 0);
        s->replaced = made < lost ? made : lost;
        made -= s->replaced;
    }
}

/* After the first create request: what capacity denied is planned again in
 * the buckets the jobs or targets allow next, and sent in one more request
 * (its own id, recorded first, like every create).  At most once a pass. */
static int fall_back (struct ccas_plan *plan, struct ccas_ccapi *api, struct ccas_state *requests,
                      struct ccas_apply_stats *st, bool *answered, struct ccas_error *err)
{
    struct ccas_cluster *c = plan->cluster;
    struct ccas_node **lost = NULL;
    size_t first = plan->ncreates, mark = c->nnodes;
    size_t nlost = lost_to_capacity (plan, &lost);
    int rc = 0;
    ccas_plan_replan_f replan = plan->replan ? plan->replan : plan->jobs ? ccas_fallback_jobs_cb : NULL;
    void *arg = plan->replan ? plan->replan_arg : plan->jobs;
    plan->replan = NULL; /* once */
    if (!nlost || !replan)
        goto done;
    if (replan (arg, plan, lost, nlost, err) < 0 || ccas_plan_extend (plan, mark, 1, err) < 0) {
        rc = -1;
        goto done;
    }
    if (plan->ncreates == first) {
        ccas_log (LOG_NOTICE,
                  "%zu node%s lost to capacity or quota: no other bucket the jobs or targets allow has room",
                  nlost, nlost == 1 ? "" : "s");
        goto done;
    }
    ccas_log (LOG_NOTICE, "%zu node%s lost to capacity or quota: asking for %u in %zu other set%s", nlost,
              nlost == 1 ? "" : "s", sets_count (plan, first, plan->ncreates), plan->ncreates - first,
              plan->ncreates - first == 1 ? "" : "s");
    char id[64];
    rc = apply_creates (plan, (struct range){first, plan->ncreates}, id, api, requests, st, answered, err);
    count_replaced (plan, first);
done:
    free (lost);
    return rc;
}

/* Each kind is sent whatever became of the kinds before it: a create refused
 * for one nodearray must not stop failed nodes elsewhere from being given
 * back.  Only when the server did not answer at all are the later kinds
 * marked failed unsent, rather than each waiting out its own timeouts. */
int ccas_apply (struct ccas_plan *plan, struct ccas_ccapi *api, struct ccas_state *requests,
                struct ccas_apply_stats *stats, struct ccas_error *err)
{
    struct ccas_apply_stats st = {0};
    struct ccas_error kind_err = {""};
    bool answered = true;
    int rc = 0;

    const char *closed = plan->cluster ? plan->cluster->closed : NULL;
    if (closed && (plan->ncreates || plan->nstarts)) {
        /* the model gives a closed cluster no node: only a plan made by hand
         * gets here, and it is not sent either */
        ccas_log (LOG_WARNING, "%u node%s not created, %zu not started: %s", ccas_plan_new_nodes (plan),
                  ccas_plan_new_nodes (plan) == 1 ? "" : "s", plan->nstarts, closed);
        fail_all_sets (plan, (struct range){0, plan->ncreates}, closed, CCAS_CLASS_PERMANENT);
        for (size_t i = 0; i < plan->ncreates; i++)
            st.failed += plan->creates[i].count;
    } else if (plan->ncreates) {
        if (apply_creates (plan, (struct range){0, plan->ncreates}, plan->request_id, api, requests, &st,
                           &answered, &kind_err) < 0 ||
            fall_back (plan, api, requests, &st, &answered, &kind_err) < 0) {
            *err = kind_err;
            rc = -1;
        }
    }
    struct {
        enum ccas_node_action action;
        struct ccas_plan_action *v;
        size_t n;
        const char **operation;
        unsigned *count;
    } kinds[] = {
        {CCAS_ACTION_START, plan->starts, plan->nstarts, &plan->start_operation, &st.started},
        {CCAS_ACTION_TERMINATE, plan->terminates, plan->nterminates, &plan->terminate_operation,
         &st.terminated},
    };
    for (size_t k = 0; k < sizeof (kinds) / sizeof (kinds[0]); k++) {
        if (!kinds[k].n)
            continue;
        if (closed && kinds[k].action == CCAS_ACTION_START) {
            not_sent (plan, kinds[k].v, kinds[k].n, closed, &st);
            continue;
        }
        if (!answered) {
            not_sent (plan, kinds[k].v, kinds[k].n, err->text, &st);
            continue;
        }
        if (apply_action (plan, api, kinds[k].action, kinds[k].v, kinds[k].n, kinds[k].operation,
                          kinds[k].count, &st, &kind_err) < 0) {
            answered = ccas_ccapi_last_failure (api)->kind != CCAS_FAIL_TRANSPORT;
            if (rc == 0)
                *err = kind_err;
            rc = -1;
        }
    }
    if (stats)
        *stats = st;
    return rc;
}
