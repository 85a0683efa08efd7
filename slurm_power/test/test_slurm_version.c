/* SPDX-License-Identifier: MIT */
/* test_slurm_version.c: Slurm version strings, and what each release does
 * differently (reconfigure and nodes, addresses set at registration, live
 * SuspendExcNodes). */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "slurm_version.h"

static void test_parse_refuses_what_is_not_a_version (void **state)
{
    (void)state;
    static const char *const bad[] = {"",       "25",    "25.",     ".11",   "x25.11",     "25.11.x",
                                      "25.11 ", "256.1", "25.1234", "slurm", "slurm25.11", "25.11.7.1"};
    for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
        struct ccas_error err = {""};
        unsigned v = 7;
        if (ccas_slurm_version_parse (bad[i], &v, &err) != -1)
            fail_msg ("'%s' was taken for a version", bad[i]);
        assert_int_equal (v, 7); /* untouched */
        assert_non_null (strstr (err.text, "not a Slurm version"));
    }
    struct ccas_error err = {""};
    unsigned v;
    assert_int_equal (ccas_slurm_version_parse (NULL, &v, &err), -1);
}

static void test_parse (void **state)
{
    (void)state;
    unsigned v = 0;
    assert_int_equal (ccas_slurm_version_parse ("25.11.7", &v, NULL), 0);
    assert_int_equal (v, 0x190b07); /* SLURM_VERSION_NUMBER of 25.11.7 */
    assert_int_equal (ccas_slurm_version_parse ("22.05.8", &v, NULL), 0);
    assert_int_equal (v, 0x160508);
    assert_int_equal (ccas_slurm_version_parse ("23.11", &v, NULL), 0);
    assert_int_equal (v, CCAS_SLURM_VERSION (23, 11, 0));
    assert_int_equal (ccas_slurm_version_parse ("slurm 24.05.3", &v, NULL), 0);
    assert_int_equal (v, CCAS_SLURM_VERSION (24, 5, 3));
    assert_int_equal (ccas_slurm_version_parse ("25.11.0-0rc1", &v, NULL), 0);
    assert_int_equal (v, CCAS_SLURM_VERSION (25, 11, 0));
}

static void test_traits_by_release (void **state)
{
    (void)state;
    struct ccas_slurm_traits t;
    ccas_slurm_traits_init (&t, CCAS_SLURM_VERSION (22, 5, 8), "idle_on_node_suspend");
    assert_string_equal (t.text, "22.05.8");
    assert_false (t.reconfigure_applies_nodes);
    assert_false (t.sets_cloud_addrs);
    assert_false (t.cloud_settings_defunct);
    assert_false (t.live_suspend_exc);
    assert_false (t.dynamic_topology);
    /* 22.05 sets the addresses itself only when told to */
    ccas_slurm_traits_init (&t, CCAS_SLURM_VERSION (22, 5, 8), "idle_on_node_suspend,cloud_reg_addrs");
    assert_true (t.sets_cloud_addrs);
    ccas_slurm_traits_init (&t, CCAS_SLURM_VERSION (22, 5, 8), "cloud_reg_addrs_x,cloud_dns");
    assert_false (t.sets_cloud_addrs);
    /* slurmctld reads SlurmctldParameters in any case */
    ccas_slurm_traits_init (&t, CCAS_SLURM_VERSION (22, 5, 8), "cloud_dns,CLOUD_REG_ADDRS");
    assert_true (t.sets_cloud_addrs);
    ccas_slurm_traits_init (&t, CCAS_SLURM_VERSION (22, 5, 8), NULL);
    assert_false (t.sets_cloud_addrs);
    ccas_slurm_traits_init (&t, CCAS_SLURM_VERSION (23, 2, 0), "");
    assert_true (t.live_suspend_exc);
    assert_false (t.reconfigure_applies_nodes);
    ccas_slurm_traits_init (&t, CCAS_SLURM_VERSION (23, 11, 0), NULL);
    assert_true (t.reconfigure_applies_nodes);
    assert_true (t.sets_cloud_addrs);
    assert_true (t.cloud_settings_defunct);
    ccas_slurm_traits_init (&t, CCAS_SLURM_VERSION (25, 5, 8), NULL);
    assert_false (t.dynamic_topology);
    ccas_slurm_traits_init (&t, CCAS_SLURM_VERSION (25, 11, 7), "power_save_interval=1");
    assert_string_equal (t.text, "25.11.7");
    assert_true (t.reconfigure_applies_nodes && t.sets_cloud_addrs && t.live_suspend_exc);
    assert_true (t.dynamic_topology);
}

/* A word of a Slurm list: whole, in any case, alone or with a value. */
static void test_list_has (void **state)
{
    (void)state;
    assert_true (ccas_slurm_list_has ("CLOUD,DOWN", "CLOUD"));
    assert_true (ccas_slurm_list_has ("down,cloud", "CLOUD"));
    assert_true (ccas_slurm_list_has ("power_save_interval=1,cloud_dns", "power_save_interval"));
    assert_false (ccas_slurm_list_has ("cloudy,down", "CLOUD"));
    assert_false (ccas_slurm_list_has ("xcloud", "cloud"));
    assert_false (ccas_slurm_list_has ("", "cloud"));
    assert_false (ccas_slurm_list_has (NULL, "cloud"));
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_parse_refuses_what_is_not_a_version),
        cmocka_unit_test (test_parse),
        cmocka_unit_test (test_traits_by_release),
        cmocka_unit_test (test_list_has),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
