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
    while (r < end && (*r == ' ' || *r == '\t'))
        r++;
    if (r < end && *r == ':') {
        r++;
        while (r < end && (*r == ' ' || *r == '\t')) /* OpenPBS writes a tab after the colon */
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
    while (close > line && (close[-1] == ' ' || close[-1] == '\t' || close[-1] == '\r' || close[-1] == '\n'))
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
    struct buf b = {0};
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

/* ---- a scan of the repaired text --------------------------------------------------------------------
 * Values, strings and numbers are json-c's to read; the scan only steps over
 * the whitespace, colons and commas between them.  Each entry of the section
 * is parsed alone and handed on, so a 50,000-job qstat never becomes one
 * tree of a quarter of a gigabyte: parsing it whole cost four times as long,
 * most of it in the allocator and in page faults. */

struct scan {
    const char *t;
    size_t n, at;
    json_tokener *tok;
    char why[128];
};

static void skip_space (struct scan *s)
{
    while (s->at < s->n && strchr (" \t\r\n", s->t[s->at]) && s->t[s->at])
        s->at++;
}

/* Step over `c` (after whitespace); false when something else is there. */
static bool take (struct scan *s, char c)
{
    skip_space (s);
    if (s->at < s->n && s->t[s->at] == c) {
        s->at++;
        return true;
    }
    snprintf (s->why, sizeof (s->why),
              s->at < s->n ? "expected '%c'" : "unexpected end of input (expected '%c')", c);
    return false;
}

/* One JSON value at the scan's position into *out (NULL for null); 0, or -1
 * with the position at the fault and `why` set. */
static int read_value (struct scan *s, json_object **out)
{
    skip_space (s);
    json_tokener_reset (s->tok);
    *out = json_tokener_parse_ex (s->tok, s->t + s->at, (int)(s->n - s->at));
    enum json_tokener_error e = json_tokener_get_error (s->tok);
    size_t end = json_tokener_get_parse_end (s->tok);
    if (e != json_tokener_success) {
        snprintf (s->why, sizeof (s->why), "%s",
                  e == json_tokener_continue ? "unexpected end of input" : json_tokener_error_desc (e));
        json_object_put (*out);
        *out = NULL;
        s->at += end;
        return -1;
    }
    s->at += end;
    return 0;
}

/* A key and its colon; the key's text goes to `key` (truncated to fit). */
static int read_key (struct scan *s, char *key, size_t size)
{
    json_object *k = NULL;
    if (read_value (s, &k) < 0)
        return -1;
    if (!json_object_is_type (k, json_type_string)) {
        snprintf (s->why, sizeof (s->why), "expected a key");
        json_object_put (k);
        return -1;
    }
    snprintf (key, size, "%s", json_object_get_string (k));
    json_object_put (k);
    return take (s, ':') ? 0 : -1;
}

/* Past the entry whose key starts at `kpos` and whose value failed at the
 * scan's position: PBS prints one attribute a line, so the entry ends at the
 * first later line holding, at the key's own indentation, its closing brace.
 * False when the layout is not that (the key does not open its line, or no
 * such line follows the fault). */
static bool skip_entry (struct scan *s, size_t kpos)
{
    size_t ls = kpos;
    while (ls > 0 && s->t[ls - 1] != '\n')
        ls--;
    for (size_t i = ls; i < kpos; i++)
        if (s->t[i] != ' ' && s->t[i] != '\t')
            return false;
    size_t indent = kpos - ls;
    const char *p = memchr (s->t + kpos, '\n', s->n - kpos);
    while (p && (size_t)(p + 1 - s->t) < s->n) {
        const char *l = p + 1;
        size_t left = s->n - (size_t)(l - s->t), i = 0;
        while (i < left && i < indent && (l[i] == ' ' || l[i] == '\t'))
            i++;
        if (i == indent && i < left && l[i] == '}' && (size_t)(l + i - s->t) >= s->at) {
            s->at = (size_t)(l + i + 1 - s->t);
            return true;
        }
        p = memchr (l, '\n', left);
    }
    return false;
}

/* The entries of the section object, each to `entry` (NULL for one left out). */
static int scan_section (struct scan *s, const struct ccas_pbs_scan_cb *cb, struct ccas_error *err)
{
    if (!take (s, '{'))
        return -1;
    skip_space (s);
    if (s->at < s->n && s->t[s->at] == '}') {
        s->at++;
        return 0;
    }
    do {
        char key[256];
        json_object *v = NULL;
        skip_space (s);
        size_t kpos = s->at;
        if (read_key (s, key, sizeof (key)) < 0)
            return -1;
        if (read_value (s, &v) < 0) {
            if (!skip_entry (s, kpos))
                return -1;
            if (cb->skipped)
                cb->skipped (key, s->why, cb->skipped_arg);
        }
        int rc = cb->entry (key, v, true, cb->arg, err);
        json_object_put (v);
        if (rc < 0)
            return -2;
    } while (take (s, ','));
    return take (s, '}') ? 0 : -1;
}

static int scan_document (struct scan *s, const struct ccas_pbs_scan_cb *cb, struct ccas_error *err)
{
    if (!take (s, '{'))
        return -1;
    skip_space (s);
    if (s->at < s->n && s->t[s->at] == '}')
        return 0;
    do {
        char key[256];
        skip_space (s);
        if (read_key (s, key, sizeof (key)) < 0)
            return -1;
        skip_space (s);
        if (strcmp (key, cb->section) == 0 && s->at < s->n && s->t[s->at] == '{') {
            int rc = scan_section (s, cb, err);
            if (rc < 0)
                return rc;
            continue;
        }
        json_object *v = NULL;
        if (read_value (s, &v) < 0)
            return -1;
        int rc = cb->entry (key, v, false, cb->arg, err);
        json_object_put (v);
        if (rc < 0)
            return -2;
    } while (take (s, ','));
    return take (s, '}') ? 0 : -1;
}

int ccas_pbs_json_each (const char *text, size_t len, const char *what, const struct ccas_pbs_scan_cb *cb,
                        struct ccas_error *err)
{
    const char *brace = memchr (text, '{', len);
    if (!brace)
        return ccas_errorf (err, "%s: no JSON object in the output (%zu bytes)", what, len);
    if (len >= (size_t)1 << 31)
        return ccas_errorf (err, "%s: output too large (%zu bytes)", what, len);
    struct scan s = {0};
    char *fixed = repair (brace, len - (size_t)(brace - text), &s.n);
    s.tok = fixed ? json_tokener_new_ex (JSON_TOKENER_DEFAULT_DEPTH) : NULL;
    if (!s.tok) {
        free (fixed);
        return ccas_errorf (err, "out of memory");
    }
    s.t = fixed;
    int rc = scan_document (&s, cb, err);
    if (rc == -1)
        ccas_errorf (err, "%s: not valid JSON at byte %zu: %s", what, s.at + (size_t)(brace - text), s.why);
    json_tokener_free (s.tok);
    free (fixed);
    return rc < 0 ? -1 : 0;
}

/* ---- the whole document as one object ---------------------------------------------------------------- */

struct build {
    json_object *doc, *section;
    const char *name;
};

static int build_entry (const char *key, json_object *value, bool in_section, void *arg,
                        struct ccas_error *err)
{
    struct build *b = arg;
    json_object *into = b->doc;
    /* a plain value under the section's name replaces the section, which
     * the document frees: a later section starts a new one, as json-c's
     * last-wins would (the fuzzer found the old pointer used after that) */
    if (!in_section && b->section && strcmp (key, b->name) == 0)
        b->section = NULL;
    if (in_section) {
        if (!b->section) {
            if (!(b->section = json_object_new_object ()) ||
                json_object_object_add (b->doc, b->name, b->section) < 0)
                return ccas_errorf (err, "out of memory");
        }
        into = b->section;
    }
    if (json_object_object_add (into, key, json_object_get (value)) < 0)
        return ccas_errorf (err, "out of memory");
    return 0;
}

json_object *ccas_pbs_json_parse (const char *text, size_t len, const char *what, const char *section,
                                  ccas_pbs_skipped_f skipped, void *arg, struct ccas_error *err)
{
    struct build b = {json_object_new_object (), NULL, section};
    if (!b.doc) {
        ccas_errorf (err, "out of memory");
        return NULL;
    }
    struct ccas_pbs_scan_cb cb = {section, build_entry, &b, skipped, arg};
    if (ccas_pbs_json_each (text, len, what, &cb, err) < 0) {
        json_object_put (b.doc);
        return NULL;
    }
    return b.doc;
}

const char *ccas_pbs_json_text (json_object *obj, const char *key)
{
    json_object *v = NULL;
    if (!obj || !json_object_is_type (obj, json_type_object) || !json_object_object_get_ex (obj, key, &v) ||
        !v)
        return NULL;
    switch (json_object_get_type (v)) {
    case json_type_string:
    case json_type_int:
    case json_type_double:
    case json_type_boolean:
        return json_object_get_string (v); /* a number keeps the text PBS printed */
    default:
        return NULL;
    }
}
