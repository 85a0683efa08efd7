/* SPDX-License-Identifier: MIT */
/* fuzz_jobs.c: the jobs file of `demand --jobs` (streamed, one job at a time),
 * compiled in a real model's cache. */
#include "config.h"

#include "fuzz.h"
#include "model/job.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    struct ccas_error err = {""};
    struct fuzz_model m = fuzz_model_create ();
    ccas_jobs_destroy (ccas_jobs_from_text ((const char *)data, size, m.cluster->cons, "jobs.json", &err));
    fuzz_model_destroy (&m);
    return 0;
}
