/* SPDX-License-Identifier: MIT */
/* cmd_config.c: `ccautoscale config check` and `config keys`. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>

#include "builtins.h"
#include "conf_doc.h"
#include "model/constraint.h"
#include "model/resources.h"
#include "table.h"

const struct cmd_help help_config_check = {
    .synopsis = "config check [-c FILE] [--json]",
    .summary = "validate the configuration and print it with defaults filled in",
    .description = "Loads the configuration exactly as every program does: unknown keys and wrong types\n"
                   "are errors naming their JSON path; a file holding a password must be mode 0600.\n"
                   "Prints the effective configuration, every default filled in, the password as ****,\n"
                   "and warns (on stderr) of keys that are valid but do nothing here: idle_timeout and\n"
                   "boot_timeout on a Slurm-only site (a slurm section, no pbs section), where Slurm's\n"
                   "SuspendTime and ResumeTimeout govern.  Nothing is sent to CycleCloud.",
    .examples = "$ ccautoscale config check -c /etc/ccautoscale/autoscale.json",
    .see_also = "ccautoscale-config-keys(8)",
};

static const struct cmd_option keys_options[] = {
    {"--markdown", "print the whole reference as Markdown: doc/configuration.md is this output"},
    {"--roff", "print it as the man page ccautoscale.json(5)"},
    {NULL, NULL},
};

const struct cmd_help help_config_keys = {
    .synopsis = "config keys [--json | --markdown | --roff]",
    .summary = "list every configuration key with its type, default, bounds or values and meaning",
    .description = "Prints the table of keys that loading the configuration and 'config check' go by:\n"
                   "each key's type, default, bounds or values (VALUES), and meaning.  Keys under\n"
                   "nodearrays.* are the settings of one nodearray, by name.  --json adds whether a key\n"
                   "is required or secret and its group; --markdown and --roff print the whole\n"
                   "reference, by group, with a description of the file and an example.",
    .options = keys_options,
    .examples = "$ ccautoscale config keys\n"
                "$ ccautoscale config keys --markdown >configuration.md",
    .see_also = "ccautoscale.json(5), ccautoscale-config-check(8)",
};

/* Compile what only a pass would otherwise compile, so mistakes show here. */
static int check_rules (const struct ccas_config *cfg, struct ccas_error *err)
{
    struct ccas_resdict *dict = ccas_resdict_create ();
    struct ccas_shared *shared = ccas_shared_create ();
    struct ccas_cons_cache *cache = dict && shared ? ccas_constraint_cache_create (dict, shared) : NULL;
    struct ccas_rules *rules = NULL;
    int rc = -1;
    if (!cache)
        ccas_errorf (err, "out of memory");
    else if (ccas_shared_load (shared, cfg->shared_resources, "shared_resources", err) == 0 &&
             (rules = ccas_resources_compile (cfg->default_resources, !cfg->disable_default_resources, cache,
                                              dict, "default_resources", err)))
        rc = 0;
    ccas_resources_destroy (rules);
    ccas_constraint_cache_destroy (cache);
    ccas_shared_destroy (shared);
    ccas_resdict_destroy (dict);
    return rc;
}

int cmd_config_check (struct cli *cli, int argc, char **argv)
{
    struct ccas_error err = {""};
    int rc;
    if ((rc = cli_no_arguments (cli, argc, argv)) != EXIT_OK)
        return rc;
    if ((rc = cli_prepare (cli)) != EXIT_OK)
        return rc;
    if (check_rules (cli->cfg, &err) < 0)
        return cli_fail (cli, EXIT_CONFIG, "%s: %s", cli->cfg->path, err.text);
    json_object *eff = ccas_conf_effective (cli->cfg);
    if (!eff)
        return cli_fail (cli, EXIT_INTERNAL, "out of memory");
    cli_print_json (eff);
    json_object_put (eff);
    for (size_t i = 0; i < cli->cfg->nwarnings; i++)
        fprintf (stderr, "%s: %s: warning: %s\n", cli->prog, cli->cfg->path, cli->cfg->warnings[i]);
    if (!cli->json)
        fprintf (stderr, "%s: %s: configuration is valid\n", cli->prog, cli->cfg->path);
    return EXIT_OK;
}

