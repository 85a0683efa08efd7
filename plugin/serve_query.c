/* SPDX-License-Identifier: MIT */
/* serve_query.c: split a request target, parse an autostop query string strictly. */
#include "config.h"

#include <stdbool.h>
#include <string.h>

#include "serve_query.h"

#define ECHO_MAX 40 /* bytes of a caller's key echoed in an error */

void serve_query_split (const char *target, size_t len, const char **path, size_t *path_len,
                        const char **query, size_t *query_len)
{
    const char *q = memchr (target, '?', len);
    *path = target;
    *path_len = q ? (size_t)(q - target) : len;
    *query = q ? q + 1 : NULL;
    *query_len = q ? len - *path_len - 1 : 0;
}

/* What RFC 3986 lets a query hold: unreserved, sub-delims, ':', '@', '/',
 * '?', and '%' (of an escape). */
static bool query_char (unsigned char c)
{
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
        return true;
    return c != '\0' && strchr ("-._~!$&'()*+,;=:@/?%", c) != NULL;
}

static int hex (unsigned char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Percent-decode [s, s + len) into `out` (room for `cap` bytes and a NUL).
 * Returns the decoded length, -1 for a bad escape, -2 for a decoded byte
 * that is not printable ASCII, -3 when it does not fit. */
static long decode (const char *s, size_t len, char *out, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '%') {
            if (len - i < 3)
                return -1;
            int hi = hex ((unsigned char)s[i + 1]), lo = hex ((unsigned char)s[i + 2]);
            if (hi < 0 || lo < 0)
                return -1;
            c = (unsigned char)(hi * 16 + lo);
            i += 2;
        }
        if (c < 0x20 || c > 0x7e)
            return -2;
        if (n >= cap)
            return -3;
        out[n++] = (char)c;
    }
    out[n] = '\0';
    return (long)n;
}

/* One `key=value` (no '&' inside, not empty). */
static int parse_pair (const char *p, size_t len, struct serve_query *out, struct ccas_error *err)
{
    const char *eq = memchr (p, '=', len);
    size_t klen = eq ? (size_t)(eq - p) : len;
    int echo = (int)(klen < ECHO_MAX ? klen : ECHO_MAX);
    const char *more = klen > ECHO_MAX ? "..." : "";
    char key[16];
    long k = decode (p, klen, key, sizeof (key) - 1);
    char *slot = NULL;
    if (k == -1)
        return ccas_errorf (err, "malformed percent escape in parameter name '%.*s%s'", echo, p, more);
    if (k >= 0 && strcmp (key, "instance") == 0)
        slot = out->instance;
    else if (k >= 0 && strcmp (key, "node") == 0)
        slot = out->node;
    else if (klen == 0)
        return ccas_errorf (err, "a parameter has no name");
    else
        return ccas_errorf (err, "unknown parameter '%.*s%s' (give instance=ID or node=NAME)", echo, p, more);
    if (!eq)
        return ccas_errorf (err, "'%s' has no value", key);
    if (slot[0])
        return ccas_errorf (err, "'%s' given twice", key);
    long v = decode (eq + 1, len - klen - 1, slot, SERVE_QUERY_VALUE_MAX);
    if (v == -1)
        return ccas_errorf (err, "malformed percent escape in '%s'", key);
    if (v == -2)
        return ccas_errorf (err, "'%s' holds a byte that is not printable ASCII", key);
    if (v == -3)
        return ccas_errorf (err, "'%s' is longer than %d bytes", key, SERVE_QUERY_VALUE_MAX);
    if (v == 0)
        return ccas_errorf (err, "'%s' is empty", key);
    return 0;
}

int serve_query_parse (const char *query, size_t len, struct serve_query *out, struct ccas_error *err)
{
    out->instance[0] = out->node[0] = '\0';
    for (size_t i = 0; i < len; i++)
        if (!query_char ((unsigned char)query[i]))
            return ccas_errorf (err, "the query holds a character a URL may not (byte %zu)", i + 1);
    for (size_t i = 0; i < len;) {
        const char *amp = memchr (query + i, '&', len - i);
        size_t end = amp ? (size_t)(amp - query) : len;
        if (end > i && parse_pair (query + i, end - i, out, err) < 0)
            return -1;
        i = end + 1;
    }
    if (out->instance[0] && out->node[0])
        return ccas_errorf (err, "give instance or node, not both");
    if (!out->instance[0] && !out->node[0])
        return ccas_errorf (err, "missing 'instance' (the node's cyclecloud.instance.id) or 'node'");
    return 0;
}
