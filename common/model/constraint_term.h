/* SPDX-License-Identifier: MIT */
/* constraint_term.h: a compiled constraint, as constraint_compile.c makes it
 * and constraint_eval.c reads it.  Private to those two files: everything
 * else sees struct ccas_constraint only through constraint.h. */
#ifndef CCAS_CONSTRAINT_TERM_H
#define CCAS_CONSTRAINT_TERM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/constraint.h"

enum term_kind {
    T_TRUE,
    T_AND,
    T_OR,
    T_XOR,
    T_NOT,
    T_MIN,       /* node resource >= amount; consumes */
    T_RES_MATCH, /* node resource matches one of values; read-only */
    T_PROP,      /* node property matches one of values */
    T_EXCLUSIVE,
    T_EXCL_TASK,
    T_IN_PG,
    T_NEVER,
    T_SHARED_MIN,   /* shared pool >= amount; consumes */
    T_SHARED_MATCH, /* shared value matches one of values */
    T_CAPFAIL,      /* bucket had no capacity failure in the last `amount` seconds */
};

struct term {
    enum term_kind kind;
    int index; /* resource id, property, or shared index */
    bool flag; /* exclusive / in-a-placement-group value */
    bool size; /* amount is bytes (for messages) */
    double amount;
    const char *key;           /* as written, for messages */
    const char *message;       /* T_NEVER */
    struct ccas_value *values; /* match options */
    uint32_t nvalues;
    struct term *kids;
    uint32_t nkids;
};

struct ccas_constraint {
    struct term root;
    struct ccas_cons_info info;
    struct ccas_shared *shared; /* the pool shared resources are taken from */
    const char *text;
    const char *key; /* canonical form (see canonical()): equal JSON, equal key */
    size_t keylen;
    uint64_t hash;
};

#endif /* !CCAS_CONSTRAINT_TERM_H */
