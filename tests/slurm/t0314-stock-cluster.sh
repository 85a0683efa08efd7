#!/bin/bash
# SPDX-License-Identifier: MIT
# CycleCloud's stock Slurm cluster (tests/data/stock-slurm-cluster.json:
# templates/slurm.txt's hpc, htc, gpu and dynamic nodearrays with their
# Configuration) on a real slurmctld, with no key of ccautoscale's for it:
# azslurm's node names and partitions, gpu the default partition (the last
# of the two the template marks, as Slurm takes it), ThreadsPerCore by
# slurm.use_pcpu, DefMemPerCPU, the dynamic partition's nodeset; a job in
# each static partition gets its VMs by those names (hpc's in one placement
# group: slurm.hpc) and completes.  Then the move from azslurm: its
# autoscale.json imported, its azure.conf and gres.conf in /sched/<cluster>
# compared and replaced (their mode kept), slurm.conf's stock Include lines
# unchanged, and a job runs through the imported configuration.  htc's
# MaxCount is 40 here (the template's parameter; 100 by default), so that
# every node has a port of this test's block.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/ccsim.sh"
. "$(dirname "$0")/../lib/slurm.sh"
why=$(slurm_prereqs) || test_skip_all "$why"
CCAS=$top_builddir/plugin/ccautoscale

jq '(.nodearrays[] | select(.name == "htc")) |= (.maxCount = 40 | .buckets[0].maxCount = 40 | .buckets[0].maxCoreCount = 80)' \
    "$top_srcdir/tests/data/stock-slurm-cluster.json" >"$TEST_TMP/stock.json"

# The job records its nodes and ccsim's VMs while it runs (after it they soon go).
cat >"$TEST_TMP/job.sh" <<'JOB'
#!/bin/sh
scontrol show hostnames "$SLURM_JOB_NODELIST" >"$TEST_TMP/nodes.$SLURM_JOB_ID"
curl -s "$CCSIM_URL/ccsim/state" >"$TEST_TMP/state.$SLURM_JOB_ID"
srun true
sleep "${1:-0}"
JOB

# "N PG": how many of job $1's nodes have VMs, and their PlacementGroupIds
vms_of_job () {
    jq -r --rawfile nodes "nodes.$1" \
        '($nodes | split("\n") | map(select(. != ""))) as $n | [.nodes[] | select(.Name as $x | $n | index($x))]
         | "\(length) \(map(.PlacementGroupId // "none") | unique | join(","))"' "state.$1"
}

test_expect_success 'a real slurmctld takes the stock cluster'"'"'s names and partitions' '
    SLURM_EXTRA_CONF="SelectTypeParameters=CR_Core_Memory" slurm_start "$TEST_TMP/stock.json" &&
    test_equal "$(sinfo -h -o "%R %D %N" | sort | tr "\n" ";")" \
        "dynamic 0 ;gpu 8 mycluster-gpu-[1-8];hpc 16 mycluster-hpc-[1-16];htc 40 mycluster-htc-[1-40];" &&
    test_equal "$(sinfo -h -o "%P" | grep "\*")" "gpu*" &&
    scontrol show partition hpc | grep -q "DefMemPerCPU=1536" &&
    scontrol show partition gpu | grep -q "DefMemPerCPU=18158" &&
    scontrol show partition dynamic | grep -q "NodeSets=dynamicns" &&
    scontrol show node mycluster-hpc-1 | grep -q "ThreadsPerCore=2" &&
    scontrol show node mycluster-htc-1 | grep -q "ThreadsPerCore=1" &&
    scontrol show node mycluster-htc-1 | grep -q "AvailableFeatures=cloud,Standard_F2s_v2,htc" &&
    scontrol show node mycluster-gpu-1 | grep -q "Gres=gpu:4" &&
    test "$(slurm_node_state mycluster-htc-1)" = "idle~"
' || slurm_dump

