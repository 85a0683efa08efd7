/* SPDX-License-Identifier: MIT */
/* test_pbs_qmgr.c: qmgr's list output read (pbs_qmgr.c) — records and their
 * attributes as a real OpenPBS prints them, a wrapped value, blank and odd
 * lines, nothing at all. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pbs_qmgr.h"
#include "util/json.h"

/* `qmgr -c "list hook"` and `list sched` of OpenPBS 23.06.06 (cd7ab5eda),
 * with a value wrapped as qmgr wraps long ones */
static const char listing[] = "Hook autoscale\n"
                              "    type = site\n"
                              "    enabled = true\n"
                              "    event = periodic\n"
                              "    user = pbsadmin\n"
                              "    alarm = 30\n"
                              "    freq = 120\n"
                              "\n"
                              "Hook ccautoscale\n"
                              "    enabled = false\n"
                              "\n"
                              "Sched default\n"
                              "    sched_host = vm\n"
                              "    preempt_prio = express_queue, normal_jobs\n"
                              "    sched_priv = /var/spool/pbs/sched_priv\n"
                              "    only_explicit_psets = True\n"
                              "    log_filter = a,\n"
                              "        b,\n"
                              "        c\n"
                              "    odd line without an equals sign\n";

static void test_qmgr_parse (void **state)
{
    (void)state;
    json_object *l = ccas_pbs_qmgr_parse (listing);
    assert_non_null (l);
    assert_int_equal (json_object_object_length (l), 3);
    assert_string_equal (ccas_pbs_qmgr_attr (l, "autoscale", "kind"), "Hook");
    assert_string_equal (ccas_pbs_qmgr_attr (l, "autoscale", "enabled"), "true");
    assert_string_equal (ccas_pbs_qmgr_attr (l, "autoscale", "freq"), "120");
    assert_string_equal (ccas_pbs_qmgr_attr (l, "ccautoscale", "enabled"), "false");
    assert_null (ccas_pbs_qmgr_attr (l, "ccautoscale", "freq"));
    assert_string_equal (ccas_pbs_qmgr_attr (l, "default", "kind"), "Sched");
    assert_string_equal (ccas_pbs_qmgr_attr (l, "default", "preempt_prio"), "express_queue, normal_jobs");
    assert_string_equal (ccas_pbs_qmgr_attr (l, "default", "only_explicit_psets"), "True");
    assert_string_equal (ccas_pbs_qmgr_attr (l, "default", "log_filter"), "a, b, c");
    assert_null (ccas_pbs_qmgr_attr (l, "nosuch", "enabled"));
    json_object_put (l);

    /* nothing, or what is not qmgr's */
    l = ccas_pbs_qmgr_parse ("");
    assert_int_equal (json_object_object_length (l), 0);
    json_object_put (l);
    l = ccas_pbs_qmgr_parse (NULL);
    assert_int_equal (json_object_object_length (l), 0);
    json_object_put (l);
    l = ccas_pbs_qmgr_parse ("    orphan = attribute\nqmgr: hook error returned from server\n");
    assert_int_equal (json_object_object_length (l), 1); /* "qmgr:" reads as a record of no attributes */
    json_object_put (l);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_qmgr_parse),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
