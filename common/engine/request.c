/* SPDX-License-Identifier: MIT */
/* request.c: check an autoscale API request entry by entry and normalize what it asks. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ccapi/attributes.h"
#include "engine/request.h"
#include "engine/request_set.h"
#include "util/json.h"

#define TARGET_MAX 10000000 /* nodes, cores or groups: beyond any cluster */
#define NAME_MAX_LEN 80

bool ccas_request_name_ok (const char *s, size_t max)
{
    if (!s || !*s || strlen (s) > max)
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_' ||
              *s == '-' || *s == '.'))
            return false;
    return true;
}

/* The attributes of an entry the API itself defines, read here. */
static const char *const own[] = {
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
    "ClusterName",
    "MaxCount",
    "MaxCoreCount",
    "Interruptible",
    NULL,
};

/* Where an error is: the document, the entry's index and (once known) its
 * name; the attribute of the last error. */
struct where {
    const char *what;
    size_t index;
    const char *name;
    char attr[128];
};

static int bad (struct ccas_error *err, struct where *w, const char *attr, const char *fmt, ...)
    __attribute__ ((format (printf, 4, 5)));

static int bad (struct ccas_error *err, struct where *w, const char *attr, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start (ap, fmt);
    vsnprintf (msg, sizeof (msg), fmt, ap);
    va_end (ap);
    snprintf (w->attr, sizeof (w->attr), "%s", attr);
    if (w->name)
        return ccas_errorf (err, "%s: array '%s' ([%zu]): %s: %s", w->what, w->name, w->index, attr, msg);
    return ccas_errorf (err, "%s: [%zu]: %s: %s", w->what, w->index, attr, msg);
}

