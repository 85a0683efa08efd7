/* SPDX-License-Identifier: MIT */
/* test_conf_keys.c: every key in the table is bound to its field.
 *
 * tests/data/conf-every-key.json sets every key to a value that is not its
 * default (and, within a type, not any other key's value), so a key bound
 * to the wrong field, or to none, reads wrong.  The file must keep up with
 * the table: a key added there and not here fails the first test.  Then:
 * defaults are in the effective document and in the fields, the
 * settings of a nodearray that sets nothing read as "inherit" (NAN, -1,
 * NULL), each value of an enum key reads as its enum, each required key is
 * required, and the documented keys carry what the reference prints. */
#include "config.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ccapi/ccapi.h"
#include "conf/conf.h"
#include "conf/conf_keys.h"
#include "util/json.h"
#include "util/log.h"

#define SCOPE "nodearrays.*."
#define EVERY_KEY TEST_DATA_DIR "/conf-every-key.json"

static json_object *load_json (const char *path)
{
    struct ccas_error err = {""};
    json_object *o = ccas_json_load_file (path, 1 << 20, &err);
    if (!o)
        fail_msg ("%s", err.text);
    return o;
}

/* The data file's document through ccas_conf_from_json (its mode is the
 * checkout's, so not through ccas_conf_load, which refuses a readable
 * file with a password; test_conf.c covers that). */
static struct ccas_config *every_key_config (void)
{
    struct ccas_error err = {""};
    struct ccas_config *cfg = ccas_conf_from_json (load_json (EVERY_KEY), "every-key.json", &err);
    if (!cfg)
        fail_msg ("%s", err.text);
    return cfg;
}

static struct ccas_config *minimal_config (void)
{
    struct ccas_error err = {""};
    json_object *root =
        json_tokener_parse ("{\"url\": \"https://cc\", \"username\": \"u\", \"password\": \"p\","
                            " \"cluster_name\": \"c\"}");
    struct ccas_config *cfg = ccas_conf_from_json (root, "minimal.json", &err);
    if (!cfg)
        fail_msg ("%s", err.text);
    return cfg;
}

static bool scoped (const struct config_key *k)
{
    return strncmp (k->name, SCOPE, strlen (SCOPE)) == 0;
}

/* The value at a table key's path, with "*" read as `nodearray`. */
static json_object *at_key (json_object *root, const char *name, const char *nodearray)
{
    char copy[256];
    json_object *o = root;
    char *save = NULL;
    snprintf (copy, sizeof (copy), "%s", name);
    for (char *part = strtok_r (copy, ".", &save); part && o; part = strtok_r (NULL, ".", &save))
        o = ccas_json_get (o, strcmp (part, "*") == 0 ? nodearray : part);
    return o;
}

/* The field a key is bound to, rendered as JSON text for comparison with
 * the document; `base` is the config or the nodearray's settings. */
static void field_text (const struct config_key *k, const void *base, char *buf, size_t size)
{
    const char *at = (const char *)base + k->field;
    bool in_scope = scoped (k);
    const char *s;
    double d;
    json_object *o;
    switch (k->type) {
    case KEY_STRING:
        memcpy (&s, at, sizeof (s));
        if (s) {
            json_object *str = json_object_new_string (s);
            snprintf (buf, size, "%s", json_object_to_json_string_ext (str, JSON_C_TO_STRING_PLAIN));
            json_object_put (str);
        } else
            snprintf (buf, size, "(null)");
        return;
    case KEY_ENUM: {
        int v;
        memcpy (&v, at, sizeof (v));
        s = NULL;
        for (const struct ccas_conf_choice *c = k->choices; c->name; c++)
            if (c->value == v)
                s = c->name;
        if (s)
            snprintf (buf, size, "\"%s\"", s);
        else
            snprintf (buf, size, "(no value %d)", v);
        return;
    }
    case KEY_BOOL:
        if (in_scope) {
            int v;
            memcpy (&v, at, sizeof (v));
            snprintf (buf, size, "%s", v < 0 ? "(unset)" : v ? "true" : "false");
        } else {
            bool v;
            memcpy (&v, at, sizeof (v));
            snprintf (buf, size, "%s", v ? "true" : "false");
        }
        return;
    case KEY_INT:
        if (in_scope) {
            memcpy (&d, at, sizeof (d));
            if (isnan (d))
                snprintf (buf, size, "(unset)");
            else
                snprintf (buf, size, "%.0f", d);
        } else {
            int v;
            memcpy (&v, at, sizeof (v));
            snprintf (buf, size, "%d", v);
        }
        return;
    case KEY_NUMBER:
        memcpy (&d, at, sizeof (d));
        if (isnan (d))
            snprintf (buf, size, "(unset)");
        else
            snprintf (buf, size, "%g", d);
        return;
    default:
        memcpy (&o, at, sizeof (o));
        snprintf (buf, size, "%s", o ? json_object_to_json_string_ext (o, JSON_C_TO_STRING_PLAIN) : "(null)");
        return;
    }
}

