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

#include "failpoint.h"
#include "jsonutil.h"
#include "state.h"

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
    if (lstat (st->path, &sb) < 0 && errno == ENOENT)
        st->root = json_object_new_object ();
    else if (S_ISLNK (sb.st_mode)) {
        /* root would read the target and write its text back here */
        ccas_errorf (err, "%s: state file is a symbolic link; refusing it (remove it)", st->path);
        ccas_state_destroy (st);
        return NULL;
    }
    else if (!(st->root = ccas_json_load_file (st->path, STATE_MAX_BYTES, err))) {
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

int ccas_make_dirs (const char *dir, struct ccas_error *err)
{
    char buf[4096];
    snprintf (buf, sizeof (buf), "%s", dir);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir (buf, 0755) < 0 && errno != EEXIST)
            return ccas_errorf (err, "%s: cannot create directory: %s", buf, strerror (errno));
        *p = '/';
    }
    if (mkdir (buf, 0755) < 0 && errno != EEXIST)
        return ccas_errorf (err, "%s: cannot create directory: %s", buf, strerror (errno));
    return 0;
}

static int write_all (int fd, const char *data, size_t len)
{
    while (len > 0) {
        ssize_t n = write (fd, data, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        data += n;
        len -= (size_t)n;
    }
    return 0;
}

int ccas_write_atomic (const char *path, const char *data, size_t len, unsigned mode, struct ccas_error *err)
{
    return ccas_write_replace (path, data, len, mode, true, err);
}

/* A run killed between writing a temporary and renaming it (a power cut,
 * SIGKILL) leaves "NAME.tmp.PID" behind.  The next writer of NAME removes
 * those whose process is gone; a live writer's (kill says it exists, even
 * as another user's) is left alone. */
static void remove_dead_temporaries (const char *dir, const char *path)
{
    char prefix[4096];
    const char *base = strrchr (path, '/');
    snprintf (prefix, sizeof (prefix), "%s.tmp.", base ? base + 1 : path);
    size_t plen = strlen (prefix);
    DIR *d = opendir (dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir (d))) {
        char *end;
        if (strncmp (e->d_name, prefix, plen) != 0 || !e->d_name[plen])
            continue;
        errno = 0;
        long pid = strtol (e->d_name + plen, &end, 10);
        if (*end || errno || pid <= 0 || pid == (long)getpid ())
            continue;
        if (kill ((pid_t)pid, 0) < 0 && errno == ESRCH)
            (void)unlinkat (dirfd (d), e->d_name, 0);
    }
    closedir (d);
}

int ccas_write_replace (const char *path, const char *data, size_t len, unsigned mode, bool durable,
                        struct ccas_error *err)
{
    char tmp[4096], dirbuf[4096];
    snprintf (dirbuf, sizeof (dirbuf), "%s", path);
    const char *dir = dirname (dirbuf);
    if (ccas_make_dirs (dir, err) < 0)
        return -1;
    if (snprintf (tmp, sizeof (tmp), "%s.tmp.%d", path, (int)getpid ()) >= (int)sizeof (tmp))
        return ccas_errorf (err, "%s: path too long", path);
    /* the directory may be SlurmUser's and this run root's (the sync timer):
     * the temporary is made new — never a file, or a symlink, someone else
     * put at its name — and the rename then replaces the name, not a target */
    if (unlink (tmp) < 0 && errno != ENOENT)
        return ccas_errorf (err, "%s: cannot remove a stale temporary: %s", tmp, strerror (errno));
    int fd = open (tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    if (fd < 0)
        return ccas_errorf (err, "%s: cannot create: %s", tmp, strerror (errno));
    if (fchmod (fd, mode) < 0 || write_all (fd, data, len) < 0 || (durable && fsync (fd) < 0)) {
        ccas_errorf (err, "%s: cannot write: %s", tmp, strerror (errno));
        close (fd);
        unlink (tmp);
        return -1;
    }
    ccas_failpoint ("state:before-rename");
    if (close (fd) < 0 || rename (tmp, path) < 0) {
        ccas_errorf (err, "%s: cannot replace: %s", path, strerror (errno));
        unlink (tmp);
        return -1;
    }
    int dfd = durable ? open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
    if (dfd >= 0) {
        fsync (dfd); /* the rename itself must reach the disk */
        close (dfd);
    }
    remove_dead_temporaries (dir, path);
    return 0;
}

int ccas_state_save (struct ccas_state *st, struct ccas_error *err)
{
    return ccas_state_save_ex (st, true, err);
}

int ccas_state_save_ex (struct ccas_state *st, bool durable, struct ccas_error *err)
{
    size_t len;
    const char *text = json_object_to_json_string_length (st->root, JSON_C_TO_STRING_PLAIN, &len);
    return ccas_write_replace (st->path, text, len, 0644, durable, err);
}