/* A count attribute: absent (0), or an integer in [min, TARGET_MAX] (1). */
static int count_attr (json_object *entry, const char *attr, int64_t min, int64_t *out, struct where *w,
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

static const char *cluster_name (const struct ccas_cluster *c)
{
    return c->status->name ? c->status->name : c->cfg->cluster_name;
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

/* Every nodearray's machine types, for an error: "htc: 'a', 'b'; hpc: 'c'". */
static const char *all_machine_types (const struct ccas_cluster *c, char *buf, size_t size)
{
    char one[400];
    buf[0] = '\0';
    for (size_t i = 0; i < c->nnodearrays; i++) {
        size_t len = strlen (buf);
        snprintf (buf + len, size - len, "%s%s: %s", i ? "; " : "", c->nodearrays[i].name,
                  machine_type_names (c, c->nodearrays[i].name, one, sizeof (one)));
    }
    return buf;
}

/* MachineType as given: a string or a non-empty list of strings, into v[]
 * (borrowed, at most `max`).  Returns how many, or -1 with `err`. */
static int machine_type_list (json_object *v, const char **out, size_t max, struct where *w,
                              struct ccas_error *err)
{
    char brief[80];
    bool one = json_object_is_type (v, json_type_string);
    size_t n = one ? 1 : json_object_is_type (v, json_type_array) ? json_object_array_length (v) : 0;
    if (n == 0)
        return bad (err, w, "MachineType", "expected a machine type or a list of them, got %s",
                    ccas_json_brief (v, brief, sizeof (brief)));
    if (n > max)
        return bad (err, w, "MachineType", "%zu machine types: at most %zu", n, max);
    for (size_t i = 0; i < n; i++) {
        json_object *e = one ? v : json_object_array_get_idx (v, i);
        if (!json_object_is_type (e, json_type_string))
            return bad (err, w, "MachineType", "[%zu]: expected a machine type, got %s", i,
                        ccas_json_brief (e, brief, sizeof (brief)));
        out[i] = json_object_get_string (e);
        for (size_t k = 0; k < i; k++)
            if (strcasecmp (out[k], out[i]) == 0)
                return bad (err, w, "MachineType", "'%s' is listed twice", out[i]);
    }
    return (int)n;
}

/* MachineType as a list of the nodearray's own spellings, each a bucket of it. */
static int machine_types (json_object *v, const char *na, const struct ccas_cluster *c, json_object **out,
                          struct where *w, struct ccas_error *err)
{
    char known[600];
    const char *mts[64] = {NULL};
    int n = machine_type_list (v, mts, 64, w, err);
    if (n < 0)
        return -1;
    for (int i = 0; i < n; i++)
        if (!ccas_cluster_bucket (c, na, mts[i]))
            return bad (err, w, "MachineType", "nodearray '%s' has no machine type '%s' (it has %s)", na,
                        mts[i], machine_type_names (c, na, known, sizeof (known)));
    *out = json_object_new_array ();
    for (int i = 0; i < n; i++)
        json_object_array_add (*out,
                               json_object_new_string (ccas_cluster_bucket (c, na, mts[i])->machine_type));
    return 0;
}

/* The entry's targets: exactly one kind, groups with exactly one size. */
static int targets (json_object *e, json_object *out, struct where *w, struct ccas_error *err)
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

/* ---- attributes ----------------------------------------------------------------------------- */

/* Every attribute the entry gives besides the API's own: checked against
 * CycleCloud's, the ones a create sends gathered into *attrs (nested). */
static int node_attributes (json_object *e, json_object **attrs, struct where *w, struct ccas_error *err)
{
    char why[400];
    *attrs = json_object_new_object ();
    json_object_object_foreach (e, key, v)
    {
        bool mine = false;
        for (size_t i = 0; own[i] && !mine; i++)
            mine = strcmp (own[i], key) == 0;
        if (mine)
            continue;
        const struct ccas_attribute *a = ccas_attributes_find (key);
        if (!a)
            return bad (err, w, key,
                        "unknown attribute: neither the autoscale API's nor a node or nodearray attribute "
                        "CycleCloud accepts");
        if (a->use == CCAS_ATTR_REFUSED)
            return bad (err, w, key, "cannot be set by an autoscale request: %s", a->why);
        if (!ccas_attributes_check (a, key, v, why, sizeof (why))) {
            size_t len = strlen (key); /* "Priority: expected ..." says its key already */
            bool own_key = strncmp (why, key, len) == 0 && strncmp (why + len, ": ", 2) == 0;
            return bad (err, w, key, "%s", own_key ? why + len + 2 : why);
        }
        if (ccas_attributes_put (*attrs, key, json_object_get (v)) < 0)
            return bad (err, w, key, "clashes with another attribute the entry gives");
    }
    return 0;
}

/* ClusterName: accepted when it is this cluster's (CycleCloud sets it). */
static int cluster_attr (json_object *e, const struct ccas_cluster *c, struct where *w,
                         struct ccas_error *err)
{
    char brief[80];
    json_object *v = NULL;
    if (!json_object_object_get_ex (e, "ClusterName", &v))
        return 0;
    if (!json_object_is_type (v, json_type_string) ||
        strcmp (json_object_get_string (v), cluster_name (c)) != 0)
        return bad (err, w, "ClusterName", "this is cluster '%s', not %s", cluster_name (c),
                    ccas_json_brief (v, brief, sizeof (brief)));
    return 0;
}

/* Interruptible: only the nodearray's own. */
static int spot_attr (json_object *e, const struct ccas_cluster *c, const char *na, struct where *w,
                      struct ccas_error *err)
{
    char brief[80];
    json_object *v = NULL;
    const struct ccas_nodearray *a = nodearray_of (c, na);
    if (!json_object_object_get_ex (e, "Interruptible", &v))
        return 0;
    if (!json_object_is_type (v, json_type_boolean))
        return bad (err, w, "Interruptible", "expected true or false, got %s",
                    ccas_json_brief (v, brief, sizeof (brief)));
    if (a && json_object_get_boolean (v) != a->st->interruptible)
        return bad (err, w, "Interruptible",
                    "nodearray '%s' is %s: spot and on-demand VMs draw on different quotas, counted per "
                    "nodearray, so an array is as its nodearray is",
                    na, a->st->interruptible ? "spot (Interruptible)" : "on-demand");
    return 0;
}

/* ---- which array, and where its nodes are made ---------------------------------------------- */

static bool has_member (json_object *e, const char *dotted)
{
    const char *dot = strchr (dotted, '.');
    char head[64];
    if (json_object_object_get_ex (e, dotted, NULL))
        return true;
    if (!dot)
        return false;
    snprintf (head, sizeof (head), "%.*s", (int)(dot - dotted), dotted);
    return json_object_object_get_ex (ccas_json_get (e, head), dot + 1, NULL);
}

/* A dynamic array without Extends gives what a node needs (the API: "not
 * required if you can supply all the attributes"): MachineType, SubnetId,
 * Credentials and an image. */
static int standalone_complete (json_object *e, struct where *w, struct ccas_error *err)
{
    char missing[200] = "";
    bool image = has_member (e, "ImageName") || has_member (e, "ImageId") ||
                 (has_member (e, "Azure.Publisher") && has_member (e, "Azure.Offer") &&
                  has_member (e, "Azure.Sku") && has_member (e, "Azure.ImageVersion"));
    static const char *const need[] = {"MachineType", "SubnetId", "Credentials", NULL};
    for (size_t i = 0; need[i]; i++)
        if (!has_member (e, need[i])) {
            size_t len = strlen (missing);
            snprintf (missing + len, sizeof (missing) - len, "%s%s", len ? ", " : "", need[i]);
        }
    if (!image) {
        size_t len = strlen (missing);
        snprintf (missing + len, sizeof (missing) - len,
                  "%san image (ImageName, ImageId or Azure.Publisher, "
                  "Offer, Sku and ImageVersion)",
                  len ? ", " : "");
    }
    if (missing[0])
        return bad (err, w, "Extends",
                    "a dynamic array without Extends gives every attribute a node needs; it lacks %s",
                    missing);
    return 0;
}

/* The nodearray a dynamic array without Extends is made in: the first
 * (autoscale-enabled ones first) with a bucket of each of its machine types. */
static const char *standalone_home (json_object *e, const struct ccas_cluster *c, struct where *w,
                                    struct ccas_error *err)
{
    char known[1200];
    const char *mts[64] = {NULL};
    int n = machine_type_list (ccas_json_get (e, "MachineType"), mts, 64, w, err);
    if (n < 0)
        return NULL;
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < c->nnodearrays; i++) {
            const struct ccas_nodearray *na = &c->nodearrays[i];
            int k = 0;
            if (na->enabled != (pass == 0))
                continue;
            while (k < n && ccas_cluster_bucket (c, na->name, mts[k]))
                k++;
            if (k == n)
                return na->name;
        }
    bad (err, w, "MachineType",
         "no nodearray of cluster '%s' has %s '%s'%s (the REST API makes nodes only in a nodearray's "
         "buckets; there are %s)",
         cluster_name (c), n > 1 ? "every one of" : "machine type", mts[0], n > 1 ? " ..." : "",
         all_machine_types (c, known, sizeof (known)));
    return NULL;
}

/* Name, Dynamic and Extends: which array this is and where its nodes go. */
static int identity (json_object *e, const struct ccas_cluster *c, json_object *out, struct where *w,
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
                        "cluster '%s' has no nodearray '%s' (it has %s); a new array needs \"Dynamic\": true",
                        cluster_name (c), name, nodearray_names (c, known, sizeof (known)));
        json_object_object_add (out, "nodearray", json_object_new_string (name));
        json_object_object_add (out, "dynamic", json_object_new_boolean (false));
        return 0;
    }
    if (nodearray_of (c, name))
        return bad (err, w, "Dynamic",
                    "'%s' is a nodearray of cluster '%s': a dynamic array needs a name of its own", name,
                    cluster_name (c));
    if (!ccas_request_name_ok (name, NAME_MAX_LEN))
        return bad (err, w, "Name", "a dynamic array's name is 1 to %d letters, digits, '_', '-' or '.'",
                    NAME_MAX_LEN);
    if (!extends) {
        const char *home;
        if (standalone_complete (e, w, err) < 0 || !(home = standalone_home (e, c, w, err)))
            return -1;
        json_object_object_add (out, "nodearray", json_object_new_string (home));
        json_object_object_add (out, "dynamic", json_object_new_boolean (true));
        json_object_object_add (out, "standalone", json_object_new_boolean (true));
        return 0;
    }
    if (!nodearray_of (c, extends))
        return bad (err, w, "Extends", "cluster '%s' has no nodearray '%s' (it has %s)", cluster_name (c),
                    extends, nodearray_names (c, known, sizeof (known)));
    json_object_object_add (out, "nodearray", json_object_new_string (extends));
    json_object_object_add (out, "dynamic", json_object_new_boolean (true));
    return 0;
}

