/* SPDX-License-Identifier: MIT */
/* test_pbs_sched.c: the scheduler's sched_config as install-hook checks it
 * (pbs_sched.c) — which of ccautoscale's resources its resources: line
 * leaves out and the line to write instead, and where PBS keeps the file. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "pbs_sched.h"

static void test_sched_config (void **state)
{
    (void)state;
    static const char *const wanted[] = {"slot_type", "ungrouped", "ngpus", NULL};
    char missing[128], line[512];
    /* PBS's default: ours missing; the line keeps what it had, ours appended */
    static const char dflt[] = "# resources: \"ncpus, slot_type\"\n"
                               "resources: \"ncpus, mem, arch, host, vnode, aoe, eoe\"\n"
                               "smp_cluster_dist: pack\n";
    assert_int_equal (ccas_pbs_sched_check (dflt, wanted, missing, sizeof (missing), line, sizeof (line)), 3);
    assert_string_equal (missing, "slot_type, ungrouped, ngpus");
    assert_string_equal (
        line, "resources: \"ncpus, mem, arch, host, vnode, aoe, eoe, slot_type, ungrouped, ngpus\"");
    /* some there (spacing as a site wrote it), the last line counts */
    static const char some[] = "resources: \"ncpus\"\nresources: \"ncpus,mem, ngpus,slot_type_x\"\r\n";
    assert_int_equal (ccas_pbs_sched_check (some, wanted, missing, sizeof (missing), line, sizeof (line)), 2);
    assert_string_equal (missing, "slot_type, ungrouped");
    assert_string_equal (line, "resources: \"ncpus, mem, ngpus, slot_type_x, slot_type, ungrouped\"");
    /* all there, or no line (the scheduler then checks every resource) */
    static const char all[] = "resources: \"ncpus, ungrouped, slot_type, ngpus\"\n";
    assert_int_equal (ccas_pbs_sched_check (all, wanted, missing, sizeof (missing), line, sizeof (line)), 0);
    assert_int_equal (ccas_pbs_sched_check ("smp_cluster_dist: pack\n", wanted, missing, sizeof (missing),
                                            line, sizeof (line)),
                      0);
    assert_int_equal (ccas_pbs_sched_check ("", wanted, missing, sizeof (missing), line, sizeof (line)), 0);
}

/* What install-hook checks for: every resource ccautoscale's matching
 * relies on, against PBS's shipped line; a line written without quotes. */
static void test_sched_resources (void **state)
{
    (void)state;
    char missing[256], line[512];
    static const char shipped[] = "resources: \"ncpus, mem, arch, host, vnode, aoe, eoe\"\n";
    assert_int_equal (ccas_pbs_sched_check (shipped, ccas_pbs_sched_resources, missing, sizeof (missing),
                                            line, sizeof (line)),
                      7);
    assert_string_equal (missing, "slot_type, group_id, ungrouped, disk, ngpus, nodearray, vm_size");
    assert_string_equal (line, "resources: \"ncpus, mem, arch, host, vnode, aoe, eoe, slot_type, group_id, "
                               "ungrouped, disk, ngpus, nodearray, vm_size\"");
    static const char bare[] = "resources: ncpus, slot_type,group_id\n";
    static const char *const wanted[] = {"slot_type", "group_id", "ngpus", NULL};
    assert_int_equal (ccas_pbs_sched_check (bare, wanted, missing, sizeof (missing), line, sizeof (line)), 1);
    assert_string_equal (missing, "ngpus");
    assert_string_equal (line, "resources: \"ncpus, slot_type, group_id, ngpus\"");
}

static void test_sched_config_path (void **state)
{
    (void)state;
    char path[512], conf[] = "/tmp/test_pbs_conf.XXXXXX";
    int fd = mkstemp (conf);
    assert_true (fd >= 0);
    assert_true (write (fd, "PBS_EXEC=/opt/pbs\nPBS_HOME=/site/pbs\n", 36) == 36);
    close (fd);
    unsetenv ("PBS_HOME");
    setenv ("PBS_CONF_FILE", conf, 1);
    ccas_pbs_sched_config_path (path, sizeof (path));
    assert_string_equal (path, "/site/pbs/sched_priv/sched_config");
    setenv ("PBS_HOME", "/env/pbs", 1);
    ccas_pbs_sched_config_path (path, sizeof (path));
    assert_string_equal (path, "/env/pbs/sched_priv/sched_config");
    unsetenv ("PBS_HOME");
    setenv ("PBS_CONF_FILE", "/nonexistent/pbs.conf", 1);
    ccas_pbs_sched_config_path (path, sizeof (path));
    assert_string_equal (path, "/var/spool/pbs/sched_priv/sched_config");
    unsetenv ("PBS_CONF_FILE");
    unlink (conf);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_sched_config),
        cmocka_unit_test (test_sched_resources),
        cmocka_unit_test (test_sched_config_path),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
