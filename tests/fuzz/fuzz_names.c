/* SPDX-License-Identifier: MIT */
/* fuzz_names.c: a hostlist from slurmctld mapped to buckets — expanded by
 * libslurm, each name parsed against the model's layout and resolved to its
 * bucket, the layout's own names round-tripped. */
#include "config.h"

#include <stdlib.h>

#include "fuzz.h"
#include "names.h"
#include "slurmapi.h"

#define MAX_NAMES 4096 /* slurmctld never sends more per call than the cluster has */

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    struct ccas_error err = {""};
    char *expr = fuzz_text (data, size);
    /* mapping names only reads the model: one for the whole run (ten times the executions) */
    static struct fuzz_model m;
    static struct ccas_slurm_layout *l;
    if (!m.cluster) {
        m = fuzz_model_create ();
        l = ccas_slurm_layout_create (m.cluster);
    }
    size_t n = 0;
    char **names = l ? ccas_slurm_hostlist_expand (expr, &n, &err) : NULL;
    char why[256], na[128], buf[256];
    long index;
    for (size_t i = 0; names && i < n && i < MAX_NAMES; i++) {
        if (ccas_slurm_name_parse (l, names[i], na, sizeof (na), &index))
            (void)ccas_slurm_name (l, na, index, buf, sizeof (buf));
        (void)ccas_slurm_bucket_of (m.cluster, l, names[i], NULL, why, sizeof (why));
    }
    if (names) {
        char *back = ccas_slurm_hostlist_compress ((const char *const *)names, n < MAX_NAMES ? n : MAX_NAMES);
        free (back);
        ccas_slurm_names_free (names, n);
    }
    free (expr);
    return 0;
}
