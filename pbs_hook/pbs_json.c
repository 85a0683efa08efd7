/* SPDX-License-Identifier: MIT */
/* pbs_json.c: repair PBS's JSON line by line, then parse it with json-c. */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pbs_json.h"

struct buf {
    char *p;
    size_t len, cap;
};

static int put (struct buf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 4096;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *p = realloc (b->p, cap);
        if (!p)
            return -1;
        b->p = p;
        b->cap = cap;
    }
    memcpy (b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
    return 0;
}

static bool valid_escape (char c)
{
    return c && strchr ("\"\\/bfnrtu", c) != NULL;
}

/* Where a line's string value starts (after `"key":"` or a bare leading quote),
 * or NULL when the line holds no string value. */
static const char *value_start (const char *line, const char *end)
{
    const char *p = line;
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    if (p >= end || *p != '"')
        return NULL;
    const char *q = memchr (p + 1, '"', (size_t)(end - p - 1));
    if (!q)
        return NULL;
    const char *r = q + 1;
    while (r < end && *r == ' ')
        r++;
    if (r < end && *r == ':') {
        r++;
        while (r < end && *r == ' ')
            r++;
        return r < end && *r == '"' ? r + 1 : NULL;
    }
    return p + 1; /* an array element on its own line */
}

/* Copy one line, escaping the quotes and stray backslashes inside its string value. */
static int repair_line (struct buf *b, const char *line, const char *end)
{
    const char *v = value_start (line, end);
    const char *close = end;
    while (close > line && (close[-1] == ' ' || close[-1] == '\r' || close[-1] == '\n'))
        close--;
    if (close > line && close[-1] == ',')
        close--;
    if (!v || close <= v || close[-1] != '"')
        return put (b, line, (size_t)(end - line));
    close--; /* the closing quote */
    if (put (b, line, (size_t)(v - line)) < 0)
        return -1;
    for (const char *p = v; p < close; p++) {
        if (*p == '\\' && p + 1 < close && valid_escape (p[1])) {
            if (put (b, p, 2) < 0)
                return -1;
            p++;
            continue;
        }
        if ((*p == '"' || *p == '\\') && put (b, "\\", 1) < 0)
            return -1;
        if (put (b, p, 1) < 0)
            return -1;
    }
    return put (b, close, (size_t)(end - close));
}

static char *repair (const char *text, size_t len, size_t *outlen)
{
    struct buf b = { 0 };
    const char *p = text, *end = text + len;
    if (put (&b, "", 0) < 0)
        return NULL;
    while (p < end) {
        const char *nl = memchr (p, '\n', (size_t)(end - p));
        const char *le = nl ? nl + 1 : end;
        if (repair_line (&b, p, le) < 0) {
            free (b.p);
            return NULL;
        }
        p = le;
    }
    *outlen = b.len;
    return b.p;
}

static size_t indent_of (const char *line)
{
    size_t n = 0;
    while (line[n] == ' ' || line[n] == '\t')
        n++;
    return n;
}

static const char *next_line (const char *p)
{
    const char *nl = strchr (p, '\n');
    return nl ? nl + 1 : p + strlen (p);
}

/* Replace the entry of `section` around byte `at` with "key":null.  Returns 0
 * and the key, or -1 when `at` is not inside an entry. */
static int cut_entry (char *text, size_t *len, size_t at, const char *section, char *key, size_t keysize)
{
    char head[128];
    snprintf (head, sizeof (head), "\"%s\"", section);
    const char *sec = strstr (text, head);
    if (!sec || (size_t)(sec - text) >= at)
        return -1;
    const char *first = next_line (sec);
    size_t indent = indent_of (first);
    /* the entry's first line: the last line at the entry indent, starting with a quote, before `at` */
    const char *start = NULL;
    for (const char *l = first; *l && (size_t)(l - text) <= at; l = next_line (l))
        if (indent_of (l) == indent && l[indent] == '"')
            start = l;
    if (!start)
        return -1;
    const char *stop = NULL;
    for (const char *l = next_line (start); *l; l = next_line (l))
        if (indent_of (l) == indent && l[indent] == '}') {
            stop = next_line (l);
            break;
        }
    if (!stop || (size_t)(stop - text) <= at)
        return -1;
    const char *k = start + indent + 1, *ke = strchr (k, '"');
    snprintf (key, keysize, "%.*s", ke && ke - k < 200 ? (int)(ke - k) : 1, ke && ke - k < 200 ? k : "?");
    bool comma = stop - start >= 2 && (stop[-2] == ',' || (stop[-2] == '\r' && stop[-3] == ','));
    char repl[300];
    int n = snprintf (repl, sizeof (repl), "%*s\"%s\":null%s\n", (int)indent, "", key, comma ? "," : "");
    if (n < 0 || (size_t)n > (size_t)(stop - start))
        return -1; /* only an entry that parses is that short */
    size_t tail = *len - (size_t)(stop - text);
    memcpy ((char *)start, repl, (size_t)n);
    memmove ((char *)start + n, stop, tail + 1);
    *len = (size_t)(start - text) + (size_t)n + tail;
    return 0;
}

static json_object *parse (const char *text, size_t len, size_t *fail_at, char *why, size_t whysize)
{
    json_tokener *tok = json_tokener_new_ex (JSON_TOKENER_DEFAULT_DEPTH);
    if (!tok) {
        snprintf (why, whysize, "out of memory");
        *fail_at = 0;
        return NULL;
    }
    json_object *o = json_tokener_parse_ex (tok, text, (int)len);
    enum json_tokener_error e = json_tokener_get_error (tok);
    if (!o || e != json_tokener_success) {
        snprintf (why, whysize, "%s", e == json_tokener_continue ? "unexpected end of input"
                                                                    : json_tokener_error_desc (e));
        *fail_at = json_tokener_get_parse_end (tok);
        json_object_put (o);
        o = NULL;
    }
    json_tokener_free (tok);
    return o;
}

json_object *ccas_pbs_json_parse (const char *text, size_t len, const char *what, const char *section,
                                  ccas_pbs_skipped_f skipped, void *arg, struct ccas_error *err)
{
    const char *brace = memchr (text, '{', len);
    if (!brace) {
        ccas_errorf (err, "%s: no JSON object in the output (%zu bytes)", what, len);
        return NULL;
    }
    if (len >= (size_t)1 << 31) {
        ccas_errorf (err, "%s: output too large (%zu bytes)", what, len);
        return NULL;
    }
    size_t n = 0;
    char *fixed = repair (brace, len - (size_t)(brace - text), &n);
    if (!fixed) {
        ccas_errorf (err, "out of memory");
        return NULL;
    }
    json_object *o = NULL;
    for (int tries = 0; tries < 1000; tries++) {
        size_t at = 0;
        char why[128], key[256];
        if ((o = parse (fixed, n, &at, why, sizeof (why))))
            break;
        if (cut_entry (fixed, &n, at, section, key, sizeof (key)) < 0) {
            ccas_errorf (err, "%s: not valid JSON at byte %zu: %s", what, at + (size_t)(brace - text), why);
            break;
        }
        if (skipped)
            skipped (key, why, arg);
    }
    free (fixed);
    if (o && !json_object_is_type (o, json_type_object)) {
        ccas_errorf (err, "%s: expected a JSON object, got %s", what, json_type_to_name (json_object_get_type (o)));
        json_object_put (o);
        o = NULL;
    }
    return o;
}
