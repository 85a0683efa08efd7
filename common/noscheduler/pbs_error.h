/* SPDX-License-Identifier: MIT */
/* <pbs_error.h> as the core sees it: an error (common/noscheduler/README). */
#error "the core knows no scheduler: <pbs_error.h> belongs in pbs_hook/, never in common/"
