/* SPDX-License-Identifier: MIT */
/* faults.c: injected faults — bad answers, latency, dropped connections, capacity and boot failures. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sim.h"
#include "util/json.h"

static const char *const kind_names[F_NKINDS] = {
    [F_HTTP] = "http",         [F_HTML] = "html",         [F_MALFORMED] = "malformed",
    [F_OVERSIZE] = "oversize", [F_HANG] = "hang",         [F_LATENCY] = "latency",
    [F_DROP] = "drop",         [F_CAPACITY] = "capacity", [F_BOOT_FAILURE] = "boot_failure",
    [F_RANDOM] = "random",
};

/* random faults name kinds a little differently */
static const char *const random_names[] = {"http500", "http429",  "latency",
                                           "drop",    "capacity", "boot_failure"};
enum { R_500, R_429, R_LATENCY, R_DROP, R_CAPACITY, R_BOOT, R_N };

static int kind_parse (const char *s)
{
    for (int i = 0; i < F_NKINDS; i++)
        if (strcmp (kind_names[i], s) == 0)
            return i;
    return -1;
}

static char *dup_str (json_object *o, const char *key)
{
    const char *s = ccas_json_str (o, key);
    return s ? strdup (s) : NULL;
}

static int parse_random_kinds (json_object *arr, unsigned *mask, char *err, size_t errsize)
{
    *mask = 0;
    if (!arr) {
        *mask = (1u << R_N) - 1;
        return 0;
    }
    for (size_t i = 0; i < json_object_array_length (arr); i++) {
        const char *s = json_object_get_string (json_object_array_get_idx (arr, i));
        size_t k = 0;
        while (k < R_N && strcmp (random_names[k], s ? s : "") != 0)
            k++;
        if (k == R_N) {
            snprintf (err, errsize,
                      "kinds[%zu]: unknown random fault '%s' (http500 http429 latency drop capacity"
                      " boot_failure)",
                      i, s ? s : "");
            return -1;
        }
        *mask |= 1u << k;
    }
    return 0;
}

/* The keys each kind reads besides "kind": a key it would ignore is refused,
 * so that a test never injects a broader fault than it names (a capacity
 * fault given "match" instead of "machine_type" failed every machine type). */
static const char *const kind_keys[F_NKINDS] = {
    [F_HTTP] = "count match method status retry_after",
    [F_HTML] = "count match method status",
    [F_MALFORMED] = "count match method",
    [F_OVERSIZE] = "count match method bytes",
    [F_HANG] = "count match method seconds",
    [F_LATENCY] = "count match method ms when",
    [F_DROP] = "count match method when",
    [F_CAPACITY] = "count machine_type",
    [F_BOOT_FAILURE] = "count machine_type nodearray mode",
    [F_RANDOM] = "count match method rate kinds seed",
};

static int check_keys (json_object *spec, enum fault_kind k, char *err, size_t errsize)
{
    char own[128], word[64];
    snprintf (own, sizeof (own), " kind %s ", kind_keys[k]);
    json_object_object_foreach (spec, key, val)
    {
        (void)val;
        snprintf (word, sizeof (word), " %s ", key);
        if (!strstr (own, word)) {
            snprintf (err, errsize, "%s: not a key of a '%s' fault (it takes %s)", key, kind_names[k],
                      kind_keys[k]);
            return -1;
        }
    }
    return 0;
}

