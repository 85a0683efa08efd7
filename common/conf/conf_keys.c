/* SPDX-License-Identifier: MIT */
/* conf_keys.c: every configuration key, its type, default, bounds or values, and meaning. */
#include "config.h"

#include <stddef.h>

#include "conf/conf.h"
#include "conf/conf_keys.h"

#define UNBOUNDED 1, 0

/* The values of the enum keys.  Their fields are written as int. */
static const struct ccas_conf_choice log_levels[] = {
    {"error", CCAS_CONF_LOG_ERROR}, {"warning", CCAS_CONF_LOG_WARNING}, {"notice", CCAS_CONF_LOG_NOTICE},
    {"info", CCAS_CONF_LOG_INFO},   {"debug", CCAS_CONF_LOG_DEBUG},     {NULL, 0},
};
_Static_assert(sizeof (enum ccas_conf_log_level) == sizeof (int), "logging.level is written as int");

static const struct ccas_conf_choice suspend_actions[] = {
    {"shutdown", CCAS_ACTION_SHUTDOWN},
    {"terminate", CCAS_ACTION_TERMINATE},
    {"deallocate", CCAS_ACTION_DEALLOCATE},
    {NULL, 0},
};
_Static_assert(sizeof (enum ccas_node_action) == sizeof (int), "slurm.suspend_action is written as int");

/* the field a key is read into: of struct ccas_config, or for a key under
 * "nodearrays.*." of struct ccas_nodearray_config */
#define F(member) offsetof (struct ccas_config, member)
#define NA(member) offsetof (struct ccas_nodearray_config, member)

