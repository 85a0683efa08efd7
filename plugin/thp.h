/* SPDX-License-Identifier: MIT */
/* thp.h: run ccautoscale with transparent huge pages under malloc.
 *
 * A pass over a big cluster is mostly json-c building and freeing millions
 * of small objects; with 4 KiB pages most of that time is TLB misses and
 * page faults.  glibc backs its heap with huge pages when the tunable
 * glibc.malloc.hugetlb=1 is set, and tunables are read only at start-up, so
 * thp_reexec() sets it and executes the program again (once, before anything
 * is opened; main() calls it for the commands that read a whole cluster).  `demand` over 100,000 jobs: 0.96 s
 * -> 0.47 s on the benchmark host.  It does nothing when the kernel's THP is "never", under valgrind (which
 * follows no exec by default), when the tunable is already set, or when CCAUTOSCALE_NO_THP is set; the
 * commands the program runs do not inherit the tunable.
 */
#ifndef CCAS_THP_H
#define CCAS_THP_H

/* Returns only when it did not re-execute (or in the re-executed program). */
void thp_reexec (char **argv);

#endif /* !CCAS_THP_H */
