/* SPDX-License-Identifier: MIT */
/* serve_decide.c: an autostop request answered — under the lock, from a fresh model. */
#include "config.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "autostop.h"
#include "model_load.h"
#include "serve_decide.h"
#include "serve_metrics.h"
#include "util/clock.h"
#include "util/lock.h"
#include "util/log.h"
#include "util/metrics.h"

/* The lock is kept from one decision to the next while more wait, for at
 * most this long; then it is let go for this long before the next decision
 * takes it, more than the 20 ms in which another program waiting for it
 * tries again (util/lock.c), so that a flood of requests never starves
 * slurmctld's programs or the timers. */
#define LOCK_HOLD_MAX 0.25
#define LOCK_GAP 0.03
/* After a status read failed, the decisions waiting behind it answer 503
 * at once for this long rather than each wait out CycleCloud again. */
#define READ_FAILED_HOLD 2.0

struct serve_decide {
    struct cli *cli;
    const struct serve_auth_key *key;
    atomic_int waiting; /* decisions waiting for `mu` */
    pthread_mutex_t mu; /* one decision at a time; guards the fields below */
    struct ccas_lock *lock;
    double locked_at;             /* monotonic */
    double yielded_at;            /* when it was let go for others while decisions waited */
    struct ccas_cluster *cluster; /* the model kept, or NULL */
    double read_at;               /* monotonic */
    double read_failed_at;        /* the last read that failed, or 0 */
    struct autostop_view view;    /* the request sets counted in it */
    struct timespec sets_mtime;   /* state_dir's when they were read */
    pthread_mutex_t age_mu;       /* guards `age_read_at`, for healthz, which never waits on `mu` */
    double age_read_at;           /* 0: no model kept */
};

static json_object *body_start (bool stopped, const char *node)
{
    json_object *o = json_object_new_object ();
    json_object_object_add (o, "stopped", json_object_new_boolean (stopped));
    if (node)
        json_object_object_add (o, "node", json_object_new_string (node));
    return o;
}

