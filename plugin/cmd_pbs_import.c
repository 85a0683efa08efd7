/* SPDX-License-Identifier: MIT */
/* cmd_pbs_import.c: `ccautoscale pbs import-azpbs` — azpbs's autoscale.json made ccautoscale's. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "azpbs_import.h"
#include "builtins.h"
#include "model/constraint.h"
#include "model/resdict.h"
#include "model/resources.h"
#include "util/file.h"
#include "util/json.h"
#include "util/secret.h"

#define AZPBS_CONFIG "/opt/cycle/pbspro/autoscale.json"

static const struct cmd_option options[] = {
    {"-o, --output FILE", "write ccautoscale's configuration there (default: -c FILE, $CCAUTOSCALE_CONFIG, "
                          "else " CCAS_DEFAULT_CONFIG ")"},
    {"--force", "replace the output if it exists (the old one kept as FILE.bak, mode 0600)"},
    {"--dry-run", "say what would be carried over, changed and left out; write nothing"},
    {NULL, NULL},
};

const struct cmd_help help_pbs_import_azpbs = {
    .synopsis = "pbs import-azpbs [FILE] [-o FILE] [--force] [--dry-run] [--json]",
    .summary = "make ccautoscale's configuration from azpbs's autoscale.json, saying what changed",
    .description =
        "Reads azpbs's autoscale.json (FILE, default " AZPBS_CONFIG ", as CycleCloud's stock PBS\n"
        "cluster writes it) and writes ccautoscale's, mode 0600, atomically; an existing file is\n"
        "replaced only with --force (kept as FILE.bak), and azpbs's never.  Each key is listed with\n"
        "what became of it:\n"
        "  carried  the CycleCloud connection, default_resources, disable_default_resources,\n"
        "           idle_timeout and boot_timeout (a string of a number read as the number; per\n"
        "           nodearray as nodearrays.NAME);\n"
        "  changed  pbspro.ignore_queues as pbs.ignore_queues; pbspro.read_only_resources left out\n"
        "           of pbs.node_resources, which lists what default_resources set on a vnode;\n"
        "           pbspro.ignore_hostnames_re as pbs.ignore_hostnames and valid_hostnames as\n"
        "           pbs.valid_hostnames (Python's \\d \\w \\s as POSIX classes; azpbs read a string\n"
        "           as its characters, '.+' let every hostname in, as ccautoscale does unset);\n"
        "  dropped  what means nothing here, with what does the same: lock_file (ccautoscale's\n"
        "           own lock), logging.config_file (syslog and logging.file), nodehistorydb\n"
        "           ('pbs install-hook' imports its ignore list), pbspro.ignore_onprem\n"
        "           (ccautoscale never counts a vnode outside CycleCloud), placement group buckets\n"
        "           (ccautoscale makes a group for the jobs that need one), azpbs's own keys;\n"
        "  unknown  a key neither knows: left out, named.\n"
        "One difference is deliberate: ccautoscale verifies CycleCloud's TLS certificate, which\n"
        "azpbs did not (verify_certificates absent meant false): give ca_file the CA of a\n"
        "self-signed certificate, or set verify_certificates false to do as azpbs did.\n"
        "The result is loaded as every program will load it (its default_resources compiled)\n"
        "before anything is written.  Exit 0 when written (or, with --dry-run, when it would be),\n"
        "2 when FILE cannot be read or converted, or the output exists without --force.",
    .options = options,
    .examples =
        "$ ccautoscale pbs import-azpbs --dry-run\n"
        "$ ccautoscale pbs import-azpbs /opt/cycle/pbspro/autoscale.json -o /etc/ccautoscale/autoscale.json",
    .see_also = "ccautoscale-pbs-install-hook(8), ccautoscale-config-check(8)",
};

struct import_opts {
    const char *from, *output;
    bool force, dry_run;
};

static int parse (struct cli *cli, int argc, char **argv, struct import_opts *o)
{
    static const struct option longopts[] = {
        {"output", required_argument, NULL, 'o'},
        {"force", no_argument, NULL, 0x901},
        {"dry-run", no_argument, NULL, 0x902},
        {NULL, 0, NULL, 0},
    };
    int ch, rc = EXIT_OK;
    for (;;) {
        while ((ch = cli_getopt (cli, argc, argv, "o:", longopts)) != -1) {
            if (ch == 'o')
                o->output = optarg;
            else if (ch == 0x901)
                o->force = true;
            else if (ch == 0x902)
                o->dry_run = true;
        }
        if (optind >= argc)
            break;
        if (o->from) {
            rc = cli_usage_error (cli, "unexpected argument '%s'", argv[optind]);
            break;
        }
        o->from = argv[optind++]; /* options may follow FILE */
    }
    if (!o->from)
        o->from = AZPBS_CONFIG;
    const char *env = getenv ("CCAUTOSCALE_CONFIG");
    if (!o->output)
        o->output = cli->config_path ? cli->config_path : env && *env ? env : CCAS_DEFAULT_CONFIG;
    return rc; /* both paths set, even after a usage error */
}