/* The document's value, rendered the way field_text renders its type. */
static void doc_text (const struct config_key *k, json_object *v, char *buf, size_t size)
{
    if (!v) {
        snprintf (buf, size, "(absent)");
        return;
    }
    if (k->type == KEY_NUMBER)
        snprintf (buf, size, "%g", json_object_get_double (v));
    else if (k->type == KEY_INT)
        snprintf (buf, size, "%.0f", json_object_get_double (v));
    else
        snprintf (buf, size, "%s", json_object_to_json_string_ext (v, JSON_C_TO_STRING_PLAIN));
}

/* ---- the table and the data file agree --------------------------------------------------- */

/* Every key of the table is set in the data file (nodearray keys under
 * "hpc"), to a value that is not its default; password_file, exclusive
 * with password, is the one key left to its own test below. */
static void test_data_file_sets_every_key (void **state)
{
    (void)state;
    json_object *root = load_json (EVERY_KEY);
    size_t checked = 0;
    for (size_t i = 0; i < ccas_conf_keys_count; i++) {
        const struct config_key *k = &ccas_conf_keys_table[i];
        if (strcmp (k->name, "password_file") == 0)
            continue;
        json_object *v = at_key (root, k->name, "hpc");
        if (!v)
            fail_msg ("%s: not set in %s; give it a value that is not its default", k->name, EVERY_KEY);
        if (k->dflt && k->type != KEY_SECTION && k->type != KEY_MAP) {
            json_object *d = json_tokener_parse (k->dflt);
            assert_non_null (d);
            if (json_object_equal (d, v))
                fail_msg ("%s: set to its default %s; the test cannot tell it from unset", k->name, k->dflt);
            json_object_put (d);
        }
        checked++;
    }
    assert_true (checked + 1 == ccas_conf_keys_count);
    json_object_put (root);
}

/* No two keys bind one field, and every field lies inside its struct. */
static void test_fields_distinct (void **state)
{
    (void)state;
    for (size_t i = 0; i < ccas_conf_keys_count; i++) {
        const struct config_key *a = &ccas_conf_keys_table[i];
        if (a->field == NO_FIELD)
            continue;
        size_t limit = scoped (a) ? sizeof (struct ccas_nodearray_config) : sizeof (struct ccas_config);
        if (a->field >= limit)
            fail_msg ("%s: field offset %zu outside its struct (%zu bytes)", a->name, a->field, limit);
        if (strchr (a->name, '*') && !scoped (a))
            fail_msg ("%s: a field under a map that is not a nodearray's", a->name);
        for (size_t j = i + 1; j < ccas_conf_keys_count; j++) {
            const struct config_key *b = &ccas_conf_keys_table[j];
            if (b->field == a->field && scoped (a) == scoped (b))
                fail_msg ("%s and %s bind the same field", a->name, b->name);
        }
    }
}

/* ---- every key lands in its field ----------------------------------------------------------- */

/* Table-driven: each key's field reads back the document's value. */
static void test_each_key_reads_back (void **state)
{
    (void)state;
    struct ccas_config *cfg = every_key_config ();
    const struct ccas_nodearray_config *hpc = ccas_conf_nodearray (cfg, "hpc");
    assert_non_null (hpc);
    json_object *root = load_json (EVERY_KEY);
    for (size_t i = 0; i < ccas_conf_keys_count; i++) {
        const struct config_key *k = &ccas_conf_keys_table[i];
        char got[512], want[512];
        if (k->field == NO_FIELD || strcmp (k->name, "password_file") == 0)
            continue;
        field_text (k, scoped (k) ? (const void *)hpc : (const void *)cfg, got, sizeof (got));
        doc_text (k, at_key (root, k->name, "hpc"), want, sizeof (want));
        if (strcmp (got, want) != 0)
            fail_msg ("%s: field reads %s, the file says %s", k->name, got, want);
    }
    json_object_put (root);
    ccas_conf_destroy (cfg);
}

