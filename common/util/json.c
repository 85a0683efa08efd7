/* SPDX-License-Identifier: MIT */
/* jsonutil.c: parsing with located errors; typed, path-reporting getters. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/file.h"
#include "util/json.h"

static bool looks_like_html (const char *text, size_t len)
{
    size_t i = 0;
    while (i < len && isspace ((unsigned char)text[i]))
        i++;
    return i < len && text[i] == '<';
}

static void offset_to_line_col (const char *text, size_t off, int *line, int *col)
{
    *line = 1;
    *col = 1;
    for (size_t i = 0; i < off; i++) {
        if (text[i] == '\n') {
            (*line)++;
            *col = 1;
        } else
            (*col)++;
    }
}

json_object *ccas_json_parse (const char *text, size_t len, const char *what, struct ccas_error *err)
{
    if (!text || len == 0) {
        ccas_errorf (err, "%s: empty, expected JSON", what);
        return NULL;
    }
    if (looks_like_html (text, len)) {
        ccas_errorf (err, "%s: got an HTML page, expected JSON", what);
        return NULL;
    }
    if (len > INT32_MAX) {
        ccas_errorf (err, "%s: too large to parse (%zu bytes)", what, len);
        return NULL;
    }
    json_tokener *tok = json_tokener_new_ex (JSON_TOKENER_DEFAULT_DEPTH);
    if (!tok) {
        ccas_errorf (err, "%s: out of memory", what);
        return NULL;
    }
    json_object *obj = json_tokener_parse_ex (tok, text, (int)len);
    enum json_tokener_error jerr = json_tokener_get_error (tok);
    size_t off = json_tokener_get_parse_end (tok);
    if (jerr == json_tokener_continue && off == len) {
        /* a number or literal at the very end ("42", "true") is complete
         * only once json-c sees the terminating NUL */
        obj = json_tokener_parse_ex (tok, "", 1);
        if ((jerr = json_tokener_get_error (tok)) != json_tokener_success) {
            json_object_put (obj);
            obj = NULL;
            jerr = json_tokener_continue;
        }
    }
    if (jerr == json_tokener_continue) {
        ccas_errorf (err, "%s: truncated JSON (ended after %zu bytes)", what, len);
        json_object_put (obj);
        obj = NULL;
    } else if (jerr != json_tokener_success) {
        int line, col;
        offset_to_line_col (text, off, &line, &col);
        ccas_errorf (err, "%s:%d:%d: invalid JSON: %s", what, line, col, json_tokener_error_desc (jerr));
        obj = NULL;
    } else {
        while (off < len && isspace ((unsigned char)text[off]))
            off++;
        if (off < len) {
            int line, col;
            offset_to_line_col (text, off, &line, &col);
            ccas_errorf (err, "%s:%d:%d: unexpected text after the JSON value", what, line, col);
            json_object_put (obj);
            obj = NULL;
        }
    }
    json_tokener_free (tok);
    return obj;
}

json_object *ccas_json_load_file (const char *path, size_t max_bytes, struct ccas_error *err)
{
    size_t len;
    char *buf = ccas_file_read (path, max_bytes, &len, err);
    if (!buf)
        return NULL;
    json_object *obj = ccas_json_parse (buf, len, path, err);
    free (buf);
    return obj;
}

static size_t skip_space (const char *text, size_t len, size_t off)
{
    while (off < len && isspace ((unsigned char)text[off]))
        off++;
    return off;
}

static int located (struct ccas_error *err, const char *what, const char *text, size_t off, const char *msg)
{
    int line, col;
    offset_to_line_col (text, off, &line, &col);
    return ccas_errorf (err, "%s:%d:%d: %s", what, line, col, msg);
}

/* json-c parses each element; only the brackets and commas of the outer
 * array are stepped over here, so that no element outlives its callback. */
