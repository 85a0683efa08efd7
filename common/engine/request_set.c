/* SPDX-License-Identifier: MIT */
/* request_set.c: check and normalize autoscale API requests; keep each request set in its state file. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "engine/request_set.h"
#include "util/json.h"

#define STATE_PREFIX "autoscale-"
#define TARGET_MAX 10000000 /* nodes, cores or groups: beyond any cluster */
#define NAME_MAX_LEN 80

/* ---- names ------------------------------------------------------------------------------ */

static bool name_chars_ok (const char *s)
{
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_' ||
              *s == '-' || *s == '.'))
            return false;
    return true;
}

int ccas_request_set_check_name (const char *name, struct ccas_error *err)
{
    if (!name || !*name || strlen (name) > 64 || name[0] == '.' || !name_chars_ok (name))
        return ccas_errorf (err,
                            "request set '%s': a request set's name is 1 to 64 letters, digits, '_', '-' or "
                            "'.', not starting with '.'",
                            name ? name : "");
    return 0;
}

const char *ccas_target_kind_name (enum ccas_target_kind kind)
{
    switch (kind) {
    case CCAS_TARGET_NODES:
        return "nodes";
    case CCAS_TARGET_CORES:
        return "cores";
    case CCAS_TARGET_GROUPS:
        return "groups";
    case CCAS_TARGET_NONE:
        break;
    }
    return "none";
}

static enum ccas_target_kind kind_parse (const char *s)
{
    if (!s)
        return CCAS_TARGET_NONE;
    if (strcmp (s, "nodes") == 0)
        return CCAS_TARGET_NODES;
    if (strcmp (s, "cores") == 0)
        return CCAS_TARGET_CORES;
    if (strcmp (s, "groups") == 0)
        return CCAS_TARGET_GROUPS;
    return CCAS_TARGET_NONE;
}

const char *ccas_array_request_target_text (const struct ccas_array_request *a, char *buf, size_t size)
{
    long long t = (long long)a->target;
    switch (a->kind) {
    case CCAS_TARGET_NODES:
        snprintf (buf, size, "%lld node%s", t, t == 1 ? "" : "s");
        break;
    case CCAS_TARGET_CORES:
        snprintf (buf, size, "%lld core%s", t, t == 1 ? "" : "s");
        break;
    case CCAS_TARGET_GROUPS:
        snprintf (buf, size, "%lld group%s of %lld %s", t, t == 1 ? "" : "s",
                  (long long)(a->group_cores > 0 ? a->group_cores : a->group_nodes),
                  a->group_cores > 0 ? "cores" : "nodes");
        break;
    case CCAS_TARGET_NONE:
        snprintf (buf, size, "none");
        break;
    }
    return buf;
}

/* ---- parsing a request -------------------------------------------------------------------- */

static const char *const attributes[] = {
    "Name",
    "TargetCount",
    "TargetCoreCount",
    "TargetGroupCount",
    "GroupCoreCount",
    "GroupInstanceCount",
    "MachineType",
    "Configuration",
    "Extends",
    "Dynamic",
    NULL,
};

/* Where an error is: the document, the entry's index and (once known) its name. */
struct where {
    const char *what;
    size_t index;
    const char *name;
};

static int bad (struct ccas_error *err, const struct where *w, const char *attr, const char *fmt, ...)
    __attribute__ ((format (printf, 4, 5)));

static int bad (struct ccas_error *err, const struct where *w, const char *attr, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start (ap, fmt);
    vsnprintf (msg, sizeof (msg), fmt, ap);
    va_end (ap);
    if (w->name)
        return ccas_errorf (err, "%s: array '%s' ([%zu]): %s: %s", w->what, w->name, w->index, attr, msg);
    return ccas_errorf (err, "%s: [%zu]: %s: %s", w->what, w->index, attr, msg);
}

