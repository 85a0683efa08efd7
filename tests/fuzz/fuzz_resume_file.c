/* SPDX-License-Identifier: MIT */
/* fuzz_resume_file.c: SLURM_RESUME_FILE, in the 22.05 and 23.02+ shapes;
 * the names it has outside the first job's (a hostlist that leaves some out)
 * are listed, for files of up to OUTSIDE names (libslurm compresses them one
 * by one); resumed names are looked up again, the first LOOKUPS of them: past that
 * a lookup covers nothing new, and a million of them (libFuzzer hooks every
 * strcmp) held the target to a third of its speed.  A lookup that walked
 * every name would still show as slow on 1,000 of a million. */
#include "config.h"

#include "fuzz.h"
#include "resume_file.h"

#define LOOKUPS 1000
#define OUTSIDE 10000

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    struct ccas_error err = {""};
    struct ccas_resume_file *rf = ccas_resume_file_parse ((const char *)data, size, &err);
    if (!rf)
        return 0;
    size_t lookups = 0;
    for (size_t j = 0; j < rf->njobs; j++)
        for (size_t k = 0; k < rf->jobs[j].nresume && lookups < LOOKUPS; k++, lookups++)
            (void)ccas_resume_file_job_of (rf, rf->jobs[j].resume[k]);
    (void)ccas_resume_file_job_of (rf, "hpc-1");
    if (rf->nby_name + rf->nall <= OUTSIDE)
        free (ccas_resume_file_outside (rf, rf->njobs ? rf->jobs[0].resume : NULL,
                                        rf->njobs ? rf->jobs[0].nresume : 0));
    ccas_resume_file_destroy (rf);
    return 0;
}
