/* SPDX-License-Identifier: MIT */
/* <pbs_ifl.h> as the core sees it: an error (common/noscheduler/README). */
#error "the core knows no scheduler: <pbs_ifl.h> belongs in pbs_hook/, never in common/"
