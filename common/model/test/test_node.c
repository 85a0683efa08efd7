/* SPDX-License-Identifier: MIT */
/* test_node.c: node properties by name — every name parses to its
 * property and back, scalelib's spellings too, unknown names refused —
 * each property's value typed as constraints expect, with scalelib's
 * meaning (state is the Status, "Off" before creation; the node history's
 * times), and which nodes may take work. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "model/node.h"

static void test_parse_refuses (void **state)
{
    static const char *const bad[] = {"",    "vmsize", "VM_SIZE", "node.vm_size", "vm_size ", "nodearrays",
                                      "mem", "ncpus",  "?"};
    (void)state;
    for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++)
        if (ccas_node_prop_parse (bad[i]) != -1)
            fail_msg ("'%s' parsed", bad[i]);
    assert_string_equal (ccas_node_prop_name (CCAS_PROP_COUNT), "?");
    assert_string_equal (ccas_node_prop_name ((enum ccas_node_prop)999), "?");
}

static void test_names_round_trip (void **state)
{
    (void)state;
    for (int p = 0; p < CCAS_PROP_COUNT; p++) {
        const char *name = ccas_node_prop_name ((enum ccas_node_prop)p);
        assert_non_null (name);
        assert_string_not_equal (name, "?");
        assert_int_equal (ccas_node_prop_parse (name), p);
        for (int q = 0; q < p; q++) /* each name once */
            assert_string_not_equal (name, ccas_node_prop_name ((enum ccas_node_prop)q));
    }
    assert_int_equal (ccas_node_prop_parse ("machine_type"), CCAS_PROP_VM_SIZE);
    assert_int_equal (ccas_node_prop_parse ("region"), CCAS_PROP_LOCATION);
    assert_int_equal (ccas_node_prop_parse ("interruptible"), CCAS_PROP_SPOT);
}