/* By name, field by field: what each key means, not only that it arrived. */
static void test_every_field_by_name (void **state)
{
    (void)state;
    struct ccas_config *cfg = every_key_config ();
    assert_string_equal (cfg->path, "every-key.json");
    assert_string_equal (cfg->url, "https://cc.example.com:8443");
    assert_string_equal (cfg->username, "autoscaler");
    assert_string_equal (cfg->password, "pw-every-key");
    assert_null (cfg->password_file);
    assert_string_equal (cfg->cluster_name, "every-key-cluster");
    assert_false (cfg->verify_certificates);
    assert_string_equal (cfg->ca_file, "/etc/ssl/private-ca.pem");
    assert_true (cfg->connect_timeout == 12.5);
    assert_true (cfg->request_timeout == 61.5);
    assert_int_equal (cfg->retries, 7);
    assert_true (cfg->retry_after_max == 45.5);
    assert_int_equal (cfg->max_response_mb, 64);

    assert_int_equal (cfg->logging.level, LOG_DEBUG);
    assert_string_equal (cfg->logging.file, "/var/log/ccautoscale-every.log");
    assert_false (cfg->logging.syslog);
    assert_string_equal (cfg->state_dir, "/srv/ccas/state");
    assert_string_equal (cfg->lock_file, "/srv/ccas/ccautoscale.lock");

    assert_true (json_object_is_type (cfg->idle_timeout, json_type_object));
    assert_true (ccas_conf_idle_timeout (cfg, "htc") == 660);    /* the map's entry */
    assert_true (ccas_conf_idle_timeout (cfg, "gpu") == 600);    /* the map's default */
    assert_true (ccas_conf_idle_timeout (cfg, "hpc") == 1200.5); /* the nodearray's own */
    assert_true (ccas_conf_boot_timeout (cfg, "htc") == 2400);   /* a number */
    assert_true (ccas_conf_boot_timeout (cfg, "hpc") == 3600.5);
    assert_true (cfg->capacity_failure_backoff == 450.5);
    assert_int_equal (json_object_array_length (cfg->default_resources), 1);
    assert_true (cfg->disable_default_resources);
    assert_int_equal (ccas_json_int (cfg->gpu_counts, "Standard_NC6", 0), 2);
    assert_int_equal (ccas_json_int (cfg->shared_resources, "matlab", 0), 5);

    assert_int_equal (cfg->nnodearrays, 2);
    const struct ccas_nodearray_config *na = &cfg->nodearrays[0];
    assert_string_equal (na->name, "hpc");
    assert_true (na->idle_timeout == 1200.5);
    assert_true (na->boot_timeout == 3600.5);
    assert_true (na->priority == 42);
    assert_int_equal (na->enabled, 0);
    assert_int_equal (na->colocated, 1);
    assert_int_equal (json_object_array_length (na->machine_types), 2);
    assert_string_equal (json_object_get_string (json_object_array_get_idx (na->machine_types, 1)),
                         "Standard_HB176rs_v4");
    assert_string_equal (na->slurm_partition, "hpc-part");

    assert_string_equal (cfg->slurm.node_prefix, "cc-");
    assert_string_equal (cfg->slurm.conf_dir, "/etc/slurm-every");
    assert_string_equal (cfg->slurm.nodes_file, "azure.conf");
    assert_int_equal (cfg->slurm.max_nodes, 250);
    assert_true (cfg->slurm.memory_margin_percent == 7.5);
    assert_int_equal (cfg->slurm.memory_margin_min_mb, 2048);
    assert_int_equal (cfg->slurm.suspend_action, CCAS_ACTION_DEALLOCATE);
    assert_false (cfg->slurm.set_node_addr);
    assert_string_equal (cfg->slurm.default_partition, "htc");
    assert_false (cfg->slurm.exclusive_colocated);
    assert_true (cfg->slurm.lock_timeout == 25.5);
    assert_true (cfg->slurm.connect_timeout == 4.5);
    assert_true (cfg->slurm.request_timeout == 16.5);
    assert_int_equal (cfg->slurm.retries, 3);
    assert_int_equal (cfg->slurm.node_port_base, 20000);
    assert_string_equal (cfg->slurm.keepalive_file, "every_keepalive.conf");
    assert_string_equal (cfg->slurm.gpu_device_files, "/dev/dri/renderD%d");
    assert_int_equal (cfg->slurm.gpu_device_first, 128);

    assert_int_equal (cfg->breaker.threshold, 9);
    assert_true (cfg->breaker.cooldown == 900.5);

    assert_string_equal (cfg->events.file, "/srv/ccas/every-events.jsonl");
    assert_string_equal (cfg->events.path, "/srv/ccas/every-events.jsonl");
    assert_true (cfg->events.max_mb == 8.5);
    assert_int_equal (cfg->events.keep, 6);
    assert_string_equal (cfg->metrics.file, "/srv/ccas/every.prom");
    assert_string_equal (cfg->metrics.path, "/srv/ccas/every.prom");

    assert_string_equal (cfg->pbs.bin_dir, "/opt/pbs-every/bin");
    assert_true (cfg->pbs.command_timeout == 46.5);
    assert_int_equal (json_object_array_length (cfg->pbs.node_resources), 2);
    assert_int_equal (cfg->pbs.hook_freq, 30);
    assert_int_equal (cfg->pbs.hook_timeout, 200);
    assert_string_equal (json_object_get_string (json_object_array_get_idx (cfg->pbs.ignore_queues, 0)),
                         "htcq");
    assert_int_equal (json_object_array_length (cfg->pbs.valid_hostnames), 2);
    assert_string_equal (cfg->pbs.ignore_hostnames, "onprem-");
    assert_non_null (cfg->root);

    /* the client's options come from the same fields */
    struct ccas_ccapi_opts opts;
    ccas_conf_client_opts (cfg, &opts);
    assert_string_equal (opts.url, "https://cc.example.com:8443");
    assert_string_equal (opts.username, "autoscaler");
    assert_string_equal (opts.password, "pw-every-key");
    assert_string_equal (opts.cluster, "every-key-cluster");
    assert_false (opts.verify_certificates);
    assert_string_equal (opts.ca_file, "/etc/ssl/private-ca.pem");
    assert_int_equal (opts.connect_timeout_ms, 12500);
    assert_int_equal (opts.request_timeout_ms, 61500);
    assert_int_equal (opts.max_retries, 7);
    assert_int_equal (opts.retry_after_max_ms, 45500);
    assert_int_equal (opts.max_response_bytes, (size_t)64 * 1024 * 1024);
    ccas_conf_destroy (cfg);
}

