/* SPDX-License-Identifier: MIT */
/* http.h: one HTTP request at a time over a kept-alive libcurl handle.
 *
 * The transport knows nothing of CycleCloud: it sends a method, a path and
 * an optional JSON body to the base URL with Basic auth, and returns the
 * status, the body (capped) and the headers retries need.  Retrying is the
 * caller's business; the helpers for it (Retry-After, backoff with jitter,
 * error-body messages) are here because they are about HTTP.
 * The password is copied in and burned on destroy; it never appears in an
 * error.
 */
#ifndef CCAS_HTTP_H
#define CCAS_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "util/error.h"

struct ccas_http;

/* What went wrong in the last failed call, for classifying it. */
enum ccas_http_failure_kind {
    CCAS_FAIL_NONE = 0,
    CCAS_FAIL_TRANSPORT, /* connect, timeout, reset, TLS: no HTTP status */
    CCAS_FAIL_HTTP,      /* a non-2xx status */
    CCAS_FAIL_RESPONSE,  /* 2xx but unusable body: not JSON, wrong shape, too large */
};

struct ccas_http_failure {
    enum ccas_http_failure_kind kind;
    int http_status;    /* for CCAS_FAIL_HTTP */
    long retry_after_s; /* from the last response, or -1 */
    bool tls;           /* a certificate problem */
    char message[512];  /* the server's Message, or curl's text; no secret */
};

struct ccas_http_opts {
    const char *base_url; /* no trailing slash needed */
    const char *username;
    const char *password;
    bool verify_certificates;
    const char *ca_file;
    long connect_timeout_ms;
    long request_timeout_ms;
    size_t max_response_bytes;
};

struct ccas_http_response {
    long status;
    char *body; /* NUL-terminated; caller releases */
    size_t len;
    long retry_after_s; /* -1 if absent */
    char location[256];
};

/* Caller frees with ccas_http_destroy(). */
struct ccas_http *ccas_http_create (const struct ccas_http_opts *opts, struct ccas_error *err);
void ccas_http_destroy (struct ccas_http *h);

/* One attempt.  Returns 0 when a response arrived (whatever its status) and
 * -1 when none did: `fail` then says why (transport, TLS, oversize).
 * `body` may be NULL.  `resp` is filled in either case and must be released.
 * With `once`, the request goes over a fresh connection: libcurl silently
 * re-sends a request whose kept-alive connection died, which must never
 * happen to a create. */
int ccas_http_request (struct ccas_http *h, const char *method, const char *path, const char *body, bool once,
                       struct ccas_http_response *resp, struct ccas_http_failure *fail);
void ccas_http_response_release (struct ccas_http_response *resp);

/* URL-encode `s` for a path segment or query value.  Caller frees with free(). */
char *ccas_http_escape (struct ccas_http *h, const char *s);

/* Seconds to wait from a Retry-After value (seconds or an HTTP date), or -1
 * if it is neither. */
long ccas_http_parse_retry_after (const char *value, time_t now);

/* One header line of an answer, as libcurl hands it over (`n` bytes, not
 * terminated, "Name: value\r\n"): a Retry-After sets *retry_after (as
 * above), a Location is copied into `location`; other headers, lines of
 * 512 bytes or more and lines without a colon change nothing. */
void ccas_http_read_header (const char *data, size_t n, time_t now, long *retry_after, char *location,
                            size_t location_size);

/* Full-jitter exponential backoff: a random delay in [0, min(max, initial * 2^attempt)]. */
long ccas_http_backoff_ms (int attempt, long initial_ms, long max_ms);

/* The message of an error body: the JSON "Message", else "Detail", else the
 * text itself (first line, trimmed to ~200 bytes), else "". Returns `buf`. */
const char *ccas_http_error_message (const char *body, size_t len, char *buf, size_t size);

/* Sleep `ms` milliseconds, unless CCAS_TEST_NO_SLEEP is set (tests). */
void ccas_http_sleep_ms (long ms);

#endif /* !CCAS_HTTP_H */
