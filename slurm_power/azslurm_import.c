/* SPDX-License-Identifier: MIT */
/* azslurm_import.c: azslurm's autoscale.json made ccautoscale's. */
#include "config.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "azslurm_import.h"
#include "util/json.h"
#include "util/secret.h"

static int note (struct ccas_azslurm_import *imp, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));
static int note (struct ccas_azslurm_import *imp, const char *fmt, ...)
{
    char text[1024];
    va_list ap;
    va_start (ap, fmt);
    vsnprintf (text, sizeof (text), fmt, ap);
    va_end (ap);
    char **grown = realloc (imp->notes, (imp->nnotes + 1) * sizeof (*imp->notes));
    if (!grown)
        return -1;
    imp->notes = grown;
    if (!(imp->notes[imp->nnotes] = strdup (text)))
        return -1;
    imp->nnotes++;
    return 0;
}

/* Settings of azslurm that ccautoscale leaves, and why. */
static const struct {
    const char *key, *why;
} left[] = {
    {"idle_timeout", "under Slurm, SuspendTime decides when an idle node is powered down (azslurm did not use"
                     " it either)"},
    {"boot_timeout",
     "under Slurm, ResumeTimeout decides how long a node may take to boot (azslurm did not use"
     " it either)"},
    {"lock_file", "ccautoscale keeps a lock of its own (lock_file, default /run/ccautoscale.lock)"},
    {"logging", "ccautoscale logs to syslog (logging.file for a file of its own)"},
    {"accounting", "azslurm's cost reports have no counterpart"},
    {"cost", "azslurm's cost reports have no counterpart"},
    {"azslurmd", "there is no daemon: 'ccautoscale slurm sync', on its systemd timer, does azslurmd's work"},
    {"return-to-idle", "'ccautoscale slurm sync' returns nodes to service itself"},
    {"output-columns", "ccautoscale's tables have columns of their own"},
    {"valid_hostnames", "ccautoscale names nodes from the template's slurm.node_prefix"},
};

static int copy_string (json_object *az, json_object *out, const char *key, bool required, const char *origin,
                        struct ccas_error *err)
{
    json_object *v = ccas_json_get (az, key);
    if (!v && !required)
        return 0;
    if (!v || !json_object_is_type (v, json_type_string) || !json_object_get_string_len (v))
        return ccas_errorf (err, "%s: %s: %s", origin, key,
                            v ? "expected a string that is not empty" : "missing");
    json_object_object_add (out, key, json_object_new_string (json_object_get_string (v)));
    return 0;
}

/* azslurm's config_dir: /sched/<the cluster's name, made a hostname, lower case>. */
static void default_conf_dir (const char *cluster, char *buf, size_t size)
{
    size_t n = (size_t)snprintf (buf, size, "/sched/");
    for (const char *p = cluster; *p && n + 1 < size; p++)
        buf[n++] = isalnum ((unsigned char)*p) ? (char)tolower ((unsigned char)*p) : '-';
    buf[n] = '\0';
}

/* nodearrays.<na>: azslurm's placement group settings. */
static int convert_nodearrays (json_object *nas, struct ccas_azslurm_import *imp, json_object *out)
{
    json_object *mine = NULL;
    json_object_object_foreach (nas, na, set)
    {
        json_object *max = ccas_json_get (set, "max_placement_groups");
        if (max &&
            (json_object_is_type (max, json_type_int) || json_object_is_type (max, json_type_double))) {
            bool colocated = json_object_get_double (max) >= 1;
            json_object *o = json_object_new_object ();
            json_object_object_add (o, "colocated", json_object_new_boolean (colocated));
            if (!mine)
                mine = json_object_new_object ();
            json_object_object_add (mine, na, o);
            if (note (
                    imp,
                    "nodearrays.%s.max_placement_groups %g: nodearrays.%s.colocated %s (placement groups are"
                    " made per job)",
                    na, json_object_get_double (max), na, colocated ? "true" : "false") < 0)
                return -1;
        }
        json_object_object_foreach (set, key, v)
        {
            (void)v;
            if (strcmp (key, "max_placement_groups") != 0 &&
                note (imp, "nodearrays.%s.%s: not carried (ccautoscale makes a placement group per job)", na,
                      key) < 0)
                return -1;
        }
    }
    if (mine)
        json_object_object_add (out, "nodearrays", mine);
    return 0;
}

int ccas_azslurm_import_convert (json_object *az, const char *origin, struct ccas_azslurm_import *out,
                                 struct ccas_error *err)
{
    struct ccas_azslurm_import imp = {NULL, NULL, 0, ""};
    char brief[64];
    memset (out, 0, sizeof (*out));
    if (!json_object_is_type (az, json_type_object))
        return ccas_errorf (err, "%s: expected a JSON object at the top, got %s", origin,
                            ccas_json_brief (az, brief, sizeof (brief)));
    json_object *c = imp.config = json_object_new_object ();
    json_object *slurm = json_object_new_object ();
    if (!c || !slurm) {
        json_object_put (slurm);
        goto oom;
    }
    if (copy_string (az, c, "url", true, origin, err) < 0 ||
        copy_string (az, c, "username", true, origin, err) < 0 ||
        copy_string (az, c, "password", true, origin, err) < 0 ||
        copy_string (az, c, "cluster_name", true, origin, err) < 0) {
        json_object_put (slurm);
        goto fail;
    }
    if (note (&imp, "url, username, password, cluster_name: carried (the file is written mode 0600)") < 0)
        goto oom_slurm;

