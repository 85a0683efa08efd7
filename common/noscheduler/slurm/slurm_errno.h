/* SPDX-License-Identifier: MIT */
/* <slurm/slurm_errno.h> as the core sees it: an error (common/noscheduler/README). */
#error "the core knows no scheduler: <slurm/slurm_errno.h> belongs in slurm_power/, never in common/"
