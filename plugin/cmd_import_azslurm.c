/* SPDX-License-Identifier: MIT */
/* cmd_import_azslurm.c: `ccautoscale slurm import-azslurm`: azslurm's configuration made ccautoscale's. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "azslurm_import.h"
#include "builtins.h"
#include "conf_compare.h"
#include "conf_gen.h"
#include "model/job.h"
#include "model_load.h"
#include "util/file.h"
#include "util/json.h"
#include "util/secret.h"

#define AZSLURM_CONFIG "/opt/azurehpc/slurm/autoscale.json"

static const struct cmd_option import_options[] = {
    {"-o, --output FILE",
     "write ccautoscale's configuration there (default: -c FILE, $CCAUTOSCALE_CONFIG, else"
     " " CCAS_DEFAULT_CONFIG ")"},
    {"--force", "replace the output if it exists (the old one kept as FILE.bak)"},
    {"--azure-conf FILE", "the site's azure.conf to compare with (default: azslurm's config_dir/azure.conf,"
                          " else /etc/slurm/azure.conf)"},
    {"--gres-conf FILE", "the site's gres.conf (default: config_dir/gres.conf, else /etc/slurm/gres.conf)"},
    {"--topology-conf FILE", "the site's topology.conf (default: config_dir/topology.conf, else"
                             " /etc/slurm/topology.conf)"},
    {NULL, NULL},
};

const struct cmd_help help_slurm_import_azslurm = {
    .synopsis = "slurm import-azslurm [FILE] [-o FILE] [--force] [--azure-conf FILE] [--gres-conf FILE]"
                " [--topology-conf FILE] [--json]",
    .summary = "make ccautoscale's configuration from azslurm's, and show what would change in Slurm",
    .description =
        "Reads azslurm's autoscale.json (FILE, default " AZSLURM_CONFIG ") and writes\n"
        "ccautoscale's, mode 0600, atomically; an existing file is replaced only with --force\n"
        "(kept as FILE.bak), and azslurm's own file never.  What is carried over: the CycleCloud\n"
        "connection, default_resources (slurm_memory and slurm_gpus are read as azslurm reads\n"
        "them), config_dir as slurm.conf_dir with slurm.nodes_file azure.conf and\n"
        "slurm.keepalive_file keep_alive.conf (the stock slurm.conf's Include lines keep working),\n"
        "a nodearray's max_placement_groups as its colocation; each key left is listed with the\n"
        "reason.  The template's Slurm settings need no import: ccautoscale reads them from each\n"
        "nodearray's Configuration, as azslurm does.\n"
        "\n"
        "Then, with the new configuration (one status request), it compares what 'slurm conf'\n"
        "would write with the site's azure.conf, gres.conf and topology.conf, by meaning: nodes by\n"
        "name and value, partitions, nodesets, which nodes share a switch.  '=' the same, '~'\n"
        "differs, '-' only in the site's file, '+' only in what ccautoscale writes.  Nothing of\n"
        "Slurm's is changed: 'ccautoscale slurm conf --write DIR' does that, when the differences\n"
        "are understood.  Exit 0 when the configuration is written and compared, 3 when it is\n"
        "written but CycleCloud could not be asked.",
    .options = import_options,
    .examples = "$ ccautoscale slurm import-azslurm\n"
                "$ ccautoscale slurm import-azslurm /opt/azurehpc/slurm/autoscale.json -o /tmp/ccas.json "
                "--azure-conf /sched/c1/azure.conf",
    .see_also = "ccautoscale-slurm-conf(8), ccautoscale-config-check(8)",
};

struct import_opts {
    const char *from, *output;
    const char *site[3]; /* azure.conf, gres.conf, topology.conf as given */
    bool force;
};

static int parse (struct cli *cli, int argc, char **argv, struct import_opts *o)
{
    static const struct option longopts[] = {
        {"output", required_argument, NULL, 'o'},          {"force", no_argument, NULL, 0x901},
        {"azure-conf", required_argument, NULL, 0x902},    {"gres-conf", required_argument, NULL, 0x903},
        {"topology-conf", required_argument, NULL, 0x904}, {NULL, 0, NULL, 0},
    };
    const char *env = getenv ("CCAUTOSCALE_CONFIG"), *given = NULL;
    int ch;
    o->from = AZSLURM_CONFIG;
    o->output = CCAS_DEFAULT_CONFIG;
    bool from_given = false;
    for (;;) {
        while ((ch = cli_getopt (cli, argc, argv, "o:", longopts)) != -1) {
            if (ch == 'o')
                given = optarg;
            else if (ch == 0x901)
                o->force = true;
            else if (ch >= 0x902 && ch <= 0x904)
                o->site[ch - 0x902] = optarg;
        }
        if (optind >= argc)
            break;
        if (from_given)
            return cli_usage_error (cli, "unexpected argument '%s'", argv[optind]);
        o->from = argv[optind++]; /* options may follow FILE */
        from_given = true;
    }
    /* -c may come anywhere: the default output is known once all are read */
    o->output = given ? given : cli->config_path ? cli->config_path : env && *env ? env : CCAS_DEFAULT_CONFIG;
    return EXIT_OK;
}

