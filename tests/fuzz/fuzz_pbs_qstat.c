/* SPDX-License-Identifier: MIT */
/* fuzz_pbs_qstat.c: what `qstat -f -t -F json` prints — repaired, parsed,
 * turned into core jobs and matched against the model. */
#include "config.h"

#include <stdlib.h>

#include "fuzz.h"
#include "match.h"
#include "pbs_jobs.h"
#include "pbs_json.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    struct ccas_error err = { "" };
    json_object *doc = ccas_pbs_json_parse ((const char *)data, size, "qstat", "Jobs", NULL, NULL, &err);
    if (!doc)
        return 0;
    struct fuzz_model m = fuzz_model_create ();
    struct ccas_jobs *jobs = ccas_pbs_jobs_from_qstat (m.cluster, doc, NULL, &err);
    if (jobs && jobs->n <= 2000)
        (void)ccas_match (m.cluster, jobs, NULL, &err);
    ccas_jobs_destroy (jobs);
    json_object_put (doc);
    fuzz_model_destroy (&m);
    return 0;
}
