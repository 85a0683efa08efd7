/* SPDX-License-Identifier: MIT */
/* resources.h: default_resources — the rules that give nodes their resources.
 *
 * A rule is {"select": <constraint>, "name": "ngpus", "value": V} with at most
 * one modifier among "add", "subtract", "multiply", "divide", "divide_floor".
 * V is a literal (number, string, boolean, or a list of them), a property
 * reference ("node.gpu_count"), another resource of the node
 * ("node.resources.memgb"; ".value" after it drops a size's unit), a key of
 * the node's CycleCloud Configuration ("node.software_configuration.KEY":
 * KEY whole, else as a dotted path; a list there is a list), or a size
 * ("size::20g", "memory::4g", "4g").  For each resource name the first rule,
 * in order, whose select matches the node and whose value exists defines it:
 * put specific rules before general ones.  A rule whose reference finds
 * nothing defines nothing (a later rule may); scalelib sets "" instead.  Unless disabled, the
 * built-in rules follow the configured ones:
 *   ncpus = node.vcpu_count, pcpus = node.pcpu_count, ngpus = node.gpu_count,
 *   mem = node.memory (bytes), memgb = node.memory in GiB,
 *   nodearray = node.nodearray, vm_size = node.vm_size.
 * A select may test only node properties (node.*) and read-only resource
 * values defined by earlier rules.
 */
#ifndef CCAS_RESOURCES_H
#define CCAS_RESOURCES_H

#include <json-c/json.h>
#include <stdbool.h>

#include "model/constraint.h"
#include "model/node.h"
#include "model/resdict.h"
#include "util/error.h"

struct ccas_rules;

/* Compile `rules` (a JSON array, may be NULL) with `cache` for selects.  With
 * `builtins` the built-in rules are appended.  `path` names the array in
 * errors ("default_resources[2].value: unknown node property 'node.vmsize'").
 * Returns rules (caller frees with ccas_resources_destroy()), or NULL with `err`.
 * Borrows strings from `rules`, which must outlive the result. */
struct ccas_rules *ccas_resources_compile (json_object *rules, bool builtins, struct ccas_cons_cache *cache,
                                           struct ccas_resdict *dict, const char *path,
                                           struct ccas_error *err);
void ccas_resources_destroy (struct ccas_rules *r);

/* Give `n` its resources: allocate `n->res` and `n->avail` (sized to the
 * dictionary now) with `alloc` and fill them from the rules.  `alloc` returns
 * zeroed memory that lives as long as the node.  Returns 0 or -1 (out of memory). */
typedef void *(*ccas_alloc_f) (void *arg, size_t size);
int ccas_resources_apply (const struct ccas_rules *r, struct ccas_node *n, ccas_alloc_f alloc, void *arg);

#endif /* !CCAS_RESOURCES_H */
