/* SPDX-License-Identifier: MIT */
/* cmd_initconfig.c: `ccautoscale initconfig` — a first configuration, tested before it is written. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "builtins.h"
#include "util/file.h"
#include "util/secret.h"
#include "util/state.h"

static const struct cmd_option options[] = {
    {"--url URL", "CycleCloud web server root, e.g. https://cyclecloud.example.com (required)"},
    {"--username USER", "CycleCloud user (required)"},
    {"--cluster NAME", "the CycleCloud cluster to scale (required)"},
    {"--password-file FILE", "read the password from FILE's first line ('-': stdin) and refer to FILE; "
                             "default: prompt on the terminal and store it in the configuration"},
    {"--ca-file PEM", "CA bundle for a server certificate signed by a private CA"},
    {"--insecure", "do not verify the server's certificate (testing only)"},
    {"-o, --output FILE",
     "where to write (default $CCAUTOSCALE_CONFIG, else /etc/ccautoscale/autoscale.json)"},
    {"--force", "replace an existing file (the old one is kept as FILE.bak)"},
    {"--no-test", "write without asking the server first"},
    {NULL, NULL},
};

const struct cmd_help help_initconfig = {
    .synopsis = "initconfig --url URL --username USER --cluster NAME [--password-file FILE] [-o FILE]",
    .summary = "write a first configuration file, after testing that it reaches the cluster",
    .description = "Builds a configuration from the flags, asks CycleCloud for the cluster's status with\n"
                   "it, and only then writes the file, atomically and with mode 0600 (it may hold a\n"
                   "password).  The password is read from the terminal without echo, or from\n"
                   "--password-file.  Nothing is written when the test fails: the error says whether\n"
                   "the address, the credentials or the cluster name is wrong.  Edit the file\n"
                   "afterwards for nodearrays, timeouts and the Slurm section; 'ccautoscale config keys'\n"
                   "lists every key.",
    .options = options,
    .examples = "$ ccautoscale initconfig --url https://cc.example.com --username admin --cluster hpc1\n"
                "$ ccautoscale initconfig --url https://cc.example.com --username admin --cluster hpc1 \\\n"
                "      --password-file /etc/ccautoscale/password -o /etc/ccautoscale/autoscale.json",
    .see_also = "ccautoscale-config(8), ccautoscale.json(5)",
};

struct init_opts {
    const char *url, *username, *cluster, *password_file, *ca_file, *output;
    bool insecure, force, test;
};

static int parse (struct cli *cli, int argc, char **argv, struct init_opts *o)
{
    static const struct option longopts[] = {
        {"url", required_argument, NULL, 0x301},     {"username", required_argument, NULL, 0x302},
        {"cluster", required_argument, NULL, 0x303}, {"password-file", required_argument, NULL, 0x304},
        {"ca-file", required_argument, NULL, 0x305}, {"insecure", no_argument, NULL, 0x306},
        {"output", required_argument, NULL, 'o'},    {"force", no_argument, NULL, 0x307},
        {"no-test", no_argument, NULL, 0x308},       {NULL, 0, NULL, 0},
    };
    int c;
    while ((c = cli_getopt (cli, argc, argv, "o:", longopts)) != -1) {
        switch (c) {
        case 0x301:
            o->url = optarg;
            break;
        case 0x302:
            o->username = optarg;
            break;
        case 0x303:
            o->cluster = optarg;
            break;
        case 0x304:
            o->password_file = optarg;
            break;
        case 0x305:
            o->ca_file = optarg;
            break;
        case 0x306:
            o->insecure = true;
            break;
        case 'o':
            o->output = optarg;
            break;
        case 0x307:
            o->force = true;
            break;
        case 0x308:
            o->test = false;
            break;
        }
    }
    if (optind < argc)
        return cli_usage_error (cli, "unexpected argument '%s'", argv[optind]);
    if (!o->url || !o->username || !o->cluster)
        return cli_usage_error (cli, "--url, --username and --cluster are required");
    if (o->insecure && o->ca_file)
        return cli_usage_error (cli, "--insecure and --ca-file contradict each other");
    return EXIT_OK;
}

/* The first line of `f`, without its newline, into `buf`. */
static int first_line (FILE *f, char *buf, size_t size)
{
    if (!fgets (buf, (int)size, f))
        return -1;
    buf[strcspn (buf, "\r\n")] = '\0';
    return buf[0] ? 0 : -1;
}

static int prompt_password (char *buf, size_t size)
{
    FILE *tty = fopen ("/dev/tty", "r+e");
    struct termios old, quiet;
    if (!tty)
        return -1;
    fprintf (tty, "CycleCloud password: ");
    fflush (tty);
    int fd = fileno (tty);
    bool restore = tcgetattr (fd, &old) == 0;
    if (restore) {
        quiet = old;
        quiet.c_lflag &= ~(tcflag_t)ECHO;
        tcsetattr (fd, TCSAFLUSH, &quiet);
    }
    int rc = first_line (tty, buf, size);
    if (restore)
        tcsetattr (fd, TCSAFLUSH, &old);
    fputc ('\n', tty);
    fclose (tty);
    return rc;
}

