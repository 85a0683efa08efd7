/* SPDX-License-Identifier: MIT */
/* conf_keys.h: the table of known configuration keys (private to conf.c). */
#ifndef CCAS_CONF_KEYS_H
#define CCAS_CONF_KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum config_key_type {
    KEY_STRING,
    KEY_BOOL,
    KEY_INT,
    KEY_NUMBER,
    KEY_SECONDS_MAP, /* a number, or {"default": n, "<nodearray>": m} */
    KEY_ARRAY,       /* contents checked by the module that uses it */
    KEY_SECTION,     /* an object whose members are listed in the table */
    KEY_MAP,         /* an object of arbitrary names; members follow "<key>.*" */
    KEY_INT_MAP,     /* an object of arbitrary names to integers */
    KEY_STRING_LIST, /* an array of strings */
    KEY_OPEN,        /* any JSON, kept as is */
};

struct config_key {
    const char *name; /* dotted; "*" stands for a name under a KEY_MAP */
    enum config_key_type type;
    const char *dflt;    /* JSON text inserted when absent, or NULL */
    double min, max;     /* for numbers; min > max means unbounded */
    const char *choices; /* for strings: "a|b|c", or NULL */
    bool secret;         /* redacted in output */
    const char *doc;
    /* Where the value is read to after loading, by type: a string to a
     * const char *, a boolean to bool (an int of -1/0/1 under "nodearrays.*."),
     * an integer to int and a number to double (both to double, NAN when
     * unset, under "nodearrays.*."), anything else to a json_object *.
     * Offsets are into struct ccas_config, or struct ccas_nodearray_config
     * for keys under "nodearrays.*."; NO_FIELD for sections. */
    size_t field;
};

#define NO_FIELD SIZE_MAX

extern const struct config_key ccas_conf_keys_table[];
extern const size_t ccas_conf_keys_count;

#endif /* !CCAS_CONF_KEYS_H */
