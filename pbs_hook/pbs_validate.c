/* SPDX-License-Identifier: MIT */
/* pbs_validate.c: PBS's configuration against what ccautoscale needs, a finding and a fix for each. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pbs_jobs.h"
#include "pbs_qmgr.h"
#include "pbs_sched.h"
#include "pbs_validate.h"
#include "util/json.h"

const struct ccas_pbs_resource_def ccas_pbs_site_resources[] = {
    {"slot_type", "string", "h"},   {"group_id", "string", "h"},
    {"ungrouped", "string", "h"},   {"vm_size", "string", "h"},
    {"nodearray", "string", "h"},   {"ccnodeid", "string", "h"},
    {"instance_id", "string", "h"}, {"ngpus", "long", "nh"},
    {"disk", "size", "nh"},         {NULL, NULL, NULL},
};

/* PBS's own resources, which `list resource` does not show. */
static const char *const builtin[] = {"ncpus",
                                      "mem",
                                      "vmem",
                                      "arch",
                                      "host",
                                      "vnode",
                                      "aoe",
                                      "eoe",
                                      "mpiprocs",
                                      "ompthreads",
                                      "walltime",
                                      "cput",
                                      "pcput",
                                      "pmem",
                                      "pvmem",
                                      "file",
                                      "nice",
                                      "nodect",
                                      "nodes",
                                      "place",
                                      "select",
                                      "software",
                                      "site",
                                      "start_time",
                                      "naccelerators",
                                      "accelerator",
                                      "accelerator_model",
                                      "accelerator_memory",
                                      "hbmem",
                                      "min_walltime",
                                      "max_walltime",
                                      "soft_walltime",
                                      "preempt_targets",
                                      NULL};

/* The resources default_resources has built in (model/resources.h). */
static const char *const rule_builtins[] = {"ncpus", "pcpus",     "ngpus",   "mem",
                                            "memgb", "nodearray", "vm_size", NULL};

static bool listed (const char *const *names, const char *name)
{
    for (size_t i = 0; names[i]; i++)
        if (strcmp (names[i], name) == 0)
            return true;
    return false;
}

static void finding (json_object *out, const char *check, const char *level, const char *fix, const char *fmt,
                     ...) __attribute__ ((format (printf, 5, 6)));

static void finding (json_object *out, const char *check, const char *level, const char *fix, const char *fmt,
                     ...)
{
    char what[1024];
    va_list ap;
    va_start (ap, fmt);
    vsnprintf (what, sizeof (what), fmt, ap);
    va_end (ap);
    json_object *f = json_object_new_object ();
    json_object_object_add (f, "check", json_object_new_string (check));
    json_object_object_add (f, "level", json_object_new_string (level));
    json_object_object_add (f, "what", json_object_new_string (what));
    json_object_object_add (f, "fix", fix ? json_object_new_string (fix) : NULL);
    json_object_array_add (out, f);
}

static bool truth (const char *v)
{
    return v && (strcasecmp (v, "true") == 0 || strcmp (v, "1") == 0 || strcasecmp (v, "t") == 0 ||
                 strcasecmp (v, "y") == 0);
}

static const struct ccas_pbs_resource_def *site_def (const char *name)
{
    for (size_t i = 0; ccas_pbs_site_resources[i].name; i++)
        if (strcmp (ccas_pbs_site_resources[i].name, name) == 0)
            return &ccas_pbs_site_resources[i];
    return NULL;
}

/* Is `name` a resource default_resources gives the nodes? */
static bool rule_names (const struct ccas_config *cfg, const char *name)
{
    json_object *rules = cfg->default_resources;
    for (size_t i = 0; rules && i < json_object_array_length (rules); i++) {
        const char *n = ccas_json_str (json_object_array_get_idx (rules, i), "name");
        if (n && strcmp (n, name) == 0)
            return true;
    }
    return !cfg->disable_default_resources && listed (rule_builtins, name);
}

/* The resources a join sets on a vnode: the site's, and those of
 * pbs.node_resources default_resources gives.  Called for each. */