static int get_password (struct cli *cli, const struct init_opts *o, char *buf, size_t size)
{
    if (!o->password_file) {
        if (prompt_password (buf, size) < 0)
            return cli_usage_error (cli,
                                    "no terminal to ask the password on: give --password-file FILE (or '-')");
        return EXIT_OK;
    }
    FILE *f = strcmp (o->password_file, "-") == 0 ? stdin : fopen (o->password_file, "re");
    if (!f)
        return cli_fail (cli, EXIT_CONFIG, "%s: %s", o->password_file, strerror (errno));
    int rc = first_line (f, buf, size);
    if (f != stdin)
        fclose (f);
    if (rc < 0)
        return cli_fail (cli, EXIT_CONFIG, "%s: no password on its first line", o->password_file);
    return EXIT_OK;
}

static json_object *build (const struct init_opts *o, const char *password)
{
    json_object *c = json_object_new_object ();
    json_object_object_add (c, "url", json_object_new_string (o->url));
    json_object_object_add (c, "username", json_object_new_string (o->username));
    if (o->password_file && strcmp (o->password_file, "-") != 0)
        json_object_object_add (c, "password_file", json_object_new_string (o->password_file));
    else
        json_object_object_add (c, "password", json_object_new_string (password));
    json_object_object_add (c, "cluster_name", json_object_new_string (o->cluster));
    if (o->insecure)
        json_object_object_add (c, "verify_certificates", json_object_new_boolean (false));
    if (o->ca_file)
        json_object_object_add (c, "ca_file", json_object_new_string (o->ca_file));
    return c;
}

/* Ask the server with the new file; on success the status is summarized. */
static int test_connection (struct cli *cli, const char *path)
{
    struct ccas_error err = {""};
    struct ccas_status *st = NULL;
    if (!(cli->cfg = ccas_conf_load (path, &err)))
        return cli_fail (cli, EXIT_CONFIG, "%s", err.text);
    int rc = cli_open_client (cli);
    if (rc != EXIT_OK)
        return rc;
    if (ccas_ccapi_get_status (cli->api, false, &st, &err) < 0)
        return cli_fail_api (cli, &err);
    size_t nb = 0;
    for (size_t i = 0; i < st->nnodearrays; i++)
        nb += st->nodearrays[i].nbuckets;
    printf ("Connected: cluster %s is %s, %zu nodearrays, %zu buckets.\n", cli->cfg->cluster_name,
            st->state ? st->state : "?", st->nnodearrays, nb);
    ccas_status_destroy (st);
    return EXIT_OK;
}

static int install (struct cli *cli, const char *tmp, const char *out, bool force)
{
    char bak[4096];
    if (access (out, F_OK) == 0) {
        if (!force)
            return cli_fail (cli, EXIT_USAGE, "%s exists; --force replaces it (keeping %s.bak)", out, out);
        snprintf (bak, sizeof (bak), "%s.bak", out);
        if (rename (out, bak) < 0)
            return cli_fail (cli, EXIT_CONFIG, "%s: cannot keep a backup: %s", out, strerror (errno));
    }
    if (rename (tmp, out) < 0)
        return cli_fail (cli, EXIT_CONFIG, "%s: %s", out, strerror (errno));
    return EXIT_OK;
}

int cmd_initconfig (struct cli *cli, int argc, char **argv)
{
    struct init_opts o = {.test = true};
    struct ccas_error err = {""};
    char password[1024] = "", tmp[4096];
    int rc;

    if ((rc = parse (cli, argc, argv, &o)) != EXIT_OK || (rc = cli_prepare (cli)) != EXIT_OK)
        return rc;
    const char *env = getenv ("CCAUTOSCALE_CONFIG");
    if (!o.output)
        o.output = env && *env ? env : CCAS_DEFAULT_CONFIG;
    if (!o.force && access (o.output, F_OK) == 0)
        return cli_fail (cli, EXIT_USAGE, "%s exists; --force replaces it (keeping %s.bak)", o.output,
                         o.output);
    ccas_secret_no_dump ();
    if ((rc = get_password (cli, &o, password, sizeof (password))) != EXIT_OK)
        return rc;
    json_object *c = build (&o, password);
    const char *text =
        json_object_to_json_string_ext (c, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
    snprintf (tmp, sizeof (tmp), "%s.new", o.output);
    rc = ccas_file_write_atomic (tmp, text, strlen (text), 0600, &err) < 0
             ? cli_fail (cli, EXIT_CONFIG, "%s", err.text)
             : EXIT_OK;
    /* c's own buffers, freed next: its text and the password's string */
    ccas_secret_burn ((char *)text, strlen (text));
    json_object *pw = json_object_object_get (c, "password");
    if (pw)
        ccas_secret_burn ((char *)json_object_get_string (pw), (size_t)json_object_get_string_len (pw));
    json_object_put (c);
    ccas_secret_burn (password, sizeof (password));
    if (rc == EXIT_OK && o.test)
        rc = test_connection (cli, tmp);
    if (rc == EXIT_OK)
        rc = install (cli, tmp, o.output, o.force);
    if (rc != EXIT_OK) {
        unlink (tmp);
        return rc;
    }
    printf ("Wrote %s (mode 0600).  Next: ccautoscale config check; ccautoscale status.\n", o.output);
    return EXIT_OK;
}
