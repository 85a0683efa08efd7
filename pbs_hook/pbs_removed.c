/* SPDX-License-Identifier: MIT */
/* pbs_removed.c: the list of VMs kept out of PBS, a state file. */
#include "config.h"

#include "pbs_removed.h"

struct ccas_state *ccas_pbs_removed_load (const char *state_dir, struct ccas_error *err)
{
    return ccas_state_load (state_dir, CCAS_PBS_REMOVED_STATE, err);
}

int ccas_pbs_removed_add (json_object *removed, const char *node_id, const char *name, const char *hostname,
                          const char *by, double now)
{
    if (json_object_object_get_ex (removed, node_id, NULL))
        return 0;
    json_object *e = json_object_new_object ();
    if (!e)
        return -1;
    if (name)
        json_object_object_add (e, "name", json_object_new_string (name));
    if (hostname)
        json_object_object_add (e, "hostname", json_object_new_string (hostname));
    json_object_object_add (e, "since", json_object_new_double (now));
    json_object_object_add (e, "by", json_object_new_string (by));
    if (json_object_object_add (removed, node_id, e) < 0) {
        json_object_put (e);
        return -1;
    }
    return 1;
}

bool ccas_pbs_removed_drop (json_object *removed, const char *node_id)
{
    if (!json_object_object_get_ex (removed, node_id, NULL))
        return false;
    json_object_object_del (removed, node_id);
    return true;
}