static void each_join_resource (const struct ccas_config *cfg, void (*fn) (const char *, void *), void *arg)
{
    static const char *const dflt[] = {"ncpus", "mem", "ngpus", "disk", "slot_type", NULL};
    json_object *list = cfg->pbs.node_resources;
    size_t n = list ? json_object_array_length (list) : sizeof (dflt) / sizeof (dflt[0]) - 1;
    for (size_t i = 0; ccas_pbs_site_resources[i].name; i++)
        if (strcmp (ccas_pbs_site_resources[i].name, "ngpus") != 0 &&
            strcmp (ccas_pbs_site_resources[i].name, "disk") != 0)
            fn (ccas_pbs_site_resources[i].name, arg);
    for (size_t i = 0; i < n; i++) {
        const char *name = list ? json_object_get_string (json_object_array_get_idx (list, i)) : dflt[i];
        if (name && rule_names (cfg, name) &&
            !(site_def (name) && strcmp (name, "ngpus") != 0 && strcmp (name, "disk") != 0))
            fn (name, arg);
    }
}

struct res_ctx {
    json_object *out, *resources;
    size_t ok;
};

static void check_resource (const char *name, void *arg)
{
    struct res_ctx *x = arg;
    const struct ccas_pbs_resource_def *d = site_def (name);
    char fix[512];
    if (listed (builtin, name)) {
        x->ok++;
        return;
    }
    const char *type = ccas_pbs_qmgr_attr (x->resources, name, "type");
    const char *flag = ccas_pbs_qmgr_attr (x->resources, name, "flag");
    if (!ccas_json_get (x->resources, name)) {
        snprintf (fix, sizeof (fix),
                  "qmgr -c 'create resource %s type=%s, flag=%s' (or: ccautoscale pbs install-hook)", name,
                  d ? d->type : "TYPE", d ? d->flag : "h");
        finding (
            x->out, "resources", "fail", fix,
            "resource %s is not defined: every join sets it on the vnode, and PBS refuses the create node",
            name);
        return;
    }
    if (d && type && strcmp (type, d->type) != 0) {
        snprintf (fix, sizeof (fix),
                  "qmgr -c 'delete resource %s'; qmgr -c 'create resource %s type=%s, flag=%s' (with no node "
                  "or job "
                  "using it)",
                  name, name, d->type, d->flag);
        finding (x->out, "resources", "fail", fix, "resource %s is of type %s; ccautoscale writes it as %s%s",
                 name, type, d->type,
                 strcmp (name, "ungrouped") == 0
                     ? " (PBS's booleans do not schedule as azpbs and ccautoscale read them)"
                     : "");
        return;
    }
    if (!flag || !strchr (flag, 'h')) {
        snprintf (fix, sizeof (fix), "qmgr -c 'set resource %s flag = %s'", name, d ? d->flag : "h");
        finding (
            x->out, "resources", "fail", fix,
            "resource %s is not a host resource (flag '%s'): the scheduler does not compare it node by node",
            name, flag ? flag : "");
        return;
    }
    x->ok++;
}

static void check_resources (json_object *out, const struct ccas_pbs_site *s, const struct ccas_config *cfg)
{
    if (!s->resources) {
        finding (out, "resources", "fail", "run it as a PBS manager on the server host",
                 "qmgr -c 'list resource' could not be read");
        return;
    }
    struct res_ctx x = {out, s->resources, 0};
    size_t before = json_object_array_length (out);
    each_join_resource (cfg, check_resource, &x);
    if (json_object_array_length (out) == before)
        finding (out, "resources", "ok", NULL,
                 "the %zu resources a join sets are defined as ccautoscale writes them", x.ok);
}

static void check_placement (json_object *out, const struct ccas_pbs_site *s)
{
    const char *key = NULL, *enable = NULL;
    if (s->server) {
        json_object_object_foreach (s->server, name, v)
        {
            (void)v;
            key = ccas_pbs_qmgr_attr (s->server, name, "node_group_key");
            enable = ccas_pbs_qmgr_attr (s->server, name, "node_group_enable");
            break;
        }
    }
    const char *span = ccas_pbs_qmgr_attr (s->sched, "default", "do_not_span_psets");
    const char *explicit = ccas_pbs_qmgr_attr (s->sched, "default", "only_explicit_psets");
    if (!s->server || !s->sched)
        finding (out, "placement", "fail", "run it as a PBS manager on the server host",
                 "qmgr -c 'list server' or 'list sched' could not be read");
    if (s->server && (!key || strcmp (key, "group_id") != 0 || !truth (enable)))
        finding (
            out, "placement", "fail",
            "qmgr -c 'set server node_group_enable = True'; qmgr -c 'set server node_group_key = group_id'",
            "node_group_enable is %s and node_group_key %s: a job of several nodes is not kept in one "
            "placement group (group_id)",
            enable ? enable : "unset", key ? key : "unset");
    if (s->sched && !truth (span))
        finding (out, "placement", "fail", "qmgr -c 'set sched do_not_span_psets = True'",
                 "do_not_span_psets is %s: PBS may run a job across placement groups", span ? span : "unset");
    if (s->sched && truth (explicit))
        finding (out, "placement", "warn", "qmgr -c 'set sched only_explicit_psets = False'",
                 "only_explicit_psets is True (as CycleCloud's stock server sets it): a node without "
                 "group_id, one "
                 "ccautoscale did not make, is in no placement set and runs no job of several nodes");
    if (s->server && s->sched && key && strcmp (key, "group_id") == 0 && truth (enable) && truth (span))
        finding (out, "placement", "ok", NULL,
                 "node_group_enable True, node_group_key group_id, do_not_span_psets True: one placement "
                 "group a job");
}

