/* SPDX-License-Identifier: MIT */
/* thp.h: run ccautoscale with transparent huge pages under malloc, when
 * CCAUTOSCALE_THP=1 asks for it.
 *
 * A pass over a big cluster is mostly json-c building and freeing millions
 * of small objects, and TLB misses are part of that.  glibc backs its heap
 * with huge pages when the tunable glibc.malloc.hugetlb=1 is set, and
 * tunables are read only at start-up, so thp_reexec() sets it and executes
 * the program again (once, before anything is opened; main() calls it for
 * the commands that read a whole cluster).  It is not the default: on the
 * 2-core VM of the benchmarks a 2 MiB fault costs several times what 512
 * small ones do once a run needs more memory than the kernel has at hand
 * (demand over a million jobs: 0.8-0.9 s in the kernel without it, 2.4-3.2
 * s with it, for 0.5 s less user time), and at 100,000 jobs it saves 5-12%
 * of the CPU time only.  It does nothing when the kernel's THP is "never",
 * under valgrind (which follows no exec by default), or when the tunable is
 * already set; the commands the program runs do not inherit the tunable.
 */
#ifndef CCAS_THP_H
#define CCAS_THP_H

/* Returns only when it did not re-execute (or in the re-executed program). */
void thp_reexec (char **argv);

#endif /* !CCAS_THP_H */
