/* SPDX-License-Identifier: MIT */
/* http.c: libcurl transport with body caps, Retry-After, backoff and error-body messages. */
#include "config.h"

#include <ctype.h>
#include <curl/curl.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <time.h>

#include "ccapi/http.h"
#include "util/clock.h"
#include "util/json.h"
#include "util/log.h"
#include "util/secret.h"

struct ccas_http {
    CURL *curl;
    char *base;
    char *username;
    char *password;
    bool verify;
    char *ca_file;
    long connect_timeout_ms, request_timeout_ms;
    size_t max_bytes;
    bool warned_insecure;
};

struct sink {
    char *buf;
    size_t len, cap, max;
    bool too_big;
    long retry_after;
    char location[256];
};

static pthread_once_t global_once = PTHREAD_ONCE_INIT;
static CURLcode global_rc;

static void global_init (void)
{
    global_rc = curl_global_init (CURL_GLOBAL_DEFAULT);
}

static char *dup_or_null (const char *s)
{
    return s ? strdup (s) : NULL;
}

struct ccas_http *ccas_http_create (const struct ccas_http_opts *opts, struct ccas_error *err)
{
    struct ccas_http *h;
    pthread_once (&global_once, global_init);
    if (global_rc != CURLE_OK) {
        ccas_errorf (err, "cannot initialise libcurl: %s", curl_easy_strerror (global_rc));
        return NULL;
    }
    if (!(h = calloc (1, sizeof (*h))) || !(h->curl = curl_easy_init ())) {
        free (h);
        ccas_errorf (err, "out of memory");
        return NULL;
    }
    size_t blen = strlen (opts->base_url);
    while (blen > 0 && opts->base_url[blen - 1] == '/')
        blen--;
    h->base = strndup (opts->base_url, blen);
    h->username = dup_or_null (opts->username);
    h->password = dup_or_null (opts->password);
    h->ca_file = dup_or_null (opts->ca_file);
    h->verify = opts->verify_certificates;
    h->connect_timeout_ms = opts->connect_timeout_ms > 0 ? opts->connect_timeout_ms : 10000;
    h->request_timeout_ms = opts->request_timeout_ms > 0 ? opts->request_timeout_ms : 60000;
    h->max_bytes = opts->max_response_bytes ? opts->max_response_bytes : (size_t)256 * 1024 * 1024;
    if (!h->base) {
        ccas_http_destroy (h);
        ccas_errorf (err, "out of memory");
        return NULL;
    }
    return h;
}

void ccas_http_destroy (struct ccas_http *h)
{
    if (!h)
        return;
    if (h->curl)
        curl_easy_cleanup (h->curl);
    free (h->base);
    free (h->username);
    ccas_secret_free (h->password);
    free (h->ca_file);
    free (h);
}

char *ccas_http_escape (struct ccas_http *h, const char *s)
{
    char *e = curl_easy_escape (h->curl, s, 0);
    char *copy = e ? strdup (e) : NULL;
    curl_free (e);
    return copy;
}

/* ---- receiving ------------------------------------------------------------------------ */

static size_t on_body (char *data, size_t size, size_t nmemb, void *arg)
{
    struct sink *s = arg;
    size_t n = size * nmemb;
    if (s->len + n > s->max) {
        s->too_big = true;
        return 0; /* abort the transfer */
    }
    if (s->len + n + 1 > s->cap) {
        size_t cap = s->cap ? s->cap : 16384;
        while (cap < s->len + n + 1)
            cap *= 2;
        char *b = realloc (s->buf, cap);
        if (!b)
            return 0;
        s->buf = b;
        s->cap = cap;
    }
    memcpy (s->buf + s->len, data, n);
    s->len += n;
    s->buf[s->len] = '\0';
    return n;
}

static void trim_value (char *v)
{
    size_t n = strlen (v);
    while (n && isspace ((unsigned char)v[n - 1]))
        v[--n] = '\0';
}

void ccas_http_read_header (const char *data, size_t n, time_t now, long *retry_after, char *location,
                            size_t location_size)
{
    char line[512];
    if (n >= sizeof (line))
        return;
    memcpy (line, data, n);
    line[n] = '\0';
    char *colon = strchr (line, ':');
    if (!colon)
        return;
    *colon = '\0';
    char *value = colon + 1;
    while (*value == ' ')
        value++;
    trim_value (value);
    if (strcasecmp (line, "Retry-After") == 0)
        *retry_after = ccas_http_parse_retry_after (value, now);
    else if (strcasecmp (line, "Location") == 0)
        snprintf (location, location_size, "%s", value);
}

