#!/bin/sh
# SPDX-License-Identifier: MIT
# CycleCloud's stock Slurm cluster (tests/data/stock-slurm-cluster.json, the
# template's nodearrays with their Configuration): azslurm's names and
# partitions with no key of ccautoscale's, where each setting came from,
# files rewritten keeping their mode, owner and link, azslurm's
# configuration imported (what it carries, what Slurm would see change),
# and bad template values refused with nothing written.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/ccsim.sh"
CCAS=$(test_program "$top_builddir/plugin/ccautoscale")
STOCK=$top_srcdir/tests/data/stock-slurm-cluster.json
export CCAUTOSCALE_CONFIG=$TEST_TMP/autoscale.json

test_expect_success 'start ccsim with the stock cluster' '
    ccsim_start "$STOCK" &&
    CCSIM_CLUSTER_FILE=$STOCK ccsim_write_config "$CCAUTOSCALE_CONFIG"
'

test_expect_success 'slurm conf writes the stock names and partitions from the template alone' '
    "$CCAS" slurm conf >conf.out 2>conf.err &&
    test_grep "^NodeName=mycluster-hpc-\[1-16\] Feature=cloud,Standard_F2s_v2,hpc State=CLOUD CPUs=2 .* ThreadsPerCore=2 RealMemory=3072$" conf.out &&
    test_grep "^NodeName=mycluster-htc-\[1-100\] .* ThreadsPerCore=1 RealMemory=3072$" conf.out &&
    test_grep "^PartitionName=hpc Nodes=mycluster-hpc-\[1-16\] Default=NO DefMemPerCPU=1536 MaxTime=INFINITE State=UP$" conf.out &&
    test_grep "^PartitionName=gpu Nodes=mycluster-gpu-\[1-8\] Default=YES DefMemPerCPU=18158 " conf.out &&
    test_grep "^Nodeset=dynamicns Feature=dyn$" conf.out &&
    test_grep "^PartitionName=dynamic Nodes=dynamicns Default=NO" conf.out &&
    test_grep "^NodeName=mycluster-gpu-\[1-8\] Name=gpu Count=4 File=/dev/nvidia\[0-3\]$" conf.out &&
    test_no_grep "login" conf.out &&
    test_grep "slurm.default_partition is true on nodearrays .hpc., .gpu.: Slurm makes the last one its default" conf.err
'

test_expect_success 'config check --cluster says where each setting came from' '
    "$CCAS" config check --cluster --json >check.json 2>/dev/null &&
    jq -e ".slurm_settings.nodearrays.hpc.settings.node_prefix == {value: \"mycluster-\", from: \"Configuration slurm.node_prefix\"}" check.json &&
    jq -e ".slurm_settings.nodearrays.dynamic.settings.partition.from == \"default (the nodearray'"'"'s name)\"" check.json &&
    jq -e ".slurm_settings.nodearrays.htc.buckets.Standard_F2s_v2.ThreadsPerCore == 1" check.json &&
    jq -e ".slurm_settings.nodearrays.login.managed == false" check.json &&
    CCSIM_CLUSTER_FILE=$STOCK ccsim_write_config own.json ".nodearrays = {hpc: {slurm_partition: \"fast\"}}" &&
    "$CCAS" -c own.json config check --cluster >check.out 2>/dev/null &&
    test_grep "^hpc  *partition  *fast  *autoscale.json nodearrays.hpc.slurm_partition$" check.out &&
    test_grep "^hpc/Standard_F2s_v2  *RealMemory  *3072  *default" check.out
'

test_expect_success 'slurm conf --write keeps each file'"'"'s mode, owner and link' '
    mkdir -p etc shared &&
    "$CCAS" slurm conf --write etc >write.out &&
    mv etc/gres.conf shared/gres.conf && ln -s ../shared/gres.conf etc/gres.conf &&
    chmod 0400 etc/ccautoscale.conf && chmod 0640 shared/gres.conf &&
    owner=$(id -u) &&
    if [ "$owner" = 0 ]; then chown 65534:65534 etc/ccautoscale.conf; owner=65534; fi &&
    CCSIM_CLUSTER_FILE=$STOCK ccsim_write_config capped.json ".slurm.max_nodes = 4" &&
    "$CCAS" -c capped.json slurm conf --write etc >rewrite.out 2>rewrite.err &&
    test_grep "^NodeName=mycluster-gpu-\[1-4\] " etc/ccautoscale.conf &&
    test "$(stat -c %a:%u etc/ccautoscale.conf)" = "400:$owner" &&
    test -L etc/gres.conf &&
    test_grep "^NodeName=mycluster-gpu-\[1-4\] Name=gpu" shared/gres.conf &&
    test "$(stat -c %a shared/gres.conf)" = 640 &&
    test "$(stat -c %a etc/ccautoscale.conf.bak)" = 400 &&
    test_grep "nodearray .htc. machine type .Standard_F2s_v2.: 4 names of the 100 CycleCloud allows (slurm.max_nodes)" rewrite.err
