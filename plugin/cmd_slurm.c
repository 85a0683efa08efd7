/* SPDX-License-Identifier: MIT */
/* cmd_slurm.c: `ccautoscale slurm conf | sync | demand`. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "builtins.h"
#include "conf_gen.h"
#include "engine/holds.h"
#include "engine/match.h"
#include "engine/plan.h"
#include "keepalive.h"
#include "model_load.h"
#include "plan_print.h"
#include "power.h"
#include "slurm_jobs.h"
#include "slurm_version.h"
#include "table.h"
#include "util/file.h"
#include "util/json.h"
#include "util/log.h"
#include "util/state.h"

/* ---- slurm conf -------------------------------------------------------------------------------- */

static const struct cmd_option conf_options[] = {
    {"-w, --write DIR",
     "write slurm.nodes_file (ccautoscale.conf), gres.conf and topology.conf into DIR (atomically, keeping"
     " each file's mode and owner, old files kept as FILE.bak) and say whether slurmctld needs a restart or"
     " a reconfigure"},
    {"--check", "with --write: only compare; exit 0 if up to date, 4 if not"},
    {"--slurm-version X.Y", "the Slurm the files are for (default: what slurmctld reports, else the libslurm"
                            " ccautoscale was built against)"},
    {NULL, NULL},
};

const struct cmd_help help_slurm_conf = {
    .synopsis = "slurm conf [--write DIR [--check]] [--slurm-version X.Y] [--json]",
    .summary = "generate the Slurm node, partition, gres and topology configuration from the buckets",
    .description =
        "What CycleCloud's Slurm template says in each nodearray's Configuration is read as azslurm\n"
        "reads it (slurm.node_prefix, slurm.partition, slurm.default_partition, slurm.hpc,\n"
        "slurm.use_pcpu, slurm.dampen_memory, slurm.autoscale, slurm.dynamic_feature,\n"
        "slurm.gpu_device_config), after ccautoscale's own keys and before the defaults; 'config\n"
        "check --cluster' shows each setting and where it came from.\n"
        "\n"
        "One NodeName line per bucket: <prefix><nodearray>-[first-last], as many names as the\n"
        "bucket's maxCount, Feature=cloud,<machine type>,<nodearray>, State=CLOUD (FUTURE where\n"
        "slurm.autoscale is false), CPUs, cores, ThreadsPerCore (vCPUs per core, 1 where\n"
        "slurm.use_pcpu is false), RealMemory (the VM's less 5 %, at least 1024 MB; or\n"
        "slurm.dampen_memory, the slurm_memory rule, slurm.memory_margin_percent) and Gres=gpu:N\n"
        "(the slurm_gpus rule, else the VM's GPUs).  A partition per slurm.partition, with\n"
        "DefMemPerCPU (RealMemory per CPU: a job without --mem takes its share, not the node) and\n"
        "one Default=YES; a dynamic partition (slurm.dynamic_feature) is a Nodeset of the feature.\n"
        "gres.conf lists each GPU's device file (NVIDIA, AMD MI300); topology.conf puts each\n"
        "colocated machine type under a switch of its own and the other nodes under one more.\n"
        "A nodearray whose Configuration.autoscale.enabled is false in CycleCloud (a login\n"
        "nodearray), or that is disabled here (nodearrays.<name>.enabled false), gets no nodes\n"
        "and no partition: ccautoscale does not manage it.  A setting that cannot work (a value\n"
        "of the wrong type, a prefix that cannot begin a hostname, a partition name Slurm does not\n"
        "take, a slurm_memory above the VM's memory) is an error naming the nodearray and key, and\n"
        "nothing is written.\n"
        "\n"
        "Without --write the files are printed.  Add to slurm.conf:\n"
        "  Include /etc/slurm/ccautoscale.conf\n"
        "  TopologyPlugin=topology/tree\n"
        "What applying a change takes depends on the Slurm: adding or removing nodes needs a\n"
        "restart of slurmctld before 23.11, and 'scontrol reconfigure' from 23.11 (which starts a\n"
        "new slurmctld in place); other changes need 'scontrol reconfigure'.  The advice is for\n"
        "the Slurm the files are for: --slurm-version, else the version slurmctld reports when\n"
        "there is a slurm.conf ($SLURM_CONF, /etc/slurm/slurm.conf) to find it by, else the\n"
        "libslurm ccautoscale was built against ('ccautoscale --version').  Builds against Slurm\n"
        "22.05 to 25.11; tested with 22.05 (Debian 12) and 25.11.  One status request.",
    .options = conf_options,
    .examples = "$ ccautoscale slurm conf\n$ ccautoscale slurm conf --write /etc/slurm\n"
                "$ ccautoscale slurm conf --write /etc/slurm --check --slurm-version 25.11",
    .see_also = "ccautoscale-resume(8), ccautoscale-slurm-sync(8), ccautoscale-slurm-import-azslurm(8)",
};

