#!/bin/bash
# SPDX-License-Identifier: MIT
# The scheduler spec: install ccautoscale on a Slurm scheduler (or its HA
# standby) or a PBS server set up by the stock CycleCloud project, configure it
# from this node's CycleCloud settings, and let it scale the cluster in place of
# azslurm or azpbs.  Safe to run at every converge.  What it does is in
# ../files/slurm.sh and ../files/pbs.sh; how it installs and configures, in
# ../files/common.sh.
#
# The scheduler: the Configuration ccautoscale.scheduler (slurm or pbs; the
# templates set it), else slurm when slurm.role is scheduler, else pbs when
# PBS's settings (pbspro.*) or qmgr are there.
files=$(cd "$(dirname "${BASH_SOURCE[0]}")/../files" && pwd) || exit 2
# shellcheck source=../files/common.sh
. "$files/common.sh"
# shellcheck source=../files/slurm.sh
. "$files/slurm.sh"
# shellcheck source=../files/pbs.sh
. "$files/pbs.sh"

ccas_init
scheduler=$(jp ccautoscale.scheduler "") || exit
if [ -z "$scheduler" ]; then
    if [ "$(jp slurm.role "")" = scheduler ]; then
        scheduler=slurm
    elif [ -n "$(jp pbspro.version "")" ] || command -v qmgr >/dev/null 2>&1 || [ -x /opt/pbs/bin/qmgr ]; then
        scheduler=pbs
    fi
fi
case $scheduler in
slurm) slurm_main ;;
pbs) pbs_main ;;
"") ccas_fail "cannot tell the scheduler of this node (no slurm.role, no PBS): set the Configuration ccautoscale.scheduler to slurm or pbs" ;;
*) ccas_fail "ccautoscale.scheduler is '$scheduler': slurm or pbs" ;;
esac
