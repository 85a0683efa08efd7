/* SPDX-License-Identifier: MIT */
/* main.c: ccsim — a CycleCloud REST simulator; options, the HTTP server glue, the ticker. */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <malloc.h>
#include <microhttpd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sim.h"
#include "util/error.h"
#include "util/file.h"
#include "util/json.h"
#include "util/secret.h"
#include "util/state.h"

#define MAX_BODY (64 * 1024 * 1024)

struct sim sim = {.lock = PTHREAD_MUTEX_INITIALIZER};

struct options {
    const char *cluster, *name, *bind, *port_file, *auth, *auth_file, *tls_cert, *tls_key, *log;
    int port;
    double boot_delay;
    const char *ip_base;
    int verbose;
};

static void usage (FILE *f)
{
    fprintf (f,
             "usage: ccsim --cluster CLUSTER.json [--port P] [--bind ADDR] [--port-file F] [--name NAME]\n"
             "             [--state-dir D] [--auth-file F | --auth USER:PASSWORD] [--boot-delay S]\n"
             "             [--ip-base A.B.C.D] [--on-boot PROGRAM] [--hold-preparing] [--on-ready PROGRAM]\n"
             "             [--on-terminate PROGRAM]\n"
             "             [--tls-cert PEM --tls-key PEM] [-v]\n\n"
             "ccsim - a CycleCloud cluster REST API simulator for testing ccautoscale.\n\n"
             "CLUSTER.json has the shape of a GET /clusters/{c}/status response: nodearrays with\n"
             "their buckets (definition.machineType, virtualMachine, maxCount, quotas, ...) and\n"
             "optionally nodes.  Counts are computed live from the simulated nodes; the consumed\n"
             "counts of the file (consumedCoreCount, familyConsumedCoreCount,\n"
             "regionalConsumedCoreCount) are what other clusters use.  Creates are held to every\n"
             "limit: maxCount and maxCoreCount (bucket, nodearray, cluster), quotaCoreCount and the\n"
             "family quota per family and region, the regional quota per region (spot buckets: the\n"
             "region's spot quota; their family quota reads 0), maxPlacementGroupSize and\n"
             "maxPlacementGroupCoreSize; a set naming no machine type goes to the first bucket\n"
             "that can take it whole.\n\n"
             "Options:\n"
             "  --cluster FILE       the cluster to serve (required)\n"
             "  --name NAME          cluster name (default: the file's clusterName)\n"
             "  --port P             TCP port (default 0: pick a free one)\n"
             "  --bind ADDR          address to listen on (default 127.0.0.1)\n"
             "  --port-file F        write the chosen port to F (atomically) once listening\n"
             "  --state-dir D        keep the VMs in D/state.json across restarts\n"
             "  --auth-file F        require Basic auth with the USER:PASSWORD in F (mode 0600)\n"
             "  --auth USER:PASSWORD the same on the command line (visible in ps: tests use --auth-file)\n"
             "  --boot-delay S       seconds from create to Ready (default 2): Acquiring half of it, then\n"
             "                       Preparing, its hostname and address reported, the other half\n"
             "  --ip-base A.B.C.D    first private IP handed out (default 10.1.0.4)\n"
             "  --on-boot PROGRAM    run PROGRAM NAME HOSTNAME IP when a node has its address (Preparing),\n"
             "                       as CycleCloud runs cluster-init; the node stays Preparing until it\n"
             "                       exits: 0 makes it Ready, anything else Failed\n"
             "  --hold-preparing     nodes stay Preparing until POST /ccsim/nodes/NAME/ready\n"
             "  --on-ready PROGRAM   run PROGRAM NAME HOSTNAME IP when a node becomes Ready\n"
             "  --on-terminate PROGRAM  run it when a node is terminated, deallocated or fails\n"
             "  --tls-cert PEM, --tls-key PEM  serve HTTPS\n"
             "  -v, --verbose        log each request to stderr\n\n"
             "Control API (no auth): GET/DELETE /ccsim/requests, GET /ccsim/state, POST/GET/DELETE\n"
             "/ccsim/faults (DELETE also ends the latencies and hangs under way), POST\n"
             "/ccsim/nodes/NAME/{fail,hang,ready}, POST /ccsim/nodes, POST /ccsim/hooks, POST\n"
             "/ccsim/config, GET/POST /ccsim/cluster.  CycleCloud's retry of Failed nodes:\n"
             "POST /cloud/actions/retry/CLUSTER.  See ccsim(1).\n\n"
             "Example:\n"
             "  ccsim --cluster demo.json --port 8080 --boot-delay 3\n");
}

