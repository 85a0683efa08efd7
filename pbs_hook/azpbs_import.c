/* SPDX-License-Identifier: MIT */
/* azpbs_import.c: azpbs's autoscale.json, key by key, into ccautoscale's, with a note for each. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "azpbs_import.h"
#include "util/json.h"

/* Resources every join sets itself, and PBS's own: never in pbs.node_resources. */
static const char *const join_sets[] = {"vm_size",  "nodearray", "group_id", "ungrouped", "instance_id",
                                        "ccnodeid", "host",      "vnode",    NULL};

/* Keys of azpbs and scalelib that are theirs alone. */
static const char *const azpbs_own[] = {
    "output_columns", "output-columns",  "read_only",        "include",   "cache_root",
    "cycleserver",    "node_list",       "cluster_response", "autoscale", "_mock_bindings",
    "_mimic_on_prem", "_node-overrides", "statsd",           "pbs",       NULL};

static bool listed (const char *const *names, const char *name)
{
    for (size_t i = 0; names[i]; i++)
        if (strcmp (names[i], name) == 0)
            return true;
    return false;
}

static void note (json_object *notes, const char *key, const char *what, const char *fmt, ...)
    __attribute__ ((format (printf, 4, 5)));

static void note (json_object *notes, const char *key, const char *what, const char *fmt, ...)
{
    char why[1024];
    va_list ap;
    va_start (ap, fmt);
    vsnprintf (why, sizeof (why), fmt, ap);
    va_end (ap);
    json_object *n = json_object_new_object ();
    json_object_object_add (n, "key", json_object_new_string (key));
    json_object_object_add (n, "what", json_object_new_string (what));
    json_object_object_add (n, "why", json_object_new_string (why));
    json_object_array_add (notes, n);
}

static json_object *copy (json_object *v)
{
    json_object *c = NULL;
    return json_object_deep_copy (v, &c, NULL) == 0 ? c : NULL;
}

int ccas_azpbs_regex (const char *python, char *buf, size_t size)
{
    static const struct {
        char esc;
        const char *posix;
    } classes[] = {
        {'d', "[0-9]"},         {'D', "[^0-9]"},      {'w', "[A-Za-z0-9_]"},
        {'W', "[^A-Za-z0-9_]"}, {'s', "[[:space:]]"}, {'S', "[^[:space:]]"},
    };
    size_t o = 0;
    for (const char *p = python; *p; p++) {
        char piece[32] = {*p, '\0'};
        if (p[0] == '(' && p[1] == '?')
            return -1; /* (?:...), lookarounds, flags */
        if ((p[0] == '*' || p[0] == '+' || p[0] == '?' || p[0] == '}') && (p[1] == '?' || p[1] == '+'))
            return -1; /* non-greedy or possessive */
        if (p[0] == '\\' && p[1]) {
            snprintf (piece, sizeof (piece), "\\%c", p[1]);
            for (size_t i = 0; i < sizeof (classes) / sizeof (classes[0]); i++)
                if (p[1] == classes[i].esc)
                    snprintf (piece, sizeof (piece), "%s", classes[i].posix);
            if ((p[1] >= 'a' && p[1] <= 'z' && !strchr ("dws", p[1])) ||
                (p[1] >= 'A' && p[1] <= 'Z' && !strchr ("DWS", p[1])))
                return -1; /* \b, \A, \Z, \n ...: no POSIX spelling */
            p++;
        }
        size_t n = strlen (piece);
        if (o + n + 1 > size)
            return -1;
        memcpy (buf + o, piece, n);
        o += n;
    }
    buf[o] = '\0';
    return 0;
}

/* A number of seconds as azpbs took it: a number, or a string of one. */
static bool seconds (json_object *v, double *out)
{
    if (json_object_is_type (v, json_type_int) || json_object_is_type (v, json_type_double)) {
        *out = json_object_get_double (v);
        return *out >= 0;
    }
    if (json_object_is_type (v, json_type_string)) {
        char *end;
        const char *s = json_object_get_string (v);
        *out = strtod (s, &end);
        return *s && !*end && *out >= 0;
    }
    return false;
}

