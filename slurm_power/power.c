/* SPDX-License-Identifier: MIT */
/* power.c: set up and tear down a run of a Slurm program; hand-backs grouped by reason. */
#include "config.h"

#include <errno.h>
#include <libgen.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "engine/report.h"
#include "power.h"
#include "resume_file.h"
#include "util/clock.h"
#include "util/events.h"
#include "util/file.h"
#include "util/log.h"
#include "util/metrics.h"
#include "util/state.h"

const char *ccas_power_config_path (const char *explicit_path)
{
    static char beside[4096];
    const char *env = getenv ("CCAUTOSCALE_CONFIG");
    const char *slurm_conf = getenv ("SLURM_CONF");
    if (explicit_path)
        return explicit_path;
    if (env && *env)
        return env;
    if (slurm_conf && *slurm_conf) {
        char copy[4096];
        snprintf (copy, sizeof (copy), "%s", slurm_conf);
        snprintf (beside, sizeof (beside), "%s/ccautoscale.json", dirname (copy));
        if (access (beside, R_OK) == 0)
            return beside;
    }
    return CCAS_DEFAULT_CONFIG;
}

static void open_logging (struct ccas_power *p, const struct ccas_power_opts *o)
{
    struct ccas_error err = {""};
    int level = (int)p->cfg->logging.level;
    unsigned sinks = p->cfg->logging.syslog ? CCAS_LOG_SYSLOG : 0;
    if (o->verbosity || o->dry_run || isatty (STDERR_FILENO))
        sinks |= CCAS_LOG_STDERR;
    ccas_log_open (p->prog, level, sinks);
    ccas_log_set_stderr_level (o->verbosity ? LOG_NOTICE + o->verbosity : LOG_WARNING);
    if (p->cfg->logging.file && ccas_log_set_file (p->cfg->logging.file, &err) < 0)
        ccas_log (LOG_WARNING, "%s", err.text);
}

/* slurmctld runs the programs as SlurmUser, rarely root: a file they cannot
 * write is most often a permission problem, which the error then says. */
static int as_whom (struct ccas_error *err, int errnum)
{
    if (errnum == EACCES || errnum == EPERM) {
        const struct passwd *pw = getpwuid (geteuid ());
        size_t len = strlen (err->text);
        snprintf (err->text + len, sizeof (err->text) - len,
                  " (running as user '%s', uid %u; slurmctld runs"
                  " this program as SlurmUser)",
                  pw ? pw->pw_name : "?", (unsigned)geteuid ());
    }
    errno = errnum;
    return -1;
}

/* The lock and state_dir: a permission (as_whom), or storage that is not
 * there or not writable — on an HA pair, the shared file system. */
static int on_storage (struct ccas_error *err, int errnum)
{
    if (ccas_power_storage_error (errnum)) {
        size_t len = strlen (err->text);
        snprintf (err->text + len, sizeof (err->text) - len,
                  " (is the file system holding it mounted and writable? an HA pair keeps state_dir and"
                  " lock_file on storage both controllers share)");
    }
    return as_whom (err, errnum);
}

bool ccas_power_storage_error (int errnum)
{
    switch (errnum) {
    case ENOENT:
    case EROFS:
    case EIO:
    case ESTALE:
    case ENOTCONN:
    case ETIMEDOUT:
    case ENODEV:
    case ENOSPC:
        return true;
    default:
        return false;
    }
}

/* Every run writes the state (holds, breakers, requests, events), so a
 * state_dir it cannot write is found before CycleCloud is asked anything.
 * It is made if missing, but not its parent: a missing parent is most
 * likely shared storage that is not mounted, and a state_dir made on the
 * local disk there would split the state of an HA pair in two. */
static int check_state_dir (const char *dir, struct ccas_error *err)
{
    char parent[4096];
    snprintf (parent, sizeof (parent), "%s", dir);
    const char *up = dirname (parent);
    if (access (dir, F_OK) < 0 && errno == ENOENT && access (up, F_OK) < 0 && errno == ENOENT) {
        ccas_errorf (err, "state_dir '%s': its parent '%s' does not exist", dir, up);
        return on_storage (err, ENOENT);
    }
    if (ccas_file_make_dirs (dir, err) < 0)
        return on_storage (err, errno);
    if (access (dir, W_OK | X_OK) < 0) {
        int e = errno;
        ccas_errorf (err, "state_dir '%s': cannot write there: %s", dir, strerror (e));
        return on_storage (err, e);
    }
    return 0;
}