/* password_file: bound, and exclusive with password. */
static void test_password_file_bound (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    json_object *root =
        json_tokener_parse ("{\"url\": \"https://cc\", \"username\": \"u\","
                            " \"password_file\": \"/etc/ccautoscale/pw\", \"cluster_name\": \"c\"}");
    struct ccas_config *cfg = ccas_conf_from_json (root, "pwfile.json", &err);
    assert_non_null (cfg);
    assert_string_equal (cfg->password_file, "/etc/ccautoscale/pw");
    assert_null (cfg->password); /* read by ccas_conf_load, not here */
    ccas_conf_destroy (cfg);
}

/* ---- defaults ------------------------------------------------------------------------------ */

/* Each default is in the effective document and in its field; keys
 * without a default are absent, and their fields empty. */
static void test_defaults_everywhere (void **state)
{
    (void)state;
    struct ccas_config *cfg = minimal_config ();
    json_object *eff = ccas_conf_effective (cfg);
    assert_non_null (eff);
    for (size_t i = 0; i < ccas_conf_keys_count; i++) {
        const struct config_key *k = &ccas_conf_keys_table[i];
        if (strchr (k->name, '*'))
            continue;
        json_object *v = at_key (eff, k->name, NULL);
        if (!k->dflt) {
            bool given = (k->flags & KEY_REQUIRED) || !strcmp (k->name, "password");
            if (!given && v)
                fail_msg ("%s: has no default, yet the effective document has %s", k->name,
                          json_object_to_json_string (v));
            if (!given && k->field != NO_FIELD) {
                char got[256];
                field_text (k, cfg, got, sizeof (got));
                if (strcmp (got, "(null)") != 0 && strcmp (got, "0") != 0 && strcmp (got, "false") != 0)
                    fail_msg ("%s: unset, yet its field reads %s", k->name, got);
            }
            continue;
        }
        if (k->type == KEY_SECTION || k->type == KEY_MAP) { /* made, then filled by its keys */
            if (!json_object_is_type (v, json_type_object))
                fail_msg ("%s: no section in the effective document", k->name);
            continue;
        }
        json_object *d = json_tokener_parse (k->dflt);
        assert_non_null (d);
        if (!v || !json_object_equal (v, d))
            fail_msg ("%s: the effective document has %s, the default is %s", k->name,
                      v ? json_object_to_json_string (v) : "nothing", k->dflt);
        if (k->field != NO_FIELD) {
            char got[512], want[512];
            field_text (k, cfg, got, sizeof (got));
            doc_text (k, d, want, sizeof (want));
            if (strcmp (got, want) != 0)
                fail_msg ("%s: field reads %s, the default is %s", k->name, got, want);
        }
        json_object_put (d);
    }
    /* output files default into state_dir */
    assert_string_equal (cfg->events.path, "/var/lib/ccautoscale/events.jsonl");
    assert_string_equal (cfg->metrics.path, "/var/lib/ccautoscale/ccautoscale.prom");
    assert_int_equal (cfg->nnodearrays, 0);
    assert_null (ccas_conf_nodearray (cfg, "hpc"));
    json_object_put (eff);
    ccas_conf_destroy (cfg);
}