/* The file as it is now, or NULL if there is none (or it cannot be read). */
static char *read_text (const char *path)
{
    struct ccas_error err = {""};
    size_t len;
    return ccas_file_read (path, (size_t)1 << 30, &len, &err);
}

/* Lines only in `old` with "-", lines only in `new` with "+". */
static void print_diff (const char *name, const char *old, const char *new)
{
    printf ("--- %s\n+++ %s (new)\n", name, name);
    for (int side = 0; side < 2; side++) {
        const char *from = side ? new : old, *other = side ? old : new;
        for (const char *p = from; p && *p;) {
            size_t len = strcspn (p, "\n");
            char line[4096];
            snprintf (line, sizeof (line), "%.*s", (int)len, p);
            bool found = false;
            for (const char *q = other; q && *q && !found;) {
                size_t ql = strcspn (q, "\n");
                found = ql == len && strncmp (q, p, len) == 0;
                q += ql + (q[ql] ? 1 : 0);
            }
            if (!found && line[0] != '#')
                printf ("%c%s\n", side ? '+' : '-', line);
            p += len + (p[len] ? 1 : 0);
        }
    }
}

/* Rewrite DIR/NAME if its text changed, keeping the file's mode and owner
 * (and a link at its name: the file it points to is rewritten), the old
 * text in NAME.bak, of the same mode. */
static int write_one (struct cli *cli, const char *dir, const char *name, const char *text, bool check,
                      bool *changed, char **old_out)
{
    char path[4096], bak[4200];
    struct ccas_error err = {""};
    struct stat st;
    snprintf (path, sizeof (path), "%s/%s", dir, name);
    char *old = read_text (path);
    *changed = !old || strcmp (old, text) != 0;
    if (*changed)
        print_diff (path, old ? old : "", text);
    if (*changed && !check) {
        if (old) {
            snprintf (bak, sizeof (bak), "%s.bak", path);
            if (stat (path, &st) < 0)
                st.st_mode = 0644;
            if (ccas_file_write_keep (bak, old, strlen (old), st.st_mode & 07777, &err) < 0) {
                free (old);
                return cli_fail (cli, EXIT_INTERNAL, "%s", err.text);
            }
        }
        if (ccas_file_write_keep (path, text, strlen (text), 0644, &err) < 0) {
            free (old);
            return cli_fail (cli, EXIT_INTERNAL, "%s", err.text);
        }
    }
    if (old_out)
        *old_out = old;
    else
        free (old);
    return EXIT_OK;
}

/* The include names the KeepAlive file, and Slurm refuses a missing
 * include: make it (empty) unless sync already keeps it. */
