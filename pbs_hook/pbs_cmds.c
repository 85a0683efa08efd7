/* SPDX-License-Identifier: MIT */
/* pbs_cmds.c: qstat, pbsnodes, qmgr and qalter, run with argv arrays and a time limit. */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/resdict.h"
#include "pbs_cmds.h"
#include "pbs_jobs.h"
#include "pbs_json.h"
#include "pbs_qmgr.h"
#include "pbs_select.h"
#include "run.h"
#include "util/json.h"
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
 * and the first line of stderr when it failed).  Caller releases `r`. */
static int run_for_output (char *const argv[], struct ccas_run_result *r, struct ccas_error *err)
{
    if (ccas_run (argv, timeout, MAX_OUTPUT, r, err) < 0)
        return -1;
    if (r->status != 0) {
        ccas_errorf (err, "%s: exit %d%s%s", argv[0], r->status, r->err[0] ? ": " : "", r->err);
        ccas_run_result_release (r);
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
    ccas_run_result_release (&r);
    return rc;
}

/* The whole document a qstat -Q or -B prints, or NULL with `err`. */
static json_object *qstat_doc (char *flag, const char *what, struct ccas_error *err)
{
    char *argv[] = {"qstat", flag, "-f", "-F", "json", NULL};
    struct ccas_run_result r;
    if (run_for_output (argv, &r, err) < 0)
        return NULL;
    json_object *doc = ccas_pbs_json_parse (r.out, r.outlen, what, "", NULL, NULL, err);
    ccas_run_result_release (&r);
    return doc;
}

int ccas_pbs_qstat_limits (struct ccas_pbs_queue *q, struct ccas_error *err)
{
    json_object *queues = qstat_doc ("-Q", "qstat -Q", err);
    json_object *server = queues ? qstat_doc ("-B", "qstat -B", err) : NULL;
    int rc = server ? ccas_pbs_queue_limits (q, queues, server, err) : -1;
    json_object_put (queues);
    json_object_put (server);
    return rc;
}

json_object *ccas_pbs_pbsnodes (struct ccas_error *err)
{
    /* -av: every vnode; -a alone lists one a host (vnodes sharing an address: one) */
    char *argv[] = {"pbsnodes", "-av", "-F", "json", NULL};
    struct ccas_run_result r;
    if (run_for_output (argv, &r, err) < 0)
        return NULL;
    json_object *doc =
        ccas_pbs_json_parse (r.out, r.outlen, "pbsnodes", "nodes", log_skipped, (void *)"node", err);
    ccas_run_result_release (&r);
    return doc;
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

/* A character qmgr's quote parser refuses between double quotes (and qalter
 * with it): its own quotes, '&' and control characters. */
static bool breaks_quotes (char c)
{
    return c == '"' || c == '&' || (unsigned char)c < 0x20;
}

/* A text qmgr reads back as itself between double quotes. */
static bool quotable (const char *text)
{
    for (const char *p = text; *p; p++)
        if (breaks_quotes (*p))
            return false;
    return true;
}

static int format_value (const char *name, const struct ccas_value *v, char *buf, size_t size);

/* A list (a default_resources value ["ib", "ssd"]) as PBS's string_array:
 * its elements joined by commas, between quotes; refused when an element
 * is a list or holds a comma. */
static int format_list (const char *name, const struct ccas_vlist *l, char *buf, size_t size)
{
    char text[512], item[160];
    size_t o = 0;
    text[0] = '\0';
    for (unsigned i = 0; i < l->n; i++) {
        const struct ccas_value *e = &l->v[i];
        if (e->type == CCAS_V_LIST || (e->type == CCAS_V_STR && strchr (e->u.str, ',')) ||
            format_value (name, e, item, sizeof (item)) < 0)
            return -1;
        const char *bare = item[0] == '"' ? item + 1 : item; /* one quoted text for all */
        size_t len = strlen (bare) - (item[0] == '"');
        int n = snprintf (text + o, sizeof (text) - o, "%s%.*s", i ? "," : "", (int)len, bare);
        if (n < 0 || (size_t)n >= sizeof (text) - o)
            return -1;
        o += (size_t)n;
    }
    int n = snprintf (buf, size, "\"%s\"", text);
    return n > 0 && (size_t)n < size ? 0 : -1;
}

/* A value qmgr reads back as itself: quoted when it holds anything but a
 * plain word; refused when it cannot be quoted. */
static int format_value (const char *name, const struct ccas_value *v, char *buf, size_t size)
{
    switch (v->type) {
    case CCAS_V_LIST:
        return format_list (name, v->u.list, buf, size);
    case CCAS_V_NUM:
        if (!isfinite (v->u.num) || (v->size && v->u.num < 0))
            return -1;
        format_number (name, v, buf, size);
        return 0;
    case CCAS_V_BOOL:
        snprintf (buf, size, "%s", v->u.b ? "True" : "False");
        return 0;
    case CCAS_V_STR:
        if (!quotable (v->u.str))
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

/* A text made fit for qmgr's and qalter's double quotes: quotes become
 * apostrophes, '&' a plus, control characters spaces. */
static void quote_safe (char *text)
{
    for (char *p = text; *p; p++)
        if (breaks_quotes (*p))
            *p = *p == '"' ? '\'' : *p == '&' ? '+' : ' ';
}

struct setlist {
    char text[8192];
    size_t len;
    bool overflow;
};

/* ", resources_available.NAME = VALUE" */
static void add_text (struct setlist *s, const char *name, const char *value)
{
    int n =
        snprintf (s->text + s->len, sizeof (s->text) - s->len, ", resources_available.%s = %s", name, value);
    if (n < 0 || (size_t)n >= sizeof (s->text) - s->len)
        s->overflow = true;
    else
        s->len += (size_t)n;
}

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
    add_text (s, name, val);
}

/* The directive that registers VM `n` as `host`: `head` ("create node H
 * state = offline, comment = ..." or "set node H ..."), then its resources
 * and the marker.  PBS sets them all or none. */
static int node_directive (struct ccas_cluster *c, const struct ccas_node *n, const char *host,
                           const char *head, const char *const *names, struct setlist *s,
                           struct ccas_error *err)
{
    s->len = (size_t)snprintf (s->text, sizeof (s->text), "%s", head);
    s->overflow = s->len >= sizeof (s->text);
    for (size_t i = 0; names && names[i]; i++) {
        int id = ccas_resdict_find (c->dict, names[i]);
        const struct ccas_value *v = ccas_node_res (n, id);
        if (v->type != CCAS_V_NONE)
            add_setting (s, names[i], v);
    }
    struct ccas_value slot = ccas_value_str (n->nodearray);
    if (ccas_resdict_find (c->dict, "slot_type") < 0 && n->nodearray)
        add_setting (s, "slot_type", &slot);
    struct ccas_value size = ccas_value_str (n->vm_size), na = ccas_value_str (n->nodearray);
    struct ccas_value ug = ccas_value_str (n->placement_group ? "false" : "true");
    struct ccas_value pg = ccas_value_str (n->placement_group ? n->placement_group : CCAS_PBS_NO_GROUP);
    struct ccas_value inst = ccas_value_str (n->instance_id);
    if (n->vm_size)
        add_setting (s, "vm_size", &size);
    if (n->nodearray)
        add_setting (s, "nodearray", &na);
    add_setting (s, "group_id", &pg);
    add_setting (s, "ungrouped", &ug);
    if (n->instance_id)
        add_setting (s, "instance_id", &inst);
    add_text (s, "ccnodeid", n->node_id); /* the marker */
    if (s->overflow)
        return ccas_errorf (err, "%s: too many resources for one qmgr directive", host);
    return 0;
}

/* ---- qmgr batches ------------------------------------------------------------------------------------ */

struct batch {
    char *text; /* the directives, one a line */
    size_t len, cap;
    size_t *op; /* the op of each line */
    size_t n, capn;
    bool oom;
};

static void batch_add (struct batch *b, size_t op, const char *line)
{
    size_t n = strlen (line);
    if (b->oom)
        return;
    if (b->len + n + 2 > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 4096;
        while (cap < b->len + n + 2)
            cap *= 2;
        char *t = realloc (b->text, cap);
        if (!t) {
            b->oom = true;
            return;
        }
        b->text = t;
        b->cap = cap;
    }
    if (b->n == b->capn) {
        size_t cap = b->capn ? b->capn * 2 : 64;
        size_t *v = realloc (b->op, cap * sizeof (*v));
        if (!v) {
            b->oom = true;
            return;
        }
        b->op = v;
        b->capn = cap;
    }
    memcpy (b->text + b->len, line, n);
    b->len += n;
    b->text[b->len++] = '\n';
    b->text[b->len] = '\0';
    b->op[b->n++] = op;
}

static void batch_release (struct batch *b)
{
    free (b->text);
    free (b->op);
    memset (b, 0, sizeof (*b));
}

static void fail_op (struct ccas_pbs_op *x, const char *why)
{
    if (x->failed)
        return;
    x->failed = true;
    snprintf (x->error, sizeof (x->error), "%s", why);
}

/* The op a line of qmgr's stderr names ("qmgr obj=NAME svr=...: why"), its
 * message in *why; SIZE_MAX when it names none of the batch's. */
static size_t named_op (const char *line, size_t len, const struct batch *b, struct ccas_pbs_op *ops,
                        const char **why)
{
    if (len < 9 || strncmp (line, "qmgr obj=", 9) != 0)
        return SIZE_MAX;
    const char *name = line + 9;
    size_t nlen = strcspn (name, " \n");
    const char *colon = memchr (name, ':', len - 9);
    *why = colon ? colon + 1 : name + nlen;
    while (**why == ' ')
        (*why)++;
    for (size_t i = 0; i < b->n; i++) {
        const char *host = ops[b->op[i]].host;
        if (strlen (host) == nlen && strncmp (host, name, nlen) == 0)
            return b->op[i];
    }
    return SIZE_MAX;
}

/* Run the batch through one qmgr reading it on stdin.  qmgr goes on after a
 * directive fails and names the object in its error: that op failed (a
 * deletion of a node PBS does not know has its way).  When qmgr fails in a
 * way that names no op (it cannot reach the server, it is killed, it ran
 * out of time), every op of the batch failed. */
static void batch_run (struct batch *b, struct ccas_pbs_op *ops)
{
    char *argv[] = {"qmgr", NULL};
    struct ccas_run_result r;
    struct ccas_error err = {""};
    if (b->n == 0)
        return;
    if (b->oom) {
        for (size_t i = 0; i < b->n; i++)
            fail_op (&ops[b->op[i]], "out of memory");
        return;
    }
    ccas_log (LOG_DEBUG, "pbs: qmgr, %zu directive%s:\n%s", b->n, b->n == 1 ? "" : "s", b->text);
    if (ccas_run_input (argv, b->text, b->len, timeout, 1 << 20, &r, &err) < 0) {
        for (size_t i = 0; i < b->n; i++)
            fail_op (&ops[b->op[i]], err.text);
        return;
    }
    size_t named = 0;
    char first[300] = "";
    for (const char *p = r.errs; *p;) {
        size_t len = strcspn (p, "\n");
        const char *why = NULL;
        size_t op = named_op (p, len, b, ops, &why);
        int whylen = (int)(len - (size_t)(why ? why - p : 0));
        if (op != SIZE_MAX) {
            struct ccas_pbs_op *x = &ops[op];
            char msg[300];
            snprintf (msg, sizeof (msg), "%.*s", whylen, why);
            while (*msg && msg[strlen (msg) - 1] == ' ')
                msg[strlen (msg) - 1] = '\0';
            /* this line's message only: stderr goes on with the other directives' */
            bool gone = x->kind == CCAS_PBS_OP_DELETE && strstr (msg, "Unknown node");
            if (gone)
                ccas_log (LOG_INFO, "pbs: %s: PBS no longer has it", x->host);
            else {
                char text[320];
                snprintf (text, sizeof (text), "qmgr: %s", msg);
                fail_op (x, text);
                /* create node of a name the server cannot resolve: "Unknown node" */
                x->unresolved = x->kind == CCAS_PBS_OP_CREATE && strstr (msg, "Unknown node");
            }
            named++;
        } else if (!first[0] && len > 0 && strncmp (p, "qmgr: Error (", 13) != 0)
            snprintf (first, sizeof (first), "%.*s", (int)len, p);
        p += len + (p[len] == '\n');
    }
    if (r.status != 0 && named == 0) {
        /* nothing named: qmgr itself failed (say, no server) */
        char msg[400];
        snprintf (msg, sizeof (msg), "qmgr: exit %d%s%s", r.status, first[0] ? ": " : "", first);
        for (size_t i = 0; i < b->n; i++)
            fail_op (&ops[b->op[i]], msg);
    }
    ccas_run_result_release (&r);
}

/* The line of op `x` (CREATE and REGISTER: their node's directive), in `s`;
 * 0, or -1 with `err`. */
static int op_line (struct ccas_cluster *c, const struct ccas_pbs_op *x, const char *const *names,
                    struct setlist *s, struct ccas_error *err)
{
    char head[1024], why[300];
    switch (x->kind) {
    case CCAS_PBS_OP_DRAIN:
        snprintf (why, sizeof (why), "%s", x->why ? x->why : "");
        quote_safe (why);
        s->len =
            (size_t)snprintf (s->text, sizeof (s->text), "set node %s state += offline, comment = \"%s: %s\"",
                              x->host, CCAS_PBS_DRAIN_COMMENT, why);
        return 0;
    case CCAS_PBS_OP_DELETE:
        s->len = (size_t)snprintf (s->text, sizeof (s->text), "delete node %s", x->host);
        return 0;
    case CCAS_PBS_OP_OFFLINE:
        snprintf (why, sizeof (why), "%s", x->comment ? x->comment : CCAS_PBS_KEEP_OFFLINE);
        quote_safe (why);
        s->len = (size_t)snprintf (s->text, sizeof (s->text),
                                   "set node %s state += offline, comment = \"%s\"", x->host, why);
        return 0;
    case CCAS_PBS_OP_ONLINE:
        snprintf (why, sizeof (why), "%s", x->comment ? x->comment : CCAS_PBS_MARK_RESTORED);
        quote_safe (why);
        s->len = (size_t)snprintf (s->text, sizeof (s->text),
                                   "set node %s state -= offline, comment = \"%s\"", x->host, why);
        return 0;
    case CCAS_PBS_OP_CREATE:
    case CCAS_PBS_OP_REGISTER:
        if (!x->node->node_id || !ccas_pbs_name_valid (x->node->node_id))
            return ccas_errorf (err, "node id '%s' cannot be written for qmgr",
                                x->node->node_id ? x->node->node_id : "");
        if (x->kind == CCAS_PBS_OP_CREATE)
            /* offline from its creation: PBS starts nothing there before it is put online */
            snprintf (head, sizeof (head), "create node %s state = offline, comment = \"%s\"", x->host,
                      CCAS_PBS_MARK_JOINED);
        else
            snprintf (head, sizeof (head), "set node %s state %s offline, comment = \"%s\"", x->host,
                      x->online ? "-=" : "+=", x->online ? CCAS_PBS_MARK_RESTORED : CCAS_PBS_MARK_JOINED);
        return node_directive (c, x->node, x->host, head, names, s, err);
    }
    return ccas_errorf (err, "unknown operation");
}

void ccas_pbs_run_ops (struct ccas_cluster *c, struct ccas_pbs_op *ops, size_t n, const char *const *names)
{
    struct batch b = {0}, undo = {0};
    struct setlist *s = malloc (sizeof (*s));
    for (size_t i = 0; i < n; i++) {
        struct ccas_pbs_op *x = &ops[i];
        struct ccas_error err = {""};
        x->failed = x->unresolved = false;
        x->error[0] = '\0';
        if (!ccas_pbs_name_valid (x->host)) {
            char why[300];
            snprintf (why, sizeof (why), "'%s' is not a valid PBS node name", x->host);
            fail_op (x, why);
        } else if (!s)
            fail_op (x, "out of memory");
        else if (op_line (c, x, names, s, &err) < 0)
            fail_op (x, err.text);
        else
            batch_add (&b, i, s->text);
    }
    free (s);
    batch_run (&b, ops);
    batch_release (&b);
    /* a create PBS refused for an attribute: OpenPBS 23 made nothing, but a PBS
     * that made the node bare must not keep it (a name the server cannot
     * resolve made nothing anywhere) */
    for (size_t i = 0; i < n; i++) {
        struct ccas_pbs_op *x = &ops[i];
        char line[300];
        if (x->kind != CCAS_PBS_OP_CREATE || !x->failed || x->unresolved ||
            strstr (x->error, "already exists"))
            continue;
        snprintf (line, sizeof (line), "delete node %s", x->host);
        batch_add (&undo, i, line);
    }
    if (undo.n) {
        struct ccas_pbs_op *scratch = calloc (n + 1, sizeof (*scratch));
        if (scratch) {
            for (size_t i = 0; i < n; i++)
                scratch[i] = (struct ccas_pbs_op){.kind = CCAS_PBS_OP_DELETE, .host = ops[i].host};
            batch_run (&undo, scratch);
            for (size_t k = 0; k < undo.n; k++)
                if (scratch[undo.op[k]].failed)
                    ccas_log (LOG_ERR, "pbs: %s: the node its failed create left could not be deleted: %s",
                              ops[undo.op[k]].host, scratch[undo.op[k]].error);
            free (scratch);
        }
    }
    batch_release (&undo);
}

json_object *ccas_pbs_qmgr_list (const char *what, struct ccas_error *err)
{
    char cmd[256];
    snprintf (cmd, sizeof (cmd), "list %s", what);
    char *argv[] = {"qmgr", "-c", cmd, NULL};
    struct ccas_run_result r;
    if (run_for_output (argv, &r, err) < 0)
        return NULL;
    json_object *o = ccas_pbs_qmgr_parse (r.out);
    ccas_run_result_release (&r);
    if (!o)
        ccas_errorf (err, "out of memory");
    return o;
}

int ccas_pbs_comment_jobs (const char *comment, const char *const *ids, size_t n, struct ccas_error *err)
{
    enum { PER_CALL = 200 };
    char value[600];
    char text[512];
    int rc = 0;
    snprintf (text, sizeof (text), "%s", comment);
    quote_safe (text);
    snprintf (value, sizeof (value), "comment=\"%s\"", text);
    for (size_t at = 0; at < n; at += PER_CALL) {
        size_t k = n - at < PER_CALL ? n - at : PER_CALL;
        char *argv[PER_CALL + 4] = {"qalter", "-W", value};
        for (size_t i = 0; i < k; i++)
            argv[3 + i] = (char *)ids[at + i];
        argv[3 + k] = NULL;
        struct ccas_error e = {""};
        if (ccas_run_ok (argv, timeout, &e) < 0 && rc == 0)
            rc = ccas_errorf (err, "%s", e.text);
    }
    return rc;
}

const char *ccas_pbs_host (const struct ccas_node *n)
{
    return n->hostname && *n->hostname ? n->hostname : n->name;
}
