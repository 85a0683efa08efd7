/* SPDX-License-Identifier: MIT */
/* conf_doc.h: the configuration reference, written from the key table.
 *
 * `ccautoscale config keys --markdown` is doc/configuration.md and `--roff`
 * is ccautoscale.json(5): every key of ccas_conf_keys() in the table's
 * groups, with its type, default, bounds or values, whether it is required
 * or secret, and its meaning, after a description of the file and before
 * an example.  The example is loaded as a configuration first, so a
 * reference whose example the program would refuse is never written.
 */
#ifndef CCAS_CONF_DOC_H
#define CCAS_CONF_DOC_H

#include <stdio.h>

#include "conf/conf.h"
#include "util/error.h"

/* Write the reference to `f`.  Returns 0, or -1 with `err` set when the
 * example does not load (nothing is written then). */
int conf_doc_markdown (FILE *f, struct ccas_error *err);
int conf_doc_roff (FILE *f, struct ccas_error *err);

/* A key's bounds or values as one short text, "[0.1, 600]" or
 * "error|warning|...", in `buf`; "" when it has neither. */
const char *conf_doc_allowed (const struct ccas_conf_key_doc *k, char *buf, size_t size);

#endif /* !CCAS_CONF_DOC_H */
