/* SPDX-License-Identifier: MIT */
/* conf.c: load autoscale.json through the key table, fill defaults, check modes. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ccapi/ccapi.h"
#include "conf/conf.h"
#include "conf/conf_keys.h"
#include "util/file.h"
#include "util/json.h"
#include "util/log.h"
#include "util/secret.h"

#define CONFIG_MAX_BYTES (16 * 1024 * 1024)

static const struct config_key *find_key (const char *pattern)
{
    for (size_t i = 0; i < ccas_conf_keys_count; i++)
        if (strcmp (ccas_conf_keys_table[i].name, pattern) == 0)
            return &ccas_conf_keys_table[i];
    return NULL;
}

static bool bounded (const struct config_key *k)
{
    return k->min <= k->max;
}

static int check_number (const struct config_key *k, json_object *val, const char *path, bool want_int,
                         struct ccas_error *err)
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

/* The names of an enum key's values, "a|b|c", in `buf`. */
static const char *choice_names (const struct config_key *k, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (const struct ccas_conf_choice *c = k->choices; c->name && used < size; c++)
        used += (size_t)snprintf (buf + used, size - used, "%s%s", c == k->choices ? "" : "|", c->name);
    return buf;
}

/* The value an enum key's `name` stands for, or NULL. */
static const struct ccas_conf_choice *find_choice (const struct config_key *k, const char *name)
{
    for (const struct ccas_conf_choice *c = k->choices; c->name; c++)
        if (strcmp (c->name, name) == 0)
            return c;
    return NULL;
}

static int check_choice (const struct config_key *k, json_object *val, const char *path,
                         struct ccas_error *err)
{
    char brief[64], names[256];
    if (!json_object_is_type (val, json_type_string))
        return ccas_errorf (err, "%s: expected one of %s, got %s", path,
                            choice_names (k, names, sizeof (names)),
                            ccas_json_brief (val, brief, sizeof (brief)));
    const char *s = json_object_get_string (val);
    if (!find_choice (k, s))
        return ccas_errorf (err, "%s: '%s' is not one of %s", path, s,
                            choice_names (k, names, sizeof (names)));
    return 0;
}

static int validate_object (json_object *obj, const char *path, const char *pattern, bool is_map,
                            struct ccas_error *err);

