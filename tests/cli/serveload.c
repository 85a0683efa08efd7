/* SPDX-License-Identifier: MIT */
/* serveload: many HTTP(S) requests at once, each on a connection of its own
 * from the source address it names, through libcurl's multi interface — the
 * nodes of a cluster calling `ccautoscale serve` together.  It prints one
 * JSON object: how many were answered, with which statuses, and how long
 * they took (milliseconds, from the start of each request to its answer).
 *   serveload [-c CONCURRENCY] [-t SECONDS] [-k | -a CAFILE] [-o ANSWERS] REQUESTS
 * REQUESTS holds one request a line: URL [SOURCE-ADDRESS|-] [TOKEN|-]; a
 * token goes in `Authorization: Bearer TOKEN` (a file, never the command
 * line).  -o writes "LINE STATUS MS BODY" for each request, in the order
 * answered.  Exits 0 when every request got an HTTP answer, 1 otherwise. */
#include "config.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct req {
    char *url, *source, *auth;
    long status; /* 0: no answer */
    double ms;
    char body[512];
    size_t blen;
};

static size_t keep_body (char *data, size_t size, size_t n, void *arg)
{
    struct req *r = arg;
    size_t len = size * n, room = sizeof (r->body) - 1 - r->blen;
    memcpy (r->body + r->blen, data, len < room ? len : room);
    r->blen += len < room ? len : room;
    r->body[r->blen] = '\0';
    return len;
}