/* ---- per-request plumbing ----------------------------------------------------------------------- */

struct upload {
    char *buf;
    size_t len, cap;
    bool too_big;
};

struct query_builder {
    char buf[2048];
    size_t len;
};

static enum MHD_Result add_arg (void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
    struct query_builder *q = cls;
    (void)kind;
    int n = snprintf (q->buf + q->len, sizeof (q->buf) - q->len, "%s%s=%s", q->len ? "&" : "", key,
                      value ? value : "");
    if (n > 0 && (size_t)n < sizeof (q->buf) - q->len)
        q->len += (size_t)n;
    return MHD_YES;
}

static bool authorised (struct MHD_Connection *c)
{
    if (!sim.auth_user)
        return true;
    char *pass = NULL;
    char *user = MHD_basic_auth_get_username_password (c, &pass);
    bool ok = user && pass && strcmp (user, sim.auth_user) == 0 && strcmp (pass, sim.auth_password) == 0;
    if (user)
        MHD_free (user);
    if (pass)
        MHD_free (pass);
    return ok;
}

static enum MHD_Result send_reply (struct MHD_Connection *c, struct reply *r)
{
    struct MHD_Response *resp = MHD_create_response_from_buffer (
        r->len, r->body ? r->body : (char *)"", r->body ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
    r->body = NULL;
    MHD_add_response_header (resp, "Content-Type", r->html ? "text/html" : "application/json");
    if (r->retry_after >= 0) {
        char v[32];
        snprintf (v, sizeof (v), "%ld", r->retry_after);
        MHD_add_response_header (resp, "Retry-After", v);
    }
    if (r->location[0])
        MHD_add_response_header (resp, "Location", r->location);
    enum MHD_Result rc = MHD_queue_response (c, (unsigned)r->status, resp);
    MHD_destroy_response (resp);
    return rc;
}

static unsigned released (void)
{
    pthread_mutex_lock (&sim.lock);
    unsigned r = sim.released;
    pthread_mutex_unlock (&sim.lock);
    return r;
}

/* A fault's wait: `ms`, or less when ccsim stops or a test clears the faults
 * (DELETE /ccsim/faults lets what they hold go at once). */
static void sleep_ms (long ms)
{
    unsigned held = released ();
    while (ms > 0 && !sim.stopping && released () == held) {
        long step = ms > 100 ? 100 : ms;
        struct timespec ts = {0, step * 1000000L};
        nanosleep (&ts, NULL);
        ms -= step;
    }
}

static const char *request_id_of (const char *body, char *buf, size_t size)
{
    json_object *j = body ? json_tokener_parse (body) : NULL;
    const char *id = ccas_json_str (j, "requestId");
    if (id)
        snprintf (buf, size, "%s", id);
    json_object_put (j);
    return id ? buf : NULL;
}

/* Apply a request-level fault; true if the request is answered (or dropped) by it. */
static bool apply_fault (struct fault *f, struct reply *r, bool *process_then_drop, bool *truncate)
{
    char *page;
    switch (f->kind) {
    case F_HTTP:
        r->retry_after = f->retry_after;
        reply_error (r, f->status, "InjectedFault", "injected HTTP %d (ccsim)", f->status);
        return true;
    case F_HTML:
        page = strdup (
            "<html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1></body></html>");
        r->status = f->status;
        r->body = page;
        r->len = page ? strlen (page) : 0;
        r->html = true;
        return true;
    case F_OVERSIZE:
        r->status = 200;
        r->body = malloc ((size_t)f->bytes + 1);
        if (r->body) {
            memset (r->body, ' ', (size_t)f->bytes);
            r->body[0] = '[';
            r->body[f->bytes - 1] = ']';
            r->len = (size_t)f->bytes;
        }
        return true;
    case F_HANG:
        sleep_ms (f->seconds * 1000);
        r->drop = true;
        return true;
    case F_LATENCY:
        if (!f->after)
            sleep_ms (f->ms); /* "after": the request is carried out first, then the answer waits */
        return false;
    case F_DROP:
        if (f->after)
            *process_then_drop = true;
        else
            r->drop = true;
        return !f->after;
    case F_MALFORMED:
        *truncate = true;
        return false;
    default:
        return false;
    }
}

static enum MHD_Result handle (void *cls, struct MHD_Connection *c, const char *url, const char *method,
                               const char *version, const char *upload_data, size_t *upload_size,
                               void **con_cls)
{
    struct upload *up = *con_cls;
    (void)cls;
    (void)version;
    if (!up) {
        *con_cls = calloc (1, sizeof (struct upload));
        return *con_cls ? MHD_YES : MHD_NO;
    }
    if (*upload_size) {
        if (up->len + *upload_size > MAX_BODY)
            up->too_big = true;
        else {
            if (up->len + *upload_size + 1 > up->cap) {
                size_t cap = (up->len + *upload_size + 1) * 2;
                char *b = realloc (up->buf, cap);
                if (!b)
                    return MHD_NO;
                up->buf = b;
                up->cap = cap;
            }
            memcpy (up->buf + up->len, upload_data, *upload_size);
            up->len += *upload_size;
            up->buf[up->len] = '\0';
        }
        *upload_size = 0;
        return MHD_YES;
    }

    struct query_builder q = {"", 0};
    MHD_get_connection_values (c, MHD_GET_ARGUMENT_KIND, add_arg, &q);
    char path[4096], ridbuf[128];
    snprintf (path, sizeof (path), "%s%s%s", url, q.len ? "?" : "", q.buf);
    struct reply r = {.status = 200, .retry_after = -1};

    if (strncmp (url, "/ccsim/", 7) == 0 || strcmp (url, "/ccsim") == 0) {
        pthread_mutex_lock (&sim.lock);
        sim_control (method, url, q.buf, up->buf, &r);
        pthread_mutex_unlock (&sim.lock);
        return send_reply (c, &r);
    }
    if (!authorised (c)) {
        struct MHD_Response *resp = MHD_create_response_from_buffer (
            strlen ("{\"Message\":\"authentication required\"}"),
            (void *)"{\"Message\":\"authentication required\"}", MHD_RESPMEM_PERSISTENT);
        enum MHD_Result rc = MHD_queue_basic_auth_fail_response (c, "CycleCloud", resp);
        MHD_destroy_response (resp);
        pthread_mutex_lock (&sim.lock);
        sim_log_request (method, path, 401, NULL, NULL, NULL);
        pthread_mutex_unlock (&sim.lock);
        return rc;
    }
    const char *rid = strcmp (method, "POST") == 0 ? request_id_of (up->buf, ridbuf, sizeof (ridbuf)) : NULL;
    bool drop_after = false, truncate = false, answered = false;

    pthread_mutex_lock (&sim.lock);
    struct fault *f = sim_fault_for_request (method, path);
    struct fault copy = {0};
    if (f)
        copy = *f; /* the fault table may change while we sleep */
    pthread_mutex_unlock (&sim.lock);
    if (f)
        answered = apply_fault (&copy, &r, &drop_after, &truncate);

    pthread_mutex_lock (&sim.lock);
    if (!answered) {
        if (up->too_big)
            reply_error (&r, 413, "TooLarge", "request body over %d bytes", MAX_BODY);
        else
            sim_rest (method, url, q.buf, up->buf, &r);
    }
    if (truncate && r.body && r.len > 1)
        r.len /= 2;
    sim_log_request (method, path, r.drop || drop_after ? 0 : r.status, rid, r.nodes, r.sets);
    r.nodes = NULL;
    r.sets = NULL;
    pthread_mutex_unlock (&sim.lock);
    if (r.drop || drop_after) {
        free (r.body);
        return MHD_NO; /* close without an answer */
    }
    if (f && copy.kind == F_LATENCY && copy.after)
        sleep_ms (copy.ms);
    return send_reply (c, &r);
}

static void completed (void *cls, struct MHD_Connection *c, void **con_cls,
                       enum MHD_RequestTerminationCode toe)
{
    struct upload *up = *con_cls;
    (void)cls;
    (void)c;
    (void)toe;
    if (up) {
        free (up->buf);
        free (up);
    }
    *con_cls = NULL;
}

/* ---- ticker ------------------------------------------------------------------------------------------ */

static void *ticker (void *arg)
{
    double last_save = 0;
    (void)arg;
    while (!sim.stopping) {
        struct timespec ts = {0, 50 * 1000000L};
        nanosleep (&ts, NULL);
        pthread_mutex_lock (&sim.lock);
        double now = sim_now ();
        sim_tick (now);
        if (sim.dirty && now - last_save > 0.2) {
            sim_state_save ();
            last_save = now;
        }
        pthread_mutex_unlock (&sim.lock);
        sim_hooks_reap ();
    }
    return NULL;
}

/* ---- start-up ------------------------------------------------------------------------------------------ */

static char *read_file (const char *path, size_t *len)
{
    struct ccas_error err = {""};
    FILE *f = fopen (path, "r");
    (void)err;
    if (!f)
        return NULL;
    fseek (f, 0, SEEK_END);
    long n = ftell (f);
    rewind (f);
    char *buf = n >= 0 ? malloc ((size_t)n + 1) : NULL;
    if (buf && fread (buf, 1, (size_t)n, f) != (size_t)n) {
        free (buf);
        buf = NULL;
    }
    fclose (f);
    if (buf) {
        buf[n] = '\0';
        *len = (size_t)n;
    }
    return buf;
}

static int set_auth (const char *spec, const char *file)
{
    char line[1024];
    struct ccas_error err = {""};
    if (file) {
        char *s = ccas_secret_read_file (file, &err);
        if (!s) {
            fprintf (stderr, "ccsim: --auth-file %s\n", err.text);
            return -1;
        }
        snprintf (line, sizeof (line), "%s", s);
        ccas_secret_free (s);
    } else
        snprintf (line, sizeof (line), "%s", spec);
    char *colon = strchr (line, ':');
    if (!colon) {
        fprintf (stderr, "ccsim: credentials must be USER:PASSWORD\n");
        return -1;
    }
    *colon = '\0';
    sim.auth_user = strdup (line);
    sim.auth_password = strdup (colon + 1);
    ccas_secret_burn (line, sizeof (line));
    return 0;
}

static int parse (int argc, char **argv, struct options *o)
{
    static const struct option longopts[] = {
        {"cluster", required_argument, NULL, 'C'},    {"port", required_argument, NULL, 'p'},
        {"bind", required_argument, NULL, 'b'},       {"port-file", required_argument, NULL, 'P'},
        {"name", required_argument, NULL, 'N'},       {"state-dir", required_argument, NULL, 'S'},
        {"auth", required_argument, NULL, 'a'},       {"auth-file", required_argument, NULL, 'A'},
        {"boot-delay", required_argument, NULL, 'd'}, {"ip-base", required_argument, NULL, 'i'},
        {"on-ready", required_argument, NULL, 'r'},   {"on-terminate", required_argument, NULL, 't'},
        {"on-boot", required_argument, NULL, 'B'},    {"hold-preparing", no_argument, NULL, 'H'},
        {"tls-cert", required_argument, NULL, 'c'},   {"tls-key", required_argument, NULL, 'k'},
        {"verbose", no_argument, NULL, 'v'},          {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},          {NULL, 0, NULL, 0},
    };
    int c;
    while ((c = getopt_long (argc, argv, "vh", longopts, NULL)) != -1) {
        switch (c) {
        case 'C':
            o->cluster = optarg;
            break;
        case 'p':
            o->port = atoi (optarg);
            break;
        case 'b':
            o->bind = optarg;
            break;
        case 'P':
            o->port_file = optarg;
            break;
        case 'N':
            o->name = optarg;
            break;
        case 'S':
            sim.state_dir = strdup (optarg);
            break;
        case 'a':
            o->auth = optarg;
            break;
        case 'A':
            o->auth_file = optarg;
            break;
        case 'd':
            o->boot_delay = atof (optarg);
            break;
        case 'i':
            o->ip_base = optarg;
            break;
        case 'r':
            sim.on_ready = strdup (optarg);
            break;
        case 't':
            sim.on_terminate = strdup (optarg);
            break;
        case 'B':
            sim.on_boot = strdup (optarg);
            break;
        case 'H':
            sim.hold_preparing = true;
            break;
        case 'c':
            o->tls_cert = optarg;
            break;
        case 'k':
            o->tls_key = optarg;
            break;
        case 'v':
            o->verbose++;
            break;
        case 'h':
            usage (stdout);
            exit (0);
        case 'V':
            printf ("ccsim %s\n", PACKAGE_VERSION);
            exit (0);
        default:
            usage (stderr);
            return 1;
        }
    }
    if (!o->cluster) {
        fprintf (stderr, "ccsim: --cluster is required\n");
        usage (stderr);
        return 1;
    }
    if (optind < argc) {
        fprintf (stderr, "ccsim: unexpected argument '%s'\n", argv[optind]);
        return 1;
    }
    if ((o->tls_cert != NULL) != (o->tls_key != NULL)) {
        fprintf (stderr, "ccsim: --tls-cert and --tls-key go together\n");
        return 1;
    }
    return 0;
}

static struct MHD_Daemon *start_server (const struct options *o, int *port)
{
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons ((uint16_t)o->port)};
    char *cert = NULL, *key = NULL;
    size_t len;
    unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG;
    if (inet_pton (AF_INET, o->bind ? o->bind : "127.0.0.1", &addr.sin_addr) != 1) {
        fprintf (stderr, "ccsim: --bind %s: not an IPv4 address\n", o->bind);
        return NULL;
    }
    if (o->tls_cert) {
        if (MHD_is_feature_supported (MHD_FEATURE_TLS) != MHD_YES) {
            fprintf (stderr, "ccsim: this libmicrohttpd has no TLS\n");
            return NULL;
        }
        if (!(cert = read_file (o->tls_cert, &len)) || !(key = read_file (o->tls_key, &len))) {
            fprintf (stderr, "ccsim: cannot read %s or %s\n", o->tls_cert, o->tls_key);
            free (cert);
            return NULL;
        }
        flags |= MHD_USE_TLS;
    }
    struct MHD_Daemon *d;
    if (cert)
        d = MHD_start_daemon (flags, 0, NULL, NULL, handle, NULL, MHD_OPTION_SOCK_ADDR, &addr,
                              MHD_OPTION_NOTIFY_COMPLETED, completed, NULL, MHD_OPTION_HTTPS_MEM_CERT, cert,
                              MHD_OPTION_HTTPS_MEM_KEY, key, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)120,
                              MHD_OPTION_END);
    else
        d = MHD_start_daemon (flags, 0, NULL, NULL, handle, NULL, MHD_OPTION_SOCK_ADDR, &addr,
                              MHD_OPTION_NOTIFY_COMPLETED, completed, NULL, MHD_OPTION_CONNECTION_TIMEOUT,
                              (unsigned)120, MHD_OPTION_END);
    free (cert);
    free (key);
    if (!d) {
        fprintf (stderr, "ccsim: cannot listen on %s:%d: %s\n", o->bind ? o->bind : "127.0.0.1", o->port,
                 strerror (errno));
        return NULL;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info (d, MHD_DAEMON_INFO_BIND_PORT);
    *port = info ? info->port : o->port;
    return d;
}

