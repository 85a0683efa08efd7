/* SPDX-License-Identifier: MIT */
/* units.c: parse and format memory and size strings. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/units.h"

static const char *strip_prefix (const char *s)
{
    if (strncmp (s, "memory::", 8) == 0)
        return s + 8;
    if (strncmp (s, "size::", 6) == 0)
        return s + 6;
    return s;
}

/* The multiplier of a suffix, or 0 if it is not one. */
static double suffix_factor (const char *suf)
{
    static const char lower[] = "kmgtp";
    static const char upper[] = "KMGTP";
    size_t len = strlen (suf);

    if (len == 0)
        return -1; /* bare number */
    if (len == 1 && (suf[0] == 'b' || suf[0] == 'B'))
        return 1;
    if (len == 1 && (suf[0] == 'w' || suf[0] == 'W'))
        return 8;
    /* PBS's sizes in words: "kw mw gw tw pw", a word being 8 bytes */
    double word = len == 2 && (suf[1] == 'w' || suf[1] == 'W') ? 8 : 1;
    if (len > 2 || (len == 2 && word == 1 && suf[1] != 'b' && suf[1] != 'B'))
        return 0;
    const char *p = strchr (lower, suf[0]);
    if (p && suf[0])
        return word * pow (1024.0, (double)(p - lower + 1));
    p = strchr (upper, suf[0]);
    if (p && suf[0])
        return word * pow (1000.0, (double)(p - upper + 1));
    return 0;
}

/* strtod also reads hex ("0x10"), exponents and "inf": a size is written in
 * plain decimal, so the number read must be digits with at most one point. */
static bool plain_decimal (const char *from, const char *to)
{
    size_t points = 0, digits = 0;
    for (const char *p = from; p < to; p++) {
        if (*p == '.')
            points++;
        else if (isdigit ((unsigned char)*p))
            digits++;
        else
            return false;
    }
    return digits > 0 && points <= 1;
}

int ccas_units_parse (const char *s, double bare_unit, double *bytes, struct ccas_error *err)
{
    if (!s)
        return ccas_errorf (err, "missing size");
    const char *num = strip_prefix (s);
    while (isspace ((unsigned char)*num))
        num++;
    if (*num == '\0')
        return ccas_errorf (err, "'%s': empty size", s);
    if (*num == '-' || *num == '+')
        return ccas_errorf (err, "'%s': a size cannot be signed", s);
    char *end;
    errno = 0;
    double v = strtod (num, &end);
    if (end == num || errno == ERANGE || !isfinite (v) || !plain_decimal (num, end))
        return ccas_errorf (err, "'%s': not a size", s);
    char suf[8];
    size_t n = strcspn (end, " \t\r\n");
    if (n >= sizeof (suf) || end[n] != '\0')
        return ccas_errorf (err, "'%s': unknown unit suffix '%s'", s, end);
    memcpy (suf, end, n);
    suf[n] = '\0';
    double f = suffix_factor (suf);
    if (f == 0)
        return ccas_errorf (err, "'%s': unknown unit suffix '%s'", s, suf);
    *bytes = v * (f < 0 ? bare_unit : f);
    return 0;
}

bool ccas_units_is_size (const char *s)
{
    if (!s)
        return false;
    if (strncmp (s, "memory::", 8) == 0 || strncmp (s, "size::", 6) == 0)
        return true;
    char *end;
    if (!isdigit ((unsigned char)s[0]) && s[0] != '.')
        return false;
    strtod (s, &end);
    if (end == s || *end == '\0' || !plain_decimal (s, end))
        return false; /* a bare number is a number, not a size */
    double f = suffix_factor (end);
    return f > 0;
}

bool ccas_units_looks_like_size (const char *s)
{
    if (ccas_units_is_size (s))
        return true;
    if (!s || !(isdigit ((unsigned char)s[0]) || s[0] == '.'))
        return false;
    size_t i = strspn (s, "0123456789.");
    size_t letters = 0;
    while (isalpha ((unsigned char)s[i + letters]))
        letters++;
    return letters >= 1 && letters <= 3 && s[i + letters] == '\0';
}

const char *ccas_units_format (double bytes, char *buf, size_t size)
{
    static const char units[] = "bkmgtp";
    int u = 0;
    double v = bytes;
    while (u < 5 && fabs (v) >= 1024.0 && fmod (v * 10.0, 1024.0) == 0.0) {
        v /= 1024.0;
        u++;
    }
    /* prefer a whole number in a smaller unit over a long fraction */
    if (v == floor (v))
        snprintf (buf, size, "%.0f%c", v, units[u]);
    else
        snprintf (buf, size, "%.1f%c", v, units[u]);
    return buf;
}
