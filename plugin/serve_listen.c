/* SPDX-License-Identifier: MIT */
/* serve_listen.c: ADDR:PORT and [ADDR6]:PORT to a socket address. */
#include "config.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "serve_listen.h"

int serve_listen_parse (const char *text, struct sockaddr_storage *addr, bool *loopback,
                        struct ccas_error *err)
{
    char host[64];
    const char *colon, *h = text;
    size_t hlen;
    bool v6 = text && text[0] == '[';
    if (!text)
        return ccas_errorf (err, "no address to listen on");
    if (v6) {
        const char *close = strchr (text, ']');
        if (!close || close[1] != ':')
            return ccas_errorf (err, "'%s': give [IPv6]:PORT", text);
        h = text + 1;
        hlen = (size_t)(close - h);
        colon = close + 1;
    } else {
        colon = strrchr (text, ':');
        if (!colon)
            return ccas_errorf (err, "'%s': give ADDR:PORT", text);
        hlen = (size_t)(colon - text);
    }
    if (hlen == 0 || hlen >= sizeof (host))
        return ccas_errorf (err, "'%s': no address before the port", text);
    memcpy (host, h, hlen);
    host[hlen] = '\0';
    char *end;
    long port = strtol (colon + 1, &end, 10);
    if (colon[1] < '0' || colon[1] > '9' || *end || port > 65535)
        return ccas_errorf (err, "'%s': the port must be a number from 0 to 65535", text);
    memset (addr, 0, sizeof (*addr));
    if (v6) {
        struct sockaddr_in6 a = {.sin6_family = AF_INET6, .sin6_port = htons ((uint16_t)port)};
        if (inet_pton (AF_INET6, host, &a.sin6_addr) != 1)
            return ccas_errorf (err, "'%s': '%s' is not an IPv6 address", text, host);
        *loopback = IN6_IS_ADDR_LOOPBACK (&a.sin6_addr);
        memcpy (addr, &a, sizeof (a));
    } else {
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons ((uint16_t)port)};
        if (inet_pton (AF_INET, host, &a.sin_addr) != 1)
            return ccas_errorf (err, "'%s': '%s' is not an IPv4 address (IPv6 goes in brackets)", text, host);
        *loopback = (ntohl (a.sin_addr.s_addr) >> 24) == 127;
        memcpy (addr, &a, sizeof (a));
    }
    return 0;
}
