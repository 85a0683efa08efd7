/* SPDX-License-Identifier: MIT */
/* plan_print.c: render a plan as tables; group unmatched jobs by reason; summarise at scale. */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "ccapi/failure.h"
#include "model/resdict.h"
#include "plan_print.h"
#include "table.h"

static const char *outcome_text (enum ccas_outcome o)
{
    return o == CCAS_DONE ? "done" : o == CCAS_FAILED ? "FAILED" : "planned";
}

#define NAMES_SHOWN 24

/* Tables longer than this are summarised, unless all rows are asked for. */
#define ROWS_SHOWN 20

static void print_more (FILE *f, size_t more, const char *what)
{
    if (more)
        fprintf (f, "... and %zu more %s (--json lists them all)\n", more, what);
}

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

/* One row per bucket: how many sets (placement groups) and nodes. */
static void print_creates_by_bucket (FILE *f, const struct ccas_plan *plan, bool applied)
{
    static const char *const planned[] = {"NODEARRAY", "MACHINE TYPE", ">SETS", ">COUNT", NULL};
    static const char *const done[] = {"NODEARRAY", "MACHINE TYPE", ">SETS", ">COUNT",
                                       ">ADDED",    ">SHORT SETS",  NULL};
    struct by_bucket {
        const struct ccas_bucket *b;
        size_t sets, count, added, short_sets;
    } *v = calloc (plan->cluster->nbuckets + 1, sizeof (*v));
    if (!v)
        return;
    for (size_t i = 0; i < plan->ncreates; i++) {
        const struct ccas_plan_set *s = &plan->creates[i];
        struct by_bucket *r = &v[s->bucket->order];
        r->b = s->bucket;
        r->sets++;
        r->count += s->count;
        r->added += s->added > 0 ? (size_t)s->added : 0;
        r->short_sets += (uint32_t)s->added < s->count;
    }
    struct table *t = table_create (applied ? done : planned);
    for (size_t i = 0; i < plan->cluster->nbuckets; i++) {
        const struct by_bucket *r = &v[i];
        if (!r->b)
            continue;
        if (applied)
            table_addf (t, "%s\t%s\t%zu\t%zu\t%zu\t%zu", r->b->na->name, r->b->machine_type, r->sets,
                        r->count, r->added, r->short_sets);
        else
            table_addf (t, "%s\t%s\t%zu\t%zu", r->b->na->name, r->b->machine_type, r->sets, r->count);
    }
    table_print (t, f);
    fprintf (f, "(%zu sets, one per bucket and placement group, in %zu buckets; --json lists each)\n",
             plan->ncreates, table_rows (t));
    table_destroy (t);
    free (v);
}

/* The machine type of set `s`: its bucket's, or what CycleCloud chose. */
static const char *set_machine_type (const struct ccas_plan_set *s)
{
    if (!s->cyclecloud_chooses)
        return s->bucket->machine_type;
    if (s->outcome != CCAS_PLANNED && s->count && s->nodes[0]->name && s->nodes[0]->vm_size)
        return s->nodes[0]->vm_size;
    return "(CycleCloud's choice)";
}

static void print_creates (FILE *f, const struct ccas_plan *plan, bool applied, bool all)
{
    static const char *const planned[] = {"NODEARRAY", "MACHINE TYPE", "PLACEMENT GROUP", ">COUNT", NULL};
    static const char *const done[] = {
        "NODEARRAY", "MACHINE TYPE", "PLACEMENT GROUP", ">COUNT", ">ADDED", "MESSAGE", NULL};
    uint32_t n = ccas_plan_new_nodes (plan);
    if (!plan->ncreates)
        return;
    fprintf (f, "%s %u node%s:\n", applied ? "Asked to create" : "Would create", n, n == 1 ? "" : "s");
    if (!all && plan->ncreates > ROWS_SHOWN) {
        print_creates_by_bucket (f, plan, applied);
        if (applied)
            print_new_names (f, plan);
        fputc ('\n', f);
        return;
    }
    struct table *t = table_create (applied ? done : planned);
    for (size_t i = 0; i < plan->ncreates; i++) {
        const struct ccas_plan_set *s = &plan->creates[i];
        char reason[700] = "";
        if (applied && (uint32_t)s->added < s->count) /* the stable form a script can split */
            ccas_failure_reason (s->cls, s->message ? s->message : "no reason given", reason,
                                 sizeof (reason));
        if (applied && s->replaced) {
            size_t len = strlen (reason);
            snprintf (reason + len, sizeof (reason) - len, " (%u made in another bucket)", s->replaced);
        } else if (applied && s->round && !reason[0])
            snprintf (reason, sizeof (reason), "(fallback after a capacity failure)");
        if (applied)
            table_addf (t, "%s\t%s\t%s\t%u\t%d\t%s", s->bucket->na->name, set_machine_type (s),
                        s->pg ? s->pg->name : "-", s->count, s->added, *reason ? reason : "-");
        else
            table_addf (t, "%s\t%s\t%s\t%u", s->bucket->na->name, set_machine_type (s),
                        s->pg ? s->pg->name : "-", s->count);
    }
    table_print (t, f);
    table_destroy (t);
    if (applied)
        print_new_names (f, plan);
    fputc ('\n', f);
}

