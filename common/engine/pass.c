/* SPDX-License-Identifier: MIT */
/* pass.c: one autoscale pass's state, read once and written once, and its shared steps. */
#include "config.h"

#include <stdlib.h>

#include "engine/apply.h"
#include "engine/holds.h"
#include "engine/pass.h"
#include "engine/scaledown.h"
#include "util/log.h"

struct ccas_pass *ccas_pass_load (const struct ccas_config *cfg, const struct ccas_lock *lock, unsigned flags,
                                  double now, struct ccas_error *err)
{
    bool dry_run = (flags & CCAS_PASS_DRY_RUN) != 0;
    if (!dry_run && !lock) {
        ccas_errorf (err, "a pass that changes the state directory must hold the lock");
        return NULL;
    }
    struct ccas_pass *p = calloc (1, sizeof (*p));
    if (!p) {
        ccas_errorf (err, "out of memory");
        return NULL;
    }
    p->cfg = cfg;
    p->now = now;
    p->dry_run = dry_run;
    if (((flags & CCAS_PASS_POLICY) && !(p->policy = ccas_policy_load (cfg, now, dry_run, err))) ||
        ((flags & CCAS_PASS_TIMES) && !(p->times = ccas_state_load (cfg->state_dir, "nodes", err)))) {
        ccas_pass_destroy (p);
        return NULL;
    }
    return p;
}

void ccas_pass_destroy (struct ccas_pass *p)
{
    if (!p)
        return;
    ccas_policy_destroy (p->policy);
    ccas_state_destroy (p->times);
    free (p);
}

json_object *ccas_pass_node_times (struct ccas_pass *p)
{
    if (!p->times)
        return NULL;
    json_object *root = ccas_state_root (p->times);
    json_object *times = NULL;
    if (!json_object_object_get_ex (root, "times", &times) || !times) {
        times = json_object_new_object ();
        json_object_object_add (root, "times", times);
    }
    return times;
}

int ccas_pass_mark_stuck (struct ccas_pass *p, struct ccas_cluster *c, struct ccas_error *err)
{
    json_object *times = ccas_pass_node_times (p);
    if (!times)
        return ccas_errorf (err, p->times ? "out of memory" : "this pass has no node times");
    int stuck = ccas_scaledown_mark_stuck (c, times, p->now);
    if (stuck < 0)
        return ccas_errorf (err, "out of memory");
    if (stuck)
        ccas_log (LOG_INFO, "%d node%s booting past boot_timeout: given no work, to be terminated", stuck,
                  stuck == 1 ? "" : "s");
    return stuck;
}

int ccas_pass_scaledown (struct ccas_pass *p, struct ccas_plan *plan, struct ccas_error *err)
{
    json_object *times = ccas_pass_node_times (p);
    if (!times)
        return ccas_errorf (err, p->times ? "out of memory" : "this pass has no node times");
    return ccas_scaledown_plan (plan, times, p->now, err);
}

/* A Failed VM, or one booting past boot_timeout, to the policy: whether a
 * breaker opened. */
static bool observe_termination (struct ccas_pass *p, const struct ccas_plan *plan,
                                 const struct ccas_plan_action *t, ccas_pass_booting_f booting, void *arg)
{
    const struct ccas_node *n = t->node;
    struct ccas_observation o;
    if (n->kind == CCAS_NODE_FAILED)
        o = ccas_policy_observe_vm (n, booting ? booting (n, arg) : true);
    else if (n->kind == CCAS_NODE_BOOTING)
        o = (struct ccas_observation){
            .seen = CCAS_SEEN_BOOT_FAILED, .nodearray = n->nodearray, .node = n->name, .message = t->reason};
    else
        return false;
    enum ccas_decision d;
    ccas_policy_decide (p->policy, plan->cluster, &o, 1, &d);
    return d == CCAS_DECIDED_OPENED;
}

size_t ccas_pass_observe_failures (struct ccas_pass *p, struct ccas_plan *plan, ccas_pass_booting_f booting,
                                   void *arg)
{
    bool opened = false;
    for (size_t i = 0; i < plan->nterminates; i++)
        opened |= observe_termination (p, plan, &plan->terminates[i], booting, arg);
    if (!opened)
        return 0;
    size_t kept = 0, n = plan->ncreates;
    for (size_t i = 0; i < n; i++) {
        const struct ccas_bucket *b = plan->creates[i].bucket;
        if (ccas_holds_reason (p->policy->holds, b->na->name, b->machine_type, p->policy->now))
            ccas_log (LOG_WARNING, "%s/%s: %u node%s not created: the breaker just opened", b->na->name,
                      b->machine_type, plan->creates[i].count, plan->creates[i].count == 1 ? "" : "s");
        else
            plan->creates[kept++] = plan->creates[i];
    }
    plan->ncreates = kept;
    return n - kept;
}

/* The sets the server could not fill, to the policy: a bucket that failed a
 * create for capacity or quota is held back for capacity_failure_backoff
 * seconds (state_dir/holds.json), so that the next pass of any program tries
 * the other buckets the jobs allow.  Returns how many buckets it held. */
static size_t observe_short_creates (struct ccas_pass *p, const struct ccas_plan *plan)
{
    size_t held = 0;
    for (size_t i = 0; i < plan->ncreates; i++) {
        const struct ccas_plan_set *s = &plan->creates[i];
        if (s->outcome == CCAS_PLANNED || (uint32_t)s->added >= s->count)
            continue;
        struct ccas_observation o = {.seen = CCAS_SEEN_SHORT_CREATE,
                                     .nodearray = s->bucket->na->name,
                                     .machine_type = s->bucket->machine_type,
                                     .message = s->message,
                                     .cls = s->cls};
        held += ccas_policy_decide (p->policy, plan->cluster, &o, 1, NULL);
    }
    return held;
}

int ccas_pass_carry_out (struct ccas_pass *p, struct ccas_plan *plan, struct ccas_ccapi *api, size_t *held,
                         struct ccas_error *err)
{
    struct ccas_error warn = {""};
    struct ccas_state *requests = NULL;
    int rc = 0;
    p->sent = false;
    if (held)
        *held = 0;
    if (p->dry_run || !p->policy)
        return ccas_errorf (err, "a dry run, or a pass without its policy, carries nothing out");
    if (!(requests = ccas_state_load (p->cfg->state_dir, "requests", err)))
        return -1;
    p->sent = true;
    if (ccas_apply_reconcile (api, requests, &warn) < 0)
        ccas_log (LOG_WARNING, "%s", warn.text);
    rc = ccas_apply (plan, api, requests, NULL, err);
    size_t h = observe_short_creates (p, plan);
    if (held)
        *held = h;
    ccas_state_destroy (requests);
    return rc;
}

int ccas_pass_save (struct ccas_pass *p, struct ccas_error *err)
{
    struct ccas_error e = {""};
    int rc = 0;
    if (p->saved)
        return 0;
    p->saved = true;
    if (p->policy && ccas_policy_save (p->policy, &e) < 0)
        rc = ccas_errorf (err, "%s", e.text);
    if (p->times && !p->dry_run && ccas_state_save (p->times, &e) < 0 && rc == 0)
        rc = ccas_errorf (err, "%s", e.text);
    return rc;
}