struct ccas_state *ccas_power_requests (const struct ccas_power *p, struct ccas_error *err)
{
    struct ccas_state_salvage sv;
    struct ccas_state *st = ccas_state_load_salvage (p->cfg->state_dir, "requests", &sv, err);
    if (st && sv.broken)
        ccas_log (LOG_WARNING,
                  "%s/requests.json did not parse (%zu bytes: cut short by a crash during a write?): kept as"
                  " %s; %zu pending create request%s read back, settled by request id; a VM of one lost with"
                  " the rest is found by its name, and sync terminates it if Slurm does not want it",
                  p->cfg->state_dir, sv.bytes, sv.aside, sv.kept, sv.kept == 1 ? "" : "s");
    return st;
}

struct ccas_ccapi *ccas_power_client (const struct ccas_config *cfg, struct ccas_error *err)
{
    struct ccas_ccapi_opts ao;
    ccas_conf_client_opts (cfg, &ao);
    /* slurmctld waits for these programs and they hold the lock: an
     * unreachable CycleCloud must not keep them for minutes, as the
     * command's limits (connect_timeout, request_timeout, retries) would */
    ao.connect_timeout_ms = (long)(cfg->slurm.connect_timeout * 1000);
    ao.request_timeout_ms = (long)(cfg->slurm.request_timeout * 1000);
    ao.max_retries = (int)cfg->slurm.retries;
    ao.backoff_max_ms = 2000;
    ao.retry_after_max_ms = 2000; /* a server asking for a longer wait: hand the nodes back (throttling) */
    return ccas_ccapi_create (&ao, err);
}

/* The policy's messages: to the dry run's report, or the log. */
static void policy_say (void *arg, int level, const char *msg)
{
    ccas_power_say (arg, level, "%s", msg);
}

/* The holds and breakers, read once for the run and saved once by
 * ccas_power_detach() (engine/pass.h). */
static int load_policy (struct ccas_power *p, const struct ccas_lock *lock, struct ccas_error *err)
{
    unsigned flags = CCAS_PASS_POLICY | (p->dry_run ? CCAS_PASS_DRY_RUN : 0);
    if (!(p->pass = ccas_pass_load (p->cfg, lock, flags, p->now, err)))
        return -1;
    p->pass->policy->say = policy_say;
    p->pass->policy->say_arg = p;
    return 0;
}

int ccas_power_open (struct ccas_power *p, const char *prog, const struct ccas_power_opts *o,
                     struct ccas_error *err)
{
    memset (p, 0, sizeof (*p));
    p->t0 = ccas_clock_monotonic ();
    p->prog = prog;
    p->dry_run = o->dry_run;
    p->out = stdout;
    p->now = (double)time (NULL);
    errno = 0; /* as_whom and the caller read it: nothing stale */
    if (!(p->cfg = ccas_conf_load (ccas_power_config_path (o->config_path), err)))
        return as_whom (err, errno);
    open_logging (p, o);
    if (ccas_slurm_init (err) < 0)
        return -1;
    if (!(p->api = ccas_power_client (p->cfg, err)))
        return -1;
    if (!p->dry_run) {
        double wait = p->cfg->slurm.lock_timeout;
        errno = 0;
        if (!(p->lock = ccas_lock_acquire (p->cfg->lock_file, prog, wait, err)))
            return as_whom (err, errno); /* (lock.c asks about the mount itself) */
        if (check_state_dir (p->cfg->state_dir, err) < 0)
            return -1;
        /* counters accumulate under the lock, so no run's update is lost */
        ccas_events_open (p->cfg->events.path, p->cfg->events.max_mb, p->cfg->events.keep, prog);
        ccas_metrics_open (p->cfg->metrics.path, p->cfg->state_dir, prog);
    }
    return load_policy (p, p->lock, err);
}

int ccas_power_attach (struct ccas_power *p, const char *prog, struct ccas_config *cfg,
                       struct ccas_ccapi *api, const struct ccas_lock *lock, bool dry_run,
                       struct ccas_error *err)
{
    memset (p, 0, sizeof (*p));
    p->prog = prog;
    p->cfg = cfg;
    p->api = api;
    p->dry_run = dry_run;
    p->out = stdout;
    p->now = (double)time (NULL);
    if (ccas_slurm_init (err) < 0)
        return -1;
    return load_policy (p, lock, err);
}