/* "" turns an output file off; the rest follows state_dir. */
static void test_output_paths (void **state)
{
    static const struct {
        const char *extra;
        const char *events, *metrics; /* NULL: off */
    } cases[] = {
        {"\"events\": {\"file\": \"\"}, \"metrics\": {\"file\": \"\"}", NULL, NULL},
        {"\"state_dir\": \"/s\", \"events\": {\"file\": \"\"}", NULL, "/s/ccautoscale.prom"},
        {"\"state_dir\": \"/s\", \"metrics\": {\"file\": \"m.prom\"}", "/s/events.jsonl", "m.prom"},
    };
    (void)state;
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        char text[512];
        struct ccas_error err = {""};
        snprintf (text, sizeof (text),
                  "{\"url\": \"https://cc\", \"username\": \"u\", \"password\": \"p\", \"cluster_name\": "
                  "\"c\", %s}",
                  cases[i].extra);
        struct ccas_config *cfg = ccas_conf_from_json (json_tokener_parse (text), "o.json", &err);
        assert_non_null (cfg);
        if (cases[i].events)
            assert_string_equal (cfg->events.path, cases[i].events);
        else
            assert_null (cfg->events.path);
        if (cases[i].metrics)
            assert_string_equal (cfg->metrics.path, cases[i].metrics);
        else
            assert_null (cfg->metrics.path);
        ccas_conf_destroy (cfg);
    }
}

/* ---- nodearrays.* -------------------------------------------------------------------------- */

/* A nodearray that sets nothing inherits everything: NAN numbers, -1
 * booleans, NULL strings and lists; the global values then apply. */
static void test_nodearray_unset_inherits (void **state)
{
    (void)state;
    struct ccas_config *cfg = every_key_config ();
    const struct ccas_nodearray_config *htc = ccas_conf_nodearray (cfg, "htc");
    assert_non_null (htc);
    assert_ptr_equal (htc, &cfg->nodearrays[1]); /* in the document's order */
    assert_string_equal (htc->name, "htc");
    assert_true (isnan (htc->idle_timeout));
    assert_true (isnan (htc->boot_timeout));
    assert_true (isnan (htc->priority));
    assert_int_equal (htc->enabled, -1);
    assert_int_equal (htc->colocated, -1);
    assert_null (htc->machine_types);
    assert_null (htc->slurm_partition);
    /* the table agrees: every nodearray key reads unset */
    for (size_t i = 0; i < ccas_conf_keys_count; i++) {
        const struct config_key *k = &ccas_conf_keys_table[i];
        char got[256];
        if (!scoped (k) || k->field == NO_FIELD)
            continue;
        field_text (k, htc, got, sizeof (got));
        if (strcmp (got, "(unset)") != 0 && strcmp (got, "(null)") != 0)
            fail_msg ("%s: unset for htc, yet reads %s", k->name, got);
    }
    assert_null (ccas_conf_nodearray (cfg, "gpu"));
    assert_null (ccas_conf_nodearray (cfg, NULL));
    ccas_conf_destroy (cfg);
}