static size_t on_header (char *data, size_t size, size_t nmemb, void *arg)
{
    struct sink *s = arg;
    size_t n = size * nmemb;
    ccas_http_read_header (data, n, time (NULL), &s->retry_after, s->location, sizeof (s->location));
    return n;
}

/* ---- sending ---------------------------------------------------------------------------- */

static void set_tls (struct ccas_http *h)
{
    curl_easy_setopt (h->curl, CURLOPT_SSL_VERIFYPEER, h->verify ? 1L : 0L);
    curl_easy_setopt (h->curl, CURLOPT_SSL_VERIFYHOST, h->verify ? 2L : 0L);
    if (h->ca_file)
        curl_easy_setopt (h->curl, CURLOPT_CAINFO, h->ca_file);
    if (!h->verify && !h->warned_insecure) {
        ccas_log_always (LOG_WARNING, "TLS certificate verification is off (verify_certificates: false): "
                                      "the server's identity is not checked");
        h->warned_insecure = true;
    }
}

static void describe_transport (struct ccas_http *h, CURLcode rc, const char *errbuf,
                                struct ccas_http_failure *fail)
{
    fail->kind = CCAS_FAIL_TRANSPORT;
    fail->tls = rc == CURLE_PEER_FAILED_VERIFICATION || rc == CURLE_SSL_CACERT_BADFILE ||
                rc == CURLE_SSL_CONNECT_ERROR || rc == CURLE_SSL_CERTPROBLEM;
    const char *detail = errbuf[0] ? errbuf : curl_easy_strerror (rc);
    if (rc == CURLE_SSL_CACERT_BADFILE && h->ca_file)
        snprintf (fail->message, sizeof (fail->message), "TLS: ca_file '%s' cannot be used: %s", h->ca_file,
                  detail);
    else if (fail->tls)
        snprintf (fail->message, sizeof (fail->message),
                  "TLS: %s (set ca_file to the CA that signed the server's certificate, or"
                  " verify_certificates: false to disable checking)",
                  detail);
    else if (rc == CURLE_OPERATION_TIMEDOUT)
        snprintf (fail->message, sizeof (fail->message), "no answer from %s within the timeout: %s", h->base,
                  detail);
    else if (rc == CURLE_COULDNT_CONNECT || rc == CURLE_COULDNT_RESOLVE_HOST)
        snprintf (fail->message, sizeof (fail->message), "cannot connect to %s: %s", h->base, detail);
    else
        snprintf (fail->message, sizeof (fail->message), "%s", detail);
}

int ccas_http_request (struct ccas_http *h, const char *method, const char *path, const char *body, bool once,
                       struct ccas_http_response *resp, struct ccas_http_failure *fail)
{
    char errbuf[CURL_ERROR_SIZE] = "";
    char url[4096];
    struct sink s = {.max = h->max_bytes, .retry_after = -1};
    struct curl_slist *headers = NULL;

    memset (resp, 0, sizeof (*resp));
    resp->retry_after_s = -1;
    memset (fail, 0, sizeof (*fail));
    fail->retry_after_s = -1;
    snprintf (url, sizeof (url), "%s%s", h->base, path);

