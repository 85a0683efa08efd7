/* SPDX-License-Identifier: MIT */
/* slurm_compat.h: where libslurm's API differs between the Slurm releases ccautoscale builds against.
 *
 * Every compile-time difference between Slurm versions is here, and nowhere
 * else: slurmapi.c includes this header (after <slurm/slurm.h>) and is the
 * only file that calls what differs; configure compiles and runs it too, to
 * refuse a Slurm it does not know and headers that do not match the library.
 * Differences in behaviour (what slurmctld does, not what the API looks like)
 * are decided at run time from the version slurmctld reports (slurmapi.h,
 * ccas_slurm_traits).
 *
 * Known: the release series 22.05 (Debian 12) to 25.11; tested: 22.05.8 and
 * 25.11.7.  A series outside that range stops the build with an #error that
 * says so, unless CCAS_SLURM_UNTESTED is defined (./configure
 * --enable-untested-slurm): the API may then have changed in ways this
 * header does not know.
 */
#ifndef CCAS_SLURM_COMPAT_H
#define CCAS_SLURM_COMPAT_H

#include <errno.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#define CCAS_SLURM_OLDEST SLURM_VERSION_NUM (22, 5, 0)
#define CCAS_SLURM_NEWEST SLURM_VERSION_NUM (25, 11, 0) /* the newest release series known */

#if SLURM_VERSION_NUMBER < CCAS_SLURM_OLDEST
#error "Slurm older than 22.05 is not supported (slurm/slurm_version.h: SLURM_VERSION_NUMBER)"
#elif SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(25, 12, 0) && !defined(CCAS_SLURM_UNTESTED)
#error "Slurm newer than 25.11 is not known to this ccautoscale (configure --enable-untested-slurm to try)"
#endif

/* The libslurm API number of each release series: the major of its soname
 * (libslurm.so.38 is 22.05) and what slurm_api_version() returns; one more
 * each series.  0 for a series not known. */
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(25, 12, 0)
#define CCAS_SLURM_API 0
#elif SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(25, 11, 0)
#define CCAS_SLURM_API 44
#elif SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(25, 5, 0)
#define CCAS_SLURM_API 43
#elif SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(24, 11, 0)
#define CCAS_SLURM_API 42
#elif SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(24, 5, 0)
#define CCAS_SLURM_API 41
#elif SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 11, 0)
#define CCAS_SLURM_API 40
#elif SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 2, 0)
#define CCAS_SLURM_API 39
#else
#define CCAS_SLURM_API 38
#endif

/* 23.11: hostlist_t is the struct itself, and every slurm_hostlist_* call
 * takes a pointer to it; before, hostlist_t was the pointer. */
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 11, 0)
typedef hostlist_t *compat_hostlist;
#else
typedef hostlist_t compat_hostlist;
#endif

/* 24.11 removed slurm_get_errno(): libslurm's calls leave their error in errno. */
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(24, 11, 0)
#define COMPAT_SLURM_ERRNO() errno
#else
#define COMPAT_SLURM_ERRNO() slurm_get_errno ()
#endif

/* libslurm has always exported scontrol's reconfigure; 22.05's slurm.h does
 * not declare it (later ones declare it the same way). */
extern int slurm_reconfigure (void);

/* 23.02: SuspendExcStates; SuspendExcNodes (and the others) can be changed
 * on a running slurmctld (slurm_update_suspend_exc_nodes, scontrol update
 * SuspendExcNodes+=...), and ReconfigFlags=KeepPowerSaveSettings keeps such
 * changes through a reconfigure. */
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 2, 0)
#define COMPAT_POWER_SAVE_UPDATES 1
#else
#define COMPAT_POWER_SAVE_UPDATES 0
#endif

/* 23.02: slurm_fini() unloads the select plugin, whose fini calls
 * cr_fini_global_core_data(), a libcommon function that libslurm.so does
 * not export (only libslurmfull does, which Slurm's own commands link):
 * every libslurm client died of a symbol lookup error at exit, after its
 * work.  It is not called there; the process ends right after anyway.
 * 22.05 and 23.11 and later clients end cleanly (the slurm-matrix suite). */
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 2, 0) && SLURM_VERSION_NUMBER < SLURM_VERSION_NUM(23, 11, 0)
#define COMPAT_SLURM_FINI 0
#else
#define COMPAT_SLURM_FINI 1
#endif

#endif /* !CCAS_SLURM_COMPAT_H */
