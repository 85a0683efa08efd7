/* SPDX-License-Identifier: MIT */
/* pbs_qmgr.h: what `qmgr -c "list ..."` prints, read.
 *
 * qmgr has no JSON: `list server`, `list sched`, `list hook`, `list queue`
 * and `list resource` print one object a record, records separated by a
 * blank line, each opening with "<Kind> <name>" and then its attributes
 * indented, one "name = value" a line (a value qmgr wraps ends the line with
 * a comma and goes on, indented, on the next).  Hooks, the scheduler and
 * resources are not in any `qstat -F json`: install-hook and validate read
 * them so.  Nothing here runs a command (pbs_cmds.h does).
 */
#ifndef CCAS_PBS_QMGR_H
#define CCAS_PBS_QMGR_H

#include <json-c/json.h>

/* Read `text`: {"<name>": {"kind": "Hook", "<attr>": "<value>", ...}, ...}
 * with every value a string, as printed.  Never fails but when out of
 * memory (NULL); lines that are neither are skipped.  Caller puts it. */
json_object *ccas_pbs_qmgr_parse (const char *text);

/* The value of `attr` of object `name` in a parsed list, or NULL.  Borrowed. */
const char *ccas_pbs_qmgr_attr (json_object *list, const char *name, const char *attr);

#endif /* !CCAS_PBS_QMGR_H */
