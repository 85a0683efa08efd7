/* SPDX-License-Identifier: MIT */
/* cmd_slurm_keepalive.c: `ccautoscale slurm keep-alive add|remove|list` — nodes Slurm never powers down. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtins.h"
#include "keepalive.h"
#include "slurm_admin.h"
#include "util/log.h"

static const struct cmd_option options[] = {
    {"-n, --dry-run", "say what would change; change nothing"},
    {NULL, NULL},
};

const struct cmd_help help_slurm_keep_alive = {
    .synopsis = "slurm keep-alive add|remove|list [HOSTLIST...] [--dry-run] [--json]",
    .summary = "keep nodes from being powered down: SuspendExcNodes and CycleCloud's KeepAlive together",
    .description =
        "'add' puts the nodes into slurmctld's SuspendExcNodes, so Slurm never powers them down,\n"
        "and resume then creates their VMs with KeepAlive set in CycleCloud, so nothing else\n"
        "terminates them either (CycleCloud cannot change KeepAlive on a VM that exists: such a\n"
        "VM is kept by SuspendExcNodes alone, and suspend and sync leave it be).  'remove' takes\n"
        "them out again.  'list' shows every name in SuspendExcNodes and who put it there.\n"
        "\n"
        "SuspendExcNodes is shared.  A name can be there for three reasons: 'keep-alive add'\n"
        "put it there; its VM is KeepAlive in CycleCloud (sync puts those in, and takes them\n"
        "out when KeepAlive is cleared); or the administrator put it there, in slurm.conf or\n"
        "with 'scontrol update SuspendExcNodes+='.  ccautoscale only ever takes out a name it put\n"
        "in: 'remove' refuses a name that was there before 'add' (the administrator's own) or\n"
        "whose VM is KeepAlive in CycleCloud (clear KeepAlive first), naming it, and changes\n"
        "nothing else.\n"
        "\n"
        "From Slurm 23.02 the running slurmctld is changed in place (which\n"
        "ReconfigFlags=KeepPowerSaveSettings needs); before, slurm.keepalive_file is rewritten\n"
        "and slurmctld reconfigured.  Either way that include then holds the whole running\n"
        "value, so a restart keeps it: keep any SuspendExcNodes line of slurm.conf above the\n"
        "Include of ccautoscale.conf (Slurm takes the last).  The stock azslurm's 'keep_alive'\n"
        "changes SuspendExcNodes only; azslurmd keeps CycleCloud's KeepAlive nodes in it.",
    .options = options,
    .examples = "$ ccautoscale slurm keep-alive add hpc-[1-2]\n"
                "$ ccautoscale slurm keep-alive list\n"
                "hpc-1     keep-alive add\n"
                "hpc-2     keep-alive add\n"
                "htc-9     administrator (slurm.conf or scontrol)\n"
                "$ ccautoscale slurm keep-alive remove hpc-[1-2]",
    .see_also = "ccautoscale-slurm-sync(8), ccautoscale-slurm-remove-nodes(8)",
};

enum action { ADD, REMOVE, LIST };

struct ka_run {
    struct cli *cli;
    struct ccas_power p;
    struct ccas_state *st;
    json_object *cmd; /* st's "command": name -> {time, added} */
    char **names;
    size_t nnames;
};

/* Why a name in SuspendExcNodes is there. */
static const char *origin (struct ka_run *r, const char *name)
{
    json_object *synced = NULL, *e = NULL, *added = NULL;
    const struct ccas_node *n = ccas_cluster_find_node (r->p.model, name);
    if (json_object_object_get_ex (r->cmd, name, &e) && json_object_object_get_ex (e, "added", &added) &&
        json_object_get_boolean (added))
        return "keep-alive add";
    if (json_object_object_get_ex (ccas_state_root (r->st), "synced", &synced) &&
        json_object_object_get_ex (synced, name, NULL))
        return "KeepAlive in CycleCloud (sync)";
    if (n && n->keep_alive)
        return "administrator; its VM is KeepAlive in CycleCloud too";
    return "administrator (slurm.conf or scontrol)";
}