void ccas_power_detach (struct ccas_power *p)
{
    struct ccas_error err = {""};
    if (p->model && !p->dry_run)
        ccas_report_model (p->model, p->now);
    if (p->nhb)
        ccas_power_flush (p);
    if (p->pass && ccas_pass_save (p->pass, &err) < 0)
        ccas_log (LOG_ERR, "%s", err.text);
    ccas_pass_destroy (p->pass);
    free (p->hb_names);
    free (p->hb_reasons);
    ccas_slurm_layout_destroy (p->layout);
    ccas_cluster_destroy (p->model);
    ccas_slurm_nodes_destroy (p->snodes);
    ccas_slurm_fini ();
    memset (p, 0, sizeof (*p));
}

int ccas_power_load (struct ccas_power *p, bool with_nodes, struct ccas_error *err)
{
    struct ccas_status *st = NULL;
    if (!(p->snodes = ccas_slurm_nodes_load (err)))
        return -1;
    /* one request: status?nodes=true carries the node records too */
    if (ccas_ccapi_get_status (p->api, with_nodes, &st, err) < 0)
        return -1;
    if (!(p->model = ccas_cluster_create (p->cfg, st, NULL, err)))
        return -1;
    if (!(p->layout = ccas_slurm_layout_create (p->model)) ||
        ccas_holds_apply (p->pass->policy->holds, p->model, p->now) < 0)
        return ccas_errorf (err, "out of memory");
    return 0;
}

void ccas_power_say (struct ccas_power *p, int level, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start (ap, fmt);
    vsnprintf (msg, sizeof (msg), fmt, ap);
    va_end (ap);
    if (p->dry_run)
        fprintf (p->out, "%s\n", msg);
    else
        ccas_log (level, "%s", msg);
}

bool ccas_power_reason_ours (const char *reason)
{
    static const char prefix[] = "ccautoscale:";
    static const char *const others[] = {"ResumeTimeout reached", "cyclecloud_zombie_node",
                                         "cyclecloud_no_node"};
    if (!reason)
        return false;
    if (strncmp (reason, prefix, strlen (prefix)) == 0)
        return true;
    for (size_t i = 0; i < sizeof (others) / sizeof (others[0]); i++)
        if (strcmp (reason, others[i]) == 0)
            return true;
    return false;
}

bool ccas_power_reason_kept (const char *reason)
{
    return reason && (strncmp (reason, CCAS_POWER_KEPT, strlen (CCAS_POWER_KEPT)) == 0 ||
                      strncmp (reason, CCAS_POWER_ZOMBIE, strlen (CCAS_POWER_ZOMBIE)) == 0 ||
                      strcmp (reason, "cyclecloud_zombie_node") == 0);
}

const char *ccas_power_jobs (const struct ccas_power *p, const char *const *names, size_t n, char *buf,
                             size_t size)
{
    enum { MAX_IDS = 32 };
    uint32_t ids[MAX_IDS];
    size_t nids = 0, len = 0;
    bool more = false;
    buf[0] = '\0';
    for (size_t i = 0; p->rf && i < n; i++) {
        const struct ccas_resume_job *j = ccas_resume_file_job_of (p->rf, names[i]);
        size_t k = 0;
        while (j && k < nids && ids[k] != j->job_id)
            k++;
        if (!j || k < nids)
            continue;
        if (nids == MAX_IDS) {
            more = true;
            break;
        }
        ids[nids++] = j->job_id;
    }
    for (size_t k = 0; k < nids && len < size; k++)
        len += (size_t)snprintf (buf + len, size - len, "%s%u",
                                 k          ? ","
                                 : nids > 1 ? "jobs "
                                            : "job ",
                                 ids[k]);
    if (more && len < size)
        snprintf (buf + len, size - len, ",...");
    return buf;
}

void ccas_power_requested (struct ccas_power *p, const char *type, char *const *names, size_t n)
{
    if (p->dry_run)
        return;
    json_object *o = json_object_new_object ();
    char *hl = ccas_slurm_hostlist_compress ((const char *const *)names, n);
    json_object_object_add (o, "nodes", json_object_new_string (hl ? hl : ""));
    free (hl);
    if (p->rf) {
        json_object *jobs = json_object_new_array ();
        for (size_t j = 0; j < p->rf->njobs; j++) {
            char id[16];
            snprintf (id, sizeof (id), "%u", p->rf->jobs[j].job_id);
            json_object_array_add (jobs, json_object_new_string (id));
        }
        json_object_object_add (o, "jobs", jobs);
    }
    ccas_event (type, o);
}

