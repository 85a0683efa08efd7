/* SPDX-License-Identifier: MIT */
/* conf_compare.c: compare Slurm configuration files by nodes, partitions and switches. */
#include "config.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "conf_compare.h"
#include "model/resdict.h"
#include "slurmapi.h"
#include "util/text.h"

/* ---- records: a line's KEY=VALUE words ---------------------------------------------------------- */

struct kv {
    const char *k, *v; /* v NULL for a word without '=' */
};

struct rec {
    char *mem; /* owned copy of the line, cut into the words */
    struct kv *kv;
    size_t n;
};

struct side {
    struct rec *recs;
    size_t n;
};

static void side_free (struct side *s)
{
    for (size_t i = 0; i < s->n; i++) {
        free (s->recs[i].mem);
        free (s->recs[i].kv);
    }
    free (s->recs);
    memset (s, 0, sizeof (*s));
}

/* Slurm's reading: '#' to the end of the line is a comment, words are
 * separated by blanks. */
static int parse (const char *text, struct side *s)
{
    for (const char *p = text; p && *p;) {
        size_t len = strcspn (p, "\n");
        size_t use = strcspn (p, "#\n");
        char *line = strndup (p, use);
        p += len + (p[len] ? 1 : 0);
        if (!line)
            return -1;
        struct rec r = {line, NULL, 0};
        char *save = NULL;
        for (char *w = strtok_r (line, " \t\r", &save); w; w = strtok_r (NULL, " \t\r", &save)) {
            struct kv *grown = realloc (r.kv, (r.n + 1) * sizeof (*r.kv));
            if (!grown) {
                free (r.kv);
                free (line);
                return -1;
            }
            r.kv = grown;
            char *eq = strchr (w, '=');
            if (eq)
                *eq = '\0';
            r.kv[r.n++] = (struct kv){w, eq ? eq + 1 : NULL};
        }
        if (!r.n) {
            free (line);
            continue;
        }
        struct rec *grown = realloc (s->recs, (s->n + 1) * sizeof (*s->recs));
        if (!grown) {
            free (r.kv);
            free (line);
            return -1;
        }
        s->recs = grown;
        s->recs[s->n++] = r;
    }
    return 0;
}

static const char *get (const struct rec *r, const char *key)
{
    for (size_t i = 0; r && i < r->n; i++)
        if (strcasecmp (r->kv[i].k, key) == 0)
            return r->kv[i].v ? r->kv[i].v : "";
    return NULL;
}

static bool is (const struct rec *r, const char *first)
{
    return r->kv[0].v && strcasecmp (r->kv[0].k, first) == 0;
}

/* ---- what a value means -------------------------------------------------------------------------- */

/* What Slurm takes for a partition value not written. */
static const char *partition_default (const char *key)
{
    static const char *const d[][2] = {{"Default", "NO"}, {"State", "UP"}, {"MaxTime", "UNLIMITED"}};
    for (size_t i = 0; i < sizeof (d) / sizeof (d[0]); i++)
        if (strcasecmp (d[i][0], key) == 0)
            return d[i][1];
    return NULL;
}

static const char *normal (const char *v)
{
    return v && strcasecmp (v, "INFINITE") == 0 ? "UNLIMITED" : v;
}

static bool same (const char *a, const char *b)
{
    a = normal (a);
    b = normal (b);
    return a && b ? strcasecmp (a, b) == 0 : a == b;
}

/* Whether the comma-separated `list` holds `word` (any case). */
static bool holds (const char *list, const char *word, size_t wlen)
{
    for (const char *p = list; p && *p;) {
        size_t len = strcspn (p, ",");
        if (len == wlen && strncasecmp (p, word, len) == 0)
            return true;
        p += len + (p[len] ? 1 : 0);
    }
    return false;
}

/* Every feature of `a` is in `b`; the ones of `b` that are not in `a` go to `extra`. */
static bool features_within (const char *a, const char *b, struct ccas_text *extra)
{
    for (const char *p = a; p && *p;) {
        size_t len = strcspn (p, ",");
        if (len && !holds (b, p, len))
            return false;
        p += len + (p[len] ? 1 : 0);
    }
    for (const char *p = b; p && *p;) {
        size_t len = strcspn (p, ",");
        if (len && !holds (a, p, len))
            ccas_text_printf (extra, "%s%.*s", extra->len ? "," : "", (int)len, p);
        p += len + (p[len] ? 1 : 0);
    }
    return true;
}

