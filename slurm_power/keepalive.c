/* SPDX-License-Identifier: MIT */
/* keepalive.c: SuspendExcNodes changed by name, the administrator's entries kept. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dynamic.h"
#include "keepalive.h"
#include "util/file.h"
#include "util/log.h"

#define KEEPALIVE "slurm_keepalive"

struct ccas_state *ccas_slurm_keepalive_load (const char *state_dir, struct ccas_error *err)
{
    return ccas_state_load (state_dir, KEEPALIVE, err);
}

bool ccas_slurm_keepalive_has (struct ccas_state *st, const char *name)
{
    json_object *cmd = NULL;
    return st && json_object_object_get_ex (ccas_state_root (st), "command", &cmd) &&
           json_object_object_get_ex (cmd, name, NULL);
}

/* ---- values ----------------------------------------------------------------------------- */

void ccas_slurm_exc_release (struct ccas_slurm_exc *e)
{
    if (!e)
        return;
    ccas_slurm_names_free (e->names, e->n);
    free (e->counted);
    memset (e, 0, sizeof (*e));
}

static int append_counted (struct ccas_slurm_exc *e, const char *entry, size_t len)
{
    size_t old = e->counted ? strlen (e->counted) : 0;
    char *c = realloc (e->counted, old + len + 2);
    if (!c)
        return -1;
    snprintf (c + old, len + 2, "%s%.*s", old ? "," : "", (int)len, entry);
    e->counted = c;
    return 0;
}

static int append_names (struct ccas_slurm_exc *e, char **names, size_t n)
{
    char **v = realloc (e->names, (e->n + n + 1) * sizeof (*v));
    if (!v)
        return -1;
    memcpy (v + e->n, names, n * sizeof (*v));
    e->names = v;
    e->n += n;
    free (names); /* the strings moved */
    return 0;
}

int ccas_slurm_exc_parse (const char *value, struct ccas_slurm_exc *out, struct ccas_error *err)
{
    memset (out, 0, sizeof (*out));
    if (!value || strcmp (value, "(null)") == 0)
        return 0;
    for (const char *p = value; *p;) {
        size_t len = 0;
        int depth = 0;
        while (p[len] && (depth || p[len] != ',')) {
            depth += p[len] == '[' ? 1 : p[len] == ']' ? -1 : 0;
            len++;
        }
        char entry[4096];
        snprintf (entry, sizeof (entry), "%.*s", (int)len, p);
        if (len >= sizeof (entry)) {
            ccas_slurm_exc_release (out);
            return ccas_errorf (err, "SuspendExcNodes: an entry longer than %zu characters", sizeof (entry));
        }
        if (len && strchr (entry, ':')) {
            if (append_counted (out, entry, len) < 0)
                goto oom;
        } else if (len) {
            size_t n = 0;
            char **names = ccas_slurm_hostlist_expand (entry, &n, err);
            if (!names) {
                ccas_slurm_exc_release (out);
                return ccas_error_prefix (err, "SuspendExcNodes");
            }
            if (append_names (out, names, n) < 0) {
                ccas_slurm_names_free (names, n);
                goto oom;
            }
        }
        p += len + (p[len] == ',');
    }
    return 0;
oom:
    ccas_slurm_exc_release (out);
    return ccas_errorf (err, "out of memory");
}

bool ccas_slurm_exc_has (const struct ccas_slurm_exc *e, const char *name)
{
    for (size_t i = 0; i < e->n; i++)
        if (strcmp (e->names[i], name) == 0)
            return true;
    return false;
}

static bool listed (char *const *names, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp (names[i], name) == 0)
            return true;
    return false;
}

/* Names in order: by stem, then by number ("htc-2" before "htc-10"), so
 * that the compressed value reads as Slurm would write it. */
static int cmp_names (const void *pa, const void *pb)
{
    const char *a = *(const char *const *)pa, *b = *(const char *const *)pb;
    char sa[256], sb[256];
    long na = -1, nb = -1;
    if (!ccas_slurm_name_split (a, sa, sizeof (sa), &na) || !ccas_slurm_name_split (b, sb, sizeof (sb), &nb))
        return strcmp (a, b);
    int c = strcmp (sa, sb);
    if (c)
        return c;
    return na < nb ? -1 : na > nb;
}

