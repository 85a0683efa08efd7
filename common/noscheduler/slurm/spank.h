/* SPDX-License-Identifier: MIT */
/* <slurm/spank.h> as the core sees it: an error (common/noscheduler/README). */
#error "the core knows no scheduler: <slurm/spank.h> belongs in slurm_power/, never in common/"