static int validate_value (const struct config_key *k, json_object *val, const char *path,
                           const char *pattern, struct ccas_error *err)
{
    char brief[64];
    json_type t = json_object_get_type (val);

    switch (k->type) {
    case KEY_STRING:
        if (t != json_type_string)
            return ccas_errorf (err, "%s: expected a string, got %s", path,
                                (k->flags & KEY_SECRET) ? ccas_json_type_name (val)
                                                        : ccas_json_brief (val, brief, sizeof (brief)));
        return 0;
    case KEY_ENUM:
        return check_choice (k, val, path, err);
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
        json_object_object_foreach (val, name, v)
        {
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
        json_object_object_foreach (val, name2, v2)
        {
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
static int validate_object (json_object *obj, const char *path, const char *pattern, bool is_map,
                            struct ccas_error *err)
{
    json_object_object_foreach (obj, name, val)
    {
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
    for (size_t i = 0; i < ccas_conf_keys_count; i++) {
        const struct config_key *k = &ccas_conf_keys_table[i];
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

/* The value at dotted path `name` of `root`, or NULL. */
static json_object *at_path (json_object *root, const char *name)
{
    char copy[256];
    json_object *obj = root;
    char *save = NULL;
    snprintf (copy, sizeof (copy), "%s", name);
    for (char *part = strtok_r (copy, ".", &save); part && obj; part = strtok_r (NULL, ".", &save))
        obj = ccas_json_get (obj, part);
    return obj;
}

/* Store `val` (validated, may be NULL) in the field at `base` + k->field;
 * `scoped` for keys under a nodearray, whose unset values say "inherit". */
static void bind_one (const struct config_key *k, json_object *val, char *base, bool scoped)
{
    void *at = base + k->field;
    switch (k->type) {
    case KEY_STRING:
        *(const char **)at = val ? json_object_get_string (val) : NULL;
        return;
    case KEY_ENUM: { /* validated, and defaulted or required; never under a nodearray */
        const struct ccas_conf_choice *c = val ? find_choice (k, json_object_get_string (val)) : NULL;
        if (c)
            *(int *)at = c->value;
        else
            CCAS_BUG ("%s: no value after validation and defaults", k->name);
        return;
    }
    case KEY_BOOL:
        if (scoped)
            *(int *)at = val ? json_object_get_boolean (val) : -1;
        else
            *(bool *)at = val && json_object_get_boolean (val);
        return;
    case KEY_INT:
        if (scoped)
            *(double *)at = val ? json_object_get_double (val) : NAN;
        else
            *(int *)at = val ? (int)json_object_get_int64 (val) : 0;
        return;
    case KEY_NUMBER:
        *(double *)at = val ? json_object_get_double (val) : (scoped ? NAN : 0);
        return;
    default:
        *(json_object **)at = val;
        return;
    }
}

#define NODEARRAY_SCOPE "nodearrays.*."

static int bind_nodearrays (struct ccas_config *cfg)
{
    json_object *map = ccas_json_get (cfg->root, "nodearrays");
    size_t n = map ? (size_t)json_object_object_length (map) : 0, i = 0;
    if (!n)
        return 0;
    if (!(cfg->nodearrays = calloc (n, sizeof (*cfg->nodearrays))))
        return -1;
    json_object_object_foreach (map, name, settings)
    {
        struct ccas_nodearray_config *na = &cfg->nodearrays[i++];
        na->name = name;
        for (size_t t = 0; t < ccas_conf_keys_count; t++) {
            const struct config_key *k = &ccas_conf_keys_table[t];
            if (k->field != NO_FIELD && strncmp (k->name, NODEARRAY_SCOPE, strlen (NODEARRAY_SCOPE)) == 0)
                bind_one (k, ccas_json_get (settings, k->name + strlen (NODEARRAY_SCOPE)), (char *)na, true);
        }
    }
    cfg->nnodearrays = n;
    return 0;
}

/* A file key of the events or metrics section: "" turns it off (NULL),
 * absent means state_dir/`dflt`. */
static char *output_path (const char *set, const char *state_dir, const char *dflt)
{
    char buf[4096];
    if (set && !*set)
        return NULL;
    if (set)
        return strdup (set);
    snprintf (buf, sizeof (buf), "%s/%s", state_dir, dflt);
    return strdup (buf);
}

static int bind_fields (struct ccas_config *cfg)
{
    for (size_t t = 0; t < ccas_conf_keys_count; t++) {
        const struct config_key *k = &ccas_conf_keys_table[t];
        if (k->field != NO_FIELD && !strchr (k->name, '*'))
            bind_one (k, at_path (cfg->root, k->name), (char *)cfg, false);
    }
    if (bind_nodearrays (cfg) < 0)
        return -1;
    cfg->events.path = output_path (cfg->events.file, cfg->state_dir, "events.jsonl");
    cfg->metrics.path = output_path (cfg->metrics.file, cfg->state_dir, "ccautoscale.prom");
    if ((!cfg->events.path && !(cfg->events.file && !*cfg->events.file)) ||
        (!cfg->metrics.path && !(cfg->metrics.file && !*cfg->metrics.file)))
        return -1;
    return 0;
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

static void add_warning (struct ccas_config *cfg, const char *text)
{
    char **v = realloc (cfg->warnings, (cfg->nwarnings + 1) * sizeof (*v));
    if (!v)
        return;
    cfg->warnings = v;
    if ((v[cfg->nwarnings] = strdup (text)))
        cfg->nwarnings++;
}

/* The Slurm programs leave idle and boot time to slurmctld (SuspendTime,
 * ResumeTimeout): on a site whose file configures Slurm and not PBS, these
 * keys change nothing, and the file should say so. */
static void check_slurm_only (struct ccas_config *cfg)
{
    static const struct {
        const char *key, *instead;
    } keys[] = {
        {"idle_timeout", "Slurm's SuspendTime decides when an idle node is suspended"},
        {"boot_timeout", "Slurm's ResumeTimeout decides how long a node may take to boot"},
    };
    json_object *root = cfg->root, *nas = ccas_json_get (root, "nodearrays");
    char text[600];
    if (!ccas_json_get (root, "slurm") || ccas_json_get (root, "pbs"))
        return;
    for (size_t k = 0; k < sizeof (keys) / sizeof (keys[0]); k++) {
        if (ccas_json_get (root, keys[k].key)) {
            snprintf (text, sizeof (text),
                      "%s: set on a Slurm-only site (a slurm section, no pbs section), where the Slurm "
                      "programs do not use it: %s",
                      keys[k].key, keys[k].instead);
            add_warning (cfg, text);
        }
        if (!nas || !json_object_is_type (nas, json_type_object))
            continue;
        json_object_object_foreach (nas, name, settings)
        {
            if (ccas_json_get (settings, keys[k].key)) {
                snprintf (
                    text, sizeof (text),
                    "nodearrays.%s.%s: set on a Slurm-only site (a slurm section, no pbs section), where "
                    "the Slurm programs do not use it: %s",
                    name, keys[k].key, keys[k].instead);
                add_warning (cfg, text);
            }
        }
    }
}

/* The keys the table marks required, then what the table cannot say: one
 * of password and password_file, and a url that is one. */
static int check_required (struct ccas_config *cfg, struct ccas_error *err)
{
    for (size_t i = 0; i < ccas_conf_keys_count; i++) {
        const struct config_key *k = &ccas_conf_keys_table[i];
        if ((k->flags & KEY_REQUIRED) && !at_path (cfg->root, k->name))
            return ccas_errorf (err, "%s: required key is missing", k->name);
    }
    if (!ccas_json_get (cfg->root, "password") && !ccas_json_get (cfg->root, "password_file"))
        return ccas_errorf (err, "password: set password or password_file");
    if (ccas_json_get (cfg->root, "password") && ccas_json_get (cfg->root, "password_file"))
        return ccas_errorf (err, "password_file: set password or password_file, not both");
    const char *url = json_object_get_string (ccas_json_get (cfg->root, "url"));
    if (strncmp (url, "https://", 8) != 0 && strncmp (url, "http://", 7) != 0)
        return ccas_errorf (err, "url: '%s' must start with https:// or http://", url);
    if (strchr (url, '@'))
        return ccas_errorf (err, "url: must not contain credentials; use username and password");
    return 0;
}

struct ccas_config *ccas_conf_from_json (json_object *root, const char *origin, struct ccas_error *err)
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
        /* azpbs's file (CycleCloud's stock PBS cluster) is not ccautoscale's */
        if (err && ccas_json_get (root, "pbspro")) {
            char said[sizeof (err->text)];
            memcpy (said, err->text, sizeof (said));
            ccas_errorf (err,
                         "%s (this is azpbs's autoscale.json: 'ccautoscale pbs import-azpbs %s' writes "
                         "ccautoscale's from it)",
                         said, origin);
        }
        goto error;
    }
    check_slurm_only (cfg);
    if (!(cfg->given = calloc (ccas_conf_keys_count, sizeof (*cfg->given)))) {
        ccas_errorf (err, "%s: out of memory", origin);
        goto error;
    }
    for (size_t i = 0; i < ccas_conf_keys_count; i++)
        cfg->given[i] =
            !strchr (ccas_conf_keys_table[i].name, '*') && at_path (root, ccas_conf_keys_table[i].name);
    fill_defaults (root);
    cfg->password = take_password (root);
    if (bind_fields (cfg) < 0) {
        ccas_errorf (err, "%s: out of memory", origin);
        goto error;
    }
    return cfg;
error:
    if (cfg)
        ccas_conf_destroy (cfg);
    else
        json_object_put (root);
    return NULL;
}

struct ccas_config *ccas_conf_load (const char *path, struct ccas_error *err)
{
    /* the password is in memory from the moment the file is read */
    ccas_secret_no_dump ();
    size_t len;
    char *text = ccas_file_read (path, CONFIG_MAX_BYTES, &len, err);
    if (!text)
        return NULL;
    json_object *root = ccas_json_parse (text, len, path, err);
    ccas_secret_burn (text, len);
    free (text);
    if (!root)
        return NULL;
    /* Check the mode before anything else reads the password. */
    if (ccas_json_get (root, "password") && ccas_secret_check_mode (path, "a password", err) < 0) {
        json_object *pw = ccas_json_get (root, "password");
        if (json_object_is_type (pw, json_type_string)) {
            char *s = (char *)json_object_get_string (pw);
            ccas_secret_burn (s, strlen (s));
        }
        json_object_put (root);
        return NULL;
    }
    struct ccas_config *cfg = ccas_conf_from_json (root, path, err);
    if (!cfg)
        return NULL;
    if (cfg->password_file) {
        cfg->password = ccas_secret_read_file (cfg->password_file, err);
        if (!cfg->password) {
            ccas_error_prefix (err, "%s: password_file", path);
            ccas_conf_destroy (cfg);
            return NULL;
        }
    }
    ccas_log_add_secret (cfg->password);
    return cfg;
}

void ccas_conf_destroy (struct ccas_config *cfg)
{
    if (!cfg)
        return;
    int saved_errno = errno;
    ccas_secret_free (cfg->password);
    free (cfg->nodearrays);
    free (cfg->given);
    free (cfg->events.path);
    free (cfg->metrics.path);
    for (size_t i = 0; i < cfg->nwarnings; i++)
        free (cfg->warnings[i]);
    free (cfg->warnings);
    json_object_put (cfg->root);
    free ((char *)cfg->path);
    free (cfg);
    errno = saved_errno;
}

bool ccas_conf_given (const struct ccas_config *cfg, const char *key)
{
    for (size_t i = 0; cfg->given && i < ccas_conf_keys_count; i++)
        if (strcmp (ccas_conf_keys_table[i].name, key) == 0)
            return cfg->given[i];
    CCAS_BUG ("'%s' is not a key of the table", key);
}

const struct ccas_nodearray_config *ccas_conf_nodearray (const struct ccas_config *cfg, const char *nodearray)
{
    for (size_t i = 0; nodearray && i < cfg->nnodearrays; i++)
        if (strcmp (cfg->nodearrays[i].name, nodearray) == 0)
            return &cfg->nodearrays[i];
    return NULL;
}

/* nodearrays.<na>.KEY if set (`own`), else KEY's number, or its map's entry
 * for <na>, or the map's "default", or the table's default. */
static double seconds_for (const char *key, json_object *v, double own, const char *nodearray)
{
    if (!isnan (own))
        return own;
    if (v && !json_object_is_type (v, json_type_object))
        return json_object_get_double (v);
    json_object *m = nodearray ? ccas_json_get (v, nodearray) : NULL;
    if (!m)
        m = ccas_json_get (v, "default");
    return m ? json_object_get_double (m) : strtod (find_key (key)->dflt, NULL);
}

double ccas_conf_idle_timeout (const struct ccas_config *cfg, const char *nodearray)
{
    const struct ccas_nodearray_config *na = ccas_conf_nodearray (cfg, nodearray);
    return seconds_for ("idle_timeout", cfg->idle_timeout, na ? na->idle_timeout : NAN, nodearray);
}

double ccas_conf_boot_timeout (const struct ccas_config *cfg, const char *nodearray)
{
    const struct ccas_nodearray_config *na = ccas_conf_nodearray (cfg, nodearray);
    return seconds_for ("boot_timeout", cfg->boot_timeout, na ? na->boot_timeout : NAN, nodearray);
}

json_object *ccas_conf_effective (const struct ccas_config *cfg)
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
    case KEY_ENUM:
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

/* The heading of the group row `i` is in. */
static const char *group_of (size_t i)
{
    const char *title = NULL;
    for (size_t g = 0, row = 0; g < ccas_conf_groups_count; g++) {
        while (row < ccas_conf_keys_count &&
               strcmp (ccas_conf_keys_table[row].name, ccas_conf_groups[g].first) != 0)
            row++;
        if (row > i)
            break;
        title = ccas_conf_groups[g].title;
    }
    return title;
}

const struct ccas_conf_key_doc *ccas_conf_keys (size_t *n)
{
    static struct ccas_conf_key_doc docs[128];
    static size_t ndocs;
    if (!ndocs) {
        for (size_t i = 0; i < ccas_conf_keys_count && i < 128; i++) {
            const struct config_key *k = &ccas_conf_keys_table[i];
            docs[i] = (struct ccas_conf_key_doc){
                .name = k->name,
                .type = type_doc (k->type),
                .dflt = k->dflt,
                .doc = k->doc,
                .group = group_of (i),
                .choices = k->choices,
                .bounded = bounded (k),
                .min = k->min,
                .max = k->max,
                .required = (k->flags & KEY_REQUIRED) != 0,
                .secret = (k->flags & KEY_SECRET) != 0,
            };
        }
        ndocs = ccas_conf_keys_count;
    }
    *n = ndocs;
    return docs;
}

void ccas_conf_client_opts (const struct ccas_config *cfg, struct ccas_ccapi_opts *opts)
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
