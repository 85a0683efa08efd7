/* SPDX-License-Identifier: MIT */
/* azpbs_import.h: azpbs's autoscale.json made ccautoscale's.
 *
 * The stock CycleCloud PBS cluster (cyclecloud-pbspro 2.0.x) writes
 * /opt/cycle/pbspro/autoscale.json with `azpbs initconfig`
 * (generate_autoscale_json.sh): the CycleCloud connection, lock_file,
 * logging.config_file (a Python logging INI), default_resources with
 * disable_default_resources, idle_timeout and boot_timeout, the pbspro
 * section (ignore_queues, read_only_resources, and by hand ignore_onprem,
 * ignore_hostnames_re) and valid_hostnames (a string, ".+").  Each key is
 * carried over, changed to what means the same here, or left out, and every
 * decision is a note saying why, in the file's order:
 *   - the connection, default_resources and disable_default_resources,
 *     idle_timeout and boot_timeout (numbers, or per nodearray) are carried;
 *   - pbspro.ignore_queues becomes pbs.ignore_queues; read_only_resources
 *     takes those resources out of pbs.node_resources, which lists what
 *     azpbs's default_resources set on a vnode; ignore_hostnames_re becomes
 *     pbs.ignore_hostnames and valid_hostnames pbs.valid_hostnames, Python's
 *     \d \w \s written as POSIX classes (a string is one expression: azpbs
 *     read its characters one by one; ".+" and ".*" are dropped, every
 *     hostname passes);
 *   - lock_file, logging.config_file, nodehistorydb, ignore_onprem (whose
 *     intent ccautoscale always has: it never counts a vnode outside
 *     CycleCloud as capacity), placement group buckets and azpbs's own
 *     keys mean nothing here and are left out, each note saying what does
 *     the same;
 *   - verify_certificates: azpbs's effective default was false (scalelib
 *     sets it so when absent); ccautoscale's stays true, and the note names
 *     the setting that matches the old behaviour;
 *   - any other key is unknown, left out and named.
 * Nothing here reads or writes a file, prints, or runs anything.
 */
#ifndef CCAS_AZPBS_IMPORT_H
#define CCAS_AZPBS_IMPORT_H

#include <json-c/json.h>

#include "util/error.h"

/* What happened to a key: its note's "what". */
#define CCAS_AZPBS_CARRIED "carried"
#define CCAS_AZPBS_CHANGED "changed"
#define CCAS_AZPBS_DROPPED "dropped"
#define CCAS_AZPBS_UNKNOWN "unknown"

/* Convert `azpbs` (azpbs's document, borrowed) into ccautoscale's
 * configuration (a new object; caller puts it), appending a note
 * {"key", "what", "why"} to `notes` (a JSON array) for every key.  The
 * password is copied: the caller burns the result when done.  NULL with
 * `err` when `azpbs` is not an object or lacks what ccautoscale requires
 * (url, username, password, cluster_name). */
json_object *ccas_azpbs_import (json_object *azpbs, json_object *notes, struct ccas_error *err);

/* A Python regular expression as POSIX extended, into `buf`: \d \w \s (and
 * \D \W \S) as bracket classes; 0, or -1 when it uses what POSIX has no
 * spelling for (lookarounds, non-greedy or possessive repeats, (?...)). */
int ccas_azpbs_regex (const char *python, char *buf, size_t size);

#endif /* !CCAS_AZPBS_IMPORT_H */
