/* SPDX-License-Identifier: MIT */
/* serve_auth.h: who may ask `ccautoscale serve` to stop a node — the node
 * itself, and only it.
 *
 * A caller proves it is the node it names in one of two ways:
 *   - its connection comes from the node's private address as CycleCloud
 *     reports it (the record's PrivateIp; an IPv4-mapped IPv6 peer compares
 *     as its IPv4 address), or
 *   - it carries the node's token in `Authorization: Bearer TOKEN`.
 * A token is HMAC-SHA256, keyed with a secret kept in a file of its own
 * (mode 0600, made at first use), over "ccautoscale-autostop-v1\n", then the
 * cluster's name and the node's NodeId, each as "LENGTH:TEXT" on a line of
 * its own (lowercase hex): so it is good for one node of one cluster only, and a node
 * created again under the same name (a new NodeId) needs a new one.
 * `ccautoscale serve token` prints a node's token; removing the key file
 * revokes every token.  A token that is not the node's is refused even from
 * the node's address: a caller that presents one is judged by it.  Under
 * serve.auth "token" the address proves nothing.
 *
 * The key never reaches a log or an error; tokens are compared in constant
 * time.  Keys and checks hold no global state: safe from any thread once
 * the key is loaded.  Uses GnuTLS's HMAC and random generator.
 */
#ifndef CCAS_SERVE_AUTH_H
#define CCAS_SERVE_AUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

#include "conf/conf.h"
#include "util/error.h"

#define SERVE_AUTH_KEY_BYTES 32
#define SERVE_AUTH_TOKEN_CHARS 64 /* lowercase hex */

struct serve_auth_key {
    unsigned char bytes[SERVE_AUTH_KEY_BYTES];
};

/* Read the key at `path`; when there is none and `create`, make one
 * (random, written to a temporary file and linked into place, so that two
 * programs making it at once agree on one).  A key file that group or others
 * may read, or that is not a regular file, is refused.  Returns 0 or -1 with
 * `err` naming the file.  Burn the key with ccas_secret_burn() when done. */
int serve_auth_key_load (const char *path, bool create, struct serve_auth_key *key, struct ccas_error *err);

/* The token of node `node_id` of cluster `cluster`, NUL-terminated in `out`.
 * Returns 0, or -1 with `err` (no node id, or the HMAC failed). */
int serve_auth_token (const struct serve_auth_key *key, const char *cluster, const char *node_id,
                      char out[SERVE_AUTH_TOKEN_CHARS + 1], struct ccas_error *err);

/* Whether `presented` is node `node_id`'s token. */
bool serve_auth_token_ok (const struct serve_auth_key *key, const char *cluster, const char *node_id,
                          const char *presented);

/* Whether `peer` (an AF_INET or AF_INET6 address) is the address `ip`
 * (text, as CycleCloud reports it; NULL or unparsable: never). */
bool serve_auth_address_is (const struct sockaddr *peer, const char *ip);

/* The peer address as text in `buf` ("127.0.0.5", "::1"); returns `buf`. */
const char *serve_auth_address_text (const struct sockaddr *peer, char *buf, size_t size);

/* The token of an `Authorization` header value ("Bearer TOKEN", the scheme
 * in any case), or NULL when `header` is NULL or of another scheme.
 * Borrowed from `header`. */
const char *serve_auth_bearer (const char *header);

/* What proved the caller, or that nothing did. */
enum serve_auth_result {
    SERVE_AUTH_DENIED,
    SERVE_AUTH_BY_ADDRESS,
    SERVE_AUTH_BY_TOKEN,
};

/* The node a request names, as the check needs it (strings borrowed). */
struct serve_auth_node {
    const char *name;
    const char *node_id;
    const char *private_ip;
};

/* May the caller at `peer`, with the Authorization header `authorization`
 * (NULL: none), stop node `n` of `cluster` under `mode`?  When denied,
 * `why` says why, without the token or the key. */
enum serve_auth_result serve_auth_check (const struct serve_auth_key *key, enum ccas_conf_serve_auth mode,
                                         const char *cluster, const struct serve_auth_node *n,
                                         const struct sockaddr *peer, const char *authorization, char *why,
                                         size_t size);

#endif /* !CCAS_SERVE_AUTH_H */
