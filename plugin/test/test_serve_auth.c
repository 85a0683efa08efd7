/* SPDX-License-Identifier: MIT */
/* test_serve_auth.c: who may stop a node — tokens (HMAC-SHA256 against a
 * vector computed elsewhere, bound to one node of one cluster and one key,
 * compared whole), addresses (IPv4, IPv6, IPv4-mapped), the Authorization
 * header, the check with its reasons (never the token), and the key file
 * (made 0600, read back, refused when others may read it, through a
 * symlink or garbled; eight programs making it at once agree on one). */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "serve_auth.h"

static char dir[] = "/tmp/ccas-test-serve-auth.XXXXXX";

static struct serve_auth_key key_0_31 (void)
{
    struct serve_auth_key k;
    for (int i = 0; i < SERVE_AUTH_KEY_BYTES; i++)
        k.bytes[i] = (unsigned char)i;
    return k;
}

static struct sockaddr_storage v4 (const char *ip)
{
    struct sockaddr_storage ss;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons (40000)};
    assert_int_equal (inet_pton (AF_INET, ip, &a.sin_addr), 1);
    memset (&ss, 0, sizeof (ss));
    memcpy (&ss, &a, sizeof (a));
    return ss;
}

static struct sockaddr_storage v6 (const char *ip)
{
    struct sockaddr_storage ss;
    struct sockaddr_in6 a = {.sin6_family = AF_INET6, .sin6_port = htons (40000)};
    assert_int_equal (inet_pton (AF_INET6, ip, &a.sin6_addr), 1);
    memset (&ss, 0, sizeof (ss));
    memcpy (&ss, &a, sizeof (a));
    return ss;
}

#define SA(ss) ((const struct sockaddr *)&(ss))

static void test_token_vector (void **state)
{
    (void)state;
    struct serve_auth_key k = key_0_31 ();
    char tok[SERVE_AUTH_TOKEN_CHARS + 1];
    /* python3: hmac.new(bytes(range(32)), b"ccautoscale-autostop-v1\n4:test\n13:0a1b2c3d-node",
     *                   "sha256").hexdigest() */
    assert_int_equal (serve_auth_token (&k, "test", "0a1b2c3d-node", tok, NULL), 0);
    assert_string_equal (tok, "fbb6ab47235bcdcd0fc2649b6ce530fa9a5946f2d414ab6acda39780cbf1d543");
}

static void test_token_bound (void **state)
{
    (void)state;
    struct serve_auth_key k = key_0_31 (), other = key_0_31 ();
    struct ccas_error err = {""};
    char tok[SERVE_AUTH_TOKEN_CHARS + 1], t2[SERVE_AUTH_TOKEN_CHARS + 1];
    other.bytes[31] ^= 1;
    assert_int_equal (serve_auth_token (&k, "test", "id-1", tok, &err), 0);
    assert_true (serve_auth_token_ok (&k, "test", "id-1", tok));
    assert_false (serve_auth_token_ok (&k, "test", "id-2", tok));     /* another node */
    assert_false (serve_auth_token_ok (&k, "other", "id-1", tok));    /* another cluster */
    assert_false (serve_auth_token_ok (&other, "test", "id-1", tok)); /* another key */
    assert_false (serve_auth_token_ok (&k, "test", NULL, tok));
    assert_false (serve_auth_token_ok (&k, "test", "id-1", NULL));
    assert_false (serve_auth_token_ok (&k, "test", "id-1", ""));
    /* the cluster and the node id are separated: "a\nb" + "c" is not "a" + "b\nc" */
    assert_int_equal (serve_auth_token (&k, "a\nb", "c", t2, &err), 0);
    assert_false (serve_auth_token_ok (&k, "a", "b\nc", t2));
    /* every change of the token is refused: a digit, the case, its length */
    strcpy (t2, tok);
    for (size_t i = 0; i < SERVE_AUTH_TOKEN_CHARS; i += 7) {
        t2[i] = t2[i] == '0' ? '1' : '0';
        assert_false (serve_auth_token_ok (&k, "test", "id-1", t2));
        t2[i] = tok[i];
    }
    for (size_t i = 0; i < SERVE_AUTH_TOKEN_CHARS; i++)
        t2[i] = (char)(tok[i] >= 'a' ? tok[i] - 32 : tok[i]);
    assert_true (strcmp (t2, tok) != 0);
    assert_false (serve_auth_token_ok (&k, "test", "id-1", t2));
    strcpy (t2, tok);
    t2[SERVE_AUTH_TOKEN_CHARS - 1] = '\0';
    assert_false (serve_auth_token_ok (&k, "test", "id-1", t2));
    char longer[SERVE_AUTH_TOKEN_CHARS + 2];
    snprintf (longer, sizeof (longer), "%s0", tok);
    assert_false (serve_auth_token_ok (&k, "test", "id-1", longer));
    /* no NodeId: no token */
    assert_int_equal (serve_auth_token (&k, "test", NULL, tok, &err), -1);
    assert_non_null (strstr (err.text, "no NodeId"));
    assert_string_equal (tok, "");
}

