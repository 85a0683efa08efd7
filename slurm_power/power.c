/* SPDX-License-Identifier: MIT */
/* power.c: set up and tear down a run of a Slurm program; hand-backs grouped by reason. */
#include "config.h"

#include <errno.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "events.h"
#include "log.h"
#include "metrics.h"
#include "power.h"
#include "report.h"

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
    struct ccas_error err = { "" };
    int level = ccas_log_level_parse (p->cfg->log_level);
    unsigned sinks = p->cfg->log_syslog ? CCAS_LOG_SYSLOG : 0;
    if (level < 0)
        level = LOG_INFO;
    if (o->verbosity || o->dry_run || isatty (STDERR_FILENO))
        sinks |= CCAS_LOG_STDERR;
    ccas_log_open (p->prog, level, sinks);
    ccas_log_set_stderr_level (o->verbosity ? LOG_NOTICE + o->verbosity : LOG_WARNING);
    if (p->cfg->log_file && ccas_log_set_file (p->cfg->log_file, &err) < 0)
        ccas_log (LOG_WARNING, "%s", err.text);
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
    if (!(p->cfg = ccas_config_load (ccas_power_config_path (o->config_path), err)))
        return -1;
    open_logging (p, o);
    if (ccas_slurm_init (err) < 0)
        return -1;
    struct ccas_ccapi_opts ao = {
        .url = p->cfg->url,
        .username = p->cfg->username,
        .password = p->cfg->password,
        .cluster = p->cfg->cluster_name,
        .verify_certificates = p->cfg->verify_certificates,
        .ca_file = p->cfg->ca_file,
        .connect_timeout_ms = (long)(p->cfg->connect_timeout * 1000),
        .request_timeout_ms = (long)(p->cfg->request_timeout * 1000),
        .max_retries = p->cfg->retries,
        .max_response_bytes = (size_t)p->cfg->max_response_mb * 1024 * 1024,
    };
    if (!(p->api = ccas_ccapi_create (&ao, err)))
        return -1;
    if (!p->dry_run) {
        double wait = ccas_config_lookup_double (p->cfg, "slurm.lock_timeout", 20);
        if (!(p->lock = ccas_lock_acquire (p->cfg->lock_file, prog, wait, err)))
            return -1;
        /* counters accumulate under the lock, so no run's update is lost */
        ccas_events_open (p->cfg, prog);
        ccas_metrics_open (p->cfg, prog);
    }
    if (!(p->holds = ccas_holds_load (p->cfg->state_dir, err))
        || !(p->breakers = ccas_breakers_load (p->cfg, err)))
        return -1;
    ccas_breakers_expire (p->breakers, p->now);
    return 0;
}

int ccas_power_attach (struct ccas_power *p, const char *prog, struct ccas_config *cfg, struct ccas_ccapi *api,
                       bool dry_run, struct ccas_error *err)
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
    if (!(p->holds = ccas_holds_load (cfg->state_dir, err)) || !(p->breakers = ccas_breakers_load (cfg, err)))
        return -1;
    ccas_breakers_expire (p->breakers, p->now);
    return 0;
}

void ccas_power_detach (struct ccas_power *p)
{
    struct ccas_error err = { "" };
    if (p->model && !p->dry_run) {
        ccas_metrics_from_model (p->model, p->now);
        ccas_holds_metrics (p->holds, p->now);
        ccas_breakers_metrics (p->breakers);
    }
    if (p->nhb)
        ccas_power_flush (p);
    if (p->holds && !p->dry_run && ccas_holds_save (p->holds, &err) < 0)
        ccas_log (LOG_ERR, "%s", err.text);
    if (p->breakers && !p->dry_run && ccas_breakers_save (p->breakers, &err) < 0)
        ccas_log (LOG_ERR, "%s", err.text);
    ccas_breakers_destroy (p->breakers);
    free (p->hb_names);
    free (p->hb_reasons);
    ccas_holds_destroy (p->holds);
    ccas_slurm_layout_destroy (p->layout);
    ccas_cluster_destroy (p->model);
    ccas_slurm_nodes_destroy (p->snodes);
    ccas_slurm_fini ();
    memset (p, 0, sizeof (*p));
}

