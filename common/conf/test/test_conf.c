/* SPDX-License-Identifier: MIT */
/* test_conf.c: autoscale.json validation: bad input first, every error names its path. */
#include "config.h"

#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "conf/conf.h"
#include "util/log.h"

#define BASE "\"url\": \"https://cc.example.com\", \"username\": \"admin\", \"cluster_name\": \"hpc\""

static struct ccas_config *from_text (const char *text, struct ccas_error *err)
{
    json_object *root = json_tokener_parse (text);
    assert_non_null (root);
    return ccas_conf_from_json (root, "t.json", err);
}

static void test_errors_name_the_path (void **state)
{
    static const struct {
        const char *json;
        const char *want;
    } cases[] = {
        {"[]", "t.json: expected a JSON object at the top, got []"},
        {"{" BASE ", \"password\": \"pw\", \"bogus\": 1}", "t.json: bogus: unknown key"},
        /* azpbs's file, as CycleCloud's stock PBS cluster writes it */
        {"{" BASE ", \"password\": \"pw\", \"pbspro\": {\"ignore_queues\": []}}",
         "t.json: pbspro: unknown key (this is azpbs's autoscale.json: 'ccautoscale pbs import-azpbs t.json' "
         "writes ccautoscale's from it)"},
        {"{" BASE ", \"password\": \"pw\", \"logging\": {\"levle\": \"info\"}}",
         "t.json: logging.levle: unknown key"},
        {"{" BASE ", \"password\": \"pw\", \"nodearrays\": {\"hpc\": {\"idle_timeout\": \"5m\"}}}",
         "t.json: nodearrays.hpc.idle_timeout: expected a number, got \"5m\""},
        {"{" BASE ", \"password\": \"pw\", \"idle_timeout\": {\"default\": \"x\"}}",
         "t.json: idle_timeout.default: expected a number, got \"x\""},
        {"{" BASE ", \"password\": \"pw\", \"retries\": 1.5}",
         "t.json: retries: expected an integer, got 1.5"},
        {"{" BASE ", \"password\": \"pw\", \"retries\": 99}", "t.json: retries: 99 is out of range [0, 20]"},
        {"{" BASE ", \"password\": \"pw\", \"logging\": {\"level\": \"loud\"}}",
         "t.json: logging.level: 'loud' is not one of error|warning|notice|info|debug"},
        {"{" BASE ", \"password\": \"pw\", \"logging\": {\"level\": \"INFO\"}}",
         "t.json: logging.level: 'INFO' is not one of error|warning|notice|info|debug"},
        {"{" BASE ", \"password\": \"pw\", \"logging\": {\"level\": 7}}",
         "t.json: logging.level: expected one of error|warning|notice|info|debug, got 7"},
        {"{" BASE ", \"password\": \"pw\", \"slurm\": {\"suspend_action\": \"hibernate\"}}",
         "t.json: slurm.suspend_action: 'hibernate' is not one of shutdown|terminate|deallocate"},
        {"{" BASE ", \"password\": \"pw\", \"slurm\": {\"suspend_action\": null}}",
         "t.json: slurm.suspend_action: null is not a value; remove the key for the default"},
        {"{" BASE ", \"password\": \"pw\", \"verify_certificates\": \"no\"}",
         "t.json: verify_certificates: expected true or false, got \"no\""},
        {"{" BASE ", \"password\": 12345}", "t.json: password: expected a string, got a number"},
        {"{\"username\": \"a\", \"cluster_name\": \"c\", \"password\": \"p\"}",
         "t.json: url: required key is missing"},
        {"{\"url\": \"https://cc\", \"cluster_name\": \"c\", \"password\": \"p\"}",
         "t.json: username: required key is missing"},
        {"{\"url\": \"https://cc\", \"username\": \"a\", \"password\": \"p\"}",
         "t.json: cluster_name: required key is missing"},
        {"{\"password\": \"p\", \"logging\": {\"level\": \"loud\"}}",
         "t.json: logging.level: 'loud' is not one of error|warning|notice|info|debug"},
        {"{" BASE "}", "t.json: password: set password or password_file"},
        {"{" BASE ", \"password\": \"p\", \"password_file\": \"/x\"}",
         "t.json: password_file: set password or password_file, not both"},
        {"{\"url\": \"ftp://x\", \"username\": \"a\", \"cluster_name\": \"c\", \"password\": \"p\"}",
         "t.json: url: 'ftp://x' must start with https:// or http://"},
        {"{" BASE ", \"password\": \"pw\", \"gpu_counts\": {\"Standard_NC6\": \"one\"}}",
         "t.json: gpu_counts.Standard_NC6: expected an integer, got \"one\""},
        {"{" BASE ", \"password\": \"pw\", \"nodearrays\": {\"hpc\": {\"machine_types\": [1]}}}",
         "t.json: nodearrays.hpc.machine_types[0]: expected a string, got 1"},
        {"{" BASE ", \"password\": \"pw\", \"nodearrays\": {\"hpc\": null}}",
         "t.json: nodearrays.hpc: null is not a value; remove the key for the default"},
    };
    (void)state;
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        struct ccas_error err = {""};
        struct ccas_config *cfg = from_text (cases[i].json, &err);
        if (cfg)
            fail_msg ("case %zu was accepted", i);
        assert_string_equal (err.text, cases[i].want);
    }
}

