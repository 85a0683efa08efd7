/* SPDX-License-Identifier: MIT */
/* conf.c: load autoscale.json through the key table, fill defaults, check modes. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ccapi.h"
#include "conf.h"
#include "conf_keys.h"
#include "jsonutil.h"
#include "log.h"
#include "secret.h"

#define CONFIG_MAX_BYTES (16 * 1024 * 1024)

static const struct config_key *find_key (const char *pattern)
{
    for (size_t i = 0; i < ccas_config_table_len; i++)
        if (strcmp (ccas_config_table[i].name, pattern) == 0)
            return &ccas_config_table[i];
    return NULL;
}

static bool bounded (const struct config_key *k)
{
    return k->min <= k->max;
}

static int check_number (const struct config_key *k, json_object *val, const char *path,
                         bool want_int, struct ccas_error *err)
{
    char brief[64];
    json_type t = json_object_get_type (val);
    if (t != json_type_int && t != json_type_double)
        return ccas_errorf (err, "%s: expected %s, got %s", path, want_int ? "an integer" : "a number",
                            ccas_json_brief (val, brief, sizeof (brief)));
    double d = json_object_get_double (val);
    if (want_int && (t == json_type_double && d != floor (d)))
        return ccas_errorf (err, "%s: expected an integer, got %s", path,
                            ccas_json_brief (val, brief, sizeof (brief)));
    if (!isfinite (d))
        return ccas_errorf (err, "%s: expected a finite number", path);
    if (bounded (k) && (d < k->min || d > k->max))
        return ccas_errorf (err, "%s: %s is out of range [%g, %g]", path,
                            ccas_json_brief (val, brief, sizeof (brief)), k->min, k->max);
    return 0;
}

static int check_choice (const struct config_key *k, const char *s, const char *path,
                         struct ccas_error *err)
{
    size_t n = strlen (s);
    const char *p = k->choices;
    while (p && *p) {
        const char *bar = strchr (p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen (p);
        if (len == n && strncmp (p, s, n) == 0)
            return 0;
        p = bar ? bar + 1 : NULL;
    }
    return ccas_errorf (err, "%s: '%s' is not one of %s", path, s, k->choices);
}

static int validate_object (json_object *obj, const char *path, const char *pattern,
                            bool is_map, struct ccas_error *err);

static int validate_value (const struct config_key *k, json_object *val, const char *path,
                           const char *pattern, struct ccas_error *err)
{
    char brief[64];
    json_type t = json_object_get_type (val);

    switch (k->type) {
    case KEY_STRING:
        if (t != json_type_string)
            return ccas_errorf (err, "%s: expected a string, got %s", path,
                                k->secret ? ccas_json_type_name (val)
                                          : ccas_json_brief (val, brief, sizeof (brief)));
        if (k->choices)
            return check_choice (k, json_object_get_string (val), path, err);
        return 0;
    case KEY_BOOL:
        if (t != json_type_boolean)
            return ccas_errorf (err, "%s: expected true or false, got %s", path,
                                ccas_json_brief (val, brief, sizeof (brief)));
        return 0;
    case KEY_INT:
        return check_number (k, val, path, true, err);
    case KEY_NUMBER:
        return check_number (k, val, path, false, err);
    case KEY_SECONDS_MAP:
        if (t != json_type_object)
            return check_number (k, val, path, false, err);
        json_object_object_foreach (val, name, v) {
            char sub[512];
            ccas_json_path_key (sub, sizeof (sub), path, name);
            if (check_number (k, v, sub, false, err) < 0)
                return -1;
        }
        return 0;
    case KEY_ARRAY:
        if (t != json_type_array)
            return ccas_errorf (err, "%s: expected an array, got %s", path,
                                ccas_json_brief (val, brief, sizeof (brief)));
        return 0;
    case KEY_STRING_LIST:
        if (t != json_type_array)
            return ccas_errorf (err, "%s: expected an array of strings, got %s", path,
                                ccas_json_brief (val, brief, sizeof (brief)));
        for (size_t i = 0; i < json_object_array_length (val); i++) {
            json_object *e = json_object_array_get_idx (val, i);
            if (!json_object_is_type (e, json_type_string))
                return ccas_errorf (err, "%s[%zu]: expected a string, got %s", path, i,
                                    ccas_json_brief (e, brief, sizeof (brief)));
        }
        return 0;
    case KEY_INT_MAP:
        if (t != json_type_object)
            return ccas_errorf (err, "%s: expected an object, got %s", path,
                                ccas_json_brief (val, brief, sizeof (brief)));
        json_object_object_foreach (val, name2, v2) {
            char sub[512];
            ccas_json_path_key (sub, sizeof (sub), path, name2);
            if (check_number (k, v2, sub, true, err) < 0)
                return -1;
        }
        return 0;
    case KEY_SECTION:
    case KEY_MAP:
        if (t != json_type_object)
            return ccas_errorf (err, "%s: expected an object, got %s", path,
                                ccas_json_brief (val, brief, sizeof (brief)));
        return validate_object (val, path, pattern, k->type == KEY_MAP, err);
    case KEY_OPEN:
        return 0;
    }
    CCAS_BUG ("unhandled key type %d", (int)k->type);
}

/* Walk the members of a section.  `pattern` is the path with map names
 * replaced by "*", which is how the table spells them. */
