/* SPDX-License-Identifier: MIT */
/* model_load.h: build the cluster model for a command, live or replayed. */
#ifndef CCAS_MODEL_LOAD_H
#define CCAS_MODEL_LOAD_H

#include "cli.h"
#include "model/cluster.h"
#include "model/job.h"

/* Where the cluster comes from: files saved from the REST API (status and
 * nodes responses) for an offline replay, or the server (one status read and,
 * when `with_nodes`, one nodes read). */
struct model_source {
    const char *status_file; /* NULL: live */
    const char *nodes_file;  /* NULL with a status file: no existing nodes */
    bool with_nodes;
    bool apply_holds; /* live: buckets held back (capacity windows, open
                       * breakers) take no new nodes and say why */
};

/* Returns EXIT_OK with *out set (caller frees with ccas_cluster_destroy()),
 * or an exit code after printing the error. */
int model_load (struct cli *cli, const struct model_source *src, struct ccas_cluster **out);

/* Read a jobs file ("-" for stdin) into `c`'s constraint cache.  Returns
 * EXIT_OK with *out set (caller frees with ccas_jobs_destroy()), or an exit
 * code after printing the error. */
int jobs_load (struct cli *cli, struct ccas_cluster *c, const char *path, struct ccas_jobs **out);

#endif /* !CCAS_MODEL_LOAD_H */
