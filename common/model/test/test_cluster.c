/* SPDX-License-Identifier: MIT */
/* test_cluster.c: the model built from a status, node records and the
 * configuration.
 *
 * The invariant of cluster.h checked after every operation: a bucket's
 * available count is never above any limit it draws on (its own count,
 * its nodearray's, its family's and the region's quota, the cluster's),
 * no limit goes below zero, and a rollback restores every count.  Around
 * it: what each limit does on its own (tests/data/cluster-status.json
 * patched per case, with the reason a bucket gives when it is full),
 * holds, nodearray settings from the configuration over the status,
 * placement groups, and existing nodes (tests/data/cluster-nodes.json):
 * their kinds, order, resources, lookup and groups. */
#include "config.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "model/cluster.h"
#include "model/test/fixture.h"
#include "model/undo.h"
#include "util/file.h"

#define STATUS "cluster-status.json"

static char *nodes_text (void)
{
    size_t len;
    struct ccas_error err = {""};
    char *text = ccas_file_read (TEST_DATA_DIR "/cluster-nodes.json", 1 << 20, &len, &err);
    if (!text)
        fail_msg ("%s", err.text);
    return text;
}

/* ---- the invariant ------------------------------------------------------------------------ */

static void check_limit (const struct ccas_bucket *b, const struct ccas_limit *l, int64_t avail)
{
    if (l->nodes != CCAS_UNLIMITED) {
        if (l->nodes < 0)
            fail_msg ("%s: %lld nodes", l->what, (long long)l->nodes);
        if (avail > l->nodes)
            fail_msg ("%s/%s: %lld available, %s has %lld nodes", b->na->name, b->machine_type,
                      (long long)avail, l->what, (long long)l->nodes);
    }
    if (l->cores != CCAS_UNLIMITED) {
        if (l->cores < 0)
            fail_msg ("%s: %lld cores", l->what, (long long)l->cores);
        if (avail * b->cores_per_vm > l->cores)
            fail_msg ("%s/%s: %lld available of %lld cores, %s has %lld cores", b->na->name, b->machine_type,
                      (long long)avail, (long long)b->cores_per_vm, l->what, (long long)l->cores);
    }
}

static void check_invariants (const struct ccas_cluster *c)
{
    for (size_t i = 0; i < c->nbuckets; i++) {
        const struct ccas_bucket *b = &c->buckets[i];
        char why[256] = "";
        int64_t avail = ccas_bucket_available (b, why, sizeof (why));
        assert_true (avail >= 0);
        if (avail == 0)
            assert_true (strlen (why) > 0); /* a zero always says why */
        if (b->hold_reason || !b->st->valid || !b->na->enabled)
            assert_int_equal (avail, 0);
        if (b->available != CCAS_UNLIMITED) {
            assert_true (b->available >= 0);
            assert_true (avail <= b->available);
        }
        for (unsigned k = 0; k < b->nlimits; k++)
            check_limit (b, b->limits[k], avail);
        assert_int_equal (ccas_bucket_available (b, NULL, 0), avail);
        assert_int_equal (b->order, i); /* buckets are in their order */
        for (size_t k = 0; k < b->npgs; k++) {
            assert_ptr_equal (b->pgs[k]->bucket, b);
            assert_true (b->pgs[k]->room == CCAS_UNLIMITED || b->pgs[k]->room >= 0);
        }
    }
    for (size_t i = 0; i < c->nnodes; i++)
        assert_int_equal (c->nodes[i]->index, i);
}

/* Every count a pass changes, to compare before and after a rollback. */
struct snapshot {
    int64_t v[256];
    size_t n;
};

static void snap (const struct ccas_cluster *c, struct snapshot *s)
{
    s->n = 0;
#define PUT(x) (s->v[s->n++] = (int64_t)(x))
    PUT (c->nnodes);
    PUT (c->cluster_limit.nodes);
    PUT (c->cluster_limit.cores);
    for (size_t i = 0; i < ccas_limits_count (c->limits); i++) {
        PUT (ccas_limits_at (c->limits, i)->nodes);
        PUT (ccas_limits_at (c->limits, i)->cores);
    }
    for (size_t i = 0; i < c->nnodearrays; i++) {
        PUT (c->nodearrays[i].limit.nodes);
        PUT (c->nodearrays[i].limit.cores);
    }
    for (size_t i = 0; i < c->nbuckets; i++) {
        const struct ccas_bucket *b = &c->buckets[i];
        PUT (b->available);
        PUT (b->new_nodes);
        PUT (b->npgs);
        for (size_t k = 0; k < b->npgs; k++) {
            PUT (b->pgs[k]->room);
            PUT (b->pgs[k]->nmembers);
        }
    }
#undef PUT
    assert_true (s->n < 256);
}

static void same (const struct snapshot *a, const struct snapshot *b)
{
    assert_int_equal (a->n, b->n);
    for (size_t i = 0; i < a->n; i++)
        if (a->v[i] != b->v[i])
            fail_msg ("count %zu: %lld before, %lld after the rollback", i, (long long)a->v[i],
                      (long long)b->v[i]);
}

/* ---- bad input -------------------------------------------------------------------------- */