/* ---- one entry, the request ------------------------------------------------------------------ */

static int configuration (json_object *e, json_object *out, struct where *w, struct ccas_error *err)
{
    char brief[80];
    json_object *v = NULL, *copy = NULL;
    if (!json_object_object_get_ex (e, "Configuration", &v))
        return 0;
    if (!json_object_is_type (v, json_type_object))
        return bad (err, w, "Configuration", "expected an object of settings, got %s",
                    ccas_json_brief (v, brief, sizeof (brief)));
    if (json_object_object_get_ex (v, "ccautoscale", NULL))
        return bad (err, w, "Configuration.ccautoscale",
                    "reserved: ccautoscale marks the nodes of dynamic arrays there");
    if (json_object_deep_copy (v, &copy, NULL) < 0)
        return ccas_errorf (err, "out of memory");
    json_object_object_add (out, "configuration", copy);
    return 0;
}

/* MaxCount and MaxCoreCount: how far the array may grow. */
static int caps (json_object *e, json_object *out, struct where *w, struct ccas_error *err)
{
    int64_t nodes = 0, cores = 0;
    int has_nodes, has_cores;
    if ((has_nodes = count_attr (e, "MaxCount", 0, &nodes, w, err)) < 0 ||
        (has_cores = count_attr (e, "MaxCoreCount", 0, &cores, w, err)) < 0)
        return -1;
    if (has_nodes)
        json_object_object_add (out, "max_nodes", json_object_new_int64 (nodes));
    if (has_cores)
        json_object_object_add (out, "max_cores", json_object_new_int64 (cores));
    return 0;
}