static void add_number (json_object *o, const char *key, double v)
{
    if (v == (double)(long long)v)
        json_object_object_add (o, key, json_object_new_int64 ((long long)v));
    else
        json_object_object_add (o, key, json_object_new_double (v));
}

/* idle_timeout, boot_timeout: a number, a string of one, or {"default": n, "<nodearray>": n}. */
static void timeout (json_object *out, json_object *notes, const char *key, json_object *v)
{
    double s;
    if (seconds (v, &s)) {
        add_number (out, key, s);
        note (notes, key, json_object_is_type (v, json_type_string) ? CCAS_AZPBS_CHANGED : CCAS_AZPBS_CARRIED,
              "%g s", s);
        return;
    }
    if (!json_object_is_type (v, json_type_object)) {
        note (notes, key, CCAS_AZPBS_DROPPED,
              "'%s' is not a number of seconds; ccautoscale's default applies", json_object_get_string (v));
        return;
    }
    json_object *m = json_object_new_object ();
    json_object_object_foreach (v, na, x)
    {
        char sub[256];
        snprintf (sub, sizeof (sub), "%s.%s", key, na);
        if (seconds (x, &s))
            add_number (m, na, s);
        else
            note (notes, sub, CCAS_AZPBS_DROPPED, "'%s' is not a number of seconds",
                  x ? json_object_get_string (x) : "null");
    }
    if (json_object_object_length (m)) {
        json_object_object_add (out, key, m);
        note (notes, key, CCAS_AZPBS_CARRIED, "per nodearray, with its default");
    } else
        json_object_put (m);
}

/* A regular expression of azpbs's as one of ccautoscale's, or NULL (noted). */
static json_object *regex_of (json_object *notes, const char *key, const char *python)
{
    char posix[1024];
    if (ccas_azpbs_regex (python, posix, sizeof (posix)) < 0) {
        note (notes, key, CCAS_AZPBS_DROPPED,
              "'%s' uses what POSIX regular expressions cannot say; write it again as one (POSIX extended)",
              python);
        return NULL;
    }
    return json_object_new_string (posix);
}

static void valid_hostnames (json_object *pbs, json_object *notes, json_object *v)
{
    json_object *list = json_object_new_array ();
    if (json_object_is_type (v, json_type_string)) {
        const char *s = json_object_get_string (v);
        if (strcmp (s, ".+") == 0 || strcmp (s, ".*") == 0 || !*s) {
            note (notes, "valid_hostnames", CCAS_AZPBS_DROPPED,
                  "'%s' lets every hostname join, ccautoscale's default (azpbs read the string as the "
                  "expressions of its characters, '.' and '+': every hostname passed)",
                  s);
            json_object_put (list);
            return;
        }
        json_object *r = regex_of (notes, "valid_hostnames", s);
        if (r)
            json_object_array_add (list, r);
        note (notes, "valid_hostnames", CCAS_AZPBS_CHANGED,
              "pbs.valid_hostnames: the string taken as one expression (azpbs read each character as one)");
    } else if (json_object_is_type (v, json_type_array)) {
        for (size_t i = 0; i < json_object_array_length (v); i++) {
            json_object *e = json_object_array_get_idx (v, i);
            json_object *r = e && json_object_is_type (e, json_type_string)
                                 ? regex_of (notes, "valid_hostnames", json_object_get_string (e))
                                 : NULL;
            if (r)
                json_object_array_add (list, r);
        }
        note (notes, "valid_hostnames", CCAS_AZPBS_CHANGED, "pbs.valid_hostnames (matched from the start)");
    } else
        note (notes, "valid_hostnames", CCAS_AZPBS_DROPPED, "neither a string nor a list");
    if (json_object_array_length (list))
        json_object_object_add (pbs, "valid_hostnames", list);
    else
        json_object_put (list);
}

