/* SPDX-License-Identifier: MIT */
/* fuzz_resume_file.c: SLURM_RESUME_FILE, in the 22.05 and 23.02+ shapes;
 * every resumed name is looked up again. */
#include "config.h"

#include "fuzz.h"
#include "resume_file.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    struct ccas_error err = { "" };
    struct ccas_resume_file *rf = ccas_resume_file_parse ((const char *)data, size, &err);
    if (!rf)
        return 0;
    for (size_t j = 0; j < rf->njobs; j++)
        for (size_t k = 0; k < rf->jobs[j].nresume; k++)
            (void)ccas_resume_file_job_of (rf, rf->jobs[j].resume[k]);
    (void)ccas_resume_file_job_of (rf, "hpc-1");
    ccas_resume_file_destroy (rf);
    return 0;
}
