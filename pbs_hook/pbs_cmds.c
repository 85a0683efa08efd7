/* SPDX-License-Identifier: MIT */
/* pbs_cmds.c: qstat, pbsnodes and qmgr, run with argv arrays and a time limit. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/resdict.h"
#include "pbs_cmds.h"
#include "pbs_jobs.h"
#include "pbs_json.h"
#include "pbs_select.h"
#include "run.h"
#include "util/failpoint.h"
#include "util/log.h"

#define MAX_OUTPUT ((size_t)2 << 30)

static double timeout = 30;

void ccas_pbs_set_timeout (double seconds)
{
    timeout = seconds > 0 ? seconds : 30;
}

static void log_skipped (const char *key, const char *why, void *arg)
{
    ccas_log (LOG_WARNING, "pbs: %s %s skipped: its entry is not valid JSON even after repair (%s)",
              (const char *)arg, key, why);
}

/* Run a PBS command for its output; 0, or -1 with `err` (the exit status
 * and the first line of stderr when it failed).  Caller frees r->out. */
static int run_for_output (char *const argv[], struct ccas_run_result *r, struct ccas_error *err)
{
    if (ccas_run (argv, timeout, MAX_OUTPUT, r, err) < 0)
        return -1;
    if (r->status != 0) {
        ccas_errorf (err, "%s: exit %d%s%s", argv[0], r->status, r->err[0] ? ": " : "", r->err);
        free (r->out);
        r->out = NULL;
        return -1;
    }
    return 0;
}

int ccas_pbs_qstat (struct ccas_pbs_queue *q, struct ccas_error *err)
{
    char *argv[] = {"qstat", "-f", "-t", "-F", "json", NULL};
    struct ccas_run_result r;
    if (run_for_output (argv, &r, err) < 0)
        return -1;
    int rc = ccas_pbs_queue_read (q, r.out, r.outlen, log_skipped, (void *)"job", err);
    free (r.out);
    return rc;
}

json_object *ccas_pbs_pbsnodes (struct ccas_error *err)
{
    char *argv[] = {"pbsnodes", "-a", "-F", "json", NULL};
    struct ccas_run_result r;
    if (run_for_output (argv, &r, err) < 0)
        return NULL;
    json_object *doc =
        ccas_pbs_json_parse (r.out, r.outlen, "pbsnodes", "nodes", log_skipped, (void *)"node", err);
    free (r.out);
    return doc;
}

static int qmgr (const char *directive, struct ccas_error *err)
{
    char *argv[] = {"qmgr", "-c", (char *)directive, NULL};
    ccas_log (LOG_DEBUG, "pbs: qmgr -c '%s'", directive);
    return ccas_run_ok (argv, timeout, err);
}

/* Resources PBS types as long (built in, or made so by install-hook): qmgr
 * refuses a fraction for them. */
static bool long_resource (const char *name)
{
    static const char *const names[] = {"ncpus", "ngpus", "mpiprocs", "ompthreads", NULL};
    for (int i = 0; names[i]; i++)
        if (strcmp (name, names[i]) == 0)
            return true;
    return false;
}

/* A number as qmgr reads it: digits, never an exponent (qmgr takes "1e+06"
 * for no long or size); a fraction only where the resource may hold one. */
static void format_number (const char *name, const struct ccas_value *v, char *buf, size_t size)
{
    double x = v->u.num;
    if (v->size)
        snprintf (buf, size, "%.0fkb", floor (x / 1024.0)); /* PBS keeps sizes in kb */
    else if (x == floor (x) || long_resource (name))
        snprintf (buf, size, "%.0f", floor (x));
    else {
        snprintf (buf, size, "%.6f", x);
        char *end = buf + strlen (buf) - 1; /* "2.500000" -> "2.5" */
        while (*end == '0')
            *end-- = '\0';
    }
}

/* A value qmgr reads back as itself: quoted when it holds anything but a
 * plain word; refused when it holds a quote or a control character. */
static int format_value (const char *name, const struct ccas_value *v, char *buf, size_t size)
{
    switch (v->type) {
    case CCAS_V_NUM:
        if (!isfinite (v->u.num) || (v->size && v->u.num < 0))
            return -1;
        format_number (name, v, buf, size);
        return 0;
    case CCAS_V_BOOL:
        snprintf (buf, size, "%s", v->u.b ? "True" : "False");
        return 0;
    case CCAS_V_STR:
        for (const char *p = v->u.str; *p; p++)
            if (*p == '"' || *p == '&' || (unsigned char)*p < 0x20) /* qmgr's quote parser refuses them */
                return -1;
        if (ccas_pbs_name_valid (v->u.str))
            snprintf (buf, size, "%s", v->u.str);
        else
            snprintf (buf, size, "\"%s\"", v->u.str);
        return strlen (v->u.str) + 3 < size ? 0 : -1;
    default:
        return -1;
    }
}

struct setlist {
    char text[8192];
    size_t len;
    bool overflow;
};

