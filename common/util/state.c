/* SPDX-License-Identifier: MIT */
/* state.c: load and atomically replace small JSON state documents. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/failpoint.h"
#include "util/file.h"
#include "util/json.h"
#include "util/state.h"

#define STATE_MAX_BYTES (64 * 1024 * 1024)

struct ccas_state {
    char *dir;
    char *path;
    json_object *root;
};

/* The document's format (CCAS_STATE_FORMAT_KEY, taken out of it): 0, or
 * -1 with `err` and errno ENOTSUP (newer) or EBADMSG (not a number). */
static int take_format (json_object *root, const char *path, struct ccas_error *err)
{
    json_object *v = NULL;
    if (!json_object_object_get_ex (root, CCAS_STATE_FORMAT_KEY, &v))
        return 0; /* format 1, written before the key existed */
    if (!json_object_is_type (v, json_type_int) || json_object_get_int64 (v) < 1) {
        ccas_errorf (err, "%s: %s: expected a format number, not '%.40s'", path, CCAS_STATE_FORMAT_KEY,
                     json_object_to_json_string (v));
        errno = EBADMSG;
        return -1;
    }
    int64_t format = json_object_get_int64 (v);
    if (format > CCAS_STATE_FORMAT) {
        ccas_errorf (err,
                     "%s: written by a newer ccautoscale (state format %lld; this one reads up to %d):"
                     " refusing to read or replace it; run the same ccautoscale on every host that shares"
                     " this state_dir",
                     path, (long long)format, CCAS_STATE_FORMAT);
        errno = ENOTSUP;
        return -1;
    }
    json_object_object_del (root, CCAS_STATE_FORMAT_KEY);
    return 0;
}

/* The document at st->path into st->root: 0, or -1 with `err` and errno. */
static int read_root (struct ccas_state *st, struct ccas_error *err)
{
    size_t len;
    char *text = ccas_file_read (st->path, STATE_MAX_BYTES, &len, err);
    if (!text) {
        int e = errno == EBADMSG || errno == ENOTSUP || errno == 0 ? EIO : errno;
        ccas_error_prefix (err, "state file");
        errno = e;
        return -1;
    }
    st->root = ccas_json_parse (text, len, st->path, err);
    free (text);
    if (!st->root) {
        ccas_error_prefix (err, "state file (move it aside to start afresh)");
        errno = EBADMSG;
        return -1;
    }
    if (!json_object_is_type (st->root, json_type_object)) {
        ccas_errorf (err, "%s: state file is not a JSON object (move it aside to start afresh)", st->path);
        errno = EBADMSG;
        return -1;
    }
    return take_format (st->root, st->path, err);
}

struct ccas_state *ccas_state_load (const char *dir, const char *name, struct ccas_error *err)
{
    struct ccas_state *st = calloc (1, sizeof (*st));
    if (!st || !(st->dir = strdup (dir)) || asprintf (&st->path, "%s/%s.json", dir, name) < 0) {
        if (st)
            st->path = NULL;
        ccas_state_destroy (st);
        ccas_errorf (err, "out of memory");
        errno = ENOMEM;
        return NULL;
    }
    struct stat sb;
    int looked = lstat (st->path, &sb);
    if (looked < 0 && errno == ENOENT) {
        st->root = json_object_new_object ();
        return st;
    }
    int e = errno;
    if (looked < 0)
        ccas_errorf (err, "%s: cannot read the state file: %s", st->path, strerror (e));
    else if (S_ISLNK (sb.st_mode)) {
        /* root would read the target and write its text back here */
        ccas_errorf (err, "%s: state file is a symbolic link; refusing it (remove it)", st->path);
        e = ELOOP;
    } else if (read_root (st, err) == 0)
        return st;
    else
        e = errno;
    ccas_state_destroy (st);
    errno = e;
    return NULL;
}

/* The longest start of `text` that is a JSON object once closed with "}":
 * every top-level entry before the one a cut ended in.  json-c decides what
 * parses; only the places to try (each comma, from the end) are found here.
 * Returns a new object (empty if no entry is whole). */