/* Explicit false and 0 are values, not "unset". */
static void test_nodearray_false_and_zero (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    json_object *root = json_tokener_parse (
        "{\"url\": \"https://cc\", \"username\": \"u\", \"password\": \"p\", \"cluster_name\": \"c\","
        " \"idle_timeout\": 300, \"nodearrays\": {\"a\": {\"enabled\": false, \"colocated\": false,"
        " \"priority\": 0, \"idle_timeout\": 0, \"boot_timeout\": 0, \"machine_types\": []}}}");
    struct ccas_config *cfg = ccas_conf_from_json (root, "z.json", &err);
    assert_non_null (cfg);
    const struct ccas_nodearray_config *a = ccas_conf_nodearray (cfg, "a");
    assert_int_equal (a->enabled, 0);
    assert_int_equal (a->colocated, 0);
    assert_true (a->priority == 0);
    assert_true (a->idle_timeout == 0);
    assert_true (ccas_conf_idle_timeout (cfg, "a") == 0);
    assert_true (ccas_conf_boot_timeout (cfg, "a") == 0);
    assert_true (ccas_conf_idle_timeout (cfg, "b") == 300);
    assert_int_equal (json_object_array_length (a->machine_types), 0);
    ccas_conf_destroy (cfg);
}

/* ---- enum keys and required keys ---------------------------------------------------------- */

/* The minimal document with `value` (JSON text) at dotted `key`, sections
 * made on the way. */
static json_object *minimal_with (const char *key, const char *value)
{
    json_object *root =
        json_tokener_parse ("{\"url\": \"https://cc\", \"username\": \"u\", \"password\": \"p\","
                            " \"cluster_name\": \"c\"}");
    char copy[256];
    char *save = NULL, *next;
    json_object *parent = root;
    snprintf (copy, sizeof (copy), "%s", key);
    char *part = strtok_r (copy, ".", &save);
    while ((next = strtok_r (NULL, ".", &save))) {
        json_object *sub = ccas_json_get (parent, part);
        if (!sub) {
            sub = json_object_new_object ();
            json_object_object_add (parent, part, sub);
        }
        parent = sub;
        part = next;
    }
    json_object_object_add (parent, part, json_tokener_parse (value));
    return root;
}

/* Each value of each enum key reads as its enum, by name and through the
 * table's field; the list below names every value the table has. */
static void test_enum_values_read_to_their_enum (void **state)
{
    static const struct {
        const char *key, *value;
        int want;
    } cases[] = {
        {"logging.level", "error", LOG_ERR},
        {"logging.level", "warning", LOG_WARNING},
        {"logging.level", "notice", LOG_NOTICE},
        {"logging.level", "info", LOG_INFO},
        {"logging.level", "debug", LOG_DEBUG},
        {"slurm.suspend_action", "shutdown", CCAS_ACTION_SHUTDOWN},
        {"slurm.suspend_action", "terminate", CCAS_ACTION_TERMINATE},
        {"slurm.suspend_action", "deallocate", CCAS_ACTION_DEALLOCATE},
        {"serve.auth", "address_or_token", CCAS_CONF_SERVE_AUTH_ADDRESS_OR_TOKEN},
        {"serve.auth", "token", CCAS_CONF_SERVE_AUTH_TOKEN},
        {"slurm.zombie_vms", "keep", CCAS_CONF_ZOMBIE_KEEP},
        {"slurm.zombie_vms", "terminate", CCAS_CONF_ZOMBIE_TERMINATE},
        {"slurm.failed_vms", "release", CCAS_CONF_FAILED_RELEASE},
        {"slurm.failed_vms", "keep", CCAS_CONF_FAILED_KEEP},
    };
    const size_t ncases = sizeof (cases) / sizeof (cases[0]);
    (void)state;
    for (size_t i = 0; i < ncases; i++) {
        struct ccas_error err = {""};
        char text[64];
        snprintf (text, sizeof (text), "\"%s\"", cases[i].value);
        struct ccas_config *cfg = ccas_conf_from_json (minimal_with (cases[i].key, text), "e.json", &err);
        if (!cfg)
            fail_msg ("%s = %s: %s", cases[i].key, text, err.text);
        int by_name = strcmp (cases[i].key, "logging.level") == 0      ? (int)cfg->logging.level
                      : strcmp (cases[i].key, "serve.auth") == 0       ? (int)cfg->serve.auth
                      : strcmp (cases[i].key, "slurm.zombie_vms") == 0 ? (int)cfg->slurm.zombie_vms
                      : strcmp (cases[i].key, "slurm.failed_vms") == 0 ? (int)cfg->slurm.failed_vms
                                                                       : (int)cfg->slurm.suspend_action;
        if (by_name != cases[i].want)
            fail_msg ("%s = %s: reads %d, not %d", cases[i].key, text, by_name, cases[i].want);
        size_t t = 0;
        while (t < ccas_conf_keys_count && strcmp (ccas_conf_keys_table[t].name, cases[i].key))
            t++;
        assert_true (t < ccas_conf_keys_count);
        char got[64];
        field_text (&ccas_conf_keys_table[t], cfg, got, sizeof (got));
        assert_string_equal (got, text);
        ccas_conf_destroy (cfg);
    }
    /* every value of every enum key is a case above, so none reads wrong unseen */
    for (size_t k = 0; k < ccas_conf_keys_count; k++) {
        const struct config_key *key = &ccas_conf_keys_table[k];
        for (const struct ccas_conf_choice *c = key->choices; c && c->name; c++) {
            size_t i = 0;
            while (i < ncases && (strcmp (cases[i].key, key->name) || strcmp (cases[i].value, c->name)))
                i++;
            if (i == ncases)
                fail_msg ("%s: value '%s' has no case in this test", key->name, c->name);
        }
    }
}

