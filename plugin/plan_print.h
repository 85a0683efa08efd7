/* SPDX-License-Identifier: MIT */
/* plan_print.h: a plan for people — what would be (or was) created, started, terminated, and why. */
#ifndef CCAS_PLAN_PRINT_H
#define CCAS_PLAN_PRINT_H

#include <stdbool.h>
#include <stdio.h>

#include "engine/plan.h"

/* Print `plan`.  `applied` says whether ccas_apply() ran (past tense and
 * outcomes) or not (conditional).  Unmatched jobs are grouped by reason.
 * Unless `all`, a table of more than 20 rows is summarised (create sets by
 * bucket, the first nodes, the most common reasons) and says how many more
 * rows --json would give: a plan of a million jobs prints a screenful. */
void plan_print (FILE *f, const struct ccas_plan *plan, bool applied, bool all);

/* 0 if everything planned was done (or nothing was planned), else how many
 * sets or nodes failed or fell short. */
unsigned plan_shortfalls (const struct ccas_plan *plan);

#endif /* !CCAS_PLAN_PRINT_H */