static void test_bad_config_refused (void **state)
{
    static const struct {
        const char *config;
        const char *want;
    } cases[] = {
        {"{\"default_resources\": [{\"select\": {}, \"name\": \"x\", \"value\": \"node.nope\"}]}",
         "default_resources[0].value: unknown node property 'node.nope'"},
        {"{\"default_resources\": [{\"select\": {}, \"value\": 1}]}", "default_resources[0].name: missing"},
        {"{\"shared_resources\": {\"lic\": -1}}", "shared_resources.lic: a shared amount cannot be negative"},
        {"{\"shared_resources\": {\"lic\": [1]}}", "shared_resources.lic: expected a number, string, boolean "
                                                   "or {\"cluster\", \"queues\"}, got an array"},
    };
    (void)state;
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        struct ccas_error err = {""};
        struct ccas_config *cfg = fx_config (cases[i].config);
        /* the status and nodes are taken over and freed on failure too */
        struct ccas_cluster *c =
            ccas_cluster_create (cfg, fx_status (STATUS, NULL), fx_nodes ("[{\"Name\": \"a\"}]"), &err);
        if (c)
            fail_msg ("case %zu was accepted", i);
        assert_string_equal (err.text, cases[i].want);
        ccas_conf_destroy (cfg);
    }
    ccas_cluster_destroy (NULL);
}

/* ---- limits, one at a time ------------------------------------------------------------------ */

static void test_limits (void **state)
{
    static const struct {
        const char *config, *patch;
        const char *bucket; /* "na/mt" */
        int64_t want;
        const char *why; /* substring, when want is 0 */
    } cases[] = {
        {NULL, NULL, "htc/Standard_F2s_v2", 28, NULL},
        {NULL, NULL, "htc/Standard_F4s_v2", 29, NULL},
        {NULL, NULL, "hpc/Standard_HB120rs_v3", 10, NULL},
        /* its own count, or none: then its maxCount less activeCount, 28 */
        {NULL, "{\"htc/Standard_F2s_v2\": {\"availableCount\": 3}}", "htc/Standard_F2s_v2", 3, NULL},
        {NULL, "{\"htc/Standard_F2s_v2\": {\"availableCount\": null}}", "htc/Standard_F2s_v2", 28, NULL},
        {NULL, "{\"htc/Standard_F2s_v2\": {\"availableCount\": null, \"maxCount\": null}}",
         "htc/Standard_F2s_v2", 37, NULL}, /* the nodearray's 37 */
        /* the nodearray: 3 nodes and 8 cores active */
        {NULL, "{\"htc\": {\"maxCount\": 5}}", "htc/Standard_F2s_v2", 2, NULL},
        {NULL, "{\"htc\": {\"maxCount\": 3}}", "htc/Standard_F2s_v2", 0, "nodearray htc limit: 0 nodes left"},
        {NULL, "{\"htc\": {\"maxCoreCount\": 14}}", "htc/Standard_F2s_v2", 3, NULL},
        {NULL, "{\"htc\": {\"maxCoreCount\": 14}}", "htc/Standard_F4s_v2", 1, NULL},
        /* one family, two buckets: the tighter count holds for both */
        {NULL, "{\"htc/Standard_F2s_v2\": {\"familyQuotaCoreCount\": 30}}", "htc/Standard_F2s_v2", 5, NULL},
        {NULL, "{\"htc/Standard_F2s_v2\": {\"familyQuotaCoreCount\": 30}}", "htc/Standard_F4s_v2", 2, NULL},
        {NULL, "{\"htc/Standard_F4s_v2\": {\"familyConsumedCoreCount\": 200}}", "htc/Standard_F2s_v2", 0,
         "family quota standardFSv2Family in westeurope: 0 cores left, 2 per node"},
        /* the region: the tightest bucket's view, for every on-demand nodearray of the region */
        {NULL, "{\"htc/Standard_F4s_v2\": {\"regionalQuotaCoreCount\": 520}}", "htc/Standard_F2s_v2", 10,
         NULL},
        {NULL, "{\"htc/Standard_F4s_v2\": {\"regionalQuotaCoreCount\": 520}}", "hpc/Standard_HB120rs_v3", 0,
         "regional quota in westeurope: 20 cores left, 120 per node"},
        /* the cluster: 5 nodes and 248 cores active */
        {NULL, "{\"cluster\": {\"maxCount\": 7}}", "htc/Standard_F2s_v2", 2, NULL},
        {NULL, "{\"cluster\": {\"maxCoreCount\": 260}}", "htc/Standard_F2s_v2", 6, NULL},
        {NULL, "{\"cluster\": {\"maxCoreCount\": 260}}", "hpc/Standard_HB120rs_v3", 0,
         "cluster limit: 12 cores left, 120 per node"},
        /* a quota core count per VM other than its vCPUs */
        {NULL,
         "{\"htc/Standard_F2s_v2\": {\"virtualMachine\": {\"vcpuCount\": 2, \"memory\": 4, "
         "\"vcpuQuotaCount\": 18}}}",
         "htc/Standard_F2s_v2", 10, NULL},
        /* the server said 0: its counts say why */
        {NULL, "{\"htc/Standard_F2s_v2\": {\"availableCount\": 0, \"activeCount\": 30}}",
         "htc/Standard_F2s_v2", 0, "availableCount 0 (bucket maxCount)"},
        {NULL, "{\"htc/Standard_F2s_v2\": {\"availableCount\": 0, \"quotaCount\": 0}}", "htc/Standard_F2s_v2",
         0, "availableCount 0 (quota)"},
        {NULL, "{\"htc/Standard_F2s_v2\": {\"availableCount\": 0, \"lastCapacityFailure\": 30}}",
         "htc/Standard_F2s_v2", 0, "availableCount 0 (recent capacity failure)"},
        {NULL, "{\"htc/Standard_F2s_v2\": {\"availableCount\": 0}}", "htc/Standard_F2s_v2", 0,
         "availableCount 0"},
        /* not valid, not enabled */
        {NULL, NULL, "login/Standard_D2s_v3", 0, "bucket not valid: size retired"},
        {NULL, "{\"htc/Standard_F2s_v2\": {\"valid\": false}}", "htc/Standard_F2s_v2", 0,
         "bucket not valid: no reason given"},
        {NULL, NULL, "gpu/Standard_NC24ads_A100_v4", 0,
         "nodearray not autoscaled (its Configuration.autoscale.enabled is false)"},
        {"{\"nodearrays\": {\"gpu\": {\"enabled\": true}}}", NULL, "gpu/Standard_NC24ads_A100_v4", 4, NULL},
        {"{\"nodearrays\": {\"htc\": {\"enabled\": false}}}", NULL, "htc/Standard_F2s_v2", 0,
         "nodearray disabled in the configuration"},
    };
    (void)state;
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        char na[64], mt[64], why[256] = "";
        sscanf (cases[i].bucket, "%63[^/]/%63s", na, mt);
        struct ccas_config *cfg = fx_config (cases[i].config);
        struct ccas_cluster *c = fx_cluster (cfg, STATUS, cases[i].patch, NULL);
        check_invariants (c);
        int64_t got = ccas_bucket_available (fx_bucket (c, na, mt), why, sizeof (why));
        if (got != cases[i].want)
            fail_msg ("case %zu (%s): %lld available, want %lld (%s)", i, cases[i].bucket, (long long)got,
                      (long long)cases[i].want, why);
        if (cases[i].why && !strstr (why, cases[i].why))
            fail_msg ("case %zu: '%s', want '%s'", i, why, cases[i].why);
        ccas_cluster_destroy (c);
        ccas_conf_destroy (cfg);
    }
}

