/* SPDX-License-Identifier: MIT */
/* cmd_config.c: `ccautoscale config check` and `config keys`. */
#include "config.h"

#include <stdio.h>

#include "builtins.h"
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

const struct cmd_help help_config_keys = {
    .synopsis = "config keys [--json]",
    .summary = "list every configuration key with its type, default and meaning",
    .examples = "$ ccautoscale config keys",
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

int cmd_config_keys (struct cli *cli, int argc, char **argv)
{
    static const char *const headers[] = {"KEY", "TYPE", "DEFAULT", "MEANING", NULL};
    size_t n;
    const struct ccas_conf_key_doc *keys = ccas_conf_keys (&n);
    int rc;

    if ((rc = cli_no_arguments (cli, argc, argv)) != EXIT_OK)
        return rc;
    if (cli->json) {
        json_object *arr = json_object_new_array ();
        for (size_t i = 0; i < n; i++) {
            json_object *o = json_object_new_object ();
            json_object_object_add (o, "key", json_object_new_string (keys[i].name));
            json_object_object_add (o, "type", json_object_new_string (keys[i].type));
            json_object_object_add (o, "default", keys[i].dflt ? json_tokener_parse (keys[i].dflt) : NULL);
            json_object_object_add (o, "doc", json_object_new_string (keys[i].doc));
            json_object_array_add (arr, o);
        }
        cli_print_json (arr);
        json_object_put (arr);
        return EXIT_OK;
    }
    struct table *t = table_create (headers);
    for (size_t i = 0; i < n; i++) {
        const char *cells[] = {keys[i].name, keys[i].type, keys[i].dflt, keys[i].doc};
        table_add (t, cells);
    }
    table_print (t, stdout);
    table_destroy (t);
    return EXIT_OK;
}