static int list (struct ka_run *r)
{
    struct ccas_error err = {""};
    struct ccas_slurm_exc e;
    char *value = ccas_slurm_suspend_exc_nodes (&err);
    if (!value || ccas_slurm_exc_parse (value, &e, &err) < 0) {
        free (value);
        return cli_fail (r->cli, EXIT_SCHEDULER, "%s", err.text);
    }
    json_object *arr = json_object_new_array ();
    for (size_t i = 0; i < e.n; i++) {
        json_object *o = json_object_new_object ();
        json_object_object_add (o, "name", json_object_new_string (e.names[i]));
        json_object_object_add (o, "by", json_object_new_string (origin (r, e.names[i])));
        json_object_array_add (arr, o);
        if (!r->cli->json)
            printf ("%-9s %s\n", e.names[i], origin (r, e.names[i]));
    }
    /* names the command keeps that slurmctld lost (a restart without the include) */
    json_object *missing = json_object_new_array ();
    json_object_object_foreach (r->cmd, name, v)
    {
        (void)v;
        if (!ccas_slurm_exc_has (&e, name)) {
            json_object_array_add (missing, json_object_new_string (name));
            if (!r->cli->json)
                printf (
                    "%-9s keep-alive add, but not in SuspendExcNodes now (run 'keep-alive add %s' again)\n",
                    name, name);
        }
    }
    if (e.counted && !r->cli->json)
        printf ("%s (counted entries, left as they are)\n", e.counted);
    if (r->cli->json) {
        json_object *o = json_object_new_object ();
        json_object_object_add (o, "suspend_exc_nodes", json_object_new_string (value));
        json_object_object_add (o, "nodes", arr);
        json_object_object_add (o, "missing", missing);
        cli_print_json (o);
        json_object_put (o);
    } else {
        json_object_put (arr);
        json_object_put (missing);
    }
    ccas_slurm_exc_release (&e);
    free (value);
    return EXIT_OK;
}

/* remove: only the names 'add' put in; the others refused, each with why. */
static int check_remove (struct ka_run *r)
{
    int rc = EXIT_OK;
    json_object *synced = NULL, *e = NULL, *added = NULL;
    json_object_object_get_ex (ccas_state_root (r->st), "synced", &synced);
    for (size_t i = 0; i < r->nnames; i++) {
        const char *name = r->names[i];
        const struct ccas_node *n = ccas_cluster_find_node (r->p.model, name);
        if (!json_object_object_get_ex (r->cmd, name, &e))
            rc = cli_fail (r->cli, EXIT_USAGE, "'%s' was not added by 'keep-alive add': %s; nothing changed",
                           name,
                           synced && json_object_object_get_ex (synced, name, NULL)
                               ? "sync keeps it for its VM's KeepAlive in CycleCloud"
                               : "if it is in SuspendExcNodes, the administrator put it there");
        else if (n && n->keep_alive)
            rc = cli_fail (r->cli, EXIT_USAGE,
                           "'%s': its VM is KeepAlive in CycleCloud, so sync keeps it in SuspendExcNodes;"
                           " clear KeepAlive first; nothing changed",
                           name);
        else if (json_object_object_get_ex (e, "added", &added) && !json_object_get_boolean (added))
            ccas_log (LOG_NOTICE, "%s was in SuspendExcNodes before 'keep-alive add': it stays", name);
    }
    return rc;
}

/* Names the command took out of SuspendExcNodes: the ones it added, and
 * that neither sync keeps nor... (KeepAlive nodes were refused above). */
static size_t to_remove (struct ka_run *r, char **out)
{
    json_object *e = NULL, *added = NULL, *synced = NULL;
    size_t k = 0;
    json_object_object_get_ex (ccas_state_root (r->st), "synced", &synced);
    for (size_t i = 0; i < r->nnames; i++)
        if (json_object_object_get_ex (r->cmd, r->names[i], &e) &&
            json_object_object_get_ex (e, "added", &added) && json_object_get_boolean (added) &&
            !(synced && json_object_object_get_ex (synced, r->names[i], NULL)))
            out[k++] = r->names[i];
    return k;
}

static void report (struct ka_run *r, enum action a, const struct ccas_slurm_keepalive_change *ch)
{
    if (r->cli->json) {
        json_object *o = json_object_new_object (), *added = json_object_new_array (),
                    *removed = json_object_new_array ();
        for (size_t i = 0; i < ch->nadded; i++)
            json_object_array_add (added, json_object_new_string (ch->added[i]));
        for (size_t i = 0; i < ch->nremoved; i++)
            json_object_array_add (removed, json_object_new_string (ch->removed[i]));
        json_object_object_add (o, "added", added);
        json_object_object_add (o, "removed", removed);
        json_object_object_add (o, "dry_run", json_object_new_boolean (r->p.dry_run));
        cli_print_json (o);
        json_object_put (o);
        return;
    }
    if (r->p.dry_run)
        return;
    char *hl = ccas_slurm_hostlist_compress ((const char *const *)r->names, r->nnames);
    printf ("%s %s: %zu name%s %s SuspendExcNodes\n", a == ADD ? "kept alive" : "no longer kept alive",
            hl ? hl : "?", a == ADD ? ch->nadded : ch->nremoved,
            (a == ADD ? ch->nadded : ch->nremoved) == 1 ? "" : "s", a == ADD ? "added to" : "taken out of");
    free (hl);
}

/* The command's record, after a change: added names get an entry (with
 * whether they were there already), removed ones lose it. */
