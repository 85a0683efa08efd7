/* SPDX-License-Identifier: MIT */
/* conf.h: autoscale.json — load, default, validate, describe.
 *
 * One table of known keys (config_keys.c) drives everything: an unknown key
 * or a wrong type is an error naming its JSON path; absent keys get their
 * defaults inserted into the document, so the effective configuration is the
 * document itself (ccas_config_effective).  A file that holds a password must
 * not be readable by group or others.  Sections "slurm" and "pbs" are
 * validated by the same table.
 *
 * Lifecycle: ccas_config_load() -> read fields -> ccas_config_destroy().
 * String fields are borrowed from the document and live as long as the config.
 */
#ifndef CCAS_CONF_H
#define CCAS_CONF_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

#include "error.h"

#define CCAS_DEFAULT_CONFIG "/etc/ccautoscale/autoscale.json"

struct ccas_config {
    const char *path;            /* the file loaded, or "<string>" */

    /* CycleCloud connection */
    const char *url;
    const char *username;
    char *password;              /* owned secret: from "password" or password_file */
    const char *password_file;
    const char *cluster_name;
    bool verify_certificates;
    const char *ca_file;
    double connect_timeout;      /* seconds */
    double request_timeout;      /* seconds */
    int retries;
    double retry_after_max;      /* seconds */
    int64_t max_response_mb;

    /* logging and files */
    const char *log_level;
    const char *log_file;
    bool log_syslog;
    const char *state_dir;
    const char *lock_file;

    /* scaling policy */
    double capacity_failure_backoff; /* seconds */
    json_object *default_resources;  /* borrowed array */
    bool disable_default_resources;
    json_object *gpu_counts;         /* borrowed object: machine type -> count */
    json_object *nodearrays;         /* borrowed object: name -> settings */

    json_object *slurm;              /* borrowed sections */
    json_object *pbs;

    json_object *root;               /* owned document, defaults filled in */
};

/* Load and validate `path`.  Returns a config (caller frees with
 * ccas_config_destroy()), or NULL with `err` as "PATH: KEY: what is wrong". */
struct ccas_config *ccas_config_load (const char *path, struct ccas_error *err);

/* Validate a document already parsed (takes ownership of `root`; it is put on
 * failure).  `origin` names it in errors.  No file-mode check is made. */
struct ccas_config *ccas_config_from_json (json_object *root, const char *origin,
                                           struct ccas_error *err);

void ccas_config_destroy (struct ccas_config *cfg);

/* The REST client's options as the configuration gives them: server,
 * credentials (borrowed from `cfg`), TLS, the command's limits
 * (connect_timeout, request_timeout, retries, retry_after_max) and the
 * response cap.  A program with limits of its own overrides those fields. */
struct ccas_ccapi_opts;
void ccas_config_client_opts (const struct ccas_config *cfg, struct ccas_ccapi_opts *opts);

/* Seconds of idle time / boot time allowed for nodes of `nodearray` (may be
 * NULL): nodearrays.<na>.X, else X's map entry for <na>, else its default. */
double ccas_config_idle_timeout (const struct ccas_config *cfg, const char *nodearray);
double ccas_config_boot_timeout (const struct ccas_config *cfg, const char *nodearray);

/* nodearrays.<na>.<key>, or NULL.  Borrowed. */
json_object *ccas_config_nodearray_get (const struct ccas_config *cfg, const char *nodearray,
                                        const char *key);

/* Section lookups with a dotted path ("slurm.node_prefix").  Borrowed; NULL if
 * absent (defaults are already filled in). */
json_object *ccas_config_lookup (const struct ccas_config *cfg, const char *dotted);
const char *ccas_config_lookup_str (const struct ccas_config *cfg, const char *dotted);
double ccas_config_lookup_double (const struct ccas_config *cfg, const char *dotted, double dflt);
bool ccas_config_lookup_bool (const struct ccas_config *cfg, const char *dotted, bool dflt);

/* The effective configuration as a new JSON object with the password
 * replaced by "****" (caller puts it). */
json_object *ccas_config_effective (const struct ccas_config *cfg);

/* One documented key, for `ccautoscale config keys`, the man page and README. */
struct ccas_config_key_doc {
    const char *name;    /* "logging.level", "nodearrays.*.idle_timeout" */
    const char *type;    /* "string", "seconds or {default, <nodearray>}", ... */
    const char *dflt;    /* JSON text, or NULL */
    const char *doc;
};

/* The documented keys, in table order; *n set to their number.  Static. */
const struct ccas_config_key_doc *ccas_config_keys (size_t *n);

#endif /* !CCAS_CONF_H */