static int ensure_keepalive_file (struct cli *cli, const char *dir)
{
    char path[4096];
    struct ccas_error err = {""};
    const char *file = cli->cfg->slurm.keepalive_file;
    if (!file || !*file)
        return EXIT_OK;
    snprintf (path, sizeof (path), "%s/%s", dir, file);
    if (access (path, F_OK) == 0)
        return EXIT_OK;
    char *text = ccas_slurm_keepalive_text ("");
    int rc = !text ? ccas_errorf (&err, "out of memory")
                   : ccas_file_write_atomic (path, text, strlen (text), 0644, &err);
    free (text);
    return rc < 0 ? cli_fail (cli, EXIT_INTERNAL, "%s", err.text) : EXIT_OK;
}

static int write_files (struct cli *cli, const char *dir, const struct ccas_slurm_files *f, bool check,
                        const struct ccas_slurm_traits *slurm)
{
    bool c1, c2, c3;
    char *old_nodes = NULL;
    int rc;
    const char *nf = cli->cfg->slurm.nodes_file;
    if (!*nf || strchr (nf, '/') || strcmp (nf, "gres.conf") == 0 || strcmp (nf, "topology.conf") == 0)
        return cli_fail (cli, EXIT_CONFIG, "%s: slurm.nodes_file: '%s' is no file name of its own in %s",
                         cli->cfg->path, nf, dir);
    if (!check && (rc = ensure_keepalive_file (cli, dir)) != EXIT_OK)
        return rc;
    if ((rc = write_one (cli, dir, cli->cfg->slurm.nodes_file, f->nodes, check, &c1, &old_nodes)) !=
            EXIT_OK ||
        (rc = write_one (cli, dir, "gres.conf", f->gres, check, &c2, NULL)) != EXIT_OK ||
        (rc = write_one (cli, dir, "topology.conf", f->topology, check, &c3, NULL)) != EXIT_OK) {
        free (old_nodes);
        return rc;
    }
    int needs = ccas_slurm_change_needs (old_nodes, f->nodes, c2 || c3);
    free (old_nodes);
    const char *advice[] = {
        "no change",
        "run 'scontrol reconfigure' to apply",
        slurm->reconfigure_applies_nodes
            ? "node definitions changed: run 'scontrol reconfigure' to apply (since 23.11 it starts a new"
              " slurmctld in place, which adds and removes nodes)"
            : "node definitions changed: restart slurmctld (and the slurmd of running nodes) to apply"
              " ('scontrol reconfigure' does not add or remove nodes before 23.11)",
    };
    printf ("%s%s (Slurm %s)\n", check && needs ? "out of date: " : "", advice[needs], slurm->text);
    return check && needs ? EXIT_PARTIAL : EXIT_OK;
}

/* The slurm.conf libslurm would read, if there is one: slurm_init() without
 * one ends the process (and may first spend a minute looking for it). */
static const char *slurm_conf_path (void)
{
    const char *env = getenv ("SLURM_CONF");
    if (env && *env)
        return access (env, R_OK) == 0 ? env : NULL;
    if (access ("/etc/slurm/slurm.conf", R_OK) == 0) {
        setenv ("SLURM_CONF", "/etc/slurm/slurm.conf", 0); /* libslurm's own default may be elsewhere */
        return "/etc/slurm/slurm.conf";
    }
    return NULL;
}

/* What in the running slurmctld's settings works against ccautoscale, one
 * line each ("" for nothing). */
static void conf_notes (const struct ccas_slurm_controller *ctl, const struct ccas_slurm_traits *t, char *buf,
                        size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    if (ccas_slurm_list_has (ctl->suspend_exc_states, "CLOUD"))
        len += (size_t)snprintf (buf + len, size - len,
                                 "note: SuspendExcStates includes CLOUD: slurmctld never powers a cloud node"
                                 " down, so no VM is given back\n");
    if (len < size && t->cloud_settings_defunct && ccas_slurm_list_has (ctl->params, "cloud_reg_addrs"))
        len += (size_t)snprintf (buf + len, size - len,
                                 "note: SlurmctldParameters=cloud_reg_addrs is defunct since Slurm 23.11"
                                 " (slurmctld sets a cloud node's address when it registers): remove it\n");
    if (len < size && !t->sets_cloud_addrs)
        snprintf (buf + len, size - len,
                  "note: slurmctld does not set a cloud node's address when it registers:"
                  " 'ccautoscale slurm sync' sets NodeAddr from the VM (slurm.set_node_addr), or add"
                  " cloud_reg_addrs to SlurmctldParameters\n");
}

