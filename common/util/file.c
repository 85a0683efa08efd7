/* SPDX-License-Identifier: MIT */
/* file.c: read a whole file under a cap; replace one atomically. */
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

int ccas_file_open_stat (const char *path, struct stat *st, struct ccas_error *err)
{
    int fd = open (path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        ccas_errorf (err, "%s: %s", path, strerror (errno));
        return -1;
    }
    if (fstat (fd, st) < 0) {
        ccas_errorf (err, "%s: %s", path, strerror (errno));
        close (fd);
        return -1;
    }
    return fd;
}

char *ccas_file_read (const char *path, size_t max_bytes, size_t *lenp, struct ccas_error *err)
{
    struct stat st;
    int fd = ccas_file_open_stat (path, &st, err);
    if (fd < 0)
        return NULL;
    if (S_ISDIR (st.st_mode)) {
        ccas_errorf (err, "%s: is a directory", path);
        close (fd);
        return NULL;
    }
    /* stdin or pipes have no size: read until EOF within the cap */
    /* a regular file's size and room for the NUL and the read that sees EOF,
     * so that a file read whole is never copied into a buffer twice its size */
    size_t cap = S_ISREG (st.st_mode) ? (size_t)st.st_size + 2 : 65536;
    if (S_ISREG (st.st_mode) && (size_t)st.st_size > max_bytes) {
        ccas_errorf (err, "%s: too large (%lld bytes, limit %zu)", path, (long long)st.st_size, max_bytes);
        close (fd);
        return NULL;
    }
    char *buf = malloc (cap);
    size_t len = 0;
    while (buf) {
        /* the cap counts what was read, not the buffer: a pipe's first
         * read may bring far more than max_bytes into a 64 KiB buffer, and
         * a file under /proc says it is empty */
        if (len > max_bytes) {
            ccas_errorf (err, "%s: too large (limit %zu bytes)", path, max_bytes);
            free (buf);
            close (fd);
            return NULL;
        }
        if (len + 1 >= cap) { /* room for the terminating NUL too */
            char *nbuf = realloc (buf, cap * 2);
            if (!nbuf) {
                free (buf);
                buf = NULL;
                break;
            }
            buf = nbuf;
            cap *= 2;
        }
        ssize_t n = read (fd, buf + len, cap - len - 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            ccas_errorf (err, "%s: %s", path, strerror (errno));
            free (buf);
            close (fd);
            return NULL;
        }
        if (n == 0)
            break;
        len += (size_t)n;
    }
    close (fd);
    if (!buf) {
        ccas_errorf (err, "%s: out of memory", path);
        return NULL;
    }
    buf[len] = '\0';
    *lenp = len;
    return buf;
}

/* One level: made now, or already a directory (a file of that name is an
 * error, as for mkdir -p, not something to write beneath). */
static int make_dir (const char *path, struct ccas_error *err)
{
    struct stat st;
    if (mkdir (path, 0755) == 0)
        return 0;
    int saved = errno;
    if (saved == EEXIST && stat (path, &st) == 0 && S_ISDIR (st.st_mode))
        return 0;
    errno = saved;
    return ccas_errorf (err, "%s: cannot create directory: %s", path, strerror (saved));
}

int ccas_file_make_dirs (const char *dir, struct ccas_error *err)
{
    char buf[4096];
    snprintf (buf, sizeof (buf), "%s", dir);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (make_dir (buf, err) < 0)
            return -1;
        *p = '/';
    }
    return make_dir (buf, err);
}

int ccas_file_write_all (int fd, const char *data, size_t len)
{
    while (len > 0) {
        ssize_t n = write (fd, data, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0)
            errno = EIO; /* nothing written and no error: never loop on it */
        if (n <= 0)
            return -1;
        data += n;
        len -= (size_t)n;
    }
    return 0;
}

int ccas_file_write_atomic (const char *path, const char *data, size_t len, unsigned mode,
                            struct ccas_error *err)
{
    return ccas_file_write_replace (path, data, len, mode, true, err);
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

/* The owner to give a replacement: `uid` (uid_t)-1 for the writer's own. */
struct owner {
    uid_t uid;
    gid_t gid;
};

static int replace (const char *path, const char *data, size_t len, unsigned mode, struct owner own,
                    bool durable, struct ccas_error *err)
{
    char tmp[4096], dirbuf[4096];
    snprintf (dirbuf, sizeof (dirbuf), "%s", path);
    const char *dir = dirname (dirbuf);
    if (ccas_file_make_dirs (dir, err) < 0)
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
    /* the owner first: giving a file away clears its set-id bits */
    if (own.uid != (uid_t)-1 && fchown (fd, own.uid, own.gid) < 0) {
        ccas_errorf (err, "%s: cannot keep the owner %ld:%ld of the file it replaces: %s", path,
                     (long)own.uid, (long)own.gid, strerror (errno));
        close (fd);
        unlink (tmp);
        return -1;
    }
    if (fchmod (fd, mode) < 0 || ccas_file_write_all (fd, data, len) < 0 || (durable && fsync (fd) < 0)) {
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

int ccas_file_write_replace (const char *path, const char *data, size_t len, unsigned mode, bool durable,
                             struct ccas_error *err)
{
    return replace (path, data, len, mode, (struct owner){(uid_t)-1, (gid_t)-1}, durable, err);
}

int ccas_file_write_keep (const char *path, const char *data, size_t len, unsigned mode,
                          struct ccas_error *err)
{
    char target[4096];
    struct stat st;
    const char *dest = path;
    if (lstat (path, &st) == 0 && S_ISLNK (st.st_mode)) {
        char *real = realpath (path, NULL);
        if (!real)
            return ccas_errorf (err, "%s: a symbolic link to nothing: %s", path, strerror (errno));
        snprintf (target, sizeof (target), "%s", real);
        free (real);
        dest = target;
    }
    if (stat (dest, &st) < 0) {
        if (errno != ENOENT)
            return ccas_errorf (err, "%s: %s", dest, strerror (errno));
        return replace (dest, data, len, mode, (struct owner){(uid_t)-1, (gid_t)-1}, true, err);
    }
    if (!S_ISREG (st.st_mode))
        return ccas_errorf (err, "%s: not a regular file", dest);
    return replace (dest, data, len, st.st_mode & 07777, (struct owner){st.st_uid, st.st_gid}, true, err);
}