static json_object *key_json (const struct ccas_conf_key_doc *k)
{
    json_object *o = json_object_new_object ();
    json_object_object_add (o, "key", json_object_new_string (k->name));
    json_object_object_add (o, "type", json_object_new_string (k->type));
    json_object_object_add (o, "default", k->dflt ? json_tokener_parse (k->dflt) : NULL);
    json_object_object_add (o, "doc", json_object_new_string (k->doc));
    json_object_object_add (o, "group", json_object_new_string (k->group));
    json_object_object_add (o, "required", json_object_new_boolean (k->required));
    json_object_object_add (o, "secret", json_object_new_boolean (k->secret));
    if (k->bounded) {
        json_object_object_add (o, "min", json_object_new_double (k->min));
        json_object_object_add (o, "max", json_object_new_double (k->max));
    }
    if (k->choices) {
        json_object *values = json_object_new_array ();
        for (const struct ccas_conf_choice *c = k->choices; c->name; c++)
            json_object_array_add (values, json_object_new_string (c->name));
        json_object_object_add (o, "values", values);
    }
    return o;
}

static void print_keys_table (const struct ccas_conf_key_doc *keys, size_t n)
{
    static const char *const headers[] = {"KEY", "TYPE", "DEFAULT", "VALUES", "MEANING", NULL};
    struct table *t = table_create (headers);
    for (size_t i = 0; i < n; i++) {
        char allowed[256], meaning[1024];
        snprintf (meaning, sizeof (meaning), "%s%s%s", keys[i].doc, keys[i].required ? " (required)" : "",
                  keys[i].secret ? " (secret)" : "");
        const char *cells[] = {keys[i].name, keys[i].type, keys[i].dflt,
                               conf_doc_allowed (&keys[i], allowed, sizeof (allowed)), meaning};
        table_add (t, cells);
    }
    table_print (t, stdout);
    table_destroy (t);
}

enum keys_format {
    KEYS_TABLE,
    KEYS_JSON,
    KEYS_MARKDOWN,
    KEYS_ROFF,
};

int cmd_config_keys (struct cli *cli, int argc, char **argv)
{
    static const struct option longopts[] = {
        {"markdown", no_argument, NULL, KEYS_MARKDOWN},
        {"roff", no_argument, NULL, KEYS_ROFF},
        {NULL, 0, NULL, 0},
    };
    struct ccas_error err = {""};
    enum keys_format format = KEYS_TABLE;
    int c, nformats = 0;
    size_t n;
    const struct ccas_conf_key_doc *keys = ccas_conf_keys (&n);

    while ((c = cli_getopt (cli, argc, argv, "", longopts)) != -1) {
        format = (enum keys_format)c;
        nformats++;
    }
    if (optind < argc)
        return cli_usage_error (cli, "unexpected argument '%s'", argv[optind]);
    if (cli->json) {
        format = KEYS_JSON;
        nformats++;
    }
    if (nformats > 1)
        return cli_usage_error (cli, "--json, --markdown and --roff exclude each other");
    switch (format) {
    case KEYS_JSON: {
        json_object *arr = json_object_new_array ();
        for (size_t i = 0; i < n; i++)
            json_object_array_add (arr, key_json (&keys[i]));
        cli_print_json (arr);
        json_object_put (arr);
        return EXIT_OK;
    }
    case KEYS_MARKDOWN:
        if (conf_doc_markdown (stdout, &err) < 0)
            return cli_fail (cli, EXIT_INTERNAL, "%s", err.text);
        return EXIT_OK;
    case KEYS_ROFF:
        if (conf_doc_roff (stdout, &err) < 0)
            return cli_fail (cli, EXIT_INTERNAL, "%s", err.text);
        return EXIT_OK;
    case KEYS_TABLE:
        break;
    }
    print_keys_table (keys, n);
    return EXIT_OK;
}