# Under the stock slurm.conf's CR_Core_Memory a job without --mem gets
# DefMemPerCPU per CPU: two 1-CPU htc jobs share one 2-CPU node (without it
# each would take the node's memory, and a VM)
test_expect_success 'two 1-CPU htc jobs share one VM named as azslurm names it, outside placement groups' '
    a=$(sbatch --parsable -N1 -n1 -p htc -o /dev/null "$TEST_TMP/job.sh" 5) &&
    b=$(sbatch --parsable -N1 -n1 -p htc -o /dev/null "$TEST_TMP/job.sh" 5) &&
    slurm_wait_job "$a" COMPLETED 120 && slurm_wait_job "$b" COMPLETED 120 &&
    scontrol show job "$a" >job.out && test_grep "MinMemoryCPU=\(1536M\|1.50G\) " job.out &&
    test_equal "$(cat "nodes.$a") $(cat "nodes.$b")" "mycluster-htc-1 mycluster-htc-1" &&
    test_equal "$(vms_of_job "$a")" "1 none" &&
    test "$(ccsim_made | wc -l)" = 1
' || slurm_dump

test_expect_success 'a 2-node hpc job gets its VMs in one placement group (slurm.hpc)' '
    id=$(sbatch --parsable -N2 -p hpc -o /dev/null "$TEST_TMP/job.sh") &&
    slurm_wait_job "$id" COMPLETED 120 &&
    test_equal "$(cat "nodes.$id" | tr "\n" " ")" "mycluster-hpc-1 mycluster-hpc-2 " &&
    vms=$(vms_of_job "$id") && case $vms in "2 none" | "2 "*,*) false ;; "2 "*) true ;; *) false ;; esac
' || { echo "VMs: $vms"; slurm_dump; }

test_expect_success 'a job on the default partition (gpu) runs with a GPU' '
    id=$(sbatch --parsable -N1 --gres=gpu:1 -o /dev/null "$TEST_TMP/job.sh") &&
    slurm_wait_job "$id" COMPLETED 120 &&
    test_equal "$(cat "nodes.$id")" "mycluster-gpu-1" &&
    scontrol show job "$id" | grep -q "Partition=gpu"
' || slurm_dump

# azslurm's files as it writes them for this cluster (cli.py _partitions, _generate_gres_conf)
write_azslurm_files () {
    mkdir -p "$1" &&
    cat >"$1/azure.conf" <<-EOF &&
	# Note: To account for OS/VM overhead, by default we reduce the reported memory from CycleCloud by 5%.
	PartitionName=hpc Nodes=mycluster-hpc-[1-16] Default=YES DefMemPerCPU=1536 MaxTime=INFINITE State=UP
	Nodename=mycluster-hpc-[1-16] Feature=cloud STATE=CLOUD CPUs=2 ThreadsPerCore=2 RealMemory=3072
	PartitionName=htc Nodes=mycluster-htc-[1-40] Default=NO DefMemPerCPU=1536 MaxTime=INFINITE State=UP
	Nodename=mycluster-htc-[1-40] Feature=cloud STATE=CLOUD CPUs=2 ThreadsPerCore=1 RealMemory=3072
	PartitionName=gpu Nodes=mycluster-gpu-[1-8] Default=YES DefMemPerCPU=18158 MaxTime=INFINITE State=UP
	Nodename=mycluster-gpu-[1-8] Feature=cloud STATE=CLOUD CPUs=24 ThreadsPerCore=1 RealMemory=435814 Gres=gpu:4
	# Creating dynamic nodeset and partition using slurm.dynamic_feature=dyn
	Nodeset=dynamicns Feature=dyn
	PartitionName=dynamic Nodes=dynamicns
	EOF
    printf "\n\nNodename=mycluster-gpu-[1-8] Name=gpu Count=4 File=/dev/nvidia[0-3]\n\n" >"$1/gres.conf" &&
    : >"$1/topology.conf" &&
    chmod 0444 "$1/azure.conf"
}

