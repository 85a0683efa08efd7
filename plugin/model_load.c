/* SPDX-License-Identifier: MIT */
/* model_load.c: the model from the server or from saved responses; jobs from a file. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <time.h>

#include "engine/holds.h"
#include "model/job.h"
#include "model_load.h"
#include "util/file.h"
#include "util/json.h"
#include "util/log.h"

#define INPUT_MAX_BYTES ((size_t)2 * 1024 * 1024 * 1024)

static int load_offline (struct cli *cli, const struct model_source *src, struct ccas_status **st,
                         struct ccas_record_list **nodes)
{
    struct ccas_error err = {""};
    json_object *root = ccas_json_load_file (src->status_file, INPUT_MAX_BYTES, &err);
    if (!root || !(*st = ccas_status_from_json (root, cli->cfg->cluster_name, &err)))
        return cli_fail (cli, EXIT_USAGE, "%s", err.text);
    if (!src->nodes_file)
        return EXIT_OK;
    if (!(root = ccas_json_load_file (src->nodes_file, INPUT_MAX_BYTES, &err)) ||
        !(*nodes = ccas_record_list_from_json (root, &err))) {
        ccas_status_destroy (*st);
        *st = NULL;
        return cli_fail (cli, EXIT_USAGE, "%s: %s", src->nodes_file, err.text);
    }
    return EXIT_OK;
}

static int load_live (struct cli *cli, const struct model_source *src, struct ccas_status **st,
                      struct ccas_record_list **nodes)
{
    struct ccas_error err = {""};
    (void)nodes; /* one request: status?nodes=true carries the node records too */
    if (ccas_ccapi_get_status (cli->api, src->with_nodes, st, &err) < 0)
        return cli_fail_api (cli, &err);
    return EXIT_OK;
}

/* The holds are read, not changed: a hold that ended is simply not applied
 * (the run that holds the lock removes it).  Unreadable holds are a warning:
 * a look at the cluster should not fail for want of the state directory. */
static void apply_holds (struct cli *cli, struct ccas_cluster *c)
{
    struct ccas_error err = {""};
    struct ccas_holds *h = ccas_holds_load (cli->cfg->state_dir, &err);
    if (!h || ccas_holds_apply (h, c, (double)time (NULL)) < 0)
        ccas_log (LOG_WARNING, "capacity windows and breakers not applied: %s",
                  err.text[0] ? err.text : "out of memory");
    ccas_holds_destroy (h);
}

int model_load (struct cli *cli, const struct model_source *src, struct ccas_cluster **out)
{
    struct ccas_error err = {""};
    struct ccas_status *st = NULL;
    struct ccas_record_list *nodes = NULL;
    int rc = src->status_file ? load_offline (cli, src, &st, &nodes) : load_live (cli, src, &st, &nodes);
    if (rc != EXIT_OK)
        return rc;
    if (!(*out = ccas_cluster_create (cli->cfg, st, nodes, &err)))
        return cli_fail (cli, EXIT_CONFIG, "%s: %s", cli->cfg->path, err.text);
    if (src->apply_holds && !src->status_file)
        apply_holds (cli, *out);
    return EXIT_OK;
}

int jobs_load (struct cli *cli, struct ccas_cluster *c, const char *path, struct ccas_jobs **out)
{
    struct ccas_error err = {""};
    const char *name = strcmp (path, "-") == 0 ? "/dev/stdin" : path;
    size_t len;
    char *text = ccas_file_read (name, INPUT_MAX_BYTES, &len, &err);
    if (!text)
        return cli_fail (cli, EXIT_USAGE, "%s", err.text);
    *out = ccas_jobs_from_text (text, len, c->cons, strcmp (path, "-") == 0 ? "<stdin>" : path, &err);
    free (text);
    if (!*out)
        return cli_fail (cli, EXIT_USAGE, "%s", err.text);
    return EXIT_OK;
}