/* The "failed" event: the node, its class and reason, and its job. */
static void handback_event (const struct ccas_power *p, const char *name, const char *reason)
{
    static const char prefix[] = "ccautoscale: ";
    char cls[32] = "";
    if (strncmp (reason, prefix, strlen (prefix)) == 0) {
        const char *c = reason + strlen (prefix);
        size_t n = strcspn (c, ":");
        snprintf (cls, sizeof (cls), "%.*s", (int)(n < sizeof (cls) ? n : sizeof (cls) - 1), c);
    }
    json_object *o = json_object_new_object ();
    json_object_object_add (o, "node", json_object_new_string (name));
    json_object_object_add (o, "class", *cls ? json_object_new_string (cls) : NULL);
    json_object_object_add (o, "reason", json_object_new_string (reason));
    const struct ccas_resume_job *j = ccas_resume_file_job_of (p->rf, name);
    if (j) {
        char id[16];
        json_object *jobs = json_object_new_array ();
        snprintf (id, sizeof (id), "%u", j->job_id);
        json_object_array_add (jobs, json_object_new_string (id));
        json_object_object_add (o, "jobs", jobs);
    }
    ccas_event ("failed", o);
}

void ccas_power_handback (struct ccas_power *p, const char *name, const char *reason)
{
    if (!p->dry_run)
        handback_event (p, name, reason);
    if (p->nhb == p->hbcap) {
        size_t cap = p->hbcap ? p->hbcap * 2 : 64;
        char **n = realloc (p->hb_names, cap * sizeof (*n));
        if (n)
            p->hb_names = n;
        char **r = realloc (p->hb_reasons, cap * sizeof (*r));
        if (r)
            p->hb_reasons = r;
        if (!n || !r)
            return;
        p->hbcap = cap;
    }
    p->hb_names[p->nhb] = strdup (name);
    p->hb_reasons[p->nhb] = strdup (reason);
    if (p->hb_names[p->nhb] && p->hb_reasons[p->nhb])
        p->nhb++;
}

/* An update, logged (or in a dry run printed) as "VERB HOSTLIST[ (JOBS)][: REASON]". */
static int update (struct ccas_power *p, const char *const *names, size_t n, enum ccas_slurm_update what,
                   const char *reason, const char *jobs)
{
    static const char *const verbs[] = {
        [CCAS_SLURM_POWER_DOWN_FORCE] = "hand back",
        [CCAS_SLURM_DRAIN] = "drain",
        [CCAS_SLURM_DOWN] = "mark down",
        [CCAS_SLURM_RESUME] = "return to service",
        [CCAS_SLURM_UNDRAIN] = "undrain",
        [CCAS_SLURM_POWER_UP] = "power up",
    };
    struct ccas_error err = {""};
    char note[300] = "";
    if (!n)
        return 0;
    char *hl = ccas_slurm_hostlist_compress (names, n);
    if (!hl)
        return -1;
    if (jobs && *jobs)
        snprintf (note, sizeof (note), " (%s)", jobs);
    int rc = 0;
    if (p->dry_run)
        fprintf (p->out, "would %s %s%s%s%s\n", verbs[what], hl, note, reason ? ": " : "",
                 reason ? reason : "");
    else if (ccas_slurm_update (hl, what, reason, &err) < 0) {
        ccas_log (LOG_ERR, "%s%s", err.text, note);
        p->failures++;
        rc = -1;
    } else
        ccas_log (LOG_NOTICE, "%s %s%s%s%s", verbs[what], hl, note, reason ? ": " : "", reason ? reason : "");
    free (hl);
    return rc;
}

int ccas_power_update (struct ccas_power *p, const char *const *names, size_t n, enum ccas_slurm_update what,
                       const char *reason)
{
    return update (p, names, n, what, reason, NULL);
}

void ccas_power_return (struct ccas_power *p, const char *const *names, size_t n)
{
    const char **down = calloc (n + 1, sizeof (*down));
    const char **drained = calloc (n + 1, sizeof (*drained));
    size_t nd = 0, nr = 0;
    for (size_t i = 0; down && drained && i < n; i++) {
        const struct ccas_slurm_node *sn = p->snodes ? ccas_slurm_nodes_find (p->snodes, names[i]) : NULL;
        if (sn && !ccas_slurm_node_down (sn))
            drained[nr++] = names[i];
        else
            down[nd++] = names[i];
    }
    ccas_power_update (p, down, nd, CCAS_SLURM_RESUME, NULL);
    ccas_power_update (p, drained, nr, CCAS_SLURM_UNDRAIN, NULL);
    free (down);
    free (drained);
}