/* A list of names as azpbs took it: an array of strings or "a,b" (its str_list). */
static json_object *names_of (json_object *v)
{
    json_object *list = json_object_new_array ();
    if (json_object_is_type (v, json_type_array)) {
        for (size_t i = 0; i < json_object_array_length (v); i++) {
            json_object *e = json_object_array_get_idx (v, i);
            if (e && json_object_is_type (e, json_type_string) && *json_object_get_string (e))
                json_object_array_add (list, json_object_new_string (json_object_get_string (e)));
        }
    } else if (json_object_is_type (v, json_type_string)) {
        char buf[2048];
        char *save = NULL;
        snprintf (buf, sizeof (buf), "%s", json_object_get_string (v));
        for (char *t = strtok_r (buf, ",", &save); t; t = strtok_r (NULL, ",", &save))
            if (*t)
                json_object_array_add (list, json_object_new_string (t));
    }
    return list;
}

static void pbspro (json_object *pbs, json_object *notes, json_object *v, json_object **read_only)
{
    if (!json_object_is_type (v, json_type_object)) {
        note (notes, "pbspro", CCAS_AZPBS_DROPPED, "not an object");
        return;
    }
    json_object_object_foreach (v, key, x)
    {
        char name[256];
        snprintf (name, sizeof (name), "pbspro.%s", key);
        if (strcmp (key, "ignore_queues") == 0) {
            json_object *q = names_of (x);
            note (notes, name, CCAS_AZPBS_CHANGED, "pbs.ignore_queues: %s",
                  json_object_array_length (q) ? json_object_to_json_string_ext (q, JSON_C_TO_STRING_PLAIN)
                                               : "none");
            json_object_object_add (pbs, "ignore_queues", q);
        } else if (strcmp (key, "read_only_resources") == 0) {
            json_object_put (*read_only);
            *read_only = names_of (x);
            note (notes, name, CCAS_AZPBS_CHANGED, "%s: never set on a vnode: left out of pbs.node_resources",
                  json_object_to_json_string_ext (*read_only, JSON_C_TO_STRING_PLAIN));
        } else if (strcmp (key, "ignore_onprem") == 0) {
            note (notes, name, CCAS_AZPBS_DROPPED,
                  "ccautoscale never counts a vnode outside CycleCloud as capacity, which is what the option "
                  "meant (azpbs's code skipped the vnodes that have a ccnodeid instead); with %s azpbs let "
                  "jobs "
                  "an idle on-premises vnode could run make no VM, where ccautoscale makes one, given back "
                  "after "
                  "idle_timeout",
                  x && json_object_get_boolean (x) ? "true" : "false");
        } else if (strcmp (key, "ignore_hostnames_re") == 0 && x &&
                   json_object_is_type (x, json_type_string)) {
            json_object *r = regex_of (notes, name, json_object_get_string (x));
            if (r) {
                json_object_object_add (pbs, "ignore_hostnames", r);
                note (notes, name, CCAS_AZPBS_CHANGED, "pbs.ignore_hostnames '%s' (matched from the start)",
                      json_object_get_string (r));
            }
        } else
            note (notes, name, CCAS_AZPBS_UNKNOWN, "not a pbspro key ccautoscale knows; left out");
    }
}

