/* SPDX-License-Identifier: MIT */
/* conf_doc.c: the configuration reference, as Markdown or roff, from the key table. */
#include "config.h"

#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "conf_doc.h"

/* What the file is, before the keys: one paragraph each, `code` in
 * backquotes. */
static const char *const intro[] = {
    "ccautoscale and its Slurm programs read one JSON object from a file: `-c FILE`, else the file "
    "`$CCAUTOSCALE_CONFIG` names, else (for the Slurm programs) `ccautoscale.json` beside `$SLURM_CONF` "
    "when there is one, else `" CCAS_DEFAULT_CONFIG "`.",

    "The file is checked before anything runs: an unknown key, or a value of the wrong type, out of its "
    "range or not among its values, is an error that names the key's path, such as "
    "`nodearrays.hpc.idle_timeout: expected a number, got \"5m\"`.  A key left out takes its default.  "
    "`ccautoscale config check` checks a file and prints it with every default filled in; "
    "`ccautoscale config keys` prints this reference.",

    "Set every key marked required, and one of `password` and `password_file`.  A file that holds a "
    "password must give group and others no access (mode 0600), or it is refused.  Durations are in "
    "seconds.  `nodearrays.NAME` holds the settings of the nodearray named NAME; its `idle_timeout` and "
    "`boot_timeout` come before the global keys of those names.",
};

/* Loaded before anything is written (check_example). */
static const char example[] = "{\n"
                              "  \"url\": \"https://cyclecloud.example.com\",\n"
                              "  \"username\": \"ccautoscale\",\n"
                              "  \"password_file\": \"/etc/ccautoscale/password\",\n"
                              "  \"cluster_name\": \"hpc1\",\n"
                              "  \"idle_timeout\": {\"default\": 300, \"hpc\": 900},\n"
                              "  \"logging\": {\"level\": \"info\"},\n"
                              "  \"nodearrays\": {\"gpu\": {\"priority\": 10}},\n"
                              "  \"default_resources\": [\n"
                              "    {\"select\": {\"node.vm_size\": \"Standard_ND96asr_v4\"}, \"name\": "
                              "\"ngpus\", \"value\": 8}\n"
                              "  ],\n"
                              "  \"slurm\": {\"conf_dir\": \"/etc/slurm\"}\n"
                              "}\n";

enum doc_format {
    DOC_MARKDOWN,
    DOC_ROFF,
};

struct writer {
    FILE *f;
    enum doc_format fmt;
    bool in_table; /* Markdown: a '|' must be escaped even in code */
    const struct ccas_conf_key_doc *keys;
    size_t nkeys;
};

static int check_example (struct ccas_error *err)
{
    struct ccas_config *cfg = ccas_conf_from_json (json_tokener_parse (example), "the example", err);
    if (!cfg)
        return -1;
    ccas_conf_destroy (cfg);
    return 0;
}

/* ---- text, code and prose ------------------------------------------------------------------ */

static void put_plain (const struct writer *w, const char *s, size_t len)
{
    if (w->fmt == DOC_ROFF) {
        cli_print_roff (w->f, s, len);
        return;
    }
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '<')
            fputs ("&lt;", w->f);
        else if (s[i] == '>')
            fputs ("&gt;", w->f);
        else {
            if (strchr ("\\`*|", s[i]))
                fputc ('\\', w->f);
            fputc (s[i], w->f);
        }
    }
}

static void put_code (const struct writer *w, const char *s, size_t len)
{
    if (w->fmt == DOC_ROFF) {
        fputs ("\\fB", w->f);
        cli_print_roff (w->f, s, len);
        fputs ("\\fR", w->f);
        return;
    }
    fputc ('`', w->f);
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '|' && w->in_table)
            fputc ('\\', w->f);
        fputc (s[i], w->f);
    }
    fputc ('`', w->f);
}

static void put_str (const struct writer *w, const char *s)
{
    put_plain (w, s, strlen (s));
}

/* A word of the documentation that names a key ("logging.level",
 * "password_file"): set as code. */
