/* SPDX-License-Identifier: MIT */
/* giveback.c: names whose VMs the Slurm side let go of, for sync to finish giving back. */
#include "config.h"

#include "giveback.h"

#define GIVEBACK "slurm_giveback"

struct ccas_state *ccas_slurm_giveback_load (const char *state_dir, struct ccas_error *err)
{
    return ccas_state_load (state_dir, GIVEBACK, err);
}

int ccas_slurm_giveback_add (const char *state_dir, const char *const *names, size_t n, double now,
                             const char *why, struct ccas_error *err)
{
    if (!n)
        return 0;
    struct ccas_state *st = ccas_slurm_giveback_load (state_dir, err);
    if (!st)
        return -1;
    json_object *root = ccas_state_root (st);
    for (size_t i = 0; i < n; i++) {
        json_object *o = json_object_new_object ();
        json_object_object_add (o, "time", json_object_new_double (now));
        json_object_object_add (o, "why", json_object_new_string (why));
        json_object_object_add (root, names[i], o);
    }
    int rc = ccas_state_save (st, err);
    ccas_state_destroy (st);
    return rc;
}

bool ccas_slurm_giveback_has (struct ccas_state *st, const char *name)
{
    return st && json_object_object_get_ex (ccas_state_root (st), name, NULL);
}

void ccas_slurm_giveback_forget (struct ccas_state *st, const char *name)
{
    if (st)
        json_object_object_del (ccas_state_root (st), name);
}