/* clang-format off: one key per entry, its documentation on the next line */
const struct config_key ccas_conf_keys_table[] = {
    /* group: CycleCloud connection */
    {"url", KEY_STRING, NULL, UNBOUNDED, NULL, KEY_REQUIRED,
     "CycleCloud web server root, e.g. https://cyclecloud.example.com: http:// or https://, without "
     "credentials",
     F (url)},
    {"username", KEY_STRING, NULL, UNBOUNDED, NULL, KEY_REQUIRED, "CycleCloud user", F (username)},
    {"password", KEY_STRING, NULL, UNBOUNDED, NULL, KEY_SECRET,
     "CycleCloud password; the file must then be mode 0600 (set this or password_file, not both)", NO_FIELD},
    {"password_file", KEY_STRING, NULL, UNBOUNDED, NULL, 0,
     "file holding the password on its first line, mode 0600 (set this or password, not both)",
     F (password_file)},
    {"cluster_name", KEY_STRING, NULL, UNBOUNDED, NULL, KEY_REQUIRED, "the CycleCloud cluster to scale",
     F (cluster_name)},
    {"verify_certificates", KEY_BOOL, "true", UNBOUNDED, NULL, 0,
     "verify the server's TLS certificate; false only for testing (a warning is logged whatever "
     "logging.level says)",
     F (verify_certificates)},
    {"ca_file", KEY_STRING, NULL, UNBOUNDED, NULL, 0,
     "PEM bundle of the CA that signed the server's certificate", F (ca_file)},
    {"connect_timeout", KEY_NUMBER, "10", 0.1, 600, NULL, 0, "seconds to wait for a connection",
     F (connect_timeout)},
    {"request_timeout", KEY_NUMBER, "60", 1, 3600, NULL, 0, "seconds one HTTP request may take",
     F (request_timeout)},
    {"retries", KEY_INT, "4", 0, 20, NULL, 0,
     "further attempts for a read or node action after a transport error, 429 or 5xx", F (retries)},
    {"retry_after_max", KEY_NUMBER, "30", 1, 3600, NULL, 0,
     "seconds: a server's Retry-After up to this is waited in full; a longer one fails the request at once "
     "(retrying sooner only earns another 429); the Slurm programs wait at most 2 s",
     F (retry_after_max)},
    {"max_response_mb", KEY_INT, "256", 1, 4096, NULL, 0, "refuse server responses larger than this many MiB",
     F (max_response_mb)},

    /* group: Logging and files */
    {"logging", KEY_SECTION, "{}", UNBOUNDED, NULL, 0, "where and how much to log", NO_FIELD},
    {"logging.level", KEY_ENUM, "\"info\"", UNBOUNDED, log_levels, 0,
     "least important message written to syslog and logging.file (stderr shows warnings, more with -v, "
     "errors only with -q)",
     F (logging.level)},
    {"logging.file", KEY_STRING, NULL, UNBOUNDED, NULL, 0, "also append log lines to this file",
     F (logging.file)},
    {"logging.syslog", KEY_BOOL, "true", UNBOUNDED, NULL, 0, "log to syslog (daemon facility)",
     F (logging.syslog)},
    {"state_dir", KEY_STRING, "\"/var/lib/ccautoscale\"", UNBOUNDED, NULL, 0,
     "directory for small state files (idle times, back-offs, pending requests)", F (state_dir)},
    {"lock_file", KEY_STRING, "\"/run/ccautoscale.lock\"", UNBOUNDED, NULL, 0,
     "lock that keeps concurrent runs from racing on the same nodes", F (lock_file)},

    /* group: Scaling policy */
    {"idle_timeout", KEY_SECONDS_MAP, "300", 0, 1e9, NULL, 0,
     "seconds a node may sit idle before it is terminated (PBS and demand; under Slurm, SuspendTime "
     "decides): one number, or one per nodearray and a default",
     F (idle_timeout)},
    {"boot_timeout", KEY_SECONDS_MAP, "1800", 0, 1e9, NULL, 0,
     "seconds a node may take to become ready (PBS and demand; under Slurm, ResumeTimeout decides): one "
     "number, or one per nodearray and a default",
     F (boot_timeout)},
    {"capacity_failure_backoff", KEY_NUMBER, "300", 0, 86400, NULL, 0,
     "seconds a bucket is held back after a capacity or quota failure", F (capacity_failure_backoff)},
    {"default_resources", KEY_ARRAY, "[]", UNBOUNDED, NULL, 0,
     "ordered rules {select, name, value} that define node resources", F (default_resources)},
    {"disable_default_resources", KEY_BOOL, "false", UNBOUNDED, NULL, 0,
     "do not add the built-in resources (ncpus, mem, ngpus, ...) to nodes", F (disable_default_resources)},
    {"gpu_counts", KEY_INT_MAP, "{}", 0, 64, NULL, 0,
     "GPUs per VM by machine type, over what the server reports and the built-in table, e.g. "
     "{\"Standard_NC6\": 1}",
     F (gpu_counts)},
    {"shared_resources", KEY_OPEN, "{}", UNBOUNDED, NULL, 0,
     "cluster-wide resources no node owns: a number is consumed by jobs (licences), a string or boolean is "
     "compared",
     F (shared_resources)},

    /* group: Nodearrays */
    {"nodearrays", KEY_MAP, "{}", UNBOUNDED, NULL, 0, "settings per nodearray, by name", NO_FIELD},
    {"nodearrays.*", KEY_SECTION, NULL, UNBOUNDED, NULL, 0, "settings of one nodearray", NO_FIELD},
    {"nodearrays.*.idle_timeout", KEY_NUMBER, NULL, 0, 1e9, NULL, 0, "idle_timeout for this nodearray",
     NA (idle_timeout)},
    {"nodearrays.*.boot_timeout", KEY_NUMBER, NULL, 0, 1e9, NULL, 0, "boot_timeout for this nodearray",
     NA (boot_timeout)},
    {"nodearrays.*.priority", KEY_INT, NULL, -1000000, 1000000, NULL, 0,
     "order among nodearrays when several fit (higher first; default the nodearray's Priority)",
     NA (priority)},
    {"nodearrays.*.enabled", KEY_BOOL, NULL, UNBOUNDED, NULL, 0, "false: never create nodes here",
     NA (enabled)},
    {"nodearrays.*.colocated", KEY_BOOL, NULL, UNBOUNDED, NULL, 0,
     "jobs of several nodes here keep them in one placement group (default: per bucket, true for InfiniBand "
     "machine types, or all when the nodearray has a PlacementGroupId)",
     NA (colocated)},
    {"nodearrays.*.machine_types", KEY_STRING_LIST, NULL, UNBOUNDED, NULL, 0,
     "preference order of machine types in this nodearray (default: the server's order)", NA (machine_types)},
    {"nodearrays.*.slurm_partition", KEY_STRING, NULL, UNBOUNDED, NULL, 0,
     "Slurm partition name for this nodearray (default: the nodearray's name)", NA (slurm_partition)},

    /* group: Slurm */
    {"slurm", KEY_SECTION, "{}", UNBOUNDED, NULL, 0, "the Slurm integration", NO_FIELD},
    {"slurm.node_prefix", KEY_STRING, "\"\"", UNBOUNDED, NULL, 0,
     "prefix of Slurm node names: <prefix><nodearray>-<i>", F (slurm.node_prefix)},
    {"slurm.conf_dir", KEY_STRING, "\"/etc/slurm\"", UNBOUNDED, NULL, 0,
     "where 'slurm conf --write' puts ccautoscale.conf, gres.conf and topology.conf", F (slurm.conf_dir)},
    {"slurm.max_nodes", KEY_INT, "1000", 1, 100000, NULL, 0,
     "most node names per machine type (fewer when the bucket's maxCount is lower)", F (slurm.max_nodes)},
    {"slurm.memory_margin_percent", KEY_NUMBER, "5", 0, 50, NULL, 0,
     "RealMemory leaves this share of the VM's memory to the OS", F (slurm.memory_margin_percent)},
    {"slurm.memory_margin_min_mb", KEY_INT, "1024", 0, 1048576, NULL, 0,
     "RealMemory leaves at least this many MB to the OS, whatever slurm.memory_margin_percent gives",
     F (slurm.memory_margin_min_mb)},
    {"slurm.suspend_action", KEY_ENUM, "\"shutdown\"", UNBOUNDED, suspend_actions, 0,
     "what SuspendProgram asks of CycleCloud (shutdown follows each node's ShutdownPolicy)",
     F (slurm.suspend_action)},
    {"slurm.set_node_addr", KEY_BOOL, "true", UNBOUNDED, NULL, 0,
     "set NodeAddr/NodeHostname from the VM's private IP (off where DNS resolves node names)",
     F (slurm.set_node_addr)},
    {"slurm.default_partition", KEY_STRING, NULL, UNBOUNDED, NULL, 0,
     "nodearray whose partition is Default=YES (default: the first nodearray)", F (slurm.default_partition)},
    {"slurm.exclusive_colocated", KEY_BOOL, "true", UNBOUNDED, NULL, 0,
     "colocated (placement group) partitions get OverSubscribe=EXCLUSIVE", F (slurm.exclusive_colocated)},
    {"slurm.lock_timeout", KEY_NUMBER, "20", 0, 600, NULL, 0,
     "seconds the programs wait for another run's lock", F (slurm.lock_timeout)},
    {"slurm.connect_timeout", KEY_NUMBER, "3", 0.1, 600, NULL, 0,
     "seconds the resume, suspend and resume-fail programs wait for a connection (slurmctld waits for them)",
     F (slurm.connect_timeout)},
    {"slurm.request_timeout", KEY_NUMBER, "15", 1, 3600, NULL, 0,
     "seconds one HTTP request of those programs may take", F (slurm.request_timeout)},
    {"slurm.retries", KEY_INT, "1", 0, 20, NULL, 0,
     "further attempts those programs make after a transport error, 429 or 5xx", F (slurm.retries)},
    {"slurm.node_port_base", KEY_INT, NULL, 1024, 65000, NULL, 0,
     "a cluster simulated on one machine: each node gets NodeAddr=127.0.0.1 and its own slurmd Port from "
     "this base",
     F (slurm.node_port_base)},
    {"slurm.keepalive_file", KEY_STRING, "\"ccautoscale_keepalive.conf\"", UNBOUNDED, NULL, 0,
     "file in slurm.conf_dir, included by ccautoscale.conf, where sync keeps SuspendExcNodes for KeepAlive "
     "nodes (\"\" turns it off)",
     F (slurm.keepalive_file)},
    {"slurm.gpu_device_files", KEY_STRING, "\"/dev/nvidia%d\"", UNBOUNDED, NULL, 0,
     "gres.conf File= of a VM's GPUs, %d standing for each GPU's number (Slurm 25.11 drops a GPU without "
     "one, and refuses the node)",
     F (slurm.gpu_device_files)},
    {"slurm.gpu_device_first", KEY_INT, "0", 0, 100000, NULL, 0,
     "the number of a VM's first GPU in slurm.gpu_device_files (AMD's /dev/dri/renderD%d: 128)",
     F (slurm.gpu_device_first)},

    /* group: Circuit breaker */
    {"breaker", KEY_SECTION, "{}", UNBOUNDED, NULL, 0,
     "the circuit breaker: stop creating where VMs keep failing to boot", NO_FIELD},
    {"breaker.threshold", KEY_INT, "5", 0, 1000, NULL, 0,
     "consecutive boot failures in one nodearray that open its breaker (0: never)", F (breaker.threshold)},
    {"breaker.cooldown", KEY_NUMBER, "1800", 0, 1e9, NULL, 0,
     "seconds an open breaker stays open (0: until 'ccautoscale breaker reset')", F (breaker.cooldown)},

    /* group: Events and metrics */
    {"events", KEY_SECTION, "{}", UNBOUNDED, NULL, 0,
     "the events file: one JSON line per decision and outcome", NO_FIELD},
    {"events.file", KEY_STRING, NULL, UNBOUNDED, NULL, 0,
     "where events go (default state_dir/events.jsonl; \"\" turns them off)", F (events.file)},
    {"events.max_mb", KEY_NUMBER, "64", 0.001, 100000, NULL, 0, "rotate the events file past this size",
     F (events.max_mb)},
    {"events.keep", KEY_INT, "3", 0, 100, NULL, 0, "rotated events files kept (FILE.1 is the newest)",
     F (events.keep)},
    {"metrics", KEY_SECTION, "{}", UNBOUNDED, NULL, 0, "the Prometheus metrics file", NO_FIELD},
    {"metrics.file", KEY_STRING, NULL, UNBOUNDED, NULL, 0,
     "Prometheus text file rewritten after each run (default state_dir/ccautoscale.prom; \"\" turns it off); "
     "point node_exporter's textfile collector at its directory",
     F (metrics.file)},

    /* group: PBS */
    {"pbs", KEY_SECTION, "{}", UNBOUNDED, NULL, 0, "the PBS integration", NO_FIELD},
    {"pbs.bin_dir", KEY_STRING, NULL, UNBOUNDED, NULL, 0,
     "directory of qstat, pbsnodes and qmgr (default: the PATH, then /opt/pbs/bin)", F (pbs.bin_dir)},
    {"pbs.command_timeout", KEY_NUMBER, "30", 1, 600, NULL, 0,
     "seconds one PBS command may take before it is killed", F (pbs.command_timeout)},
    {"pbs.node_resources", KEY_STRING_LIST, "[\"ncpus\", \"mem\", \"ngpus\", \"disk\", \"slot_type\"]",
     UNBOUNDED, NULL, 0,
     "node resources (from default_resources) set as resources_available.* when a node joins; "
     "vm_size, nodearray, group_id, ungrouped, instance_id and ccnodeid are always set",
     F (pbs.node_resources)},
    {"pbs.hook_freq", KEY_INT, "15", 5, 3600, NULL, 0,
     "seconds between runs of the periodic hook (install-hook)", F (pbs.hook_freq)},
    {"pbs.hook_timeout", KEY_INT, "100", 10, 3600, NULL, 0,
     "seconds the hook lets one pass run; the hook's alarm is 20 s more (install-hook)",
     F (pbs.hook_timeout)},
    {"pbs.ignore_queues", KEY_STRING_LIST, "[]", UNBOUNDED, NULL, 0,
     "queues whose jobs get no nodes (azpbs's pbspro.ignore_queues); the jobs stay queued for nodes PBS has",
     F (pbs.ignore_queues)},
    {"pbs.valid_hostnames", KEY_STRING_LIST, NULL, UNBOUNDED, NULL, 0,
     "regular expressions (POSIX extended, matched from the start): only VMs whose hostname one matches are "
     "joined to PBS (azpbs's valid_hostnames; default: every hostname)",
     F (pbs.valid_hostnames)},
    {"pbs.ignore_hostnames", KEY_STRING, NULL, UNBOUNDED, NULL, 0,
     "a regular expression (POSIX extended, matched from the start): PBS nodes whose name it matches are "
     "left alone, never read, joined, drained or deleted (azpbs's pbspro.ignore_hostnames_re)",
     F (pbs.ignore_hostnames)},
};
/* clang-format on */

const size_t ccas_conf_keys_count = sizeof (ccas_conf_keys_table) / sizeof (ccas_conf_keys_table[0]);

/* The headings of the reference, one for each "group:" above. */
const struct config_group ccas_conf_groups[] = {
    {"url", "CycleCloud connection"},
    {"logging", "Logging and files"},
    {"idle_timeout", "Scaling policy"},
    {"nodearrays", "Nodearrays"},
    {"slurm", "Slurm"},
    {"breaker", "Circuit breaker"},
    {"events", "Events and metrics"},
    {"pbs", "PBS"},
};

const size_t ccas_conf_groups_count = sizeof (ccas_conf_groups) / sizeof (ccas_conf_groups[0]);