test_expect_success 'import-azslurm: ccautoscale'"'"'s configuration, and what Slurm would see change' '
    sched=$TEST_TMP/sched/mycluster &&
    write_azslurm_files "$sched" &&
    jq -n --arg url "$CCSIM_URL" --arg dir "$sched" \
        "{cluster_name: \"mycluster\", config_dir: \$dir, url: \$url, username: \"admin\", password: \"s3cret-pw\",
          default_resources: [{select: {}, name: \"slurm_gpus\", value: \"node.gpu_count\"}],
          idle_timeout: 300, boot_timeout: 1800, lock_file: \"/opt/azurehpc/slurm/scalelib.lock\",
          azslurmd: {sleep_time: 15}}" >az.json && chmod 600 az.json &&
    "$CCAS" slurm import-azslurm az.json -o imported.json >import.out && cat import.out &&
    test "$(stat -c %a imported.json)" = 600 &&
    test_grep "^= nodes mycluster-htc-\[1-40\]: (ccautoscale adds features Standard_F2s_v2,htc)$" import.out &&
    test_grep "^~ partition hpc: Default YES -> NO$" import.out &&
    test_grep "^= partition gpu$" import.out &&
    test_grep "^= gres of nodes mycluster-gpu-\[1-8\]$" import.out
'

test_expect_success 'the move: slurm conf writes /sched/<cluster>, slurm.conf keeps its Include, a job runs' '
    sched=$TEST_TMP/sched/mycluster &&
    jq --slurpfile h "$CCAS_CONF" ". + {state_dir: \$h[0].state_dir, lock_file: \$h[0].lock_file,
        logging: \$h[0].logging} | .slurm += {node_port_base: \$h[0].slurm.node_port_base,
        gpu_device_files: \$h[0].slurm.gpu_device_files}" imported.json >moved.json &&
    chmod 600 moved.json && mv moved.json "$CCAS_CONF" &&
    "$CCAS" -c "$CCAS_CONF" slurm conf --write "$sched" >write.out && cat write.out &&
    test "$(stat -c %a "$sched/azure.conf")" = 444 &&
    test_grep "^NodeName=mycluster-htc-\[1-40\] Feature=cloud,Standard_F2s_v2,htc State=CLOUD" "$sched/azure.conf" &&
    test -e "$sched/keep_alive.conf" && test -e "$sched/azure.conf.bak" &&
    for f in gres.conf topology.conf; do ln -sf "$sched/$f" "$SLURM_TEST_DIR/$f" || return 1; done &&
    sed -i "s|^Include $SLURM_TEST_DIR/ccautoscale.conf\$|Include $sched/azure.conf|" "$SLURM_CONF" &&
    test_grep "^Include $sched/azure.conf\$" "$SLURM_CONF" &&
    wait_for 90 sh -c "test \$(curl -s $CCSIM_URL/ccsim/state | jq \".nodes | length\") = 0" &&
    kill_pid "$SLURM_CTLD_PID" &&
    { "$top_srcdir/tests/slurm/with-hosts" "$SLURM_TEST_DIR/hosts" \
        slurmctld -D -i -f "$SLURM_CONF" >>"$SLURM_TEST_DIR/log/slurmctld.out" 2>&1 & SLURM_CTLD_PID=$!; } &&
    wait_for 20 sinfo -h &&
    test_equal "$(sinfo -h -o "%P" | grep "\*")" "gpu*" &&
    id=$(sbatch --parsable -N1 -p htc -w mycluster-htc-3 -o /dev/null "$TEST_TMP/job.sh") &&
    slurm_wait_job "$id" COMPLETED 120 &&
    test_equal "$(vms_of_job "$id")" "1 none" &&
    "$CCAS" -c "$CCAS_CONF" slurm conf --write "$sched" --check >check.out &&
    test_grep "^no change" check.out
' || slurm_dump

test_done
