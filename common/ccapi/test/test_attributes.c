/* SPDX-License-Identifier: MIT */
/* test_attributes.c: the node and nodearray attributes of CycleCloud's
 * cluster template reference — found by name, dotted and nested, their
 * types checked with the key in the reason, the dotted form nested. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "ccapi/attributes.h"

static void test_find (void **state)
{
    (void)state;
    static const struct {
        const char *key;
        enum ccas_attr_use use; /* -1: unknown */
    } cases[] = {
        {"ImageName", CCAS_ATTR_PASS},
        {"Priority", CCAS_ATTR_PASS},
        {"Azure", CCAS_ATTR_PASS},
        {"Azure.Publisher", CCAS_ATTR_PASS},
        {"Tags.owner", CCAS_ATTR_PASS},
        {"ComputerName", CCAS_ATTR_REFUSED},
        {"PlacementGroupId", CCAS_ATTR_REFUSED},
        {"InitialCount", CCAS_ATTR_REFUSED},
        {"MaxCount", CCAS_ATTR_READ},
        {"Interruptible", CCAS_ATTR_READ},
        {"Colour", (enum ccas_attr_use) - 1},
        {"Azure.Colour", (enum ccas_attr_use) - 1},
        {"Tags.a.b", (enum ccas_attr_use) - 1},
        {"Tags.", (enum ccas_attr_use) - 1},
        {"imagename", (enum ccas_attr_use) - 1},
        {"", (enum ccas_attr_use) - 1},
    };
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        const struct ccas_attribute *a = ccas_attributes_find (cases[i].key);
        if ((int)cases[i].use < 0) {
            if (a)
                fail_msg ("'%s' found as '%s'", cases[i].key, a->name);
            continue;
        }
        if (!a)
            fail_msg ("'%s' not found", cases[i].key);
        assert_int_equal (a->use, cases[i].use);
        assert_true (a->use != CCAS_ATTR_REFUSED || a->why);
    }
    assert_null (ccas_attributes_find (NULL));
}

static void test_check (void **state)
{
    (void)state;
    static const struct {
        const char *key, *json, *why; /* why NULL: of its type */
    } cases[] = {
        {"ImageName", "\"cycle.image.ubuntu22\"", NULL},
        {"ImageName", "4", "ImageName: expected a string, got 4"},
        {"Priority", "10", NULL},
        {"Priority", "10.0", NULL},
        {"Priority", "10.5", "Priority: expected an integer, got 10.5"},
        {"KeepAlive", "true", NULL},
        {"KeepAlive", "\"true\"", "KeepAlive: expected true or false, got \"true\""},
        {"MaxPrice", "0.5", NULL},
        {"ThrottleCapacityTime", "\"5m\"", NULL},
        {"Zone", "[\"1\", \"3\"]", NULL},
        {"Zone", "2", NULL},
        {"Zone", "[]", "Zone: expected a string or a list of them, got an empty list"},
        {"Zone", "[true]", "Zone[0]: expected a string, got true"},
        {"Azure", "{\"Publisher\": \"Canonical\", \"MaxScaleSetSize\": 40}", NULL},
        {"Azure", "{\"Colour\": \"red\"}", "Azure.Colour: CycleCloud has no such attribute"},
        {"Azure", "{\"SingleScaleset\": 1}", "Azure.SingleScaleset: expected true or false, got 1"},
        {"Azure", "\"x\"", "Azure: expected an object, got \"x\""},
        {"Tags", "{\"owner\": \"hpc\", \"cost\": \"42\"}", NULL},
        {"Tags", "{\"owner\": {\"x\": 1}}", "Tags.owner: expected a string, got {\"x\":1}"},
    };
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        char why[200] = "";
        json_object *v = json_tokener_parse (cases[i].json);
        const struct ccas_attribute *a = ccas_attributes_find (cases[i].key);
        assert_non_null (a);
        bool ok = ccas_attributes_check (a, cases[i].key, v, why, sizeof (why));
        if (cases[i].why ? ok || strcmp (why, cases[i].why) != 0 : !ok)
            fail_msg ("case %zu (%s = %s): %s '%s'", i, cases[i].key, cases[i].json,
                      ok ? "accepted" : "refused", why);
        json_object_put (v);
    }
}

/* The dotted form is nested, merged with what is there; a member on the
 * way that is not an object is an error. */
static void test_put (void **state)
{
    (void)state;
    json_object *attrs = json_object_new_object ();
    assert_int_equal (ccas_attributes_put (attrs, "ImageName", json_object_new_string ("img")), 0);
    assert_int_equal (ccas_attributes_put (attrs, "Azure.Publisher", json_object_new_string ("Canonical")),
                      0);
    assert_int_equal (ccas_attributes_put (attrs, "Azure", json_tokener_parse ("{\"Sku\": \"22_04\"}")), 0);
    assert_int_equal (ccas_attributes_put (attrs, "Tags.owner", json_object_new_string ("hpc")), 0);
    assert_string_equal (json_object_to_json_string_ext (attrs, JSON_C_TO_STRING_PLAIN),
                         "{\"ImageName\":\"img\",\"Azure\":{\"Publisher\":\"Canonical\",\"Sku\":\"22_04\"},"
                         "\"Tags\":{\"owner\":\"hpc\"}}");
    assert_int_equal (ccas_attributes_put (attrs, "ImageName.x", json_object_new_string ("y")), -1);
    json_object_put (attrs);
    char names[2048];
    ccas_attributes_names (CCAS_ATTR_REFUSED, names, sizeof (names));
    assert_string_equal (names,
                         "ComputerName, PlacementGroupId, IsReturnProxy, InitialCount, InitialCoreCount, "
                         "Abstract");
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_find),
        cmocka_unit_test (test_check),
        cmocka_unit_test (test_put),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
