/* SPDX-License-Identifier: MIT */
/* <tm_.h> as the core sees it: an error (common/noscheduler/README). */
#error "the core knows no scheduler: <tm_.h> belongs in pbs_hook/, never in common/"