/* The same file, by what the names resolve to. */
static bool same_file (const char *a, const char *b)
{
    char *ra = realpath (a, NULL), *rb = realpath (b, NULL);
    bool same = ra && rb && strcmp (ra, rb) == 0;
    free (ra);
    free (rb);
    return same;
}

/* Validate the converted configuration as every program will load it, then
 * write it (the old one kept as .bak under --force).  An exit code. */
static int write_config (struct cli *cli, const struct import_opts *o, json_object *config)
{
    struct ccas_error err = {""};
    char bak[4200];
    const char *text =
        json_object_to_json_string_ext (config, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
    size_t len = strlen (text);
    json_object *copy = ccas_json_parse (text, len, o->output, &err);
    struct ccas_config *cfg = copy ? ccas_conf_from_json (copy, o->output, &err) : NULL;
    int rc = EXIT_OK;
    if (!cfg || cli_check_rules (cfg, &err) < 0)
        rc = cli_fail (cli, EXIT_CONFIG, "%s: %s (nothing written)", o->from, err.text);
    ccas_conf_destroy (cfg);
    if (rc != EXIT_OK)
        goto done;
    if (access (o->output, F_OK) == 0) {
        size_t oldlen;
        char *old = ccas_file_read (o->output, (size_t)1 << 24, &oldlen, &err);
        snprintf (bak, sizeof (bak), "%s.bak", o->output);
        if (!old || ccas_file_write_atomic (bak, old, oldlen, 0600, &err) < 0)
            rc = cli_fail (cli, EXIT_CONFIG, "%s: cannot keep a backup: %s", o->output, err.text);
        if (old)
            ccas_secret_burn (old, oldlen);
        free (old);
        if (rc != EXIT_OK)
            goto done;
    }
    if (ccas_file_write_atomic (o->output, text, len, 0600, &err) < 0)
        rc = cli_fail (cli, EXIT_CONFIG, "%s", err.text);
done:
    ccas_secret_burn ((char *)text, len);
    return rc;
}

/* The site's file: as given, else in azslurm's config_dir, else in /etc/slurm; NULL if none. */
static const char *site_file (const char *given, const char *dir, const char *name, char *buf, size_t size)
{
    if (given)
        return given;
    snprintf (buf, size, "%s/%s", dir, name);
    if (access (buf, F_OK) == 0)
        return buf;
    snprintf (buf, size, "/etc/slurm/%s", name);
    return access (buf, F_OK) == 0 ? buf : NULL;
}

/* What 'slurm conf' would write, against the site's files.  An exit code. */
static int compare (struct cli *cli, const struct import_opts *o, const char *dir, json_object *files)
{
    static const char *const names[] = {"azure.conf", "gres.conf", "topology.conf"};
    static const enum ccas_conf_kind kinds[] = {CCAS_CONF_NODES, CCAS_CONF_GRES, CCAS_CONF_TOPOLOGY};
    struct ccas_error err = {""};
    struct model_source src = {.with_nodes = false};
    struct ccas_cluster *c = NULL;
    struct ccas_slurm_layout *l = NULL;
    struct ccas_slurm_files f = {NULL, NULL, NULL};
    int rc;
    if (!(cli->cfg = ccas_conf_load (o->output, &err)))
        return cli_fail (cli, EXIT_CONFIG, "%s", err.text);
    if ((rc = cli_open_client (cli)) != EXIT_OK || (rc = model_load (cli, &src, &c)) != EXIT_OK)
        return rc;
    if (!(l = ccas_slurm_layout_create (c))) {
        ccas_cluster_destroy (c);
        return cli_fail (cli, EXIT_INTERNAL, "out of memory");
    }
    for (size_t i = 0; rc == EXIT_OK && !cli->quiet && i < l->intents->nwarnings; i++)
        fprintf (stderr, "%s: warning: %s\n", cli->prog, l->intents->warnings[i]);
    for (size_t i = 0; rc == EXIT_OK && i < l->intents->nerrors; i++)
        fprintf (stderr, "%s: %s\n", cli->prog, l->intents->errors[i]);
    if (rc == EXIT_OK && l->intents->nerrors)
        rc = cli_fail (cli, EXIT_CONFIG,
                       "the cluster's settings must be put right before ccautoscale can write"
                       " Slurm's files");
    if (rc == EXIT_OK && ccas_slurm_files_render (c, l, &f, &err) < 0)
        rc = cli_fail (cli, EXIT_INTERNAL, "%s", err.text);
    const char *ours[] = {f.nodes, f.gres, f.topology};
    int total = 0;
    for (size_t i = 0; rc == EXIT_OK && i < 3; i++) {
        char buf[4200];
        size_t len;
        const char *path = site_file (o->site[i], dir, names[i], buf, sizeof (buf));
        char *theirs = path ? ccas_file_read (path, (size_t)1 << 30, &len, &err) : NULL;
        int n = 0;
        if (path && !theirs) {
            rc = cli_fail (cli, EXIT_USAGE, "%s", err.text);
            break;
        }
        char *report = ccas_conf_compare (kinds[i], path ? path : names[i], theirs, ours[i], &n, &err);
        free (theirs);
        if (!report) {
            rc = cli_fail (cli, EXIT_INTERNAL, "%s: %s", path ? path : names[i], err.text);
            break;
        }
        total += n;
        if (files) {
            json_object *fo = json_object_new_object ();
            json_object_object_add (fo, "file", json_object_new_string (names[i]));
            json_object_object_add (fo, "site", path ? json_object_new_string (path) : NULL);
            json_object_object_add (fo, "differences", json_object_new_int (n));
            json_object_object_add (fo, "report", json_object_new_string (report));
            json_object_array_add (files, fo);
        } else
            printf ("--- %s%s\n+++ what 'ccautoscale slurm conf' writes\n%s", path ? path : names[i],
                    path ? "" : " (the site has none)", report);
        free (report);
    }
    if (rc == EXIT_OK && !files)
        printf ("%d difference%s.  Next: read them, then 'ccautoscale slurm conf --write %s' (see the README,"
                " \"Moving from azslurm\").\n",
                total, total == 1 ? "" : "s", cli->cfg->slurm.conf_dir);
    ccas_slurm_files_release (&f);
    ccas_slurm_layout_destroy (l);
    ccas_cluster_destroy (c);
    return rc;
}

int cmd_slurm_import_azslurm (struct cli *cli, int argc, char **argv)
{
    struct import_opts o = {NULL, NULL, {NULL, NULL, NULL}, false};
    struct ccas_azslurm_import imp = {NULL, NULL, 0, ""};
    struct ccas_error err = {""};
    int rc;

    if ((rc = parse (cli, argc, argv, &o)) != EXIT_OK || (rc = cli_prepare (cli)) != EXIT_OK)
        return rc;
    if (same_file (o.from, o.output))
        return cli_fail (cli, EXIT_USAGE, "%s is azslurm's own file: write ccautoscale's elsewhere (-o FILE)",
                         o.output);
    if (!o.force && access (o.output, F_OK) == 0)
        return cli_fail (cli, EXIT_USAGE, "%s exists; --force replaces it (keeping %s.bak), or -o FILE",
                         o.output, o.output);
    ccas_secret_no_dump ();
    json_object *az = ccas_json_load_file (o.from, (size_t)1 << 24, &err);
    if (!az)
        return cli_fail (cli, EXIT_CONFIG, "%s", err.text);
    json_object *pw = ccas_json_get (az, "password");
    rc = ccas_azslurm_import_convert (az, o.from, &imp, &err) < 0
             ? cli_fail (cli, EXIT_CONFIG, "%s", err.text)
             : EXIT_OK;
    if (json_object_is_type (pw, json_type_string))
        ccas_secret_burn ((char *)json_object_get_string (pw), (size_t)json_object_get_string_len (pw));
    json_object_put (az);
    if (rc == EXIT_OK)
        rc = write_config (cli, &o, imp.config);
    if (rc != EXIT_OK) {
        ccas_azslurm_import_release (&imp);
        return rc;
    }
    json_object *out = cli->json ? json_object_new_object () : NULL;
    json_object *files = cli->json ? json_object_new_array () : NULL;
    if (out) {
        json_object *notes = json_object_new_array ();
        for (size_t i = 0; i < imp.nnotes; i++)
            json_object_array_add (notes, json_object_new_string (imp.notes[i]));
        json_object_object_add (out, "from", json_object_new_string (o.from));
        json_object_object_add (out, "config", json_object_new_string (o.output));
        json_object_object_add (out, "notes", notes);
        json_object_object_add (out, "files", files);
    } else {
        printf ("Wrote %s (mode 0600) from %s:\n", o.output, o.from);
        for (size_t i = 0; i < imp.nnotes; i++)
            printf ("  %s\n", imp.notes[i]);
    }
    rc = compare (cli, &o, imp.conf_dir, files);
    if (out) {
        cli_print_json (out);
        json_object_put (out);
    }
    if (rc == EXIT_CYCLECLOUD)
        fprintf (stderr,
                 "%s: %s is written; compare again when CycleCloud answers: 'ccautoscale -c %s slurm"
                 " conf' prints what ccautoscale would write\n",
                 cli->prog, o.output, o.output);
    ccas_azslurm_import_release (&imp);
    return rc;
}
