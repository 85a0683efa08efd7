/* SPDX-License-Identifier: MIT */
/* slurm_admin.c: operands, setup and checks shared by the administrator's Slurm commands. */
#include "config.h"

#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "slurm_admin.h"

int slurm_admin_getopt (struct cli *cli, int argc, char **argv, const char *shortopts,
                        const struct option *longopts, char **operands, size_t *noperands)
{
    for (;;) {
        int c = cli_getopt (cli, argc, argv, shortopts, longopts);
        if (c != -1)
            return c;
        if (optind >= argc)
            return -1;
        /* an operand: keep it, and go on with what follows it */
        operands[(*noperands)++] = argv[optind++];
    }
}

int slurm_admin_names (struct cli *cli, char *const *operands, size_t n, const char *what, char ***names,
                       size_t *nnames)
{
    char **all = NULL;
    size_t total = 0;
    *names = NULL;
    *nnames = 0;
    if (!n)
        return cli_usage_error (cli, "name %s (a hostlist such as hpc-[1-4])", what);
    for (size_t i = 0; i < n; i++) {
        struct ccas_error err = {""};
        size_t k = 0;
        char **v = ccas_slurm_hostlist_expand (operands[i], &k, &err);
        if (!v) {
            ccas_slurm_names_free (all, total);
            return cli_usage_error (cli, "%s", err.text);
        }
        char **grown = realloc (all, (total + k + 1) * sizeof (*grown));
        if (!grown) {
            ccas_slurm_names_free (v, k);
            ccas_slurm_names_free (all, total);
            return cli_fail (cli, EXIT_INTERNAL, "out of memory");
        }
        all = grown;
        memcpy (all + total, v, k * sizeof (*v));
        total += k;
        free (v);
    }
    *names = all;
    *nnames = total;
    return EXIT_OK;
}

int slurm_admin_open (struct cli *cli, struct ccas_power *p, bool read_only)
{
    struct ccas_error err = {""};
    int rc;
    memset (p, 0, sizeof (*p));
    if ((rc = cli_prepare (cli)) != EXIT_OK)
        return rc;
    if (ccas_power_attach (p, cli->prog, cli->cfg, cli->api, cli->lock, read_only, &err) < 0 ||
        ccas_power_load (p, true, &err) < 0) {
        rc = strstr (err.text, "Slurm") || strstr (err.text, "slurm")
                 ? cli_fail (cli, EXIT_SCHEDULER, "%s", err.text)
                 : cli_fail_api (cli, &err);
        ccas_power_detach (p);
        return rc;
    }
    p->out = stdout;
    return EXIT_OK;
}

int slurm_admin_check_managed (struct cli *cli, struct ccas_power *p, char *const *names, size_t n)
{
    int rc = EXIT_OK;
    for (size_t i = 0; i < n; i++) {
        char why[400];
        const struct ccas_slurm_node *sn = ccas_slurm_nodes_find (p->snodes, names[i]);
        if (!sn)
            rc = cli_fail (cli, EXIT_USAGE, "'%s' is not a Slurm node; nothing done", names[i]);
        else if (!ccas_slurm_node_bucket (p->model, p->layout, names[i], sn, why, sizeof (why)))
            rc = cli_fail (cli, EXIT_USAGE, "'%s' is not ccautoscale's: %s; nothing done", names[i], why);
    }
    return rc;
}

const char *slurm_admin_who (char *buf, size_t size)
{
    const struct passwd *pw = getpwuid (getuid ());
    snprintf (buf, size, "requested by %s", pw ? pw->pw_name : "an administrator");
    return buf;
}