'

# azslurm's autoscale.json as init-config.sh writes it, for this ccsim
write_azslurm () {
    jq -n --arg url "$CCSIM_URL" --arg dir "$TEST_TMP/sched/mycluster" \
        '{boot_timeout: 1800, cluster_name: "mycluster", config_dir: $dir,
          default_resources: [{select: {}, name: "slurm_gpus", value: "node.gpu_count"}],
          disable_default_resources: false, idle_timeout: 300, lock_file: "/opt/azurehpc/slurm/scalelib.lock",
          password: "s3cret-pw", url: $url, username: "admin",
          accounting: {subscription_id: "sub"}, azslurmd: {sleep_time: 15},
          cost: {cache_root: "/opt/azurehpc/slurm/.cache"},
          logging: {config_file: "/opt/azurehpc/slurm/logging.conf"}}' >"$1" &&
    chmod 600 "$1"
}

test_expect_success 'import-azslurm writes ccautoscale'"'"'s configuration and what would change' '
    write_azslurm az.json &&
    mkdir -p sched/mycluster &&
    cat >sched/mycluster/azure.conf <<-EOF &&
	# Note: To account for OS/VM overhead, by default we reduce the reported memory from CycleCloud by 5%.
	PartitionName=hpc Nodes=mycluster-hpc-[1-16] Default=YES DefMemPerCPU=1536 MaxTime=INFINITE State=UP
	Nodename=mycluster-hpc-[1-16] Feature=cloud STATE=CLOUD CPUs=2 ThreadsPerCore=2 RealMemory=3072
	PartitionName=htc Nodes=mycluster-htc-[1-100] Default=NO DefMemPerCPU=1536 MaxTime=INFINITE State=UP
	Nodename=mycluster-htc-[1-100] Feature=cloud STATE=CLOUD CPUs=2 ThreadsPerCore=1 RealMemory=3072
	PartitionName=gpu Nodes=mycluster-gpu-[1-8] Default=YES DefMemPerCPU=18158 MaxTime=INFINITE State=UP
	Nodename=mycluster-gpu-[1-8] Feature=cloud STATE=CLOUD CPUs=24 ThreadsPerCore=1 RealMemory=435814 Gres=gpu:4
	# Creating dynamic nodeset and partition using slurm.dynamic_feature=dyn
	Nodeset=dynamicns Feature=dyn
	PartitionName=dynamic Nodes=dynamicns
	EOF
    printf "\n\nNodename=mycluster-gpu-[1-8] Name=gpu Count=4 File=/dev/nvidia[0-3]\n\n" >sched/mycluster/gres.conf &&
    : >sched/mycluster/topology.conf &&
    "$CCAS" slurm import-azslurm az.json -o imported.json >import.out 2>import.err &&
    test "$(stat -c %a imported.json)" = 600 &&
    jq -e ".password == \"s3cret-pw\" and .cluster_name == \"mycluster\" and
           .slurm.nodes_file == \"azure.conf\" and .slurm.keepalive_file == \"keep_alive.conf\" and
           .slurm.conf_dir == \"$TEST_TMP/sched/mycluster\" and (.default_resources | length) == 1 and
           (has(\"idle_timeout\") | not) and (has(\"lock_file\") | not)" imported.json &&
    test_grep "idle_timeout: not carried" import.out &&
    test_grep "verify_certificates: azslurm did not verify" import.out &&
    test_grep "^= nodes mycluster-htc-\[1-100\]: (ccautoscale adds features Standard_F2s_v2,htc)$" import.out &&
    test_grep "^~ partition hpc: Default YES -> NO$" import.out &&
    test_grep "^= partition dynamic$" import.out &&
    test_grep "^= gres of nodes mycluster-gpu-\[1-8\]$" import.out &&
    test_grep "^+ nodes mycluster-hpc-\[1-16\]: under switch hpc_Standard_F2s_v2 only in" import.out &&
    test_no_grep "s3cret-pw" import.out && test_no_grep "s3cret-pw" import.err
'

test_expect_success 'import-azslurm replaces a configuration only with --force, and never azslurm'"'"'s' '
    cp imported.json first.json &&
    test_expect_code 1 "$CCAS" slurm import-azslurm az.json -o imported.json 2>err &&
    test_grep "imported.json exists; --force replaces it" err &&
    test_expect_code 1 "$CCAS" slurm import-azslurm az.json -o az.json --force 2>err &&
    test_grep "az.json is azslurm'"'"'s own file" err &&
    jq -e ".azslurmd" az.json >/dev/null &&
    "$CCAS" slurm import-azslurm az.json -o imported.json --force --json >import.json &&
    cmp first.json imported.json.bak && test "$(stat -c %a imported.json.bak)" = 600 &&
    jq -e "[.files[] | {(.file): .differences}] | add == {\"azure.conf\": 3, \"gres.conf\": 0, \"topology.conf\": 3}" import.json
'

test_expect_success 'after slurm conf --write, azslurm'"'"'s files and ccautoscale'"'"'s are the same' '
    chmod 0444 sched/mycluster/azure.conf &&
    "$CCAS" -c imported.json slurm conf --write sched/mycluster >write.out &&
    test "$(stat -c %a sched/mycluster/azure.conf)" = 444 &&
    test -e sched/mycluster/keep_alive.conf &&
    "$CCAS" slurm import-azslurm az.json -o again.json >again.out &&
    test_grep "^0 differences\." again.out
'

test_expect_success 'import-azslurm refuses a file it cannot make a configuration of, writing nothing' '
    jq "del(.password)" az.json >nopw.json &&
    test_expect_code 2 "$CCAS" slurm import-azslurm nopw.json -o nopw-out.json 2>err &&
    test_grep "nopw.json: password: missing" err && test ! -e nopw-out.json &&
    jq ".default_resources = [{select: {}, name: \"slurm_memory\", value: \"size::4gbb\"}]" az.json >badrule.json &&
    test_expect_code 2 "$CCAS" slurm import-azslurm badrule.json -o badrule-out.json 2>err &&
    test_grep "unknown unit suffix .gbb. (nothing written)" err && test ! -e badrule-out.json
'

test_expect_success 'import-azslurm writes the configuration when CycleCloud does not answer' '
    jq ".url = \"http://127.0.0.1:1\"" az.json >down.json &&
    test_expect_code 3 "$CCAS" slurm import-azslurm down.json -o down-out.json >down.out 2>err &&
    test "$(stat -c %a down-out.json)" = 600 &&
    test_grep "down-out.json is written; compare again when CycleCloud answers" err
'

test_expect_success 'a template value that cannot work names the nodearray and key; nothing is written' '
    jq ".nodearrays[0].nodearray.Configuration.slurm.partition = 5 |
        .nodearrays[1].nodearray.Configuration.slurm.partition = \"DEFAULT\"" "$STOCK" >bad-cluster.json &&
    ccsim_start "$TEST_TMP/bad-cluster.json" &&
    CCSIM_CLUSTER_FILE=$TEST_TMP/bad-cluster.json ccsim_write_config bad.json ".slurm.conf_dir = \"$TEST_TMP/etc\"" &&
    sum=$(cat etc/ccautoscale.conf shared/gres.conf etc/topology.conf | cksum) &&
    test_expect_code 2 "$CCAS" -c bad.json slurm conf --write etc >bad.out 2>bad.err &&
    test_grep "nodearray .hpc.: Configuration slurm.partition: expected a string, got 5" bad.err &&
    test_grep "nodearray .htc.: Configuration slurm.partition: partition name .DEFAULT. is the name Slurm keeps" bad.err &&
    test "$(cat etc/ccautoscale.conf shared/gres.conf etc/topology.conf | cksum)" = "$sum" &&
    test_expect_code 2 "$CCAS" -c bad.json config check --cluster >/dev/null 2>check.err &&
    test_grep "nodearray .hpc.: Configuration slurm.partition: expected a string, got 5" check.err
'

test_done