char *ccas_slurm_exc_edit (const struct ccas_slurm_exc *e, char *const *add, size_t nadd, char *const *remove,
                           size_t nremove)
{
    const char **v = calloc (e->n + nadd + 1, sizeof (*v));
    size_t k = 0;
    if (!v)
        return NULL;
    for (size_t i = 0; i < e->n; i++)
        if (!listed (remove, nremove, e->names[i]) && !listed ((char *const *)v, k, e->names[i]))
            v[k++] = e->names[i];
    for (size_t i = 0; i < nadd; i++)
        if (!listed (remove, nremove, add[i]) && !listed ((char *const *)v, k, add[i]))
            v[k++] = add[i];
    qsort (v, k, sizeof (*v), cmp_names);
    char *hl = k ? ccas_slurm_hostlist_compress (v, k) : strdup ("");
    free (v);
    if (!hl || !e->counted)
        return hl;
    size_t len = strlen (hl) + strlen (e->counted) + 2;
    char *out = malloc (len);
    if (out)
        snprintf (out, len, "%s%s%s", hl, *hl ? "," : "", e->counted);
    free (hl);
    return out;
}

char *ccas_slurm_keepalive_text (const char *value)
{
    static const char head[] = "# Written by ccautoscale (slurm sync, slurm keep-alive): slurmctld's running"
                               " SuspendExcNodes,\n# kept here through a restart.  Do not edit.\n";
    size_t len = sizeof (head) + (value ? strlen (value) : 0) + 32;
    char *text = malloc (len);
    if (text)
        snprintf (text, len, "%s%s%s%s", head, value && *value ? "SuspendExcNodes=" : "# none",
                  value && *value ? value : "", "\n");
    return text;
}

/* ---- changing -------------------------------------------------------------------------------- */

void ccas_slurm_keepalive_change_release (struct ccas_slurm_keepalive_change *c)
{
    if (!c)
        return;
    ccas_slurm_names_free (c->added, c->nadded);
    ccas_slurm_names_free (c->removed, c->nremoved);
    memset (c, 0, sizeof (*c));
}

/* The names of `names` that `e` holds (want true) or lacks (false), each once. */
static char **pick (const struct ccas_slurm_exc *e, char *const *names, size_t n, bool want, size_t *out_n)
{
    char **v = calloc (n + 1, sizeof (*v));
    size_t k = 0;
    for (size_t i = 0; v && i < n; i++)
        if (ccas_slurm_exc_has (e, names[i]) == want && !listed (v, k, names[i]) &&
            (v[k] = strdup (names[i])))
            k++;
    *out_n = k;
    return v;
}

static int include_path (const struct ccas_power *p, char *buf, size_t size)
{
    const char *dir = p->cfg->slurm.conf_dir, *file = p->cfg->slurm.keepalive_file;
    if (!dir || !file || !*file)
        return -1;
    snprintf (buf, size, "%s/%s", dir, file);
    return 0;
}

/* Make the include hold `value`, if it does not already; `*old` gets what
 * it held (NULL for no file).  Returns 1 written, 0 unchanged, -1 error. */
static int write_include (struct ccas_power *p, const char *value, char **old, struct ccas_error *err)
{
    char path[4096];
    size_t len = 0;
    struct ccas_error rerr = {""};
    *old = NULL;
    if (include_path (p, path, sizeof (path)) < 0)
        return 0;
    char *text = ccas_slurm_keepalive_text (value);
    if (!text)
        return ccas_errorf (err, "out of memory");
    *old = ccas_file_read (path, 1 << 20, &len, &rerr);
    int rc = 0;
    if (!*old || strcmp (*old, text) != 0) {
        if (p->dry_run) {
            fprintf (p->out, "would write %s:\n%s", path, text);
            rc = 1;
        } else
            rc = ccas_file_write_keep (path, text, strlen (text), 0644, err) < 0 ? -1 : 1;
    }
    free (text);
    return rc;
}

/* Slurm 22.05: the include, then a reconfigure that reads it; the old text
 * back if slurmctld could not be told, so the next run tries again. */
static int change_by_include (struct ccas_power *p, const char *value, struct ccas_error *err)
{
    char path[4096], *old = NULL;
    if (include_path (p, path, sizeof (path)) < 0)
        return ccas_errorf (err,
                            "this slurmctld cannot change SuspendExcNodes while it runs (Slurm 23.02 can),"
                            " and slurm.keepalive_file is \"\": nowhere to keep it");
    int rc = write_include (p, value, &old, err);
    if (rc > 0 && !p->dry_run && ccas_slurm_reconfigure (err) < 0) {
        struct ccas_error werr = {""};
        if (old && ccas_file_write_keep (path, old, strlen (old), 0644, &werr) < 0)
            ccas_log (LOG_ERR, "%s", werr.text);
        rc = -1;
    }
    free (old);
    return rc < 0 ? -1 : 0;
}

/* After a change: what slurmctld now says, or `fallback` if it does not
 * answer.  Caller frees with free(). */
