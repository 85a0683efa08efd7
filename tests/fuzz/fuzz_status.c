/* SPDX-License-Identifier: MIT */
/* fuzz_status.c: GET /clusters/{c}/status answers — the typed view, then the
 * whole model (buckets, limits, placement groups, nodes) built from it. */
#include "config.h"

#include "ccapi/ccapi.h"
#include "fuzz.h"
#include "util/json.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    struct ccas_error err = {""};
    json_object *root = ccas_json_parse ((const char *)data, size, "status", &err);
    struct ccas_status *st = root ? ccas_status_from_json (root, "test", &err) : NULL;
    if (!st)
        return 0;
    struct ccas_config *cfg = fuzz_config ();
    struct ccas_cluster *c = ccas_cluster_create (cfg, st, NULL, &err);
    if (c) {
        for (size_t i = 0; i < c->nbuckets; i++)
            (void)ccas_bucket_available (&c->buckets[i], err.text, sizeof (err.text));
        ccas_cluster_destroy (c);
    }
    ccas_conf_destroy (cfg);
    return 0;
}