static void announce (const struct options *o, int port)
{
    struct ccas_error err = {""};
    char text[32];
    printf ("ccsim: listening on %s://%s:%d\n", o->tls_cert ? "https" : "http",
            o->bind ? o->bind : "127.0.0.1", port);
    fflush (stdout);
    if (o->port_file) {
        int n = snprintf (text, sizeof (text), "%d\n", port);
        if (ccas_file_write_atomic (o->port_file, text, (size_t)n, 0644, &err) < 0)
            fprintf (stderr, "ccsim: %s\n", err.text);
    }
}

static void free_all (void)
{
    sim_faults_clear ();
    free (sim.faults);
    sim_log_clear ();
    free (sim.log);
    sim_tick (sim_now ());
    for (size_t i = 0; i < sim.nnodes; i++)
        sim.nodes[i]->removed = true;
    sim_tick (0);
    sim_index_free ();
    free (sim.nodes);
    for (size_t i = 0; i < sim.nops; i++) {
        free (sim.ops[i].id);
        free (sim.ops[i].action);
        free (sim.ops[i].request_id);
    }
    free (sim.ops);
    for (size_t i = 0; i < sim.nbuckets; i++)
        free (sim.buckets[i].machine_type);
    free (sim.buckets);
    for (size_t i = 0; i < sim.nnas; i++) {
        free (sim.nas[i].name);
        free (sim.nas[i].shutdown_policy);
    }
    free (sim.nas);
    json_object_put (sim.file);
    free (sim.cluster_name);
    free (sim.state);
    free (sim.target_state);
    free (sim.on_ready);
    free (sim.on_terminate);
    free (sim.on_boot);
    free (sim.auth_user);
    ccas_secret_free (sim.auth_password);
    free (sim.state_dir);
}

