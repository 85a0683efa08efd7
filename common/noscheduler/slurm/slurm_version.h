/* SPDX-License-Identifier: MIT */
/* <slurm/slurm_version.h> as the core sees it: an error (common/noscheduler/README). */
#error "the core knows no scheduler: <slurm/slurm_version.h> belongs in slurm_power/, never in common/"
