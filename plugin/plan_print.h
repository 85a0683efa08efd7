/* SPDX-License-Identifier: MIT */
/* plan_print.h: a plan for people — what would be (or was) created, started, terminated, and why. */
#ifndef CCAS_PLAN_PRINT_H
#define CCAS_PLAN_PRINT_H

#include <stdbool.h>
#include <stdio.h>

#include "engine/plan.h"

/* Print `plan`.  `applied` says whether ccas_apply() ran (past tense and
 * outcomes) or not (conditional).  Unmatched jobs are grouped by reason. */
void plan_print (FILE *f, const struct ccas_plan *plan, bool applied);

/* 0 if everything planned was done (or nothing was planned), else how many
 * sets or nodes failed or fell short. */
unsigned plan_shortfalls (const struct ccas_plan *plan);

#endif /* !CCAS_PLAN_PRINT_H */