    json_object *v = ccas_json_get (az, "verify_certificates");
    if (v && !json_object_is_type (v, json_type_boolean)) {
        json_object_put (slurm);
        ccas_errorf (err, "%s: verify_certificates: expected true or false, got %s", origin,
                     ccas_json_brief (v, brief, sizeof (brief)));
        goto fail;
    }
    if (v)
        json_object_object_add (c, "verify_certificates",
                                json_object_new_boolean (json_object_get_boolean (v)));
    else if (note (&imp, "verify_certificates: azslurm did not verify CycleCloud's certificate (scalelib's"
                         " default); ccautoscale does: for a self-signed certificate set ca_file to its CA"
                         " (verify_certificates false only to try)") < 0)
        goto oom_slurm;

    if ((v = ccas_json_get (az, "default_resources"))) {
        json_object *copy = NULL;
        if (!json_object_is_type (v, json_type_array)) {
            json_object_put (slurm);
            ccas_errorf (err, "%s: default_resources: expected an array, got %s", origin,
                         ccas_json_brief (v, brief, sizeof (brief)));
            goto fail;
        }
        if (json_object_deep_copy (v, &copy, NULL) < 0)
            goto oom_slurm;
        json_object_object_add (c, "default_resources", copy);
        if (note (&imp,
                  "default_resources: %zu rule%s carried (slurm_memory and slurm_gpus are read as azslurm"
                  " reads them)",
                  json_object_array_length (v), json_object_array_length (v) == 1 ? "" : "s") < 0)
            goto oom_slurm;
    }
    if ((v = ccas_json_get (az, "disable_default_resources")) && json_object_is_type (v, json_type_boolean))
        json_object_object_add (c, "disable_default_resources",
                                json_object_new_boolean (json_object_get_boolean (v)));

    const char *dir = ccas_json_str (az, "config_dir");
    if (dir && *dir)
        snprintf (imp.conf_dir, sizeof (imp.conf_dir), "%s", dir);
    else
        default_conf_dir (json_object_get_string (ccas_json_get (c, "cluster_name")), imp.conf_dir,
                          sizeof (imp.conf_dir));
    json_object_object_add (slurm, "conf_dir", json_object_new_string (imp.conf_dir));
    json_object_object_add (slurm, "nodes_file", json_object_new_string ("azure.conf"));
    json_object_object_add (slurm, "keepalive_file", json_object_new_string ("keep_alive.conf"));
    json_object_object_add (c, "slurm", slurm);
    if (note (
            &imp,
            "config_dir '%s'%s: slurm.conf_dir; 'slurm conf --write %s' writes azure.conf (slurm.nodes_file),"
            " gres.conf and topology.conf there, and sync keeps KeepAlive nodes in keep_alive.conf"
            " (slurm.keepalive_file): the stock slurm.conf includes them as they are",
            imp.conf_dir, dir && *dir ? "" : " (azslurm's default)", imp.conf_dir) < 0)
        goto oom;

    if ((v = ccas_json_get (az, "nodearrays")) && json_object_is_type (v, json_type_object) &&
        convert_nodearrays (v, &imp, c) < 0)
        goto oom;

    json_object_object_foreach (az, key, val)
    {
        static const char *const done[] = {"url",
                                           "username",
                                           "password",
                                           "cluster_name",
                                           "verify_certificates",
                                           "default_resources",
                                           "disable_default_resources",
                                           "config_dir",
                                           "nodearrays",
                                           NULL};
        bool handled = false;
        (void)val;
        for (const char *const *d = done; *d && !handled; d++)
            handled = strcmp (key, *d) == 0;
        for (size_t i = 0; i < sizeof (left) / sizeof (left[0]) && !handled; i++)
            if (strcmp (key, left[i].key) == 0) {
                if (note (&imp, "%s: not carried: %s", key, left[i].why) < 0)
                    goto oom;
                handled = true;
            }
        if (!handled && note (&imp, "%s: not carried: ccautoscale has no such setting", key) < 0)
            goto oom;
    }
    *out = imp;
    return 0;
oom_slurm:
    json_object_put (slurm);
oom:
    ccas_errorf (err, "out of memory");
fail:
    ccas_azslurm_import_release (&imp);
    return -1;
}

void ccas_azslurm_import_release (struct ccas_azslurm_import *imp)
{
    json_object *pw = ccas_json_get (imp->config, "password");
    if (json_object_is_type (pw, json_type_string))
        ccas_secret_burn ((char *)json_object_get_string (pw), (size_t)json_object_get_string_len (pw));
    json_object_put (imp->config);
    for (size_t i = 0; i < imp->nnotes; i++)
        free (imp->notes[i]);
    free (imp->notes);
    memset (imp, 0, sizeof (*imp));
}
