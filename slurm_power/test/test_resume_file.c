/* SPDX-License-Identifier: MIT */
/* test_resume_file.c: SLURM_RESUME_FILE in both shapes, the name -> job
 * lookup resume makes once per name, and the hostlists refused before
 * libslurm spends seconds or gigabytes on them. */
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

#include "resume_file.h"
#include "slurmapi.h"

static struct ccas_resume_file *parse (const char *text, struct ccas_error *err)
{
    return ccas_resume_file_parse (text, strlen (text), err);
}

static void test_both_shapes (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    /* 22.05: "nodes" is what is resumed */
    struct ccas_resume_file *rf = parse ("{\"jobs\":[{\"job_id\":7,\"nodes\":\"hpc-[1-2]\"}]}", &err);
    assert_non_null (rf);
    assert_int_equal (rf->njobs, 1);
    assert_int_equal (rf->jobs[0].nresume, 2);
    assert_int_equal (ccas_resume_file_job_of (rf, "hpc-2")->job_id, 7);
    ccas_resume_file_destroy (rf);
    /* 23.02+: only nodes_resume is resumed, nodes_alloc is the whole job */
    rf = parse ("{\"jobs\":[{\"job_id\":8,\"partition\":\"hpc\",\"nodes_alloc\":\"hpc-[1-4]\","
                "\"nodes_resume\":\"hpc-[3-4]\"}]}",
                &err);
    assert_non_null (rf);
    assert_int_equal (rf->jobs[0].nalloc, 4);
    assert_int_equal (rf->jobs[0].nresume, 2);
    assert_string_equal (rf->jobs[0].partition, "hpc");
    assert_null (ccas_resume_file_job_of (rf, "hpc-1")); /* allocated, already up */
    assert_int_equal (ccas_resume_file_job_of (rf, "hpc-4")->job_id, 8);
    ccas_resume_file_destroy (rf);
}

static void test_lookup_many_names (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    /* three jobs, given out of name order; hpc-5 is in two: the first in the file is its job */
    struct ccas_resume_file *rf = parse ("{\"jobs\":[{\"job_id\":3,\"nodes\":\"hpc-[5-60000]\"},"
                                         "{\"job_id\":1,\"nodes\":\"gpu-[1-3],hpc-5\"},"
                                         "{\"job_id\":2,\"nodes\":\"hpc-[1-4]\"}]}",
                                         &err);
    assert_non_null (rf);
    assert_int_equal (ccas_resume_file_job_of (rf, "hpc-5")->job_id, 3);
    assert_int_equal (ccas_resume_file_job_of (rf, "hpc-60000")->job_id, 3);
    assert_int_equal (ccas_resume_file_job_of (rf, "gpu-1")->job_id, 1);
    assert_int_equal (ccas_resume_file_job_of (rf, "hpc-4")->job_id, 2);
    assert_null (ccas_resume_file_job_of (rf, "hpc-60001"));
    assert_null (ccas_resume_file_job_of (rf, "a"));
    assert_null (ccas_resume_file_job_of (rf, "zzz"));
    /* every name of the large job, each a search (it was a scan of all, the square of 56k) */
    char name[32];
    for (int i = 5; i <= 60000; i++) {
        snprintf (name, sizeof (name), "hpc-%d", i);
        assert_int_equal (ccas_resume_file_job_of (rf, name)->job_id, 3);
    }
    ccas_resume_file_destroy (rf);
    assert_null (ccas_resume_file_job_of (NULL, "hpc-1"));
}

static void test_bad_file_names_the_field (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    assert_null (
        parse ("{\"jobs\":[{\"job_id\":1,\"nodes\":\"hpc-[1-2]\"},{\"job_id\":2,\"nodes\":\"a[1-2][3-4]\"}]}",
               &err));
    assert_non_null (strstr (err.text, "SLURM_RESUME_FILE: jobs[1].nodes"));
    assert_non_null (strstr (err.text, "more than one bracket group"));
    assert_null (parse ("{\"jobs\":{}}", &err));
    assert_non_null (strstr (err.text, "jobs: expected an array"));
}