/* Which Slurm the files are for: --slurm-version, else the version
 * slurmctld reports (and `notes` on its settings), else the libslurm's.
 * Returns EXIT_OK or EXIT_USAGE. */
static int conf_slurm (struct cli *cli, const char *given, struct ccas_slurm_traits *t, char *notes,
                       size_t size)
{
    struct ccas_error err = {""};
    struct ccas_slurm_controller ctl;
    unsigned v = 0;
    if (given) {
        if (ccas_slurm_version_parse (given, &v, &err) < 0)
            return cli_usage_error (cli, "--slurm-version: %s", err.text);
        ccas_slurm_traits_init (t, v, NULL);
        return EXIT_OK;
    }
    const char *conf = slurm_conf_path ();
    notes[0] = '\0';
    if (conf && ccas_slurm_init (&err) == 0 && ccas_slurm_traits_load (t, &ctl, &err) == 0) {
        conf_notes (&ctl, t, notes, size);
        ccas_log (LOG_INFO, "files for Slurm %s, as slurmctld reports it", t->text);
        return EXIT_OK;
    }
    ccas_slurm_traits_built (t);
    if (conf && !cli->quiet)
        fprintf (stderr,
                 "%s: %s (slurm.conf %s): writing for Slurm %s, the libslurm ccautoscale was built against\n",
                 cli->prog, err.text, conf, t->text);
    return EXIT_OK;
}

int cmd_slurm_conf (struct cli *cli, int argc, char **argv)
{
    static const struct option longopts[] = {
        {"write", required_argument, NULL, 'w'},
        {"check", no_argument, NULL, 0x701},
        {"slurm-version", required_argument, NULL, 0x702},
        {NULL, 0, NULL, 0},
    };
    const char *dir = NULL, *version = NULL;
    struct ccas_slurm_traits slurm = {0};
    char notes[1024] = "";
    bool check = false;
    struct model_source src = {.with_nodes = false};
    struct ccas_error err = {""};
    struct ccas_cluster *c = NULL;
    struct ccas_slurm_layout *l = NULL;
    struct ccas_slurm_files f = {NULL, NULL, NULL};
    int ch, rc;

    while ((ch = cli_getopt (cli, argc, argv, "w:", longopts)) != -1) {
        if (ch == 'w')
            dir = optarg;
        else if (ch == 0x701)
            check = true;
        else if (ch == 0x702)
            version = optarg;
    }
    if (optind < argc)
        return cli_usage_error (cli, "unexpected argument '%s'", argv[optind]);
    if (check && !dir)
        return cli_usage_error (cli, "--check compares with the files in --write DIR");
    if ((rc = cli_prepare (cli)) != EXIT_OK ||
        (rc = conf_slurm (cli, version, &slurm, notes, sizeof (notes))) != EXIT_OK ||
        (rc = model_load (cli, &src, &c)) != EXIT_OK)
        return rc;
    if (!(l = ccas_slurm_layout_create (c))) {
        rc = cli_fail (cli, EXIT_INTERNAL, "out of memory");
        goto done;
    }
    for (size_t i = 0; !cli->quiet && i < l->intents->nwarnings; i++)
        fprintf (stderr, "%s: warning: %s\n", cli->prog, l->intents->warnings[i]);
    if (l->intents->nerrors) {
        /* what the template or the configuration gets wrong: every error, nothing written */
        for (size_t i = 0; i + 1 < l->intents->nerrors; i++)
            fprintf (stderr, "%s: %s\n", cli->prog, l->intents->errors[i]);
        rc = cli_fail (cli, EXIT_CONFIG, "%s", l->intents->errors[l->intents->nerrors - 1]);
        goto done;
    }
    if (ccas_slurm_files_render (c, l, &f, &err) < 0) {
        rc = cli_fail (cli, EXIT_INTERNAL, "%s", err.text);
        goto done;
    }
    if (dir) {
        rc = write_files (cli, dir, &f, check, &slurm);
        fputs (notes, stdout);
    } else if (cli->json) {
        json_object *o = json_object_new_object ();
        json_object_object_add (o, cli->cfg->slurm.nodes_file, json_object_new_string (f.nodes));
        json_object_object_add (o, "gres.conf", json_object_new_string (f.gres));
        json_object_object_add (o, "topology.conf", json_object_new_string (f.topology));
        json_object_object_add (o, "slurm_version", json_object_new_string (slurm.text));
        cli_print_json (o);
        json_object_put (o);
    } else
        printf ("==> %s <==\n%s\n==> gres.conf <==\n%s\n==> topology.conf <==\n%s",
                cli->cfg->slurm.nodes_file, f.nodes, f.gres, f.topology);
done:
    ccas_slurm_files_release (&f);
    ccas_slurm_layout_destroy (l);
    ccas_cluster_destroy (c);
    ccas_slurm_fini ();
    return rc;
}