/* A count attribute: absent (0), or an integer in [min, TARGET_MAX] (1). */
static int count_attr (json_object *entry, const char *attr, int64_t min, int64_t *out, const struct where *w,
                       struct ccas_error *err)
{
    char brief[80];
    json_object *v = NULL;
    if (!json_object_object_get_ex (entry, attr, &v))
        return 0;
    if (!json_object_is_type (v, json_type_int) || json_object_get_int64 (v) < min)
        return bad (err, w, attr, "expected %s integer, got %s", min > 0 ? "a positive" : "a non-negative",
                    ccas_json_brief (v, brief, sizeof (brief)));
    if (json_object_get_int64 (v) > TARGET_MAX)
        return bad (err, w, attr, "%lld is more than any cluster holds (at most %d)",
                    (long long)json_object_get_int64 (v), TARGET_MAX);
    *out = json_object_get_int64 (v);
    return 1;
}

static const struct ccas_nodearray *nodearray_of (const struct ccas_cluster *c, const char *name)
{
    for (size_t i = 0; name && i < c->nnodearrays; i++)
        if (strcmp (c->nodearrays[i].name, name) == 0)
            return &c->nodearrays[i];
    return NULL;
}

static const char *nodearray_names (const struct ccas_cluster *c, char *buf, size_t size)
{
    buf[0] = '\0';
    for (size_t i = 0; i < c->nnodearrays; i++) {
        size_t len = strlen (buf);
        snprintf (buf + len, size - len, "%s'%s'", i ? ", " : "", c->nodearrays[i].name);
    }
    if (!buf[0])
        snprintf (buf, size, "none");
    return buf;
}

/* The machine types of `na`'s buckets, for an error. */
static const char *machine_type_names (const struct ccas_cluster *c, const char *na, char *buf, size_t size)
{
    buf[0] = '\0';
    for (size_t i = 0; i < c->nbuckets; i++) {
        if (strcmp (c->buckets[i].na->name, na) != 0)
            continue;
        size_t len = strlen (buf);
        snprintf (buf + len, size - len, "%s'%s'", len ? ", " : "", c->buckets[i].machine_type);
    }
    if (!buf[0])
        snprintf (buf, size, "none");
    return buf;
}

/* MachineType, a string or a list in preference order, as a list of the
 * nodearray's own spellings. */
static int machine_types (json_object *v, const char *na, const struct ccas_cluster *c, json_object **out,
                          const struct where *w, struct ccas_error *err)
{
    char brief[80], known[600];
    bool one = json_object_is_type (v, json_type_string);
    size_t n = one ? 1 : json_object_is_type (v, json_type_array) ? json_object_array_length (v) : 0;
    if (n == 0)
        return bad (err, w, "MachineType", "expected a machine type or a list of them, got %s",
                    ccas_json_brief (v, brief, sizeof (brief)));
    *out = json_object_new_array ();
    for (size_t i = 0; i < n; i++) {
        json_object *e = one ? v : json_object_array_get_idx (v, i);
        const char *mt = json_object_is_type (e, json_type_string) ? json_object_get_string (e) : NULL;
        const struct ccas_bucket *b = mt ? ccas_cluster_bucket (c, na, mt) : NULL;
        int rc = 0;
        if (!mt)
            rc = bad (err, w, "MachineType", "[%zu]: expected a machine type, got %s", i,
                      ccas_json_brief (e, brief, sizeof (brief)));
        else if (!b)
            rc = bad (err, w, "MachineType", "nodearray '%s' has no machine type '%s' (it has %s)", na, mt,
                      machine_type_names (c, na, known, sizeof (known)));
        else
            for (size_t k = 0; rc == 0 && k < json_object_array_length (*out); k++)
                if (strcmp (json_object_get_string (json_object_array_get_idx (*out, k)), b->machine_type) ==
                    0)
                    rc = bad (err, w, "MachineType", "'%s' is listed twice", mt);
        if (rc < 0 || !b) {
            json_object_put (*out);
            *out = NULL;
            return -1;
        }
        json_object_array_add (*out, json_object_new_string (b->machine_type));
    }
    return 0;
}

