/* SPDX-License-Identifier: MIT */
/* index.c: nodes by name, id, hostname and address, so that a request naming
 * 10,000 nodes costs 10,000 lookups and not 10,000 scans.
 *
 * Entries borrow the node's own strings.  A removed node stays findable in
 * the tables until sim_tick() frees it (lookups skip it); sim_index_drop()
 * takes it out first.  A node added under a name a removed node still holds
 * replaces that entry. */
#include "config.h"

#include <json-c/linkhash.h>
#include <string.h>

#include "sim.h"

enum { BY_NAME, BY_ID, BY_HOST, BY_IP, NKEYS };
static struct lh_table *tables[NKEYS];

static struct lh_table *table (int k)
{
    if (!tables[k])
        tables[k] = lh_kchar_table_new (1024, NULL);
    return tables[k];
}

static void put (int k, const char *key, struct sim_node *n)
{
    if (!key)
        return;
    struct lh_table *t = table (k);
    lh_table_delete (t, key);
    lh_table_insert (t, key, n);
}

static void drop (int k, const char *key, const struct sim_node *n)
{
    void *v = NULL;
    if (key && tables[k] && lh_table_lookup_ex (tables[k], key, &v) && v == n)
        lh_table_delete (tables[k], key);
}

static struct sim_node *get (int k, const char *key)
{
    void *v = NULL;
    if (!key || !tables[k] || !lh_table_lookup_ex (tables[k], key, &v))
        return NULL;
    struct sim_node *n = v;
    return n->removed ? NULL : n;
}

void sim_index_add (struct sim_node *n)
{
    put (BY_NAME, n->name, n);
    put (BY_ID, n->id, n);
    put (BY_HOST, n->hostname, n);
    put (BY_IP, n->ip, n);
}

void sim_index_drop (const struct sim_node *n)
{
    drop (BY_NAME, n->name, n);
    drop (BY_ID, n->id, n);
    drop (BY_HOST, n->hostname, n);
    drop (BY_IP, n->ip, n);
}

void sim_index_free (void)
{
    for (int k = 0; k < NKEYS; k++) {
        if (tables[k])
            lh_table_free (tables[k]);
        tables[k] = NULL;
    }
}

struct sim_node *sim_node_find (const char *name)
{
    return get (BY_NAME, name);
}

struct sim_node *sim_node_find_any (const char *key)
{
    char host[256];
    size_t i = 0;
    struct sim_node *n = get (BY_NAME, key);
    if (!n)
        n = get (BY_ID, key);
    if (!n)
        n = get (BY_IP, key);
    if (!n && key) {
        for (; key[i] && i + 1 < sizeof (host); i++)
            host[i] = (char)(key[i] >= 'A' && key[i] <= 'Z' ? key[i] - 'A' + 'a' : key[i]);
        host[i] = '\0';
        n = get (BY_HOST, host);
    }
    return n;
}
