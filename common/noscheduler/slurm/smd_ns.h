/* SPDX-License-Identifier: MIT */
/* <slurm/smd_ns.h> as the core sees it: an error (common/noscheduler/README). */
#error "the core knows no scheduler: <slurm/smd_ns.h> belongs in slurm_power/, never in common/"