/* Each key the table marks required is refused when absent, naming it;
 * they are the three a site must always set. */
static void test_required_keys (void **state)
{
    static const char *const want[] = {"url", "username", "cluster_name"};
    size_t nrequired = 0;
    (void)state;
    for (size_t i = 0; i < ccas_conf_keys_count; i++) {
        const struct config_key *k = &ccas_conf_keys_table[i];
        struct ccas_error err = {""};
        char expect[300];
        if (!(k->flags & KEY_REQUIRED))
            continue;
        nrequired++;
        json_object *root = minimal_with ("logging.syslog", "false");
        json_object_object_del (root, k->name);
        struct ccas_config *cfg = ccas_conf_from_json (root, "r.json", &err);
        if (cfg)
            fail_msg ("%s: required, yet a file without it loads", k->name);
        snprintf (expect, sizeof (expect), "r.json: %s: required key is missing", k->name);
        assert_string_equal (err.text, expect);
    }
    assert_int_equal (nrequired, sizeof (want) / sizeof (want[0]));
    for (size_t i = 0; i < sizeof (want) / sizeof (want[0]); i++) {
        size_t t = 0;
        while (t < ccas_conf_keys_count && strcmp (ccas_conf_keys_table[t].name, want[i]))
            t++;
        assert_true (t < ccas_conf_keys_count);
        assert_true (ccas_conf_keys_table[t].flags & KEY_REQUIRED);
    }
}

/* What the loader relies on and the table alone can break: an enum key has
 * values, distinct, and a default among them (or is required); required and
 * enum keys are not under a map; only enum keys have values; the groups
 * name rows in order, the first the table's first. */
static void test_table_rows (void **state)
{
    (void)state;
    for (size_t i = 0; i < ccas_conf_keys_count; i++) {
        const struct config_key *k = &ccas_conf_keys_table[i];
        if ((k->type == KEY_ENUM) != (k->choices != NULL))
            fail_msg ("%s: values belong to enum keys, and every enum key has them", k->name);
        if ((k->flags & KEY_REQUIRED) && (k->dflt || strchr (k->name, '*')))
            fail_msg ("%s: a required key has no default and is not under a map", k->name);
        if ((k->flags & KEY_SECRET) && strcmp (k->name, "password") != 0)
            fail_msg ("%s: secret; conf.c only masks the password", k->name);
        if (k->type != KEY_ENUM)
            continue;
        if (strchr (k->name, '*') || !k->choices[0].name)
            fail_msg ("%s: an enum key is not under a map, and has values", k->name);
        for (const struct ccas_conf_choice *a = k->choices; a->name; a++)
            for (const struct ccas_conf_choice *b = a + 1; b->name; b++)
                if (!strcmp (a->name, b->name) || a->value == b->value)
                    fail_msg ("%s: '%s' and '%s' are not distinct", k->name, a->name, b->name);
        if (!(k->flags & KEY_REQUIRED)) {
            json_object *d = k->dflt ? json_tokener_parse (k->dflt) : NULL;
            const struct ccas_conf_choice *c = k->choices;
            while (d && c->name && strcmp (c->name, json_object_get_string (d)))
                c++;
            if (!d || !json_object_is_type (d, json_type_string) || !c->name)
                fail_msg ("%s: default %s is not one of its values", k->name, k->dflt ? k->dflt : "(none)");
            json_object_put (d);
        }
    }
    size_t row = 0;
    assert_string_equal (ccas_conf_groups[0].first, ccas_conf_keys_table[0].name);
    for (size_t g = 0; g < ccas_conf_groups_count; g++) {
        while (row < ccas_conf_keys_count &&
               strcmp (ccas_conf_keys_table[row].name, ccas_conf_groups[g].first))
            row++;
        if (row == ccas_conf_keys_count)
            fail_msg ("group '%s': its first key '%s' is not in the table (or out of order)",
                      ccas_conf_groups[g].title, ccas_conf_groups[g].first);
    }
}

