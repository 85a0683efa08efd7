#!/bin/bash
# SPDX-License-Identifier: MIT
# slurm conf --check / --write (backup, advice), the nodearrays it leaves out,
# and slurm demand against real Slurm.
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

test_expect_success 'no nodes for a nodearray with autoscale off; resume hands its names back' '
    test_no_grep "login" "$SLURM_TEST_DIR/ccautoscale.conf" &&
    "$top_builddir/slurm_power/ccautoscale-resume" --dry-run login-1 >out && cat out &&
    test_grep "would hand back login-1: ccautoscale: permanent: nodearray .login. is not autoscaled" out
'

test_expect_success 'nodearrays.hpc.enabled false: no hpc nodes or partition; resume hands hpc names back' '
    jq ".nodearrays.hpc.enabled = false" "$CCAS_CONF" >c3 && chmod 600 c3 &&
    "$CCAS" -c c3 slurm conf --json | jq -r ".\"ccautoscale.conf\"" >conf3 && cat conf3 &&
    test_grep "^NodeName=htc-" conf3 && test_no_grep "hpc" conf3 &&
    "$top_builddir/slurm_power/ccautoscale-resume" -c c3 --dry-run "hpc-[1-2]" >out && cat out &&
    test_grep "would hand back hpc-\[1-2\]: ccautoscale: permanent: nodearray .hpc. is disabled in the configuration" out &&
    test_no_grep "would create" out
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

test_expect_success 'slurm demand shows the nodes a job waits for while they power up' '
    ccsim_fault "{\"kind\": \"boot_failure\", \"mode\": \"hang\", \"count\": 1}" &&
    id=$(sbatch --parsable -N1 -p htc -o /dev/null --wrap "true") &&
    wait_for 20 sh -c "scontrol show job $id | grep -q JobState=CONFIGURING" &&
    node=$(squeue -h -j "$id" -o %N) && test -n "$node" &&
    "$CCAS" -c "$CCAS_CONF" slurm demand --json >d.json && cat d.json &&
    jq -e --arg id "$id" --arg n "$node" "[.waiting[] | select(.id == \$id and .nodes == \$n)] | length == 1" d.json &&
    jq -e --arg id "$id" "[.jobs[] | select(.id == \$id)] | length == 0" d.json &&
    "$CCAS" -c "$CCAS_CONF" slurm demand >d.out && cat d.out &&
    test_grep "job $id waits for nodes powering up: $node" d.out &&
    scancel "$id"
' || slurm_dump

test_done