/* ---- names ------------------------------------------------------------------------------------------ */

struct names {
    struct ccas_resdict *dict;
    int *rec[2]; /* per name id, its record on each side (0 theirs, 1 ours), -1 none */
    size_t cap;
};

static int names_add (struct names *nm, int side, const char *name, int rec)
{
    int id = ccas_resdict_intern (nm->dict, name);
    if (id < 0)
        return -1;
    if ((size_t)id >= nm->cap) {
        size_t cap = nm->cap ? nm->cap * 2 : 1024;
        for (int s = 0; s < 2; s++) {
            int *grown = realloc (nm->rec[s], cap * sizeof (int));
            if (!grown)
                return -1;
            for (size_t i = nm->cap; i < cap; i++)
                grown[i] = -1;
            nm->rec[s] = grown;
        }
        nm->cap = cap;
    }
    nm->rec[side][id] = rec;
    return 0;
}

/* Add the names of `hostlist` (record `rec` of `side`).  -1 with `err`. */
static int names_expand (struct names *nm, int side, const char *hostlist, int rec, struct ccas_error *err)
{
    size_t n;
    char **list = ccas_slurm_hostlist_expand (hostlist, &n, err);
    if (!list)
        return -1;
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++)
        if (names_add (nm, side, list[i], rec) < 0)
            rc = ccas_errorf (err, "out of memory");
    ccas_slurm_names_free (list, n);
    return rc;
}

static void names_free (struct names *nm)
{
    ccas_resdict_destroy (nm->dict);
    free (nm->rec[0]);
    free (nm->rec[1]);
}

/* ---- groups of names that differ alike --------------------------------------------------------- */

struct item {
    char mark; /* '=', '~', '-', '+' */
    char *desc;
    int id;
};

static int item_cmp (const void *pa, const void *pb)
{
    const struct item *a = pa, *b = pb;
    static const char order[] = "=~-+";
    if (a->mark != b->mark)
        return (int)(strchr (order, a->mark) - strchr (order, b->mark));
    int c = strcmp (a->desc, b->desc);
    return c ? c : a->id - b->id;
}

struct report {
    struct ccas_text out;
    int differences;
    const char *theirs; /* the site's file's name */
};

/* Names in Slurm's order: "a-2" before "a-10". */
static int natural_cmp (const void *pa, const void *pb)
{
    const char *a = *(const char *const *)pa, *b = *(const char *const *)pb;
    while (*a && *b) {
        if (isdigit ((unsigned char)*a) && isdigit ((unsigned char)*b)) {
            size_t la = strspn (a, "0123456789"), lb = strspn (b, "0123456789");
            if (la != lb)
                return la < lb ? -1 : 1;
            int c = strncmp (a, b, la);
            if (c)
                return c;
            a += la;
            b += lb;
            continue;
        }
        if (*a != *b)
            return (unsigned char)*a - (unsigned char)*b;
        a++;
        b++;
    }
    return (unsigned char)*a - (unsigned char)*b;
}

/* One line per run of items alike: their names as one hostlist. */
static void print_groups (struct report *rp, const char *what, struct item *items, size_t n,
                          const struct ccas_resdict *dict)
{
    qsort (items, n, sizeof (*items), item_cmp);
    for (size_t i = 0; i < n;) {
        size_t k = i;
        while (k < n && items[k].mark == items[i].mark && strcmp (items[k].desc, items[i].desc) == 0)
            k++;
        const char **names = malloc ((k - i) * sizeof (*names));
        char *list = NULL;
        if (names) {
            for (size_t j = i; j < k; j++)
                names[j - i] = ccas_resdict_name (dict, items[j].id);
            qsort (names, k - i, sizeof (*names), natural_cmp);
            list = ccas_slurm_hostlist_compress (names, k - i);
        }
        if (!list)
            rp->out.oom = true;
        else
            ccas_text_printf (&rp->out, "%c %s %s%s%s\n", items[i].mark, what, list,
                              items[i].desc[0] ? ": " : "", items[i].desc);
        rp->differences += items[i].mark != '=' ? 1 : 0;
        free (list);
        free (names);
        i = k;
    }
}

static void items_free (struct item *items, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free (items[i].desc);
    free (items);
}

/* ---- comparing two records ---------------------------------------------------------------------- */

/* Whether `key` is one of `list` (NULL-terminated), any case. */
static bool one_of (const char *key, const char *const *list)
{
    for (; *list; list++)
        if (strcasecmp (key, *list) == 0)
            return true;
    return false;
}

