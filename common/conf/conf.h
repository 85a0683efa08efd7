/* SPDX-License-Identifier: MIT */
/* conf.h: autoscale.json — load, default, validate, describe.
 *
 * One table of known keys (conf_keys.c) drives everything: an unknown key
 * or a wrong type is an error naming its JSON path; absent keys get their
 * defaults inserted into the document, so the effective configuration is the
 * document itself (ccas_conf_effective); and each key is bound to its field
 * below, so code reads `cfg->slurm.max_nodes`, never a dotted string, and a
 * default is written once, in the table.  A file that holds a password must
 * not be readable by group or others.
 *
 * Lifecycle: ccas_conf_load() -> read fields -> ccas_conf_destroy().
 * String and JSON fields are borrowed from the document and live as long as
 * the config.  A key with a fixed set of values (logging.level,
 * slurm.suspend_action) is read into an enum field: code switches on the
 * value, never compares the string.  Depends on util/ and on ccapi/ for the
 * client's options and the node actions.
 */
#ifndef CCAS_CONF_H
#define CCAS_CONF_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ccapi/ccapi.h"
#include "util/error.h"
#include "util/log.h"

#define CCAS_DEFAULT_CONFIG "/etc/ccautoscale/autoscale.json"

/* logging.level: syslog's priorities, which ccas_log_open() takes as they are */
enum ccas_conf_log_level {
    CCAS_CONF_LOG_ERROR = LOG_ERR,
    CCAS_CONF_LOG_WARNING = LOG_WARNING,
    CCAS_CONF_LOG_NOTICE = LOG_NOTICE,
    CCAS_CONF_LOG_INFO = LOG_INFO,
    CCAS_CONF_LOG_DEBUG = LOG_DEBUG,
};

/* serve.auth: what proves that a caller of `ccautoscale serve` is the node it names */
enum ccas_conf_serve_auth {
    CCAS_CONF_SERVE_AUTH_ADDRESS_OR_TOKEN, /* the node's own private address, or its token */
    CCAS_CONF_SERVE_AUTH_TOKEN,            /* its token only */
};

/* slurm.zombie_vms: what sync does with a VM behind a powered-down node */
enum ccas_conf_zombie {
    CCAS_CONF_ZOMBIE_KEEP,      /* mark the node down, keep the VM (azslurm) */
    CCAS_CONF_ZOMBIE_TERMINATE, /* terminate the VM */
};

/* slurm.failed_vms: what the Slurm side does with a Failed VM */
enum ccas_conf_failed {
    CCAS_CONF_FAILED_RELEASE, /* terminate it, hand its node back */
    CCAS_CONF_FAILED_KEEP,    /* hand its node back, keep the VM (drained node) */
};

/* One value of a key that takes a fixed set of them: its name in the file,
 * and the value its enum field then holds. */
struct ccas_conf_choice {
    const char *name;
    int value;
};

/* nodearrays.<name>: what a site set for one nodearray.  An unset number is
 * NAN, an unset boolean -1, an unset string or list NULL: the caller's own
 * default (the server's, or the global key's) applies. */
struct ccas_nodearray_config {
    const char *name;
    double idle_timeout;        /* seconds */
    double boot_timeout;        /* seconds */
    double priority;            /* higher first */
    int enabled;                /* -1, 0, 1 */
    int colocated;              /* -1, 0, 1 */
    json_object *machine_types; /* array of strings, preference order */
    const char *slurm_partition;
};

struct ccas_config {
    const char *path; /* the file loaded, or "<string>" */

    /* CycleCloud connection */
    const char *url;
    const char *username;
    char *password; /* owned secret: from "password" or password_file */
    const char *password_file;
    const char *cluster_name;
    bool verify_certificates;
    const char *ca_file;
    double connect_timeout; /* seconds */
    double request_timeout; /* seconds */
    int retries;
    double retry_after_max; /* seconds */
    int max_response_mb;

    /* logging and files */
    struct {
        enum ccas_conf_log_level level;
        const char *file; /* NULL: none */
        bool syslog;
    } logging;
    const char *state_dir;
    const char *lock_file;

    /* scaling policy */
    json_object *idle_timeout;       /* number or map: read with ccas_conf_idle_timeout() */
    json_object *boot_timeout;       /* number or map: read with ccas_conf_boot_timeout() */
    double capacity_failure_backoff; /* seconds */
    json_object *default_resources;  /* array */
    bool disable_default_resources;
    json_object *gpu_counts;                  /* object: machine type -> count */
    json_object *shared_resources;            /* object */
    struct ccas_nodearray_config *nodearrays; /* owned array, in the document's order */
    size_t nnodearrays;

