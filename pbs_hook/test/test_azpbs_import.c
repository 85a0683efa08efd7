/* SPDX-License-Identifier: MIT */
/* test_azpbs_import.c: azpbs's autoscale.json made ccautoscale's
 * (azpbs_import.c) — the stock file generate_autoscale_json.sh writes, loaded
 * by ccautoscale's configuration afterwards; an odd one with strings for
 * numbers, Python regular expressions, per-nodearray settings, unknown keys;
 * bad input; the regular expressions translated or refused. */
#include "config.h"

#include <regex.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "azpbs_import.h"
#include "conf/conf.h"
#include "fixture.h"

/* The note of `key`, or NULL. */
static json_object *note_of (json_object *notes, const char *key)
{
    for (size_t i = 0; i < json_object_array_length (notes); i++) {
        json_object *n = json_object_array_get_idx (notes, i);
        if (strcmp (ccas_json_str (n, "key"), key) == 0)
            return n;
    }
    return NULL;
}

static void assert_note (json_object *notes, const char *key, const char *what, const char *why_part)
{
    json_object *n = note_of (notes, key);
    if (!n)
        fail_msg ("no note for %s", key);
    assert_string_equal (ccas_json_str (n, "what"), what);
    if (why_part && !strstr (ccas_json_str (n, "why"), why_part))
        fail_msg ("%s: '%s' does not say '%s'", key, ccas_json_str (n, "why"), why_part);
}

/* The stock file: what it says is carried or changed, what means nothing
 * here is left out with the reason, TLS named; ccautoscale loads the result. */
static void test_import_stock (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    json_object *notes = json_object_new_array ();
    json_object *azpbs = pf_json ("azpbs-autoscale.json");
    json_object *cfg = ccas_azpbs_import (azpbs, notes, &err);
    assert_non_null (cfg);
    assert_string_equal (ccas_json_str (cfg, "url"), "https://cyclecloud.example.com");
    assert_string_equal (ccas_json_str (cfg, "password"), "azpbs-secret");
    assert_int_equal (json_object_array_length (ccas_json_get (cfg, "default_resources")), 8);
    assert_true (json_object_get_boolean (ccas_json_get (cfg, "disable_default_resources")));
    assert_int_equal (json_object_get_int (ccas_json_get (cfg, "idle_timeout")), 300);
    assert_int_equal (json_object_get_int (ccas_json_get (cfg, "boot_timeout")), 3600);
    json_object *pbs = ccas_json_get (cfg, "pbs");
    assert_string_equal (
        json_object_to_json_string_ext (ccas_json_get (pbs, "ignore_queues"), JSON_C_TO_STRING_PLAIN),
        "[\"htcq\"]");
    /* host: read-only; group_id and vm_size: every join sets them */
    assert_string_equal (
        json_object_to_json_string_ext (ccas_json_get (pbs, "node_resources"), JSON_C_TO_STRING_PLAIN),
        "[\"ncpus\",\"ngpus\",\"disk\",\"slot_type\",\"mem\"]");
    assert_null (ccas_json_get (pbs, "valid_hostnames")); /* ".+": every hostname */
    assert_null (ccas_json_get (cfg, "lock_file"));
    assert_null (ccas_json_get (cfg, "logging"));
    assert_null (ccas_json_get (cfg, "verify_certificates"));
    assert_note (notes, "lock_file", CCAS_AZPBS_DROPPED, "ccautoscale takes its own");
    assert_note (notes, "logging.config_file", CCAS_AZPBS_DROPPED, "Python logging INI");
    assert_note (notes, "valid_hostnames", CCAS_AZPBS_DROPPED, "every hostname");
    assert_note (notes, "verify_certificates", CCAS_AZPBS_CHANGED,
                 "verify_certificates false to do as azpbs did");
    assert_note (notes, "pbspro.ignore_queues", CCAS_AZPBS_CHANGED, "pbs.ignore_queues");
    assert_note (notes, "password", CCAS_AZPBS_CARRIED, "0600");
    for (size_t i = 0; i < json_object_array_length (notes); i++)
        assert_string_not_equal (ccas_json_str (json_object_array_get_idx (notes, i), "what"),
                                 CCAS_AZPBS_UNKNOWN);
    /* ccautoscale loads it as it is */
    json_object *copy = NULL;
    assert_int_equal (json_object_deep_copy (cfg, &copy, NULL), 0);
    struct ccas_config *conf = ccas_conf_from_json (copy, "imported", &err);
    if (!conf)
        fail_msg ("%s", err.text);
    assert_true (conf->verify_certificates);
    ccas_conf_destroy (conf);
    json_object_put (cfg);
    json_object_put (azpbs);
    json_object_put (notes);
}

/* What a site may have written by hand: numbers as strings, per nodearray,
 * Python's \d, a lookahead POSIX cannot say, unknown keys named. */