static void check_sched_config (json_object *out, const struct ccas_pbs_site *s)
{
    char missing[256], line[4600], fix[4800];
    if (!s->sched_config) {
        finding (out, "sched_config", "warn", "run it where PBS_HOME (or /etc/pbs.conf) is the server's",
                 "%s could not be read: its resources: line, if any, must name slot_type, group_id, "
                 "ungrouped, disk, "
                 "ngpus, nodearray and vm_size",
                 s->sched_config_path ? s->sched_config_path : "sched_config");
        return;
    }
    if (ccas_pbs_sched_check (s->sched_config, ccas_pbs_sched_resources, missing, sizeof (missing), line,
                              sizeof (line)) > 0) {
        snprintf (fix, sizeof (fix), "in %s make it: %s; then kill -HUP pbs_sched", s->sched_config_path,
                  line);
        finding (out, "sched_config", "fail", fix,
                 "its resources: line leaves out %s: the scheduler ignores them in a job's select", missing);
    } else
        finding (out, "sched_config", "ok", NULL, "the resources: line names what ccautoscale's nodes carry");
}

/* A queue's default of a host resource no node ccautoscale makes has. */
static void check_default (json_object *out, const struct ccas_pbs_site *s, const struct ccas_config *cfg,
                           const char *queue, const char *attr, const char *res, json_object *val)
{
    char fix[512];
    const char *text = json_object_is_type (val, json_type_boolean)
                           ? (json_object_get_boolean (val) ? "true" : "false")
                           : json_object_get_string (val);
    if (strcmp (res, "ungrouped") == 0 && strcmp (text, "true") != 0 && strcmp (text, "false") != 0) {
        snprintf (fix, sizeof (fix), "qmgr -c 'set queue %s %s.ungrouped = %s'", queue, attr,
                  strcasecmp (text, "true") == 0 || strcmp (text, "1") == 0 ? "true" : "false");
        finding (
            out, "queues", "fail", fix,
            "queue %s: %s.ungrouped = %s: the nodes ccautoscale joins have ungrouped 'true' or 'false', and "
            "PBS compares the words exactly",
            queue, attr, text);
        return;
    }
    const char *flag = ccas_pbs_qmgr_attr (s->resources, res, "flag");
    bool host = flag ? strchr (flag, 'h') != NULL
                     : listed ((const char *const[]){"host", "vnode", "arch", NULL}, res);
    if (!host || site_def (res) || rule_names (cfg, res) || listed (builtin, res))
        return;
    snprintf (fix, sizeof (fix),
              "give %s in default_resources and pbs.node_resources, or qmgr -c 'unset queue %s %s.%s'", res,
              queue, attr, res);
    finding (out, "queues", "fail", fix,
             "queue %s: %s.%s = %s: no node ccautoscale makes has %s, so its jobs that keep the default run "
             "on none of "
             "its VMs",
             queue, attr, res, text, res);
}