static char *running_value (const char *fallback)
{
    struct ccas_error err = {""};
    char *v = ccas_slurm_suspend_exc_nodes (&err);
    if (!v) {
        ccas_log (LOG_WARNING, "%s", err.text);
        v = strdup (fallback ? fallback : "");
    }
    return v;
}

/* The names of `want` the running value lacks: a SuspendExcNodes line in
 * slurm.conf after the Include overrides the include. */
static void check_applied (const char *value, char *const *want, size_t n)
{
    struct ccas_slurm_exc now;
    struct ccas_error err = {""};
    if (ccas_slurm_exc_parse (value, &now, &err) < 0)
        return;
    for (size_t i = 0; i < n; i++)
        if (!ccas_slurm_exc_has (&now, want[i])) {
            ccas_log (
                LOG_WARNING,
                "SuspendExcNodes: slurmctld does not list '%s' after the reconfigure: a SuspendExcNodes"
                " line of slurm.conf after the Include of ccautoscale.conf overrides it (move it above)",
                want[i]);
            break;
        }
    ccas_slurm_exc_release (&now);
}

static void say_change (struct ccas_power *p, const char *how, char **add, size_t nadd, char **remove,
                        size_t nremove)
{
    char *a = nadd ? ccas_slurm_hostlist_compress ((const char *const *)add, nadd) : NULL;
    char *r = nremove ? ccas_slurm_hostlist_compress ((const char *const *)remove, nremove) : NULL;
    ccas_power_say (p, LOG_NOTICE, "%sSuspendExcNodes%s%s%s%s %s", p->dry_run ? "would change " : "",
                    a ? " += " : "", a ? a : "", r ? " -= " : "", r ? r : "", how);
    free (a);
    free (r);
}

int ccas_slurm_keepalive_change (struct ccas_power *p, const struct ccas_slurm_traits *t, char *const *add,
                                 size_t nadd, char *const *remove, size_t nremove,
                                 struct ccas_slurm_keepalive_change *out, struct ccas_error *err)
{
    struct ccas_slurm_exc e;
    char *cur = NULL, *now = NULL, *old = NULL;
    int rc = -1;
    memset (out, 0, sizeof (*out));
    if (!(cur = ccas_slurm_suspend_exc_nodes (err)) || ccas_slurm_exc_parse (cur, &e, err) < 0) {
        free (cur);
        return -1;
    }
    out->added = pick (&e, add, nadd, false, &out->nadded);
    out->removed = pick (&e, remove, nremove, true, &out->nremoved);
    if (!out->added || !out->removed) {
        ccas_errorf (err, "out of memory");
        goto done;
    }
    if (!out->nadded && !out->nremoved) {
        /* nothing to change: the include follows what slurmctld has (an
         * administrator's scontrol, or a first run) */
        int w = write_include (p, cur, &old, err);
        out->include_written = w > 0;
        rc = w < 0 ? -1 : 0;
        goto done;
    }
    if (!(now = ccas_slurm_exc_edit (&e, out->added, out->nadded, out->removed, out->nremoved))) {
        ccas_errorf (err, "out of memory");
        goto done;
    }
    if (p->dry_run) {
        say_change (p, t->live_suspend_exc ? "on the running slurmctld" : "by the include and a reconfigure",
                    out->added, out->nadded, out->removed, out->nremoved);
        int w = write_include (p, now, &old, err);
        rc = w < 0 ? -1 : 0;
        goto done;
    }
    char *addhl =
        out->nadded ? ccas_slurm_hostlist_compress ((const char *const *)out->added, out->nadded) : NULL;
    char *remhl = out->nremoved
                      ? ccas_slurm_hostlist_compress ((const char *const *)out->removed, out->nremoved)
                      : NULL;
    int live = 0;
    if (t->live_suspend_exc && (live = ccas_slurm_suspend_exc_update (addhl, remhl, err)) < 0)
        ccas_log (LOG_WARNING, "%s; rewriting the include and reconfiguring slurmctld instead", err->text);
    free (addhl);
    free (remhl);
    if (live > 0) {
        free (now);
        say_change (p, "on the running slurmctld", out->added, out->nadded, out->removed, out->nremoved);
        now = running_value (cur);
        int w = write_include (p, now, &old, err);
        out->include_written = w > 0;
        rc = w < 0 ? -1 : 0;
        goto done;
    }
    say_change (p, "by the include and a reconfigure", out->added, out->nadded, out->removed, out->nremoved);
    if (change_by_include (p, now, err) < 0)
        goto done;
    out->include_written = true;
    char *applied = running_value (now);
    check_applied (applied, out->added, out->nadded);
    free (applied);
    rc = 0;
done:
    ccas_slurm_exc_release (&e);
    free (cur);
    free (now);
    free (old);
    return rc;
}