    curl_easy_reset (h->curl);
    curl_easy_setopt (h->curl, CURLOPT_URL, url);
    curl_easy_setopt (h->curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt (h->curl, CURLOPT_ERRORBUFFER, errbuf);
    curl_easy_setopt (h->curl, CURLOPT_CONNECTTIMEOUT_MS, h->connect_timeout_ms);
    curl_easy_setopt (h->curl, CURLOPT_TIMEOUT_MS, h->request_timeout_ms);
    curl_easy_setopt (h->curl, CURLOPT_USERAGENT, PACKAGE_NAME "/" PACKAGE_VERSION);
    curl_easy_setopt (h->curl, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
    curl_easy_setopt (h->curl, CURLOPT_USERNAME, h->username ? h->username : "");
    curl_easy_setopt (h->curl, CURLOPT_PASSWORD, h->password ? h->password : "");
    curl_easy_setopt (h->curl, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt (h->curl, CURLOPT_WRITEDATA, &s);
    curl_easy_setopt (h->curl, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt (h->curl, CURLOPT_HEADERDATA, &s);
    curl_easy_setopt (h->curl, CURLOPT_ACCEPT_ENCODING, "");
    if (once)
        curl_easy_setopt (h->curl, CURLOPT_FRESH_CONNECT, 1L);
    set_tls (h);
    headers = curl_slist_append (headers, "Accept: application/json");
    if (body) {
        headers = curl_slist_append (headers, "Content-Type: application/json");
        curl_easy_setopt (h->curl, CURLOPT_POSTFIELDS, body);
        curl_easy_setopt (h->curl, CURLOPT_POSTFIELDSIZE, (long)strlen (body));
    }
    if (strcmp (method, "GET") != 0 && strcmp (method, "POST") != 0)
        curl_easy_setopt (h->curl, CURLOPT_CUSTOMREQUEST, method);
    else if (strcmp (method, "POST") == 0 && !body)
        curl_easy_setopt (h->curl, CURLOPT_POSTFIELDS, "");
    curl_easy_setopt (h->curl, CURLOPT_HTTPHEADER, headers);

    CURLcode rc = curl_easy_perform (h->curl);
    curl_slist_free_all (headers);
    resp->retry_after_s = s.retry_after;
    fail->retry_after_s = s.retry_after;
    snprintf (resp->location, sizeof (resp->location), "%s", s.location);
    if (s.too_big) {
        free (s.buf);
        fail->kind = CCAS_FAIL_RESPONSE;
        snprintf (fail->message, sizeof (fail->message), "response larger than %zu bytes (max_response_mb)",
                  h->max_bytes);
        return -1;
    }
    if (rc != CURLE_OK) {
        free (s.buf);
        describe_transport (h, rc, errbuf, fail);
        return -1;
    }
    curl_easy_getinfo (h->curl, CURLINFO_RESPONSE_CODE, &resp->status);
    resp->body = s.buf ? s.buf : strdup ("");
    resp->len = s.len;
    return 0;
}

void ccas_http_response_release (struct ccas_http_response *resp)
{
    if (!resp)
        return;
    free (resp->body);
    resp->body = NULL;
    resp->len = 0;
}

/* ---- retry helpers ------------------------------------------------------------------------ */

long ccas_http_parse_retry_after (const char *value, time_t now)
{
    if (!value || !*value)
        return -1;
    char *end;
    errno = 0;
    long s = strtol (value, &end, 10);
    if (end != value && *end == '\0' && errno == 0)
        return s < 0 ? -1 : s;
    struct tm tm;
    memset (&tm, 0, sizeof (tm));
    const char *rest = strptime (value, "%a, %d %b %Y %H:%M:%S GMT", &tm);
    if (!rest || *rest)
        return -1;
    time_t when = timegm (&tm);
    return when > now ? (long)(when - now) : 0;
}

static unsigned long random_u32 (void)
{
    unsigned int v = 0;
    if (getrandom (&v, sizeof (v), GRND_NONBLOCK) != (ssize_t)sizeof (v))
        v = (unsigned int)time (NULL) * 2654435761u;
    return v;
}

long ccas_http_backoff_ms (int attempt, long initial_ms, long max_ms)
{
    long cap = initial_ms;
    for (int i = 0; i < attempt && cap < max_ms; i++)
        cap *= 2;
    if (cap > max_ms)
        cap = max_ms;
    if (cap <= 0)
        return 0;
    return (long)(random_u32 () % (unsigned long)(cap + 1));
}

void ccas_http_sleep_ms (long ms)
{
    if (ms <= 0 || getenv ("CCAS_TEST_NO_SLEEP"))
        return;
    ccas_clock_sleep ((double)ms / 1000.0);
}

const char *ccas_http_error_message (const char *body, size_t len, char *buf, size_t size)
{
    buf[0] = '\0';
    if (!body || len == 0)
        return buf;
    json_object *j = NULL;
    size_t i = 0;
    while (i < len && isspace ((unsigned char)body[i]))
        i++;
    if (i < len && body[i] == '{')
        j = json_tokener_parse (body);
    const char *m = ccas_json_str (j, "Message");
    if (!m || !*m)
        m = ccas_json_str (j, "message");
    if (!m || !*m)
        m = ccas_json_str (j, "Detail");
    if (m && *m)
        snprintf (buf, size, "%s", m);
    else if (body[i] == '<')
        snprintf (buf, size, "an HTML page instead of JSON");
    else {
        size_t n = strcspn (body + i, "\r\n");
        if (n > 200)
            n = 200;
        snprintf (buf, size, "%.*s", (int)n, body + i);
    }
    json_object_put (j);
    return buf;
}
