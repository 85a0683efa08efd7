/* SPDX-License-Identifier: MIT */
/* serve_decide.h: one autostop request to `ccautoscale serve`, from its
 * parsed query to the answer — the node found, the caller checked, the
 * decision made and carried out.
 *
 * Decisions take turns (a mutex in the process, the lock across programs):
 * each holds the lock from before it looks at the cluster until its
 * terminate is answered, as `ccautoscale autostop` does, so that two nodes
 * asking at once never both take an array below its target.  The model of
 * the cluster is read from CycleCloud under the lock and kept for further
 * decisions while it is younger than serve.status_max_age seconds, with
 * the request sets counted in it (read again when state_dir changes).  A
 * stop it grants is counted in both at once — the node going, its array one
 * node smaller — so the next decision need not read the cluster again to
 * refuse a node its array now needs; a terminate that failed drops them.
 * What other programs do within that age is seen once it runs out.  (The
 * lock is kept from one decision to the next while others wait, a quarter
 * of a second at most.)  The answer is the same decision as
 * `ccautoscale autostop` (autostop.h), in HTTP:
 *   200 {"stopped": true, ...}   granted and terminated, or already going
 *   409 {"stopped": false, ...}  refused: demand or a target still needs it
 *   403                          the caller is not that node (serve_auth.h)
 *   404                          no such node in this cluster
 *   500                          the request sets cannot be read
 *   502                          granted, but CycleCloud did not terminate it
 *   503                          the lock is busy, or CycleCloud unreachable
 *                                (for 2 s after a read fails, the requests
 *                                waiting behind it are answered at once)
 * Every body is JSON with "stopped" and "reason".
 *
 * Lifecycle: create once the configuration and the CycleCloud client are
 * up (cli_prepare), share between the service's threads, destroy after the
 * last request.
 */
#ifndef CCAS_SERVE_DECIDE_H
#define CCAS_SERVE_DECIDE_H

#include <sys/socket.h>

#include "cli.h"
#include "serve_auth.h"
#include "serve_query.h"

struct serve_decide;

/* An HTTP answer: status, JSON body (owned; free with serve_answer_release()),
 * whether to say Retry-After, and the decision it carries ("granted",
 * "refused", "going", "failed"; NULL when no decision was made). */
struct serve_answer {
    unsigned status;
    char *body;
    bool retry_later;
    const char *decision;
};

/* Fill `a` with `status` and {"stopped": `stopped`, "reason": ...} plus, when
 * `node` is not NULL, "node". */
void serve_answer_set (struct serve_answer *a, unsigned status, bool stopped, const char *node,
                       const char *fmt, ...) __attribute__ ((format (printf, 5, 6)));
void serve_answer_release (struct serve_answer *a);

/* Borrows `cli` (its configuration and client) and `key`; both must outlive
 * it.  Caller frees with serve_decide_destroy().  NULL when out of memory. */
struct serve_decide *serve_decide_create (struct cli *cli, const struct serve_auth_key *key);
void serve_decide_destroy (struct serve_decide *d);

/* Answer the autostop request `q` from `peer` carrying the Authorization
 * header `authorization` (NULL: none). */
void serve_decide_autostop (struct serve_decide *d, const struct serve_query *q, const struct sockaddr *peer,
                            const char *authorization, struct serve_answer *a);

/* Seconds since the model kept now was read, or -1 when none is kept.
 * Never waits for a decision. */
double serve_decide_status_age (struct serve_decide *d);

#endif /* !CCAS_SERVE_DECIDE_H */
