/* SPDX-License-Identifier: MIT */
/* thp.c: re-execute once with glibc.malloc.hugetlb=1 when asked to (see thp.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run.h"
#include "thp.h"

#define TUNABLE "glibc.malloc.hugetlb=1"
/* Set across the exec: the caller's GLIBC_TUNABLES ("" for none), put back
 * in the new program so that the commands it runs see what the user set. */
#define SAVED "CCAUTOSCALE_THP_SAVED"

static void restore (const char *saved)
{
    if (saved[0])
        setenv ("GLIBC_TUNABLES", saved, 1);
    else
        unsetenv ("GLIBC_TUNABLES");
}

static int kernel_allows (void)
{
    char line[128] = "";
    FILE *f = fopen ("/sys/kernel/mm/transparent_hugepage/enabled", "re");
    if (!f)
        return 0;
    if (!fgets (line, sizeof (line), f))
        line[0] = '\0';
    fclose (f);
    return line[0] && !strstr (line, "[never]");
}

void thp_reexec (char **argv)
{
    const char *saved = getenv (SAVED);
    if (saved) { /* the re-executed program: the tunable has done its work */
        char *copy = strdup (saved);
        unsetenv (SAVED);
        if (copy)
            restore (copy);
        free (copy);
        return;
    }
    const char *tunables = getenv ("GLIBC_TUNABLES"), *preload = getenv ("LD_PRELOAD");
    const char *wanted = getenv ("CCAUTOSCALE_THP");
    if (!wanted || strcmp (wanted, "1") != 0 || (tunables && strstr (tunables, "glibc.malloc.hugetlb")) ||
        (preload && strstr (preload, "vgpreload")) || !kernel_allows ())
        return;
    char value[1024];
    int n = snprintf (value, sizeof (value), "%s%s" TUNABLE, tunables ? tunables : "", tunables ? ":" : "");
    if (n < 0 || (size_t)n >= sizeof (value))
        return;
    char *old = strdup (tunables ? tunables : "");
    if (!old || setenv (SAVED, old, 1) < 0 || setenv ("GLIBC_TUNABLES", value, 1) < 0) {
        free (old);
        unsetenv (SAVED);
        return;
    }
    ccas_run_exec_self (argv);
    /* could not: go on as we are */
    unsetenv (SAVED);
    restore (old);
    free (old);
}