int ccas_json_array_each (const char *text, size_t len, const char *what, ccas_json_each_f fn, void *arg,
                          struct ccas_error *err)
{
    if (looks_like_html (text, len))
        return ccas_errorf (err, "%s: got an HTML page, expected JSON", what);
    if (len > INT32_MAX)
        return ccas_errorf (err, "%s: too large to parse (%zu bytes)", what, len);
    size_t off = skip_space (text, len, 0);
    if (off == len)
        return ccas_errorf (err, "%s: empty, expected JSON", what);
    if (text[off] != '[')
        return located (err, what, text, off, "expected an array ('[')");
    off = skip_space (text, len, off + 1);
    if (off < len && text[off] == ']') {
        off = skip_space (text, len, off + 1);
        return off == len ? 0 : located (err, what, text, off, "unexpected text after the JSON value");
    }
    json_tokener *tok = json_tokener_new_ex (JSON_TOKENER_DEFAULT_DEPTH);
    if (!tok)
        return ccas_errorf (err, "%s: out of memory", what);
    int rc = 0;
    for (size_t index = 0;; index++) {
        json_tokener_reset (tok);
        json_object *elem = json_tokener_parse_ex (tok, text + off, (int)(len - off));
        enum json_tokener_error jerr = json_tokener_get_error (tok);
        if (jerr == json_tokener_continue) {
            rc = ccas_errorf (err, "%s: truncated JSON (ended after %zu bytes)", what, len);
            break;
        }
        if (jerr != json_tokener_success) {
            rc = located (err, what, text, off + json_tokener_get_parse_end (tok),
                          json_tokener_error_desc (jerr));
            break;
        }
        off = skip_space (text, len, off + json_tokener_get_parse_end (tok));
        rc = fn (elem, index, arg);
        json_object_put (elem);
        if (rc < 0)
            break;
        if (off < len && text[off] == ',') {
            off = skip_space (text, len, off + 1);
            continue;
        }
        if (off < len && text[off] == ']') {
            off = skip_space (text, len, off + 1);
            if (off < len)
                rc = located (err, what, text, off, "unexpected text after the JSON value");
            break;
        }
        rc = off < len ? located (err, what, text, off, "expected ',' or ']' after an array element")
                       : ccas_errorf (err, "%s: truncated JSON (ended after %zu bytes)", what, len);
        break;
    }
    json_tokener_free (tok);
    return rc;
}

const char *ccas_json_unknown_key (json_object *obj, const char *const *known)
{
    if (!obj || !json_object_is_type (obj, json_type_object))
        return NULL;
    json_object_object_foreach (obj, key, val)
    {
        (void)val;
        size_t i = 0;
        while (known[i] && strcmp (known[i], key) != 0)
            i++;
        if (!known[i])
            return key;
    }
    return NULL;
}

json_object *ccas_json_get (json_object *obj, const char *key)
{
    json_object *val = NULL;
    if (!obj || !json_object_is_type (obj, json_type_object))
        return NULL;
    if (!json_object_object_get_ex (obj, key, &val))
        return NULL;
    return val; /* NULL for JSON null */
}

const char *ccas_json_str (json_object *obj, const char *key)
{
    json_object *val = ccas_json_get (obj, key);
    if (!val || !json_object_is_type (val, json_type_string))
        return NULL;
    return json_object_get_string (val);
}

int64_t ccas_double_to_int64 (double d)
{
    if (isnan (d))
        return 0;
    if (d >= 9223372036854775807.0) /* 2^63: the first double beyond INT64_MAX */
        return INT64_MAX;
    if (d <= -9223372036854775808.0)
        return INT64_MIN;
    return (int64_t)d;
}

int64_t ccas_json_int (json_object *obj, const char *key, int64_t dflt)
{
    json_object *val = ccas_json_get (obj, key);
    if (!val)
        return dflt;
    switch (json_object_get_type (val)) {
    case json_type_int:
        return json_object_get_int64 (val);
    case json_type_double:
        return ccas_double_to_int64 (json_object_get_double (val));
    case json_type_string: {
        const char *s = json_object_get_string (val);
        char *end;
        errno = 0;
        long long v = strtoll (s, &end, 10);
        if (errno || end == s || *end)
            return dflt;
        return v;
    }
    default:
        return dflt;
    }
}

double ccas_json_double (json_object *obj, const char *key, double dflt)
{
    json_object *val = ccas_json_get (obj, key);
    if (!val)
        return dflt;
    switch (json_object_get_type (val)) {
    case json_type_int:
    case json_type_double:
        return json_object_get_double (val);
    case json_type_string: {
        const char *s = json_object_get_string (val);
        char *end;
        double v = strtod (s, &end);
        return (end == s || *end) ? dflt : v;
    }
    default:
        return dflt;
    }
}