int sim_fault_add (json_object *spec, char *err, size_t errsize)
{
    const char *kind = ccas_json_str (spec, "kind");
    int k = kind ? kind_parse (kind) : -1;
    if (k < 0) {
        snprintf (err, errsize,
                  "kind: expected one of http html malformed oversize hang latency drop capacity"
                  " boot_failure random quota, got '%s'",
                  kind ? kind : "");
        return -1;
    }
    if (check_keys (spec, (enum fault_kind)k, err, errsize) < 0)
        return -1;
    if (sim.nfaults == sim.faultcap) {
        size_t cap = sim.faultcap ? sim.faultcap * 2 : 16;
        struct fault *v = realloc (sim.faults, cap * sizeof (*v));
        if (!v) {
            snprintf (err, errsize, "out of memory");
            return -1;
        }
        sim.faults = v;
        sim.faultcap = cap;
    }
    struct fault *f = &sim.faults[sim.nfaults];
    memset (f, 0, sizeof (*f));
    f->kind = (enum fault_kind)k;
    f->status = (int)ccas_json_int (spec, "status", k == F_HTML ? 502 : 500);
    f->retry_after = ccas_json_int (spec, "retry_after", -1);
    f->match = dup_str (spec, "match");
    f->method = dup_str (spec, "method");
    f->count = ccas_json_int (spec, "count", k == F_CAPACITY || k == F_RANDOM ? -1 : 1);
    f->ms = ccas_json_int (spec, "ms", 1000);
    f->bytes = ccas_json_int (spec, "bytes", 1 << 20);
    f->seconds = ccas_json_int (spec, "seconds", 30);
    const char *when = ccas_json_str (spec, "when");
    f->after = when && strcmp (when, "after") == 0;
    const char *mode = ccas_json_str (spec, "mode");
    f->hang_mode = mode && strcmp (mode, "hang") == 0;
    f->machine_type = dup_str (spec, "machine_type");
    f->nodearray = dup_str (spec, "nodearray");
    f->rate = ccas_json_double (spec, "rate", 0.1);
    if (k == F_RANDOM) {
        if (parse_random_kinds (ccas_json_get (spec, "kinds"), &f->kinds_mask, err, errsize) < 0)
            return -1;
        uint64_t seed = (uint64_t)ccas_json_int (spec, "seed", 42);
        sim.rng = seed ? seed : 42;
    }
    sim.nfaults++;
    return 0;
}

static bool matches (const struct fault *f, const char *method, const char *path)
{
    if (f->count == 0)
        return false;
    if (f->method && strcasecmp (f->method, method) != 0)
        return false;
    return !f->match || strstr (path, f->match);
}

static double random01 (void)
{
    sim.rng = sim.rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(sim.rng >> 11) / (double)(1ULL << 53);
}

/* The injected HTTP errors by status, for the figures: 429s are the server
 * throttling, 5xx its failures, and clients treat them differently. */
static unsigned http_429, http_5xx, http_other;

static void count_status (int status)
{
    if (status == 429)
        http_429++;
    else if (status >= 500)
        http_5xx++;
    else
        http_other++;
}

/* A chaos fault turns into a concrete one for this request, in a scratch
 * slot.  Only the kinds that act on a request are drawn here, so `rate` of
 * requests are struck; capacity and boot failures are drawn inside each
 * create (sim_random_hit), at the same rate of creates and of new VMs. */
static struct fault *random_fault (struct fault *rf, const char *path)
{
    static struct fault scratch;
    unsigned choices[R_N], n = 0;
    for (unsigned k = R_500; k <= R_DROP; k++)
        if (rf->kinds_mask & (1u << k))
            choices[n++] = k;
    if (!n || random01 () >= rf->rate)
        return NULL;
    unsigned pick = choices[(unsigned)(random01 () * n) % n];
    memset (&scratch, 0, sizeof (scratch));
    scratch.retry_after = -1;
    switch (pick) {
    case R_500:
        scratch.kind = F_HTTP;
        scratch.status = 500;
        break;
    case R_429:
        scratch.kind = F_HTTP;
        scratch.status = 429;
        scratch.retry_after = 1;
        break;
    case R_LATENCY:
        scratch.kind = F_LATENCY;
        scratch.ms = 200 + (long)(random01 () * 1300);
        break;
    case R_DROP:
        scratch.kind = F_DROP;
        scratch.after = random01 () < 0.5;
        break;
    default:
        return NULL;
    }
    (void)path;
    rf->fired++;
    sim.fault_counts[scratch.kind]++;
    if (scratch.kind == F_HTTP)
        count_status (scratch.status);
    return &scratch;
}