/* ---- new nodes: the invariant after each one, and rollback ------------------------------------ */

/* Fill `b` node by node: each new node charges every limit, the invariant
 * holds after each, the count made is what was available, and rolling
 * back restores every count. */
static void fill_and_roll_back (struct ccas_cluster *c, struct ccas_bucket *b)
{
    struct ccas_undo *undo = ccas_undo_create ();
    struct snapshot before, after;
    snap (c, &before);
    int64_t avail = ccas_bucket_available (b, NULL, 0);
    int64_t made = 0;
    size_t mark = ccas_undo_mark (undo);
    struct ccas_node *n;
    while ((n = ccas_cluster_new_node (c, b, NULL, undo))) {
        made++;
        assert_int_equal (n->kind, CCAS_NODE_NEW);
        assert_ptr_equal (n->bucket, b);
        assert_ptr_equal (c->nodes[c->nnodes - 1], n);
        assert_int_equal (ccas_bucket_available (b, NULL, 0), avail - made);
        check_invariants (c);
        if (made > 10000)
            fail_msg ("no end to %s/%s", b->na->name, b->machine_type);
    }
    assert_int_equal (made, avail);
    assert_int_equal (b->new_nodes, made);
    ccas_undo_rollback (undo, mark);
    snap (c, &after);
    same (&before, &after);
    check_invariants (c);
    ccas_undo_destroy (undo);
}

static void test_new_nodes_charge_every_limit (void **state)
{
    static const struct {
        const char *patch;
    } cases[] = {
        {NULL},
        {"{\"htc/Standard_F2s_v2\": {\"familyQuotaCoreCount\": 30}}"},
        {"{\"htc\": {\"maxCoreCount\": 14}}"},
        {"{\"cluster\": {\"maxCount\": 9, \"maxCoreCount\": 700}}"},
        {"{\"htc/Standard_F4s_v2\": {\"regionalQuotaCoreCount\": 900}}"},
        {"{\"htc/Standard_F2s_v2\": {\"availableCount\": null}, \"htc\": {\"maxCount\": null, "
         "\"maxCoreCount\": null}}"},
    };
    (void)state;
    struct ccas_config *cfg = fx_config ("{\"nodearrays\": {\"gpu\": {\"enabled\": true}}}");
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        struct ccas_cluster *c = fx_cluster (cfg, STATUS, cases[i].patch, NULL);
        for (size_t k = 0; k < c->nbuckets; k++)
            fill_and_roll_back (c, &c->buckets[k]);
        ccas_cluster_destroy (c);
    }
    ccas_conf_destroy (cfg);
}

/* The limit of `b` whose name starts with `what`, or NULL. */
static const struct ccas_limit *limit_of (const struct ccas_bucket *b, const char *what)
{
    for (unsigned k = 0; k < b->nlimits; k++)
        if (strncmp (b->limits[k]->what, what, strlen (what)) == 0)
            return b->limits[k];
    return NULL;
}