static int validate_object (json_object *obj, const char *path, const char *pattern,
                            bool is_map, struct ccas_error *err)
{
    json_object_object_foreach (obj, name, val) {
        char subpath[512], subpattern[512];
        ccas_json_path_key (subpath, sizeof (subpath), path, name);
        ccas_json_path_key (subpattern, sizeof (subpattern), pattern, is_map ? "*" : name);
        const struct config_key *k = find_key (subpattern);
        if (!k)
            return ccas_errorf (err, "%s: unknown key", subpath);
        if (!val)
            return ccas_errorf (err, "%s: null is not a value; remove the key for the default", subpath);
        if (validate_value (k, val, subpath, subpattern, err) < 0)
            return -1;
    }
    return 0;
}

/* Insert defaults for absent keys, creating sections on the way.  Keys under
 * a map ("*") have no defaults: their absence means "inherit". */
static void fill_defaults (json_object *root)
{
    for (size_t i = 0; i < ccas_config_table_len; i++) {
        const struct config_key *k = &ccas_config_table[i];
        if (!k->dflt || strchr (k->name, '*'))
            continue;
        char name[256];
        snprintf (name, sizeof (name), "%s", k->name);
        json_object *parent = root;
        char *save = NULL;
        char *part = strtok_r (name, ".", &save);
        char *next;
        while ((next = strtok_r (NULL, ".", &save))) {
            parent = ccas_json_get (parent, part);
            if (!parent)
                break;
            part = next;
        }
        if (parent && !ccas_json_get (parent, part))
            json_object_object_add (parent, part, json_tokener_parse (k->dflt));
    }
}

json_object *ccas_config_lookup (const struct ccas_config *cfg, const char *dotted)
{
    char name[256];
    json_object *obj = cfg->root;
    char *save = NULL;
    snprintf (name, sizeof (name), "%s", dotted);
    for (char *part = strtok_r (name, ".", &save); part && obj; part = strtok_r (NULL, ".", &save))
        obj = ccas_json_get (obj, part);
    return obj;
}

const char *ccas_config_lookup_str (const struct ccas_config *cfg, const char *dotted)
{
    json_object *v = ccas_config_lookup (cfg, dotted);
    return v && json_object_is_type (v, json_type_string) ? json_object_get_string (v) : NULL;
}

double ccas_config_lookup_double (const struct ccas_config *cfg, const char *dotted, double dflt)
{
    json_object *v = ccas_config_lookup (cfg, dotted);
    if (v && (json_object_is_type (v, json_type_int) || json_object_is_type (v, json_type_double)))
        return json_object_get_double (v);
    return dflt;
}

bool ccas_config_lookup_bool (const struct ccas_config *cfg, const char *dotted, bool dflt)
{
    json_object *v = ccas_config_lookup (cfg, dotted);
    return v && json_object_is_type (v, json_type_boolean) ? json_object_get_boolean (v) : dflt;
}

/* Copy the password out of the document, burn the copy json-c holds, and
 * leave a mask in its place so no later rendering can reveal it. */
static char *take_password (json_object *root)
{
    json_object *val = ccas_json_get (root, "password");
    if (!val)
        return NULL;
    char *s = (char *)json_object_get_string (val);
    char *copy = strdup (s);
    ccas_secret_burn (s, strlen (s));
    json_object_set_string (val, "****");
    return copy;
}

