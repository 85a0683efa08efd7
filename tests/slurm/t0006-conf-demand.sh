#!/bin/bash
# SPDX-License-Identifier: MIT
# slurm conf --check / --write (backup, advice) and slurm demand against real Slurm.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/ccsim.sh"
. "$(dirname "$0")/../lib/slurm.sh"
why=$(slurm_prereqs) || test_skip_all "$why"
CCAS=$top_builddir/plugin/ccautoscale

test_expect_success 'start Slurm' '
    slurm_start "$top_srcdir/tests/slurm/cluster.json"
'

test_expect_success 'slurm conf --check says the files are up to date' '
    "$CCAS" -c "$CCAS_CONF" slurm conf --write "$SLURM_TEST_DIR" --check >out && cat out &&
    test_grep "no change" out
'

test_expect_success 'a changed memory margin changes node lines: the diff says restart slurmctld' '
    jq ".slurm.memory_margin_percent = 20" "$CCAS_CONF" >c2 && chmod 600 c2 &&
    rc=0; "$CCAS" -c c2 slurm conf --write "$SLURM_TEST_DIR" --check >out || rc=$? ;
    cat out && test "$rc" = 4 && test_grep "restart slurmctld" out && test_grep "^+NodeName=hpc-.*RealMemory=26214" out &&
    "$CCAS" -c c2 slurm conf --write "$SLURM_TEST_DIR" >out &&
    test -f "$SLURM_TEST_DIR/ccautoscale.conf.bak" &&
    test_grep "RealMemory=26214" "$SLURM_TEST_DIR/ccautoscale.conf"
'

test_expect_success 'slurm demand shows a waiting job and what would be created' '
    id=$(sbatch --parsable -N3 -p htc --hold -o /dev/null --wrap "srun true") &&
    "$CCAS" -c "$CCAS_CONF" slurm demand --json >d.json && cat d.json &&
    jq -e --arg id "$id" ".jobs[] | select(.id == \$id) | .matched and (.nodes | length) == 3" d.json &&
    scancel "$id"
'

test_expect_success 'slurm demand explains a job no bucket can run' '
    id=$(sbatch --parsable -N1 -p htc -c 64 --hold -o /dev/null --wrap "true") &&
    "$CCAS" -c "$CCAS_CONF" slurm demand >d.out && cat d.out &&
    test_grep "ncpus: needs 64" d.out &&
    scancel "$id"
'

test_done