    struct {
        const char *node_prefix;
        const char *conf_dir;
        const char *nodes_file;
        int max_nodes; /* 0: not set */
        double memory_margin_percent;
        int memory_margin_min_mb;
        enum ccas_node_action suspend_action; /* shutdown, terminate or deallocate */
        bool set_node_addr;
        const char *default_partition; /* NULL: not set */
        bool exclusive_colocated;
        double lock_timeout;
        double connect_timeout;
        double request_timeout;
        int retries;
        int node_port_base; /* 0: not set */
        const char *keepalive_file;
        const char *gpu_device_files; /* gres.conf File= pattern, one %d; NULL: not set */
        int gpu_device_first;
        enum ccas_conf_zombie zombie_vms;
        enum ccas_conf_failed failed_vms;
        bool dynamic_delete; /* delete the dynamic records ccautoscale made once powered down */
    } slurm;

    struct {
        int threshold;
        double cooldown;
    } breaker;

    struct {
        const char *file; /* as set; NULL: default */
        double max_mb;
        int keep;
        char *path; /* owned: where events go, NULL when off */
    } events;

    struct {
        const char *file; /* as set; NULL: default */
        char *path;       /* owned: the metrics file, NULL when off */
    } metrics;

    struct {
        const char *listen;    /* "ADDR:PORT" */
        const char *cert_file; /* TLS: both or neither */
        const char *key_file;
        bool plain_http; /* plain HTTP allowed off loopback */
        enum ccas_conf_serve_auth auth;
        const char *token_key_file; /* NULL: state_dir/serve-token.key */
        double status_max_age;      /* seconds */
        double lock_timeout;        /* seconds */
        int client_timeout;         /* seconds */
        int max_connections;
        int max_connections_per_address;
    } serve;

    struct {
        const char *bin_dir; /* NULL: the PATH, then /opt/pbs/bin */
        double command_timeout;
        json_object *node_resources; /* array of strings */
        int hook_freq;
        int hook_timeout;
        json_object *ignore_queues;   /* array of strings */
        json_object *valid_hostnames; /* array of strings, or NULL: every hostname */
        const char *ignore_hostnames; /* NULL: none */
    } pbs;

    json_object *root; /* owned document, defaults filled in */
    bool *given;       /* owned: per row of the key table, whether the file set it */

    /* what is valid but will not do what the file seems to expect (keys set
     * that no program of this site reads ...); owned; `config check` prints them */
    char **warnings;
    size_t nwarnings;
};

/* Load and validate `path`.  Returns a config (caller frees with
 * ccas_conf_destroy()), or NULL with `err` as "PATH: KEY: what is wrong". */
struct ccas_config *ccas_conf_load (const char *path, struct ccas_error *err);

/* Validate a document already parsed (takes ownership of `root`; it is put on
 * failure).  `origin` names it in errors.  No file-mode check is made. */
struct ccas_config *ccas_conf_from_json (json_object *root, const char *origin, struct ccas_error *err);

void ccas_conf_destroy (struct ccas_config *cfg);

/* The REST client's options as the configuration gives them: server,
 * credentials (borrowed from `cfg`), TLS, the command's limits
 * (connect_timeout, request_timeout, retries, retry_after_max) and the
 * response cap.  A program with limits of its own overrides those fields. */
void ccas_conf_client_opts (const struct ccas_config *cfg, struct ccas_ccapi_opts *opts);

/* Seconds of idle time / boot time allowed for nodes of `nodearray` (may be
 * NULL): nodearrays.<na>.X, else X's map entry for <na>, else its default. */
double ccas_conf_idle_timeout (const struct ccas_config *cfg, const char *nodearray);
double ccas_conf_boot_timeout (const struct ccas_config *cfg, const char *nodearray);

/* Whether the file set `key` (a key of the table outside nodearrays.*,
 * "slurm.node_prefix") rather than leaving it to its default: a setting
 * the site made comes before what CycleCloud's template says. */
bool ccas_conf_given (const struct ccas_config *cfg, const char *key);

/* The settings of `nodearray`, or NULL when it has none.  Borrowed. */
const struct ccas_nodearray_config *ccas_conf_nodearray (const struct ccas_config *cfg,
                                                         const char *nodearray);

/* The effective configuration as a new JSON object with the password
 * replaced by "****" (caller puts it). */
json_object *ccas_conf_effective (const struct ccas_config *cfg);

/* One documented key, for `ccautoscale config keys`, which also writes
 * doc/configuration.md and ccautoscale.json(5). */
struct ccas_conf_key_doc {
    const char *name;  /* "logging.level", "nodearrays.*.idle_timeout" */
    const char *type;  /* "string", "seconds or {default, <nodearray>}", ... */
    const char *dflt;  /* JSON text, or NULL */
    const char *doc;   /* one sentence or a few, lowercase, no full stop */
    const char *group; /* the heading of its part of the table: "Slurm" */
    /* the values a string may take, ended by a NULL name; NULL: any */
    const struct ccas_conf_choice *choices;
    bool bounded; /* a number (or a map's numbers) within [min, max] */
    double min, max;
    bool required; /* a file without it is refused */
    bool secret;   /* never printed: "****" */
};

/* The documented keys, in table order; *n set to their number.  Static. */
const struct ccas_conf_key_doc *ccas_conf_keys (size_t *n);

#endif /* !CCAS_CONF_H */