/* The entry's targets: exactly one kind, groups with exactly one size. */
static int targets (json_object *e, json_object *out, const struct where *w, struct ccas_error *err)
{
    int64_t count = 0, cores = 0, groups = 0, gcores = 0, gnodes = 0;
    int has_count, has_cores, has_groups, has_gcores, has_gnodes;
    if ((has_count = count_attr (e, "TargetCount", 0, &count, w, err)) < 0 ||
        (has_cores = count_attr (e, "TargetCoreCount", 0, &cores, w, err)) < 0 ||
        (has_groups = count_attr (e, "TargetGroupCount", 0, &groups, w, err)) < 0 ||
        (has_gcores = count_attr (e, "GroupCoreCount", 1, &gcores, w, err)) < 0 ||
        (has_gnodes = count_attr (e, "GroupInstanceCount", 1, &gnodes, w, err)) < 0)
        return -1;
    if (has_count && has_cores)
        return bad (err, w, "TargetCoreCount", "cannot go with TargetCount: give one target");
    if (has_groups && (has_count || has_cores))
        return bad (err, w, "TargetGroupCount", "cannot go with %s: give one target",
                    has_count ? "TargetCount" : "TargetCoreCount");
    if (has_groups && has_gcores == has_gnodes)
        return bad (err, w, has_gcores ? "GroupInstanceCount" : "TargetGroupCount",
                    "a grouped target takes exactly one of GroupCoreCount and GroupInstanceCount");
    if (!has_groups && (has_gcores || has_gnodes))
        return bad (err, w, has_gcores ? "GroupCoreCount" : "GroupInstanceCount",
                    "goes with TargetGroupCount");
    enum ccas_target_kind kind = has_count    ? CCAS_TARGET_NODES
                                 : has_cores  ? CCAS_TARGET_CORES
                                 : has_groups ? CCAS_TARGET_GROUPS
                                              : CCAS_TARGET_NONE;
    json_object_object_add (out, "kind", json_object_new_string (ccas_target_kind_name (kind)));
    json_object_object_add (out, "target",
                            json_object_new_int64 (has_count   ? count
                                                   : has_cores ? cores
                                                               : groups));
    if (has_groups)
        json_object_object_add (out, has_gcores ? "group_cores" : "group_nodes",
                                json_object_new_int64 (has_gcores ? gcores : gnodes));
    return 0;
}

/* Name, Dynamic and Extends: which array this is and where its nodes go. */
static int identity (json_object *e, const struct ccas_cluster *c, json_object *out, const struct where *w,
                     struct ccas_error *err)
{
    char brief[80], known[600];
    json_object *dyn = NULL, *ext = NULL;
    bool dynamic = false;
    const char *extends = NULL;
    if (json_object_object_get_ex (e, "Dynamic", &dyn)) {
        if (!json_object_is_type (dyn, json_type_boolean))
            return bad (err, w, "Dynamic", "expected true or false, got %s",
                        ccas_json_brief (dyn, brief, sizeof (brief)));
        dynamic = json_object_get_boolean (dyn);
    }
    if (json_object_object_get_ex (e, "Extends", &ext)) {
        if (!json_object_is_type (ext, json_type_string) || !*json_object_get_string (ext))
            return bad (err, w, "Extends", "expected a nodearray's name, got %s",
                        ccas_json_brief (ext, brief, sizeof (brief)));
        extends = json_object_get_string (ext);
    }
    const char *name = w->name;
    if (!dynamic) {
        if (extends)
            return bad (err, w, "Extends", "a new array that extends a nodearray needs \"Dynamic\": true");
        if (!nodearray_of (c, name))
            return bad (err, w, "Name",
                        "cluster '%s' has no nodearray '%s' (it has %s); a new array needs \"Dynamic\": true "
                        "and Extends",
                        c->status->name ? c->status->name : c->cfg->cluster_name, name,
                        nodearray_names (c, known, sizeof (known)));
        json_object_object_add (out, "nodearray", json_object_new_string (name));
        json_object_object_add (out, "dynamic", json_object_new_boolean (false));
        return 0;
    }
    if (nodearray_of (c, name))
        return bad (err, w, "Dynamic",
                    "'%s' is a nodearray of cluster '%s': a dynamic array needs a name of its own", name,
                    c->status->name ? c->status->name : c->cfg->cluster_name);
    if (strlen (name) > NAME_MAX_LEN || !name_chars_ok (name))
        return bad (err, w, "Name", "a dynamic array's name is 1 to %d letters, digits, '_', '-' or '.'",
                    NAME_MAX_LEN);
    if (!extends)
        return bad (err, w, "Extends", "a dynamic array needs Extends: the nodearray its nodes are made in");
    if (!nodearray_of (c, extends))
        return bad (err, w, "Extends", "cluster '%s' has no nodearray '%s' (it has %s)",
                    c->status->name ? c->status->name : c->cfg->cluster_name, extends,
                    nodearray_names (c, known, sizeof (known)));
    json_object_object_add (out, "nodearray", json_object_new_string (extends));
    json_object_object_add (out, "dynamic", json_object_new_boolean (true));
    return 0;
}