static void add_setting (struct setlist *s, const char *name, const struct ccas_value *v)
{
    char val[512];
    if (!ccas_pbs_name_valid (name) || format_value (name, v, val, sizeof (val)) < 0) {
        ccas_log (LOG_WARNING, "pbs: resource '%s' not set: its name or value cannot be written for qmgr",
                  name);
        return;
    }
    char probe[300];
    snprintf (probe, sizeof (probe), "resources_available.%s =", name);
    if (strstr (s->text, probe))
        return; /* set once, by the first source that names it */
    int n = snprintf (s->text + s->len, sizeof (s->text) - s->len, "%sresources_available.%s = %s",
                      s->len && s->text[s->len - 1] != ' ' ? ", " : "", name, val);
    if (n < 0 || (size_t)n >= sizeof (s->text) - s->len)
        s->overflow = true;
    else
        s->len += (size_t)n;
}

static int set_resources (struct ccas_cluster *c, const struct ccas_node *n, const char *host,
                          const char *const *names, struct ccas_error *err)
{
    struct setlist s;
    s.len = (size_t)snprintf (s.text, sizeof (s.text), "set node %s ", host);
    s.overflow = false;
    for (size_t i = 0; names && names[i]; i++) {
        int id = ccas_resdict_find (c->dict, names[i]);
        const struct ccas_value *v = ccas_node_res (n, id);
        if (v->type != CCAS_V_NONE)
            add_setting (&s, names[i], v);
    }
    struct ccas_value slot = ccas_value_str (n->nodearray);
    if (ccas_resdict_find (c->dict, "slot_type") < 0 && n->nodearray)
        add_setting (&s, "slot_type", &slot);
    struct ccas_value size = ccas_value_str (n->vm_size), na = ccas_value_str (n->nodearray);
    struct ccas_value ug = ccas_value_str (n->placement_group ? "false" : "true");
    struct ccas_value pg = ccas_value_str (n->placement_group ? n->placement_group : CCAS_PBS_NO_GROUP);
    struct ccas_value inst = ccas_value_str (n->instance_id);
    if (n->vm_size)
        add_setting (&s, "vm_size", &size);
    if (n->nodearray)
        add_setting (&s, "nodearray", &na);
    add_setting (&s, "group_id", &pg);
    add_setting (&s, "ungrouped", &ug);
    if (n->instance_id)
        add_setting (&s, "instance_id", &inst);
    if (s.overflow)
        return ccas_errorf (err, "%s: too many resources for one qmgr command", host);
    return qmgr (s.text, err);
}

/* Offline with the joining comment, so that PBS starts nothing on the node
 * before its last step: created so in one qmgr call, or taken offline when
 * PBS already has it (a node offline with that comment is left as it is). */
static int hold_offline (const char *host, const struct ccas_pbs_node *p, struct ccas_error *err)
{
    char cmd[512];
    if (!p) {
        snprintf (cmd, sizeof (cmd), "create node %s state=offline, comment=\"%s\"", host,
                  CCAS_PBS_JOINING_COMMENT);
        return qmgr (cmd, err);
    }
    if (ccas_pbs_node_joining (p))
        return 0;
    char *argv[] = {"pbsnodes", "-o", (char *)host, "-C", CCAS_PBS_JOINING_COMMENT, NULL};
    return ccas_run_ok (argv, timeout, err);
}

int ccas_pbs_join (struct ccas_cluster *c, const struct ccas_node *n, const char *host,
                   const struct ccas_pbs_node *p, const char *const *names, struct ccas_error *err)
{
    char cmd[512];
    if (!ccas_pbs_name_valid (host))
        return ccas_errorf (err, "'%s' is not a valid PBS node name", host);
    if (!n->node_id || !ccas_pbs_name_valid (n->node_id))
        return ccas_errorf (err, "%s: node id '%s' cannot be written for qmgr", host,
                            n->node_id ? n->node_id : "");
    if (hold_offline (host, p, err) < 0)
        return -1;
    if (set_resources (c, n, host, names, err) < 0)
        return -1;
    ccas_failpoint ("pbs:join-before-marker");
    snprintf (cmd, sizeof (cmd), "set node %s resources_available.ccnodeid = %s", host, n->node_id);
    if (qmgr (cmd, err) < 0)
        return -1;
    char *argv[] = {"pbsnodes", "-r", (char *)host, "-C", CCAS_PBS_JOIN_COMMENT, NULL};
    return ccas_run_ok (argv, timeout, err);
}

int ccas_pbs_drain (const char *host, const char *why, struct ccas_error *err)
{
    char comment[256];
    if (!ccas_pbs_name_valid (host))
        return ccas_errorf (err, "'%s' is not a valid PBS node name", host);
    snprintf (comment, sizeof (comment), "%s: %s", CCAS_PBS_DRAIN_COMMENT, why);
    char *argv[] = {"pbsnodes", "-o", (char *)host, "-C", comment, NULL};
    return ccas_run_ok (argv, timeout, err);
}

int ccas_pbs_delete (const char *host, struct ccas_error *err)
{
    char cmd[300];
    if (!ccas_pbs_name_valid (host))
        return ccas_errorf (err, "'%s' is not a valid PBS node name", host);
    snprintf (cmd, sizeof (cmd), "delete node %s", host);
    return qmgr (cmd, err);
}

const char *ccas_pbs_host (const struct ccas_node *n)
{
    return n->hostname && *n->hostname ? n->hostname : n->name;
}
