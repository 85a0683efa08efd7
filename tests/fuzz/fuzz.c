/* SPDX-License-Identifier: MIT */
/* fuzz.c: inputs as strings and a fresh model per input. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ccapi.h"
#include "fuzz.h"
#include "jsonutil.h"

char *fuzz_text (const uint8_t *data, size_t size)
{
    char *s = malloc (size + 1);
    if (!s)
        abort ();
    memcpy (s, data, size);
    s[size] = '\0';
    return s;
}

static void die (const char *what, const struct ccas_error *err)
{
    fprintf (stderr, "fuzz fixture: %s: %s\n", what, err->text);
    abort ();
}

struct ccas_config *fuzz_config (void)
{
    static const char text[] = "{\"url\": \"http://127.0.0.1:1\", \"username\": \"u\", \"password\": \"p\","
                               " \"cluster_name\": \"test\", \"logging\": {\"syslog\": false}}";
    struct ccas_error err = { "" };
    json_object *root = ccas_json_parse (text, sizeof (text) - 1, "fuzz config", &err);
    struct ccas_config *cfg = root ? ccas_config_from_json (root, "fuzz config", &err) : NULL;
    if (!cfg)
        die ("config", &err);
    return cfg;
}

struct fuzz_model fuzz_model_create (void)
{
    static char *status_text;
    static size_t status_len;
    struct ccas_error err = { "" };
    struct fuzz_model m = { fuzz_config (), NULL };
    if (!status_text && !(status_text = ccas_read_file (CCSIM_CLUSTERS_DIR "/small.json", 1 << 20, &status_len, &err)))
        die ("small.json", &err);
    json_object *root = ccas_json_parse (status_text, status_len, "small.json", &err);
    struct ccas_cluster_status *st = root ? ccas_cluster_status_from_json (root, "test", &err) : NULL;
    if (!st || !(m.cluster = ccas_cluster_create (m.cfg, st, NULL, &err)))
        die ("model", &err);
    return m;
}

void fuzz_model_destroy (struct fuzz_model *m)
{
    ccas_cluster_destroy (m->cluster);
    ccas_config_destroy (m->cfg);
}
