/* SPDX-License-Identifier: MIT */
/* request_set.c: keep each autoscale API request set in its state file. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "engine/request.h"
#include "engine/request_set.h"
#include "util/json.h"

#define STATE_PREFIX "autoscale-"

/* ---- names ------------------------------------------------------------------------------ */

int ccas_request_set_check_name (const char *name, struct ccas_error *err)
{
    if (!ccas_request_name_ok (name, 64) || name[0] == '.')
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
        a->attributes = ccas_json_get (o, "attributes");
        if (a->attributes && !json_object_is_type (a->attributes, json_type_object))
            a->attributes = NULL;
        a->max_nodes = ccas_json_int (o, "max_nodes", -1);
        a->max_cores = ccas_json_int (o, "max_cores", -1);
        a->standalone = ccas_json_bool (o, "standalone", false);
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

static bool listed (json_object *arrays, const char *name, const char *nodearray)
{
    for (size_t i = 0; i < json_object_array_length (arrays); i++) {
        json_object *o = json_object_array_get_idx (arrays, i);
        if (strcmp (ccas_json_str (o, "name"), name) == 0 &&
            strcmp (ccas_json_str (o, "nodearray"), nodearray) == 0)
            return true;
    }
    return false;
}

int ccas_request_set_keep (const struct ccas_request_set *s, json_object *arrays, json_object *refused)
{
    json_object *latest = ccas_json_get (ccas_state_root (s->state), "arrays");
    int kept = 0;
    for (size_t r = 0; r < json_object_array_length (refused); r++) {
        json_object *no = json_object_array_get_idx (refused, r);
        const char *name = ccas_json_str (no, "name");
        int n = 0;
        for (size_t i = 0; name && i < s->narrays; i++) {
            const struct ccas_array_request *a = &s->arrays[i];
            json_object *copy = NULL;
            if (strcmp (a->requested, name) != 0 || listed (arrays, a->name, a->nodearray) ||
                json_object_deep_copy (json_object_array_get_idx (latest, i), &copy, NULL) < 0)
                continue;
            json_object_array_add (arrays, copy);
            n++;
        }
        json_object_object_add (no, "kept", json_object_new_int (n));
        kept += n;
    }
    return kept;
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
