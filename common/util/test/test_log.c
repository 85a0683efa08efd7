/* SPDX-License-Identifier: MIT */
/* test_log.c: secrets are masked in place, never growing the text. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "util/log.h"

/* Redact `text` in place in a buffer of exactly `size` bytes, with `secret`
 * the only one registered, and compare with `want`. */
static void check_redact (const char *secret, const char *text, size_t size, const char *want)
{
    char buf[128];
    assert_true (size <= sizeof (buf) && strlen (text) < size);
    memset (buf, 'X', sizeof (buf)); /* what lies past `size` must survive */
    strcpy (buf, text);
    ccas_log_add_secret (secret);
    ccas_log_redact (buf, size);
    assert_string_equal (buf, want);
    for (size_t i = size; i < sizeof (buf); i++)
        assert_int_equal (buf[i], 'X');
    ccas_log_close ();
}

static void test_redact_masks_every_secret (void **state)
{
    (void)state;
    check_redact ("s3cret-pw", "user=admin password=s3cret-pw again s3cret-pw end", 128,
                  "user=admin password=**** again **** end");
}

static void test_redact_short_secret_never_grows (void **state)
{
    (void)state;
    /* the secret ends the text in a buffer just big enough: a mask longer
     * than the secret would write past the terminator */
    check_redact ("abc", "pw=abc", 7, "pw=***");
    check_redact ("abc", "abc;abc;x", 16, "***;***;x");
}

static void test_too_short_is_not_a_secret (void **state)
{
    (void)state;
    /* masking 2 letters would mask half of every log line */
    check_redact ("ab", "ab is everywhere: ab", 32, "ab is everywhere: ab");
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_redact_masks_every_secret),
        cmocka_unit_test (test_redact_short_secret_never_grows),
        cmocka_unit_test (test_too_short_is_not_a_secret),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