static bool names_key (const struct writer *w, const char *s, size_t len)
{
    if (!memchr (s, '_', len) && !memchr (s, '.', len))
        return false;
    for (size_t i = 0; i < w->nkeys; i++)
        if (strlen (w->keys[i].name) == len && strncmp (w->keys[i].name, s, len) == 0)
            return true;
    return false;
}

static bool word_char (char c)
{
    return isalnum ((unsigned char)c) || c == '_';
}

/* Text with `code` in backquotes, and key names set as code. */
static void put_prose (const struct writer *w, const char *text)
{
    const char *plain = text, *p = text;
    while (*p) {
        const char *end = *p == '`' ? strchr (p + 1, '`') : NULL;
        if (end) {
            put_plain (w, plain, (size_t)(p - plain));
            put_code (w, p + 1, (size_t)(end - p - 1));
            plain = p = end + 1;
        } else if (word_char (*p) && (p == text || !(word_char (p[-1]) || p[-1] == '.'))) {
            size_t len = strspn (p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.");
            while (p[len - 1] == '.')
                len--;
            if (names_key (w, p, len)) {
                put_plain (w, plain, (size_t)(p - plain));
                put_code (w, p, len);
                plain = p + len;
            }
            p += len;
        } else
            p++;
    }
    put_plain (w, plain, (size_t)(p - plain));
}

/* ---- what a key's row says ----------------------------------------------------------------- */

/* "nodearrays.*.priority" as the reader writes it: "nodearrays.NAME.priority". */
static const char *display_name (const char *name, char *buf, size_t size)
{
    size_t o = 0;
    for (const char *p = name; *p && o + 5 < size; p++) {
        if (*p == '*') {
            memcpy (buf + o, "NAME", 4);
            o += 4;
        } else
            buf[o++] = *p;
    }
    buf[o] = '\0';
    return buf;
}

static const char *number (double d, char *buf, size_t size)
{
    if (d == floor (d) && fabs (d) < 1e15)
        snprintf (buf, size, "%.0f", d);
    else
        snprintf (buf, size, "%g", d);
    return buf;
}

const char *conf_doc_allowed (const struct ccas_conf_key_doc *k, char *buf, size_t size)
{
    char lo[32], hi[32];
    size_t used = 0;
    buf[0] = '\0';
    if (k->bounded)
        snprintf (buf, size, "[%s, %s]", number (k->min, lo, sizeof (lo)), number (k->max, hi, sizeof (hi)));
    for (const struct ccas_conf_choice *c = k->choices; c && c->name && used < size; c++)
        used += (size_t)snprintf (buf + used, size - used, "%s%s", c == k->choices ? "" : "|", c->name);
    return buf;
}

/* "one of `a`, `b`" or "0.1 to 600"; nothing when neither applies. */
static void put_allowed (const struct writer *w, const struct ccas_conf_key_doc *k, const char *before)
{
    char lo[32], hi[32];
    if (k->choices) {
        fputs (before, w->f);
        put_str (w, "one of ");
        for (const struct ccas_conf_choice *c = k->choices; c->name; c++) {
            put_str (w, c == k->choices ? "" : ", ");
            put_code (w, c->name, strlen (c->name));
        }
    } else if (k->bounded) {
        fputs (before, w->f);
        put_str (w, number (k->min, lo, sizeof (lo)));
        put_str (w, " to ");
        put_str (w, number (k->max, hi, sizeof (hi)));
    }
}

/* ---- Markdown ------------------------------------------------------------------------------ */

static void markdown_key (struct writer *w, const struct ccas_conf_key_doc *k)
{
    char name[128];
    display_name (k->name, name, sizeof (name));
    fputs ("| ", w->f);
    put_code (w, name, strlen (name));
    fputs (" | ", w->f);
    put_str (w, k->type);
    fputs (" | ", w->f);
    if (k->dflt)
        put_code (w, k->dflt, strlen (k->dflt));
    else
        fputs ("–", w->f);
    put_allowed (w, k, " | ");
    if (!k->choices && !k->bounded)
        fputs (" |", w->f);
    fputs (" | ", w->f);
    if (k->required)
        fputs ("**Required.** ", w->f);
    if (k->secret)
        fputs ("**Secret**: shown as `****`. ", w->f);
    put_prose (w, k->doc);
    fputs (" |\n", w->f);
}

static void markdown (struct writer *w)
{
    fputs ("# Configuration reference\n\n"
           "<!-- Generated from the key table, common/conf/conf_keys.c, by\n"
           "     `ccautoscale config keys --markdown`: do not edit.  After changing the\n"
           "     table, run `make -C doc update-configuration` in the build tree. -->\n",
           w->f);
    for (size_t i = 0; i < sizeof (intro) / sizeof (intro[0]); i++) {
        fputc ('\n', w->f);
        put_prose (w, intro[i]);
        fputc ('\n', w->f);
    }
    fprintf (w->f, "\n## Example\n\n```json\n%s```\n", example);
    w->in_table = true;
    for (size_t i = 0; i < w->nkeys; i++) {
        if (i == 0 || strcmp (w->keys[i].group, w->keys[i - 1].group) != 0)
            fprintf (w->f, "\n## %s\n\n| Key | Type | Default | Allowed | Meaning |\n|---|---|---|---|---|\n",
                     w->keys[i].group);
        markdown_key (w, &w->keys[i]);
    }
    w->in_table = false;
}

/* ---- roff: ccautoscale.json(5) ------------------------------------------------------------- */

static void roff_key (struct writer *w, const struct ccas_conf_key_doc *k)
{
    char name[128];
    display_name (k->name, name, sizeof (name));
    fputs (".TP\n", w->f);
    put_code (w, name, strlen (name));
    fputc ('\n', w->f);
    put_str (w, k->type);
    put_allowed (w, k, ", ");
    if (k->dflt) {
        put_str (w, "; default ");
        put_code (w, k->dflt, strlen (k->dflt));
    }
    if (k->required)
        put_str (w, "; required");
    if (k->secret)
        put_str (w, "; secret, shown as ****");
    fputs ("\n.br\n", w->f);
    put_prose (w, k->doc);
    fputc ('\n', w->f);
}

static void roff (struct writer *w)
{
    fprintf (w->f, ".TH ccautoscale.json 5 \"\" \"%s %s\" \"ccautoscale manual\"\n", PACKAGE_NAME,
             PACKAGE_VERSION);
    fputs (".SH NAME\nccautoscale.json \\- configuration of ccautoscale\n.SH DESCRIPTION\n", w->f);
    for (size_t i = 0; i < sizeof (intro) / sizeof (intro[0]); i++) {
        if (i)
            fputs (".PP\n", w->f);
        put_prose (w, intro[i]);
        fputc ('\n', w->f);
    }
    fputs (".SH KEYS\n", w->f);
    for (size_t i = 0; i < w->nkeys; i++) {
        if (i == 0 || strcmp (w->keys[i].group, w->keys[i - 1].group) != 0) {
            fputs (".SS ", w->f);
            put_str (w, w->keys[i].group);
            fputc ('\n', w->f);
        }
        roff_key (w, &w->keys[i]);
    }
    fputs (".SH EXAMPLE\n.nf\n", w->f);
    put_str (w, example);
    fputs (".fi\n.SH SEE ALSO\n", w->f);
    put_str (w, "ccautoscale(8), ccautoscale-config-check(8), ccautoscale-config-keys(8)");
    fputc ('\n', w->f);
}

static int write_doc (FILE *f, enum doc_format fmt, struct ccas_error *err)
{
    struct writer w = {.f = f, .fmt = fmt};
    if (check_example (err) < 0)
        return -1;
    w.keys = ccas_conf_keys (&w.nkeys);
    if (fmt == DOC_MARKDOWN)
        markdown (&w);
    else
        roff (&w);
    return 0;
}

int conf_doc_markdown (FILE *f, struct ccas_error *err)
{
    return write_doc (f, DOC_MARKDOWN, err);
}

int conf_doc_roff (FILE *f, struct ccas_error *err)
{
    return write_doc (f, DOC_ROFF, err);
}
