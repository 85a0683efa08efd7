/* SPDX-License-Identifier: MIT */
/* test_log.c: secrets are masked in place, never growing the text. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "log.h"

static void test_redact_masks_every_secret (void **state)
{
    (void)state;
    char text[128] = "user=admin password=s3cret-pw again s3cret-pw end";
    ccas_log_add_secret ("s3cret-pw");
    ccas_log_redact (text, sizeof (text));
    assert_string_equal (text, "user=admin password=**** again **** end");
    ccas_log_close ();
}

static void test_redact_short_secret_never_grows (void **state)
{
    (void)state;
    /* the secret fills the buffer to its end: a mask longer than the secret
     * would write past the terminator */
    char text[8] = "pw=abc";
    ccas_log_add_secret ("abc");
    ccas_log_redact (text, sizeof (text));
    assert_string_equal (text, "pw=***");
    char text2[16] = "abc;abc;x";
    ccas_log_redact (text2, sizeof (text2));
    assert_string_equal (text2, "***;***;x");
    ccas_log_close ();
}

static void test_too_short_is_not_a_secret (void **state)
{
    (void)state;
    char text[32] = "ab is everywhere: ab";
    ccas_log_add_secret ("ab"); /* masking 2 letters would mask half of every log line */
    ccas_log_redact (text, sizeof (text));
    assert_string_equal (text, "ab is everywhere: ab");
    ccas_log_close ();
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
