/* SPDX-License-Identifier: MIT */
/* fixture.h: what the PBS driver's tests share — the documents under
 * tests/data/pbs, the cluster of match-status.json with CycleCloud nodes,
 * qstat's text read the way a pass reads it, PBS nodes merged into the
 * model, and lookups into jobs, actions and plans.  Header-only (static
 * inline), for test programs; include it after cmocka.h. */
#ifndef CCAS_PBS_TEST_FIXTURE_H
#define CCAS_PBS_TEST_FIXTURE_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "conf/conf.h"
#include "engine/match.h"
#include "engine/plan.h"
#include "model/cluster.h"
#include "pbs_actions.h"
#include "pbs_jobs.h"
#include "pbs_nodes.h"
#include "util/file.h"
#include "util/json.h"

/* The path of data file `name` under tests/data/pbs. */
static inline const char *pf_path (const char *name, char *buf, size_t size)
{
    snprintf (buf, size, "%s/pbs/%s", TEST_DATA_DIR, name);
    return buf;
}

/* The text of data file `name` (NUL-terminated, its length in *len when
 * `len` is not NULL); fails the test if it cannot be read.  Caller frees. */
static inline char *pf_text (const char *name, size_t *len)
{
    char path[512];
    size_t n = 0;
    struct ccas_error err = {""};
    char *text = ccas_file_read (pf_path (name, path, sizeof (path)), 1 << 22, &n, &err);
    if (!text)
        fail_msg ("%s", err.text);
    if (len)
        *len = n;
    return text;
}

/* Data file `name` parsed as JSON; fails the test if it cannot be.  Caller puts it. */
static inline json_object *pf_json (const char *name)
{
    char path[512];
    struct ccas_error err = {""};
    json_object *o = ccas_json_load_file (pf_path (name, path, sizeof (path)), 1 << 22, &err);
    if (!o)
        fail_msg ("%s", err.text);
    return o;
}

/* The entries a read left out: how many, and the last one's name. */
struct skips {
    int n;
    char last[64];
};

static inline void note_skip (const char *key, const char *why, void *arg)
{
    struct skips *s = arg;
    (void)why;
    s->n++;
    snprintf (s->last, sizeof (s->last), "%s", key);
}

/* The cluster of match-status.json (htc: F2s_v2, F4s_v2; hpc: HB120rs_v3;
 * gpu) with the CycleCloud nodes of data file `nodes` (a node list, as
 * CycleCloud's API returns it; NULL: none).  Free with model_free(). */
/* The model of match-status.json with node records `nodes` (a data file, or
 * NULL) under a minimal configuration with `extra` (JSON members, or NULL). */
static inline struct ccas_cluster *model_config (const char *nodes, const char *extra)
{
    struct ccas_error err = {""};
    char text[2048];
    json_object *st = ccas_json_load_file (TEST_DATA_DIR "/match-status.json", 1 << 20, &err);
    assert_non_null (st);
    struct ccas_status *status = ccas_status_from_json (st, "test", &err);
    assert_non_null (status);
    snprintf (text, sizeof (text),
              "{\"url\": \"http://x\", \"username\": \"u\", \"password\": \"p\","
              " \"cluster_name\": \"test\", \"logging\": {\"syslog\": false},"
              " \"idle_timeout\": 300%s%s}",
              extra ? ", " : "", extra ? extra : "");
    json_object *root = json_tokener_parse (text);
    struct ccas_config *cfg = ccas_conf_from_json (root, "test-config", &err);
    assert_non_null (cfg);
    json_object *nl = nodes ? pf_json (nodes) : json_tokener_parse ("{\"nodes\": []}");
    assert_non_null (nl);
    struct ccas_record_list *list = ccas_record_list_from_json (nl, &err);
    assert_non_null (list);
    struct ccas_cluster *c = ccas_cluster_create (cfg, status, list, &err);
    if (!c)
        fail_msg ("%s", err.text);
    return c;
}

static inline struct ccas_cluster *model (const char *nodes)
{
    return model_config (nodes, NULL);
}

static inline void model_free (struct ccas_cluster *c)
{
    const struct ccas_config *cfg = c->cfg;
    ccas_cluster_destroy (c);
    ccas_conf_destroy ((struct ccas_config *)cfg);
}

static inline const struct ccas_job *find_job (const struct ccas_jobs *jobs, const char *id)
{
    for (size_t i = 0; i < jobs->n; i++)
        if (strcmp (jobs->v[i].id, id) == 0)
            return &jobs->v[i];
    return NULL;
}

/* What a pass does with qstat's text: read it entry by entry, translate it. */
static inline struct ccas_jobs *read_qstat (struct ccas_cluster *c, const char *text,
                                            struct ccas_pbs_jobs_stats *st, struct skips *skips)
{
    struct ccas_error err = {""};
    struct ccas_pbs_queue *q = ccas_pbs_queue_create ();
    assert_non_null (q);
    assert_int_equal (ccas_pbs_queue_read (q, text, strlen (text), skips ? note_skip : NULL, skips, &err), 0);
    struct ccas_jobs *jobs = ccas_pbs_queue_jobs (c, q, st, &err);
    ccas_pbs_queue_destroy (q);
    assert_non_null (jobs);
    return jobs;
}

/* The same, from data file `name`. */
static inline struct ccas_jobs *read_qstat_file (struct ccas_cluster *c, const char *name,
                                                 struct ccas_pbs_jobs_stats *st, struct skips *skips)
{
    char *text = pf_text (name, NULL);
    struct ccas_jobs *jobs = read_qstat (c, text, st, skips);
    free (text);
    return jobs;
}

/* The PBS nodes of pbsnodes document `name` (a data file), merged into `c`.
 * Caller frees with ccas_pbs_nodes_destroy(). */
static inline struct ccas_pbs_nodes *pbs_nodes (struct ccas_cluster *c, const char *name)
{
    struct ccas_error err = {""};
    struct ccas_pbs_nodes *pn = ccas_pbs_nodes_from_json (pf_json (name), &err);
    if (!pn)
        fail_msg ("%s: %s", name, err.text);
    ccas_pbs_nodes_merge (pn, c);
    return pn;
}

/* The jobs of qstat document `qstat`, matched against a model with the
 * CycleCloud nodes of `nodes` (or NULL) that PBS has as in `pbsnodes` (or
 * NULL): every argument a data file. */
struct matched {
    struct ccas_cluster *c;
    struct ccas_jobs *jobs;
};

static inline void match_jobs (struct matched *m, const char *nodes, const char *pbsnodes, const char *qstat)
{
    struct ccas_error err = {""};
    m->c = model (nodes);
    if (pbsnodes)
        ccas_pbs_nodes_destroy (pbs_nodes (m->c, pbsnodes));
    m->jobs = read_qstat_file (m->c, qstat, NULL, NULL);
    assert_int_equal (ccas_match (m->c, m->jobs, NULL, &err), 0);
}

static inline void matched_free (struct matched *m)
{
    ccas_jobs_destroy (m->jobs);
    model_free (m->c);
}

static inline const struct ccas_pbs_action *action_for (const struct ccas_pbs_actions *a, const char *host)
{
    for (size_t i = 0; i < a->n; i++)
        if (strcmp (a->v[i].host, host) == 0)
            return &a->v[i];
    return NULL;
}

static inline bool terminated (const struct ccas_plan *plan, const char *name)
{
    for (size_t i = 0; i < plan->nterminates; i++)
        if (strcmp (plan->terminates[i].node->name, name) == 0)
            return true;
    return false;
}

#endif /* !CCAS_PBS_TEST_FIXTURE_H */