static void test_defaults_filled (void **state)
{
    struct ccas_error err = {""};
    (void)state;
    struct ccas_config *cfg =
        from_text ("{" BASE ", \"password\": \"pw\", \"idle_timeout\": {\"default\": 100, \"hpc\": 50},"
                   " \"nodearrays\": {\"gpu\": {\"idle_timeout\": 7}}}",
                   &err);
    assert_non_null (cfg);
    assert_true (cfg->verify_certificates);
    assert_int_equal (cfg->logging.level, LOG_INFO);
    assert_int_equal (cfg->slurm.suspend_action, CCAS_ACTION_SHUTDOWN);
    assert_string_equal (cfg->state_dir, "/var/lib/ccautoscale");
    assert_true (cfg->connect_timeout == 10);
    assert_true (ccas_conf_idle_timeout (cfg, "hpc") == 50);
    assert_true (ccas_conf_idle_timeout (cfg, "htc") == 100);
    assert_true (ccas_conf_idle_timeout (cfg, "gpu") == 7);
    assert_true (ccas_conf_idle_timeout (cfg, NULL) == 100);
    assert_true (ccas_conf_boot_timeout (cfg, "hpc") == 1800);
    assert_string_equal (cfg->password, "pw");
    /* what the file set, and what its default filled in */
    assert_true (ccas_conf_given (cfg, "idle_timeout"));
    assert_true (ccas_conf_given (cfg, "url"));
    assert_false (ccas_conf_given (cfg, "state_dir"));
    assert_false (ccas_conf_given (cfg, "slurm.node_prefix"));
    assert_false (ccas_conf_given (cfg, "slurm"));
    ccas_conf_destroy (cfg);

    cfg = from_text ("{" BASE ", \"password\": \"pw\", \"slurm\": {\"node_prefix\": \"\"}}", &err);
    assert_non_null (cfg);
    assert_true (ccas_conf_given (cfg, "slurm"));
    assert_true (ccas_conf_given (cfg, "slurm.node_prefix"));
    assert_false (ccas_conf_given (cfg, "slurm.conf_dir"));
    ccas_conf_destroy (cfg);
}

static void test_effective_redacts (void **state)
{
    struct ccas_error err = {""};
    (void)state;
    struct ccas_config *cfg = from_text ("{" BASE ", \"password\": \"hunter2-secret\"}", &err);
    assert_non_null (cfg);
    json_object *eff = ccas_conf_effective (cfg);
    const char *text = json_object_to_json_string (eff);
    assert_null (strstr (text, "hunter2"));
    assert_non_null (strstr (text, "\"****\""));
    assert_non_null (strstr (text, "\"idle_timeout\""));
    /* the document itself no longer holds the password either */
    assert_null (strstr (json_object_to_json_string (cfg->root), "hunter2"));
    json_object_put (eff);
    ccas_conf_destroy (cfg);
}

static char tmpdir[] = "/tmp/ccas-test-conf.XXXXXX";

