/* SPDX-License-Identifier: MIT */
/* sim.h: ccsim's state — the simulated cluster, its nodes, faults, hooks and request log.
 *
 * One global simulator guarded by one mutex: HTTP handlers (one thread per
 * connection) and the lifecycle ticker take `sim.lock` around every read or
 * change.  Times are wall-clock seconds (double).  Counts in status answers
 * are always computed from the nodes, never stored.
 */
#ifndef CCSIM_SIM_H
#define CCSIM_SIM_H

#include <json-c/json.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum node_phase {
    PH_ACQUIRING,
    PH_PREPARING,
    PH_READY,
    PH_FAILED,
    PH_TERMINATING,
    PH_TERMINATED, /* only Fixed nodes stay in this phase */
    PH_DEALLOCATING,
    PH_DEALLOCATED,
    PH_OFF,
};

struct sim_bucket;

struct sim_node {
    char *name, *id, *hostname, *ip, *instance_id, *pg, *status_message, *request_id, *operation_id;
    char *shutdown_policy;
    struct sim_bucket *bucket;
    enum node_phase phase;
    bool keep_alive, fixed, interruptible;
    bool no_hooks;
    bool mark; /* scratch: already collected by the current request */ /* made by /ccsim/nodes with "Hooks":
                                                                          false: its software never starts */
    bool hang;                                                         /* never gets past Acquiring */
    bool fail_on_boot;    /* goes to Failed instead of Preparing */
    bool held;            /* Preparing, its hostname and address reported, until released: its
                           * --on-boot program exits 0 or POST /ccsim/nodes/NAME/ready */
    int boot_pid;         /* its --on-boot program while that runs, else 0 */
    double created, next; /* when it was made; when the next transition is due */
    json_object *extra;   /* nodeAttributes and unknown fields, echoed */
    bool removed;
};

struct sim_nodearray {
    char *name;
    json_object *src;                  /* the file's nodearray status object (static fields, echoed) */
    int64_t max_count, max_core_count; /* -1 unlimited */
    char *shutdown_policy;
};

/* The limits CycleCloud states for a bucket, from the cluster file; -1 is
 * "not stated" (no limit).  The *_base counts are cores other clusters
 * consume, added to what this cluster's nodes use.  Quotas are Azure's, per
 * region: the family quota (and quotaCoreCount, the family-in-region quota
 * less nothing) is shared by the on-demand buckets of one family in one
 * region; the regional quota by the on-demand buckets of one region, and
 * the spot buckets of a region have a regional quota of their own.  A spot
 * bucket's family quota reads 0, as CycleCloud shows it. */
struct sim_bucket {
    struct sim_nodearray *na;
    json_object *src; /* the file's bucket object */
    char *machine_type;
    char family[128];
    const char *region; /* borrowed from the file; "" when not stated */
    bool spot;          /* the nodearray is Interruptible */
    int vcpu;
    double memory_gb;
    bool valid;
    int64_t max_count, max_core_count;
    int64_t quota_core_count, quota_base_consumed; /* quotaCoreCount, consumedCoreCount */
    int64_t family_quota_cores, family_base_consumed;
    int64_t regional_quota_cores, regional_base_consumed;
    int64_t max_pg_size, max_pg_core_size;
    double last_capacity_failure; /* wall time, or <0 never */
};

enum fault_kind {
    F_HTTP,
    F_HTML,
    F_MALFORMED,
    F_OVERSIZE,
    F_HANG,
    F_LATENCY,
    F_DROP,
    F_CAPACITY,
    F_BOOT_FAILURE,
    F_RANDOM,
    F_NKINDS
};

struct fault {
    enum fault_kind kind;
    int status;
    long retry_after;   /* -1 none */
    char *match;        /* substring of the path, or NULL for any */
    char *method;       /* or NULL */
    long count;         /* -1 forever */
    long ms;            /* latency */
    long bytes;         /* oversize */
    long seconds;       /* hang */
    bool after;         /* drop after processing */
    bool hang_mode;     /* boot_failure: hang instead of fail */
    char *machine_type; /* capacity / boot_failure filter */
    char *nodearray;
    double rate;         /* random */
    unsigned kinds_mask; /* random: which kinds */
    unsigned fired;
};

struct reqlog_entry {
    uint64_t seq;
    char method[8];
    char *path;
    int status; /* 0 when the connection was dropped */
    char *request_id;
    double time;
    json_object *nodes; /* the names a create made or an action was carried out on, or NULL */
    json_object *sets;  /* a create's sets as asked: nodearray, machine_type (null when the
                         * set named none), count, placement_group, node_attributes; or NULL */
};

struct operation {
    char *id, *action, *request_id;
    double start;
};

struct sim {
    pthread_mutex_t lock;
    char *cluster_name;
    char *state, *target_state; /* the cluster's; from the file ("Started" when it states
                                 * none), changed by POST /ccsim/cluster */
    json_object *file;          /* the cluster file, kept for echoing */
    int64_t max_count, max_core_count;
    struct sim_nodearray *nas;
    size_t nnas;
    struct sim_bucket *buckets;
    size_t nbuckets;
    struct sim_node **nodes;
    size_t nnodes, nodecap;
    struct operation *ops;
    size_t nops, opcap;
    struct fault *faults;
    size_t nfaults, faultcap;
    unsigned fault_counts[F_NKINDS];
    uint64_t rng;
    struct reqlog_entry *log;
    size_t nlog, logcap;
    uint64_t seq;
    double boot_delay;
    uint32_t ip_next; /* host-order IPv4 of the next address */
    char *on_ready, *on_terminate, *on_boot;
    bool hold_preparing; /* nodes wait in Preparing until POST /ccsim/nodes/NAME/ready */
    char *auth_user, *auth_password;
    char *state_dir;
    bool dirty;
    volatile bool stopping;
    unsigned released; /* bumped by DELETE /ccsim/faults: held answers and hangs end */
    unsigned created, terminated;
};

