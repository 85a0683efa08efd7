/* SPDX-License-Identifier: MIT */
/* fuzz_serve_query.c: the request target of a call to `ccautoscale serve`
 * (anything a host that reaches the service may send after GET): split at
 * '?', the query parsed.  Whatever the bytes, a query accepted names exactly
 * one node, by a value of printable ASCII within the bound; a query refused
 * says why in a message of printable ASCII (it goes back to the caller). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "serve_query.h"

static void printable (const char *s, size_t max)
{
    size_t n = strlen (s);
    if (n > max)
        abort ();
    for (size_t i = 0; i < n; i++)
        if (s[i] < 0x20 || s[i] > 0x7e)
            abort ();
}

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    struct ccas_error err = {""};
    struct serve_query q;
    const char *path, *query;
    size_t plen, qlen;
    serve_query_split ((const char *)data, size, &path, &plen, &query, &qlen);
    if (path != (const char *)data || plen > size ||
        (query && (query < path + plen || query + qlen > path + size)))
        abort ();
    if (serve_query_parse (query, qlen, &q, &err) == 0) {
        if (!q.instance[0] == !q.node[0])
            abort ();
        printable (q.instance, SERVE_QUERY_VALUE_MAX);
        printable (q.node, SERVE_QUERY_VALUE_MAX);
    } else if (!err.text[0])
        abort ();
    else
        printable (err.text, sizeof (err.text) - 1);
    /* the whole input as a query, too: not only what follows a '?' */
    if (serve_query_parse ((const char *)data, size, &q, &err) == 0 && !q.instance[0] == !q.node[0])
        abort ();
    return 0;
}
