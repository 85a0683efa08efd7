/* SPDX-License-Identifier: MIT */
/* fuzz_responses.c: the other answers CycleCloud gives — node lists (GET
 * /nodes), create and scale results, node action results.  The first byte
 * picks the parser; the rest is the body, and is also read as a header line
 * (Retry-After in seconds or as an HTTP date, Location). */
#include "config.h"

#include "ccapi/ccapi.h"
#include "ccapi/http.h"
#include "fuzz.h"
#include "util/json.h"

static void node_predicates (const struct ccas_record *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        (void)ccas_record_is_ready (&v[i]);
        (void)ccas_record_is_failed (&v[i]);
        (void)ccas_record_is_settled (&v[i]);
    }
}

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    struct ccas_error err = {""};
    if (size < 1)
        return 0;
    unsigned which = data[0] % 3, nsets = data[0] / 3 % 5;
    long retry_after = -1;
    char location[256];
    ccas_http_read_header ((const char *)data + 1, size - 1, 1795608000, &retry_after, location,
                           sizeof (location));
    json_object *root = ccas_json_parse ((const char *)data + 1, size - 1, "response", &err);
    if (!root)
        return 0;
    if (which == 0) {
        struct ccas_record_list *l = ccas_record_list_from_json (root, &err);
        if (l)
            node_predicates (l->nodes, l->nnodes);
        ccas_record_list_destroy (l);
    } else if (which == 1) {
        ccas_create_result_destroy (ccas_create_result_from_json (root, "req-1", nsets, &err));
    } else {
        ccas_action_result_destroy (ccas_action_result_from_json (root, &err));
    }
    return 0;
}
