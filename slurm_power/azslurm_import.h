/* SPDX-License-Identifier: MIT */
/* azslurm_import.h: azslurm's autoscale.json made ccautoscale's.
 *
 * azslurm (CycleCloud's stock Slurm autoscaler) keeps its settings in
 * /opt/azurehpc/slurm/autoscale.json, written by `azslurm initconfig`:
 * the CycleCloud connection, config_dir (/sched/<cluster>, where azure.conf
 * and gres.conf live), default_resources (its slurm_gpus rule, a site's
 * slurm_memory), and settings of its own.  What has a meaning for
 * ccautoscale is carried over (the connection; default_resources, which
 * ccautoscale reads the same way; config_dir as slurm.conf_dir, with
 * slurm.nodes_file azure.conf and slurm.keepalive_file keep_alive.conf, so
 * the Include lines of the stock slurm.conf keep working; a nodearray's
 * max_placement_groups as its colocation); the rest is left, each key with
 * a note that says why.  The Slurm settings of the template need no import:
 * ccautoscale reads them from CycleCloud as azslurm does.
 *
 * The result holds the password: burn it (ccas_azslurm_import_release()
 * does) and write it mode 0600.  Depends on util/ only.
 */
#ifndef CCAS_AZSLURM_IMPORT_H
#define CCAS_AZSLURM_IMPORT_H

#include <json-c/json.h>
#include <stddef.h>

#include "util/error.h"

struct ccas_azslurm_import {
    json_object *config; /* owned: ccautoscale's configuration */
    char **notes;        /* owned: what was carried, changed or left, one line each */
    size_t nnotes;
    char conf_dir[4096]; /* where azslurm's azure.conf and gres.conf are */
};

/* Convert `azslurm` (the parsed autoscale.json, borrowed; `origin` names it
 * in errors).  Returns 0 with `out` filled (release it with
 * ccas_azslurm_import_release()), or -1 with `err` naming the key (url,
 * username, password or cluster_name missing or not a string, a wrong
 * type); `out` is then empty. */
int ccas_azslurm_import_convert (json_object *azslurm, const char *origin, struct ccas_azslurm_import *out,
                                 struct ccas_error *err);

/* Free what `imp` holds, the password burnt first.  Twice is harmless. */
void ccas_azslurm_import_release (struct ccas_azslurm_import *imp);

#endif /* !CCAS_AZSLURM_IMPORT_H */
