/* SPDX-License-Identifier: MIT */
/* log.h: process-wide logging to syslog, an optional file and stderr.
 *
 * The program opens the sinks once (ccas_log_open); common/ only calls
 * ccas_log().  The level is checked before anything is formatted.  Every
 * message passes through redaction: each string registered with
 * ccas_log_add_secret() is replaced by "****" before it reaches any sink.
 * Priorities are syslog's (LOG_ERR ... LOG_DEBUG).
 */
#ifndef CCAS_LOG_H
#define CCAS_LOG_H

#include <syslog.h>

#include "util/error.h"

enum ccas_log_sink {
    CCAS_LOG_SYSLOG = 1,
    CCAS_LOG_STDERR = 2,
};

extern int ccas_log_threshold;

/* Open the sinks in `sinks` (a mask of enum ccas_log_sink) under `ident`
 * (borrowed; must outlive logging).  Messages above `level` are dropped. */
void ccas_log_open (const char *ident, int level, unsigned sinks);

/* Also append to `path`.  Returns 0, or -1 with `err` naming the file. */
int ccas_log_set_file (const char *path, struct ccas_error *err);

void ccas_log_set_level (int level);

/* stderr may be quieter than the other sinks (an interactive command shows
 * warnings while syslog keeps info).  Default: the level given to open. */
void ccas_log_set_stderr_level (int level);

/* Register a secret to redact (copied; burned at ccas_log_close).  Strings
 * shorter than 3 bytes are ignored: redacting them would shred messages. */
void ccas_log_add_secret (const char *secret);

/* Redact registered secrets from `text` in place. */
void ccas_log_redact (char *text, unsigned long size);

/* Tests and the CLI may watch messages: `fn` sees each redacted message. */
typedef void (*ccas_log_watch_f) (int level, const char *msg, void *arg);
void ccas_log_set_watch (ccas_log_watch_f fn, void *arg);

/* Close sinks, burn and free secrets. */
void ccas_log_close (void);

void ccas_log_emit (int level, const char *fmt, ...) __attribute__ ((format (printf, 2, 3)));

/* For what no logging.level may hide from the log (TLS verification turned
 * off): syslog and the log file take it at any level; stderr keeps its own. */
void ccas_log_always (int level, const char *fmt, ...) __attribute__ ((format (printf, 2, 3)));

#define ccas_log(level, ...)                                                                                 \
    do {                                                                                                     \
        if ((level) <= ccas_log_threshold)                                                                   \
            ccas_log_emit ((level), __VA_ARGS__);                                                            \
    } while (0)

#endif /* !CCAS_LOG_H */
