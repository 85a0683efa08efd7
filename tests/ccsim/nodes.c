/* SPDX-License-Identifier: MIT */
/* nodes.c: node records and their lifecycle — Acquiring, Preparing, Ready, and the ways out. */
#include "config.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "sim.h"
#include "util/json.h"

double sim_now (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void sim_new_id (char *buf, size_t size)
{
    unsigned char b[16];
    if (getrandom (b, sizeof (b), 0) != (ssize_t)sizeof (b))
        for (size_t i = 0; i < sizeof (b); i++) {
            sim.rng = sim.rng * 6364136223846793005ULL + 1442695040888963407ULL;
            b[i] = (unsigned char)(sim.rng >> 33);
        }
    snprintf (buf, size, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
              b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
}

const char *sim_phase_status (enum node_phase ph)
{
    static const char *const s[] = {
        [PH_ACQUIRING] = "Acquiring",
        [PH_PREPARING] = "Preparing",
        [PH_READY] = "Ready",
        [PH_FAILED] = "Failed",
        [PH_TERMINATING] = "Terminating",
        [PH_TERMINATED] = "Terminated",
        [PH_DEALLOCATING] = "Deallocating",
        [PH_DEALLOCATED] = "Deallocated",
        [PH_OFF] = "Off",
    };
    return s[ph];
}

const char *sim_target_state (const struct sim_node *n)
{
    switch (n->phase) {
    case PH_TERMINATING:
    case PH_TERMINATED:
        return "Terminated";
    case PH_DEALLOCATING:
    case PH_DEALLOCATED:
        return "Deallocated";
    case PH_OFF:
        return "Off";
    default:
        return "Started";
    }
}

/* Consumes quota: a VM exists and is not stopped. */
bool sim_node_active (const struct sim_node *n)
{
    return !n->removed && n->phase != PH_TERMINATED && n->phase != PH_DEALLOCATED && n->phase != PH_OFF;
}

static char *lowercase (const char *s)
{
    char *d = strdup (s);
    for (char *p = d; p && *p; p++)
        *p = (char)tolower ((unsigned char)*p);
    return d;
}

static void assign_address (struct sim_node *n)
{
    char ip[32], inst[64];
    if (n->ip)
        return;
    struct in_addr a = {htonl (sim.ip_next++)};
    inet_ntop (AF_INET, &a, ip, sizeof (ip));
    n->ip = strdup (ip);
    n->hostname = lowercase (n->name);
    snprintf (inst, sizeof (inst), "/subscriptions/sim/vm/%s", n->id);
    n->instance_id = strdup (inst);
    sim_index_add (n);
}

struct sim_node *sim_node_add (struct sim_bucket *b, const char *name, const char *pg, json_object *attrs)
{
    char id[64];
    if (sim.nnodes == sim.nodecap) {
        size_t cap = sim.nodecap ? sim.nodecap * 2 : 256;
        struct sim_node **v = realloc (sim.nodes, cap * sizeof (*v));
        if (!v)
            return NULL;
        sim.nodes = v;
        sim.nodecap = cap;
    }
    struct sim_node *n = calloc (1, sizeof (*n));
    if (!n)
        return NULL;
    sim_new_id (id, sizeof (id));
    n->name = strdup (name);
    n->id = strdup (id);
    n->pg = pg && *pg ? strdup (pg) : NULL;
    n->bucket = b;
    n->phase = PH_ACQUIRING;
    n->created = sim_now ();
    n->next = n->created + sim.boot_delay / 2;
    n->extra = attrs ? json_object_get (attrs) : NULL;
    n->keep_alive = ccas_json_bool (attrs, "KeepAlive", false);
    n->interruptible = json_object_get_boolean (
        json_object_object_get (json_object_object_get (b->na->src, "nodearray"), "Interruptible"));
    sim.nodes[sim.nnodes++] = n;
    sim_index_add (n);
    sim.dirty = true;
    sim.created++;
    return n;
}

/* A node leaving Preparing early takes its setup with it. */
static void stop_setup (struct sim_node *n)
{
    if (n->boot_pid)
        sim_hook_kill (n->boot_pid);
    n->boot_pid = 0;
    n->held = false;
}

void sim_node_fail (struct sim_node *n, const char *message)
{
    stop_setup (n);
    free (n->status_message);
    n->status_message = strdup (message && *message ? message : "the VM failed (ccsim)");
    n->phase = PH_FAILED;
    n->next = 0;
    sim.dirty = true;
    sim_hook_run (sim.on_terminate, n);
}

void sim_node_terminate (struct sim_node *n)
{
    if (n->phase == PH_TERMINATING || n->phase == PH_TERMINATED)
        return;
    bool was_running = n->phase == PH_READY || n->phase == PH_PREPARING;
    stop_setup (n);
    n->phase = PH_TERMINATING;
    /* capacity is released a little after the request, as in CycleCloud */
    n->next = sim_now () + (sim.boot_delay / 4 > 0.1 ? sim.boot_delay / 4 : 0.1);
    sim.dirty = true;
    sim.terminated++;
    if (was_running)
        sim_hook_run (sim.on_terminate, n);
}

void sim_node_deallocate (struct sim_node *n)
{
    if (n->phase == PH_DEALLOCATED || n->phase == PH_DEALLOCATING || n->phase == PH_TERMINATING)
        return;
    bool was_running = n->phase == PH_READY || n->phase == PH_PREPARING;
    stop_setup (n);
    n->phase = PH_DEALLOCATING;
    n->next = sim_now () + (sim.boot_delay / 4 > 0.1 ? sim.boot_delay / 4 : 0.1);
    sim.dirty = true;
    if (was_running)
        sim_hook_run (sim.on_terminate, n);
}

void sim_node_start (struct sim_node *n)
{
    if (n->phase != PH_DEALLOCATED && n->phase != PH_OFF && n->phase != PH_FAILED)
        return;
    /* with a setup to run (--on-boot), it runs again once the node has its address */
    n->phase = n->ip && !sim.on_boot && !sim.hold_preparing ? PH_PREPARING : PH_ACQUIRING;
    n->next = sim_now () + sim.boot_delay / 2;
    free (n->status_message);
    n->status_message = NULL;
    sim.dirty = true;
}

static void advance (struct sim_node *n, double now)
{
    switch (n->phase) {
    case PH_ACQUIRING:
        if (n->hang)
            return;
        if (n->fail_on_boot) {
            sim_node_fail (n, "Provisioning failed: the VM did not start (injected by ccsim)");
            return;
        }
        assign_address (n);
        n->phase = PH_PREPARING;
        n->next = now + sim.boot_delay / 2;
        /* its hostname and address are reported from here on: its setup
         * (--on-boot) runs now, and it stays Preparing until that ends */
        if (sim.on_boot && *sim.on_boot && !n->no_hooks) {
            n->held = true;
            n->boot_pid = sim_hook_start (sim.on_boot, n);
            if (!n->boot_pid)
                n->held = false;
        } else if (sim.hold_preparing)
            n->held = true;
        if (n->held)
            n->next = 0;
        break;
    case PH_PREPARING:
        if (n->held)
            return;
        assign_address (n);
        n->phase = PH_READY;
        n->next = 0;
        if (!n->no_hooks)
            sim_hook_run (sim.on_ready, n);
        break;
    case PH_TERMINATING:
        if (n->fixed)
            n->phase = PH_TERMINATED;
        else
            n->removed = true;
        break;
    case PH_DEALLOCATING:
        n->phase = PH_DEALLOCATED;
        break;
    default:
        return;
    }
    sim.dirty = true;
}

static void free_node (struct sim_node *n)
{
    free (n->name);
    free (n->id);
    free (n->hostname);
    free (n->ip);
    free (n->instance_id);
    free (n->pg);
    free (n->status_message);
    free (n->request_id);
    free (n->operation_id);
    free (n->shutdown_policy);
    json_object_put (n->extra);
    free (n);
}

/* Move due nodes along; drop removed records (keeping order). */
void sim_tick (double now)
{
    size_t k = 0;
    for (size_t i = 0; i < sim.nnodes; i++) {
        struct sim_node *n = sim.nodes[i];
        if (!n->removed && n->next > 0 && n->next <= now && !(n->phase == PH_ACQUIRING && n->hang))
            advance (n, now);
        if (n->removed) {
            sim_index_drop (n);
            free_node (n);
        } else
            sim.nodes[k++] = n;
    }
    sim.nnodes = k;
}