/* ---- the documented keys --------------------------------------------------------------------- */

static void test_key_docs (void **state)
{
    (void)state;
    size_t n = 0;
    const struct ccas_conf_key_doc *docs = ccas_conf_keys (&n);
    assert_int_equal (n, ccas_conf_keys_count);
    for (size_t i = 0; i < n; i++) {
        assert_string_equal (docs[i].name, ccas_conf_keys_table[i].name);
        assert_non_null (docs[i].type);
        assert_true (docs[i].doc && strlen (docs[i].doc) > 5);
        if (docs[i].dflt) {
            json_object *d = json_tokener_parse (docs[i].dflt);
            if (!d)
                fail_msg ("%s: default '%s' is not JSON", docs[i].name, docs[i].dflt);
            json_object_put (d);
        }
    }
    assert_ptr_equal (ccas_conf_keys (&n), docs); /* static, built once */
}

/* The reference's facts about a key come from its row. */
static void test_key_docs_facts (void **state)
{
    static const struct {
        const char *key, *group;
        bool required, secret, bounded, choices;
        double min, max;
    } cases[] = {
        {"url", "CycleCloud connection", true, false, false, false, 0, 0},
        {"password", "CycleCloud connection", false, true, false, false, 0, 0},
        {"retries", "CycleCloud connection", false, false, true, false, 0, 20},
        {"logging", "Logging and files", false, false, false, false, 0, 0},
        {"logging.level", "Logging and files", false, false, false, true, 0, 0},
        {"lock_file", "Logging and files", false, false, false, false, 0, 0},
        {"idle_timeout", "Scaling policy", false, false, true, false, 0, 1e9},
        {"shared_resources", "Scaling policy", false, false, false, false, 0, 0},
        {"nodearrays.*.priority", "Nodearrays", false, false, true, false, -1000000, 1000000},
        {"slurm.suspend_action", "Slurm", false, false, false, true, 0, 0},
        {"breaker.cooldown", "Circuit breaker", false, false, true, false, 0, 1e9},
        {"metrics.file", "Events and metrics", false, false, false, false, 0, 0},
        {"pbs.hook_timeout", "PBS", false, false, true, false, 10, 3600},
    };
    size_t n = 0;
    const struct ccas_conf_key_doc *docs = ccas_conf_keys (&n);
    (void)state;
    for (size_t i = 0; i < n; i++)
        if (!docs[i].group)
            fail_msg ("%s: in no group", docs[i].name);
    for (size_t c = 0; c < sizeof (cases) / sizeof (cases[0]); c++) {
        size_t i = 0;
        while (i < n && strcmp (docs[i].name, cases[c].key))
            i++;
        assert_true (i < n);
        assert_string_equal (docs[i].group, cases[c].group);
        assert_int_equal (docs[i].required, cases[c].required);
        assert_int_equal (docs[i].secret, cases[c].secret);
        assert_int_equal (docs[i].bounded, cases[c].bounded);
        assert_int_equal (docs[i].choices != NULL, cases[c].choices);
        if (cases[c].bounded)
            assert_true (docs[i].min == cases[c].min && docs[i].max == cases[c].max);
    }
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_data_file_sets_every_key),
        cmocka_unit_test (test_fields_distinct),
        cmocka_unit_test (test_each_key_reads_back),
        cmocka_unit_test (test_every_field_by_name),
        cmocka_unit_test (test_password_file_bound),
        cmocka_unit_test (test_defaults_everywhere),
        cmocka_unit_test (test_output_paths),
        cmocka_unit_test (test_nodearray_unset_inherits),
        cmocka_unit_test (test_nodearray_false_and_zero),
        cmocka_unit_test (test_enum_values_read_to_their_enum),
        cmocka_unit_test (test_required_keys),
        cmocka_unit_test (test_table_rows),
        cmocka_unit_test (test_key_docs),
        cmocka_unit_test (test_key_docs_facts),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
