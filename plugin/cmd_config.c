/* SPDX-License-Identifier: MIT */
/* cmd_config.c: `ccautoscale config check` and `config keys`. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>

#include "builtins.h"
#include "conf_doc.h"
#include "table.h"
#include "util/json.h"
#ifdef WITH_SLURM
#include "model/job.h"
#include "model_load.h"
#include "names.h"
#endif

#ifdef WITH_SLURM
static const struct cmd_option check_options[] = {
    {"--cluster", "also read the cluster's status and show each nodearray's Slurm settings: the value and"
                  " where it came from (autoscale.json, the nodearray's Configuration in CycleCloud, a"
                  " default_resources rule, or the default); one status request"},
    {NULL, NULL},
};
#define CHECK_OPTIONS check_options
#define CHECK_SYNOPSIS "config check [-c FILE] [--cluster] [--json]"
#else
#define CHECK_OPTIONS NULL
#define CHECK_SYNOPSIS "config check [-c FILE] [--json]"
#endif

const struct cmd_help help_config_check = {
    .synopsis = CHECK_SYNOPSIS,
    .summary = "validate the configuration and print it with defaults filled in",
    .description = "Loads the configuration exactly as every program does: unknown keys and wrong types\n"
                   "are errors naming their JSON path; a file holding a password must be mode 0600.\n"
                   "Prints the effective configuration, every default filled in, the password as ****,\n"
                   "and warns (on stderr) of keys that are valid but do nothing here: idle_timeout and\n"
                   "boot_timeout on a Slurm-only site (a slurm section, no pbs section), where Slurm's\n"
                   "SuspendTime and ResumeTimeout govern.  Nothing is sent to CycleCloud.\n"
#ifdef WITH_SLURM
                   "\n"
                   "With --cluster the cluster's status is read too, and each nodearray's Slurm settings\n"
                   "are printed with their source: ccautoscale's own key in autoscale.json comes first,\n"
                   "then the nodearray's Configuration (slurm.node_prefix, slurm.partition ... as\n"
                   "CycleCloud's Slurm template sets them), then the default; per machine type the node's\n"
                   "CPUs, threads, RealMemory, DefMemPerCPU and GPUs.  A setting that cannot work is an\n"
                   "error naming the nodearray and key (exit 2).\n"
#endif
                   "",
    .options = CHECK_OPTIONS,
    .examples = "$ ccautoscale config check -c /etc/ccautoscale/autoscale.json"
#ifdef WITH_SLURM
                "\n$ ccautoscale config check --cluster"
#endif
    ,
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

#ifdef WITH_SLURM
/* One row per setting of each nodearray, and per machine type the node's shape. */
static void print_slurm_settings (json_object *o)
{
    static const char *const headers[] = {"NODEARRAY", "SETTING", "VALUE", "FROM", NULL};
    struct table *t = table_create (headers);
    json_object_object_foreach (ccas_json_get (o, "nodearrays"), na, v)
    {
        if (!ccas_json_bool (v, "managed", false)) {
            table_addf (t, "%s\tmanaged\tfalse\tnot autoscaled", na);
            continue;
        }
        json_object_object_foreach (ccas_json_get (v, "settings"), key, setting)
        {
            json_object *val = ccas_json_get (setting, "value");
            table_addf (t, "%s\t%s\t%s\t%s", na, key, val ? json_object_get_string (val) : "-",
                        ccas_json_str (setting, "from"));
        }
        json_object_object_foreach (ccas_json_get (v, "buckets"), mt, b)
        {
            json_object_object_foreach (b, field, fv)
            {
                json_object *val =
                    json_object_is_type (fv, json_type_object) ? ccas_json_get (fv, "value") : fv;
                const char *from =
                    json_object_is_type (fv, json_type_object) ? ccas_json_str (fv, "from") : NULL;
                table_addf (t, "%s/%s\t%s\t%s\t%s", na, mt, field, json_object_get_string (val),
                            from ? from : "-");
            }
        }
    }
    table_print (t, stdout);
    table_destroy (t);
}

/* The cluster's Slurm settings (--cluster): printed, or added to `eff`
 * under "slurm_settings" with --json.  An exit code. */
static int check_cluster (struct cli *cli, json_object *eff)
{
    struct model_source src = {.with_nodes = false};
    struct ccas_cluster *c = NULL;
    struct ccas_slurm_layout *l = NULL;
    int rc;
    if ((rc = cli_open_client (cli)) != EXIT_OK || (rc = model_load (cli, &src, &c)) != EXIT_OK)
        return rc;
    json_object *o = (l = ccas_slurm_layout_create (c)) ? ccas_slurm_intents_json (l->intents, c) : NULL;
    if (!o)
        rc = cli_fail (cli, EXIT_INTERNAL, "out of memory");
    else if (cli->json)
        json_object_object_add (eff, "slurm_settings", json_object_get (o));
    else
        print_slurm_settings (o);
    for (size_t i = 0; rc == EXIT_OK && l && i < l->intents->nwarnings; i++)
        fprintf (stderr, "%s: warning: %s\n", cli->prog, l->intents->warnings[i]);
    for (size_t i = 0; rc == EXIT_OK && l && i < l->intents->nerrors; i++)
        fprintf (stderr, "%s: %s\n", cli->prog, l->intents->errors[i]);
    if (rc == EXIT_OK && l && l->intents->nerrors)
        rc = EXIT_CONFIG;
    json_object_put (o);
    ccas_slurm_layout_destroy (l);
    ccas_cluster_destroy (c);
    return rc;
}
#endif

int cmd_config_check (struct cli *cli, int argc, char **argv)
{
    static const struct option longopts[] = {
        {"cluster", no_argument, NULL, 0x801},
        {NULL, 0, NULL, 0},
    };
    struct ccas_error err = {""};
    bool cluster = false;
    int rc = EXIT_OK, ch;
    while ((ch = cli_getopt (cli, argc, argv, "", longopts)) != -1)
        cluster = ch == 0x801;
    if (optind < argc)
        return cli_usage_error (cli, "unexpected argument '%s'", argv[optind]);
#ifndef WITH_SLURM
    if (cluster)
        return cli_usage_error (cli,
                                "--cluster shows Slurm settings: this ccautoscale is built without Slurm");
#endif
    if ((rc = cli_prepare (cli)) != EXIT_OK)
        return rc;
    if (cli_check_rules (cli->cfg, &err) < 0)
        return cli_fail (cli, EXIT_CONFIG, "%s: %s", cli->cfg->path, err.text);
    json_object *eff = ccas_conf_effective (cli->cfg);
    if (!eff)
        return cli_fail (cli, EXIT_INTERNAL, "out of memory");
    if (!cluster || !cli->json)
        cli_print_json (eff);
    for (size_t i = 0; i < cli->cfg->nwarnings; i++)
        fprintf (stderr, "%s: %s: warning: %s\n", cli->prog, cli->cfg->path, cli->cfg->warnings[i]);
#ifdef WITH_SLURM
    if (cluster && (rc = check_cluster (cli, eff)) == EXIT_OK && cli->json)
        cli_print_json (eff);
#endif
    json_object_put (eff);
    if (rc == EXIT_OK && !cli->json)
        fprintf (stderr, "%s: %s: configuration is valid\n", cli->prog, cli->cfg->path);
    return rc;
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