/* ---- slurm sync ---------------------------------------------------------------------------------- */

static const struct cmd_option sync_options[] = {
    {"-n, --dry-run", "print what would be done; change nothing"},
    {NULL, NULL},
};

const struct cmd_help help_slurm_sync = {
    .synopsis = "slurm sync [--dry-run] [--json]",
    .summary = "reconcile Slurm and CycleCloud: zombies, failed VMs, addresses, capacity holds, keep-alive",
    .description =
        "Run by the ccautoscale-sync timer (every minute).  It acts only on the VMs of the\n"
        "nodearrays it manages (see 'slurm conf'; dynamic nodes by their feature); a login node or\n"
        "any other VM is left alone.  A zombie (a VM behind a node Slurm has powered down, or\n"
        "does not know) is kept for inspection and its node marked down with a 'ccautoscale:\n"
        "zombie:' reason (slurm.zombie_vms keep, the default, as the stock azslurm does), or\n"
        "terminated (terminate); a VM ccautoscale itself let go of (a suspend or a create whose\n"
        "request failed) is terminated either way, and a deallocated VM of a powered-down node is\n"
        "kept for resume to start.  A dynamic VM Slurm does not know yet is left to register\n"
        "(slurmd -Z).  Failed VMs are released (slurm.failed_vms release) whatever their node's\n"
        "state, unless a job runs there: behind a node powering up it is a boot failure (the\n"
        "breaker counts it) and the job is requeued; behind a node that is up, the node is\n"
        "drained, then handed back; with keep, the node is handed back or drained and the VM\n"
        "kept.  Resumes the nodes Slurm is powering up for a job that have no VM (a resume cut\n"
        "short: on an HA pair, the controller that ran it died, and the other never runs\n"
        "ResumeProgram for them again), as the resume program would.  On an HA pair a VM is\n"
        "taken for a zombie only after it stayed one for 2 x SlurmctldTimeout + 10 s.  Sets NodeAddr and "
        "NodeHostname from the VMs' private\n"
        "IPs (slurm.set_node_addr) unless slurmctld sets them itself when a node registers\n"
        "(Slurm 23.11 and later, or SlurmctldParameters=cloud_reg_addrs), counts a node's boot\n"
        "for the breaker once, when it is first\n"
        "found registered, keeps the nodes of buckets in a capacity window drained and returns\n"
        "them when the window ends, returns down~ nodes whose VM is gone and hands back DOWN\n"
        "ones whose VM vanished, keeps KeepAlive nodes in SuspendExcNodes (see 'slurm\n"
        "keep-alive': the administrator's own entries stay), and deletes the dynamic node records\n"
        "'slurm dynamic add' made once powered down with no VM (slurm.dynamic_delete).\n"
        "Only reasons\n"
        "that start with 'ccautoscale:', and Slurm's 'ResumeTimeout reached' and 'Not\n"
        "responding', are cleared; nodes an administrator took out stay out.  It holds the lock\n"
        "the programs slurmctld runs wait for, so it asks CycleCloud with their limits\n"
        "(slurm.connect_timeout, slurm.request_timeout, slurm.retries).",
    .options = sync_options,
    .examples = "$ ccautoscale slurm sync --dry-run",
    .see_also = "ccautoscale-resume(8), ccautoscale-slurm-conf(8)",
};