/* One node array definition, normalized into `out`. */
static int parse_entry (json_object *e, const struct ccas_cluster *c, json_object *out, struct where *w,
                        struct ccas_error *err)
{
    char brief[80];
    json_object *v = NULL;
    if (!json_object_is_type (e, json_type_object))
        return bad (err, w, "definition", "expected a node array definition (an object), got %s",
                    ccas_json_brief (e, brief, sizeof (brief)));
    if (!json_object_object_get_ex (e, "Name", &v) || !json_object_is_type (v, json_type_string) ||
        !*json_object_get_string (v))
        return bad (err, w, "Name", "expected the array's name, got %s",
                    v ? ccas_json_brief (v, brief, sizeof (brief)) : "nothing");
    w->name = json_object_get_string (v);
    const char *unknown = ccas_json_unknown_key (e, attributes);
    if (unknown)
        return bad (err, w, unknown,
                    "unknown attribute (known: Name, TargetCount, TargetCoreCount, TargetGroupCount, "
                    "GroupCoreCount, GroupInstanceCount, MachineType, Configuration, Extends, Dynamic)");
    json_object_object_add (out, "requested", json_object_new_string (w->name));
    if (identity (e, c, out, w, err) < 0 || targets (e, out, w, err) < 0)
        return -1;
    const char *na = ccas_json_str (out, "nodearray");
    if (json_object_object_get_ex (e, "MachineType", &v)) {
        json_object *list = NULL;
        if (machine_types (v, na, c, &list, w, err) < 0)
            return -1;
        json_object_object_add (out, "machine_types", list);
    }
    if (json_object_object_get_ex (e, "Configuration", &v)) {
        json_object *copy = NULL;
        if (!json_object_is_type (v, json_type_object))
            return bad (err, w, "Configuration", "expected an object of settings, got %s",
                        ccas_json_brief (v, brief, sizeof (brief)));
        if (json_object_object_get_ex (v, "ccautoscale", NULL))
            return bad (err, w, "Configuration.ccautoscale",
                        "reserved: ccautoscale marks the nodes of dynamic arrays there");
        if (json_object_deep_copy (v, &copy, NULL) < 0)
            return ccas_errorf (err, "out of memory");
        json_object_object_add (out, "configuration", copy);
    }
    /* a grouped target is the dynamic array "<Name>:<GroupCoreCount>", as CycleCloud names it */
    char name[NAME_MAX_LEN + 64];
    int64_t gc = ccas_json_int (out, "group_cores", 0), gn = ccas_json_int (out, "group_nodes", 0);
    if (gc > 0)
        snprintf (name, sizeof (name), "%s:%lld", w->name, (long long)gc);
    else if (gn > 0)
        snprintf (name, sizeof (name), "%s:%lldnodes", w->name, (long long)gn);
    else
        snprintf (name, sizeof (name), "%s", w->name);
    json_object_object_add (out, "name", json_object_new_string (name));
    if (gc > 0 || gn > 0)
        json_object_object_add (out, "dynamic", json_object_new_boolean (true));
    return 0;
}

