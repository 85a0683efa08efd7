/* SPDX-License-Identifier: MIT */
/* state.c: load and atomically replace small JSON state documents. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

struct ccas_state *ccas_state_load (const char *dir, const char *name, struct ccas_error *err)
{
    struct ccas_state *st = calloc (1, sizeof (*st));
    if (!st || !(st->dir = strdup (dir)) || asprintf (&st->path, "%s/%s.json", dir, name) < 0) {
        if (st)
            st->path = NULL;
        ccas_state_destroy (st);
        ccas_errorf (err, "out of memory");
        return NULL;
    }
    struct stat sb;
    int looked = lstat (st->path, &sb);
    if (looked < 0 && errno == ENOENT)
        st->root = json_object_new_object ();
    else if (looked < 0) {
        ccas_errorf (err, "%s: cannot read the state file: %s", st->path, strerror (errno));
        ccas_state_destroy (st);
        return NULL;
    } else if (S_ISLNK (sb.st_mode)) {
        /* root would read the target and write its text back here */
        ccas_errorf (err, "%s: state file is a symbolic link; refusing it (remove it)", st->path);
        ccas_state_destroy (st);
        return NULL;
    } else if (!(st->root = ccas_json_load_file (st->path, STATE_MAX_BYTES, err))) {
        ccas_error_prefix (err, "state file (move it aside to start afresh)");
        ccas_state_destroy (st);
        return NULL;
    } else if (!json_object_is_type (st->root, json_type_object)) {
        ccas_errorf (err, "%s: state file is not a JSON object (move it aside to start afresh)", st->path);
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
    size_t len;
    const char *text = json_object_to_json_string_length (st->root, JSON_C_TO_STRING_PLAIN, &len);
    return ccas_file_write_replace (st->path, text, len, 0644, durable, err);
}