int cmd_slurm_sync (struct cli *cli, int argc, char **argv)
{
    static const struct option longopts[] = {{"dry-run", no_argument, NULL, 'n'}, {NULL, 0, NULL, 0}};
    bool dry_run = false;
    struct ccas_error err = {""};
    struct ccas_power p;
    struct ccas_sync_report rep;
    int ch, rc;

    while ((ch = cli_getopt (cli, argc, argv, "n", longopts)) != -1)
        if (ch == 'n')
            dry_run = true;
    if (optind < argc)
        return cli_usage_error (cli, "unexpected argument '%s'", argv[optind]);
    if ((rc = cli_prepare (cli)) != EXIT_OK)
        return rc;
    /* it holds the lock the programs slurmctld runs wait for (slurm.lock_timeout):
     * their limits, not the command's minutes against a CycleCloud that does not answer */
    struct ccas_ccapi *api = ccas_power_client (cli->cfg, &err);
    if (!api)
        return cli_fail (cli, EXIT_CONFIG, "%s", err.text);
    ccas_ccapi_destroy (cli->api);
    cli->api = api;
    if (ccas_power_attach (&p, "ccautoscale slurm sync", cli->cfg, cli->api, cli->lock, dry_run, &err) < 0 ||
        ccas_power_load (&p, true, &err) < 0) {
        rc = strstr (err.text, "Slurm") ? cli_fail (cli, EXIT_SCHEDULER, "%s", err.text)
                                        : cli_fail_api (cli, &err);
        ccas_power_detach (&p);
        return rc;
    }
    rc = ccas_power_sync (&p, &rep) < 0 ? EXIT_PARTIAL : EXIT_OK;
    ccas_power_detach (&p);
    if (cli->json) {
        json_object *o = json_object_new_object ();
        json_object_object_add (o, "orphans_terminated", json_object_new_int ((int)rep.orphans));
        json_object_object_add (o, "failed_released", json_object_new_int ((int)rep.failed_released));
        json_object_object_add (o, "nodes_resumed", json_object_new_int ((int)rep.resumed));
        json_object_object_add (o, "addresses_set", json_object_new_int ((int)rep.addresses_set));
        json_object_object_add (o, "nodes_returned", json_object_new_int ((int)rep.returned));
        json_object_object_add (o, "nodes_held", json_object_new_int ((int)rep.held));
        json_object_object_add (o, "holds_ended", json_object_new_int ((int)rep.released_holds));
        json_object_object_add (o, "zombies_kept", json_object_new_int ((int)rep.zombies));
        json_object_object_add (o, "failed_kept", json_object_new_int ((int)rep.failed_kept));
        json_object_object_add (o, "records_deleted", json_object_new_int ((int)rep.records_deleted));
        json_object_object_add (o, "keepalive_changed", json_object_new_boolean (rep.keepalive_changed));
        json_object_object_add (o, "dry_run", json_object_new_boolean (dry_run));
        cli_print_json (o);
        json_object_put (o);
    } else if (!dry_run)
        printf ("orphans terminated %u, zombies kept %u, failed VMs released %u, kept %u, nodes resumed %u,"
                " addresses set %u, nodes returned %u, nodes held %u, capacity windows ended %u, dynamic"
                " records deleted %u%s\n",
                rep.orphans, rep.zombies, rep.failed_released, rep.failed_kept, rep.resumed,
                rep.addresses_set, rep.returned, rep.held, rep.released_holds, rep.records_deleted,
                rep.keepalive_changed ? ", SuspendExcNodes updated" : "");
    return rc;
}

