/* SPDX-License-Identifier: MIT */
/* slurm_version.h: what the Slurm ccautoscale talks to does differently, by its version.
 *
 * Differences in libslurm's API are settled at compile time
 * (slurm_compat.h); these are differences in what slurmctld does, decided
 * from the version it reports (ccas_slurm_controller_load), so that
 * ccautoscale acts right with the slurmctld it talks to, which may be a
 * release or two newer than the libslurm it was built against.  Plain data:
 * no libslurm here, so the rules are unit-tested on their own.
 */
#ifndef CCAS_SLURM_VERSION_H
#define CCAS_SLURM_VERSION_H

#include <stdbool.h>

#include "util/error.h"

/* A version as Slurm numbers it: major << 16 | minor << 8 | micro (25.11.7 is 0x190b07). */
#define CCAS_SLURM_VERSION(major, minor, micro) (((unsigned)(major) << 16) | ((minor) << 8) | (micro))

struct ccas_slurm_traits {
    unsigned version; /* CCAS_SLURM_VERSION form */
    char text[32];    /* "25.11.7", or "25.11" when given so */
    /* 23.11+: `scontrol reconfigure` applies nodes added to or removed from
     * slurm.conf (it starts a new slurmctld in place); before, only a
     * restart of slurmctld does */
    bool reconfigure_applies_nodes;
    /* slurmctld sets a cloud node's NodeAddr and NodeHostname from its
     * slurmd when it registers, and resets them at power-down: always since
     * 23.11, before only with SlurmctldParameters=cloud_reg_addrs.  Whoever
     * else sets them is undone at the next registration. */
    bool sets_cloud_addrs;
    /* 23.11+: SlurmctldParameters=cloud_reg_addrs is defunct (slurmctld logs
     * it) and PrivateData=cloud is ignored: powered-down cloud nodes are
     * always shown */
    bool cloud_settings_defunct;
    /* 23.02+: SuspendExcNodes can be changed on the running slurmctld, and
     * ReconfigFlags=KeepPowerSaveSettings keeps such changes through a
     * reconfigure, where a changed include would not be applied */
    bool live_suspend_exc;
    /* 25.11+: a node made at run time may be put under a switch of the
     * topology (NodeName=... Topology=default:<switch>); before, a dynamic
     * node is in no switch, and TopologyPlugin=topology/tree gives it no job */
    bool dynamic_topology;
};

/* Read "25.11.7", "25.11", "slurm 25.11.7" or "25.11.0-0rc1" into
 * `*version`.  Returns 0, or -1 with `err` (quoting `text`). */
int ccas_slurm_version_parse (const char *text, unsigned *version, struct ccas_error *err);

/* `word` is one of the comma-separated words of a Slurm list such as
 * SlurmctldParameters or SuspendExcStates: in any case (slurmctld reads
 * them so), alone or with "=value". */
bool ccas_slurm_list_has (const char *list, const char *word);

/* The traits of Slurm `version` (CCAS_SLURM_VERSION form) whose slurmctld
 * runs with SlurmctldParameters `params` (NULL or "" for none known). */
void ccas_slurm_traits_init (struct ccas_slurm_traits *t, unsigned version, const char *params);

#endif /* !CCAS_SLURM_VERSION_H */