static void test_address (void **state)
{
    (void)state;
    struct sockaddr_storage a = v4 ("10.1.0.5"), b = v6 ("::ffff:10.1.0.5"), c = v6 ("fd00::5");
    struct sockaddr_storage lo = v4 ("127.0.0.5");
    assert_true (serve_auth_address_is (SA (a), "10.1.0.5"));
    assert_false (serve_auth_address_is (SA (a), "10.1.0.6"));
    assert_false (serve_auth_address_is (SA (a), "10.1.0.5 "));
    assert_false (serve_auth_address_is (SA (a), "garbage"));
    assert_false (serve_auth_address_is (SA (a), NULL));
    assert_false (serve_auth_address_is (NULL, "10.1.0.5"));
    assert_true (serve_auth_address_is (SA (b), "10.1.0.5")); /* IPv4-mapped IPv6 */
    assert_false (serve_auth_address_is (SA (b), "10.1.0.6"));
    assert_true (serve_auth_address_is (SA (c), "fd00::5"));
    assert_true (serve_auth_address_is (SA (c), "fd00:0::5"));
    assert_false (serve_auth_address_is (SA (c), "fd00::6"));
    assert_false (serve_auth_address_is (SA (lo), "127.0.0.1"));
    struct sockaddr un = {.sa_family = AF_UNIX};
    assert_false (serve_auth_address_is (&un, "10.1.0.5"));
    char buf[64];
    assert_string_equal (serve_auth_address_text (SA (b), buf, sizeof (buf)), "10.1.0.5");
    assert_string_equal (serve_auth_address_text (SA (c), buf, sizeof (buf)), "fd00::5");
    assert_string_equal (serve_auth_address_text (NULL, buf, sizeof (buf)), "?");
}

static void test_bearer (void **state)
{
    (void)state;
    assert_string_equal (serve_auth_bearer ("Bearer abc"), "abc");
    assert_string_equal (serve_auth_bearer ("bearer \t abc"), "abc");
    assert_string_equal (serve_auth_bearer ("BEARER abc"), "abc");
    assert_null (serve_auth_bearer ("Bearerabc"));
    assert_null (serve_auth_bearer ("Basic YWRtaW46cHc="));
    assert_null (serve_auth_bearer ("Bear"));
    assert_null (serve_auth_bearer (""));
    assert_null (serve_auth_bearer (NULL));
}

