/* SPDX-License-Identifier: MIT */
/* fixture.h: what the model and engine tests build their worlds from — a
 * configuration from a JSON fragment, a status read from tests/data and
 * patched per case, node records with the usual defaults, and a cluster
 * made of them.  Header-only (static inline), for test programs. */
#ifndef CCAS_TEST_FIXTURE_H
#define CCAS_TEST_FIXTURE_H

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ccapi/ccapi.h"
#include "conf/conf.h"
#include "model/cluster.h"
#include "util/json.h"

/* A JSON document from a data file under tests/data; fails the test if it cannot. */
static inline json_object *fx_load (const char *name)
{
    char path[512];
    struct ccas_error err = {""};
    snprintf (path, sizeof (path), "%s/%s", TEST_DATA_DIR, name);
    json_object *o = ccas_json_load_file (path, 1 << 22, &err);
    if (!o)
        fail_msg ("%s", err.text);
    return o;
}

static inline json_object *fx_parse (const char *text)
{
    json_object *o = json_tokener_parse (text);
    if (!o)
        fail_msg ("bad JSON in the test: %s", text);
    return o;
}

static inline void fx_merge (json_object *dst, json_object *src)
{
    json_object_object_foreach (src, k, v) json_object_object_add (dst, k, json_object_get (v));
}

/* A minimal valid configuration with `extra` (a JSON object, may be NULL)
 * merged in at the top.  Caller frees with ccas_conf_destroy(). */
static inline struct ccas_config *fx_config (const char *extra)
{
    struct ccas_error err = {""};
    json_object *root = fx_parse ("{\"url\": \"https://cc\", \"username\": \"u\", \"password\": \"p\","
                                  " \"cluster_name\": \"test\", \"logging\": {\"syslog\": false}}");
    if (extra) {
        json_object *x = fx_parse (extra);
        fx_merge (root, x);
        json_object_put (x);
    }
    struct ccas_config *cfg = ccas_conf_from_json (root, "test-config", &err);
    if (!cfg)
        fail_msg ("%s", err.text);
    return cfg;
}

/* Patch a status document: {"na/mt": {bucket fields}, "na": {nodearray
 * fields}, "na.nodearray": {record fields}, "cluster": {top-level fields}}. */
static inline void fx_patch_status (json_object *st, const char *patch)
{
    if (!patch)
        return;
    json_object *p = fx_parse (patch);
    json_object_object_foreach (p, key, fields)
    {
        if (strcmp (key, "cluster") == 0) {
            fx_merge (st, fields);
            continue;
        }
        char na[64], mt[64] = "";
        sscanf (key, "%63[^/]/%63s", na, mt);
        bool record = false;
        char *dot = strchr (na, '.');
        if (dot && strcmp (dot, ".nodearray") == 0) {
            *dot = '\0';
            record = true;
        }
        json_object *nas = ccas_json_get (st, "nodearrays");
        bool found = false;
        for (size_t i = 0; i < json_object_array_length (nas); i++) {
            json_object *a = json_object_array_get_idx (nas, i);
            if (strcmp (ccas_json_str (a, "name"), na) != 0)
                continue;
            if (record) {
                fx_merge (ccas_json_get (a, "nodearray"), fields);
                found = true;
                continue;
            }
            if (!mt[0]) {
                fx_merge (a, fields);
                found = true;
                continue;
            }
            json_object *bs = ccas_json_get (a, "buckets");
            for (size_t j = 0; j < json_object_array_length (bs); j++) {
                json_object *b = json_object_array_get_idx (bs, j);
                if (strcmp (ccas_json_str (ccas_json_get (b, "definition"), "machineType"), mt) == 0) {
                    fx_merge (b, fields);
                    found = true;
                }
            }
        }
        if (!found)
            fail_msg ("patch: no '%s' in the status", key);
    }
    json_object_put (p);
}

