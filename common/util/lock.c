/* SPDX-License-Identifier: MIT */
/* lock.c: an flock(2) singleton that tells who holds it. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/clock.h"
#include "util/lock.h"
#include "util/log.h"

struct ccas_lock {
    int fd;
};

static void describe_holder (int fd, const char *path, struct ccas_error *err)
{
    char buf[128] = "";
    struct stat st;
    ssize_t n = pread (fd, buf, sizeof (buf) - 1, 0);
    buf[n > 0 ? n : 0] = '\0';
    buf[strcspn (buf, "\n")] = '\0';
    if (buf[0] && fstat (fd, &st) == 0)
        ccas_errorf (err, "%s: held by %s for %lld s", path, buf, (long long)(time (NULL) - st.st_mtime));
    else
        ccas_errorf (err, "%s: held by another process", path);
}

struct ccas_lock *ccas_lock_acquire (const char *path, const char *who, double timeout,
                                     struct ccas_error *err)
{
    struct ccas_lock *lock = NULL;
    /* O_NOFOLLOW: root truncates and writes the file; a symlink put at its
     * name by whoever owns the directory must not point that elsewhere */
    int fd = open (path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0 && errno == EACCES)
        fd = open (path, O_RDONLY | O_NOFOLLOW |
                             O_CLOEXEC); /* another user's (root's sync made it): flock needs no write */
    if (fd < 0) {
        /* not there, or read-only: most often a shared file system (an HA
         * pair's /sched) that is not mounted, or mounted read-only */
        bool storage = errno == ENOENT || errno == EROFS || errno == ESTALE || errno == EIO ||
                       errno == ENOTCONN || errno == ETIMEDOUT || errno == ENODEV;
        ccas_errorf (err, "%s: cannot open lock file: %s%s", path, strerror (errno),
                     storage ? " (is the file system holding it mounted and writable?)" : "");
        return NULL;
    }
    double deadline = ccas_clock_monotonic () + timeout;
    bool said = false;
    while (flock (fd, LOCK_EX | LOCK_NB) < 0) {
        if (errno == EINTR)
            continue;
        if (errno != EWOULDBLOCK) {
            ccas_errorf (err, "%s: cannot lock: %s", path, strerror (errno));
            goto error;
        }
        if (!said) {
            /* a command that seems to hang says what it waits for */
            struct ccas_error held = {""};
            describe_holder (fd, path, &held);
            ccas_log (LOG_INFO, "%s; waiting up to %.0f s", held.text, timeout);
            said = true;
        }
        if (ccas_clock_monotonic () >= deadline) {
            describe_holder (fd, path, err);
            errno = EWOULDBLOCK;
            goto error;
        }
        ccas_clock_sleep (0.02);
    }
    char line[128];
    int len = snprintf (line, sizeof (line), "pid %d (%s)\n", (int)getpid (), who ? who : "ccautoscale");
    /* the holder's description is a courtesy; the lock itself is held */
    if (ftruncate (fd, 0) == 0 && pwrite (fd, line, (size_t)len, 0) < 0)
        line[0] = '\0';
    if (!(lock = malloc (sizeof (*lock)))) {
        ccas_errorf (err, "%s: out of memory", path);
        goto error;
    }
    lock->fd = fd;
    return lock;
error : {
    int saved = errno;
    close (fd);
    errno = saved;
}
    return NULL;
}

void ccas_lock_release (struct ccas_lock *lock)
{
    if (!lock)
        return;
    int saved_errno = errno;
    close (lock->fd); /* closing drops the flock */
    free (lock);
    errno = saved_errno;
}