void ccas_power_flush (struct ccas_power *p)
{
    const char **group = calloc (p->nhb + 1, sizeof (*group));
    bool *done = calloc (p->nhb + 1, sizeof (*done));
    for (size_t i = 0; group && done && i < p->nhb; i++) {
        if (done[i])
            continue;
        size_t n = 0;
        for (size_t k = i; k < p->nhb; k++)
            if (!done[k] && strcmp (p->hb_reasons[k], p->hb_reasons[i]) == 0) {
                group[n++] = p->hb_names[k];
                done[k] = true;
            }
        char jobs[200];
        update (p, group, n, CCAS_SLURM_POWER_DOWN_FORCE, p->hb_reasons[i],
                ccas_power_jobs (p, group, n, jobs, sizeof (jobs)));
    }
    free (group);
    free (done);
    for (size_t i = 0; i < p->nhb; i++) {
        free (p->hb_names[i]);
        free (p->hb_reasons[i]);
    }
    p->nhb = 0;
}

/* slurmctld clears DRAIN when it starts powering a node down (with
 * idle_on_node_suspend, and for a forced power down: power_save.c), so a
 * node handed back cannot be held at once by the run that hands it back;
 * once it is powering down — when Slurm calls the SuspendProgram for it —
 * a drain stays. */
void ccas_power_hold_held (struct ccas_power *p, char *const *names, size_t n)
{
    const char **held = calloc (n + 1, sizeof (*held));
    const char **why = calloc (n + 1, sizeof (*why));
    bool *done = calloc (n + 1, sizeof (*done));
    size_t k = 0;
    char text[300];
    for (size_t i = 0; held && why && done && i < n; i++) {
        const struct ccas_slurm_node *sn = ccas_slurm_nodes_find (p->snodes, names[i]);
        if (!sn || ccas_slurm_node_drained (sn) || (sn->reason && !ccas_power_reason_ours (sn->reason)) ||
            !(ccas_slurm_node_powering_down (sn) || ccas_slurm_node_powered_down (sn)))
            continue;
        const struct ccas_bucket *b =
            ccas_slurm_node_bucket (p->model, p->layout, names[i], sn, text, sizeof (text));
        const char *r =
            b ? ccas_holds_reason (p->pass->policy->holds, b->na->name, b->machine_type, p->now) : NULL;
        if (r) {
            held[k] = names[i];
            why[k++] = r;
        }
    }
    const char **group = calloc (k + 1, sizeof (*group));
    for (size_t i = 0; group && i < k; i++) {
        size_t m = 0;
        if (done[i])
            continue;
        for (size_t j = i; j < k; j++)
            if (!done[j] && strcmp (why[j], why[i]) == 0) {
                group[m++] = held[j];
                done[j] = true;
            }
        ccas_power_update (p, group, m, CCAS_SLURM_DRAIN, why[i]);
    }
    free (group);
    free (done);
    free (why);
    free (held);
}

/* What open() made beyond what attach() borrows: the lock, client and config. */
void ccas_power_close (struct ccas_power *p)
{
    struct ccas_lock *lock = p->lock;
    struct ccas_ccapi *api = p->api;
    struct ccas_config *cfg = p->cfg;
    struct ccas_error err = {""};
    const char *result = p->failures ? "partial" : "ok";
    double t0 = p->t0;
    ccas_power_detach (p);
    if (lock && api)
        ccas_ccapi_stats_to_metrics (ccas_ccapi_stats (api));
    if (lock && ccas_metrics_flush (result, ccas_clock_monotonic () - t0, &err) < 0)
        ccas_log (LOG_WARNING, "metrics: %s", err.text);
    ccas_metrics_close ();
    ccas_events_close ();
    ccas_lock_release (lock);
    ccas_ccapi_destroy (api);
    ccas_conf_destroy (cfg);
    ccas_log_close ();
}

void ccas_power_handback_all (const char *prog, char **names, size_t n, const struct ccas_resume_file *rf,
                              const char *reason)
{
    struct ccas_error err = {""};
    struct ccas_power p = {.rf = rf};
    char jobs[200], note[220] = "";
    char *hl = ccas_slurm_hostlist_compress ((const char *const *)names, n);
    if (!hl)
        return;
    if (*ccas_power_jobs (&p, (const char *const *)names, n, jobs, sizeof (jobs)))
        snprintf (note, sizeof (note), " (%s)", jobs);
    ccas_slurm_init (&err);
    if (ccas_slurm_update (hl, CCAS_SLURM_POWER_DOWN_FORCE, reason, &err) < 0)
        ccas_log (LOG_ERR, "%s: cannot hand back %s%s: %s", prog, hl, note, err.text);
    else
        ccas_log (LOG_ERR, "%s: handed back %s%s: %s", prog, hl, note, reason);
    free (hl);
}
