/* SPDX-License-Identifier: MIT */
/* units.h: memory and size strings ("4g", "8gb", "memory::4g", "527672488kb").
 *
 * Every size is a number of bytes held in a double (exact to 2^53 bytes).
 * Lower-case suffixes k m g t p are powers of 1024; upper-case K M G T P are
 * powers of 1000; a trailing "b"/"B" changes nothing ("4gb" = "4g", "4GB" =
 * "4G"), which is how PBS's "kb mb gb tb" come out as powers of 1024.  "b"
 * alone is bytes and "w" a 64-bit word (PBS), so "kw mw gw tw pw" are 8 times
 * "k m g t p".  "memory::" and "size::"
 * prefixes mark a string as a size without changing its value.
 */
#ifndef CCAS_UNITS_H
#define CCAS_UNITS_H

#include <stdbool.h>
#include <stddef.h>

#include "util/error.h"

/* Parse `s` into bytes.  A bare number is bytes times `bare_unit` (1 for
 * bytes, 1048576 for Slurm's megabytes).  Returns 0, or -1 with `err` quoting
 * the input ("'4gbb': unknown unit suffix 'gbb'"). */
int ccas_units_parse (const char *s, double bare_unit, double *bytes, struct ccas_error *err);

/* True if `s` has the shape of a size with a unit or a "memory::"/"size::"
 * prefix (so a resource value string should be read as a size). */
bool ccas_units_is_size (const char *s);

/* True if `s` is a size or was meant as one: digits followed by one to
 * three letters ("4gbb" was meant as a size and should be refused as a bad
 * one, not matched as a string). */
bool ccas_units_looks_like_size (const char *s);

/* Render `bytes` in the largest power-of-1024 unit that keeps it exact to one
 * decimal ("4g", "1.5t", "512m", "100b").  Returns `buf`. */
const char *ccas_units_format (double bytes, char *buf, size_t size);

#define CCAS_KIB 1024.0
#define CCAS_MIB (1024.0 * 1024.0)
#define CCAS_GIB (1024.0 * 1024.0 * 1024.0)

#endif /* !CCAS_UNITS_H */
