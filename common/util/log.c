/* SPDX-License-Identifier: MIT */
/* log.c: syslog / file / stderr sinks with secret redaction. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/log.h"
#include "util/secret.h"

int ccas_log_threshold = LOG_NOTICE;

static const char *log_ident = "ccautoscale";
static unsigned log_sinks;
static int stderr_level = LOG_DEBUG;
static int main_level = LOG_NOTICE; /* syslog and the file */
static FILE *log_file;
static char **secrets;
static size_t nsecrets;
static ccas_log_watch_f watch_fn;
static void *watch_arg;

static const char *level_names[] = {
    [LOG_EMERG] = "emerg",     [LOG_ALERT] = "alert",   [LOG_CRIT] = "crit", [LOG_ERR] = "error",
    [LOG_WARNING] = "warning", [LOG_NOTICE] = "notice", [LOG_INFO] = "info", [LOG_DEBUG] = "debug",
};

void ccas_log_open (const char *ident, int level, unsigned sinks)
{
    if (ident)
        log_ident = ident;
    log_sinks = sinks;
    ccas_log_threshold = level;
    main_level = level;
    stderr_level = level;
    if (sinks & CCAS_LOG_SYSLOG)
        openlog (log_ident, LOG_PID, LOG_DAEMON);
}

int ccas_log_set_file (const char *path, struct ccas_error *err)
{
    /* O_NOFOLLOW: a log file in a directory another user owns must not be
     * a symlink that sends root's lines elsewhere */
    int fd = open (path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0640);
    FILE *f = fd >= 0 ? fdopen (fd, "a") : NULL;
    if (!f) {
        int saved = errno;
        if (fd >= 0)
            close (fd);
        return ccas_errorf (err, "%s: cannot open log file: %s", path, strerror (saved));
    }
    if (log_file)
        fclose (log_file);
    setvbuf (f, NULL, _IOLBF, 0);
    log_file = f;
    return 0;
}

void ccas_log_set_level (int level)
{
    main_level = level;
    ccas_log_threshold = level > stderr_level ? level : stderr_level;
}

void ccas_log_set_stderr_level (int level)
{
    stderr_level = level;
    if (level > ccas_log_threshold)
        ccas_log_threshold = level;
}

void ccas_log_add_secret (const char *secret)
{
    if (!secret || strlen (secret) < 3)
        return;
    for (size_t i = 0; i < nsecrets; i++)
        if (strcmp (secrets[i], secret) == 0)
            return;
    char **v = realloc (secrets, (nsecrets + 1) * sizeof (*v));
    if (!v)
        return;
    secrets = v;
    secrets[nsecrets] = strdup (secret);
    if (secrets[nsecrets])
        nsecrets++;
}

/* Replace each occurrence of each secret with a mask of the same or shorter
 * length, shifting the tail left so no byte of the secret survives. */
void ccas_log_redact (char *text, unsigned long size)
{
    static const char mask[] = "****";
    (void)size;
    for (size_t i = 0; i < nsecrets; i++) {
        size_t slen = strlen (secrets[i]);
        /* never longer than the secret: a 3-byte secret gets "***", or the
         * text would grow past its end */
        size_t mlen = slen < sizeof (mask) - 1 ? slen : sizeof (mask) - 1;
        char *p;
        while ((p = strstr (text, secrets[i]))) {
            for (size_t k = 0; k < mlen; k++)
                p[k] = mask[k];
            memmove (p + mlen, p + slen, strlen (p + slen) + 1);
        }
    }
}

void ccas_log_set_watch (ccas_log_watch_f fn, void *arg)
{
    watch_fn = fn;
    watch_arg = arg;
}

void ccas_log_close (void)
{
    for (size_t i = 0; i < nsecrets; i++)
        ccas_secret_free (secrets[i]);
    free (secrets);
    secrets = NULL;
    nsecrets = 0;
    if (log_file)
        fclose (log_file);
    log_file = NULL;
    if (log_sinks & CCAS_LOG_SYSLOG)
        closelog ();
    log_sinks = 0;
}

static void write_file (int level, const char *msg)
{
    char stamp[32];
    time_t now = time (NULL);
    struct tm tm;
    localtime_r (&now, &tm);
    strftime (stamp, sizeof (stamp), "%Y-%m-%dT%H:%M:%S%z", &tm);
    fprintf (log_file, "%s %s[%d]: %s: %s\n", stamp, log_ident, (int)getpid (), level_names[level & 7], msg);
}

/* `always`: syslog and the file take it whatever their level */
__attribute__ ((format (printf, 3, 0))) static void emit (int level, bool always, const char *fmt, va_list ap)
{
    int saved_errno = errno;
    char msg[2048];

    vsnprintf (msg, sizeof (msg), fmt, ap);
    ccas_log_redact (msg, sizeof (msg));

    if ((log_sinks & CCAS_LOG_SYSLOG) && (always || level <= main_level))
        syslog (level, "%s", msg);
    if (log_file && (always || level <= main_level))
        write_file (level, msg);
    if ((log_sinks & CCAS_LOG_STDERR) && level <= stderr_level)
        fprintf (stderr, "%s: %s: %s\n", log_ident, level_names[level & 7], msg);
    if (watch_fn)
        watch_fn (level, msg, watch_arg);
    errno = saved_errno;
}

void ccas_log_emit (int level, const char *fmt, ...)
{
    va_list ap;
    va_start (ap, fmt);
    emit (level, false, fmt, ap);
    va_end (ap);
}

void ccas_log_always (int level, const char *fmt, ...)
{
    va_list ap;
    va_start (ap, fmt);
    emit (level, true, fmt, ap);
    va_end (ap);
}
