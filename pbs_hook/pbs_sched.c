/* SPDX-License-Identifier: MIT */
/* pbs_sched.c: find sched_config and read its resources: line. */
#include "config.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pbs_sched.h"

const char *const ccas_pbs_sched_resources[] = {
    "slot_type", "group_id", "ungrouped", "disk", "ngpus", "nodearray", "vm_size", NULL,
};

/* PBS_HOME=... in pbs.conf, or "" */
static void conf_home (const char *conf, char *buf, size_t size)
{
    char line[4096];
    FILE *f = fopen (conf, "r");
    buf[0] = '\0';
    if (!f)
        return;
    while (fgets (line, sizeof (line), f))
        if (strncmp (line, "PBS_HOME=", 9) == 0) {
            line[strcspn (line, "\r\n")] = '\0';
            snprintf (buf, size, "%s", line + 9);
        }
    fclose (f);
}

void ccas_pbs_sched_config_path (char *buf, size_t size)
{
    char home[4096];
    const char *env = getenv ("PBS_HOME");
    const char *conf = getenv ("PBS_CONF_FILE");
    if (env && *env)
        snprintf (home, sizeof (home), "%s", env);
    else
        conf_home (conf && *conf ? conf : "/etc/pbs.conf", home, sizeof (home));
    snprintf (buf, size, "%s/sched_priv/sched_config", home[0] ? home : "/var/spool/pbs");
}

/* The value of the last uncommented "resources:" line, quotes removed, or NULL. */
static char *resources_value (const char *text)
{
    const char *found = NULL;
    for (const char *p = text; p && *p; p = strchr (p, '\n'), p = p ? p + 1 : NULL)
        if (strncmp (p, "resources:", 10) == 0)
            found = p + 10;
    if (!found)
        return NULL;
    size_t n = strcspn (found, "\r\n");
    char *v = strndup (found, n);
    if (!v)
        return NULL;
    char *q = strchr (v, '"');
    if (q) {
        memmove (v, q + 1, strlen (q + 1) + 1);
        v[strcspn (v, "\"")] = '\0';
    }
    return v;
}

static bool listed (const char *list, const char *name)
{
    size_t n = strlen (name);
    for (const char *p = list; *p;) {
        while (*p == ',' || isspace ((unsigned char)*p))
            p++;
        size_t len = strcspn (p, ", \t");
        if (len == n && strncmp (p, name, n) == 0)
            return true;
        p += len;
    }
    return false;
}

static void append (char *buf, size_t size, const char *sep, const char *word)
{
    size_t len = strlen (buf);
    if (len < size)
        snprintf (buf + len, size - len, "%s%s", len ? sep : "", word);
}

int ccas_pbs_sched_check (const char *text, const char *const *wanted, char *missing, size_t msize,
                          char *line, size_t lsize)
{
    char *value = resources_value (text);
    int count = 0;
    missing[0] = '\0';
    line[0] = '\0';
    if (!value)
        return 0;
    size_t nsize = 2 * strlen (value) + msize + 16; /* each name and its ", " */
    char *names = malloc (nsize);
    if (!names) {
        free (value);
        return 0;
    }
    /* the existing names as they are, trimmed, then the missing ones */
    names[0] = '\0';
    char *save = NULL;
    for (char *w = strtok_r (value, ", \t", &save); w; w = strtok_r (NULL, ", \t", &save))
        append (names, nsize, ", ", w);
    for (size_t i = 0; wanted[i]; i++)
        if (!listed (names, wanted[i]) && !listed (missing, wanted[i])) {
            append (missing, msize, ", ", wanted[i]);
            count++;
        }
    if (count) {
        append (names, nsize, ", ", missing);
        snprintf (line, lsize, "resources: \"%s\"", names);
    }
    free (names);
    free (value);
    return count;
}