static void write_file (const char *path, const char *text, mode_t mode)
{
    int fd = open (path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true (fd >= 0);
    assert_int_equal (write (fd, text, strlen (text)), (ssize_t)strlen (text));
    close (fd);
    assert_int_equal (chmod (path, mode), 0);
}

static void test_password_file_modes (void **state)
{
    char cfgpath[256], pwpath[256], text[512];
    struct ccas_error err = {""};
    (void)state;
    snprintf (cfgpath, sizeof (cfgpath), "%s/autoscale.json", tmpdir);
    snprintf (pwpath, sizeof (pwpath), "%s/pw", tmpdir);

    /* a password in a world-readable config is refused, with the fix */
    write_file (cfgpath, "{" BASE ", \"password\": \"pw-in-file\"}", 0644);
    assert_null (ccas_conf_load (cfgpath, &err));
    assert_non_null (strstr (err.text, "mode 0644"));
    assert_non_null (strstr (err.text, "chmod 600"));
    assert_null (strstr (err.text, "pw-in-file"));

    write_file (cfgpath, "{" BASE ", \"password\": \"pw-in-file\"}", 0640);
    assert_null (ccas_conf_load (cfgpath, &err));
    assert_non_null (strstr (err.text, "mode 0640"));

    write_file (cfgpath, "{" BASE ", \"password\": \"pw-in-file\"}", 0600);
    struct ccas_config *cfg = ccas_conf_load (cfgpath, &err);
    assert_non_null (cfg);
    assert_string_equal (cfg->password, "pw-in-file");
    ccas_conf_destroy (cfg);

    /* password_file: the config may be world-readable, the password file not */
    snprintf (text, sizeof (text), "{" BASE ", \"password_file\": \"%s\"}", pwpath);
    write_file (cfgpath, text, 0644);
    write_file (pwpath, "from-file\n", 0644);
    assert_null (ccas_conf_load (cfgpath, &err));
    assert_non_null (strstr (err.text, "password_file"));
    assert_non_null (strstr (err.text, "mode 0644"));
    write_file (pwpath, "from-file\n", 0600);
    cfg = ccas_conf_load (cfgpath, &err);
    assert_non_null (cfg);
    assert_string_equal (cfg->password, "from-file");
    ccas_conf_destroy (cfg);

    /* a missing file names itself */
    assert_null (ccas_conf_load ("/nonexistent/autoscale.json", &err));
    assert_string_equal (err.text, "/nonexistent/autoscale.json: No such file or directory");
    ccas_log_close ();
}

static void test_malformed_file (void **state)
{
    char cfgpath[256];
    struct ccas_error err = {""};
    (void)state;
    snprintf (cfgpath, sizeof (cfgpath), "%s/bad.json", tmpdir);
    write_file (cfgpath, "{\"url\": \"https://x\",\n  \"username\": }", 0600);
    assert_null (ccas_conf_load (cfgpath, &err));
    assert_non_null (strstr (err.text, "bad.json:2:"));
    assert_non_null (strstr (err.text, "invalid JSON"));
    write_file (cfgpath, "{\"url\": \"https://x\"", 0600);
    assert_null (ccas_conf_load (cfgpath, &err));
    assert_non_null (strstr (err.text, "truncated JSON"));
}

static int setup (void **state)
{
    (void)state;
    return mkdtemp (tmpdir) ? 0 : -1;
}

static int teardown (void **state)
{
    char cmd[300];
    (void)state;
    snprintf (cmd, sizeof (cmd), "%s/autoscale.json", tmpdir);
    unlink (cmd);
    snprintf (cmd, sizeof (cmd), "%s/pw", tmpdir);
    unlink (cmd);
    snprintf (cmd, sizeof (cmd), "%s/bad.json", tmpdir);
    unlink (cmd);
    return rmdir (tmpdir);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_errors_name_the_path), cmocka_unit_test (test_defaults_filled),
        cmocka_unit_test (test_effective_redacts),    cmocka_unit_test (test_password_file_modes),
        cmocka_unit_test (test_malformed_file),
    };
    return cmocka_run_group_tests (tests, setup, teardown);
}