/* The status in data file `name`, patched.  Caller frees with ccas_status_destroy(). */
static inline struct ccas_status *fx_status (const char *name, const char *patch)
{
    struct ccas_error err = {""};
    json_object *root = fx_load (name);
    fx_patch_status (root, patch);
    struct ccas_status *st = ccas_status_from_json (root, "test", &err);
    if (!st)
        fail_msg ("%s", err.text);
    return st;
}

/* Node records from a JSON array (NULL: none): NodeId defaults to the
 * Name, Status to Ready, TargetState to Started; a Ready node gets an
 * address and a hostname unless it has them.  Caller frees the list. */
static inline struct ccas_record_list *fx_nodes (const char *text)
{
    struct ccas_error err = {""};
    json_object *arr = fx_parse (text ? text : "[]");
    for (size_t i = 0; i < json_object_array_length (arr); i++) {
        json_object *n = json_object_array_get_idx (arr, i);
        const char *name = ccas_json_str (n, "Name");
        char ip[32];
        if (!json_object_object_get (n, "NodeId") && name)
            json_object_object_add (n, "NodeId", json_object_new_string (name));
        if (!json_object_object_get (n, "Status"))
            json_object_object_add (n, "Status", json_object_new_string ("Ready"));
        if (!json_object_object_get (n, "TargetState"))
            json_object_object_add (n, "TargetState", json_object_new_string ("Started"));
        if (strcmp (ccas_json_str (n, "Status"), "Ready") == 0 && name) {
            snprintf (ip, sizeof (ip), "10.0.0.%zu", i + 4);
            if (!json_object_object_get (n, "PrivateIp"))
                json_object_object_add (n, "PrivateIp", json_object_new_string (ip));
            if (!json_object_object_get (n, "Hostname"))
                json_object_object_add (n, "Hostname", json_object_new_string (name));
        }
    }
    json_object *root = json_object_new_object ();
    json_object_object_add (root, "nodes", arr);
    struct ccas_record_list *l = ccas_record_list_from_json (root, &err);
    if (!l)
        fail_msg ("%s", err.text);
    return l;
}

/* A cluster of status file `name` patched with `patch` and the node
 * records `nodes` (NULL: none), under `cfg` (borrowed). */
static inline struct ccas_cluster *fx_cluster (const struct ccas_config *cfg, const char *name,
                                               const char *patch, const char *nodes)
{
    struct ccas_error err = {""};
    struct ccas_cluster *c = ccas_cluster_create (cfg, fx_status (name, patch), fx_nodes (nodes), &err);
    if (!c)
        fail_msg ("%s", err.text);
    return c;
}

static inline struct ccas_bucket *fx_bucket (const struct ccas_cluster *c, const char *na, const char *mt)
{
    struct ccas_bucket *b = ccas_cluster_bucket (c, na, mt);
    if (!b)
        fail_msg ("no bucket %s/%s", na, mt);
    return b;
}

static inline struct ccas_node *fx_node (const struct ccas_cluster *c, const char *name)
{
    struct ccas_node *n = ccas_cluster_find_node (c, name);
    if (!n)
        fail_msg ("no node %s", name);
    return n;
}

/* A fresh directory for a test's state files, made from `tmpl` (a mkdtemp
 * template, XXXXXX at the end, overwritten); fails the test if it cannot. */
static inline void fx_dir_make (char *tmpl)
{
    if (!mkdtemp (tmpl))
        fail_msg ("mkdtemp %s failed", tmpl);
}

/* Removes the files a test left in `dir` (no subfolders), then `dir`. */
static inline void fx_dir_remove (const char *dir)
{
    DIR *d = opendir (dir);
    struct dirent *e;
    char path[512];
    while (d && (e = readdir (d)) != NULL) {
        if (strcmp (e->d_name, ".") == 0 || strcmp (e->d_name, "..") == 0)
            continue;
        snprintf (path, sizeof (path), "%s/%s", dir, e->d_name);
        unlink (path);
    }
    if (d)
        closedir (d);
    rmdir (dir);
}

#endif /* !CCAS_TEST_FIXTURE_H */