static json_object *whole_entries (const char *text, size_t len)
{
    enum { MAX_TRIES = 4096 }; /* the state documents are small; a huge one gives up early */
    char *buf = malloc (len + 2);
    size_t tries = 0;
    for (size_t i = len; buf && i-- > 0 && tries < MAX_TRIES;) {
        if (text[i] != ',')
            continue;
        tries++;
        memcpy (buf, text, i);
        buf[i] = '}';
        json_object *o = ccas_json_parse (buf, i + 1, "", NULL);
        if (o && json_object_is_type (o, json_type_object)) {
            free (buf);
            return o;
        }
        json_object_put (o);
    }
    free (buf);
    return json_object_new_object ();
}

struct ccas_state *ccas_state_load_salvage (const char *dir, const char *name, struct ccas_state_salvage *out,
                                            struct ccas_error *err)
{
    memset (out, 0, sizeof (*out));
    struct ccas_state *st = ccas_state_load (dir, name, err);
    if (st || errno != EBADMSG)
        return st;
    struct ccas_error why = *err;
    if (!(st = calloc (1, sizeof (*st))) || !(st->dir = strdup (dir)) ||
        asprintf (&st->path, "%s/%s.json", dir, name) < 0) {
        if (st)
            st->path = NULL;
        ccas_state_destroy (st);
        ccas_errorf (err, "out of memory");
        return NULL;
    }
    size_t len = 0;
    char *text = ccas_file_read (st->path, STATE_MAX_BYTES, &len, err);
    if (!text) {
        ccas_state_destroy (st);
        return NULL;
    }
    st->root = whole_entries (text, len);
    free (text);
    if (take_format (st->root, st->path, err) < 0 && errno == ENOTSUP) {
        ccas_state_destroy (st); /* a newer ccautoscale's: not ours to cut down */
        return NULL;
    }
    json_object_object_del (st->root, CCAS_STATE_FORMAT_KEY);
    out->broken = true;
    out->bytes = len;
    out->kept = (size_t)json_object_object_length (st->root);
    snprintf (out->aside, sizeof (out->aside), "%s.broken-%lld", st->path, (long long)time (NULL));
    if (rename (st->path, out->aside) < 0) {
        ccas_errorf (err, "%s: cannot keep it aside as %s: %s (it does not parse: %s)", st->path, out->aside,
                     strerror (errno), why.text);
        ccas_state_destroy (st);
        return NULL;
    }
    if (ccas_state_save (st, err) < 0) {
        ccas_state_destroy (st);
        return NULL;
    }
    return st;
}

void ccas_state_destroy (struct ccas_state *st)
{
    if (!st)
        return;
    json_object_put (st->root);
    free (st->path);
    free (st->dir);
    free (st);
}

json_object *ccas_state_root (struct ccas_state *st)
{
    return st->root;
}

int ccas_state_save (struct ccas_state *st, struct ccas_error *err)
{
    return ccas_state_save_ex (st, true, err);
}

int ccas_state_save_ex (struct ccas_state *st, bool durable, struct ccas_error *err)
{
    /* the format first, so that even a file cut short says which it is */
    json_object *doc = json_object_new_object ();
    if (!doc)
        return ccas_errorf (err, "%s: out of memory", st->path);
    json_object_object_add (doc, CCAS_STATE_FORMAT_KEY, json_object_new_int (CCAS_STATE_FORMAT));
    json_object_object_foreach (st->root, key, val)
    {
        if (strcmp (key, CCAS_STATE_FORMAT_KEY) != 0)
            json_object_object_add (doc, key, json_object_get (val));
    }
    size_t len;
    const char *text = json_object_to_json_string_length (doc, JSON_C_TO_STRING_PLAIN, &len);
    int rc = ccas_file_write_replace (st->path, text, len, 0644, durable, err);
    json_object_put (doc);
    return rc;
}