static int check_required (struct ccas_config *cfg, struct ccas_error *err)
{
    static const char *const required[] = { "url", "username", "cluster_name" };
    for (size_t i = 0; i < sizeof (required) / sizeof (required[0]); i++)
        if (!ccas_json_get (cfg->root, required[i]))
            return ccas_errorf (err, "%s: required key is missing", required[i]);
    if (!ccas_json_get (cfg->root, "password") && !ccas_json_get (cfg->root, "password_file"))
        return ccas_errorf (err, "password: set password or password_file");
    if (ccas_json_get (cfg->root, "password") && ccas_json_get (cfg->root, "password_file"))
        return ccas_errorf (err, "password_file: set password or password_file, not both");
    const char *url = ccas_config_lookup_str (cfg, "url");
    if (strncmp (url, "https://", 8) != 0 && strncmp (url, "http://", 7) != 0)
        return ccas_errorf (err, "url: '%s' must start with https:// or http://", url);
    if (strchr (url, '@'))
        return ccas_errorf (err, "url: must not contain credentials; use username and password");
    return 0;
}

static void read_fields (struct ccas_config *cfg)
{
    cfg->url = ccas_config_lookup_str (cfg, "url");
    cfg->username = ccas_config_lookup_str (cfg, "username");
    cfg->password_file = ccas_config_lookup_str (cfg, "password_file");
    cfg->cluster_name = ccas_config_lookup_str (cfg, "cluster_name");
    cfg->verify_certificates = ccas_config_lookup_bool (cfg, "verify_certificates", true);
    cfg->ca_file = ccas_config_lookup_str (cfg, "ca_file");
    cfg->connect_timeout = ccas_config_lookup_double (cfg, "connect_timeout", 10);
    cfg->request_timeout = ccas_config_lookup_double (cfg, "request_timeout", 60);
    cfg->retries = (int)ccas_config_lookup_double (cfg, "retries", 4);
    cfg->retry_after_max = ccas_config_lookup_double (cfg, "retry_after_max", 30);
    cfg->max_response_mb = (int64_t)ccas_config_lookup_double (cfg, "max_response_mb", 256);
    cfg->log_level = ccas_config_lookup_str (cfg, "logging.level");
    cfg->log_file = ccas_config_lookup_str (cfg, "logging.file");
    cfg->log_syslog = ccas_config_lookup_bool (cfg, "logging.syslog", true);
    cfg->state_dir = ccas_config_lookup_str (cfg, "state_dir");
    cfg->lock_file = ccas_config_lookup_str (cfg, "lock_file");
    cfg->capacity_failure_backoff = ccas_config_lookup_double (cfg, "capacity_failure_backoff", 300);
    cfg->default_resources = ccas_config_lookup (cfg, "default_resources");
    cfg->disable_default_resources = ccas_config_lookup_bool (cfg, "disable_default_resources", false);
    cfg->gpu_counts = ccas_config_lookup (cfg, "gpu_counts");
    cfg->nodearrays = ccas_config_lookup (cfg, "nodearrays");
    cfg->slurm = ccas_config_lookup (cfg, "slurm");
    cfg->pbs = ccas_config_lookup (cfg, "pbs");
}

struct ccas_config *ccas_config_from_json (json_object *root, const char *origin,
                                           struct ccas_error *err)
{
    struct ccas_config *cfg = NULL;
    char brief[64];

    if (!root || !json_object_is_type (root, json_type_object)) {
        ccas_errorf (err, "%s: expected a JSON object at the top, got %s", origin,
                     root ? ccas_json_brief (root, brief, sizeof (brief)) : "null");
        goto error;
    }
    if (!(cfg = calloc (1, sizeof (*cfg)))) {
        ccas_errorf (err, "%s: out of memory", origin);
        goto error;
    }
    cfg->root = root;
    if (!(cfg->path = strdup (origin))) {
        ccas_errorf (err, "%s: out of memory", origin);
        goto error;
    }
    if (validate_object (root, "", "", false, err) < 0 || check_required (cfg, err) < 0) {
        ccas_error_prefix (err, "%s", origin);
        goto error;
    }
    fill_defaults (root);
    cfg->password = take_password (root);
    read_fields (cfg);
    return cfg;
error:
    if (cfg)
        ccas_config_destroy (cfg);
    else
        json_object_put (root);
    return NULL;
}