/* The differences of `o` from `t` into `d`: every value `t` writes (but
 * `skip`), and of `o` those in `also`.  Features of `o` beyond `t`'s are
 * noted in `added`, not counted.  Returns whether any differs. */
static bool rec_diff (const struct rec *t, const struct rec *o, const char *const *skip,
                      const char *const *also, bool partition, struct ccas_text *d, struct ccas_text *added)
{
    bool differs = false;
    for (int pass = 0; pass < 2; pass++) {
        const struct rec *from = pass ? o : t, *other = pass ? t : o;
        for (size_t i = 0; i < from->n; i++) {
            const char *k = from->kv[i].k;
            if (!from->kv[i].v || one_of (k, skip) || (pass && (get (t, k) || !one_of (k, also))))
                continue;
            const char *vt = pass ? get (other, k) : from->kv[i].v;
            const char *vo = pass ? from->kv[i].v : get (other, k);
            if (partition && !vt)
                vt = partition_default (k);
            if (partition && !vo)
                vo = partition_default (k);
            if (strcasecmp (k, "Feature") == 0 || strcasecmp (k, "Features") == 0) {
                if (vt && vo && features_within (vt, vo, added))
                    continue;
            } else if (same (vt, vo))
                continue;
            ccas_text_printf (d, "%s%s %s -> %s", d->len ? "; " : "", k, vt ? vt : "(none)",
                              vo ? vo : "(none)");
            differs = true;
        }
    }
    return differs;
}

/* ---- nodes, partitions, gres ------------------------------------------------------------------------ */

static const char *const node_skip[] = {"NodeName", NULL};
static const char *const node_also[] = {"State",   "CPUs", "ThreadsPerCore", "RealMemory", "Gres",
                                        "Feature", NULL};
static const char *const gres_skip[] = {"NodeName", NULL};
static const char *const gres_also[] = {"Name", "Type", "Count", "File", NULL};

/* Per node name: the same, differs, or on one side only. */
static int compare_nodes (struct report *rp, const struct side s[2], const char *what, bool gres,
                          struct ccas_error *err)
{
    struct names nm = {ccas_resdict_create (), {NULL, NULL}, 0};
    struct item *items = NULL;
    size_t n = 0;
    int rc = -1;
    if (!nm.dict)
        return ccas_errorf (err, "out of memory");
    for (int side = 0; side < 2; side++)
        for (size_t i = 0; i < s[side].n; i++) {
            const char *hl = get (&s[side].recs[i], "NodeName");
            if (hl && (gres || is (&s[side].recs[i], "NodeName")) && *hl &&
                names_expand (&nm, side, hl, (int)i, err) < 0)
                goto done;
        }
    /* no name interned: no per-name arrays either */
    size_t count = nm.rec[0] && nm.rec[1] ? ccas_resdict_count (nm.dict) : 0;
    if (!(items = calloc (count + 1, sizeof (*items)))) {
        ccas_errorf (err, "out of memory");
        goto done;
    }
    for (size_t id = 0; id < count; id++) {
        int t = nm.rec[0][id], o = nm.rec[1][id];
        struct ccas_text d = {0}, added = {0};
        char mark;
        if (t < 0 || o < 0) {
            mark = t < 0 ? '+' : '-';
            ccas_text_printf (&d, "only in %s", t < 0 ? "what ccautoscale writes" : rp->theirs);
        } else {
            mark = rec_diff (&s[0].recs[t], &s[1].recs[o], gres ? gres_skip : node_skip,
                             gres ? gres_also : node_also, false, &d, &added)
                       ? '~'
                       : '=';
            if (added.len)
                ccas_text_printf (&d, "%s(ccautoscale adds features %s)", d.len ? "; " : "", added.p);
        }
        free (added.p);
        if (d.oom || added.oom) {
            free (d.p);
            ccas_errorf (err, "out of memory");
            goto done;
        }
        items[n++] = (struct item){mark, d.p ? d.p : strdup (""), (int)id};
    }
    print_groups (rp, what, items, n, nm.dict);
    rc = 0;
done:
    items_free (items, n);
    names_free (&nm);
    return rc;
}

/* Expand a partition's Nodes= to a sorted, comparable text. */
static char *node_set (const char *hostlist, struct ccas_error *err)
{
    size_t n;
    if (!hostlist)
        return strdup ("");
    char **list = ccas_slurm_hostlist_expand (hostlist, &n, err);
    if (!list)
        return NULL;
    char *s = ccas_slurm_hostlist_compress ((const char *const *)list, n);
    ccas_slurm_names_free (list, n);
    return s;
}