/* What slurmctld 25.11 wrote, word for word (doc/slurm-on-one-machine) */
static void test_25_11_file (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    struct ccas_resume_file *rf =
        parse ("{\"jobs\":[{\"extra\":null,\"job_id\":2,\"features\":\"Standard_HB120rs_v3\","
               "\"nodes_alloc\":\"cloud[1-2]\",\"nodes_resume\":\"cloud2\",\"oversubscribe\":\"OK\","
               "\"partition\":\"cloud\",\"reservation\":null}],\"all_nodes_resume\":\"cloud2\"}",
               &err);
    assert_non_null (rf);
    const struct ccas_resume_job *j = &rf->jobs[0];
    assert_int_equal (j->job_id, 2);
    assert_string_equal (j->features, "Standard_HB120rs_v3");
    assert_string_equal (j->oversubscribe, "OK");
    assert_string_equal (j->partition, "cloud");
    assert_null (j->reservation);
    assert_int_equal (j->nalloc, 2);
    assert_int_equal (j->nresume, 1);
    assert_int_equal (rf->nall, 1);
    assert_string_equal (rf->all[0], "cloud2");
    char *names[] = {"cloud2"};
    assert_null (ccas_resume_file_outside (rf, names, 1));
    ccas_resume_file_destroy (rf);
}

static void test_names_outside_the_hostlist (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    /* hpc-3 (job 8) and hpc-9 (all_nodes only) are not in the hostlist; hpc-3 is in two jobs */
    struct ccas_resume_file *rf = parse ("{\"jobs\":[{\"job_id\":7,\"nodes\":\"hpc-[1-3]\"},"
                                         "{\"job_id\":8,\"nodes\":\"hpc-3\"}],\"all_nodes\":\"hpc-[1-3,9]\"}",
                                         &err);
    assert_non_null (rf);
    char *names[] = {"hpc-2", "hpc-1"};
    char *out = ccas_resume_file_outside (rf, names, 2);
    assert_string_equal (out, "hpc-[3,9]");
    free (out);
    char *all[] = {"hpc-9", "hpc-3", "hpc-1", "hpc-2"};
    assert_null (ccas_resume_file_outside (rf, all, 4));
    out = ccas_resume_file_outside (rf, NULL, 0);
    assert_string_equal (out, "hpc-[1-3,9]");
    free (out);
    ccas_resume_file_destroy (rf);
    assert_null (ccas_resume_file_outside (NULL, names, 2));
}

static void test_bad_files (void **state)
{
    (void)state;
    static const struct {
        const char *text, *want;
    } bad[] = {
        /* truncated, as a file cut short would be */
        {"{\"jobs\":[{\"job_id\":2,\"nodes_alloc\":\"cloud[1-2]\",\"nodes_res", "SLURM_RESUME_FILE"},
        {"{\"jobs\":[{\"job_id\":7,\"nodes\":\"hpc-[1-2]\"}],\"all_nodes\":\"hpc-[1-2]\"",
         "SLURM_RESUME_FILE"},
        /* not JSON */
        {"hpc-[1-2]", "SLURM_RESUME_FILE"},
        {"", "SLURM_RESUME_FILE"},
        {"[]", "jobs: expected an array"},
        {"{\"jobs\":null}", "jobs: expected an array"},
        /* fields of the wrong type, each named */
        {"{\"jobs\":[{\"nodes\":\"hpc-1\"}]}", "jobs[0].job_id: missing"},
        {"{\"jobs\":[{\"job_id\":\"x\",\"nodes\":\"hpc-1\"}]}", "jobs[0].job_id"},
        {"{\"jobs\":[{\"job_id\":0,\"nodes\":\"hpc-1\"}]}", "jobs[0].job_id: 0 is not a job id"},
        {"{\"jobs\":[{\"job_id\":5000000000,\"nodes\":\"hpc-1\"}]}", "is not a job id"},
        {"{\"jobs\":[{\"job_id\":1,\"nodes_alloc\":7}]}", "jobs[0].nodes_alloc: expected a string"},
        {"{\"jobs\":[{\"job_id\":1,\"nodes_alloc\":\"a\",\"nodes_resume\":[]}]}", "jobs[0].nodes_resume"},
        {"{\"jobs\":[{\"job_id\":1,\"nodes\":\"a\",\"features\":1}]}", "jobs[0].features: expected a string"},
        {"{\"jobs\":[{\"job_id\":1,\"nodes\":\"a\",\"partition\":{}}]}", "jobs[0].partition"},
        {"{\"jobs\":[{\"job_id\":1,\"nodes\":\"a\",\"reservation\":true}]}", "jobs[0].reservation"},
        {"{\"jobs\":[{\"job_id\":1,\"nodes\":\"a\",\"oversubscribe\":[1]}]}", "jobs[0].oversubscribe"},
        {"{\"jobs\":[],\"all_nodes_resume\":5}", "all_nodes_resume: expected a string"},
        {"{\"jobs\":[],\"all_nodes\":\"h[1-]\"}", "all_nodes: 'h[1-]'"},
    };
    for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
        struct ccas_error err = {""};
        struct ccas_resume_file *rf = parse (bad[i].text, &err);
        if (rf || !strstr (err.text, bad[i].want))
            fail_msg ("'%s': got '%s', want an error with '%s'", bad[i].text, rf ? "a file" : err.text,
                      bad[i].want);
    }
}

