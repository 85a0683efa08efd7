/* SPDX-License-Identifier: MIT */
/* conf_keys.h: the table of known configuration keys (private to conf.c).
 *
 * A row says everything about one key: its type, its default, its bounds or
 * values, whether it is required or secret, what it means, and the field it
 * is read into.  Loading, defaults, validation, `ccautoscale config keys`
 * and doc/configuration.md all come from the rows. */
#ifndef CCAS_CONF_KEYS_H
#define CCAS_CONF_KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "conf/conf.h"

enum config_key_type {
    KEY_STRING,
    KEY_ENUM, /* a string among `choices`, read to the chosen value */
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

enum config_key_flag {
    KEY_REQUIRED = 1, /* a file without it is refused; has no default */
    KEY_SECRET = 2,   /* redacted in output */
};

struct config_key {
    const char *name; /* dotted; "*" stands for a name under a KEY_MAP */
    enum config_key_type type;
    const char *dflt; /* JSON text inserted when absent, or NULL */
    double min, max;  /* for numbers; min > max means unbounded */
    /* for KEY_ENUM only: the values, ended by a NULL name */
    const struct ccas_conf_choice *choices;
    unsigned flags; /* enum config_key_flag; KEY_REQUIRED only outside maps */
    const char *doc;
    /* Where the value is read to after loading, by type: a string to a
     * const char *, an enum to its enum field (the choice's value), a
     * boolean to bool (an int of -1/0/1 under "nodearrays.*."), an integer
     * to int and a number to double (both to double, NAN when unset, under
     * "nodearrays.*."), anything else to a json_object *.  Offsets are into
     * struct ccas_config, or struct ccas_nodearray_config for keys under
     * "nodearrays.*." (no enum there); NO_FIELD for sections. */
    size_t field;
};

#define NO_FIELD SIZE_MAX

extern const struct config_key ccas_conf_keys_table[];
extern const size_t ccas_conf_keys_count;

/* The table in parts, for the reference: a group runs from the row named
 * `first` to the next group's first row. */
struct config_group {
    const char *first;
    const char *title;
};

extern const struct config_group ccas_conf_groups[];
extern const size_t ccas_conf_groups_count;

#endif /* !CCAS_CONF_KEYS_H */