/* Buckets that share a limit: what one takes, the other loses. */
static void test_shared_limits (void **state)
{
    (void)state;
    struct ccas_config *cfg = fx_config (NULL);
    struct ccas_cluster *c =
        fx_cluster (cfg, STATUS, "{\"htc/Standard_F2s_v2\": {\"familyQuotaCoreCount\": 40}}", NULL);
    struct ccas_bucket *f2 = fx_bucket (c, "htc", "Standard_F2s_v2"),
                       *f4 = fx_bucket (c, "htc", "Standard_F4s_v2");
    assert_non_null (limit_of (f2, "family quota"));
    assert_ptr_equal (limit_of (f2, "family quota"), limit_of (f4, "family quota"));
    assert_int_equal (ccas_bucket_available (f2, NULL, 0), 10); /* 20 cores */
    assert_int_equal (ccas_bucket_available (f4, NULL, 0), 5);
    assert_non_null (ccas_cluster_new_node (c, f4, NULL, NULL)); /* final: no undo log */
    assert_int_equal (ccas_bucket_available (f2, NULL, 0), 8);
    assert_int_equal (ccas_bucket_available (f4, NULL, 0), 4);
    for (int i = 0; i < 8; i++)
        assert_non_null (ccas_cluster_new_node (c, f2, NULL, NULL));
    check_invariants (c);
    assert_null (ccas_cluster_new_node (c, f2, NULL, NULL));
    assert_null (ccas_cluster_new_node (c, f4, NULL, NULL));
    char why[256];
    assert_int_equal (ccas_bucket_available (f4, why, sizeof (why)), 0);
    assert_non_null (strstr (why, "family quota standardFSv2Family in westeurope: 0 cores left"));
    ccas_cluster_destroy (c);
    ccas_conf_destroy (cfg);
}

static int rnd (uint64_t *seed, int n)
{
    *seed = *seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return (int)((*seed >> 33) % (uint64_t)n);
}

/* Random limits and random sequences of new nodes (a fixed seed): the
 * invariant after every step. */
static void test_invariant_random (void **state)
{
    (void)state;
    uint64_t seed = 42;
    struct ccas_config *cfg = fx_config ("{\"nodearrays\": {\"gpu\": {\"enabled\": true}}}");
    for (int round = 0; round < 60; round++) {
        static const int base[] = {5, 250, 3, 8, 0, 20, 0, 500, 0, 240, 0};
        static const int span[] = {40, 2000, 30, 120, 30, 200, 30, 2000, 12, 1500, 100};
        int v[11];
        char patch[1024];
        for (size_t k = 0; k < 11; k++)
            v[k] = base[k] + rnd (&seed, span[k]);
        snprintf (patch, sizeof (patch),
                  "{\"cluster\": {\"maxCount\": %d, \"maxCoreCount\": %d},"
                  " \"htc\": {\"maxCount\": %d, \"maxCoreCount\": %d},"
                  " \"htc/Standard_F2s_v2\": {\"availableCount\": %d, \"familyQuotaCoreCount\": %d},"
                  " \"htc/Standard_F4s_v2\": {\"availableCount\": %d, \"regionalQuotaCoreCount\": %d},"
                  " \"hpc/Standard_HB120rs_v3\": {\"availableCount\": %d, \"familyQuotaCoreCount\": %d},"
                  " \"gpu\": {\"maxCoreCount\": %d}}",
                  v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10]);
        struct ccas_cluster *c = fx_cluster (cfg, STATUS, patch, NULL);
        struct ccas_undo *undo = ccas_undo_create ();
        struct snapshot before, after;
        check_invariants (c);
        snap (c, &before);
        for (int step = 0; step < 80; step++) {
            struct ccas_bucket *b = &c->buckets[rnd (&seed, (int)c->nbuckets)];
            int64_t avail = ccas_bucket_available (b, NULL, 0);
            struct ccas_node *n = ccas_cluster_new_node (c, b, NULL, undo);
            assert_true ((n != NULL) == (avail > 0));
            check_invariants (c);
        }
        ccas_undo_rollback (undo, 0);
        snap (c, &after);
        same (&before, &after);
        ccas_undo_destroy (undo);
        ccas_cluster_destroy (c);
    }
    ccas_conf_destroy (cfg);
}

/* ---- holds ------------------------------------------------------------------------------------ */

static void test_hold (void **state)
{
    (void)state;
    struct ccas_config *cfg = fx_config (NULL);
    struct ccas_cluster *c = fx_cluster (cfg, STATUS, NULL, NULL);
    struct ccas_bucket *b = fx_bucket (c, "htc", "Standard_F2s_v2");
    char reason[64] = "held back 300 s more: capacity";
    assert_int_equal (ccas_cluster_hold (c, b, reason), 0);
    reason[0] = 'X'; /* copied */
    char why[256];
    assert_int_equal (ccas_bucket_available (b, why, sizeof (why)), 0);
    assert_string_equal (why, "held back 300 s more: capacity");
    assert_null (ccas_cluster_new_node (c, b, NULL, NULL));
    check_invariants (c);
    /* the other bucket of the nodearray is not held */
    assert_int_equal (ccas_bucket_available (fx_bucket (c, "htc", "Standard_F4s_v2"), NULL, 0), 29);
    ccas_cluster_destroy (c);
    ccas_conf_destroy (cfg);
}

/* A cluster that is not Started takes no node in any bucket, and every
 * bucket says why; a later hold does not hide it.  Started (or not stated)
 * is open. */
