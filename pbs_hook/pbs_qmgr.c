/* SPDX-License-Identifier: MIT */
/* pbs_qmgr.c: qmgr's list output as JSON objects. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pbs_qmgr.h"
#include "util/json.h"

/* `s` without its leading and trailing blanks, in `buf`. */
static char *trim (const char *s, size_t len, char *buf, size_t size)
{
    while (len && (*s == ' ' || *s == '\t')) {
        s++;
        len--;
    }
    while (len && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\r'))
        len--;
    snprintf (buf, size, "%.*s", (int)len, s);
    return buf;
}

/* One logical line: a record's head, or one of its attributes. */
static void take (json_object *out, json_object **cur, const char *line, bool indented)
{
    char key[512], value[8192];
    if (!indented) {
        /* "<Kind> <name>" opens a record */
        const char *space = strchr (line, ' ');
        if (!space)
            return;
        *cur = json_object_new_object ();
        json_object_object_add (*cur, "kind", json_object_new_string_len (line, (int)(space - line)));
        json_object_object_add (out, trim (space + 1, strlen (space + 1), key, sizeof (key)), *cur);
        return;
    }
    const char *eq = strchr (line, '=');
    if (!*cur || !eq)
        return;
    trim (line, (size_t)(eq - line), key, sizeof (key));
    trim (eq + 1, strlen (eq + 1), value, sizeof (value));
    json_object_object_add (*cur, key, json_object_new_string (value));
}

json_object *ccas_pbs_qmgr_parse (const char *text)
{
    json_object *out = json_object_new_object ();
    json_object *cur = NULL;
    char logical[16384];
    size_t have = 0; /* bytes of a wrapped line (it ended with a comma) so far */
    bool indented = false;
    if (!out)
        return NULL;
    for (const char *p = text ? text : ""; *p;) {
        size_t len = strcspn (p, "\n");
        char line[8192];
        trim (p, len, line, sizeof (line));
        bool ind = len && (p[0] == ' ' || p[0] == '\t');
        p += len + (p[len] == '\n');
        if (have) {
            have += (size_t)snprintf (logical + have, sizeof (logical) - have, " %s", line);
            if (have >= sizeof (logical))
                have = sizeof (logical) - 1;
        } else if (!line[0]) {
            cur = NULL; /* a blank line ends the record */
            continue;
        } else {
            have = (size_t)snprintf (logical, sizeof (logical), "%s", line);
            indented = ind;
        }
        if (line[0] && line[strlen (line) - 1] == ',')
            continue; /* qmgr wrapped it */
        take (out, &cur, logical, indented);
        have = 0;
    }
    if (have)
        take (out, &cur, logical, indented);
    return out;
}

const char *ccas_pbs_qmgr_attr (json_object *list, const char *name, const char *attr)
{
    json_object *o = ccas_json_get (list, name);
    json_object *v = o ? ccas_json_get (o, attr) : NULL;
    return v && json_object_is_type (v, json_type_string) ? json_object_get_string (v) : NULL;
}
