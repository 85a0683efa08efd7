/* SPDX-License-Identifier: MIT */
/* pbs_select.h: PBS select and place strings.
 *
 *   select = chunk ["+" chunk ...];  chunk = [count ":"] res "=" value [":" res "=" value ...]
 *   place  = [arrangement][":" sharing][":" "group=" resource]
 *
 * Parsing never allocates: a chunk's fields point into a copy the caller
 * owns (the string is split in place).
 */
#ifndef CCAS_PBS_SELECT_H
#define CCAS_PBS_SELECT_H

#include <stdbool.h>
#include <stdint.h>

#include "util/error.h"

#define CCAS_PBS_MAX_FIELDS 32

struct ccas_pbs_field {
    const char *name;
    const char *value;
};

struct ccas_pbs_chunk {
    uint32_t count;
    struct ccas_pbs_field fields[CCAS_PBS_MAX_FIELDS];
    uint32_t nfields;
};

enum ccas_pbs_arrangement { CCAS_PBS_FREE, CCAS_PBS_PACK, CCAS_PBS_SCATTER, CCAS_PBS_VSCATTER };
enum ccas_pbs_sharing { CCAS_PBS_SHARED_DEFAULT, CCAS_PBS_SHARED, CCAS_PBS_EXCL, CCAS_PBS_EXCLHOST };

struct ccas_pbs_place {
    enum ccas_pbs_arrangement arrangement;
    enum ccas_pbs_sharing sharing;
    char group[64]; /* "group_id", or "" */
};

/* Split `select` (modified in place) into at most `max` chunks.  Returns the
 * number of chunks, or -1 with `err` quoting the bad part
 * ("select: chunk 2: 'ncpus': expected resource=value"). */
int ccas_pbs_select_parse (char *select, struct ccas_pbs_chunk *chunks, int max, struct ccas_error *err);

/* Parse `place` (NULL or "" is free and shared).  Returns 0 or -1 with `err`. */
int ccas_pbs_place_parse (const char *place, struct ccas_pbs_place *out, struct ccas_error *err);

/* A chunk field by name, or NULL. */
const char *ccas_pbs_chunk_get (const struct ccas_pbs_chunk *chunk, const char *name);

/* A PBS resource or node name: letters, digits, '_', '-' and '.', starting
 * with a letter or digit, at most 255 bytes.  Names pass this before they
 * reach a qmgr command. */
bool ccas_pbs_name_valid (const char *name);

#endif /* !CCAS_PBS_SELECT_H */
