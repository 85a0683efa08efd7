/* SPDX-License-Identifier: MIT */
/* fuzz.c: inputs as strings and a fresh model per input. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ccapi/ccapi.h"
#include "fuzz.h"
#include "util/file.h"
#include "util/json.h"

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
    struct ccas_error err = {""};
    json_object *root = ccas_json_parse (text, sizeof (text) - 1, "fuzz config", &err);
    struct ccas_config *cfg = root ? ccas_conf_from_json (root, "fuzz config", &err) : NULL;
    if (!cfg)
        die ("config", &err);
    return cfg;
}

/* The configuration and the parsed small.json are made once: a model
 * borrows the first and takes a reference to the second, which the model
 * only reads, so no input reaches the next through them; parsing both per
 * input was three quarters of a run, and copying the tree half of the rest. */
struct fuzz_model fuzz_model_create (void)
{
    static struct ccas_config *cfg;
    static json_object *status;
    struct ccas_error err = {""};
    if (!cfg)
        cfg = fuzz_config ();
    if (!status) {
        size_t len;
        char *text = ccas_file_read (CCSIM_CLUSTERS_DIR "/small.json", 1 << 20, &len, &err);
        status = text ? ccas_json_parse (text, len, "small.json", &err) : NULL;
        free (text);
        if (!status)
            die ("small.json", &err);
    }
    struct fuzz_model m = {cfg, NULL};
    struct ccas_status *st = ccas_status_from_json (json_object_get (status), "test", &err);
    if (!st || !(m.cluster = ccas_cluster_create (m.cfg, st, NULL, &err)))
        die ("model", &err);
    return m;
}

void fuzz_model_destroy (struct fuzz_model *m)
{
    ccas_cluster_destroy (m->cluster);
}
