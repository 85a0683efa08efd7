#!/bin/bash
# SPDX-License-Identifier: MIT
# t0505-execute-login.sh: the execute and login specs change nothing on a node
# (the stock specs set those nodes up; ccautoscale works with what they do), and
# succeed even without any CycleCloud setting; twice.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/cyclecloud.sh"

for spec in execute login; do
    test_expect_success "the $spec spec: exit 0, nothing written, nothing asked of jetpack" '
        root=$TEST_TMP/$spec-root && mkdir -p "$root/etc/slurm" "$root/var/spool/pbs" &&
        echo "SlurmctldHost=scheduler" >"$root/etc/slurm/slurm.conf" &&
        (cd "$root" && find . -printf "%p %m %s %T@\n" | sort) >before &&
        for run in 1 2; do
            (cd "$root" && env CCAS_ROOT="$root" JETPACK=/nonexistent \
                bash "$CC_PROJECT/specs/$spec/cluster-init/scripts/10-ccautoscale.sh") >out 2>err || return 1
        done &&
        test_grep "nothing to do on $spec nodes" out && test_equal "$(cat err)" "" &&
        (cd "$root" && find . -printf "%p %m %s %T@\n" | sort) >after &&
        diff before after
    '
done

test_done
