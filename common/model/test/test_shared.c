/* SPDX-License-Identifier: MIT */
/* test_shared.c: cluster-wide resources — loaded from the configuration's
 * shared_resources with errors naming the entry, defined and redefined
 * with their strings copied, found by name. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "model/shared.h"

static void test_load_refuses (void **state)
{
    static const struct {
        const char *json;
        const char *want;
    } cases[] = {
        {"[]", "shared_resources: expected an object of name: value"},
        {"\"lic\"", "shared_resources: expected an object of name: value"},
        {"{\"lic\": -1}", "shared_resources.lic: a shared amount cannot be negative"},
        {"{\"a\": 1, \"lic\": -0.5}", "shared_resources.lic: a shared amount cannot be negative"},
        {"{\"lic\": [1]}", "shared_resources.lic: expected a number, string or boolean, got an array"},
        {"{\"lic\": {}}", "shared_resources.lic: expected a number, string or boolean, got an object"},
        {"{\"lic\": null}", "shared_resources.lic: expected a number, string or boolean, got null"},
        {"{\"scratch\": \"4gbb\"}", "shared_resources.scratch: '4gbb': unknown unit suffix 'gbb'"},
    };
    (void)state;
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        struct ccas_error err = {""};
        struct ccas_shared *s = ccas_shared_create ();
        json_object *o = json_tokener_parse (cases[i].json);
        assert_int_equal (ccas_shared_load (s, o, "shared_resources", &err), -1);
        if (strcmp (err.text, cases[i].want) != 0)
            fail_msg ("case %zu: '%s', want '%s'", i, err.text, cases[i].want);
        json_object_put (o);
        ccas_shared_destroy (s);
    }
    ccas_shared_destroy (NULL);
}

static void test_load (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct ccas_shared *s = ccas_shared_create ();
    assert_int_equal (ccas_shared_load (s, NULL, "shared_resources", &err), 0); /* none configured */
    assert_int_equal (ccas_shared_find (s, "matlab"), -1);
    json_object *o = json_tokener_parse ("{\"matlab\": 5, \"scratch\": \"100g\", \"version\": \"2.1\","
                                         " \"licensed\": true, \"zero\": 0}");
    assert_int_equal (ccas_shared_load (s, o, "shared_resources", &err), 0);
    json_object_put (o); /* strings were copied */
    struct ccas_value *v = ccas_shared_value (s, ccas_shared_find (s, "matlab"));
    assert_int_equal (v->type, CCAS_V_NUM);
    assert_true (v->u.num == 5);
    v = ccas_shared_value (s, ccas_shared_find (s, "scratch"));
    assert_int_equal (v->type, CCAS_V_NUM);
    assert_true (v->size);
    assert_true (v->u.num == 100.0 * 1024 * 1024 * 1024);
    v = ccas_shared_value (s, ccas_shared_find (s, "version"));
    assert_int_equal (v->type, CCAS_V_STR);
    assert_string_equal (v->u.str, "2.1");
    v = ccas_shared_value (s, ccas_shared_find (s, "licensed"));
    assert_int_equal (v->type, CCAS_V_BOOL);
    assert_true (v->u.b);
    assert_true (ccas_shared_value (s, ccas_shared_find (s, "zero"))->u.num == 0);
    assert_int_equal (ccas_shared_find (s, "MATLAB"), -1);
    assert_int_equal (ccas_shared_find (NULL, "matlab"), -1);

    /* a consumable is changed through its value */
    ccas_shared_value (s, ccas_shared_find (s, "matlab"))->u.num -= 2;
    assert_true (ccas_shared_value (s, ccas_shared_find (s, "matlab"))->u.num == 3);
    ccas_shared_destroy (s);
}

static void test_set (void **state)
{
    (void)state;
    struct ccas_shared *s = ccas_shared_create ();
    char name[16] = "lic", str[16] = "v1";
    assert_int_equal (ccas_shared_set (s, name, ccas_value_str (str)), 0);
    name[0] = 'X';
    str[0] = 'X';
    int i = ccas_shared_find (s, "lic");
    assert_int_equal (i, 0);
    assert_string_equal (ccas_shared_value (s, i)->u.str, "v1"); /* copied */
    /* redefined: the same index, the new value, the old string freed */
    assert_int_equal (ccas_shared_set (s, "lic", ccas_value_num (8)), 0);
    assert_int_equal (ccas_shared_find (s, "lic"), 0);
    assert_int_equal (ccas_shared_value (s, 0)->type, CCAS_V_NUM);
    assert_int_equal (ccas_shared_set (s, "lic", ccas_value_str ("v2")), 0);
    assert_int_equal (ccas_shared_set (s, "lic", ccas_value_str ("v3")), 0);
    assert_string_equal (ccas_shared_value (s, 0)->u.str, "v3");
    assert_int_equal (ccas_shared_set (s, "other", ccas_value_bool (false)), 0);
    assert_int_equal (ccas_shared_find (s, "other"), 1);
    ccas_shared_destroy (s);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_load_refuses),
        cmocka_unit_test (test_load),
        cmocka_unit_test (test_set),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
