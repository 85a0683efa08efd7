/* SPDX-License-Identifier: MIT */
/* fuzz_pbs_nodes.c: what `pbsnodes -a -F json` prints — repaired, parsed and
 * folded into the model, then the pass's PBS decisions made. */
#include "config.h"

#include <stdlib.h>

#include "engine/match.h"
#include "fuzz.h"
#include "pbs_actions.h"
#include "pbs_json.h"
#include "pbs_nodes.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    struct ccas_error err = {""};
    json_object *doc = ccas_pbs_json_parse ((const char *)data, size, "pbsnodes", "nodes", NULL, NULL, &err);
    if (!doc)
        return 0;
    struct ccas_pbs_nodes *nodes = ccas_pbs_nodes_from_json (doc, &err);
    if (!nodes)
        return 0;
    struct fuzz_model m = fuzz_model_create ();
    ccas_pbs_nodes_merge (nodes, m.cluster);
    struct ccas_jobs *jobs = ccas_jobs_create (1);
    struct ccas_plan *plan = NULL;
    if (jobs && ccas_match (m.cluster, jobs, NULL, &err) == 0 &&
        (plan = ccas_plan_create (m.cluster, jobs, &err))) {
        struct ccas_pbs_actions acts;
        if (ccas_pbs_actions_plan (plan, nodes, NULL, &acts, &err) == 0) {
            json_object_put (ccas_pbs_actions_json (&acts, false));
            ccas_pbs_actions_free (&acts);
        }
    }
    ccas_plan_destroy (plan);
    ccas_jobs_destroy (jobs);
    ccas_pbs_nodes_destroy (nodes);
    fuzz_model_destroy (&m);
    return 0;
}