static void test_check (void **state)
{
    (void)state;
    struct serve_auth_key k = key_0_31 ();
    struct serve_auth_node n = {.name = "htc-3", .node_id = "id-3", .private_ip = "10.1.0.5"};
    struct serve_auth_node booting = {.name = "htc-4", .node_id = "id-4", .private_ip = NULL};
    struct sockaddr_storage self = v4 ("10.1.0.5"), other = v4 ("10.1.0.9");
    char tok[SERVE_AUTH_TOKEN_CHARS + 1], hdr[100], why[600];
    const enum ccas_conf_serve_auth either = CCAS_CONF_SERVE_AUTH_ADDRESS_OR_TOKEN,
                                    only = CCAS_CONF_SERVE_AUTH_TOKEN;
    assert_int_equal (serve_auth_token (&k, "test", "id-3", tok, NULL), 0);
    snprintf (hdr, sizeof (hdr), "Bearer %s", tok);

    /* denied, each with its reason */
    assert_int_equal (serve_auth_check (&k, either, "test", &n, SA (other), NULL, why, sizeof (why)),
                      SERVE_AUTH_DENIED);
    assert_string_equal (why, "the request comes from 10.1.0.9, not from node 'htc-3', and carries no token");
    assert_int_equal (serve_auth_check (&k, either, "test", &n, SA (self), "Bearer 00", why, sizeof (why)),
                      SERVE_AUTH_DENIED); /* a wrong token is judged, even from the node's own address */
    assert_string_equal (why, "the token is not that of node 'htc-3'");
    assert_int_equal (serve_auth_check (&k, either, "test", &n, SA (self), "Basic eDp5", why, sizeof (why)),
                      SERVE_AUTH_DENIED);
    assert_string_equal (why, "the Authorization header is not 'Bearer TOKEN'");
    assert_int_equal (serve_auth_check (&k, only, "test", &n, SA (self), NULL, why, sizeof (why)),
                      SERVE_AUTH_DENIED);
    assert_non_null (strstr (why, "serve.auth is 'token'"));
    assert_int_equal (serve_auth_check (&k, either, "test", &booting, SA (other), NULL, why, sizeof (why)),
                      SERVE_AUTH_DENIED);
    assert_string_equal (
        why, "node 'htc-4' has no private address yet and the request from 10.1.0.9 carries no token");
    /* another node's token */
    assert_int_equal (serve_auth_check (&k, either, "test", &booting, SA (other), hdr, why, sizeof (why)),
                      SERVE_AUTH_DENIED);
    assert_null (strstr (why, tok));
    /* another cluster's */
    assert_int_equal (serve_auth_check (&k, either, "prod", &n, SA (other), hdr, why, sizeof (why)),
                      SERVE_AUTH_DENIED);

    /* allowed */
    assert_int_equal (serve_auth_check (&k, either, "test", &n, SA (self), NULL, why, sizeof (why)),
                      SERVE_AUTH_BY_ADDRESS);
    assert_int_equal (serve_auth_check (&k, either, "test", &n, SA (other), hdr, why, sizeof (why)),
                      SERVE_AUTH_BY_TOKEN);
    assert_int_equal (serve_auth_check (&k, only, "test", &n, SA (other), hdr, why, sizeof (why)),
                      SERVE_AUTH_BY_TOKEN);
}

static void path_of (char *buf, size_t size, const char *name)
{
    snprintf (buf, size, "%s/%s", dir, name);
}