static void test_closed_cluster (void **state)
{
    static const struct {
        const char *patch, *closed;
    } cases[] = {
        {"{\"cluster\": {\"state\": \"Terminating\", \"targetState\": \"Terminated\"}}",
         "cluster 'test' is Terminating (targetState Terminated): nothing is created or started until it is "
         "Started"},
        {"{\"cluster\": {\"state\": \"Starting\"}}", "cluster 'test' is Starting (targetState Started): "
                                                     "nothing is created or started until it is Started"},
        {"{\"cluster\": {\"state\": \"Started\"}}", NULL},
    };
    (void)state;
    struct ccas_config *cfg = fx_config (NULL);
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        struct ccas_cluster *c = fx_cluster (cfg, STATUS, cases[i].patch, NULL);
        char why[300];
        if (!cases[i].closed) {
            assert_null (c->closed);
            assert_true (ccas_bucket_available (fx_bucket (c, "htc", "Standard_F2s_v2"), NULL, 0) > 0);
            ccas_cluster_destroy (c);
            continue;
        }
        assert_string_equal (c->closed, cases[i].closed);
        for (size_t k = 0; k < c->nbuckets; k++) {
            assert_int_equal (ccas_bucket_available (&c->buckets[k], why, sizeof (why)), 0);
            assert_string_equal (why, cases[i].closed);
            assert_null (ccas_cluster_new_node (c, &c->buckets[k], NULL, NULL));
        }
        struct ccas_bucket *b = fx_bucket (c, "htc", "Standard_F2s_v2");
        assert_int_equal (ccas_cluster_hold (c, b, "held back 300 s more: capacity"), 0);
        ccas_bucket_available (b, why, sizeof (why));
        assert_string_equal (why, cases[i].closed);
        check_invariants (c);
        ccas_cluster_destroy (c);
    }
    ccas_conf_destroy (cfg);
}

/* ---- nodearray settings and bucket order -------------------------------------------------------- */

static void test_nodearray_settings (void **state)
{
    static const struct {
        const char *config, *patch;
        const char *na;
        bool enabled, colocated;
        int priority;
    } cases[] = {
        {NULL, NULL, "htc", true, false, 0},
        {NULL, NULL, "hpc", true, true, 0},   /* an InfiniBand bucket */
        {NULL, NULL, "login", true, true, 5}, /* a nodearray placement group; the status's Priority */
        {NULL, NULL, "gpu", false, false, 0}, /* autoscale.enabled false */
        {"{\"nodearrays\": {\"gpu\": {\"enabled\": true, \"colocated\": true, \"priority\": -3}}}", NULL,
         "gpu", true, true, -3},
        {"{\"nodearrays\": {\"hpc\": {\"colocated\": false, \"enabled\": false}}}", NULL, "hpc", false, false,
         0},
        {"{\"nodearrays\": {\"login\": {\"priority\": 0}}}", NULL, "login", true, true, 0},
        {NULL, "{\"htc.nodearray\": {\"Priority\": 9}}", "htc", true, false, 9},
        {"{\"nodearrays\": {\"htc\": {\"priority\": 1}}}", "{\"htc.nodearray\": {\"Priority\": 9}}", "htc",
         true, false, 1},
    };
    (void)state;
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        struct ccas_config *cfg = fx_config (cases[i].config);
        struct ccas_cluster *c = fx_cluster (cfg, STATUS, cases[i].patch, NULL);
        const struct ccas_nodearray *na = NULL;
        for (size_t k = 0; k < c->nnodearrays; k++)
            if (strcmp (c->nodearrays[k].name, cases[i].na) == 0)
                na = &c->nodearrays[k];
        assert_non_null (na);
        if (na->enabled != cases[i].enabled || na->colocated != cases[i].colocated ||
            na->priority != cases[i].priority)
            fail_msg ("case %zu: enabled %d colocated %d priority %d", i, na->enabled, na->colocated,
                      na->priority);
        check_invariants (c);
        ccas_cluster_destroy (c);
        ccas_conf_destroy (cfg);
    }
}

static void test_bucket_order (void **state)
{
    static const struct {
        const char *config, *patch;
        const char *want; /* buckets, in order, by machine type */
    } cases[] = {
        /* higher priority first (login's 5); then the status's order */
        {NULL, NULL,
         "Standard_D2s_v3 Standard_F2s_v2 Standard_F4s_v2 Standard_HB120rs_v3 Standard_NC24ads_A100_v4"},
        {"{\"nodearrays\": {\"gpu\": {\"priority\": 10}}}", NULL,
         "Standard_NC24ads_A100_v4 Standard_D2s_v3 Standard_F2s_v2 Standard_F4s_v2 Standard_HB120rs_v3"},
        /* the configured machine-type order within a nodearray (case aside) */
        {"{\"nodearrays\": {\"htc\": {\"machine_types\": [\"standard_f4s_v2\"]}}}", NULL,
         "Standard_D2s_v3 Standard_F4s_v2 Standard_F2s_v2 Standard_HB120rs_v3 Standard_NC24ads_A100_v4"},
        {NULL, "{\"login.nodearray\": {\"Priority\": -1}, \"hpc.nodearray\": {\"Priority\": 1}}",
         "Standard_HB120rs_v3 Standard_F2s_v2 Standard_F4s_v2 Standard_NC24ads_A100_v4 Standard_D2s_v3"},
    };
    (void)state;
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        struct ccas_config *cfg = fx_config (cases[i].config);
        struct ccas_cluster *c = fx_cluster (cfg, STATUS, cases[i].patch, NULL);
        char got[512] = "";
        for (size_t k = 0; k < c->nbuckets; k++) {
            size_t n = strlen (got);
            snprintf (got + n, sizeof (got) - n, "%s%s", k ? " " : "", c->buckets[k].machine_type);
        }
        if (strcmp (got, cases[i].want) != 0)
            fail_msg ("case %zu: '%s', want '%s'", i, got, cases[i].want);
        check_invariants (c);
        ccas_cluster_destroy (c);
        ccas_conf_destroy (cfg);
    }
}

