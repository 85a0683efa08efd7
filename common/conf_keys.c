/* SPDX-License-Identifier: MIT */
/* conf_keys.c: every configuration key, its type, default, bounds and meaning. */
#include "config.h"

#include "conf_keys.h"

#define UNBOUNDED 1, 0

const struct config_key ccas_config_table[] = {
    /* CycleCloud connection */
    { "url", KEY_STRING, NULL, UNBOUNDED, NULL, false,
      "CycleCloud web server root, e.g. https://cyclecloud.example.com (required)" },
    { "username", KEY_STRING, NULL, UNBOUNDED, NULL, false, "CycleCloud user (required)" },
    { "password", KEY_STRING, NULL, UNBOUNDED, NULL, true,
      "CycleCloud password; the file must then be mode 0600 (or use password_file)" },
    { "password_file", KEY_STRING, NULL, UNBOUNDED, NULL, false,
      "file holding the password on its first line, mode 0600" },
    { "cluster_name", KEY_STRING, NULL, UNBOUNDED, NULL, false,
      "the CycleCloud cluster to scale (required)" },
    { "verify_certificates", KEY_BOOL, "true", UNBOUNDED, NULL, false,
      "verify the server's TLS certificate; false only for testing (a warning is logged)" },
    { "ca_file", KEY_STRING, NULL, UNBOUNDED, NULL, false,
      "PEM bundle of the CA that signed the server's certificate" },
    { "connect_timeout", KEY_NUMBER, "10", 0.1, 600, NULL, false,
      "seconds to wait for a connection" },
    { "request_timeout", KEY_NUMBER, "60", 1, 3600, NULL, false,
      "seconds one HTTP request may take" },
    { "retries", KEY_INT, "4", 0, 20, NULL, false,
      "further attempts for a read or node action after a transport error, 429 or 5xx" },
    { "retry_after_max", KEY_NUMBER, "30", 1, 3600, NULL, false,
      "seconds: a server's Retry-After up to this is waited in full; a longer one fails the request at once" },
    { "max_response_mb", KEY_INT, "256", 1, 4096, NULL, false,
      "refuse server responses larger than this many MiB" },

    /* logging and files */
    { "logging", KEY_SECTION, "{}", UNBOUNDED, NULL, false, "where and how much to log" },
    { "logging.level", KEY_STRING, "\"info\"", UNBOUNDED, "error|warning|notice|info|debug", false,
      "least important message logged" },
    { "logging.file", KEY_STRING, NULL, UNBOUNDED, NULL, false,
      "also append log lines to this file" },
    { "logging.syslog", KEY_BOOL, "true", UNBOUNDED, NULL, false, "log to syslog (daemon facility)" },
    { "state_dir", KEY_STRING, "\"/var/lib/ccautoscale\"", UNBOUNDED, NULL, false,
      "directory for small state files (idle times, back-offs, pending requests)" },
    { "lock_file", KEY_STRING, "\"/run/ccautoscale.lock\"", UNBOUNDED, NULL, false,
      "lock that keeps concurrent runs from racing on the same nodes" },

    /* scaling policy */
    { "idle_timeout", KEY_SECONDS_MAP, "300", 0, 1e9, NULL, false,
      "seconds a node may sit idle before it is terminated; a number or {\"default\": n, \"<nodearray>\": m}" },
    { "boot_timeout", KEY_SECONDS_MAP, "1800", 0, 1e9, NULL, false,
      "seconds a node may take to become ready; a number or {\"default\": n, \"<nodearray>\": m}" },
    { "capacity_failure_backoff", KEY_NUMBER, "300", 0, 86400, NULL, false,
      "seconds a bucket is held back after a capacity or quota failure" },
    { "default_resources", KEY_ARRAY, "[]", UNBOUNDED, NULL, false,
      "ordered rules {select, name, value} that define node resources" },
    { "disable_default_resources", KEY_BOOL, "false", UNBOUNDED, NULL, false,
      "do not add the built-in resources (ncpus, mem, ngpus, ...) to nodes" },
    { "gpu_counts", KEY_INT_MAP, "{}", 0, 64, NULL, false,
      "GPUs per VM for machine types the server reports with 0 GPUs, e.g. {\"Standard_NC6\": 1}" },
    { "shared_resources", KEY_OPEN, "{}", UNBOUNDED, NULL, false,
      "cluster-wide resources no node owns: a number is consumed by jobs (licences), a string or boolean is compared" },
    { "nodearrays", KEY_MAP, "{}", UNBOUNDED, NULL, false, "settings per nodearray, by name" },
    { "nodearrays.*", KEY_SECTION, NULL, UNBOUNDED, NULL, false, "settings of one nodearray" },
    { "nodearrays.*.idle_timeout", KEY_NUMBER, NULL, 0, 1e9, NULL, false,
      "idle_timeout for this nodearray" },
    { "nodearrays.*.boot_timeout", KEY_NUMBER, NULL, 0, 1e9, NULL, false,
      "boot_timeout for this nodearray" },
    { "nodearrays.*.priority", KEY_INT, NULL, -1000000, 1000000, NULL, false,
      "order among nodearrays when several fit (higher first; default the nodearray's Priority)" },
    { "nodearrays.*.enabled", KEY_BOOL, NULL, UNBOUNDED, NULL, false,
      "false: never create nodes here" },
    { "nodearrays.*.colocated", KEY_BOOL, NULL, UNBOUNDED, NULL, false,
      "jobs here keep all their nodes in one placement group (default: true for InfiniBand buckets)" },
    { "nodearrays.*.machine_types", KEY_STRING_LIST, NULL, UNBOUNDED, NULL, false,
      "preference order of machine types in this nodearray (default: the server's order)" },

    { "nodearrays.*.slurm_partition", KEY_STRING, NULL, UNBOUNDED, NULL, false,
      "Slurm partition name for this nodearray (default: the nodearray's name)" },

    /* Slurm */
    { "slurm", KEY_SECTION, "{}", UNBOUNDED, NULL, false, "the Slurm integration" },
    { "slurm.node_prefix", KEY_STRING, "\"\"", UNBOUNDED, NULL, false,
      "prefix of Slurm node names: <prefix><nodearray>-<i>" },
    { "slurm.conf_dir", KEY_STRING, "\"/etc/slurm\"", UNBOUNDED, NULL, false,
      "where 'slurm conf --write' puts ccautoscale.conf, gres.conf and topology.conf" },
    { "slurm.max_nodes", KEY_INT, "1000", 1, 100000, NULL, false,
      "most node names per machine type (fewer when the bucket's maxCount is lower)" },
    { "slurm.memory_margin_percent", KEY_NUMBER, "5", 0, 50, NULL, false,
      "RealMemory leaves this share of the VM's memory to the OS" },
    { "slurm.memory_margin_min_mb", KEY_INT, "1024", 0, 1048576, NULL, false,
      "... and at least this many MB" },
    { "slurm.suspend_action", KEY_STRING, "\"shutdown\"", UNBOUNDED, "shutdown|terminate|deallocate", false,
      "what SuspendProgram asks of CycleCloud (shutdown follows each node's ShutdownPolicy)" },
    { "slurm.set_node_addr", KEY_BOOL, "true", UNBOUNDED, NULL, false,
      "set NodeAddr/NodeHostname from the VM's private IP (off where DNS resolves node names)" },
    { "slurm.default_partition", KEY_STRING, NULL, UNBOUNDED, NULL, false,
      "nodearray whose partition is Default=YES (default: the first nodearray)" },
    { "slurm.exclusive_colocated", KEY_BOOL, "true", UNBOUNDED, NULL, false,
      "colocated (placement group) partitions get OverSubscribe=EXCLUSIVE" },
    { "slurm.lock_timeout", KEY_NUMBER, "20", 0, 600, NULL, false,
      "seconds the programs wait for another run's lock" },
    { "slurm.node_port_base", KEY_INT, NULL, 1024, 65000, NULL, false,
      "a cluster simulated on one machine: each node gets NodeAddr=127.0.0.1 and its own slurmd Port from this base" },
    { "slurm.keepalive_file", KEY_STRING, "\"ccautoscale_keepalive.conf\"", UNBOUNDED, NULL, false,
      "include (in conf_dir) where sync keeps SuspendExcNodes for KeepAlive nodes" },

    { "breaker", KEY_SECTION, "{}", UNBOUNDED, NULL, false, "the circuit breaker: stop creating where VMs keep failing to boot" },
    { "breaker.threshold", KEY_INT, "5", 0, 1000, NULL, false,
      "consecutive boot failures in one nodearray that open its breaker (0: never)" },
    { "breaker.cooldown", KEY_NUMBER, "1800", 0, 1e9, NULL, false,
      "seconds an open breaker stays open (0: until 'ccautoscale breaker reset')" },

    /* events and metrics */
    { "events", KEY_SECTION, "{}", UNBOUNDED, NULL, false, "the events file: one JSON line per decision and outcome" },
    { "events.file", KEY_STRING, NULL, UNBOUNDED, NULL, false,
      "where events go (default state_dir/events.jsonl; \"\" turns them off)" },
    { "events.max_mb", KEY_NUMBER, "64", 0.001, 100000, NULL, false, "rotate the events file past this size" },
    { "events.keep", KEY_INT, "3", 0, 100, NULL, false, "rotated events files kept (FILE.1 is the newest)" },
    { "metrics", KEY_SECTION, "{}", UNBOUNDED, NULL, false, "the Prometheus metrics file" },
    { "metrics.file", KEY_STRING, NULL, UNBOUNDED, NULL, false,
      "Prometheus text file rewritten after each run (default state_dir/ccautoscale.prom; \"\" turns it off); "
      "point node_exporter's textfile collector at its directory" },

    /* PBS */
    { "pbs", KEY_SECTION, "{}", UNBOUNDED, NULL, false, "the PBS integration" },
    { "pbs.bin_dir", KEY_STRING, NULL, UNBOUNDED, NULL, false,
      "directory of qstat, pbsnodes and qmgr (default: the PATH, then /opt/pbs/bin)" },
    { "pbs.command_timeout", KEY_NUMBER, "30", 1, 600, NULL, false,
      "seconds one PBS command may take before it is killed" },
    { "pbs.node_resources", KEY_STRING_LIST, "[\"ncpus\", \"mem\", \"ngpus\", \"disk\", \"slot_type\"]", UNBOUNDED, NULL, false,
      "node resources (from default_resources) set as resources_available.* when a node joins; "
      "vm_size, nodearray, group_id, ungrouped, instance_id and ccnodeid are always set" },
    { "pbs.hook_freq", KEY_INT, "15", 5, 3600, NULL, false,
      "seconds between runs of the periodic hook (install-hook)" },
    { "pbs.hook_timeout", KEY_INT, "100", 10, 3600, NULL, false,
      "seconds the hook lets one pass run; the hook's alarm is 20 s more (install-hook)" },
};

const size_t ccas_config_table_len = sizeof (ccas_config_table) / sizeof (ccas_config_table[0]);