static void body_finish (struct serve_answer *a, unsigned status, json_object *o)
{
    a->status = status;
    free (a->body);
    a->body =
        strdup (json_object_to_json_string_ext (o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
    json_object_put (o);
}

void serve_answer_set (struct serve_answer *a, unsigned status, bool stopped, const char *node,
                       const char *fmt, ...)
{
    char reason[1200];
    va_list ap;
    va_start (ap, fmt);
    vsnprintf (reason, sizeof (reason), fmt, ap);
    va_end (ap);
    json_object *o = body_start (stopped, node);
    json_object_object_add (o, "reason", json_object_new_string (reason));
    body_finish (a, status, o);
}

void serve_answer_release (struct serve_answer *a)
{
    free (a->body);
    a->body = NULL;
}

struct serve_decide *serve_decide_create (struct cli *cli, const struct serve_auth_key *key)
{
    struct serve_decide *d = calloc (1, sizeof (*d));
    if (!d)
        return NULL;
    d->cli = cli;
    d->key = key;
    pthread_mutex_init (&d->mu, NULL);
    pthread_mutex_init (&d->age_mu, NULL);
    return d;
}

void serve_decide_destroy (struct serve_decide *d)
{
    if (!d)
        return;
    autostop_view_release (&d->view);
    ccas_cluster_destroy (d->cluster);
    ccas_lock_release (d->lock);
    pthread_mutex_destroy (&d->mu);
    pthread_mutex_destroy (&d->age_mu);
    free (d);
}

static void keep (struct serve_decide *d, struct ccas_cluster *c, double at)
{
    autostop_view_release (&d->view);
    ccas_cluster_destroy (d->cluster);
    d->cluster = c;
    d->read_at = at;
    pthread_mutex_lock (&d->age_mu);
    d->age_read_at = c ? at : 0;
    pthread_mutex_unlock (&d->age_mu);
}

double serve_decide_status_age (struct serve_decide *d)
{
    pthread_mutex_lock (&d->age_mu);
    double at = d->age_read_at;
    pthread_mutex_unlock (&d->age_mu);
    return at > 0 ? ccas_clock_monotonic () - at : -1;
}

/* state_dir's modification time: the request sets are saved by renaming a
 * new file into it, so any change to them changes it */
static struct timespec sets_mtime (const struct serve_decide *d)
{
    struct stat st;
    struct timespec none = {0, 0};
    return stat (d->cli->cfg->state_dir, &st) == 0 ? st.st_mtim : none;
}

/* The model and the view of it, read again unless the ones kept are young
 * enough and the request sets unchanged.  An exit code (printed):
 * EXIT_INTERNAL when the request sets cannot be read, another when the
 * cluster cannot. */
static int fresh_view (struct serve_decide *d)
{
    struct model_source src = {.with_nodes = true};
    struct ccas_cluster *c = NULL;
    double now = ccas_clock_monotonic ();
    struct timespec mtime = sets_mtime (d);
    if (!d->cluster || now - d->read_at >= d->cli->cfg->serve.status_max_age) {
        keep (d, NULL, 0);
        if (d->read_failed_at > 0 && now - d->read_failed_at < READ_FAILED_HOLD)
            return EXIT_CYCLECLOUD;
        int rc = model_load (d->cli, &src, &c);
        serve_metrics_status_read ();
        if (rc != EXIT_OK) {
            d->read_failed_at = ccas_clock_monotonic ();
            return rc;
        }
        d->read_failed_at = 0;
        keep (d, c, now);
    } else if (d->view.targets &&
               (mtime.tv_sec != d->sets_mtime.tv_sec || mtime.tv_nsec != d->sets_mtime.tv_nsec))
        autostop_view_release (&d->view);
    if (d->view.targets)
        return EXIT_OK;
    d->sets_mtime = mtime;
    return autostop_view_load (d->cli, d->cluster, &d->view);
}

static void answer_outcome (struct serve_answer *a, const struct ccas_node *n,
                            const struct autostop_outcome *o, int rc, const char *by)
{
    const struct ccas_autostop *s = &o->a;
    if (rc == EXIT_INTERNAL) {
        a->decision = "failed";
        return serve_answer_set (a, 500, false, n->name,
                                 "the decision could not be made (see the service's log)");
    }
    bool granted = s->decision == CCAS_AUTOSTOP_GRANTED, going = s->decision == CCAS_AUTOSTOP_GOING;
    bool stopped = going || (granted && o->terminated);
    json_object *j = body_start (stopped, n->name);
    json_object_object_add (j, "decision", json_object_new_string (autostop_decision_name (s->decision)));
    if (granted && !o->terminated) {
        char reason[1200];
        snprintf (reason, sizeof (reason), "granted (%s), but the terminate failed: %s", s->reason,
                  o->error[0] ? o->error : "CycleCloud did not carry it out (see the service's log)");
        json_object_object_add (j, "reason", json_object_new_string (reason));
    } else
        json_object_object_add (j, "reason", json_object_new_string (s->reason));
    if (s->array)
        json_object_object_add (j, "array", json_object_new_string (s->array));
    if (s->request_set)
        json_object_object_add (j, "request_set", json_object_new_string (s->request_set));
    if (o->operation_id[0])
        json_object_object_add (j, "operation_id", json_object_new_string (o->operation_id));
    json_object_object_add (j, "authenticated_by", json_object_new_string (by));
    a->decision = granted && !stopped ? "failed" : autostop_decision_name (s->decision);
    body_finish (a, stopped ? 200 : granted ? 502 : 409, j);
}

/* With the lock held: find the node, check the caller, decide. */
static void decide_locked (struct serve_decide *d, const struct serve_query *q, const struct sockaddr *peer,
                           const char *authorization, double t0, struct serve_answer *a)
{
    struct cli *cli = d->cli;
    const char *cluster = cli->cfg->cluster_name;
    char from[64], why[600];
    serve_auth_address_text (peer, from, sizeof (from));
    int rc = fresh_view (d);
    if (rc == EXIT_INTERNAL)
        return serve_answer_set (a, 500, false, NULL,
                                 "the request sets in state_dir cannot be read (see the service's log)");
    if (rc != EXIT_OK) {
        a->retry_later = true;
        return serve_answer_set (a, 503, false, NULL,
                                 "cannot read cluster '%s' from CycleCloud now (see the service's log)",
                                 cluster);
    }
    const char *name = q->node[0] ? q->node : NULL, *instance = q->instance[0] ? q->instance : NULL;
    struct ccas_node *n = autostop_find (d->cluster, name, instance);
    if (!n) {
        ccas_log (LOG_NOTICE, "serve: %s asked to stop %s '%s': no such node in cluster '%s'", from,
                  name ? "node" : "instance", name ? name : instance, cluster);
        return serve_answer_set (a, 404, false, NULL, "%s '%s': no such node in cluster '%s'",
                                 name ? "node" : "instance", name ? name : instance, cluster);
    }
    struct serve_auth_node who = {.name = n->name, .node_id = n->node_id, .private_ip = n->private_ip};
    enum serve_auth_result by = serve_auth_check (d->key, cli->cfg->serve.auth, cluster, &who, peer,
                                                  authorization, why, sizeof (why));
    if (by == SERVE_AUTH_DENIED) {
        ccas_log (LOG_WARNING, "serve: refused to stop %s for %s: %s", n->name, from, why);
        return serve_answer_set (a, 403, false, n->name, "%s", why);
    }
    struct autostop_outcome o;
    cli->lock = d->lock; /* the decision's lock, as a command's (act_carry_out() passes it on) */
    rc = autostop_decide (cli, d->cluster, &d->view, n, true, &o);
    cli->lock = NULL;
    answer_outcome (a, n, &o, rc, by == SERVE_AUTH_BY_TOKEN ? "token" : "address");
    if (o.acted) {
        struct ccas_error err = {""};
        if (o.terminated) {
            /* the view counted the node out (autostop_decide); the model
             * says it is going, as CycleCloud's next answer will */
            n->target_state = "Terminated";
            n->status = "Terminating";
        } else /* what CycleCloud did is not known: read it again */
            keep (d, NULL, 0);
        if (ccas_metrics_flush (o.terminated ? "ok" : "failed", ccas_clock_monotonic () - t0, &err) < 0)
            ccas_log (LOG_WARNING, "metrics: %s", err.text);
    }
}

/* Take the lock unless this thread's predecessor kept it, waiting at most
 * until `deadline`. */
static bool take_lock (struct serve_decide *d, double deadline, struct ccas_error *err)
{
    if (d->lock)
        return true;
    double now = ccas_clock_monotonic ();
    if (now - d->yielded_at < LOCK_GAP)
        ccas_clock_sleep (LOCK_GAP - (now - d->yielded_at));
    now = ccas_clock_monotonic ();
    d->lock = ccas_lock_acquire (d->cli->cfg->lock_file, "ccautoscale serve",
                                 deadline > now ? deadline - now : 0, err);
    d->locked_at = ccas_clock_monotonic ();
    return d->lock != NULL;
}

/* Keep the lock for the next decision if one waits, unless it was kept long enough. */
static void maybe_unlock (struct serve_decide *d)
{
    double now = ccas_clock_monotonic ();
    bool waiting = atomic_load (&d->waiting) > 0;
    if (!d->lock || (waiting && now - d->locked_at < LOCK_HOLD_MAX))
        return;
    ccas_lock_release (d->lock);
    d->lock = NULL;
    if (waiting)
        d->yielded_at = now;
}

void serve_decide_autostop (struct serve_decide *d, const struct serve_query *q, const struct sockaddr *peer,
                            const char *authorization, struct serve_answer *a)
{
    struct ccas_error err = {""};
    double t0 = ccas_clock_monotonic ();
    a->status = 500;
    a->retry_later = false;
    a->decision = NULL;
    atomic_fetch_add (&d->waiting, 1);
    pthread_mutex_lock (&d->mu);
    atomic_fetch_sub (&d->waiting, 1);
    if (!take_lock (d, t0 + d->cli->cfg->serve.lock_timeout, &err)) {
        ccas_log (LOG_WARNING, "serve: %s", err.text);
        a->retry_later = true;
        serve_answer_set (a, 503, false, NULL, "busy: %s", err.text);
    } else
        decide_locked (d, q, peer, authorization, t0, a);
    maybe_unlock (d);
    pthread_mutex_unlock (&d->mu);
    if (a->decision)
        serve_metrics_autostop (a->decision, ccas_clock_monotonic () - t0);
}