/* The template node of a bucket: what a new node there looks like. */
static void test_template_nodes (void **state)
{
    (void)state;
    struct ccas_config *cfg = fx_config ("{\"gpu_counts\": {\"Standard_F4s_v2\": 1}}");
    struct ccas_cluster *c = fx_cluster (cfg, STATUS, NULL, NULL);
    const struct ccas_node *t = &fx_bucket (c, "hpc", "Standard_HB120rs_v3")->template_node;
    assert_int_equal (t->kind, CCAS_NODE_NEW);
    assert_string_equal (t->nodearray, "hpc");
    assert_string_equal (t->vm_size, "Standard_HB120rs_v3");
    assert_string_equal (t->vm_family, "standardHBrsv3Family");
    assert_string_equal (t->bucket_id, "b-hb");
    assert_string_equal (t->location, "westeurope");
    assert_int_equal (t->vcpu_count, 120);
    assert_true (t->memory == 456.0 * 1024 * 1024 * 1024);
    assert_true (t->infiniband);
    assert_false (t->spot);
    assert_int_equal (ccas_node_res (t, ccas_resdict_find (c->dict, "ncpus"))->u.num, 120);
    t = &fx_bucket (c, "gpu", "Standard_NC24ads_A100_v4")->template_node;
    assert_int_equal (t->gpu_count, 1); /* the built-in table: the server said 0 */
    assert_true (t->spot);              /* Interruptible */
    t = &fx_bucket (c, "htc", "Standard_F4s_v2")->template_node;
    assert_int_equal (t->gpu_count, 1); /* the configuration's gpu_counts */
    assert_int_equal (t->pcpu_count, 2);
    t = &fx_bucket (c, "login", "Standard_D2s_v3")->template_node;
    assert_int_equal (t->pcpu_count, 2); /* no pcpuCount: its vCPUs */
    assert_null (ccas_cluster_bucket (c, "htc", "Standard_HB120rs_v3"));
    assert_null (ccas_cluster_bucket (c, NULL, "Standard_F2s_v2"));
    assert_null (ccas_cluster_bucket (c, "htc", NULL));
    assert_ptr_equal (ccas_cluster_bucket (c, "htc", "STANDARD_F2S_V2"),
                      fx_bucket (c, "htc", "Standard_F2s_v2"));
    ccas_cluster_destroy (c);
    ccas_conf_destroy (cfg);
}

/* ---- placement groups ----------------------------------------------------------------------------- */

static void test_placement_groups (void **state)
{
    (void)state;
    struct ccas_config *cfg = fx_config (NULL);
    struct ccas_cluster *c = fx_cluster (cfg, STATUS, NULL, NULL);
    struct ccas_bucket *b = fx_bucket (c, "hpc", "Standard_HB120rs_v3");
    struct ccas_undo *undo = ccas_undo_create ();

    /* the status's group: 2 active of at most 4 */
    assert_int_equal (b->npgs, 1);
    struct ccas_pg *a = ccas_pg_get (c, b, "hpc-pg-a", undo);
    assert_ptr_equal (a, b->pgs[0]);
    assert_int_equal (a->active, 2);
    assert_int_equal (a->room, 2);
    assert_false (a->is_new);
    assert_true (a->from_status);
    assert_int_equal (ccas_undo_mark (undo), 0); /* found, nothing made */

    struct snapshot before, after;
    snap (c, &before);
    assert_non_null (ccas_cluster_new_node (c, b, a, undo));
    struct ccas_node *n = ccas_cluster_new_node (c, b, a, undo);
    assert_non_null (n);
    assert_ptr_equal (n->pg, a);
    assert_string_equal (n->placement_group, "hpc-pg-a");
    assert_int_equal (a->room, 0);
    assert_int_equal (a->nmembers, 2);
    assert_ptr_equal (a->members[1], n);
    assert_null (ccas_cluster_new_node (c, b, a, undo)); /* the group is full, the bucket is not */
    assert_int_equal (ccas_bucket_available (b, NULL, 0), 8);
    check_invariants (c);

    /* new groups: fresh names, the size of the bucket's groups */
    struct ccas_pg *p0 = ccas_pg_get (c, b, NULL, undo);
    struct ccas_pg *p1 = ccas_pg_get (c, b, NULL, undo);
    assert_string_equal (p0->name, "hpc_Standard_HB120rs_v3_pg0");
    assert_string_equal (p1->name, "hpc_Standard_HB120rs_v3_pg1");
    assert_true (p0->is_new);
    assert_int_equal (p0->room, 4);
    assert_int_equal (b->npgs, 3);
    for (int i = 0; i < 4; i++)
        assert_non_null (ccas_cluster_new_node (c, b, p0, undo));
    assert_null (ccas_cluster_new_node (c, b, p0, undo));
    check_invariants (c);
    ccas_undo_rollback (undo, 0);
    snap (c, &after);
    same (&before, &after);
    assert_int_equal (b->npgs, 1);
    assert_int_equal (a->nmembers, 0);
    ccas_undo_destroy (undo);
    ccas_cluster_destroy (c);

    /* a name already taken is skipped */
    c = fx_cluster (
        cfg, STATUS,
        "{\"hpc/Standard_HB120rs_v3\": {\"placementGroups\": [{\"name\": \"hpc_Standard_HB120rs_v3_pg0\","
        " \"activeCount\": 4}]}}",
        NULL);
    b = fx_bucket (c, "hpc", "Standard_HB120rs_v3");
    assert_int_equal (b->pgs[0]->room, 0);
    assert_string_equal (ccas_pg_get (c, b, NULL, NULL)->name, "hpc_Standard_HB120rs_v3_pg1");
    ccas_cluster_destroy (c);

    /* no maxPlacementGroupSize: groups without a limit */
    c = fx_cluster (cfg, STATUS, "{\"hpc/Standard_HB120rs_v3\": {\"maxPlacementGroupSize\": null}}", NULL);
    b = fx_bucket (c, "hpc", "Standard_HB120rs_v3");
    assert_true (b->pgs[0]->room == CCAS_UNLIMITED);
    assert_true (ccas_pg_get (c, b, NULL, NULL)->room == CCAS_UNLIMITED);
    ccas_cluster_destroy (c);
    ccas_conf_destroy (cfg);
}

