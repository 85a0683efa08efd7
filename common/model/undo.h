/* SPDX-License-Identifier: MIT */
/* undo.h: a log of changes made while placing one job.
 *
 * A job is placed all-or-nothing.  Every change the engine makes to a node,
 * bucket, limit or shared resource while trying a job is logged here first;
 * if the job cannot be placed whole, rolling back to the mark taken before it
 * restores every value, in reverse order.
 */
#ifndef CCAS_UNDO_H
#define CCAS_UNDO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ccas_undo;

/* Caller frees with ccas_undo_destroy(). */
struct ccas_undo *ccas_undo_create (void);
void ccas_undo_destroy (struct ccas_undo *u);

/* A position in the log; ccas_undo_rollback() restores everything after it. */
size_t ccas_undo_mark (const struct ccas_undo *u);
void ccas_undo_rollback (struct ccas_undo *u, size_t mark);

/* Forget everything logged (after a job is placed). */
void ccas_undo_clear (struct ccas_undo *u);

/* Record the current value of *p before the caller changes it.  A NULL log
 * records nothing (the change is final). */
void ccas_undo_double (struct ccas_undo *u, double *p);
void ccas_undo_bool (struct ccas_undo *u, bool *p);
void ccas_undo_u32 (struct ccas_undo *u, uint32_t *p);
void ccas_undo_i32 (struct ccas_undo *u, int32_t *p);
void ccas_undo_i64 (struct ccas_undo *u, int64_t *p);

/* Call fn(arg) on rollback (e.g. to drop a potential node made for the job). */
typedef void (*ccas_undo_f) (void *arg);
void ccas_undo_call (struct ccas_undo *u, ccas_undo_f fn, void *arg);

#endif /* !CCAS_UNDO_H */
