/* SPDX-License-Identifier: MIT */
/* test_pbs_select.c: PBS select and place strings (pbs_select.c) — chunks
 * and their counts, every malformed select and place refused with the part
 * quoted, and the names allowed to reach a qmgr command. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pbs_select.h"

static void test_select_chunks (void **state)
{
    (void)state;
    struct ccas_pbs_chunk ch[4];
    struct ccas_error err = {""};
    char s[] = "2:ncpus=4:mem=8gb+ncpus=1:ngpus=1";
    assert_int_equal (ccas_pbs_select_parse (s, ch, 4, &err), 2);
    assert_int_equal (ch[0].count, 2);
    assert_int_equal (ch[0].nfields, 2);
    assert_string_equal (ccas_pbs_chunk_get (&ch[0], "mem"), "8gb");
    assert_int_equal (ch[1].count, 1);
    assert_string_equal (ccas_pbs_chunk_get (&ch[1], "ngpus"), "1");
    assert_null (ccas_pbs_chunk_get (&ch[1], "mem"));
    /* the largest count, and a value holding '=' (only the first one splits) */
    char big[] = "1000000:ncpus=1:arch=a=b";
    assert_int_equal (ccas_pbs_select_parse (big, ch, 4, &err), 1);
    assert_int_equal (ch[0].count, 1000000);
    assert_string_equal (ccas_pbs_chunk_get (&ch[0], "arch"), "a=b");
}

static void test_select_errors (void **state)
{
    (void)state;
    static const struct {
        const char *select, *error;
    } cases[] = {
        {"", "select: empty"},
        {"2:ncpus", "select: chunk 1: 'ncpus': expected resource=value"},
        {"1:ncpus=1+", "select: chunk 2 is empty"},
        {"0:ncpus=1", "select: chunk 1: count '0' out of range 1..1000000"},
        {"1:nc;pus=1", "select: chunk 1: 'nc;pus' is not a resource name"},
        {"1:ncpus=", "select: chunk 1: 'ncpus=': expected resource=value"},
        {"1000001:ncpus=1", "select: chunk 1: count '1000001' out of range 1..1000000"},
        {"+1:ncpus=1", "select: chunk 1 is empty"},
        {"1:=4", "select: chunk 1: '=4': expected resource=value"},
        {"1:ncpus=1:2", "select: chunk 1: '2': expected resource=value"},
        {"1:a=1+1:b=1+1:c=1", "select: more than 2 chunks"},
    };
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        struct ccas_pbs_chunk ch[2];
        struct ccas_error err = {""};
        char buf[64];
        snprintf (buf, sizeof (buf), "%s", cases[i].select);
        assert_int_equal (ccas_pbs_select_parse (buf, ch, 2, &err), -1);
        assert_string_equal (err.text, cases[i].error);
    }
    /* NULL is empty; one resource more than a chunk holds */
    struct ccas_pbs_chunk ch[1];
    struct ccas_error err = {""};
    assert_int_equal (ccas_pbs_select_parse (NULL, ch, 1, &err), -1);
    assert_string_equal (err.text, "select: empty");
    char many[512] = "1";
    for (int i = 0; i <= CCAS_PBS_MAX_FIELDS; i++)
        snprintf (many + strlen (many), sizeof (many) - strlen (many), ":r%d=1", i);
    assert_int_equal (ccas_pbs_select_parse (many, ch, 1, &err), -1);
    assert_string_equal (err.text, "select: chunk 1: more than 32 resources");
}

static void test_place (void **state)
{
    (void)state;
    struct ccas_pbs_place p;
    struct ccas_error err = {""};
    assert_int_equal (ccas_pbs_place_parse ("scatter:excl:group=group_id", &p, &err), 0);
    assert_int_equal (p.arrangement, CCAS_PBS_SCATTER);
    assert_int_equal (p.sharing, CCAS_PBS_EXCL);
    assert_string_equal (p.group, "group_id");
    assert_int_equal (ccas_pbs_place_parse (NULL, &p, &err), 0);
    assert_int_equal (p.arrangement, CCAS_PBS_FREE);
    assert_string_equal (p.group, "");
    assert_int_equal (ccas_pbs_place_parse ("pack:bogus", &p, &err), -1);
    assert_non_null (strstr (err.text, "place: 'bogus'"));
    /* every word PBS has */
    assert_int_equal (ccas_pbs_place_parse ("vscatter:exclhost", &p, &err), 0);
    assert_int_equal (p.arrangement, CCAS_PBS_VSCATTER);
    assert_int_equal (p.sharing, CCAS_PBS_EXCLHOST);
    assert_int_equal (ccas_pbs_place_parse ("pack:shared", &p, &err), 0);
    assert_int_equal (p.arrangement, CCAS_PBS_PACK);
    assert_int_equal (p.sharing, CCAS_PBS_SHARED);
    assert_int_equal (ccas_pbs_place_parse ("", &p, &err), 0);
    assert_int_equal (p.sharing, CCAS_PBS_SHARED_DEFAULT);
    /* a group that is not a resource name, or too long to keep */
    assert_int_equal (ccas_pbs_place_parse ("scatter:group=a;b", &p, &err), -1);
    assert_non_null (strstr (err.text, "place: 'group=a;b': expected free, pack"));
    char longer[300];
    snprintf (longer, sizeof (longer), "group=%0100d", 0);
    assert_int_equal (ccas_pbs_place_parse (longer, &p, &err), -1);
    assert_non_null (strstr (err.text, "expected free, pack"));
    char toolong[300];
    memset (toolong, 'a', sizeof (toolong) - 1);
    toolong[sizeof (toolong) - 1] = '\0';
    assert_int_equal (ccas_pbs_place_parse (toolong, &p, &err), -1);
    assert_string_equal (err.text, "place: too long");
}

static void test_names (void **state)
{
    (void)state;
    assert_true (ccas_pbs_name_valid ("execute-1"));
    assert_true (ccas_pbs_name_valid ("ip-0A000004.internal"));
    assert_false (ccas_pbs_name_valid ("-o"));
    assert_false (ccas_pbs_name_valid ("a b"));
    assert_false (ccas_pbs_name_valid ("a;rm"));
    assert_false (ccas_pbs_name_valid (""));
    assert_false (ccas_pbs_name_valid (NULL));
    assert_false (ccas_pbs_name_valid (".hidden"));
    assert_false (ccas_pbs_name_valid ("a\"b"));
    /* at most 255 bytes */
    char name[300];
    memset (name, 'n', 255);
    name[255] = '\0';
    assert_true (ccas_pbs_name_valid (name));
    name[255] = 'n';
    name[256] = '\0';
    assert_false (ccas_pbs_name_valid (name));
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_select_chunks),
        cmocka_unit_test (test_select_errors),
        cmocka_unit_test (test_place),
        cmocka_unit_test (test_names),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