struct fault *sim_fault_for_request (const char *method, const char *path)
{
    for (size_t i = 0; i < sim.nfaults; i++) {
        struct fault *f = &sim.faults[i];
        if (f->kind == F_CAPACITY || f->kind == F_BOOT_FAILURE || !matches (f, method, path))
            continue;
        if (f->kind == F_RANDOM) {
            struct fault *r = random_fault (f, path);
            if (r)
                return r;
            continue;
        }
        if (f->count > 0)
            f->count--;
        f->fired++;
        sim.fault_counts[f->kind]++;
        if (f->kind == F_HTTP || f->kind == F_HTML)
            count_status (f->status);
        return f;
    }
    return NULL;
}

bool sim_random_hit (enum fault_kind kind)
{
    unsigned bit = kind == F_CAPACITY ? R_CAPACITY : R_BOOT;
    for (size_t i = 0; i < sim.nfaults; i++) {
        struct fault *f = &sim.faults[i];
        if (f->kind == F_RANDOM && (f->kinds_mask & (1u << bit)) && f->count != 0 && random01 () < f->rate) {
            f->fired++;
            sim.fault_counts[kind]++;
            return true;
        }
    }
    return false;
}

bool sim_fault_capacity (const char *machine_type)
{
    for (size_t i = 0; i < sim.nfaults; i++) {
        struct fault *f = &sim.faults[i];
        if (f->kind != F_CAPACITY || f->count == 0)
            continue;
        if (f->machine_type && strcasecmp (f->machine_type, machine_type) != 0)
            continue;
        if (f->count > 0)
            f->count--;
        f->fired++;
        sim.fault_counts[F_CAPACITY]++;
        return true;
    }
    return sim_random_hit (F_CAPACITY);
}

bool sim_fault_boot (const struct sim_bucket *b, bool *hang)
{
    for (size_t i = 0; i < sim.nfaults; i++) {
        struct fault *f = &sim.faults[i];
        if (f->kind != F_BOOT_FAILURE || f->count == 0)
            continue;
        if (f->machine_type && strcasecmp (f->machine_type, b->machine_type) != 0)
            continue;
        if (f->nodearray && strcmp (f->nodearray, b->na->name) != 0)
            continue;
        if (f->count > 0)
            f->count--;
        f->fired++;
        sim.fault_counts[F_BOOT_FAILURE]++;
        *hang = f->hang_mode;
        return true;
    }
    *hang = false;
    return sim_random_hit (F_BOOT_FAILURE);
}

json_object *sim_faults_json (void)
{
    json_object *o = json_object_new_object ();
    json_object *arr = json_object_new_array ();
    json_object *counts = json_object_new_object ();
    for (size_t i = 0; i < sim.nfaults; i++) {
        const struct fault *f = &sim.faults[i];
        json_object *j = json_object_new_object ();
        json_object_object_add (j, "kind", json_object_new_string (kind_names[f->kind]));
        json_object_object_add (j, "count", json_object_new_int64 (f->count));
        json_object_object_add (j, "fired", json_object_new_int ((int)f->fired));
        if (f->match)
            json_object_object_add (j, "match", json_object_new_string (f->match));
        json_object_array_add (arr, j);
    }
    for (int k = 0; k < F_NKINDS; k++)
        json_object_object_add (counts, kind_names[k], json_object_new_int ((int)sim.fault_counts[k]));
    json_object *statuses = json_object_new_object ();
    json_object_object_add (statuses, "429", json_object_new_int ((int)http_429));
    json_object_object_add (statuses, "5xx", json_object_new_int ((int)http_5xx));
    json_object_object_add (statuses, "other", json_object_new_int ((int)http_other));
    json_object_object_add (o, "http_statuses", statuses);
    json_object_object_add (o, "faults", arr);
    json_object_object_add (o, "injected", counts);
    return o;
}

void sim_faults_clear (void)
{
    for (size_t i = 0; i < sim.nfaults; i++) {
        free (sim.faults[i].match);
        free (sim.faults[i].method);
        free (sim.faults[i].machine_type);
        free (sim.faults[i].nodearray);
    }
    sim.nfaults = 0;
}