static int by_ms (const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static char *field (char **p)
{
    char *s = *p + strspn (*p, " \t"), *e = s + strcspn (s, " \t\n");
    *p = *e ? e + 1 : e;
    *e = '\0';
    return *s && strcmp (s, "-") != 0 ? strdup (s) : NULL;
}

static size_t load (const char *path, struct req **out)
{
    FILE *f = fopen (path, "r");
    char line[9000];
    size_t n = 0, cap = 0;
    struct req *v = NULL;
    if (!f) {
        perror (path);
        exit (2);
    }
    while (fgets (line, sizeof (line), f)) {
        char *p = line;
        if (n == cap && !(v = realloc (v, (cap = cap ? 2 * cap : 1024) * sizeof (*v))))
            exit (2);
        memset (&v[n], 0, sizeof (v[n]));
        if (!(v[n].url = field (&p)))
            continue;
        v[n].source = field (&p);
        char *token = field (&p);
        if (token && asprintf (&v[n].auth, "Authorization: Bearer %s", token) < 0)
            exit (2);
        free (token);
        n++;
    }
    fclose (f);
    *out = v;
    return n;
}

static CURL *start (struct req *r, size_t i, long timeout, int insecure, const char *ca,
                    struct curl_slist **hdr)
{
    CURL *e = curl_easy_init ();
    if (!e)
        exit (2);
    curl_easy_setopt (e, CURLOPT_URL, r->url);
    curl_easy_setopt (e, CURLOPT_PRIVATE, (void *)i);
    curl_easy_setopt (e, CURLOPT_WRITEFUNCTION, keep_body);
    curl_easy_setopt (e, CURLOPT_WRITEDATA, r);
    curl_easy_setopt (e, CURLOPT_TIMEOUT, timeout);
    curl_easy_setopt (e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt (e, CURLOPT_FORBID_REUSE, 1L); /* each caller its own connection */
    curl_easy_setopt (e, CURLOPT_FRESH_CONNECT, 1L);
    if (r->source)
        curl_easy_setopt (e, CURLOPT_INTERFACE, r->source);
    if (r->auth) {
        *hdr = curl_slist_append (NULL, r->auth);
        curl_easy_setopt (e, CURLOPT_HTTPHEADER, *hdr);
    }
    if (insecure) {
        curl_easy_setopt (e, CURLOPT_SSL_VERIFYPEER, 0L);
        curl_easy_setopt (e, CURLOPT_SSL_VERIFYHOST, 0L);
    }
    if (ca)
        curl_easy_setopt (e, CURLOPT_CAINFO, ca);
    return e;
}

int main (int argc, char **argv)
{
    long conc = 100, timeout = 60;
    int insecure = 0, opt;
    const char *ca = NULL, *answers = NULL;
    while ((opt = getopt (argc, argv, "c:t:ka:o:")) != -1) {
        if (opt == 'c')
            conc = atol (optarg);
        else if (opt == 't')
            timeout = atol (optarg);
        else if (opt == 'k')
            insecure = 1;
        else if (opt == 'a')
            ca = optarg;
        else if (opt == 'o')
            answers = optarg;
        else
            return 2;
    }
    if (optind + 1 != argc || conc < 1) {
        fprintf (stderr,
                 "usage: serveload [-c CONCURRENCY] [-t SECONDS] [-k | -a CAFILE] [-o ANSWERS] REQUESTS\n");
        return 2;
    }
    struct req *reqs = NULL;
    size_t n = load (argv[optind], &reqs), next = 0, done = 0, peak = 0, flying = 0;
    struct curl_slist **hdrs = calloc (n + 1, sizeof (*hdrs));
    FILE *out = answers ? fopen (answers, "w") : NULL;
    struct timespec t0, t1;
    curl_global_init (CURL_GLOBAL_DEFAULT);
    CURLM *m = curl_multi_init ();
    if (!hdrs || !m || (answers && !out))
        return 2;
    clock_gettime (CLOCK_MONOTONIC, &t0);
    while (done < n) {
        while (flying < (size_t)conc && next < n) {
            curl_multi_add_handle (m, start (&reqs[next], next, timeout, insecure, ca, &hdrs[next]));
            next++;
            flying++;
        }
        peak = flying > peak ? flying : peak;
        int running;
        curl_multi_perform (m, &running);
        CURLMsg *msg;
        int left;
        size_t finished = 0;
        while ((msg = curl_multi_info_read (m, &left))) {
            if (msg->msg != CURLMSG_DONE)
                continue;
            CURL *e = msg->easy_handle;
            void *priv;
            curl_off_t us = 0;
            curl_easy_getinfo (e, CURLINFO_PRIVATE, &priv);
            struct req *r = &reqs[(size_t)priv];
            if (msg->data.result == CURLE_OK)
                curl_easy_getinfo (e, CURLINFO_RESPONSE_CODE, &r->status);
            curl_easy_getinfo (e, CURLINFO_TOTAL_TIME_T, &us);
            r->ms = (double)us / 1000;
            if (out)
                fprintf (out, "%zu %ld %.3f %s\n", (size_t)priv + 1, r->status, r->ms,
                         r->status ? r->body : curl_easy_strerror (msg->data.result));
            curl_multi_remove_handle (m, e);
            curl_easy_cleanup (e);
            flying--;
            done++;
            finished++;
        }
        if (!finished && done < n) /* otherwise start the next ones first */
            curl_multi_poll (m, NULL, 0, 100, NULL);
    }
    clock_gettime (CLOCK_MONOTONIC, &t1);
    double *ms = calloc (n + 1, sizeof (*ms));
    size_t answered = 0;
    long codes[600] = {0};
    for (size_t i = 0; i < n; i++)
        if (reqs[i].status > 0 && reqs[i].status < 600) {
            ms[answered++] = reqs[i].ms;
            codes[reqs[i].status]++;
        }
    qsort (ms, answered, sizeof (*ms), by_ms);
#define PCT(p) (answered ? ms[(size_t)((answered - 1) * (p))] : 0)
    printf ("{\"requests\": %zu, \"answered\": %zu, \"concurrency\": %zu, \"codes\": {", n, answered, peak);
    const char *sep = "";
    for (int c = 0; c < 600; c++)
        if (codes[c]) {
            printf ("%s\"%d\": %ld", sep, c, codes[c]);
            sep = ", ";
        }
    printf (
        "}, \"latency_ms\": {\"min\": %.3f, \"median\": %.3f, \"p90\": %.3f, \"p99\": %.3f, \"max\": %.3f}, "
        "\"wall_ms\": %.1f}\n",
        PCT (0), PCT (0.5), PCT (0.9), PCT (0.99), PCT (1),
        (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6);
    for (size_t i = 0; i < n; i++) {
        curl_slist_free_all (hdrs[i]);
        free (reqs[i].url);
        free (reqs[i].source);
        free (reqs[i].auth);
    }
    free (hdrs);
    free (reqs);
    free (ms);
    if (out)
        fclose (out);
    curl_multi_cleanup (m);
    curl_global_cleanup ();
    return answered == n ? 0 : 1;
}
