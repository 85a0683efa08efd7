/* SPDX-License-Identifier: MIT */
/* failpoint.h: named points where a test may kill the process, to prove that
 * a run killed at any step is followed by one that finishes the job without
 * creating anything twice or leaving anything behind.
 *
 * CCAUTOSCALE_FAILPOINT=NAME[@N] kills the process with SIGKILL (no cleanup,
 * no atexit, as a power cut would) the Nth time (default the first) it
 * passes point NAME.  With CCAUTOSCALE_FAILPOINT_ACTION=stop it stops there
 * instead (SIGSTOP, locks held): a test then kills the whole host it stands
 * in for — a controller's slurmctld with the program it ran — at that step.
 * Unset, a failpoint costs one branch.  The points:
 *   create:before-send    the requestId is on disk, the create not yet sent
 *   create:after-reply    the server answered; nothing recorded about it yet
 *   action:before-send    a start, shutdown, deallocate or terminate not yet sent
 *   action:after-reply    ... answered, nothing recorded
 *   state:before-rename   a state file written to its temporary, not renamed
 *   pbs:join-before-marker  a PBS node created and its resources set, no marker yet
 *   policy:before-save    a pass's holds and breakers decided, not yet written
 *                         (a pass saves them once: @2 in a single pass is never reached)
 *   autoscale:recorded    an autoscale request set written, nothing reconciled yet
 */
#ifndef CCAS_FAILPOINT_H
#define CCAS_FAILPOINT_H

void ccas_failpoint (const char *name);

#endif /* !CCAS_FAILPOINT_H */