/* The converted text loaded as ccautoscale loads it, and its default_resources
 * compiled; 0, or -1 with `err`. */
static int check (const char *text, const char *origin, struct ccas_error *err)
{
    json_object *doc = ccas_json_parse (text, strlen (text), origin, err);
    struct ccas_config *cfg = doc ? ccas_conf_from_json (doc, origin, err) : NULL;
    if (!cfg)
        return -1;
    struct ccas_resdict *dict = ccas_resdict_create ();
    struct ccas_cons_cache *cache = dict ? ccas_constraint_cache_create (dict, NULL) : NULL;
    struct ccas_rules *rules =
        cache ? ccas_resources_compile (cfg->default_resources, !cfg->disable_default_resources, cache, dict,
                                        "default_resources", err)
              : NULL;
    int rc = rules ? 0 : -1;
    if (!cache)
        ccas_errorf (err, "out of memory");
    ccas_resources_destroy (rules);
    ccas_constraint_cache_destroy (cache);
    ccas_resdict_destroy (dict);
    ccas_conf_destroy (cfg);
    return rc;
}

/* The output written (the old one kept as .bak); an exit code. */
static int write_output (struct cli *cli, const struct import_opts *o, const char *text)
{
    struct ccas_error err = {""};
    char bak[4200];
    if (access (o->output, F_OK) == 0) {
        if (!o->force)
            return cli_fail (cli, EXIT_CONFIG, "%s exists: --force replaces it (the old one kept as %s.bak)",
                             o->output, o->output);
        size_t oldlen;
        char *old = ccas_file_read (o->output, (size_t)1 << 24, &oldlen, &err);
        snprintf (bak, sizeof (bak), "%s.bak", o->output);
        int rc = old && ccas_file_write_atomic (bak, old, oldlen, 0600, &err) == 0 ? EXIT_OK : EXIT_CONFIG;
        if (old)
            ccas_secret_burn (old, oldlen);
        free (old);
        if (rc != EXIT_OK)
            return cli_fail (cli, rc, "%s: cannot keep a backup: %s (nothing written)", o->output, err.text);
    }
    if (ccas_file_write_atomic (o->output, text, strlen (text), 0600, &err) < 0)
        return cli_fail (cli, EXIT_CONFIG, "%s", err.text);
    return EXIT_OK;
}

static void print_notes (const struct import_opts *o, json_object *notes, bool written)
{
    for (size_t i = 0; i < json_object_array_length (notes); i++) {
        json_object *n = json_object_array_get_idx (notes, i);
        const char *why = ccas_json_str (n, "why");
        printf ("%-8s %s%s%s\n", ccas_json_str (n, "what"), ccas_json_str (n, "key"), why && *why ? ": " : "",
                why ? why : "");
    }
    printf ("%s %s (mode 0600) from %s\n", written ? "wrote" : "would write", o->output, o->from);
}

int cmd_pbs_import_azpbs (struct cli *cli, int argc, char **argv)
{
    struct import_opts o = {0};
    struct ccas_error err = {""};
    int rc = parse (cli, argc, argv, &o);
    if (rc != EXIT_OK)
        return rc;
    ccas_secret_no_dump ();
    json_object *azpbs = ccas_json_load_file (o.from, (size_t)1 << 24, &err);
    if (!azpbs)
        return cli_fail (cli, EXIT_CONFIG, "%s (nothing written)", err.text);
    json_object *notes = json_object_new_array ();
    json_object *cfg = ccas_azpbs_import (azpbs, notes, &err);
    json_object_put (azpbs);
    if (!cfg) {
        json_object_put (notes);
        return cli_fail (cli, EXIT_CONFIG, "%s: %s (nothing written)", o.from, err.text);
    }
    const char *text =
        json_object_to_json_string_ext (cfg, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
    if (check (text, o.output, &err) < 0)
        rc = cli_fail (cli, EXIT_CONFIG, "%s: the converted configuration is not valid: %s (nothing written)",
                       o.from, err.text);
    else if (!o.dry_run)
        rc = write_output (cli, &o, text);
    if (rc == EXIT_OK) {
        if (cli->json) {
            json_object *out = json_object_new_object ();
            json_object_object_add (out, "from", json_object_new_string (o.from));
            json_object_object_add (out, "output", json_object_new_string (o.output));
            json_object_object_add (out, "written", json_object_new_boolean (!o.dry_run));
            json_object_object_add (out, "keys", json_object_get (notes));
            cli_print_json (out);
            json_object_put (out);
        } else if (!cli->quiet)
            print_notes (&o, notes, !o.dry_run);
    }
    ccas_secret_burn ((char *)text, strlen (text));
    json_object *pw = ccas_json_get (cfg, "password");
    if (pw && json_object_is_type (pw, json_type_string))
        ccas_secret_burn ((char *)json_object_get_string (pw), strlen (json_object_get_string (pw)));
    json_object_put (cfg);
    json_object_put (notes);
    return rc;
}
