/* SPDX-License-Identifier: MIT */
/* pbs_validate.h: does PBS's configuration fit what ccautoscale needs?
 *
 * `pbs validate` reads the server's resources, server and scheduler settings,
 * hooks (qmgr list), queues (qstat -Q -f -F json) and sched_config, and
 * hands them here: each check gives a finding {"check", "level" ("ok",
 * "warn", "fail"), "what", "fix"}, the fix a command to run or a line to
 * write.  What is checked, the way azpbs's validate did and more:
 *   - resources: every one a join sets (the site resources, and those of
 *     pbs.node_resources default_resources gives) is defined, as a host
 *     resource of the type ccautoscale writes (ungrouped a string: PBS
 *     compares "true" and "false" as words);
 *   - placement: node_group_enable True, node_group_key group_id,
 *     do_not_span_psets True; only_explicit_psets True is a warning (nodes
 *     without group_id, not ccautoscale's, then run no job of several nodes);
 *   - sched_config's resources: line names slot_type, group_id, ungrouped,
 *     disk, ngpus, nodearray and vm_size, or the scheduler ignores them;
 *   - queues: a resources_default or default_chunk of a host resource no node
 *     ccautoscale makes has (jobs keeping it run on none of its VMs), an
 *     ungrouped default other than true or false; a queue stopped, disabled
 *     or in pbs.ignore_queues is said;
 *   - hooks: ccautoscale's installed and enabled, azpbs's ('autoscale', and
 *     its cron file) off.
 * Nothing here runs a command or reads a file.
 */
#ifndef CCAS_PBS_VALIDATE_H
#define CCAS_PBS_VALIDATE_H

#include <json-c/json.h>
#include <stdbool.h>

#include "conf/conf.h"

/* A resource ccautoscale sets on nodes and jobs ask for, as install-hook
 * creates it. */
struct ccas_pbs_resource_def {
    const char *name, *type, *flag;
};

/* slot_type, group_id, ungrouped, vm_size, nodearray, ccnodeid, instance_id
 * (strings), ngpus (long) and disk (size); ended by a NULL name. */
extern const struct ccas_pbs_resource_def ccas_pbs_site_resources[];

/* What was read of the site (all borrowed; any may be NULL: it could not be
 * read, which is a finding of its own). */
struct ccas_pbs_site {
    json_object *resources;        /* qmgr list resource, parsed (pbs_qmgr.h) */
    json_object *server;           /* qmgr list server, parsed */
    json_object *sched;            /* qmgr list sched, parsed */
    json_object *hooks;            /* qmgr list hook, parsed */
    json_object *queues;           /* qstat -Q -f -F json */
    const char *sched_config;      /* its text */
    const char *sched_config_path; /* where it is */
    const char *azpbs_cron;        /* azpbs's cron file when it exists, else NULL */
};

/* The findings, in order (a new array; caller puts it); NULL when out of
 * memory.  `cfg` gives pbs.node_resources, default_resources,
 * disable_default_resources, pbs.ignore_queues and the hook's alarm. */
json_object *ccas_pbs_validate (const struct ccas_pbs_site *site, const struct ccas_config *cfg);

/* How many findings are at `level` ("fail", "warn", "ok"). */
size_t ccas_pbs_validate_count (json_object *findings, const char *level);

#endif /* !CCAS_PBS_VALIDATE_H */
