#!/bin/bash
# SPDX-License-Identifier: MIT
# slurm conf --check / --write (backup, advice for the Slurm running: nodes
# added or removed need a restart of slurmctld before 23.11, `scontrol
# reconfigure` after, which this tests on such a Slurm), the nodearrays it
# leaves out, and slurm demand against real Slurm.
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

# A ccsim of its own with the demo cluster, whose gpu nodearray has a GPU per VM
test_expect_success 'gres.conf gives each GPU its device file (Slurm 25.11 refuses a node without); a bad pattern is refused' '
    "$CCSIM_BIN" --cluster "$top_srcdir/tests/ccsim/clusters/demo.json" --port-file gpu.port >gpu.out 2>&1 &
    gpu=$! && test_at_exit "kill_pid $gpu" &&
    wait_for 60 test -s gpu.port &&
    jq --arg u "http://127.0.0.1:$(cat gpu.port)" ".url = \$u | .cluster_name = \"demo\" | del(.slurm.gpu_device_files)" \
        "$CCAS_CONF" >gpu.json && chmod 600 gpu.json &&
    "$CCAS" -c gpu.json slurm conf --json | jq -r ".\"gres.conf\"" >gres && cat gres &&
    test_grep "^NodeName=gpu-\[1-[0-9]*\] Name=gpu Count=1 File=/dev/nvidia0$" gres &&
    jq ".slurm.gpu_device_files = \"/dev/dri/renderD%d\" | .slurm.gpu_device_first = 128" gpu.json >amd.json &&
    chmod 600 amd.json && "$CCAS" -c amd.json slurm conf --json | jq -r ".\"gres.conf\"" >gres &&
    test_grep " Name=gpu Count=1 File=/dev/dri/renderD128$" gres &&
    jq ".slurm.gpu_device_files = \"/dev/nvidia\"" gpu.json >bad.json && chmod 600 bad.json &&
    test_expect_code 2 "$CCAS" -c bad.json slurm conf 2>err && cat err &&
    test_grep "slurm.gpu_device_files: ./dev/nvidia.: expected a path with one %d" err
'

if slurm_since 23.11; then
    node_advice="node definitions changed: run .scontrol reconfigure. to apply"
else
    node_advice="node definitions changed: restart slurmctld"
fi

test_expect_success "a changed memory margin changes node lines: the advice for Slurm $SLURM_TEST_VERSION is '$node_advice'" '
    jq ".slurm.memory_margin_percent = 20" "$CCAS_CONF" >c2 && chmod 600 c2 &&
    rc=0; "$CCAS" -c c2 slurm conf --write "$SLURM_TEST_DIR" --check >out || rc=$? ;
    cat out && test "$rc" = 4 && test_grep "$node_advice" out && test_grep "(Slurm $SLURM_TEST_VERSION)" out &&
    test_grep "^+NodeName=hpc-.*RealMemory=26214" out &&
    "$CCAS" -c c2 slurm conf --write "$SLURM_TEST_DIR" >out &&
    test -f "$SLURM_TEST_DIR/ccautoscale.conf.bak" &&
    test_grep "RealMemory=26214" "$SLURM_TEST_DIR/ccautoscale.conf"
'

test_expect_success '--slurm-version says which Slurm the advice is for; a bad one is refused' '
    jq ".slurm.memory_margin_percent = 30" "$CCAS_CONF" >c4 && chmod 600 c4 &&
    test_expect_code 4 "$CCAS" -c c4 slurm conf --write "$SLURM_TEST_DIR" --check --slurm-version 22.05 >out &&
    test_grep "restart slurmctld .*(Slurm 22.05.0)" out &&
    test_expect_code 4 "$CCAS" -c c4 slurm conf --write "$SLURM_TEST_DIR" --check --slurm-version 25.11.7 >out &&
    test_grep "run .scontrol reconfigure. to apply (since 23.11.*(Slurm 25.11.7)" out &&
    test_expect_code 1 "$CCAS" -c c4 slurm conf --slurm-version 25 2>err &&
    test_grep "slurm-version: .25.: not a Slurm version" err
'

# 23.11 and later: `scontrol reconfigure` starts a new slurmctld in place
# (the same pid in the foreground), which takes nodes added and removed.
if slurm_since 23.11; then
    test_expect_success 'scontrol reconfigure applies changed, removed and added nodes (Slurm 23.11+)' '
        scontrol reconfigure && wait_for 120 sh -c "scontrol show node hpc-1 | grep -q RealMemory=26214" &&
        jq ".slurm.max_nodes = 4" "$CCAS_CONF" >c5 && chmod 600 c5 &&
        "$CCAS" -c c5 slurm conf --write "$SLURM_TEST_DIR" >out && cat out && test_grep "$node_advice" out &&
        scontrol reconfigure && wait_for 120 sh -c "test \$(sinfo -h -N -o %N | wc -l) = 8" &&
        test_equal "$(sinfo -h -N -p htc -o %N | tr "\n" " ")" "htc-1 htc-2 htc-3 htc-4 " &&
        "$CCAS" -c "$CCAS_CONF" slurm conf --write "$SLURM_TEST_DIR" >out && cat out && test_grep "$node_advice" out &&
        scontrol reconfigure && wait_for 120 sh -c "test \$(sinfo -h -N -o %N | wc -l) = 14" &&
        kill -0 "$SLURM_CTLD_PID" && slurm_node_is htc-6 "idle~"
    ' || slurm_dump
else
    test_skip 'scontrol reconfigure applies changed, removed and added nodes' "Slurm $SLURM_TEST_VERSION needs a restart for that"
fi

# SuspendExcStates (23.02+) with CLOUD: no cloud node is ever powered down.
# The file is first written back from the suite's own configuration: before
# 23.11 the reconfigure case above is skipped and leaves the file written with
# the changed memory margin, and --check would then fail for that instead.
if slurm_since 23.02; then
    test_expect_success 'slurm conf notes a SuspendExcStates that keeps cloud nodes from powering down' '
        "$CCAS" -c "$CCAS_CONF" slurm conf --write "$SLURM_TEST_DIR" >/dev/null &&
        "$CCAS" -c "$CCAS_CONF" slurm conf --write "$SLURM_TEST_DIR" --check >out && test_no_grep "^note:" out &&
        scontrol update SuspendExcStates=CLOUD && scontrol show config | grep "SuspendExcStates *= *CLOUD" &&
        "$CCAS" -c "$CCAS_CONF" slurm conf --write "$SLURM_TEST_DIR" --check >out && cat out &&
        test_grep "^note: SuspendExcStates includes CLOUD: slurmctld never powers a cloud node down" out &&
        scontrol update SuspendExcStates= && ! scontrol show config | grep -i "SuspendExcStates *= *CLOUD"
    '
fi

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
    wait_for 120 sh -c "scontrol show job $id | grep -q JobState=CONFIGURING" &&
    node=$(squeue -h -j "$id" -o %N) && test -n "$node" &&
    "$CCAS" -c "$CCAS_CONF" slurm demand --json >d.json && cat d.json &&
    jq -e --arg id "$id" --arg n "$node" "[.waiting[] | select(.id == \$id and .nodes == \$n)] | length == 1" d.json &&
    jq -e --arg id "$id" "[.jobs[] | select(.id == \$id)] | length == 0" d.json &&
    "$CCAS" -c "$CCAS_CONF" slurm demand >d.out && cat d.out &&
    test_grep "job $id waits for nodes powering up: $node" d.out &&
    scancel "$id"
' || slurm_dump

test_done