int ccas_power_load (struct ccas_power *p, bool with_nodes, struct ccas_error *err)
{
    struct ccas_cluster_status *st = NULL;
    if (!(p->snodes = ccas_slurm_nodes_load (err)))
        return -1;
    /* one request: status?nodes=true carries the node records too */
    if (ccas_ccapi_get_status (p->api, with_nodes, &st, err) < 0)
        return -1;
    if (!(p->model = ccas_cluster_create (p->cfg, st, NULL, err)))
        return -1;
    if (!(p->layout = ccas_slurm_layout_create (p->model)) || ccas_holds_apply (p->holds, p->model, p->now) < 0)
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

void ccas_power_handback (struct ccas_power *p, const char *name, const char *reason)
{
    if (!p->dry_run)
        ccas_report_failed (name, reason);
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

int ccas_power_update (struct ccas_power *p, const char *const *names, size_t n, enum ccas_slurm_update what,
                       const char *reason)
{
    static const char *const verbs[] = {
        [CCAS_SLURM_POWER_DOWN_FORCE] = "hand back", [CCAS_SLURM_DRAIN] = "drain",
        [CCAS_SLURM_DOWN] = "mark down", [CCAS_SLURM_RESUME] = "return to service",
        [CCAS_SLURM_UNDRAIN] = "undrain",
    };
    struct ccas_error err = { "" };
    if (!n)
        return 0;
    char *hl = ccas_slurm_hostlist_compress (names, n);
    if (!hl)
        return -1;
    int rc = 0;
    if (p->dry_run)
        fprintf (p->out, "would %s %s%s%s\n", verbs[what], hl, reason ? ": " : "", reason ? reason : "");
    else if (ccas_slurm_update (hl, what, reason, &err) < 0) {
        ccas_log (LOG_ERR, "%s", err.text);
        p->failures++;
        rc = -1;
    } else
        ccas_log (LOG_NOTICE, "%s %s%s%s", verbs[what], hl, reason ? ": " : "", reason ? reason : "");
    free (hl);
    return rc;
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
        ccas_power_update (p, group, n, CCAS_SLURM_POWER_DOWN_FORCE, p->hb_reasons[i]);
    }
    free (group);
    free (done);
    for (size_t i = 0; i < p->nhb; i++) {
        free (p->hb_names[i]);
        free (p->hb_reasons[i]);
    }
    p->nhb = 0;
}

/* What open() made beyond what attach() borrows: the lock, client and config. */
void ccas_power_close (struct ccas_power *p)
{
    struct ccas_lock *lock = p->lock;
    struct ccas_ccapi *api = p->api;
    struct ccas_config *cfg = p->cfg;
    struct ccas_error err = { "" };
    const char *result = p->failures ? "partial" : "ok";
    double t0 = p->t0;
    ccas_power_detach (p);
    if (lock && api)
        ccas_metrics_add_requests (ccas_ccapi_stats (api));
    if (lock && ccas_metrics_flush (result, ccas_clock_monotonic () - t0, &err) < 0)
        ccas_log (LOG_WARNING, "metrics: %s", err.text);
    ccas_metrics_close ();
    ccas_events_close ();
    ccas_lock_release (lock);
    ccas_ccapi_destroy (api);
    ccas_config_destroy (cfg);
    ccas_log_close ();
}

void ccas_power_handback_all (const char *prog, char **names, size_t n, const char *reason)
{
    struct ccas_error err = { "" };
    char *hl = ccas_slurm_hostlist_compress ((const char *const *)names, n);
    if (!hl)
        return;
    ccas_slurm_init (&err);
    if (ccas_slurm_update (hl, CCAS_SLURM_POWER_DOWN_FORCE, reason, &err) < 0)
        ccas_log (LOG_ERR, "%s: cannot hand back %s: %s", prog, hl, err.text);
    else
        ccas_log (LOG_ERR, "%s: handed back %s: %s", prog, hl, reason);
    free (hl);
}