static void test_read (void **state)
{
    (void)state;
    struct ccas_error err = {""};
    char path[] = "/tmp/test_resume_file.XXXXXX";
    int fd = mkstemp (path);
    assert_true (fd >= 0);
    close (fd);
    setenv ("SLURM_RESUME_FILE", path, 1);
    assert_null (ccas_resume_file_read (&err)); /* empty */
    assert_non_null (strstr (err.text, "empty"));
    FILE *f = fopen (path, "w");
    fputs ("{\"jobs\":[{\"job_id\":3,\"nodes\":\"a[1-2]\"}]}", f);
    fclose (f);
    struct ccas_resume_file *rf = ccas_resume_file_read (&err);
    assert_non_null (rf);
    assert_int_equal (rf->jobs[0].nresume, 2);
    ccas_resume_file_destroy (rf);
    unlink (path);
    /* the descriptor of a program that has gone (slurmscriptd's memfd, read too late) */
    setenv ("SLURM_RESUME_FILE", "/proc/2147483646/fd/3", 1);
    assert_null (ccas_resume_file_read (&err));
    assert_non_null (strstr (err.text, "SLURM_RESUME_FILE"));
    assert_non_null (strstr (err.text, "/proc/2147483646/fd/3"));
    unsetenv ("SLURM_RESUME_FILE");
    assert_null (ccas_resume_file_read (&err));
    assert_non_null (strstr (err.text, "SLURM_RESUME_FILE is not set"));
}

static void expect_refused (const char *expr, const char *why)
{
    struct ccas_error err = {""};
    size_t n = 0;
    assert_null (ccas_slurm_hostlist_expand (expr, &n, &err));
    if (!strstr (err.text, why))
        fail_msg ("'%s': got '%s', want '%s'", expr, err.text, why);
}

static void test_hostlists_refused_before_libslurm (void **state)
{
    (void)state;
    expect_refused ("htc-[1-2000000]", "a range of more than 65536 names");
    /* 16 full ranges and one name: 1048577 */
    char many[1024] = "htc-[";
    for (int i = 0; i < 16; i++)
        snprintf (many + strlen (many), sizeof (many) - strlen (many), "%d-%d,", i * 100000 + 1,
                  i * 100000 + 65536);
    strcat (many, "1700000]");
    expect_refused (many, "more than the 1048576 names");
    expect_refused ("a[0-467][2-467][2-166]", "more than one bracket group");
    expect_refused ("hpc-[1-2],a[1]b[2]", "more than one bracket group");
    expect_refused ("XcX[2,6555555555555555555555555555555555555555555]", "more than 9 digits");
    expect_refused ("h[1-12345678901]", "more than 9 digits");
    expect_refused ("h[0x3]", "something other than numbers");
    expect_refused ("h[1-]", "something other than numbers");
    /* libslurm refuses these too, but leaks a little doing it */
    expect_refused ("hp-c-1[]", "an empty bracket");
    expect_refused ("h[1,]", "something other than numbers");
    expect_refused ("h[1-4", "a bracket is not closed");
    expect_refused ("hpc-[1-0]", "a range runs backwards");
    expect_refused ("hpc-[2-65538]", "a range of more than 65536 names");
    /* what Slurm writes passes, a bracket per name */
    struct ccas_error err = {""};
    size_t n = 0;
    char **names = ccas_slurm_hostlist_expand ("hpc-[1-3,7],gpu-[001-002],login", &n, &err);
    assert_non_null (names);
    assert_int_equal (n, 7);
    assert_string_equal (names[3], "hpc-7");
    assert_string_equal (names[4], "gpu-001");
    assert_string_equal (names[6], "login");
    char *back = ccas_slurm_hostlist_compress ((const char *const *)names, n);
    assert_string_equal (back, "hpc-[1-3,7],gpu-[001-002],login");
    free (back);
    ccas_slurm_names_free (names, n);
    names = ccas_slurm_hostlist_expand ("h[999999999]", &n, &err);
    assert_non_null (names);
    ccas_slurm_names_free (names, n);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_both_shapes),
        cmocka_unit_test (test_lookup_many_names),
        cmocka_unit_test (test_bad_file_names_the_field),
        cmocka_unit_test (test_25_11_file),
        cmocka_unit_test (test_names_outside_the_hostlist),
        cmocka_unit_test (test_bad_files),
        cmocka_unit_test (test_read),
        cmocka_unit_test (test_hostlists_refused_before_libslurm),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
