/* SPDX-License-Identifier: MIT */
/* serve_listen.h: the address `ccautoscale serve` listens on, from its
 * text ("0.0.0.0:9443", "[::1]:9443").  Pure: no I/O, no global state. */
#ifndef CCAS_SERVE_LISTEN_H
#define CCAS_SERVE_LISTEN_H

#include <stdbool.h>
#include <sys/socket.h>

#include "util/error.h"

/* Parse "ADDR:PORT" (IPv4) or "[ADDR]:PORT" (IPv6), numeric addresses
 * only, PORT 0-65535 (0: the kernel chooses), into `addr`.  *loopback says
 * whether ADDR is in 127.0.0.0/8 or is ::1.  Returns 0, or -1 with `err`
 * naming the text. */
int serve_listen_parse (const char *text, struct sockaddr_storage *addr, bool *loopback,
                        struct ccas_error *err);

#endif /* !CCAS_SERVE_LISTEN_H */
