/* SPDX-License-Identifier: MIT */
/* <slurm/pmi2.h> as the core sees it: an error (common/noscheduler/README). */
#error "the core knows no scheduler: <slurm/pmi2.h> belongs in slurm_power/, never in common/"