json_object *ccas_request_parse (json_object *doc, const char *what, const struct ccas_cluster *c,
                                 struct ccas_error *err)
{
    char brief[80];
    if (!json_object_is_type (doc, json_type_array)) {
        ccas_errorf (err, "%s: expected a list of node array definitions, got %s", what,
                     ccas_json_brief (doc, brief, sizeof (brief)));
        return NULL;
    }
    json_object *out = json_object_new_array ();
    size_t n = json_object_array_length (doc);
    for (size_t i = 0; i < n; i++) {
        struct where w = {what, i, NULL};
        json_object *entry = json_object_new_object ();
        json_object_array_add (out, entry);
        if (parse_entry (json_object_array_get_idx (doc, i), c, entry, &w, err) < 0)
            goto error;
        /* one Name may have several group sizes (execute:64, execute:128), as in CycleCloud */
        const char *name = ccas_json_str (entry, "name");
        for (size_t k = 0; name && k < i; k++) {
            const char *other = ccas_json_str (json_object_array_get_idx (out, k), "name");
            if (other && strcmp (other, name) == 0) {
                bad (err, &w, "Name", "%s listed twice in one request (also [%zu])",
                     w.name && strcmp (name, w.name) == 0 ? "the array is" : "this group size is", k);
                goto error;
            }
        }
    }
    return out;
error:
    json_object_put (out);
    return NULL;
}

/* ---- the state file ------------------------------------------------------------------------ */

static void release_views (struct ccas_request_set *s)
{
    free (s->arrays);
    s->arrays = NULL;
    s->narrays = 0;
}

static int read_arrays (struct ccas_request_set *s, const char *path, struct ccas_error *err)
{
    json_object *arr = ccas_json_get (ccas_state_root (s->state), "arrays");
    size_t n = json_object_is_type (arr, json_type_array) ? json_object_array_length (arr) : 0;
    release_views (s);
    if (arr && !json_object_is_type (arr, json_type_array))
        return ccas_errorf (err, "%s: arrays: expected a list, not a request set's file", path);
    if (!(s->arrays = calloc (n + 1, sizeof (*s->arrays))))
        return ccas_errorf (err, "out of memory");
    for (size_t i = 0; i < n; i++) {
        json_object *o = json_object_array_get_idx (arr, i);
        struct ccas_array_request *a = &s->arrays[i];
        a->name = ccas_json_str (o, "name");
        a->requested = ccas_json_str (o, "requested");
        a->nodearray = ccas_json_str (o, "nodearray");
        if (!a->name || !a->nodearray)
            return ccas_errorf (err, "%s: arrays[%zu]: no name or nodearray, not a request set's file", path,
                                i);
        if (!a->requested)
            a->requested = a->name;
        a->dynamic = ccas_json_bool (o, "dynamic", false);
        a->kind = kind_parse (ccas_json_str (o, "kind"));
        a->target = ccas_json_int (o, "target", 0);
        a->group_cores = ccas_json_int (o, "group_cores", 0);
        a->group_nodes = ccas_json_int (o, "group_nodes", 0);
        if (a->kind == CCAS_TARGET_GROUPS && a->group_cores <= 0 && a->group_nodes <= 0)
            return ccas_errorf (err, "%s: arrays[%zu]: a grouped target without a group size", path, i);
        a->machine_types = ccas_json_get (o, "machine_types");
        if (a->machine_types && !json_object_is_type (a->machine_types, json_type_array))
            a->machine_types = NULL;
        a->configuration = ccas_json_get (o, "configuration");
        if (a->configuration && !json_object_is_type (a->configuration, json_type_object))
            a->configuration = NULL;
        s->narrays++;
    }
    return 0;
}

static int read_removing (struct ccas_request_set *s)
{
    json_object *arr = ccas_json_get (ccas_state_root (s->state), "removing");
    size_t n = json_object_is_type (arr, json_type_array) ? json_object_array_length (arr) : 0;
    free (s->removing);
    s->nremoving = 0;
    if (!(s->removing = calloc (n + 1, sizeof (*s->removing))))
        return -1;
    for (size_t i = 0; i < n; i++) {
        json_object *o = json_object_array_get_idx (arr, i);
        struct ccas_array_removing *r = &s->removing[s->nremoving];
        r->name = ccas_json_str (o, "name");
        r->nodearray = ccas_json_str (o, "nodearray");
        r->since = ccas_json_double (o, "since", 0);
        if (r->name && r->nodearray)
            s->nremoving++;
    }
    return 0;
}