static void test_import_odd (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    json_object *notes = json_object_new_array ();
    json_object *azpbs = pf_json ("azpbs-odd.json");
    json_object *cfg = ccas_azpbs_import (azpbs, notes, &err);
    assert_non_null (cfg);
    assert_true (json_object_get_boolean (ccas_json_get (cfg, "verify_certificates")));
    assert_note (notes, "verify_certificates", CCAS_AZPBS_CARRIED, "true");
    assert_int_equal (json_object_get_int (ccas_json_get (cfg, "idle_timeout")), 600);
    assert_note (notes, "idle_timeout", CCAS_AZPBS_CHANGED, "600 s");
    json_object *bt = ccas_json_get (cfg, "boot_timeout");
    assert_int_equal (json_object_get_int (ccas_json_get (bt, "hpc")), 3600);
    assert_null (ccas_json_get (bt, "gpu"));
    assert_note (notes, "boot_timeout.gpu", CCAS_AZPBS_DROPPED, "'soon'");
    json_object *pbs = ccas_json_get (cfg, "pbs");
    assert_string_equal (
        json_object_to_json_string_ext (ccas_json_get (pbs, "ignore_queues"), JSON_C_TO_STRING_PLAIN),
        "[\"workq\",\"htcq\"]");
    assert_string_equal (ccas_json_str (pbs, "ignore_hostnames"), "onprem-[0-9]+");
    /* scratch is read-only here */
    assert_string_equal (
        json_object_to_json_string_ext (ccas_json_get (pbs, "node_resources"), JSON_C_TO_STRING_PLAIN),
        "[\"ncpus\",\"ngpus\"]");
    assert_int_equal (json_object_array_length (ccas_json_get (pbs, "valid_hostnames")), 1);
    assert_note (notes, "valid_hostnames", CCAS_AZPBS_DROPPED,
                 "POSIX"); /* the lookahead's note comes first */
    assert_note (notes, "pbspro.ignore_onprem", CCAS_AZPBS_DROPPED,
                 "never counts a vnode outside CycleCloud");
    assert_note (notes, "pbspro.ignore_everything", CCAS_AZPBS_UNKNOWN, NULL);
    assert_note (notes, "sched_mode", CCAS_AZPBS_UNKNOWN, "left out");
    assert_note (notes, "logging.level", CCAS_AZPBS_UNKNOWN, NULL);
    assert_note (notes, "output_columns", CCAS_AZPBS_DROPPED, "azpbs's own");
    assert_note (notes, "nodehistorydb", CCAS_AZPBS_DROPPED, "install-hook");
    assert_note (notes, "nodearrays.hpc.max_placement_groups", CCAS_AZPBS_DROPPED, "placement group");
    assert_note (notes, "nodearrays.default", CCAS_AZPBS_DROPPED, "every nodearray");
    assert_int_equal (json_object_get_int (ccas_json_get (
                          ccas_json_get (ccas_json_get (cfg, "nodearrays"), "hpc"), "idle_timeout")),
                      900);
    assert_null (ccas_json_get (ccas_json_get (cfg, "nodearrays"), "default"));
    json_object *copy = NULL;
    assert_int_equal (json_object_deep_copy (cfg, &copy, NULL), 0);
    struct ccas_config *conf = ccas_conf_from_json (copy, "imported", &err);
    if (!conf)
        fail_msg ("%s", err.text);
    ccas_conf_destroy (conf);
    json_object_put (cfg);
    json_object_put (azpbs);
    json_object_put (notes);
}

static void test_import_bad (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    json_object *notes = json_object_new_array ();
    assert_null (ccas_azpbs_import (NULL, notes, &err));
    assert_string_equal (err.text, "expected a JSON object at the top");
    json_object *a = json_tokener_parse ("[1]");
    assert_null (ccas_azpbs_import (a, notes, &err));
    json_object_put (a);
    a = json_tokener_parse (
        "{\"url\": \"https://x\", \"username\": \"u\", \"password\": 5, \"cluster_name\": \"c\"}");
    assert_null (ccas_azpbs_import (a, notes, &err));
    assert_string_equal (err.text, "password: missing, or not a string: ccautoscale needs it");
    json_object_put (a);
    a = json_tokener_parse ("{\"url\": \"https://x\", \"username\": \"u\", \"password\": \"p\"}");
    assert_null (ccas_azpbs_import (a, notes, &err));
    assert_string_equal (err.text, "cluster_name: missing, or not a string: ccautoscale needs it");
    json_object_put (a);
    assert_int_equal (json_object_array_length (notes), 0);
    json_object_put (notes);
}

static void test_import_regex (void **state)
{
    (void)state;
    static const struct {
        const char *python, *posix;
    } ok[] = {
        {"^ip-[0-9A-Za-z]{8}$", "^ip-[0-9A-Za-z]{8}$"},
        {"onprem-\\d+", "onprem-[0-9]+"},
        {"\\w+\\.\\s*x\\D", "[A-Za-z0-9_]+\\.[[:space:]]*x[^0-9]"},
        {"a|b", "a|b"},
    };
    static const char *const bad[] = {"(?:a)", "a*?", "a++", "\\bword", "x(?=y)"};
    char buf[256];
    for (size_t i = 0; i < sizeof (ok) / sizeof (ok[0]); i++) {
        assert_int_equal (ccas_azpbs_regex (ok[i].python, buf, sizeof (buf)), 0);
        assert_string_equal (buf, ok[i].posix);
        regex_t re;
        assert_int_equal (regcomp (&re, buf, REG_EXTENDED), 0);
        regfree (&re);
    }
    for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++)
        assert_int_equal (ccas_azpbs_regex (bad[i], buf, sizeof (buf)), -1);
    assert_int_equal (ccas_azpbs_regex ("abcdef", buf, 4), -1); /* does not fit */
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_import_stock),
        cmocka_unit_test (test_import_odd),
        cmocka_unit_test (test_import_bad),
        cmocka_unit_test (test_import_regex),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
