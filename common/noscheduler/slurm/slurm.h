/* SPDX-License-Identifier: MIT */
/* <slurm/slurm.h> as the core sees it: an error (common/noscheduler/README). */
#error "the core knows no scheduler: <slurm/slurm.h> belongs in slurm_power/, never in common/"
