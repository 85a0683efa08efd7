/* SPDX-License-Identifier: MIT */
/* <slurm/slurmdb.h> as the core sees it: an error (common/noscheduler/README). */
#error "the core knows no scheduler: <slurm/slurmdb.h> belongs in slurm_power/, never in common/"