static void print_actions (FILE *f, const char *verb_planned, const char *verb_done,
                           const struct ccas_plan_action *v, size_t n, bool applied, bool all)
{
    static const char *const headers[] = {"NAME", "NODEARRAY", "REASON", "OUTCOME", NULL};
    size_t shown = all || n <= ROWS_SHOWN ? n : ROWS_SHOWN;
    if (!n)
        return;
    fprintf (f, "%s %zu node%s:\n", applied ? verb_done : verb_planned, n, n == 1 ? "" : "s");
    struct table *t = table_create (headers);
    for (size_t i = 0; i < shown; i++) {
        const char *outcome = applied ? (v[i].error ? v[i].error : outcome_text (v[i].outcome)) : "planned";
        table_addf (t, "%s\t%s\t%s\t%s", v[i].node->name, v[i].node->nodearray ? v[i].node->nodearray : "-",
                    v[i].reason ? v[i].reason : "", outcome);
    }
    table_print (t, f);
    table_destroy (t);
    print_more (f, n - shown, "nodes");
    fputc ('\n', f);
}

struct reason_group {
    const char *reason;
    size_t count;
    char examples[96];
};

/* Unmatched jobs by reason, in the order each reason first appears: O(jobs). */
static struct reason_group *group_reasons (const struct ccas_jobs *jobs, size_t *ngroups)
{
    struct reason_group *g = calloc (jobs->n + 1, sizeof (*g));
    struct ccas_resdict *ids = ccas_resdict_create ();
    size_t n = 0;
    if (!g || !ids) {
        free (g);
        ccas_resdict_destroy (ids);
        return NULL;
    }
    for (size_t i = 0; i < jobs->n; i++) {
        const struct ccas_job *j = &jobs->v[i];
        if (j->running || j->matched)
            continue;
        const char *r = j->reason ? j->reason : "unknown";
        int id = ccas_resdict_intern (ids, r); /* ids are dense, in order of first appearance */
        if (id < 0)
            break;
        size_t k = (size_t)id;
        if (k == n)
            g[n++].reason = r;
        if (g[k].count < 3) {
            size_t len = strlen (g[k].examples);
            snprintf (g[k].examples + len, sizeof (g[k].examples) - len, "%s%s", len ? ", " : "", j->id);
        } else if (g[k].count == 3)
            strncat (g[k].examples, ", ...", sizeof (g[k].examples) - strlen (g[k].examples) - 1);
        g[k].count++;
    }
    ccas_resdict_destroy (ids);
    *ngroups = n;
    return g;
}

static int cmp_group_count (const void *pa, const void *pb)
{
    const struct reason_group *a = pa, *b = pb;
    return a->count != b->count ? (a->count > b->count ? -1 : 1) : 0;
}

static void print_jobs (FILE *f, const struct ccas_jobs *jobs, bool all)
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
    /* many reasons: the most common first, the rest counted */
    size_t shown = ngroups, rest = 0;
    if (!all && ngroups > ROWS_SHOWN) {
        qsort (g, ngroups, sizeof (*g), cmp_group_count);
        shown = ROWS_SHOWN;
        for (size_t i = shown; i < ngroups; i++)
            rest += g[i].count;
    }
    struct table *t = table_create (headers);
    for (size_t i = 0; i < shown; i++)
        table_addf (t, "%zu\t%s\t%s", g[i].count, g[i].examples, g[i].reason);
    table_print (t, f);
    table_destroy (t);
    if (shown < ngroups)
        fprintf (f, "... and %zu more reasons for %zu jobs (--json lists every job's)\n", ngroups - shown,
                 rest);
    free (g);
}

void plan_print (FILE *f, const struct ccas_plan *plan, bool applied, bool all)
{
    if (plan->cluster && plan->cluster->closed)
        fprintf (f, "%c%s.\n", toupper ((unsigned char)plan->cluster->closed[0]), plan->cluster->closed + 1);
    print_creates (f, plan, applied, all);
    print_actions (f, "Would start", "Started", plan->starts, plan->nstarts, applied, all);
    print_actions (f, "Would terminate", "Terminated", plan->terminates, plan->nterminates, applied, all);
    if (plan->nkept)
        print_actions (f, "Keeping (KeepAlive)", "Kept (KeepAlive)", plan->kept, plan->nkept, false, all);
    if (!plan->ncreates && !plan->nstarts && !plan->nterminates)
        fprintf (f, "Nothing to create, start or terminate.\n");
    if (plan->jobs)
        print_jobs (f, plan->jobs, all);
}

unsigned plan_shortfalls (const struct ccas_plan *plan)
{
    unsigned n = 0;
    for (size_t i = 0; i < plan->ncreates; i++) {
        const struct ccas_plan_set *s = &plan->creates[i];
        uint32_t added = s->added > 0 ? (uint32_t)s->added : 0;
        /* what a fallback made elsewhere stands in for what capacity denied */
        if (added + s->replaced < s->count)
            n++;
    }
    for (size_t i = 0; i < plan->nstarts; i++)
        n += plan->starts[i].outcome == CCAS_FAILED;
    for (size_t i = 0; i < plan->nterminates; i++)
        n += plan->terminates[i].outcome == CCAS_FAILED;
    return n;
}