static void test_values (void **state)
{
    (void)state;
    struct ccas_node n = {
        .name = "hpc-1",
        .hostname = "ip-0a000004",
        .node_id = "nid",
        .instance_id = "iid",
        .private_ip = "10.0.0.4",
        .nodearray = "hpc",
        .vm_size = "Standard_HB120rs_v3",
        .vm_family = "standardHBrsv3Family",
        .location = "westeurope",
        .placement_group = "pg0",
        .bucket_id = "b-hb",
        .status = "Ready",
        .state = "Started",
        .target_state = "Started",
        .vcpu_count = 120,
        .pcpu_count = 96,
        .cores_per_socket = 48,
        .gpu_count = 2,
        .memory = 4294967296.0,
        .infiniband = true,
        .spot = false,
        .keep_alive = true,
        .managed = true,
        .kind = CCAS_NODE_READY,
        .create_time = 86400,
        .last_match_time = 90000,
        .delete_time = 0,
        .create_time_remaining = -1,
    };
    char buf[64];
    setenv ("TZ", "UTC", 1); /* the *_time dates are local */
    tzset ();
    const struct {
        enum ccas_node_prop prop;
        enum ccas_vtype type;
        const char *str;
        double num;
        bool b;
    } cases[] = {
        {CCAS_PROP_NAME, CCAS_V_STR, "hpc-1", 0, false},
        {CCAS_PROP_HOSTNAME, CCAS_V_STR, "ip-0a000004", 0, false},
        {CCAS_PROP_NODEARRAY, CCAS_V_STR, "hpc", 0, false},
        {CCAS_PROP_VM_SIZE, CCAS_V_STR, "Standard_HB120rs_v3", 0, false},
        {CCAS_PROP_VM_FAMILY, CCAS_V_STR, "standardHBrsv3Family", 0, false},
        {CCAS_PROP_LOCATION, CCAS_V_STR, "westeurope", 0, false},
        {CCAS_PROP_PLACEMENT_GROUP, CCAS_V_STR, "pg0", 0, false},
        {CCAS_PROP_BUCKET_ID, CCAS_V_STR, "b-hb", 0, false},
        {CCAS_PROP_NODE_ID, CCAS_V_STR, "nid", 0, false},
        {CCAS_PROP_INSTANCE_ID, CCAS_V_STR, "iid", 0, false},
        {CCAS_PROP_PRIVATE_IP, CCAS_V_STR, "10.0.0.4", 0, false},
        {CCAS_PROP_STATUS, CCAS_V_STR, "Ready", 0, false},
        {CCAS_PROP_STATE, CCAS_V_STR, "Ready", 0, false}, /* scalelib's state is the Status */
        {CCAS_PROP_TARGET_STATE, CCAS_V_STR, "Started", 0, false},
        {CCAS_PROP_VCPU_COUNT, CCAS_V_NUM, NULL, 120, false},
        {CCAS_PROP_PCPU_COUNT, CCAS_V_NUM, NULL, 96, false},
        {CCAS_PROP_CORES_PER_SOCKET, CCAS_V_NUM, NULL, 48, false},
        {CCAS_PROP_GPU_COUNT, CCAS_V_NUM, NULL, 2, false},
        {CCAS_PROP_MEMORY, CCAS_V_NUM, NULL, 4294967296.0, false},
        {CCAS_PROP_INFINIBAND, CCAS_V_BOOL, NULL, 0, true},
        {CCAS_PROP_SPOT, CCAS_V_BOOL, NULL, 0, false},
        {CCAS_PROP_KEEP_ALIVE, CCAS_V_BOOL, NULL, 0, true},
        {CCAS_PROP_EXISTS, CCAS_V_BOOL, NULL, 0, true},
        {CCAS_PROP_COLOCATED, CCAS_V_BOOL, NULL, 0, true},
        {CCAS_PROP_MANAGED, CCAS_V_BOOL, NULL, 0, true},
        {CCAS_PROP_FQDN, CCAS_V_STR, "ip-0a000004", 0, false},
        {CCAS_PROP_HOSTNAME_OR_UUID, CCAS_V_STR, "ip-0a000004", 0, false},
        {CCAS_PROP_VERSION, CCAS_V_STR, "7.9", 0, false},
        {CCAS_PROP_CREATE_TIME, CCAS_V_STR, "1970-01-02 00:00:00", 0, false},
        {CCAS_PROP_CREATE_TIME_UNIX, CCAS_V_NUM, NULL, 86400, false},
        {CCAS_PROP_CREATE_TIME_REMAINING, CCAS_V_NUM, NULL, -1, false},
        {CCAS_PROP_LAST_MATCH_TIME, CCAS_V_STR, "1970-01-02 01:00:00", 0, false},
        {CCAS_PROP_LAST_MATCH_TIME_UNIX, CCAS_V_NUM, NULL, 90000, false},
        {CCAS_PROP_DELETE_TIME, CCAS_V_STR, "1970-01-01 00:00:00", 0, false},
        {CCAS_PROP_DELETE_TIME_UNIX, CCAS_V_NUM, NULL, 0, false},
    };
    assert_int_equal (sizeof (cases) / sizeof (cases[0]), CCAS_PROP_COUNT); /* every property */
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        struct ccas_value v = ccas_node_prop (&n, cases[i].prop, buf, sizeof (buf));
        if (v.type != cases[i].type)
            fail_msg ("%s: type %d", ccas_node_prop_name (cases[i].prop), v.type);
        if (v.type == CCAS_V_STR)
            assert_string_equal (v.u.str, cases[i].str);
        else if (v.type == CCAS_V_NUM)
            assert_true (v.u.num == cases[i].num);
        else
            assert_int_equal (v.u.b, cases[i].b);
        assert_int_equal (v.size, cases[i].prop == CCAS_PROP_MEMORY); /* memory prints as a size */
    }
    /* exists is TargetState Started: a deallocated node does not */
    n.target_state = "Deallocated";
    assert_false (ccas_node_prop (&n, CCAS_PROP_EXISTS, buf, sizeof (buf)).u.b);
    /* a potential node does not exist yet, is Off; one outside a group is
     * not colocated unless its bucket is; it has a uuid for a hostname */
    n.kind = CCAS_NODE_NEW;
    n.placement_group = NULL;
    n.hostname = NULL;
    n.colocated = false;
    assert_false (ccas_node_prop (&n, CCAS_PROP_EXISTS, buf, sizeof (buf)).u.b);
    assert_false (ccas_node_prop (&n, CCAS_PROP_COLOCATED, buf, sizeof (buf)).u.b);
    assert_string_equal (ccas_node_prop (&n, CCAS_PROP_STATE, buf, sizeof (buf)).u.str, "Off");
    assert_string_equal (ccas_node_prop (&n, CCAS_PROP_TARGET_STATE, buf, sizeof (buf)).u.str, "Off");
    n.colocated = true;
    assert_true (ccas_node_prop (&n, CCAS_PROP_COLOCATED, buf, sizeof (buf)).u.b);
    assert_int_equal (ccas_node_prop (&n, CCAS_PROP_HOSTNAME, buf, sizeof (buf)).type,
                      CCAS_V_NONE); /* unset: undefined */
    struct ccas_value id = ccas_node_prop (&n, CCAS_PROP_HOSTNAME_OR_UUID, buf, sizeof (buf));
    assert_ptr_equal (id.u.str, buf);
    assert_int_equal (strlen (id.u.str), 36);
    assert_int_equal (id.u.str[14], '4'); /* shaped as a version-4 uuid */
    n.vm_family = NULL;
    assert_string_equal (ccas_node_prop (&n, CCAS_PROP_VM_FAMILY, buf, sizeof (buf)).u.str, "unknown");
    assert_int_equal (ccas_node_prop (&n, CCAS_PROP_COUNT, buf, sizeof (buf)).type, CCAS_V_NONE);
}

static void test_resources_and_usable (void **state)
{
    (void)state;
    struct ccas_value res[2] = {{.type = CCAS_V_NUM, .u.num = 4}, {.type = CCAS_V_STR, .u.str = "x"}};
    struct ccas_node n = {.res = res, .nres = 2};
    assert_true (ccas_node_res (&n, 0)->u.num == 4);
    assert_string_equal (ccas_node_res (&n, 1)->u.str, "x");
    assert_int_equal (ccas_node_res (&n, 2)->type, CCAS_V_NONE); /* past the node's table */
    assert_int_equal (ccas_node_res (&n, -1)->type, CCAS_V_NONE);

    static const struct {
        enum ccas_node_kind kind;
        bool timed_out, usable;
    } cases[] = {
        {CCAS_NODE_READY, false, true},   {CCAS_NODE_BOOTING, false, true}, {CCAS_NODE_STOPPED, false, true},
        {CCAS_NODE_NEW, false, true},     {CCAS_NODE_FAILED, false, false}, {CCAS_NODE_GOING, false, false},
        {CCAS_NODE_BOOTING, true, false}, {CCAS_NODE_READY, true, false},
    };
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        n.kind = cases[i].kind;
        n.boot_timed_out = cases[i].timed_out;
        assert_int_equal (ccas_node_usable (&n), cases[i].usable);
    }
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_parse_refuses),
        cmocka_unit_test (test_names_round_trip),
        cmocka_unit_test (test_values),
        cmocka_unit_test (test_resources_and_usable),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