bool ccas_json_bool (json_object *obj, const char *key, bool dflt)
{
    json_object *val = ccas_json_get (obj, key);
    if (!val)
        return dflt;
    if (json_object_is_type (val, json_type_boolean))
        return json_object_get_boolean (val);
    if (json_object_is_type (val, json_type_string)) {
        const char *s = json_object_get_string (val);
        if (strcasecmp (s, "true") == 0)
            return true;
        if (strcasecmp (s, "false") == 0)
            return false;
    }
    return dflt;
}

const char *ccas_json_type_name (json_object *val)
{
    switch (json_object_get_type (val)) {
    case json_type_null:
        return "null";
    case json_type_boolean:
        return "a boolean";
    case json_type_double:
    case json_type_int:
        return "a number";
    case json_type_object:
        return "an object";
    case json_type_array:
        return "an array";
    case json_type_string:
        return "a string";
    }
    return "a value";
}

const char *ccas_json_brief (json_object *val, char *buf, size_t size)
{
    const char *s =
        json_object_to_json_string_ext (val, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
    if (strlen (s) < size)
        snprintf (buf, size, "%s", s);
    else if (size > 4)
        snprintf (buf, size, "%.*s...", (int)(size - 4), s);
    else if (size)
        buf[0] = '\0';
    return buf;
}

void ccas_json_path_key (char *buf, size_t size, const char *path, const char *key)
{
    if (path && *path)
        snprintf (buf, size, "%s.%s", path, key);
    else
        snprintf (buf, size, "%s", key);
}

void ccas_json_path_index (char *buf, size_t size, const char *path, size_t index)
{
    snprintf (buf, size, "%s[%zu]", path ? path : "", index);
}

static int wrong_type (json_object *val, const char *path, const char *key, const char *expected,
                       struct ccas_error *err)
{
    char where[256], brief[64];
    ccas_json_path_key (where, sizeof (where), path, key);
    return ccas_errorf (err, "%s: expected %s, got %s", where, expected,
                        ccas_json_brief (val, brief, sizeof (brief)));
}

int ccas_json_get_str (json_object *obj, const char *path, const char *key, const char **out,
                       struct ccas_error *err)
{
    json_object *val = ccas_json_get (obj, key);
    if (!val)
        return 0;
    if (!json_object_is_type (val, json_type_string))
        return wrong_type (val, path, key, "a string", err);
    *out = json_object_get_string (val);
    return 1;
}

int ccas_json_get_int (json_object *obj, const char *path, const char *key, int64_t *out,
                       struct ccas_error *err)
{
    json_object *val = ccas_json_get (obj, key);
    if (!val)
        return 0;
    if (json_object_is_type (val, json_type_int)) {
        *out = json_object_get_int64 (val);
        return 1;
    }
    if (json_object_is_type (val, json_type_double)) {
        double d = json_object_get_double (val);
        /* an integral value in range (12.0); 1e20 or 2.5 is not an integer */
        if (d > -9223372036854775808.0 && d < 9223372036854775807.0 && d == (double)(int64_t)d) {
            *out = (int64_t)d;
            return 1;
        }
    }
    return wrong_type (val, path, key, "an integer", err);
}

int ccas_json_get_double (json_object *obj, const char *path, const char *key, double *out,
                          struct ccas_error *err)
{
    json_object *val = ccas_json_get (obj, key);
    if (!val)
        return 0;
    if (!json_object_is_type (val, json_type_int) && !json_object_is_type (val, json_type_double))
        return wrong_type (val, path, key, "a number", err);
    *out = json_object_get_double (val);
    return 1;
}

int ccas_json_get_bool (json_object *obj, const char *path, const char *key, bool *out,
                        struct ccas_error *err)
{
    json_object *val = ccas_json_get (obj, key);
    if (!val)
        return 0;
    if (!json_object_is_type (val, json_type_boolean))
        return wrong_type (val, path, key, "true or false", err);
    *out = json_object_get_boolean (val);
    return 1;
}
