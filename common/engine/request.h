/* SPDX-License-Identifier: MIT */
/* request.h: one request of the CycleCloud autoscale API, checked entry by
 * entry against the cluster and put in ccautoscale's normalized form.
 *
 * A request is the API's own document: a JSON list of node array
 * definitions.  An entry names its array (`Name`), at most one target
 * (`TargetCount` | `TargetCoreCount` | `TargetGroupCount` with
 * `GroupCoreCount` | `GroupInstanceCount`), and any attribute a node array
 * takes (the API: "any other attribute that is settable on a node array"):
 *   - `MachineType` (a string or a list in preference order), `Configuration`
 *     (sent as the nodes' Configuration), `Dynamic` and `Extends`,
 *     `MaxCount` and `MaxCoreCount` (the array grows to no more), are read
 *     by ccautoscale;
 *   - `ClusterName` is accepted when it names this cluster (CycleCloud sets
 *     it itself);
 *   - `Interruptible` must be the nodearray's own (spot and on-demand VMs
 *     draw on different quotas, counted per nodearray);
 *   - the other nodearray attributes CycleCloud accepts (ccapi/attributes.h:
 *     ImageName, Priority, Tags, Azure.*, ...) are sent as the new nodes'
 *     nodeAttributes, overriding the nodearray's;
 *   - attributes that cannot be set per set of nodes (ComputerName,
 *     PlacementGroupId, InitialCount, ...) and unknown ones refuse the entry.
 * A dynamic array (`Dynamic: true`) extends a nodearray (`Extends`); without
 * Extends it must give every attribute a node needs (MachineType, SubnetId,
 * Credentials and an image), as the API says, and its nodes are made in the
 * first nodearray (autoscale-enabled ones first) that has a bucket of each
 * of its machine types, with those attributes overriding that nodearray's
 * (the REST API makes nodes only in a nodearray's buckets).
 *
 * Validation is per entry: a wrong entry is refused — its index, name and
 * attribute in the reason — and the others are taken.
 */
#ifndef CCAS_REQUEST_H
#define CCAS_REQUEST_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

#include "model/cluster.h"
#include "util/error.h"

/* Check each entry of request `doc` against the cluster and normalize it.
 * `what` names the request's source in reasons ("req.json: array 'big'
 * ([1]): TargetCount: expected a non-negative integer, got -3").  Returns a
 * new JSON array of the entries taken (caller puts it; hand it to
 * ccas_request_set_replace()), and in *refused a new JSON array (caller
 * puts it; empty when none) of {"index", "name" (null when it has none),
 * "attribute", "error"} for each entry refused.  NULL with `err` when the
 * document is not a list at all (or out of memory). */
json_object *ccas_request_parse (json_object *doc, const char *what, const struct ccas_cluster *c,
                                 json_object **refused, struct ccas_error *err);

/* True when `s` is 1 to `max` letters, digits, '_', '-' or '.'. */
bool ccas_request_name_ok (const char *s, size_t max);

#endif /* !CCAS_REQUEST_H */