/* ---- existing nodes --------------------------------------------------------------------------------- */

static int kind_rank (enum ccas_node_kind k)
{
    static const int rank[] = {[CCAS_NODE_READY] = 0, [CCAS_NODE_BOOTING] = 1, [CCAS_NODE_STOPPED] = 2,
                               [CCAS_NODE_NEW] = 3,   [CCAS_NODE_FAILED] = 4,  [CCAS_NODE_GOING] = 5};
    return rank[k];
}

static void test_existing_nodes (void **state)
{
    static const struct {
        const char *name;
        enum ccas_node_kind kind;
        const char *bucket; /* machine type, or NULL */
        double ncpus;
    } cases[] = {
        {"htc-1", CCAS_NODE_READY, "Standard_F2s_v2", 2},
        {"htc-2", CCAS_NODE_BOOTING, "Standard_F2s_v2", 2},
        {"htc-3", CCAS_NODE_BOOTING, "Standard_F4s_v2", 4}, /* Ready without an address */
        {"htc-4", CCAS_NODE_STOPPED, "Standard_F2s_v2", 2},
        {"htc-5", CCAS_NODE_FAILED, "Standard_F2s_v2", 2},
        {"htc-6", CCAS_NODE_GOING, "Standard_F2s_v2", 2},
        {"htc-7", CCAS_NODE_GOING, "Standard_F4s_v2", 4},
        {"hpc-1", CCAS_NODE_READY, "Standard_HB120rs_v3", 120},
        {"hpc-3", CCAS_NODE_STOPPED, "Standard_HB120rs_v3", 120},
        {"hpc-4", CCAS_NODE_GOING, "Standard_HB120rs_v3", 120}, /* machine type in another case */
        {"gpu-1", CCAS_NODE_READY, "Standard_NC24ads_A100_v4", 24},
        {"ghost-1", CCAS_NODE_READY, NULL, 8}, /* no bucket: its own CoreCount */
    };
    (void)state;
    char *text = nodes_text ();
    struct ccas_config *cfg = fx_config (NULL);
    struct ccas_cluster *c = fx_cluster (cfg, STATUS, NULL, text);
    free (text);
    assert_int_equal (c->nexisting, 15);
    assert_int_equal (c->nnodes, 15);
    check_invariants (c);
    int ncpus = ccas_resdict_find (c->dict, "ncpus");
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        struct ccas_node *n = fx_node (c, cases[i].name);
        if (n->kind != cases[i].kind)
            fail_msg ("%s: kind %d, want %d", cases[i].name, n->kind, cases[i].kind);
        if (cases[i].bucket)
            assert_string_equal (n->bucket->machine_type, cases[i].bucket);
        else
            assert_null (n->bucket);
        assert_true (ccas_node_res (n, ncpus)->u.num == cases[i].ncpus);
        assert_true (n->avail[ncpus] == cases[i].ncpus);
        assert_true (n->managed);
        assert_int_equal (n->last_job, -1);
    }
    /* ready, booting, stopped, then failed and going; by bucket within a kind */
    for (size_t i = 1; i < c->nnodes; i++) {
        const struct ccas_node *p = c->nodes[i - 1], *n = c->nodes[i];
        assert_true (kind_rank (p->kind) <= kind_rank (n->kind));
        if (p->kind == n->kind) {
            uint32_t po = p->bucket ? p->bucket->order : UINT32_MAX,
                     no = n->bucket ? n->bucket->order : UINT32_MAX;
            assert_true (po <= no);
        }
    }
    /* lookup: by name, or by hostname whatever its case; the first of two names */
    struct ccas_node *h = fx_node (c, "htc-1");
    assert_ptr_equal (ccas_cluster_find_node (c, "htc-1.CLUSTER.local"), h);
    assert_true (h->keep_alive);
    assert_string_equal (h->private_ip, "10.0.0.4");
    assert_string_equal (fx_node (c, "dup")->node_id, "dup-first");
    assert_null (ccas_cluster_find_node (c, "nobody"));
    /* record settings over the bucket's */
    struct ccas_node *g = fx_node (c, "gpu-1");
    assert_true (g->spot); /* the nodearray's Interruptible stays */
    assert_string_equal (g->location, "northeurope");
    struct ccas_node *ghost = fx_node (c, "ghost-1");
    assert_true (ghost->memory == 16.0 * 1024 * 1024 * 1024);
    assert_string_equal (ghost->nodearray, "ghost");
    assert_string_equal (fx_node (c, "htc-5")->status_message, "boot failed");
    ccas_cluster_destroy (c);
    ccas_conf_destroy (cfg);
}