/* One node array definition, normalized into `out`. */
static int parse_entry (json_object *e, const struct ccas_cluster *c, json_object *out, struct where *w,
                        struct ccas_error *err)
{
    char brief[80];
    json_object *v = NULL, *attrs = NULL;
    if (!json_object_is_type (e, json_type_object))
        return bad (err, w, "definition", "expected a node array definition (an object), got %s",
                    ccas_json_brief (e, brief, sizeof (brief)));
    if (!json_object_object_get_ex (e, "Name", &v) || !json_object_is_type (v, json_type_string) ||
        !*json_object_get_string (v))
        return bad (err, w, "Name", "expected the array's name, got %s",
                    v ? ccas_json_brief (v, brief, sizeof (brief)) : "nothing");
    w->name = json_object_get_string (v);
    json_object_object_add (out, "requested", json_object_new_string (w->name));
    int rc = node_attributes (e, &attrs, w, err);
    if (rc == 0 && json_object_object_length (attrs) > 0)
        json_object_object_add (out, "attributes", json_object_get (attrs));
    json_object_put (attrs);
    if (rc < 0 || cluster_attr (e, c, w, err) < 0 || identity (e, c, out, w, err) < 0 ||
        targets (e, out, w, err) < 0 || caps (e, out, w, err) < 0)
        return -1;
    const char *na = ccas_json_str (out, "nodearray");
    if (spot_attr (e, c, na, w, err) < 0)
        return -1;
    if (json_object_object_get_ex (e, "MachineType", &v)) {
        json_object *list = NULL;
        if (machine_types (v, na, c, &list, w, err) < 0)
            return -1;
        json_object_object_add (out, "machine_types", list);
    }
    if (configuration (e, out, w, err) < 0)
        return -1;
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

static json_object *refusal (const struct where *w, const struct ccas_error *err)
{
    json_object *o = json_object_new_object ();
    json_object_object_add (o, "index", json_object_new_int64 ((int64_t)w->index));
    json_object_object_add (o, "name", w->name ? json_object_new_string (w->name) : NULL);
    json_object_object_add (o, "attribute", w->attr[0] ? json_object_new_string (w->attr) : NULL);
    json_object_object_add (o, "error", json_object_new_string (err->text));
    return o;
}

json_object *ccas_request_parse (json_object *doc, const char *what, const struct ccas_cluster *c,
                                 json_object **refused, struct ccas_error *err)
{
    char brief[80];
    *refused = NULL;
    if (!json_object_is_type (doc, json_type_array)) {
        ccas_errorf (err, "%s: expected a list of node array definitions, got %s", what,
                     ccas_json_brief (doc, brief, sizeof (brief)));
        return NULL;
    }
    json_object *out = json_object_new_array (), *no = json_object_new_array ();
    size_t n = json_object_array_length (doc);
    for (size_t i = 0; i < n; i++) {
        struct where w = {what, i, NULL, ""};
        struct ccas_error eerr = {""};
        json_object *entry = json_object_new_object ();
        int rc = parse_entry (json_object_array_get_idx (doc, i), c, entry, &w, &eerr);
        /* one Name may have several group sizes (execute:64, execute:128), as in CycleCloud */
        const char *name = rc == 0 ? ccas_json_str (entry, "name") : NULL;
        for (size_t k = 0; name && rc == 0 && k < json_object_array_length (out); k++) {
            json_object *other = json_object_array_get_idx (out, k);
            if (strcmp (ccas_json_str (other, "name"), name) == 0)
                rc = bad (&eerr, &w, "Name", "%s listed twice in one request (also [%lld])",
                          strcmp (name, w.name) == 0 ? "the array is" : "this group size is",
                          (long long)ccas_json_int (other, "index", 0));
        }
        if (rc < 0) {
            json_object_put (entry);
            json_object_array_add (no, refusal (&w, &eerr));
            continue;
        }
        json_object_object_add (entry, "index", json_object_new_int64 ((int64_t)i));
        json_object_array_add (out, entry);
    }
    *refused = no;
    return out;
}