/* Records whose first word is `first` (PartitionName, Nodeset), by name. */
static int compare_named (struct report *rp, const struct side s[2], const char *first, const char *what,
                          struct ccas_error *err)
{
    static const char *const skip[] = {"PartitionName", "Nodeset", "Nodes", NULL};
    static const char *const also[] = {"Nodes", "Default",       "DefMemPerCPU", "MaxTime",
                                       "State", "OverSubscribe", "Feature",      NULL};
    for (int side = 0; side < 2; side++)
        for (size_t i = 0; i < s[side].n; i++) {
            const struct rec *r = &s[side].recs[i];
            if (!is (r, first))
                continue;
            const struct rec *other = NULL;
            for (size_t j = 0; j < s[!side].n && !other; j++)
                if (is (&s[!side].recs[j], first) && strcmp (s[!side].recs[j].kv[0].v, r->kv[0].v) == 0)
                    other = &s[!side].recs[j];
            if (other && side == 1)
                continue; /* said from the site's side */
            if (!other) {
                ccas_text_printf (&rp->out, "%c %s %s: only in %s\n", side ? '+' : '-', what, r->kv[0].v,
                                  side ? "what ccautoscale writes" : rp->theirs);
                rp->differences++;
                continue;
            }
            struct ccas_text d = {0}, added = {0};
            bool differs = rec_diff (r, other, skip, also, true, &d, &added);
            char *nt = node_set (get (r, "Nodes"), err),
                 *no = nt ? node_set (get (other, "Nodes"), err) : NULL;
            if (!nt || !no) {
                free (nt);
                free (d.p);
                free (added.p);
                return -1;
            }
            if (strcmp (nt, no) != 0) {
                ccas_text_printf (&d, "%sNodes %s -> %s", d.len ? "; " : "",
                                  get (r, "Nodes") ? get (r, "Nodes") : "(none)",
                                  get (other, "Nodes") ? get (other, "Nodes") : "(none)");
                differs = true;
            }
            ccas_text_printf (&rp->out, "%c %s %s%s%s\n", differs ? '~' : '=', what, r->kv[0].v,
                              d.len ? ": " : "", d.len ? d.p : "");
            rp->differences += differs ? 1 : 0;
            free (nt);
            free (no);
            free (d.p);
            free (added.p);
        }
    return 0;
}

/* The lines that are neither nodes, partitions nor nodesets, as they are. */
static void compare_other (struct report *rp, const struct side s[2], bool nodes)
{
    for (int side = 0; side < 2; side++)
        for (size_t i = 0; i < s[side].n; i++) {
            const struct rec *r = &s[side].recs[i];
            if (is (r, "NodeName") || is (r, "PartitionName") || is (r, "Nodeset") ||
                (!nodes && get (r, "NodeName")))
                continue;
            bool found = false;
            for (size_t j = 0; j < s[!side].n && !found; j++) {
                const struct rec *o = &s[!side].recs[j];
                found = o->n == r->n;
                for (size_t k = 0; found && k < r->n; k++)
                    found = strcasecmp (r->kv[k].k, o->kv[k].k) == 0 && same (r->kv[k].v, o->kv[k].v);
            }
            if (found && side == 1)
                continue;
            struct ccas_text line = {0};
            for (size_t k = 0; k < r->n; k++)
                ccas_text_printf (&line, "%s%s%s%s", k ? " " : "", r->kv[k].k, r->kv[k].v ? "=" : "",
                                  r->kv[k].v ? r->kv[k].v : "");
            ccas_text_printf (&rp->out, "%c %s%s%s\n",
                              found  ? '='
                              : side ? '+'
                                     : '-',
                              line.p ? line.p : "", found ? "" : ": only in ",
                              found  ? ""
                              : side ? "what ccautoscale writes"
                                     : rp->theirs);
            rp->differences += found ? 0 : 1;
            free (line.p);
        }
}

/* ---- topology ---------------------------------------------------------------------------------------- */