/* Existing nodes' groups: the status's counts stand; a group the status
 * did not list counts its nodes (not departing ones); usable nodes are
 * its members. */
static void test_existing_groups (void **state)
{
    (void)state;
    char *text = nodes_text ();
    struct ccas_config *cfg = fx_config (NULL);
    struct ccas_cluster *c = fx_cluster (cfg, STATUS, NULL, text);
    free (text);
    struct ccas_bucket *b = fx_bucket (c, "hpc", "Standard_HB120rs_v3");
    struct ccas_pg *a = ccas_pg_get (c, b, "hpc-pg-a", NULL), *pb = ccas_pg_get (c, b, "hpc-pg-b", NULL);
    assert_int_equal (b->npgs, 2);
    assert_int_equal (a->active, 2);
    assert_int_equal (a->room, 2);
    assert_int_equal (a->nmembers, 1);
    assert_false (pb->from_status);
    assert_int_equal (pb->active, 2); /* hpc-2 and hpc-3; hpc-4 is going */
    assert_int_equal (pb->room, 2);
    assert_int_equal (pb->nmembers, 2);
    assert_ptr_equal (fx_node (c, "hpc-2")->pg, pb);
    struct ccas_node *going = fx_node (c, "hpc-4");
    assert_ptr_equal (going->pg, pb); /* in the group, not a member */
    for (uint32_t k = 0; k < pb->nmembers; k++)
        assert_ptr_not_equal (pb->members[k], going);
    check_invariants (c);
    ccas_cluster_destroy (c);
    ccas_conf_destroy (cfg);
}

/* Without a node list, the nodes a status?nodes=true carried. */
static void test_nodes_from_status (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct ccas_config *cfg = fx_config (NULL);
    json_object *root = fx_load (STATUS);
    json_object_object_add (
        root, "nodes",
        fx_parse ("[{\"Name\": \"s-1\", \"Template\": \"htc\", \"MachineType\": \"Standard_F2s_v2\","
                  " \"Status\": \"Ready\", \"PrivateIp\": \"10.0.0.9\"}]"));
    struct ccas_status *st = ccas_status_from_json (root, "test", &err);
    assert_non_null (st);
    struct ccas_cluster *c = ccas_cluster_create (cfg, st, NULL, &err);
    assert_non_null (c);
    assert_int_equal (c->nexisting, 1);
    assert_int_equal (fx_node (c, "s-1")->kind, CCAS_NODE_READY);
    ccas_cluster_destroy (c);
    ccas_conf_destroy (cfg);
}

static void test_node_use_and_labels (void **state)
{
    (void)state;
    char *text = nodes_text ();
    struct ccas_config *cfg = fx_config (NULL);
    struct ccas_cluster *c = fx_cluster (cfg, STATUS, NULL, text);
    free (text);
    struct ccas_node *n = fx_node (c, "htc-1");
    int ncpus = ccas_resdict_find (c->dict, "ncpus"), na = ccas_resdict_find (c->dict, "nodearray");
    ccas_node_use (c, n, "ncpus", 1.5);
    assert_true (n->avail[ncpus] == 0.5);
    assert_true (n->res[ncpus].u.num == 2); /* what it has is unchanged */
    ccas_node_use (c, n, "fpga", 1);        /* unknown: ignored */
    ccas_node_use (c, n, "nodearray", 1);   /* not a number: ignored */
    assert_int_equal (n->res[na].type, CCAS_V_STR);

    char buf[128];
    assert_string_equal (ccas_node_label (n, buf, sizeof (buf)), "htc-1");
    struct ccas_bucket *b = fx_bucket (c, "hpc", "Standard_HB120rs_v3");
    struct ccas_node *m = ccas_cluster_new_node (c, b, ccas_pg_get (c, b, "hpc-pg-a", NULL), NULL);
    assert_string_equal (ccas_node_label (m, buf, sizeof (buf)), "new hpc/Standard_HB120rs_v3 in hpc-pg-a");
    m = ccas_cluster_new_node (c, fx_bucket (c, "htc", "Standard_F2s_v2"), NULL, NULL);
    assert_string_equal (ccas_node_label (m, buf, sizeof (buf)), "new htc/Standard_F2s_v2");
    /* a new node's resources are its own copy */
    m->avail[ncpus] = 0;
    assert_true (fx_bucket (c, "htc", "Standard_F2s_v2")->template_node.avail[ncpus] == 2);

    char s[] = "copied";
    char *d = ccas_cluster_strdup (c, s);
    s[0] = 'X';
    assert_string_equal (d, "copied");
    ccas_cluster_destroy (c);
    ccas_conf_destroy (cfg);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_bad_config_refused),
        cmocka_unit_test (test_limits),
        cmocka_unit_test (test_new_nodes_charge_every_limit),
        cmocka_unit_test (test_shared_limits),
        cmocka_unit_test (test_invariant_random),
        cmocka_unit_test (test_hold),
        cmocka_unit_test (test_closed_cluster),
        cmocka_unit_test (test_nodearray_settings),
        cmocka_unit_test (test_bucket_order),
        cmocka_unit_test (test_template_nodes),
        cmocka_unit_test (test_placement_groups),
        cmocka_unit_test (test_existing_nodes),
        cmocka_unit_test (test_existing_groups),
        cmocka_unit_test (test_nodes_from_status),
        cmocka_unit_test (test_node_use_and_labels),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
