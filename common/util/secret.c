/* SPDX-License-Identifier: MIT */
/* secret.c: burn secrets in memory; refuse secret files others can read. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/file.h"
#include "util/secret.h"

void ccas_secret_no_dump (void)
{
    /* children are unaffected: exec makes a process dumpable again */
    (void)prctl (PR_SET_DUMPABLE, 0, 0, 0, 0);
}

void ccas_secret_burn (void *p, size_t len)
{
    if (!p)
        return;
#ifdef HAVE_EXPLICIT_BZERO
    explicit_bzero (p, len);
#else
    volatile unsigned char *v = p;
    while (len--)
        *v++ = 0;
#endif
}

void ccas_secret_free (char *s)
{
    if (!s)
        return;
    int saved_errno = errno;
    ccas_secret_burn (s, strlen (s));
    free (s);
    errno = saved_errno;
}

static int check_stat (const char *path, const struct stat *st, const char *what, struct ccas_error *err)
{
    if (!S_ISREG (st->st_mode))
        return ccas_errorf (err, "%s: holds %s but is not a regular file", path, what);
    if (st->st_mode & (S_IRWXG | S_IRWXO))
        return ccas_errorf (err,
                            "%s: holds %s but has mode %04o (group or others may read it);"
                            " run 'chmod 600 %s'",
                            path, what, (unsigned)(st->st_mode & 07777), path);
    return 0;
}

int ccas_secret_check_mode (const char *path, const char *what, struct ccas_error *err)
{
    struct stat st;
    if (stat (path, &st) < 0)
        return ccas_errorf (err, "%s: %s", path, strerror (errno));
    return check_stat (path, &st, what, err);
}

char *ccas_secret_read_file (const char *path, struct ccas_error *err)
{
    char buf[4096];
    struct stat st;
    int fd = ccas_file_open_stat (path, &st, err);
    if (fd < 0)
        return NULL;
    if (check_stat (path, &st, "a password", err) < 0) {
        close (fd);
        return NULL;
    }
    ssize_t n = read (fd, buf, sizeof (buf) - 1);
    close (fd);
    if (n < 0) {
        ccas_errorf (err, "%s: %s", path, strerror (errno));
        return NULL;
    }
    buf[n] = '\0';
    buf[strcspn (buf, "\r\n")] = '\0';
    if (buf[0] == '\0') {
        ccas_secret_burn (buf, sizeof (buf));
        ccas_errorf (err, "%s: the password file is empty", path);
        return NULL;
    }
    char *s = strdup (buf);
    ccas_secret_burn (buf, sizeof (buf));
    if (!s)
        ccas_errorf (err, "%s: out of memory", path);
    return s;
}
