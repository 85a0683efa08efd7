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

static const struct ccas_conf_choice serve_auths[] = {
    {"address_or_token", CCAS_CONF_SERVE_AUTH_ADDRESS_OR_TOKEN},
    {"token", CCAS_CONF_SERVE_AUTH_TOKEN},
    {NULL, 0},
};
_Static_assert(sizeof (enum ccas_conf_serve_auth) == sizeof (int), "serve.auth is written as int");

static const struct ccas_conf_choice zombie_policies[] = {
    {"keep", CCAS_CONF_ZOMBIE_KEEP},
    {"terminate", CCAS_CONF_ZOMBIE_TERMINATE},
    {NULL, 0},
};
_Static_assert(sizeof (enum ccas_conf_zombie) == sizeof (int), "slurm.zombie_vms is written as int");

static const struct ccas_conf_choice failed_policies[] = {
    {"release", CCAS_CONF_FAILED_RELEASE},
    {"keep", CCAS_CONF_FAILED_KEEP},
    {NULL, 0},
};
_Static_assert(sizeof (enum ccas_conf_failed) == sizeof (int), "slurm.failed_vms is written as int");

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
     "resources no node owns: a number is consumed by jobs (licences), a string or boolean is compared; "
     "{\"NAME\": {\"cluster\": V, \"queues\": {\"QUEUE\": V}}} gives queues pools of their own beside "
     "the cluster's (a job takes from both)",
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
     "jobs of several nodes here keep them in one placement group (default: the nodearray's Configuration "
     "slurm.hpc, as CycleCloud's Slurm template sets it; else all when the nodearray has a PlacementGroupId; "
     "else per bucket, true for InfiniBand machine types)",
     NA (colocated)},
    {"nodearrays.*.machine_types", KEY_STRING_LIST, NULL, UNBOUNDED, NULL, 0,
     "preference order of machine types in this nodearray (default: the server's order)", NA (machine_types)},
    {"nodearrays.*.slurm_partition", KEY_STRING, NULL, UNBOUNDED, NULL, 0,
     "Slurm partition name for this nodearray (default: its Configuration slurm.partition, as CycleCloud's "
     "Slurm template sets it, else the nodearray's name)",
     NA (slurm_partition)},

    /* group: Slurm */
    {"slurm", KEY_SECTION, "{}", UNBOUNDED, NULL, 0, "the Slurm integration", NO_FIELD},
    {"slurm.node_prefix", KEY_STRING, "\"\"", UNBOUNDED, NULL, 0,
     "prefix of Slurm node names, <prefix><nodearray>-<i>: letters, digits and '-' (when not set, each "
     "nodearray's Configuration slurm.node_prefix, where CycleCloud's Slurm template puts the cluster's name "
     "and "
     "'-', made a hostname; else none)",
     F (slurm.node_prefix)},
    {"slurm.conf_dir", KEY_STRING, "\"/etc/slurm\"", UNBOUNDED, NULL, 0,
     "where 'slurm conf --write' puts slurm.nodes_file, gres.conf and topology.conf", F (slurm.conf_dir)},
    {"slurm.nodes_file", KEY_STRING, "\"ccautoscale.conf\"", UNBOUNDED, NULL, 0,
     "file in slurm.conf_dir that 'slurm conf --write' writes the node and partition lines to, for "
     "slurm.conf to "
     "include (azure.conf replaces azslurm's where slurm.conf includes that)",
     F (slurm.nodes_file)},
    {"slurm.max_nodes", KEY_INT, NULL, 1, 100000, NULL, 0,
     "most node names per machine type, below what CycleCloud allows (a warning names each nodearray it "
     "cuts); "
     "default: as many as the bucket's maxCount, 1000 when CycleCloud states none",
     F (slurm.max_nodes)},
    {"slurm.memory_margin_percent", KEY_NUMBER, "5", 0, 50, NULL, 0,
     "RealMemory leaves this share of the VM's memory to the OS; set (or slurm.memory_margin_min_mb), it "
     "comes "
     "before the template's slurm.dampen_memory and the slurm_memory rule of default_resources, which come "
     "before "
     "this default",
     F (slurm.memory_margin_percent)},
    {"slurm.memory_margin_min_mb", KEY_INT, "1024", 0, 1048576, NULL, 0,
     "RealMemory leaves at least this many MB to the OS, whatever slurm.memory_margin_percent gives",
     F (slurm.memory_margin_min_mb)},
    {"slurm.suspend_action", KEY_ENUM, "\"shutdown\"", UNBOUNDED, suspend_actions, 0,
     "what SuspendProgram asks of CycleCloud (shutdown follows each node's ShutdownPolicy)",
     F (slurm.suspend_action)},
    {"slurm.set_node_addr", KEY_BOOL, "true", UNBOUNDED, NULL, 0,
     "set NodeAddr/NodeHostname from the VM's private IP (off where DNS resolves node names; when not set, "
     "off for a nodearray whose Configuration slurm.use_nodename_as_hostname is true)",
     F (slurm.set_node_addr)},
    {"slurm.default_partition", KEY_STRING, NULL, UNBOUNDED, NULL, 0,
     "nodearray whose partition is Default=YES (default: the nodearray whose Configuration "
     "slurm.default_partition is true, the last of several as Slurm takes it; else the first partition)",
     F (slurm.default_partition)},
    {"slurm.exclusive_colocated", KEY_BOOL, NULL, UNBOUNDED, NULL, 0,
     "colocated (placement group) partitions get OverSubscribe=EXCLUSIVE (default: those colocated by "
     "ccautoscale's own rules; not those the template's slurm.hpc makes colocated, whose jobs share nodes as "
     "under azslurm)",
     F (slurm.exclusive_colocated)},
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
     "file in slurm.conf_dir, included by ccautoscale.conf, where sync and 'slurm keep-alive' keep the "
     "running SuspendExcNodes (CycleCloud KeepAlive nodes, the command's and the administrator's own) "
     "through a restart (\"\" turns it off)",
     F (slurm.keepalive_file)},
    {"slurm.gpu_device_files", KEY_STRING, NULL, UNBOUNDED, NULL, 0,
     "gres.conf File= of a VM's GPUs, %d standing for each GPU's number (Slurm 25.11 drops a GPU without "
     "one, and refuses the node); default: the template's slurm.gpu_device_config, else by vendor as "
     "azslurm, "
     "/dev/nvidia%d, and /dev/dri/renderD128, 136 ... for an AMD MI300",
     F (slurm.gpu_device_files)},
    {"slurm.gpu_device_first", KEY_INT, "0", 0, 100000, NULL, 0,
     "the number of a VM's first GPU in slurm.gpu_device_files (AMD's /dev/dri/renderD%d: 128)",
     F (slurm.gpu_device_first)},
    {"slurm.zombie_vms", KEY_ENUM, "\"keep\"", UNBOUNDED, zombie_policies, 0,
     "a VM nobody asked to give back behind a powered-down node: keep marks the node down with a reason and "
     "keeps the VM for inspection (as azslurm); terminate gives it back.  A VM ccautoscale was asked to give "
     "back and could not is terminated either way",
     F (slurm.zombie_vms)},
    {"slurm.failed_vms", KEY_ENUM, "\"release\"", UNBOUNDED, failed_policies, 0,
     "a Failed VM behind a node Slurm wants: release terminates it and hands the node back (its job is "
     "requeued, the node tried afresh); keep hands the node back too but keeps the VM, the node drained, "
     "until 'slurm retry-failed' or a terminate",
     F (slurm.failed_vms)},
    {"slurm.dynamic_delete", KEY_BOOL, "false", UNBOUNDED, NULL, 0,
     "delete the dynamic node records 'slurm dynamic add' made once Slurm powers them down and their VM is "
     "gone (the stock azslurm never deletes a record: it is reused by the next job)",
     F (slurm.dynamic_delete)},

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

    /* group: Autostop service */
    {"serve", KEY_SECTION, "{}", UNBOUNDED, NULL, 0,
     "the autostop service, 'ccautoscale serve': nodes ask it over HTTP(S) to stop", NO_FIELD},
    {"serve.listen", KEY_STRING, "\"0.0.0.0:9443\"", UNBOUNDED, NULL, 0,
     "address and port the service listens on, ADDR:PORT or [IPv6]:PORT (port 0: any free one)",
     F (serve.listen)},
    {"serve.cert_file", KEY_STRING, NULL, UNBOUNDED, NULL, 0,
     "PEM certificate (and chain) the service presents; with serve.key_file it serves HTTPS",
     F (serve.cert_file)},
    {"serve.key_file", KEY_STRING, NULL, UNBOUNDED, NULL, 0, "PEM private key of serve.cert_file, mode 0600",
     F (serve.key_file)},
    {"serve.plain_http", KEY_BOOL, "false", UNBOUNDED, NULL, 0,
     "serve plain HTTP on an address that is not loopback (without it, plain HTTP is for loopback only)",
     F (serve.plain_http)},
    {"serve.auth", KEY_ENUM, "\"address_or_token\"", UNBOUNDED, serve_auths, 0,
     "what proves a caller is the node it asks to stop: its private address as CycleCloud reports it, or "
     "its token ('ccautoscale serve token'); \"token\": the token only",
     F (serve.auth)},
    {"serve.token_key_file", KEY_STRING, NULL, UNBOUNDED, NULL, 0,
     "the secret node tokens are made from, mode 0600, made at first use (default "
     "state_dir/serve-token.key; removing it revokes every token)",
     F (serve.token_key_file)},
    {"serve.status_max_age", KEY_NUMBER, "2", 0, 300, NULL, 0,
     "seconds a status read serves further decisions (0: one read per decision); the stops it grants are "
     "counted in it at once",
     F (serve.status_max_age)},
    {"serve.lock_timeout", KEY_NUMBER, "10", 0, 600, NULL, 0,
     "seconds a decision waits for another run's lock before it answers 503", F (serve.lock_timeout)},
    {"serve.client_timeout", KEY_INT, "10", 1, 3600, NULL, 0,
     "seconds a connection may stay silent (a request never finished) before it is closed",
     F (serve.client_timeout)},
    {"serve.max_connections", KEY_INT, "512", 1, 100000, NULL, 0,
     "connections served at once; further callers wait to be accepted", F (serve.max_connections)},
    {"serve.max_connections_per_address", KEY_INT, "32", 1, 100000, NULL, 0,
     "connections one address may hold at once", F (serve.max_connections_per_address)},
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
    {"serve", "Autostop service"},
};

const size_t ccas_conf_groups_count = sizeof (ccas_conf_groups) / sizeof (ccas_conf_groups[0]);