struct ccas_request_set *ccas_request_set_load (const char *dir, const char *name, struct ccas_error *err)
{
    char file[128], path[4200];
    struct ccas_request_set *s = NULL;
    if (ccas_request_set_check_name (name, err) < 0)
        return NULL;
    snprintf (file, sizeof (file), STATE_PREFIX "%s", name);
    snprintf (path, sizeof (path), "%s/%s.json", dir, file);
    if (!(s = calloc (1, sizeof (*s)))) {
        ccas_errorf (err, "out of memory");
        return NULL;
    }
    if (!(s->state = ccas_state_load (dir, file, err)))
        goto error;
    json_object *root = ccas_state_root (s->state);
    const char *recorded = ccas_json_str (root, "request_set");
    if (recorded && strcmp (recorded, name) != 0) {
        ccas_errorf (err, "%s: holds request set '%s', not '%s'", path, recorded, name);
        goto error;
    }
    if (!recorded)
        json_object_object_add (root, "request_set", json_object_new_string (name));
    s->name = ccas_json_str (root, "request_set");
    s->time = ccas_json_double (root, "time", 0);
    s->expiration = ccas_json_double (root, "expiration", CCAS_REQUEST_EXPIRATION_DEFAULT);
    if (read_arrays (s, path, err) < 0)
        goto error;
    if (read_removing (s) < 0) {
        ccas_errorf (err, "out of memory");
        goto error;
    }
    return s;
error:
    ccas_request_set_destroy (s);
    return NULL;
}

void ccas_request_set_destroy (struct ccas_request_set *s)
{
    if (!s)
        return;
    release_views (s);
    free (s->removing);
    ccas_state_destroy (s->state);
    free (s);
}

static int cmp_set (const void *a, const void *b)
{
    return strcmp ((*(struct ccas_request_set *const *)a)->name,
                   (*(struct ccas_request_set *const *)b)->name);
}

int ccas_request_set_load_all (const char *dir, struct ccas_request_set ***out, size_t *n,
                               struct ccas_error *err)
{
    struct ccas_request_set **v = NULL;
    size_t cap = 0;
    DIR *d = opendir (dir);
    *out = NULL;
    *n = 0;
    if (!d && errno != ENOENT)
        return ccas_errorf (err, "%s: cannot list: %s", dir, strerror (errno));
    for (struct dirent *de; d && (de = readdir (d));) {
        char name[128];
        size_t len = strlen (de->d_name), plen = strlen (STATE_PREFIX);
        if (len <= plen + 5 || strncmp (de->d_name, STATE_PREFIX, plen) != 0 ||
            strcmp (de->d_name + len - 5, ".json") != 0 || len - plen - 5 >= sizeof (name))
            continue;
        snprintf (name, sizeof (name), "%.*s", (int)(len - plen - 5), de->d_name + plen);
        if (ccas_request_set_check_name (name, NULL) < 0)
            continue; /* not one of ours */
        if (*n == cap) {
            cap = cap ? cap * 2 : 8;
            struct ccas_request_set **nv = realloc (v, cap * sizeof (*nv));
            if (!nv) {
                ccas_errorf (err, "out of memory");
                goto error;
            }
            v = nv;
        }
        if (!(v[*n] = ccas_request_set_load (dir, name, err)))
            goto error;
        (*n)++;
    }
    if (d)
        closedir (d);
    if (*n > 1)
        qsort (v, *n, sizeof (*v), cmp_set);
    *out = v;
    return 0;
error:
    if (d)
        closedir (d);
    ccas_request_set_destroy_all (v, *n);
    *n = 0;
    return -1;
}

void ccas_request_set_destroy_all (struct ccas_request_set **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        ccas_request_set_destroy (v[i]);
    free (v);
}

/* ---- changes ---------------------------------------------------------------------------- */

