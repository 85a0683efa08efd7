/* SPDX-License-Identifier: MIT */
/* <rm.h> as the core sees it: an error (common/noscheduler/README). */
#error "the core knows no scheduler: <rm.h> belongs in pbs_hook/, never in common/"