/* Which nodes share a switch: the switches' names are each side's own. */
static int compare_topology (struct report *rp, const struct side s[2], struct ccas_error *err)
{
    struct names nm = {ccas_resdict_create (), {NULL, NULL}, 0};
    struct item *items = NULL;
    size_t n = 0;
    int rc = -1;
    if (!nm.dict)
        return ccas_errorf (err, "out of memory");
    for (int side = 0; side < 2; side++)
        for (size_t i = 0; i < s[side].n; i++) {
            const struct rec *r = &s[side].recs[i];
            const char *hl = get (r, "Nodes");
            if ((is (r, "SwitchName") || is (r, "BlockName")) && hl && *hl &&
                names_expand (&nm, side, hl, (int)i, err) < 0)
                goto done;
        }
    /* no name interned: no per-name arrays either */
    size_t count = nm.rec[0] && nm.rec[1] ? ccas_resdict_count (nm.dict) : 0;
    if (!(items = calloc (count + 1, sizeof (*items)))) {
        ccas_errorf (err, "out of memory");
        goto done;
    }
    /* a switch of each side pairs with one of the other when all its nodes
     * are under that one, and that one's under it: -1 none yet, -2 several */
    int *pair[2] = {malloc ((s[0].n + 1) * sizeof (int)), malloc ((s[1].n + 1) * sizeof (int))};
    if (!pair[0] || !pair[1]) {
        free (pair[0]);
        free (pair[1]);
        ccas_errorf (err, "out of memory");
        goto done;
    }
    for (int side = 0; side < 2; side++)
        for (size_t i = 0; i < s[side].n; i++)
            pair[side][i] = -1;
    for (size_t id = 0; id < count; id++)
        for (int side = 0; side < 2; side++) {
            int mine = nm.rec[side][id], theirs_ = nm.rec[!side][id];
            if (mine >= 0 && pair[side][mine] != -2)
                pair[side][mine] = pair[side][mine] == -1 || pair[side][mine] == theirs_ ? theirs_ : -2;
        }
    for (size_t id = 0; id < count; id++) {
        int t = nm.rec[0][id], o = nm.rec[1][id];
        bool alike = t >= 0 && o >= 0 && pair[0][t] == o && pair[1][o] == t;
        struct ccas_text d = {0};
        char mark = alike ? '=' : t < 0 ? '+' : o < 0 ? '-' : '~';
        if (t < 0 || o < 0)
            ccas_text_printf (&d, "under switch %s only in %s", (t < 0 ? s[1].recs[o] : s[0].recs[t]).kv[0].v,
                              t < 0 ? "what ccautoscale writes" : rp->theirs);
        else
            ccas_text_printf (&d, "switch %s -> %s%s", s[0].recs[t].kv[0].v, s[1].recs[o].kv[0].v,
                              alike ? "" : " (grouped otherwise)");
        if (d.oom) {
            free (pair[0]);
            free (pair[1]);
            ccas_errorf (err, "out of memory");
            goto done;
        }
        items[n++] = (struct item){mark, d.p, (int)id};
    }
    free (pair[0]);
    free (pair[1]);
    print_groups (rp, "nodes", items, n, nm.dict);
    rc = 0;
done:
    items_free (items, n);
    names_free (&nm);
    return rc;
}

/* ---- the whole ------------------------------------------------------------------------------------------
 */

char *ccas_conf_compare (enum ccas_conf_kind kind, const char *name, const char *theirs, const char *ours,
                         int *differences, struct ccas_error *err)
{
    struct side s[2] = {{NULL, 0}, {NULL, 0}};
    struct report rp = {{NULL, 0, 0, false}, 0, name};
    int rc = 0;
    if (parse (theirs ? theirs : "", &s[0]) < 0 || parse (ours, &s[1]) < 0)
        rc = ccas_errorf (err, "out of memory");
    else if (kind == CCAS_CONF_NODES)
        rc = compare_nodes (&rp, s, "nodes", false, err) < 0 ||
                     compare_named (&rp, s, "PartitionName", "partition", err) < 0 ||
                     compare_named (&rp, s, "Nodeset", "nodeset", err) < 0
                 ? -1
                 : 0;
    else if (kind == CCAS_CONF_GRES)
        rc = compare_nodes (&rp, s, "gres of nodes", true, err);
    else
        rc = compare_topology (&rp, s, err);
    if (rc == 0 && kind != CCAS_CONF_TOPOLOGY)
        compare_other (&rp, s, kind == CCAS_CONF_NODES);
    side_free (&s[0]);
    side_free (&s[1]);
    if (rc == 0 && rp.out.oom)
        rc = ccas_errorf (err, "out of memory");
    if (rc < 0) {
        free (rp.out.p);
        return NULL;
    }
    *differences = rp.differences;
    return rp.out.p ? rp.out.p : strdup ("");
}