struct ccas_config *ccas_config_load (const char *path, struct ccas_error *err)
{
    /* the password is in memory from the moment the file is read */
    ccas_secret_no_dump ();
    size_t len;
    char *text = ccas_read_file (path, CONFIG_MAX_BYTES, &len, err);
    if (!text)
        return NULL;
    json_object *root = ccas_json_parse (text, len, path, err);
    ccas_secret_burn (text, len);
    free (text);
    if (!root)
        return NULL;
    /* Check the mode before anything else reads the password. */
    if (ccas_json_get (root, "password")
        && ccas_secret_check_mode (path, "a password", err) < 0) {
        json_object *pw = ccas_json_get (root, "password");
        if (json_object_is_type (pw, json_type_string)) {
            char *s = (char *)json_object_get_string (pw);
            ccas_secret_burn (s, strlen (s));
        }
        json_object_put (root);
        return NULL;
    }
    struct ccas_config *cfg = ccas_config_from_json (root, path, err);
    if (!cfg)
        return NULL;
    if (cfg->password_file) {
        cfg->password = ccas_secret_read_file (cfg->password_file, err);
        if (!cfg->password) {
            ccas_error_prefix (err, "%s: password_file", path);
            ccas_config_destroy (cfg);
            return NULL;
        }
    }
    ccas_log_add_secret (cfg->password);
    return cfg;
}

void ccas_config_destroy (struct ccas_config *cfg)
{
    if (!cfg)
        return;
    int saved_errno = errno;
    ccas_secret_free (cfg->password);
    json_object_put (cfg->root);
    free ((char *)cfg->path);
    free (cfg);
    errno = saved_errno;
}

static double seconds_for (const struct ccas_config *cfg, const char *key, const char *nodearray,
                           double dflt)
{
    json_object *v = nodearray ? ccas_config_nodearray_get (cfg, nodearray, key) : NULL;
    if (v)
        return json_object_get_double (v);
    v = ccas_json_get (cfg->root, key);
    if (!v)
        return dflt;
    if (!json_object_is_type (v, json_type_object))
        return json_object_get_double (v);
    json_object *m = nodearray ? ccas_json_get (v, nodearray) : NULL;
    if (!m)
        m = ccas_json_get (v, "default");
    return m ? json_object_get_double (m) : dflt;
}

double ccas_config_idle_timeout (const struct ccas_config *cfg, const char *nodearray)
{
    return seconds_for (cfg, "idle_timeout", nodearray, 300);
}

double ccas_config_boot_timeout (const struct ccas_config *cfg, const char *nodearray)
{
    return seconds_for (cfg, "boot_timeout", nodearray, 1800);
}

json_object *ccas_config_nodearray_get (const struct ccas_config *cfg, const char *nodearray,
                                        const char *key)
{
    return ccas_json_get (ccas_json_get (cfg->nodearrays, nodearray), key);
}

json_object *ccas_config_effective (const struct ccas_config *cfg)
{
    json_object *copy = NULL;
    if (json_object_deep_copy (cfg->root, &copy, NULL) < 0)
        return NULL;
    if (ccas_json_get (copy, "password"))
        json_object_object_add (copy, "password", json_object_new_string ("****"));
    return copy;
}

static const char *type_doc (enum config_key_type t)
{
    switch (t) {
    case KEY_STRING:
        return "string";
    case KEY_BOOL:
        return "boolean";
    case KEY_INT:
        return "integer";
    case KEY_NUMBER:
        return "number";
    case KEY_SECONDS_MAP:
        return "seconds, or {\"default\": s, \"<nodearray>\": s}";
    case KEY_ARRAY:
        return "array";
    case KEY_SECTION:
        return "object";
    case KEY_MAP:
        return "object of names";
    case KEY_INT_MAP:
        return "object of name: integer";
    case KEY_STRING_LIST:
        return "array of strings";
    case KEY_OPEN:
        return "object";
    }
    return "?";
}

const struct ccas_config_key_doc *ccas_config_keys (size_t *n)
{
    static struct ccas_config_key_doc docs[128];
    static size_t ndocs;
    if (!ndocs) {
        for (size_t i = 0; i < ccas_config_table_len && i < 128; i++) {
            const struct config_key *k = &ccas_config_table[i];
            docs[i] = (struct ccas_config_key_doc){ k->name, type_doc (k->type), k->dflt, k->doc };
        }
        ndocs = ccas_config_table_len;
    }
    *n = ndocs;
    return docs;
}

void ccas_config_client_opts (const struct ccas_config *cfg, struct ccas_ccapi_opts *opts)
{
    *opts = (struct ccas_ccapi_opts){
        .url = cfg->url,
        .username = cfg->username,
        .password = cfg->password,
        .cluster = cfg->cluster_name,
        .verify_certificates = cfg->verify_certificates,
        .ca_file = cfg->ca_file,
        .connect_timeout_ms = (long)(cfg->connect_timeout * 1000),
        .request_timeout_ms = (long)(cfg->request_timeout * 1000),
        .max_retries = cfg->retries,
        .retry_after_max_ms = (long)(cfg->retry_after_max * 1000),
        .max_response_bytes = (size_t)cfg->max_response_mb * 1024 * 1024,
    };
}
