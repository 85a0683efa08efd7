/* SPDX-License-Identifier: MIT */
/* events.h: one JSON line per decision and outcome, for people and machines
 * that want to know what the autoscaler did and why.
 *
 * Each line: {"time": "2026-11-23T17:05:24.123Z", "event": TYPE, "program":
 * "ccautoscale-resume", "pid": N, ...fields}.  Types and their fields:
 * ("nodes" is an array of names, or from the Slurm programs a hostlist
 * expression such as "hpc-[1-100]".)
 *   resume_requested  nodes, jobs
 *   suspend_requested nodes
 *   created           nodearray, machine_type, placement_group, count, added,
 *                     request_id, operation_id, jobs
 *   create_failed     nodearray, machine_type, count, class, message, request_id, jobs
 *   terminated        nodes, reason, operation_id
 *   orphan_reaped     node, node_id
 *   failed            node, class, reason, jobs
 *   joined / drained / deleted   node, why (PBS)
 * Correlation ids (Slurm or PBS job ids, CycleCloud request and operation
 * ids) let a line be followed to the scheduler and to CycleCloud.
 *
 * The file (events.file, default state_dir/events.jsonl; "" turns events
 * off) is appended with one write per line under an exclusive flock, so the
 * programs' lines never interleave; past events.max_mb it is rotated to
 * FILE.1 .. FILE.<events.keep> under the same lock.  Failing to write an
 * event is logged once and never fails the run.
 */
#ifndef CCAS_EVENTS_H
#define CCAS_EVENTS_H

#include <json-c/json.h>

/* Start appending events to `path` (NULL or "": events off), rotated past
 * `max_mb` MiB keeping `keep` old files, for `program`.  `path` is copied;
 * `program` is borrowed and must outlive the calls. */
void ccas_events_open (const char *path, double max_mb, int keep, const char *program);
void ccas_events_close (void);

/* Append one event.  Takes ownership of `fields` (an object, or NULL). */
void ccas_event (const char *type, json_object *fields);

#endif /* !CCAS_EVENTS_H */