extern struct sim sim;

/* cluster_load.c */
int sim_load_cluster (const char *path, const char *name_override, char *err, size_t errsize);

/* cluster_load.c: NULL when the cluster is Started (nodes may be made and
 * started), else why not ("cluster test is Terminating"), in `buf`. */
const char *sim_cluster_closed (char *buf, size_t size);

/* nodes.c — call with sim.lock held */
struct sim_node *sim_node_find (const char *name);
struct sim_node *sim_node_find_any (const char *key); /* name, id, hostname or ip */

/* rest.c: the value of `key` in a URL query string ("a=1&b=2"), copied into
 * `buf` (cut to fit), or NULL if absent. */
const char *sim_query_value (const char *query, const char *key, char *buf, size_t size);

/* index.c: the lookups above are O(1); a node's keys are (re)indexed when it
 * is added, gets an address or is loaded, and dropped before it is freed. */
void sim_index_add (struct sim_node *n);
void sim_index_drop (const struct sim_node *n);
void sim_index_free (void);
struct sim_node *sim_node_add (struct sim_bucket *b, const char *name, const char *pg, json_object *attrs);
const char *sim_phase_status (enum node_phase ph);
const char *sim_target_state (const struct sim_node *n);
void sim_node_terminate (struct sim_node *n);
void sim_node_deallocate (struct sim_node *n);
void sim_node_start (struct sim_node *n);
void sim_node_fail (struct sim_node *n, const char *message);
void sim_tick (double now);
void sim_new_id (char *buf, size_t size);
double sim_now (void);
bool sim_node_active (const struct sim_node *n);

/* quota.c — call with sim.lock held */
int64_t sim_bucket_active (const struct sim_bucket *b);
int64_t sim_bucket_available (const struct sim_bucket *b, char *why, size_t whysize);
int64_t sim_pg_active (const struct sim_bucket *b, const char *pg);
/* Cores in use now, other clusters' included: by the on-demand buckets of
 * b's family in b's region (family), by b's kind (spot or not) in b's region
 * (regional); 0 for a spot bucket's family. */
int64_t sim_family_consumed (const struct sim_bucket *b);
int64_t sim_regional_consumed (const struct sim_bucket *b);
int64_t sim_quota_consumed (const struct sim_bucket *b);
/* The first valid bucket of `nodearray` with room for `count` nodes, else
 * its first valid bucket; NULL when it has none (a create naming no
 * machine type: "the first bucket that matches"). */
struct sim_bucket *sim_bucket_first_fit (const char *nodearray, int64_t count);
struct sim_bucket *sim_bucket_find (const char *nodearray, const char *machine_type);
struct sim_nodearray *sim_nodearray_find (const char *name);

/* json_out.c — call with sim.lock held */
json_object *sim_node_json (const struct sim_node *n);
json_object *sim_status_json (bool with_nodes);
json_object *sim_error_json (const char *exception, const char *message);

/* faults.c — call with sim.lock held */
int sim_fault_add (json_object *spec, char *err, size_t errsize);
struct fault *sim_fault_for_request (const char *method, const char *path);
bool sim_fault_capacity (const char *machine_type);
bool sim_fault_boot (const struct sim_bucket *b, bool *hang);
json_object *sim_faults_json (void);
void sim_faults_clear (void);
bool sim_random_hit (enum fault_kind kind);

/* hooks.c */
void sim_hook_run (const char *program, const struct sim_node *n);
/* Run `program` for `n` in a process group of its own; its pid, or 0. */
int sim_hook_start (const char *program, const struct sim_node *n);
/* Kill the process group of a program sim_hook_start() started. */
void sim_hook_kill (int pid);
/* Collect the hooks that ended; an --on-boot program's end moves its node on
 * (sim.lock is taken for that). */
void sim_hooks_reap (void);

/* reqlog.c — call with sim.lock held.  `nodes` (taken; may be NULL) are
 * the names the request made or acted on: tests prove from them that no
 * name was made twice, even when an answer was lost. */
void sim_log_request (const char *method, const char *path, int status, const char *request_id,
                      json_object *nodes, json_object *sets); /* takes both */
json_object *sim_log_json (void);
void sim_log_clear (void);

/* persist.c */
int sim_state_load (char *err, size_t errsize);
void sim_state_save (void);

/* rest.c and control.c: a handled request */
struct reply {
    int status;
    char *body; /* malloc'd */
    size_t len;
    long retry_after; /* -1 none */
    char location[128];
    bool html;
    bool drop;          /* close without answering */
    json_object *nodes; /* for the request log: names made or acted on */
    json_object *sets;  /* for the request log: a create's sets as asked */
};
void sim_rest (const char *method, const char *url, const char *query, const char *body, struct reply *r);
void sim_control (const char *method, const char *url, const char *query, const char *body, struct reply *r);
void reply_json (struct reply *r, int status, json_object *j); /* takes `j` */
void reply_error (struct reply *r, int status, const char *exception, const char *fmt, ...)
    __attribute__ ((format (printf, 4, 5)));

#endif /* !CCSIM_SIM_H */
