/* SPDX-License-Identifier: MIT */
/* lock.h: one ccautoscale run at a time, across all programs, with flock(2).
 *
 * The lock file holds the holder's pid and program name so that a refused
 * caller can say who holds it.  The kernel drops the lock when the holder
 * dies, so a crash never leaves it stuck.
 */
#ifndef CCAS_LOCK_H
#define CCAS_LOCK_H

#include "util/error.h"

struct ccas_lock;

/* Take the lock at `path`, waiting up to `timeout` seconds (0: try once).
 * `who` names the caller in the file ("ccautoscale-resume").  Returns the lock
 * (release with ccas_lock_release()), or NULL with `err`, e.g.
 * "/run/ccautoscale.lock: held by pid 4242 (ccautoscale-resume) for 31 s";
 * a file that cannot be opened because its file system is not there or is
 * read-only says to check the mount.  errno is EWOULDBLOCK when the lock
 * was busy, else the error of opening or locking the file. */
struct ccas_lock *ccas_lock_acquire (const char *path, const char *who, double timeout,
                                     struct ccas_error *err);

/* Drop the lock and free it.  NULL is a no-op. */
void ccas_lock_release (struct ccas_lock *lock);

#endif /* !CCAS_LOCK_H */