/* ---- slurm demand ------------------------------------------------------------------------------- */

const struct cmd_help help_slurm_demand = {
    .synopsis = "slurm demand [--json]",
    .summary = "show Slurm's pending jobs and what ccautoscale would create for them, or why it cannot",
    .description = "Reads pending and running jobs and nodes from slurmctld (libslurm) and CycleCloud's\n"
                   "buckets and nodes, then runs the matching engine as a dry run: per job, the nodes it\n"
                   "waits for (jobs whose nodes are powering up) or what would be created for it\n"
                   "(nodearray, machine type, placement group, count), or why not: quota, a capacity\n"
                   "window, limits, or no bucket that fits.  Nothing changes.",
    .examples = "$ ccautoscale slurm demand\n$ ccautoscale slurm demand --json | jq '.jobs[] | "
                "select(.matched | not)'",
    .see_also = "ccautoscale-demand(8)",
};

static void print_waiting (const struct ccas_jobs *jobs, bool json, json_object *out)
{
    json_object *arr = json ? json_object_new_array () : NULL;
    for (size_t i = 0; i < jobs->n; i++) {
        const struct ccas_job *j = &jobs->v[i];
        if (!j->ignore || !j->nrunning_on)
            continue;
        char *hl = ccas_slurm_hostlist_compress (j->running_on, j->nrunning_on);
        if (arr) {
            json_object *o = json_object_new_object ();
            json_object_object_add (o, "id", json_object_new_string (j->id));
            json_object_object_add (o, "nodes", json_object_new_string (hl ? hl : ""));
            json_object_array_add (arr, o);
        } else
            printf ("job %s waits for nodes powering up: %s\n", j->id, hl ? hl : "?");
        free (hl);
    }
    if (arr)
        json_object_object_add (out, "waiting", arr);
}

int cmd_slurm_demand (struct cli *cli, int argc, char **argv)
{
    struct ccas_error err = {""};
    struct ccas_power p;
    struct ccas_jobs *jobs = NULL;
    struct ccas_plan *plan = NULL;
    int rc;

    if ((rc = cli_no_arguments (cli, argc, argv)) != EXIT_OK)
        return rc;
    if ((rc = cli_prepare (cli)) != EXIT_OK)
        return rc;
    if (ccas_power_attach (&p, "ccautoscale slurm demand", cli->cfg, cli->api, NULL, true, &err) < 0 ||
        ccas_power_load (&p, true, &err) < 0) {
        rc = strstr (err.text, "Slurm") ? cli_fail (cli, EXIT_SCHEDULER, "%s", err.text)
                                        : cli_fail_api (cli, &err);
        goto done;
    }
    if (!(jobs = ccas_slurm_jobs_load (p.model, &err))) {
        rc = cli_fail (cli, EXIT_SCHEDULER, "%s", err.text);
        goto done;
    }
    if (ccas_match (p.model, jobs, NULL, &err) < 0 || !(plan = ccas_plan_create (p.model, jobs, &err))) {
        rc = cli_fail (cli, EXIT_INTERNAL, "%s", err.text);
        goto done;
    }
    if (cli->json) {
        json_object *extra = json_object_new_object ();
        print_waiting (jobs, true, extra);
        ccas_plan_write_json (plan, extra, stdout);
        json_object_put (extra);
    } else {
        print_waiting (jobs, false, NULL);
        plan_print (stdout, plan, false, false);
    }
done:
    ccas_plan_destroy (plan);
    ccas_jobs_destroy (jobs);
    ccas_power_detach (&p);
    return rc;
}
