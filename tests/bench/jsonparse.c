/* SPDX-License-Identifier: MIT */
/* jsonparse: read and parse each file with json-c and free it — the floor
 * against which `demand` is measured ("within 3x of merely parsing").
 *   jsonparse FILE... */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include <json-c/json.h>

static int parse_file (const char *path)
{
    FILE *f = fopen (path, "rb");
    if (!f) {
        perror (path);
        return -1;
    }
    fseek (f, 0, SEEK_END);
    long size = ftell (f);
    rewind (f);
    char *buf = malloc ((size_t)size + 1);
    if (!buf || fread (buf, 1, (size_t)size, f) != (size_t)size) {
        fprintf (stderr, "%s: read failed\n", path);
        fclose (f);
        free (buf);
        return -1;
    }
    fclose (f);
    json_tokener *tok = json_tokener_new ();
    json_object *o = json_tokener_parse_ex (tok, buf, (int)size);
    int ok = o != NULL;
    json_object_put (o);
    json_tokener_free (tok);
    free (buf);
    if (!ok)
        fprintf (stderr, "%s: not JSON\n", path);
    return ok ? 0 : -1;
}

int main (int argc, char **argv)
{
    int rc = 0;
    for (int i = 1; i < argc; i++)
        if (parse_file (argv[i]) < 0)
            rc = 1;
    return rc;
}
