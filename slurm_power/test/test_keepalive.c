/* SPDX-License-Identifier: MIT */
/* test_keepalive.c: SuspendExcNodes values (keepalive.c) — split into
 * names and "nodes:count" entries, edited by name (the administrator's
 * names and counted entries kept, order as Slurm writes it, nothing twice),
 * the include's text, and the command's record read back.  Bad values
 * refused naming the setting.  No slurmctld. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "keepalive.h"
#include "model/test/fixture.h"

/* The names of a parsed value, space-separated, and its counted entries after a '|'. */
static const char *exc_text (const struct ccas_slurm_exc *e, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < e->n && len < size; i++)
        len += (size_t)snprintf (buf + len, size - len, "%s%s", i ? " " : "", e->names[i]);
    if (e->counted && len < size)
        snprintf (buf + len, size - len, "|%s", e->counted);
    return buf;
}

static void test_parse (void **state)
{
    (void)state;
    static const struct {
        const char *value, *text;
    } cases[] = {
        {"", ""},
        {"(null)", ""},
        {"htc-5", "htc-5"},
        {"htc-[3,5],hpc-1", "htc-3 htc-5 hpc-1"},
        {"htc-[1-3]:2", "|htc-[1-3]:2"},
        {"htc-[1-3]:2,gpu-1,hpc-[1-2]:1", "gpu-1|htc-[1-3]:2,hpc-[1-2]:1"},
        {"a,,b", "a b"},
    };
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        struct ccas_slurm_exc e;
        struct ccas_error err = {""};
        char text[256];
        if (ccas_slurm_exc_parse (cases[i].value, &e, &err) < 0)
            fail_msg ("'%s': %s", cases[i].value, err.text);
        assert_string_equal (exc_text (&e, text, sizeof (text)), cases[i].text);
        ccas_slurm_exc_release (&e);
    }
    struct ccas_slurm_exc e;
    assert_int_equal (ccas_slurm_exc_parse (NULL, &e, NULL), 0);
    assert_int_equal (e.n, 0);
    /* what libslurm cannot expand is refused, naming the setting */
    struct ccas_error err = {""};
    assert_int_equal (ccas_slurm_exc_parse ("htc-[1-2", &e, &err), -1);
    assert_non_null (strstr (err.text, "SuspendExcNodes: "));
    assert_null (e.names);
    ccas_slurm_exc_release (NULL);
}

/* Names added and removed; the others (the administrator's) and counted
 * entries kept; a name never twice; ranges as Slurm writes them. */
static void test_edit (void **state)
{
    (void)state;
    static const struct {
        const char *value;
        const char *add[4], *remove[4];
        const char *want;
    } cases[] = {
        {"", {"htc-5"}, {NULL}, "htc-5"},
        {"htc-6", {"htc-1", "htc-2"}, {NULL}, "htc-[1-2,6]"},
        {"htc-[1-2,6]", {NULL}, {"htc-1", "htc-2"}, "htc-6"},
        {"htc-6", {"htc-6"}, {NULL}, "htc-6"},
        {"htc-6", {NULL}, {"htc-7"}, "htc-6"},
        {"htc-6", {NULL}, {"htc-6"}, ""},
        {"htc-[2-3]:1,gpu-1", {"htc-10"}, {"gpu-1"}, "htc-10,htc-[2-3]:1"},
        {"htc-[2-3]:1", {NULL}, {NULL}, "htc-[2-3]:1"},
        {"hpc-1", {"htc-10", "htc-9", "f4-1"}, {NULL}, "f4-1,hpc-1,htc-[9-10]"},
        {"", {"x", "x"}, {"x"}, ""},
    };
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        struct ccas_slurm_exc e;
        struct ccas_error err = {""};
        size_t na = 0, nr = 0;
        while (na < 4 && cases[i].add[na])
            na++;
        while (nr < 4 && cases[i].remove[nr])
            nr++;
        assert_int_equal (ccas_slurm_exc_parse (cases[i].value, &e, &err), 0);
        char *v =
            ccas_slurm_exc_edit (&e, (char *const *)cases[i].add, na, (char *const *)cases[i].remove, nr);
        assert_non_null (v);
        if (strcmp (v, cases[i].want) != 0)
            fail_msg ("case %zu: '%s' gives '%s', not '%s'", i, cases[i].value, v, cases[i].want);
        free (v);
        ccas_slurm_exc_release (&e);
    }
}

static void test_has (void **state)
{
    (void)state;
    struct ccas_slurm_exc e;
    assert_int_equal (ccas_slurm_exc_parse ("htc-[1-3],gpu-[1-2]:1", &e, NULL), 0);
    assert_true (ccas_slurm_exc_has (&e, "htc-2"));
    assert_false (ccas_slurm_exc_has (&e, "htc-4"));
    assert_false (ccas_slurm_exc_has (&e, "gpu-1")); /* a counted entry keeps some, not a name */
    ccas_slurm_exc_release (&e);
}

/* The include: the whole value on one SuspendExcNodes line, or none. */
static void test_text (void **state)
{
    (void)state;
    char *t = ccas_slurm_keepalive_text ("htc-[5-6]");
    assert_non_null (t);
    assert_non_null (strstr (t, "\nSuspendExcNodes=htc-[5-6]\n"));
    assert_int_equal (t[0], '#');
    free (t);
    t = ccas_slurm_keepalive_text ("");
    assert_null (strstr (t, "SuspendExcNodes="));
    assert_non_null (strstr (t, "# none\n"));
    free (t);
    t = ccas_slurm_keepalive_text (NULL);
    assert_non_null (strstr (t, "# none\n"));
    free (t);
}

/* The command's record: a name in "command" is kept; none without a file. */
static void test_state (void **state)
{
    (void)state;
    char dir[] = "/tmp/test_keepalive.XXXXXX";
    struct ccas_error err = {""};
    fx_dir_make (dir);
    struct ccas_state *st = ccas_slurm_keepalive_load (dir, &err);
    assert_non_null (st);
    assert_false (ccas_slurm_keepalive_has (st, "htc-1"));
    json_object *cmd = json_object_new_object ();
    json_object_object_add (cmd, "htc-1", json_object_new_object ());
    json_object_object_add (ccas_state_root (st), "command", cmd);
    json_object *synced = json_object_new_object ();
    json_object_object_add (synced, "htc-2", json_object_new_double (1));
    json_object_object_add (ccas_state_root (st), "synced", synced);
    assert_int_equal (ccas_state_save (st, &err), 0);
    ccas_state_destroy (st);
    st = ccas_slurm_keepalive_load (dir, &err);
    assert_true (ccas_slurm_keepalive_has (st, "htc-1"));
    assert_false (ccas_slurm_keepalive_has (st, "htc-2")); /* sync's, not the command's */
    assert_false (ccas_slurm_keepalive_has (NULL, "htc-1"));
    ccas_state_destroy (st);
    fx_dir_remove (dir);
}

int main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_parse), cmocka_unit_test (test_edit),  cmocka_unit_test (test_has),
        cmocka_unit_test (test_text),  cmocka_unit_test (test_state),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
