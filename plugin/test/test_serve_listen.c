/* SPDX-License-Identifier: MIT */
/* test_serve_listen.c: the address the service listens on — bad forms
 * refused with the text named, IPv4 and IPv6 parsed, loopback told apart. */
#include "config.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "serve_listen.h"

static void test_bad (void **state)
{
    (void)state;
    static const struct {
        const char *text, *error;
    } bad[] = {
        {"", "give ADDR:PORT"},
        {"9443", "give ADDR:PORT"},
        {":9443", "no address before the port"},
        {"0.0.0.0:", "the port must be a number from 0 to 65535"},
        {"0.0.0.0:65536", "the port must be a number from 0 to 65535"},
        {"0.0.0.0:-1", "the port must be a number from 0 to 65535"},
        {"0.0.0.0: 80", "the port must be a number from 0 to 65535"},
        {"0.0.0.0:80x", "the port must be a number from 0 to 65535"},
        {"0.0.0.0:99999999999999999999", "the port must be a number from 0 to 65535"},
        {"localhost:9443", "'localhost' is not an IPv4 address (IPv6 goes in brackets)"},
        {"::1:9443", "is not an IPv4 address"},
        {"[::1]9443", "give [IPv6]:PORT"},
        {"[::1:9443", "give [IPv6]:PORT"},
        {"[]:9443", "no address before the port"},
        {"[10.0.0.1]:9443", "'10.0.0.1' is not an IPv6 address"},
        {"10.0.0.256:9443", "is not an IPv4 address"},
    };
    for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
        struct ccas_error err = {""};
        struct sockaddr_storage a;
        bool lo;
        if (serve_listen_parse (bad[i].text, &a, &lo, &err) != -1 || !strstr (err.text, bad[i].error))
            fail_msg ("'%s': error '%s', wanted '%s'", bad[i].text, err.text, bad[i].error);
        if (!strstr (err.text, bad[i].text))
            fail_msg ("'%s': the error does not name it: '%s'", bad[i].text, err.text);
    }
    struct ccas_error err = {""};
    struct sockaddr_storage a;
    bool lo;
    assert_int_equal (serve_listen_parse (NULL, &a, &lo, &err), -1);
}

static void test_good (void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int family, port;
        bool loopback;
    } good[] = {
        {"0.0.0.0:9443", AF_INET, 9443, false},    {"127.0.0.1:0", AF_INET, 0, true},
        {"127.9.8.7:65535", AF_INET, 65535, true}, {"10.1.0.4:80", AF_INET, 80, false},
        {"[::1]:9443", AF_INET6, 9443, true},      {"[::]:1", AF_INET6, 1, false},
        {"[fd00::5]:9443", AF_INET6, 9443, false},
    };
    for (size_t i = 0; i < sizeof (good) / sizeof (good[0]); i++) {
        struct ccas_error err = {""};
        struct sockaddr_storage a;
        bool lo = !good[i].loopback;
        if (serve_listen_parse (good[i].text, &a, &lo, &err) != 0)
            fail_msg ("'%s' refused: %s", good[i].text, err.text);
        assert_int_equal (a.ss_family, good[i].family);
        assert_int_equal (lo, good[i].loopback);
        if (good[i].family == AF_INET) {
            struct sockaddr_in v4;
            memcpy (&v4, &a, sizeof (v4));
            assert_int_equal (ntohs (v4.sin_port), good[i].port);
        } else {
            struct sockaddr_in6 v6;
            memcpy (&v6, &a, sizeof (v6));
            assert_int_equal (ntohs (v6.sin6_port), good[i].port);
        }
    }
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_bad),
        cmocka_unit_test (test_good),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
