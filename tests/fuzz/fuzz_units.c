/* SPDX-License-Identifier: MIT */
/* fuzz_units.c: memory and size strings ("4g", "memory::4g", "527672488kb"). */
#include "config.h"

#include <stdlib.h>

#include "fuzz.h"
#include "util/units.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    struct ccas_error err = {""};
    char *s = fuzz_text (data, size);
    double bytes;
    char buf[64];
    if (ccas_units_parse (s, 1, &bytes, &err) == 0)
        (void)ccas_units_format (bytes, buf, sizeof (buf));
    if (ccas_units_parse (s, 1024.0 * 1024 * 1024, &bytes, &err) == 0)
        (void)ccas_units_format (bytes, buf, sizeof (buf));
    (void)ccas_units_is_size (s);
    (void)ccas_units_looks_like_size (s);
    free (s);
    return 0;
}
