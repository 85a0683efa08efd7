/* SPDX-License-Identifier: MIT */
/* <slurm/pmi.h> as the core sees it: an error (common/noscheduler/README). */
#error "the core knows no scheduler: <slurm/pmi.h> belongs in slurm_power/, never in common/"
