/* SPDX-License-Identifier: MIT */
/* serve_auth.c: the token key, node tokens (HMAC-SHA256), the address check. */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "serve_auth.h"
#include "util/file.h"
#include "util/secret.h"

#define TOKEN_CONTEXT "ccautoscale-autostop-v1"

static int hexval (char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static void to_hex (const unsigned char *b, size_t n, char *out)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[b[i] >> 4];
        out[2 * i + 1] = digits[b[i] & 15];
    }
    out[2 * n] = '\0';
}

/* 0 when `text` is the key's 64 hex digits (then a line end or nothing). */
static int parse_key (const char *text, struct serve_auth_key *key)
{
    for (size_t i = 0; i < SERVE_AUTH_KEY_BYTES; i++) {
        int hi = hexval (text[2 * i]), lo = hi < 0 ? -1 : hexval (text[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return -1;
        key->bytes[i] = (unsigned char)(hi * 16 + lo);
    }
    const char *rest = text + 2 * SERVE_AUTH_KEY_BYTES;
    return rest[strspn (rest, "\r\n")] == '\0' ? 0 : -1;
}

/* 0 read, 1 missing, -1 error. */
static int read_key (const char *path, struct serve_auth_key *key, struct ccas_error *err)
{
    char buf[256];
    struct stat st;
    int fd = open (path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0 && errno == ENOENT)
        return 1;
    if (fd < 0)
        return ccas_errorf (err, "%s: %s", path, strerror (errno));
    if (fstat (fd, &st) < 0 || !S_ISREG (st.st_mode)) {
        close (fd);
        return ccas_errorf (err, "%s: the token key is not a regular file", path);
    }
    if (st.st_mode & (S_IRWXG | S_IRWXO)) {
        close (fd);
        return ccas_errorf (err,
                            "%s: holds the token key but has mode %04o (group or others may read it); run "
                            "'chmod 600 %s'",
                            path, (unsigned)(st.st_mode & 07777), path);
    }
    ssize_t n = read (fd, buf, sizeof (buf) - 1);
    close (fd);
    if (n < 0)
        return ccas_errorf (err, "%s: %s", path, strerror (errno));
    buf[n] = '\0';
    int bad = (size_t)n < 2 * SERVE_AUTH_KEY_BYTES || parse_key (buf, key) < 0;
    ccas_secret_burn (buf, sizeof (buf));
    if (bad) {
        ccas_secret_burn (key, sizeof (*key));
        return ccas_errorf (err, "%s: not a token key (64 hexadecimal digits on one line)", path);
    }
    return 0;
}

static int make_key (const char *path, struct serve_auth_key *key, struct ccas_error *err)
{
    char line[2 * SERVE_AUTH_KEY_BYTES + 2], tmp[4200], dir[4096];
    snprintf (dir, sizeof (dir), "%s", path);
    char *slash = strrchr (dir, '/');
    if (slash && slash != dir) {
        *slash = '\0';
        if (ccas_file_make_dirs (dir, err) < 0)
            return -1;
    }
    if ((size_t)snprintf (tmp, sizeof (tmp), "%s.new-XXXXXX", path) >= sizeof (tmp))
        return ccas_errorf (err, "%s: path too long", path);
    if (gnutls_rnd (GNUTLS_RND_KEY, key->bytes, sizeof (key->bytes)) < 0)
        return ccas_errorf (err, "%s: no random bytes for a token key", path);
    int fd = mkostemp (tmp, O_CLOEXEC); /* mode 0600 */
    if (fd < 0) {
        ccas_secret_burn (key, sizeof (*key));
        return ccas_errorf (err, "%s: cannot make the token key: %s", path, strerror (errno));
    }
    to_hex (key->bytes, sizeof (key->bytes), line);
    line[2 * SERVE_AUTH_KEY_BYTES] = '\n';
    line[2 * SERVE_AUTH_KEY_BYTES + 1] = '\0';
    int rc = ccas_file_write_all (fd, line, strlen (line)) < 0 || fsync (fd) < 0 ? -1 : 0;
    int saved = errno;
    ccas_secret_burn (line, sizeof (line));
    close (fd);
    /* link, not rename: of two programs making the key at once, the second
     * finds the first's and reads it, so that both hand out one key's tokens */
    if (rc == 0 && link (tmp, path) < 0) {
        rc = -1;
        saved = errno;
    }
    unlink (tmp);
    if (rc == 0)
        return 0;
    ccas_secret_burn (key, sizeof (*key));
    if (saved == EEXIST) {
        rc = read_key (path, key, err);
        return rc == 1 ? ccas_errorf (err, "%s: the token key vanished as it was made", path) : rc;
    }
    return ccas_errorf (err, "%s: cannot make the token key: %s", path, strerror (saved));
}

int serve_auth_key_load (const char *path, bool create, struct serve_auth_key *key, struct ccas_error *err)
{
    int rc = read_key (path, key, err);
    if (rc == 1 && create)
        return make_key (path, key, err);
    if (rc == 1)
        return ccas_errorf (err, "%s: no token key (ccautoscale serve makes it)", path);
    return rc;
}

int serve_auth_token (const struct serve_auth_key *key, const char *cluster, const char *node_id,
                      char out[SERVE_AUTH_TOKEN_CHARS + 1], struct ccas_error *err)
{
    unsigned char mac[32];
    char msg[2300];
    out[0] = '\0';
    if (!node_id || !*node_id)
        return ccas_errorf (err, "the node has no NodeId to make a token for");
    /* each field after its length: no two (cluster, node) pairs give one message */
    cluster = cluster ? cluster : "";
    int len = snprintf (msg, sizeof (msg), "%s\n%zu:%s\n%zu:%s", TOKEN_CONTEXT, strlen (cluster), cluster,
                        strlen (node_id), node_id);
    if (len < 0 || (size_t)len >= sizeof (msg))
        return ccas_errorf (err, "the cluster name or NodeId is too long for a token");
    if (gnutls_hmac_fast (GNUTLS_MAC_SHA256, key->bytes, sizeof (key->bytes), msg, (size_t)len, mac) < 0)
        return ccas_errorf (err, "HMAC-SHA256 failed");
    to_hex (mac, sizeof (mac), out);
    ccas_secret_burn (mac, sizeof (mac));
    return 0;
}

bool serve_auth_token_ok (const struct serve_auth_key *key, const char *cluster, const char *node_id,
                          const char *presented)
{
    char want[SERVE_AUTH_TOKEN_CHARS + 1] = "";
    if (!presented || strlen (presented) != SERVE_AUTH_TOKEN_CHARS ||
        serve_auth_token (key, cluster, node_id, want, NULL) < 0)
        return false;
    unsigned diff = 0;
    for (size_t i = 0; i < SERVE_AUTH_TOKEN_CHARS; i++)
        diff |= (unsigned)(unsigned char)(want[i] ^ presented[i]);
    ccas_secret_burn (want, sizeof (want));
    return diff == 0;
}

bool serve_auth_address_is (const struct sockaddr *peer, const char *ip)
{
    struct sockaddr_in v4;
    struct sockaddr_in6 v6;
    unsigned char want[16];
    if (!peer || !ip)
        return false;
    if (peer->sa_family == AF_INET) {
        memcpy (&v4, peer, sizeof (v4));
        return inet_pton (AF_INET, ip, want) == 1 && memcmp (want, &v4.sin_addr, 4) == 0;
    }
    if (peer->sa_family != AF_INET6)
        return false;
    memcpy (&v6, peer, sizeof (v6));
    if (IN6_IS_ADDR_V4MAPPED (&v6.sin6_addr))
        return inet_pton (AF_INET, ip, want) == 1 && memcmp (want, v6.sin6_addr.s6_addr + 12, 4) == 0;
    return inet_pton (AF_INET6, ip, want) == 1 && memcmp (want, v6.sin6_addr.s6_addr, 16) == 0;
}

const char *serve_auth_address_text (const struct sockaddr *peer, char *buf, size_t size)
{
    struct sockaddr_in v4;
    struct sockaddr_in6 v6;
    snprintf (buf, size, "?");
    if (peer && peer->sa_family == AF_INET) {
        memcpy (&v4, peer, sizeof (v4));
        inet_ntop (AF_INET, &v4.sin_addr, buf, (socklen_t)size);
    } else if (peer && peer->sa_family == AF_INET6) {
        memcpy (&v6, peer, sizeof (v6));
        if (IN6_IS_ADDR_V4MAPPED (&v6.sin6_addr))
            inet_ntop (AF_INET, v6.sin6_addr.s6_addr + 12, buf, (socklen_t)size);
        else
            inet_ntop (AF_INET6, &v6.sin6_addr, buf, (socklen_t)size);
    }
    return buf;
}

const char *serve_auth_bearer (const char *header)
{
    if (!header || strncasecmp (header, "Bearer", 6) != 0 || (header[6] != ' ' && header[6] != '\t'))
        return NULL;
    header += 6;
    return header + strspn (header, " \t");
}

enum serve_auth_result serve_auth_check (const struct serve_auth_key *key, enum ccas_conf_serve_auth mode,
                                         const char *cluster, const struct serve_auth_node *n,
                                         const struct sockaddr *peer, const char *authorization, char *why,
                                         size_t size)
{
    char from[64];
    const char *token = serve_auth_bearer (authorization);
    if (authorization && !token) {
        snprintf (why, size, "the Authorization header is not 'Bearer TOKEN'");
        return SERVE_AUTH_DENIED;
    }
    if (token) {
        if (serve_auth_token_ok (key, cluster, n->node_id, token))
            return SERVE_AUTH_BY_TOKEN;
        snprintf (why, size, "the token is not that of node '%s'", n->name);
        return SERVE_AUTH_DENIED;
    }
    if (mode == CCAS_CONF_SERVE_AUTH_TOKEN) {
        snprintf (why, size,
                  "serve.auth is 'token' and the request carries none (Authorization: Bearer TOKEN)");
        return SERVE_AUTH_DENIED;
    }
    if (serve_auth_address_is (peer, n->private_ip))
        return SERVE_AUTH_BY_ADDRESS;
    serve_auth_address_text (peer, from, sizeof (from));
    if (!n->private_ip)
        snprintf (why, size, "node '%s' has no private address yet and the request from %s carries no token",
                  n->name, from);
    else
        snprintf (why, size, "the request comes from %s, not from node '%s', and carries no token", from,
                  n->name);
    return SERVE_AUTH_DENIED;
}
