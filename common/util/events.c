/* SPDX-License-Identifier: MIT */
/* events.c: append JSON lines under a lock, rotating by size. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "util/events.h"
#include "util/file.h"
#include "util/log.h"
#include "util/state.h"

static struct {
    char path[4096];
    const char *program;
    double max_bytes;
    int keep;
    int fd; /* kept open for the run; -1 when closed */
    bool on, complained;
} ev = {.fd = -1};

void ccas_events_open (const char *path, double max_mb, int keep, const char *program)
{
    ccas_events_close ();
    ev.program = program;
    ev.max_bytes = max_mb * 1048576.0;
    ev.keep = keep;
    ev.complained = false;
    if (!path || !*path) {
        ev.on = false;
        return;
    }
    snprintf (ev.path, sizeof (ev.path), "%s", path);
    ev.on = true;
}

void ccas_events_close (void)
{
    if (ev.fd >= 0)
        close (ev.fd);
    ev.fd = -1;
    ev.on = false;
}

static void complain (const char *what)
{
    if (ev.fd >= 0)
        close (ev.fd);
    ev.fd = -1;
    if (!ev.complained)
        ccas_log (LOG_WARNING, "events: %s: %s: %s (further events of this run are dropped)", ev.path, what,
                  strerror (errno));
    ev.complained = true;
    ev.on = false;
}

/* FILE.k-1 -> FILE.k, ..., FILE -> FILE.1; the oldest falls off. */
static void rotate (void)
{
    char from[4200], to[4200];
    for (int k = ev.keep; k >= 1; k--) {
        if (k == 1)
            snprintf (from, sizeof (from), "%s", ev.path);
        else
            snprintf (from, sizeof (from), "%s.%d", ev.path, k - 1);
        snprintf (to, sizeof (to), "%s.%d", ev.path, k);
        if (rename (from, to) < 0 && errno != ENOENT)
            ccas_log (LOG_WARNING, "events: cannot rotate %s: %s", from, strerror (errno));
    }
    if (ev.keep < 1 && unlink (ev.path) < 0 && errno != ENOENT)
        ccas_log (LOG_WARNING, "events: cannot remove %s: %s", ev.path, strerror (errno));
}

/* A file root makes (the sync timer, a rotation) goes to the owner of its
 * directory, who is SlurmUser where slurmctld runs the programs: else the
 * next resume could not append to it. */
static void adopt_directory_owner (int fd)
{
    struct stat file, dir;
    char path[4096];
    if (geteuid () != 0 || fstat (fd, &file) < 0 || file.st_uid != 0 || !S_ISREG (file.st_mode) ||
        file.st_nlink != 1)
        return; /* a hard link to another file is never given away */
    snprintf (path, sizeof (path), "%s", ev.path);
    char *slash = strrchr (path, '/');
    if (slash)
        *(slash == path ? slash + 1 : slash) = '\0';
    if (stat (slash ? path : ".", &dir) == 0 && dir.st_uid != 0 && fchown (fd, dir.st_uid, dir.st_gid) < 0)
        ccas_log (LOG_DEBUG, "events: cannot give %s to uid %d: %s", ev.path, (int)dir.st_uid,
                  strerror (errno));
}

/* O_NOFOLLOW: in a directory another user owns, a symlink at the file's
 * name must not send root's appends elsewhere. */
static int open_file (void)
{
    int fd = open (ev.path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0640);
    if (fd >= 0)
        adopt_directory_owner (fd);
    if (fd < 0 && errno == ENOENT) {
        /* the first run on a fresh state directory */
        char dir[4096];
        struct ccas_error err = {""};
        snprintf (dir, sizeof (dir), "%s", ev.path);
        char *slash = strrchr (dir, '/');
        if (slash && slash != dir) {
            *slash = '\0';
            if (ccas_file_make_dirs (dir, &err) == 0 &&
                (fd = open (ev.path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0640)) >= 0)
                adopt_directory_owner (fd);
        }
    }
    return fd;
}

static int lock (int fd)
{
    while (flock (fd, LOCK_EX) < 0)
        if (errno != EINTR)
            return -1;
    return 0;
}

/* The file, locked, as it is at ev.path now: the descriptor is kept for the
 * run, and opened again when another process rotated the file under it. */
static int locked_current (void)
{
    struct stat mine, now;
    for (int tries = 0; tries < 5; tries++) {
        if (ev.fd < 0 && (ev.fd = open_file ()) < 0)
            return -1;
        if (lock (ev.fd) < 0)
            return -1;
        if (fstat (ev.fd, &mine) == 0 && stat (ev.path, &now) == 0 && mine.st_ino == now.st_ino &&
            mine.st_dev == now.st_dev)
            return ev.fd;
        close (ev.fd); /* rotated away: releases the lock too */
        ev.fd = -1;
    }
    return -1;
}

static void append (const char *line, size_t len)
{
    struct stat st;
    if (locked_current () < 0)
        return complain ("cannot open");
    if (fstat (ev.fd, &st) == 0 && st.st_size > 0 && (double)st.st_size + (double)len > ev.max_bytes) {
        /* rotate under the old file's lock; whoever waits on it finds the path moved and reopens */
        rotate ();
        close (ev.fd);
        ev.fd = -1;
        if (locked_current () < 0)
            return complain ("cannot open after rotating");
    }
    /* the line goes in whole or not at all: a short write (a full disk) is
     * cut back under the lock, so no reader ever meets half a line */
    off_t before = fstat (ev.fd, &st) == 0 ? st.st_size : -1;
    size_t done = 0;
    while (done < len) {
        ssize_t n = write (ev.fd, line + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        done += (size_t)n;
    }
    if (done < len) {
        if (done > 0 && before >= 0 && ftruncate (ev.fd, before) < 0)
            complain ("cannot write, nor cut back a partial line");
        else
            complain ("cannot write");
        return;
    }
    flock (ev.fd, LOCK_UN);
}

static void now_iso (char *buf, size_t size)
{
    struct timeval tv;
    struct tm tm;
    gettimeofday (&tv, NULL);
    gmtime_r (&tv.tv_sec, &tm);
    size_t n = strftime (buf, size, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf (buf + n, size - n, ".%03ldZ", (long)(tv.tv_usec / 1000));
}

void ccas_event (const char *type, json_object *fields)
{
    if (!ev.on) {
        json_object_put (fields);
        return;
    }
    char when[40];
    now_iso (when, sizeof (when));
    json_object *o = json_object_new_object ();
    json_object_object_add (o, "time", json_object_new_string (when));
    json_object_object_add (o, "event", json_object_new_string (type));
    json_object_object_add (o, "program", json_object_new_string (ev.program ? ev.program : "ccautoscale"));
    json_object_object_add (o, "pid", json_object_new_int ((int)getpid ()));
    if (fields && json_object_is_type (fields, json_type_object)) {
        json_object_object_foreach (fields, k, v) json_object_object_add (o, k, json_object_get (v));
    }
    json_object_put (fields);
    size_t len;
    const char *text = json_object_to_json_string_length (o, JSON_C_TO_STRING_PLAIN, &len);
    char *line = malloc (len + 2);
    if (line) {
        memcpy (line, text, len);
        line[len] = '\0';
        ccas_log_redact (line, len + 1); /* a server's message could quote a secret */
        len = strlen (line);
        line[len] = '\n';
        append (line, len + 1);
        free (line);
    }
    json_object_put (o);
}