int main (int argc, char **argv)
{
    struct options o = {.boot_delay = 2.0, .ip_base = "10.1.0.4"};
    char err[1024];
    struct in_addr base;
    sigset_t sigs;
    int port = 0, sig = 0;
    pthread_t tick;

    if (parse (argc, argv, &o) != 0)
        return 1;
#ifdef M_TRIM_THRESHOLD
    /* A status of 10,000 nodes builds and frees some 50 MB per request;
     * glibc's defaults gave it back to the system each time and faulted it
     * in again on the next (a third of the request's time).  Keep it. */
    mallopt (M_MMAP_THRESHOLD, 256 << 20);
    mallopt (M_TRIM_THRESHOLD, 512 << 20);
    mallopt (M_TOP_PAD, 64 << 20);
#endif
    if (inet_pton (AF_INET, o.ip_base, &base) != 1) {
        fprintf (stderr, "ccsim: --ip-base %s: not an IPv4 address\n", o.ip_base);
        return 1;
    }
    sim.ip_next = ntohl (base.s_addr);
    sim.boot_delay = o.boot_delay;
    sim.rng = 42;
    if ((o.auth || o.auth_file) && set_auth (o.auth, o.auth_file) < 0)
        return 2;
    if (sim_load_cluster (o.cluster, o.name, err, sizeof (err)) < 0 ||
        (sim.state_dir && sim_state_load (err, sizeof (err)) < 0)) {
        fprintf (stderr, "ccsim: %s\n", err);
        free_all ();
        return 2;
    }
    /* signals are taken by sigwait in this thread only */
    sigemptyset (&sigs);
    sigaddset (&sigs, SIGINT);
    sigaddset (&sigs, SIGTERM);
    pthread_sigmask (SIG_BLOCK, &sigs, NULL);
    signal (SIGPIPE, SIG_IGN);
    struct MHD_Daemon *d = start_server (&o, &port);
    if (!d) {
        free_all ();
        return 3;
    }
    pthread_create (&tick, NULL, ticker, NULL);
    announce (&o, port);
    sigwait (&sigs, &sig);
    sim.stopping = true;
    MHD_stop_daemon (d);
    pthread_join (tick, NULL);
    pthread_mutex_lock (&sim.lock);
    sim.dirty = true;
    sim_state_save ();
    free_all ();
    pthread_mutex_unlock (&sim.lock);
    return 0;
}