static void nodearrays (json_object *out, json_object *notes, json_object *v)
{
    static const char *const pg_keys[] = {"placement_groups", "max_placement_groups",
                                          "generated_placement_group_buffer", NULL};
    if (!json_object_is_type (v, json_type_object)) {
        note (notes, "nodearrays", CCAS_AZPBS_DROPPED, "not an object");
        return;
    }
    json_object *nas = json_object_new_object ();
    json_object_object_foreach (v, na, x)
    {
        char name[256];
        snprintf (name, sizeof (name), "nodearrays.%s", na);
        if (!x || !json_object_is_type (x, json_type_object)) {
            note (notes, name, CCAS_AZPBS_DROPPED, "not an object");
            continue;
        }
        json_object *set = json_object_new_object ();
        json_object_object_foreach (x, key, y)
        {
            char sub[300];
            double s;
            snprintf (sub, sizeof (sub), "%s.%s", name, key);
            if ((strcmp (key, "idle_timeout") == 0 || strcmp (key, "boot_timeout") == 0) && seconds (y, &s))
                add_number (set, key, s);
            else if (listed (pg_keys, key))
                note (notes, sub, CCAS_AZPBS_DROPPED,
                      "ccautoscale makes and names a placement group for the jobs that need one (at most "
                      "maxPlacementGroupSize each), and nodearrays.%s.colocated says where they go",
                      na);
            else
                note (notes, sub, CCAS_AZPBS_UNKNOWN, "not a nodearray setting ccautoscale knows; left out");
        }
        if (json_object_object_length (set) && strcmp (na, "default") != 0) {
            json_object_object_add (nas, na, set);
            note (notes, name, CCAS_AZPBS_CARRIED, "its idle_timeout and boot_timeout");
        } else {
            if (json_object_object_length (set))
                note (notes, name, CCAS_AZPBS_DROPPED,
                      "scalelib's defaults for every nodearray: set idle_timeout and boot_timeout instead");
            json_object_put (set);
        }
    }
    if (json_object_object_length (nas))
        json_object_object_add (out, "nodearrays", nas);
    else
        json_object_put (nas);
}

/* pbs.node_resources: the resources azpbs's default_resources set on a vnode,
 * in order, less the read-only ones and those every join sets itself. */
static void node_resources (json_object *pbs, json_object *notes, json_object *rules, json_object *read_only)
{
    json_object *names = json_object_new_array ();
    for (size_t i = 0; rules && i < json_object_array_length (rules); i++) {
        const char *n = ccas_json_str (json_object_array_get_idx (rules, i), "name");
        bool seen = !n || listed (join_sets, n);
        for (size_t k = 0; read_only && !seen && k < json_object_array_length (read_only); k++)
            seen = strcmp (json_object_get_string (json_object_array_get_idx (read_only, k)), n) == 0;
        for (size_t k = 0; !seen && k < json_object_array_length (names); k++)
            seen = strcmp (json_object_get_string (json_object_array_get_idx (names, k)), n) == 0;
        if (!seen)
            json_object_array_add (names, json_object_new_string (n));
    }
    if (!json_object_array_length (names)) {
        json_object_put (names);
        return;
    }
    note (
        notes, "pbs.node_resources", CCAS_AZPBS_CHANGED,
        "%s: what default_resources set on a vnode (vm_size, nodearray, group_id, ungrouped, instance_id and "
        "ccnodeid every join sets)",
        json_object_to_json_string_ext (names, JSON_C_TO_STRING_PLAIN));
    json_object_object_add (pbs, "node_resources", names);
}

static const char *const required[] = {"url", "username", "password", "cluster_name", NULL};