static int record (struct ka_run *r, enum action a, const struct ccas_slurm_keepalive_change *ch)
{
    struct ccas_error err = {""};
    for (size_t i = 0; i < r->nnames && a == ADD; i++) {
        bool added = false;
        for (size_t k = 0; k < ch->nadded && !added; k++)
            added = strcmp (ch->added[k], r->names[i]) == 0;
        json_object *e = NULL;
        if (json_object_object_get_ex (r->cmd, r->names[i], &e))
            continue; /* kept already: as it was */
        e = json_object_new_object ();
        json_object_object_add (e, "time", json_object_new_double (r->p.now));
        json_object_object_add (e, "added", json_object_new_boolean (added));
        json_object_object_add (r->cmd, r->names[i], e);
    }
    for (size_t i = 0; i < r->nnames && a == REMOVE; i++)
        json_object_object_del (r->cmd, r->names[i]);
    if (!r->p.dry_run && ccas_state_save (r->st, &err) < 0)
        return cli_fail (r->cli, EXIT_INTERNAL, "%s", err.text);
    return EXIT_OK;
}

static int change (struct ka_run *r, enum action a)
{
    struct ccas_error err = {""};
    struct ccas_slurm_traits t;
    struct ccas_slurm_controller ctl;
    struct ccas_slurm_keepalive_change ch;
    int rc;
    if (a == REMOVE && (rc = check_remove (r)) != EXIT_OK)
        return rc;
    if (a == ADD && (rc = slurm_admin_check_managed (r->cli, &r->p, r->names, r->nnames)) != EXIT_OK)
        return rc;
    if (ccas_slurm_traits_load (&t, &ctl, &err) < 0)
        return cli_fail (r->cli, EXIT_SCHEDULER, "%s", err.text);
    char **remove = calloc (r->nnames + 1, sizeof (*remove));
    if (!remove)
        return cli_fail (r->cli, EXIT_INTERNAL, "out of memory");
    size_t nremove = a == REMOVE ? to_remove (r, remove) : 0;
    if (ccas_slurm_keepalive_change (&r->p, &t, a == ADD ? r->names : NULL, a == ADD ? r->nnames : 0, remove,
                                     nremove, &ch, &err) < 0) {
        free (remove);
        rc = cli_fail (r->cli, EXIT_SCHEDULER, "SuspendExcNodes: %s", err.text);
        /* what was done before the failure is recorded */
        record (r, a, &ch);
        ccas_slurm_keepalive_change_release (&ch);
        return rc;
    }
    free (remove);
    rc = record (r, a, &ch);
    report (r, a, &ch);
    ccas_slurm_keepalive_change_release (&ch);
    return rc;
}

int cmd_slurm_keep_alive (struct cli *cli, int argc, char **argv)
{
    static const struct option longopts[] = {{"dry-run", no_argument, NULL, 'n'}, {NULL, 0, NULL, 0}};
    struct ka_run r = {.cli = cli};
    char **operands = calloc ((size_t)argc + 1, sizeof (*operands));
    size_t noperands = 0;
    bool dry_run = false;
    struct ccas_error err = {""};
    enum action a;
    int ch, rc = EXIT_OK;

    if (!operands)
        return cli_fail (cli, EXIT_INTERNAL, "out of memory");
    while ((ch = slurm_admin_getopt (cli, argc, argv, "n", longopts, operands, &noperands)) != -1)
        if (ch == 'n')
            dry_run = true;
    if (!noperands) {
        free (operands);
        return cli_usage_error (cli, "say what to do: add, remove or list");
    }
    if (strcmp (operands[0], "add") == 0)
        a = ADD;
    else if (strcmp (operands[0], "remove") == 0)
        a = REMOVE;
    else if (strcmp (operands[0], "list") == 0)
        a = LIST;
    else {
        rc = cli_usage_error (cli, "'%s' is not add, remove or list", operands[0]);
        free (operands);
        return rc;
    }
    if (a == LIST && noperands > 1)
        rc = cli_usage_error (cli, "list takes no hostlist (got '%s')", operands[1]);
    else if (a != LIST)
        rc = slurm_admin_names (cli, operands + 1, noperands - 1,
                                a == ADD ? "the nodes to keep alive" : "the nodes to release", &r.names,
                                &r.nnames);
    free (operands);
    if (rc != EXIT_OK || (rc = slurm_admin_open (cli, &r.p, dry_run || a == LIST)) != EXIT_OK) {
        ccas_slurm_names_free (r.names, r.nnames);
        return rc;
    }
    if (!(r.st = ccas_slurm_keepalive_load (cli->cfg->state_dir, &err)))
        rc = cli_fail (cli, EXIT_INTERNAL, "%s", err.text);
    else {
        json_object *root = ccas_state_root (r.st);
        if (!json_object_object_get_ex (root, "command", &r.cmd) ||
            !json_object_is_type (r.cmd, json_type_object)) {
            r.cmd = json_object_new_object ();
            json_object_object_add (root, "command", r.cmd);
        }
        rc = a == LIST ? list (&r) : change (&r, a);
    }
    ccas_state_destroy (r.st);
    ccas_power_detach (&r.p);
    ccas_slurm_names_free (r.names, r.nnames);
    return rc;
}