static bool requested_dynamic (json_object *arrays, const char *name, const char *nodearray)
{
    for (size_t i = 0; i < json_object_array_length (arrays); i++) {
        json_object *o = json_object_array_get_idx (arrays, i);
        if (ccas_json_bool (o, "dynamic", false) && strcmp (ccas_json_str (o, "name"), name) == 0 &&
            strcmp (ccas_json_str (o, "nodearray"), nodearray) == 0)
            return true;
    }
    return false;
}

static void add_removing (json_object *removing, json_object *arrays, const char *name, const char *nodearray,
                          double since)
{
    if (requested_dynamic (arrays, name, nodearray))
        return; /* requested again: its nodes count again */
    for (size_t i = 0; i < json_object_array_length (removing); i++) {
        json_object *o = json_object_array_get_idx (removing, i);
        if (strcmp (ccas_json_str (o, "name"), name) == 0 &&
            strcmp (ccas_json_str (o, "nodearray"), nodearray) == 0)
            return;
    }
    json_object *o = json_object_new_object ();
    json_object_object_add (o, "name", json_object_new_string (name));
    json_object_object_add (o, "nodearray", json_object_new_string (nodearray));
    json_object_object_add (o, "since", json_object_new_double (since));
    json_object_array_add (removing, o);
}

int ccas_request_set_replace (struct ccas_request_set *s, json_object *arrays, double now, double expiration,
                              struct ccas_error *err)
{
    json_object *root = ccas_state_root (s->state);
    json_object *removing = json_object_new_array ();
    if (!removing) {
        json_object_put (arrays);
        return ccas_errorf (err, "out of memory");
    }
    for (size_t i = 0; i < s->nremoving; i++)
        add_removing (removing, arrays, s->removing[i].name, s->removing[i].nodearray, s->removing[i].since);
    for (size_t i = 0; i < s->narrays; i++)
        if (s->arrays[i].dynamic)
            add_removing (removing, arrays, s->arrays[i].name, s->arrays[i].nodearray, now);
    /* the views borrow from the old document: re-read both before anything else */
    json_object_object_add (root, "time", json_object_new_double (now));
    json_object_object_add (root, "expiration", json_object_new_double (expiration));
    json_object_object_add (root, "arrays", arrays);
    json_object_object_add (root, "removing", removing);
    s->time = now;
    s->expiration = expiration;
    s->changed = true;
    if (read_arrays (s, s->name, err) < 0)
        return -1;
    if (read_removing (s) < 0)
        return ccas_errorf (err, "out of memory");
    return 0;
}

int ccas_request_set_forget (struct ccas_request_set *s, const char *name, const char *nodearray)
{
    json_object *old = ccas_json_get (ccas_state_root (s->state), "removing");
    json_object *keep = json_object_new_array ();
    int found = 0;
    for (size_t i = 0; old && i < json_object_array_length (old); i++) {
        json_object *o = json_object_array_get_idx (old, i);
        const char *n = ccas_json_str (o, "name"), *na = ccas_json_str (o, "nodearray");
        if (n && na && strcmp (n, name) == 0 && strcmp (na, nodearray) == 0)
            found = 1;
        else
            json_object_array_add (keep, json_object_get (o));
    }
    if (!found) {
        json_object_put (keep);
        return 0;
    }
    json_object_object_add (ccas_state_root (s->state), "removing", keep);
    s->changed = true;
    read_removing (s);
    return 1;
}

int ccas_request_set_save (struct ccas_request_set *s, struct ccas_error *err)
{
    if (ccas_state_save (s->state, err) < 0)
        return -1;
    s->changed = false;
    return 0;
}

bool ccas_request_set_live (const struct ccas_request_set *s, double now)
{
    return s->time > 0 && now < s->time + s->expiration;
}

const struct ccas_array_request *ccas_request_set_find (const struct ccas_request_set *s, const char *name,
                                                        const char *nodearray)
{
    for (size_t i = 0; i < s->narrays; i++)
        if (strcmp (s->arrays[i].name, name) == 0 &&
            (!nodearray || strcmp (s->arrays[i].nodearray, nodearray) == 0))
            return &s->arrays[i];
    return NULL;
}