static void write_file (const char *path, const char *text, mode_t mode)
{
    unlink (path);
    int fd = open (path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true (fd >= 0);
    assert_int_equal (write (fd, text, strlen (text)), (ssize_t)strlen (text));
    close (fd);
    assert_int_equal (chmod (path, mode), 0);
}

static void test_key_file (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct serve_auth_key a, b;
    struct stat st;
    char path[300], text[200];
    path_of (path, sizeof (path), "sub/dir/serve-token.key");

    assert_int_equal (serve_auth_key_load (path, false, &a, &err), -1);
    assert_non_null (strstr (err.text, "no token key"));
    assert_int_equal (serve_auth_key_load (path, true, &a, &err), 0);
    assert_int_equal (stat (path, &st), 0);
    assert_int_equal (st.st_mode & 07777, 0600);
    assert_int_equal (st.st_size, 65);
    assert_int_equal (serve_auth_key_load (path, true, &b, &err), 0);
    assert_memory_equal (a.bytes, b.bytes, SERVE_AUTH_KEY_BYTES);
    /* no temporary file is left beside it */
    path_of (text, sizeof (text), "sub/dir");
    char cmd[400];
    snprintf (cmd, sizeof (cmd), "test $(ls -A %s | wc -l) = 1", text);
    assert_int_equal (system (cmd), 0);

    /* group or others may read it: refused, naming the mode and the fix */
    assert_int_equal (chmod (path, 0640), 0);
    assert_int_equal (serve_auth_key_load (path, true, &b, &err), -1);
    assert_non_null (strstr (err.text, "has mode 0640 (group or others may read it)"));
    assert_non_null (strstr (err.text, "chmod 600"));
    assert_int_equal (chmod (path, 0600), 0);

    /* through a symlink: refused, not followed */
    char link_path[300];
    path_of (link_path, sizeof (link_path), "link.key");
    assert_int_equal (symlink (path, link_path), 0);
    assert_int_equal (serve_auth_key_load (link_path, true, &b, &err), -1);
    assert_non_null (strstr (err.text, "link.key"));

    /* garbled, short, a directory */
    static const char *const garbled[] = {
        "", "abc\n", "zz00000000000000000000000000000000000000000000000000000000000000\n",
        "0000000000000000000000000000000000000000000000000000000000000000 extra\n"};
    path_of (text, sizeof (text), "bad.key");
    for (size_t i = 0; i < sizeof (garbled) / sizeof (garbled[0]); i++) {
        write_file (text, garbled[i], 0600);
        assert_int_equal (serve_auth_key_load (text, true, &b, &err), -1);
        assert_non_null (strstr (err.text, "not a token key"));
    }
    write_file (text, "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f\r\n", 0600);
    assert_int_equal (serve_auth_key_load (text, false, &b, &err), 0);
    struct serve_auth_key k = key_0_31 ();
    assert_memory_equal (b.bytes, k.bytes, SERVE_AUTH_KEY_BYTES);
    path_of (text, sizeof (text), "sub");
    assert_int_equal (serve_auth_key_load (text, true, &b, &err), -1);
    assert_non_null (strstr (err.text, "not a regular file"));
}

/* Eight processes make the key at once: all end with one key, the file's. */
static void test_key_race (void **state)
{
    (void)state;
    char path[300];
    int fds[8][2];
    path_of (path, sizeof (path), "race.key");
    for (int i = 0; i < 8; i++) {
        assert_int_equal (pipe (fds[i]), 0);
        pid_t pid = fork ();
        assert_true (pid >= 0);
        if (pid == 0) {
            struct serve_auth_key k;
            struct ccas_error err = {""};
            if (serve_auth_key_load (path, true, &k, &err) < 0)
                _exit (1);
            _exit (write (fds[i][1], k.bytes, sizeof (k.bytes)) == (ssize_t)sizeof (k.bytes) ? 0 : 1);
        }
        close (fds[i][1]);
    }
    struct serve_auth_key file, got;
    struct ccas_error err = {""};
    for (int i = 0; i < 8; i++) {
        int status;
        assert_true (wait (&status) > 0);
        assert_true (WIFEXITED (status) && WEXITSTATUS (status) == 0);
    }
    assert_int_equal (serve_auth_key_load (path, false, &file, &err), 0);
    for (int i = 0; i < 8; i++) {
        assert_int_equal (read (fds[i][0], got.bytes, sizeof (got.bytes)), (ssize_t)sizeof (got.bytes));
        assert_memory_equal (got.bytes, file.bytes, SERVE_AUTH_KEY_BYTES);
        close (fds[i][0]);
    }
}

static int setup (void **state)
{
    (void)state;
    return mkdtemp (dir) ? 0 : -1;
}

static int teardown (void **state)
{
    (void)state;
    char cmd[300];
    snprintf (cmd, sizeof (cmd), "rm -rf %s", dir);
    return system (cmd) == 0 ? 0 : -1;
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_token_vector), cmocka_unit_test (test_token_bound),
        cmocka_unit_test (test_address),      cmocka_unit_test (test_bearer),
        cmocka_unit_test (test_check),        cmocka_unit_test (test_key_file),
        cmocka_unit_test (test_key_race),
    };
    return cmocka_run_group_tests (tests, setup, teardown);
}
