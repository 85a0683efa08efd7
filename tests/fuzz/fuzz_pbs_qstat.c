/* SPDX-License-Identifier: MIT */
/* fuzz_pbs_qstat.c: what `qstat -f -t -F json` prints — repaired, parsed,
 * turned into core jobs and matched against the model. */
#include "config.h"

#include <stdlib.h>

#include "engine/match.h"
#include "fuzz.h"
#include "pbs_jobs.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    struct ccas_error err = {""};
    struct ccas_pbs_queue *q = ccas_pbs_queue_create ();
    if (!q)
        return 0;
    struct fuzz_model m = fuzz_model_create ();
    struct ccas_jobs *jobs = NULL;
    if (ccas_pbs_queue_read (q, (const char *)data, size, NULL, NULL, &err) == 0)
        jobs = ccas_pbs_queue_jobs (m.cluster, q, NULL, &err);
    if (jobs && jobs->n <= 2000)
        (void)ccas_match (m.cluster, jobs, NULL, &err);
    ccas_jobs_destroy (jobs);
    ccas_pbs_queue_destroy (q);
    fuzz_model_destroy (&m);
    return 0;
}
