/* SPDX-License-Identifier: MIT */
/* fuzz_pbs_select.c: a select string, a newline, a place string. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "pbs_select.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    struct ccas_error err = {""};
    struct ccas_pbs_chunk chunks[16];
    struct ccas_pbs_place place;
    char *text = fuzz_text (data, size);
    char *nl = strchr (text, '\n');
    if (nl)
        *nl = '\0';
    int n = ccas_pbs_select_parse (text, chunks, 16, &err);
    for (int i = 0; i < n; i++)
        (void)ccas_pbs_chunk_get (&chunks[i], "ncpus");
    (void)ccas_pbs_place_parse (nl ? nl + 1 : NULL, &place, &err);
    free (text);
    return 0;
}
