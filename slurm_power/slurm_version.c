/* SPDX-License-Identifier: MIT */
/* slurm_version.c: Slurm versions, and what each does differently. */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "slurm_version.h"

/* One number of up to three digits at *p; -1 if there is none. */
static long number (const char **p)
{
    char *end;
    if (!isdigit ((unsigned char)**p))
        return -1;
    long v = strtol (*p, &end, 10);
    if (end - *p > 3 || v > 255)
        return -1;
    *p = end;
    return v;
}

int ccas_slurm_version_parse (const char *text, unsigned *version, struct ccas_error *err)
{
    const char *p = text ? text : "";
    if (strncmp (p, "slurm ", 6) == 0)
        p += 6;
    long major = number (&p), minor = -1, micro = 0;
    if (major >= 0 && *p == '.') {
        p++;
        minor = number (&p);
    }
    if (minor >= 0 && *p == '.') {
        p++;
        if ((micro = number (&p)) < 0)
            minor = -1;
    }
    /* what may follow: a release candidate's "-0rc1" */
    if (major < 0 || minor < 0 || (*p && *p != '-'))
        return ccas_errorf (err,
                            "'%.40s': not a Slurm version (MAJOR.MINOR or MAJOR.MINOR.MICRO, such as 25.11)",
                            text ? text : "");
    *version = CCAS_SLURM_VERSION (major, minor, micro);
    return 0;
}

bool ccas_slurm_list_has (const char *list, const char *word)
{
    size_t len = strlen (word);
    for (const char *p = list; p && *p;) {
        size_t n = strcspn (p, ",");
        if (n >= len && strncasecmp (p, word, len) == 0 && (n == len || p[len] == '='))
            return true;
        p += n + (p[n] ? 1 : 0);
    }
    return false;
}

void ccas_slurm_traits_init (struct ccas_slurm_traits *t, unsigned version, const char *params)
{
    memset (t, 0, sizeof (*t));
    t->version = version;
    unsigned major = version >> 16, minor = (version >> 8) & 0xff, micro = version & 0xff;
    snprintf (t->text, sizeof (t->text), "%u.%02u.%u", major, minor, micro);
    bool since_23_11 = version >= CCAS_SLURM_VERSION (23, 11, 0);
    t->reconfigure_applies_nodes = since_23_11;
    t->cloud_settings_defunct = since_23_11;
    t->sets_cloud_addrs = since_23_11 || ccas_slurm_list_has (params, "cloud_reg_addrs");
    t->live_suspend_exc = version >= CCAS_SLURM_VERSION (23, 2, 0);
    t->dynamic_topology = version >= CCAS_SLURM_VERSION (25, 11, 0);
}