static void check_queues (json_object *out, const struct ccas_pbs_site *s, const struct ccas_config *cfg)
{
    json_object *queues = ccas_json_get (s->queues, "Queue");
    size_t before = json_object_array_length (out);
    if (!s->queues) {
        finding (out, "queues", "fail", "run it as a PBS manager on the server host",
                 "qstat -Q -f could not be read");
        return;
    }
    if (!queues || !json_object_is_type (queues, json_type_object))
        queues = NULL;
    for (struct json_object_iterator
             it = queues ? json_object_iter_begin (queues) : json_object_iter_init_default (),
             end = queues ? json_object_iter_end (queues) : json_object_iter_init_default ();
         !json_object_iter_equal (&it, &end); json_object_iter_next (&it)) {
        const char *name = json_object_iter_peek_name (&it);
        json_object *q = json_object_iter_peek_value (&it);
        if (!q || !json_object_is_type (q, json_type_object))
            continue;
        static const char *const attrs[] = {"resources_default", "default_chunk"};
        for (int a = 0; a < 2; a++) {
            json_object *d = ccas_json_get (q, attrs[a]);
            if (!d || !json_object_is_type (d, json_type_object))
                continue;
            json_object_object_foreach (d, res, val)
            {
                if (val && strcmp (res, "place") != 0)
                    check_default (out, s, cfg, name, attrs[a], res, val);
            }
        }
        const char *type = ccas_json_str (q, "queue_type");
        json_object *ig = cfg->pbs.ignore_queues;
        for (size_t i = 0; ig && i < json_object_array_length (ig); i++)
            if (strcmp (json_object_get_string (json_object_array_get_idx (ig, i)), name) == 0)
                finding (out, "queues", "warn", NULL, "queue %s is in pbs.ignore_queues: its jobs get no VM",
                         name);
        if (type && strcasecmp (type, "Execution") == 0 &&
            (!truth (json_object_get_string (ccas_json_get (q, "enabled"))) ||
             !truth (json_object_get_string (ccas_json_get (q, "started")))))
            finding (out, "queues", "warn", NULL, "queue %s is not enabled and started: its jobs get no VM",
                     name);
    }
    if (json_object_array_length (out) == before)
        finding (out, "queues", "ok", NULL,
                 "every queue's defaults name resources ccautoscale's nodes carry");
}

static void check_hooks (json_object *out, const struct ccas_pbs_site *s, const struct ccas_config *cfg)
{
    if (!s->hooks) {
        finding (out, "hooks", "fail", "run it as a PBS manager on the server host",
                 "qmgr -c 'list hook' could not be read");
        return;
    }
    const char *enabled = ccas_pbs_qmgr_attr (s->hooks, "ccautoscale", "enabled");
    const char *alarm = ccas_pbs_qmgr_attr (s->hooks, "ccautoscale", "alarm");
    if (!ccas_json_get (s->hooks, "ccautoscale") || !truth (enabled))
        finding (out, "hooks", "fail", "ccautoscale pbs install-hook",
                 "the periodic hook 'ccautoscale' is %s: no pass runs",
                 enabled ? "disabled" : "not installed");
    else if (alarm && atoi (alarm) < cfg->pbs.hook_timeout + 20)
        finding (out, "hooks", "warn", "ccautoscale pbs install-hook",
                 "the hook's alarm is %s s, below pbs.hook_timeout + 20 (%d s)", alarm,
                 cfg->pbs.hook_timeout + 20);
    else
        finding (out, "hooks", "ok", NULL, "the periodic hook 'ccautoscale' is enabled");
    const char *az = ccas_pbs_qmgr_attr (s->hooks, "autoscale", "enabled");
    if (ccas_json_get (s->hooks, "autoscale") && (!az || truth (az)))
        finding (
            out, "hooks", "fail", "ccautoscale pbs install-hook (it turns azpbs off)",
            "azpbs still runs from its periodic hook 'autoscale': two autoscalers would act on one cluster");
    if (s->azpbs_cron)
        finding (out, "hooks", "fail", "ccautoscale pbs install-hook (it moves the file aside)",
                 "azpbs still runs from cron (%s): two autoscalers would act on one cluster", s->azpbs_cron);
}

json_object *ccas_pbs_validate (const struct ccas_pbs_site *s, const struct ccas_config *cfg)
{
    json_object *out = json_object_new_array ();
    if (!out)
        return NULL;
    check_resources (out, s, cfg);
    check_placement (out, s);
    check_sched_config (out, s);
    check_queues (out, s, cfg);
    check_hooks (out, s, cfg);
    return out;
}

size_t ccas_pbs_validate_count (json_object *findings, const char *level)
{
    size_t n = 0;
    for (size_t i = 0; findings && i < json_object_array_length (findings); i++)
        n += strcmp (ccas_json_str (json_object_array_get_idx (findings, i), "level"), level) == 0;
    return n;
}
