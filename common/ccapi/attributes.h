/* SPDX-License-Identifier: MIT */
/* attributes.h: the node and nodearray attributes CycleCloud accepts, as
 * its cluster template reference lists them ("Node and Nodearray
 * Objects"), and which of them a create's nodeAttributes may set on the
 * nodes of one set.
 *
 * The autoscale API lets a node array definition set "any other attribute
 * that is settable on a node array" (its documentation).  Over the REST API
 * a set's nodeAttributes override the nodearray's for its nodes, so most
 * attributes pass through; a few cannot mean anything per set and are
 * refused with the reason (ComputerName names one VM; PlacementGroupId is
 * chosen by ccautoscale; InitialCount acts when a cluster starts ...), and
 * a few ccautoscale reads itself (MachineType, MaxCount, Interruptible) are
 * marked so.  Nested attributes are written as JSON objects ("Azure":
 * {"Publisher": ...}) or in the template's dotted form ("Azure.Publisher"),
 * which ccas_attributes_put() nests.
 *
 * A static table: nothing to create or free; depends on json-c only.
 */
#ifndef CCAS_ATTRIBUTES_H
#define CCAS_ATTRIBUTES_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

enum ccas_attr_type {
    CCAS_ATTR_STRING,
    CCAS_ATTR_BOOL,
    CCAS_ATTR_INT,     /* an integer */
    CCAS_ATTR_NUMBER,  /* any number */
    CCAS_ATTR_TIME,    /* a relative time: "5m", or seconds */
    CCAS_ATTR_STRINGS, /* a string or a list of them (Zone = 1,3) */
    CCAS_ATTR_OBJECT,  /* nested attributes (Tags, Azure, ...) */
};

enum ccas_attr_use {
    CCAS_ATTR_PASS,    /* sent as the set's nodeAttributes */
    CCAS_ATTR_READ,    /* read by ccautoscale itself (it says how) */
    CCAS_ATTR_REFUSED, /* cannot be set per set of nodes: `why` */
};

struct ccas_attribute {
    const char *name; /* "ImageName", "Azure.Publisher", "Tags.*" (any member) */
    enum ccas_attr_type type;
    enum ccas_attr_use use;
    const char *why; /* CCAS_ATTR_REFUSED: why; CCAS_ATTR_READ: what ccautoscale does with it */
};

/* The attribute `key` names ("Azure.Publisher" and "Azure" are both
 * known), or NULL when CycleCloud has none of that name.  Static. */
const struct ccas_attribute *ccas_attributes_find (const char *key);

/* Whether `value` is of `a`'s type (for an object, every member known
 * under it).  If not, why in `why`.  An integer given as a number without
 * a fraction, and a boolean as true/false, are of their type. */
bool ccas_attributes_check (const struct ccas_attribute *a, const char *key, json_object *value, char *why,
                            size_t size);

/* Add `value` (takes a reference) under `key` to the object `attrs`,
 * dotted keys nested: "Azure.Publisher" goes to attrs.Azure.Publisher,
 * merged with what is there.  Returns 0, -1 when a member on the way is
 * not an object. */
int ccas_attributes_put (json_object *attrs, const char *key, json_object *value);

/* The names the table knows, comma separated, into `buf` (for help texts). */
const char *ccas_attributes_names (enum ccas_attr_use use, char *buf, size_t size);

#endif /* !CCAS_ATTRIBUTES_H */