json_object *ccas_azpbs_import (json_object *azpbs, json_object *notes, struct ccas_error *err)
{
    if (!azpbs || !json_object_is_type (azpbs, json_type_object)) {
        ccas_errorf (err, "expected a JSON object at the top");
        return NULL;
    }
    for (size_t i = 0; required[i]; i++) {
        json_object *v = ccas_json_get (azpbs, required[i]);
        if (!v || !json_object_is_type (v, json_type_string))
            return ccas_errorf (err, "%s: missing, or not a string: ccautoscale needs it", required[i]), NULL;
    }
    json_object *out = json_object_new_object ();
    json_object *pbs = json_object_new_object ();
    json_object *read_only = json_tokener_parse ("[\"host\", \"vnode\"]");
    json_object_object_foreach (azpbs, key, v)
    {
        if (listed (required, key)) {
            json_object_object_add (out, key, copy (v));
            note (notes, key, CCAS_AZPBS_CARRIED, "%s",
                  strcmp (key, "password") == 0 ? "(the file is written mode 0600)" : "");
        } else if (strcmp (key, "verify_certificates") == 0 && v &&
                   json_object_is_type (v, json_type_boolean)) {
            json_object_object_add (out, key, json_object_new_boolean (json_object_get_boolean (v)));
            note (notes, key, CCAS_AZPBS_CARRIED, "%s", json_object_get_boolean (v) ? "true" : "false");
        } else if (strcmp (key, "default_resources") == 0 && v && json_object_is_type (v, json_type_array)) {
            json_object_object_add (out, key, copy (v));
            note (notes, key, CCAS_AZPBS_CARRIED, "%zu rules, in order", json_object_array_length (v));
        } else if (strcmp (key, "disable_default_resources") == 0 && v &&
                   json_object_is_type (v, json_type_boolean)) {
            json_object_object_add (out, key, json_object_new_boolean (json_object_get_boolean (v)));
            note (notes, key, CCAS_AZPBS_CARRIED, "%s", json_object_get_boolean (v) ? "true" : "false");
        } else if ((strcmp (key, "idle_timeout") == 0 || strcmp (key, "boot_timeout") == 0) && v)
            timeout (out, notes, key, v);
        else if (strcmp (key, "pbspro") == 0 && v)
            pbspro (pbs, notes, v, &read_only);
        else if (strcmp (key, "valid_hostnames") == 0 && v)
            valid_hostnames (pbs, notes, v);
        else if (strcmp (key, "nodearrays") == 0 && v)
            nodearrays (out, notes, v);
        else if (strcmp (key, "lock_file") == 0)
            note (
                notes, key, CCAS_AZPBS_DROPPED,
                "'%s' is azpbs's lock; ccautoscale takes its own (lock_file, default /run/ccautoscale.lock)",
                v ? json_object_get_string (v) : "null");
        else if (strcmp (key, "logging") == 0 && v && json_object_is_type (v, json_type_object)) {
            json_object_object_foreach (v, lkey, lv)
            {
                char name[256];
                snprintf (name, sizeof (name), "logging.%s", lkey);
                if (strcmp (lkey, "config_file") == 0)
                    note (notes, name, CCAS_AZPBS_DROPPED,
                          "'%s' is a Python logging INI; ccautoscale logs to syslog, and to logging.file "
                          "when set "
                          "(logging.level says how much)",
                          lv ? json_object_get_string (lv) : "null");
                else
                    note (notes, name, CCAS_AZPBS_UNKNOWN, "not a logging key ccautoscale knows; left out");
            }
        } else if (strcmp (key, "nodehistorydb") == 0)
            note (notes, key, CCAS_AZPBS_DROPPED,
                  "azpbs's node history; 'ccautoscale pbs install-hook' imports the VMs it kept out of PBS "
                  "(remove_nodes --permanent) from it (--azpbs-history)");
        else if (listed (azpbs_own, key))
            note (notes, key, CCAS_AZPBS_DROPPED, "azpbs's own; nothing here reads it");
        else
            note (notes, key, CCAS_AZPBS_UNKNOWN, "not a key of azpbs's that ccautoscale knows; left out");
    }
    if (!ccas_json_get (azpbs, "verify_certificates"))
        note (notes, "verify_certificates", CCAS_AZPBS_CHANGED,
              "ccautoscale verifies CycleCloud's TLS certificate; azpbs did not (scalelib sets "
              "verify_certificates false when the file does not say): for a self-signed certificate give "
              "ca_file its CA, or set verify_certificates false to do as azpbs did (a warning is logged)");
    node_resources (pbs, notes, ccas_json_get (azpbs, "default_resources"), read_only);
    json_object_put (read_only);
    if (json_object_object_length (pbs))
        json_object_object_add (out, "pbs", pbs);
    else
        json_object_put (pbs);
    return out;
}
