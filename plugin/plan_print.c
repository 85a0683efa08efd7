/* SPDX-License-Identifier: MIT */
/* plan_print.c: render a plan as tables; group unmatched jobs by reason. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "ccapi/failure.h"
#include "plan_print.h"
#include "table.h"

static const char *outcome_text (enum ccas_outcome o)
{
    return o == CCAS_DONE ? "done" : o == CCAS_FAILED ? "FAILED" : "planned";
}

#define NAMES_SHOWN 24

/* The names the server gave the new nodes (all of them with --json). */
static void print_new_names (FILE *f, const struct ccas_plan *plan)
{
    size_t shown = 0, total = 0;
    for (size_t i = 0; i < plan->ncreates; i++)
        for (uint32_t k = 0; k < plan->creates[i].count; k++) {
            const char *name = plan->creates[i].nodes[k]->name;
            if (!name)
                continue;
            if (shown < NAMES_SHOWN)
                fprintf (f, "%s%s", shown ? " " : "New nodes: ", name);
            shown += shown < NAMES_SHOWN;
            total++;
        }
    if (total > shown)
        fprintf (f, " ... and %zu more (--json lists them all)", total - shown);
    if (total)
        fputc ('\n', f);
}

static void print_creates (FILE *f, const struct ccas_plan *plan, bool applied)
{
    static const char *const planned[] = {"NODEARRAY", "MACHINE TYPE", "PLACEMENT GROUP", ">COUNT", NULL};
    static const char *const done[] = {
        "NODEARRAY", "MACHINE TYPE", "PLACEMENT GROUP", ">COUNT", ">ADDED", "MESSAGE", NULL};
    uint32_t n = ccas_plan_new_nodes (plan);
    if (!plan->ncreates)
        return;
    fprintf (f, "%s %u node%s:\n", applied ? "Asked to create" : "Would create", n, n == 1 ? "" : "s");
    struct table *t = table_create (applied ? done : planned);
    for (size_t i = 0; i < plan->ncreates; i++) {
        const struct ccas_plan_create *s = &plan->creates[i];
        char reason[600] = "";
        if (applied && (uint32_t)s->added < s->count) /* the stable form a script can split */
            ccas_failure_reason (s->cls, s->message ? s->message : "no reason given", reason,
                                 sizeof (reason));
        if (applied)
            table_addf (t, "%s\t%s\t%s\t%u\t%d\t%s", s->bucket->na->name, s->bucket->machine_type,
                        s->pg ? s->pg->name : "-", s->count, s->added, *reason ? reason : "-");
        else
            table_addf (t, "%s\t%s\t%s\t%u", s->bucket->na->name, s->bucket->machine_type,
                        s->pg ? s->pg->name : "-", s->count);
    }
    table_print (t, f);
    table_destroy (t);
    if (applied)
        print_new_names (f, plan);
    fputc ('\n', f);
}

static void print_actions (FILE *f, const char *verb_planned, const char *verb_done,
                           const struct ccas_plan_action *v, size_t n, bool applied)
{
    static const char *const headers[] = {"NAME", "NODEARRAY", "REASON", "OUTCOME", NULL};
    if (!n)
        return;
    fprintf (f, "%s %zu node%s:\n", applied ? verb_done : verb_planned, n, n == 1 ? "" : "s");
    struct table *t = table_create (headers);
    for (size_t i = 0; i < n; i++) {
        const char *outcome = applied ? (v[i].error ? v[i].error : outcome_text (v[i].outcome)) : "planned";
        table_addf (t, "%s\t%s\t%s\t%s", v[i].node->name, v[i].node->nodearray ? v[i].node->nodearray : "-",
                    v[i].reason ? v[i].reason : "", outcome);
    }
    table_print (t, f);
    table_destroy (t);
    fputc ('\n', f);
}

struct reason_group {
    const char *reason;
    size_t count;
    char examples[96];
};

static struct reason_group *group_reasons (const struct ccas_jobs *jobs, size_t *ngroups)
{
    struct reason_group *g = calloc (jobs->n + 1, sizeof (*g));
    size_t n = 0;
    if (!g)
        return NULL;
    for (size_t i = 0; i < jobs->n; i++) {
        const struct ccas_job *j = &jobs->v[i];
        if (j->running || j->matched)
            continue;
        const char *r = j->reason ? j->reason : "unknown";
        size_t k = 0;
        /* reasons are interned per shape, so pointer equality catches most */
        while (k < n && g[k].reason != r && strcmp (g[k].reason, r) != 0)
            k++;
        if (k == n)
            g[n++].reason = r;
        if (g[k].count < 3) {
            size_t len = strlen (g[k].examples);
            snprintf (g[k].examples + len, sizeof (g[k].examples) - len, "%s%s", len ? ", " : "", j->id);
        } else if (g[k].count == 3)
            strncat (g[k].examples, ", ...", sizeof (g[k].examples) - strlen (g[k].examples) - 1);
        g[k].count++;
    }
    *ngroups = n;
    return g;
}

static void print_jobs (FILE *f, const struct ccas_jobs *jobs)
{
    static const char *const headers[] = {">JOBS", "EXAMPLES", "WHY NOT", NULL};
    size_t pending = 0, matched = 0, ngroups = 0;
    for (size_t i = 0; i < jobs->n; i++)
        if (!jobs->v[i].running) {
            pending++;
            matched += jobs->v[i].matched;
        }
    fprintf (f, "Jobs: %zu pending, %zu matched, %zu unmatched.\n", pending, matched, pending - matched);
    if (matched == pending)
        return;
    struct reason_group *g = group_reasons (jobs, &ngroups);
    if (!g)
        return;
    struct table *t = table_create (headers);
    for (size_t i = 0; i < ngroups; i++)
        table_addf (t, "%zu\t%s\t%s", g[i].count, g[i].examples, g[i].reason);
    table_print (t, f);
    table_destroy (t);
    free (g);
}

void plan_print (FILE *f, const struct ccas_plan *plan, bool applied)
{
    print_creates (f, plan, applied);
    print_actions (f, "Would start", "Started", plan->starts, plan->nstarts, applied);
    print_actions (f, "Would terminate", "Terminated", plan->terminates, plan->nterminates, applied);
    if (plan->nkept)
        print_actions (f, "Keeping (KeepAlive)", "Kept (KeepAlive)", plan->kept, plan->nkept, false);
    if (!plan->ncreates && !plan->nstarts && !plan->nterminates)
        fprintf (f, "Nothing to create, start or terminate.\n");
    if (plan->jobs)
        print_jobs (f, plan->jobs);
}

unsigned plan_shortfalls (const struct ccas_plan *plan)
{
    unsigned n = 0;
    for (size_t i = 0; i < plan->ncreates; i++)
        if (plan->creates[i].outcome == CCAS_FAILED ||
            (uint32_t)plan->creates[i].added < plan->creates[i].count)
            n++;
    for (size_t i = 0; i < plan->nstarts; i++)
        n += plan->starts[i].outcome == CCAS_FAILED;
    for (size_t i = 0; i < plan->nterminates; i++)
        n += plan->terminates[i].outcome == CCAS_FAILED;
    return n;
}
