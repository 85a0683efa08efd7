# SPDX-License-Identifier: MIT
# cyclecloud.sh: run the CycleCloud project's cluster-init scripts (cyclecloud/)
# inside a scratch root, against a stand-in jetpack (sourced after tap.sh).
#
#   cc_prereqs                   skip the test with CCAS_TEST_CYCLECLOUD=0, or without python3
#   cc_setup                     $CC_ROOT (the node's /), $CC_SCHED (set by cc_stock_slurm)
#   cc_jetpack JQ                the node's settings ($TEST_TMP/jetpack.json) from a jq
#                                expression over the defaults (cc_settings)
#   cc_scheduler_script [ENV=V...]  run specs/scheduler/cluster-init/scripts/10-ccautoscale.sh
#                                as jetpack would, its output in run.out and run.err (through
#                                $CC_RUN, a command prefix, when set: in_pbs for PBS's namespace)
#   cc_snapshot                  every file under $CC_ROOT: path, mode, owner, size, mtime and
#                                sha256 (directories: path, mode, owner), one a line, sorted
#   cc_stock_cluster NAME        the stock Slurm template's cluster for ccsim (on stdout):
#                                tests/data/stock-slurm-cluster.json with NAME and the
#                                template's slurm.node_prefix "NAME-", fewer nodes (hpc 4,
#                                htc 6, gpu 2) so that every node has a port of one test's block
#   cc_stock_slurm CLUSTER PORT  what the stock cyclecloud/slurm:scheduler spec leaves on a
#                                scheduler of that cluster: slurm.conf and its includes in
#                                /sched/CLUSTER linked from /etc/slurm (azure.conf as azslurm
#                                writes it, mode 0640), azslurm in /opt/azurehpc/slurm with its
#                                autoscale.json (reaching $CCSIM_URL), azslurmd enabled, the
#                                return_to_idle cron entry
#   cc_stock_untouched           the stock files are as cc_stock_* left them
#
# The blobs jetpack downloads are in $CC_BLOBS: the release tarball, made by
# `make dist` (tests/cyclecloud's Makefile, or cc_blobs here when run by hand).

CC_PROJECT=$top_srcdir/cyclecloud
CC_JETPACK=$top_srcdir/tests/cyclecloud/jetpack
CC_VERSION=$(sed -n 's/^PACKAGE_VERSION = //p' "$top_builddir/Makefile" 2>/dev/null)
CC_BLOBS=${CC_BLOBS:-$top_builddir/tests/cyclecloud/blobs}

# The suite's long tests (each builds ccautoscale) skip themselves in a build
# whose other suites run them not (run-tests' sanitizer build)
cc_prereqs () {
    [ "${CCAS_TEST_CYCLECLOUD:-1}" != 0 ] || test_skip_all "CCAS_TEST_CYCLECLOUD=0"
    command -v python3 >/dev/null || test_skip_all "no python3"
}

# The release tarball in $CC_BLOBS (the Makefile makes it before the tests run)
cc_blobs () {
    local tarball=$CC_BLOBS/ccautoscale-$CC_VERSION.tar.gz
    [ -s "$tarball" ] && return 0
    mkdir -p "$CC_BLOBS" &&
        (flock 9 && { [ -s "$tarball" ] || { make -C "$top_builddir" dist-gzip >"$TEST_TMP/dist.log" 2>&1 &&
            cp "$top_builddir/ccautoscale-$CC_VERSION.tar.gz" "$tarball"; }; }) 9>"$CC_BLOBS/.lock"
}

cc_setup () {
    CC_ROOT=$TEST_TMP/root
    mkdir -p "$CC_ROOT/etc" "$CC_ROOT/var/lib" "$CC_ROOT/run" &&
        printf '%s\n' "$CC_ROOT" >"$TEST_TMP/root.path" &&
        cc_blobs
}

# The settings of a Slurm scheduler node of cluster $CC_CLUSTER reaching ccsim
cc_settings () {
    jq -n --arg url "${CCSIM_URL:-}" --arg name "${CC_CLUSTER:-cc_test}" '{
        cyclecloud: {config: {web_server: $url, username: "admin", password: "s3cret \"pw\" \\ x"},
                     cluster: {name: $name}, node: {id: "node-1"}},
        slurm: {role: "scheduler", user: {name: "slurm"}},
        ccautoscale: {scheduler: "slurm"}}'
}

cc_jetpack () {
    cc_settings | jq "${1:-.}" >"$TEST_TMP/jetpack.json"
}

cc_scheduler_script () {
    ${CC_RUN:-} env JETPACK="$CC_JETPACK" JETPACK_CONFIG="$TEST_TMP/jetpack.json" JETPACK_BLOBS="$CC_BLOBS" \
        JETPACK_LOG="$TEST_TMP/jetpack.log" CCAS_ROOT="$CC_ROOT" CCAS_PREFIX="$CC_ROOT/usr" \
        CCAS_PYTHON=python3 "$@" \
        bash "$CC_PROJECT/specs/scheduler/cluster-init/scripts/10-ccautoscale.sh" >run.out 2>run.err
}

# The files, links and directories of the scratch root, one a line from its
# path: files with mode, owner, size, mtime (ns) and sha256
cc_snapshot () {
    (cd "$CC_ROOT" && find . -printf '%y %p %m %u:%g\n' | sort -k2 |
        while read -r type path mode owner; do
            case $type in
            f) printf '%s %s %s %s %s\n' "$path" "$mode" "$owner" "$(stat -c '%s %.9Y' "$path")" \
                "$(sha256sum <"$path" | cut -d' ' -f1)" ;;
            l) printf '%s -> %s\n' "$path" "$(readlink "$path")" ;;
            *) printf '%s %s %s %s\n' "$path" "$type" "$mode" "$owner" ;;
            esac
        done)
}

# ---- the stock Slurm scheduler ------------------------------------------------------------------

cc_stock_cluster () {
    jq --arg name "$1" '.clusterName = $name
        | .nodearrays |= map(.nodearray.Configuration.slurm.node_prefix = "\($name)-")
        | ({hpc: 4, htc: 6, gpu: 2}) as $n
        | .nodearrays |= map(if $n[.name] then .maxCount = $n[.name] | .buckets[0].maxCount = $n[.name]
            | .buckets[0].maxCoreCount = $n[.name] * .buckets[0].virtualMachine.vcpuCount else . end)' \
        "$top_srcdir/tests/data/stock-slurm-cluster.json"
}

cc_stock_slurm () {
    local cluster=$1 port=$2 sched azslurm
    sched=$CC_ROOT/sched/$cluster
    CC_SCHED=$sched
    azslurm=$CC_ROOT/opt/azurehpc/slurm
    mkdir -p "$sched/spool/slurmctld" "$sched/log" "$sched/vm" "$CC_ROOT/etc/slurm" "$azslurm/logs" \
        "$azslurm/venv/bin" "$CC_ROOT/etc/systemd/system/multi-user.target.wants" \
        "$CC_ROOT/var/spool/cron/crontabs" || return 1
    # azslurm: its programs only record that they ran
    for p in resume_program suspend_program resume_fail_program return_to_idle; do
        printf '#!/bin/sh\necho "$0 $*" >>%s/logs/stock-programs.log\n' "$azslurm" >"$azslurm/$p.sh" &&
            chmod 755 "$azslurm/$p.sh" || return 1
    done
    # as azslurm's install writes it from the node's settings (cc_settings)
    jq -n --arg url "${CCSIM_URL:-https://cyclecloud.invalid}" --arg name "${CC_CLUSTER:-cc_test}" --arg dir "$sched" \
        '{cluster_name: $name, username: "admin", password: "s3cret \"pw\" \\ x", url: $url,
          lock_file: "/opt/azurehpc/slurm/scalelib.lock", logging: {config_file: "/opt/azurehpc/slurm/logging.conf"},
          default_resources: [{select: {}, name: "slurm_gpus", value: "node.gpu_count"}],
          config_dir: $dir, idle_timeout: 300, boot_timeout: 1800, azslurmd: {sleep_time: 15}}' \
        >"$azslurm/autoscale.json" &&
        chmod 600 "$azslurm/autoscale.json" &&
    printf '[Unit]\nDescription=AzSlurm Daemon\n[Service]\nExecStart=%s/venv/bin/azslurmd\n[Install]\nWantedBy=multi-user.target\n' \
        "$azslurm" >"$CC_ROOT/etc/systemd/system/azslurmd.service" &&
    ln -s ../azslurmd.service "$CC_ROOT/etc/systemd/system/multi-user.target.wants/azslurmd.service" &&
    printf '# return_to_idle\n*/5 * * * * %s/return_to_idle.sh 1>&2 >> %s/logs/return_to_idle.log\n' "$azslurm" "$azslurm" \
        >"$CC_ROOT/var/spool/cron/crontabs/root" &&
    chmod 600 "$CC_ROOT/var/spool/cron/crontabs/root" || return 1

    # slurm.conf as the stock template writes it, with what one machine needs
    # (tests/lib/slurm.sh: ports, auth/none, proctrack/linuxproc, config_overrides)
    cat >"$sched/slurm.conf" <<CONF
MpiDefault=none
ProctrackType=proctrack/linuxproc
ReturnToService=2
PropagateResourceLimits=ALL
SlurmctldPidFile=$sched/slurmctld.pid
SlurmdPidFile=$sched/spool/%n/slurmd.pid
SlurmdSpoolDir=$sched/spool/%n
SlurmUser=slurm
SlurmdUser=root
StateSaveLocation=$sched/spool/slurmctld
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
GresTypes=gpu
SelectTypeParameters=CR_CPU
ClusterName=$cluster
JobAcctGatherType=jobacct_gather/none
SlurmctldDebug=info
SlurmctldLogFile=$sched/log/slurmctld.log
$(slurm_version_conf)
SlurmdDebug=info
SlurmdLogFile=$sched/log/slurmd-%n.log
SlurmdParameters=config_overrides
AuthType=auth/none
CredType=cred/none
AuthInfo=cred_expire=10
SlurmctldPort=$port
SlurmdPort=$port
MessageTimeout=5
# TopologyPlugin=topology/tree
PrologFlags=alloc
TreeWidth=16
ResumeTimeout=60
SuspendTimeout=10
SuspendTime=600
SlurmctldTimeout=30
ResumeProgram=$azslurm/resume_program.sh
ResumeFailProgram=$azslurm/resume_fail_program.sh
SuspendProgram=$azslurm/suspend_program.sh
SchedulerParameters=max_switch_wait=24:00:00,bf_interval=2
MaxNodeCount=10000

# azslurm's partitions
Include azure.conf
Include accounting.conf
# azslurmd's SuspendExcNodes
Include keep_alive.conf
Include site_specific.conf

SlurmCtldHost=localhost
CONF
    # azslurm's partitions, as 'azslurm scale' writes them for cc_stock_cluster
    cat >"$sched/azure.conf" <<CONF
# Note: To account for OS/VM overhead, by default we reduce the reported memory from CycleCloud by 5%.
PartitionName=hpc Nodes=$cluster-hpc-[1-4] Default=YES DefMemPerCPU=1536 MaxTime=INFINITE State=UP
Nodename=$cluster-hpc-[1-4] Feature=cloud STATE=CLOUD CPUs=2 ThreadsPerCore=2 RealMemory=3072
PartitionName=htc Nodes=$cluster-htc-[1-6] Default=NO DefMemPerCPU=1536 MaxTime=INFINITE State=UP
Nodename=$cluster-htc-[1-6] Feature=cloud STATE=CLOUD CPUs=2 ThreadsPerCore=1 RealMemory=3072
PartitionName=gpu Nodes=$cluster-gpu-[1-2] Default=YES DefMemPerCPU=18158 MaxTime=INFINITE State=UP
Nodename=$cluster-gpu-[1-2] Feature=cloud STATE=CLOUD CPUs=24 ThreadsPerCore=1 RealMemory=435814 Gres=gpu:4
# Creating dynamic nodeset and partition using slurm.dynamic_feature=dyn
Nodeset=dynamicns Feature=dyn
PartitionName=dynamic Nodes=dynamicns
CONF
    printf '\n\nNodename=%s-gpu-[1-2] Name=gpu Count=4 File=/dev/nvidia[0-3]\n\n' "$cluster" >"$sched/gres.conf" || return 1
    echo "AccountingStorageType=accounting_storage/none" >"$sched/accounting.conf" &&
    printf '# Do not edit this file. It is managed by azslurmd' >"$sched/keep_alive.conf" &&
    printf '# site specific slurm configuration. This is preserved during upgrades' >"$sched/site_specific.conf" &&
    : >"$sched/topology.conf" || return 1
    for f in slurm.conf azure.conf accounting.conf keep_alive.conf site_specific.conf gres.conf topology.conf; do
        ln -s "$sched/$f" "$CC_ROOT/etc/slurm/$f" || return 1
    done
    chown -R slurm:slurm "$sched" && chown root:root "$sched/vm" && chmod 0640 "$sched/azure.conf" &&
        cc_snapshot >"$TEST_TMP/stock.snapshot"
}

# The stock files are as they were: everything but ccautoscale's own
# (/usr, /etc/ccautoscale, /var/lib/ccautoscale, /run, /etc/tmpfiles.d)
CC_OURS='^\./(usr|etc/ccautoscale|var/lib/ccautoscale|run|etc/tmpfiles\.d)(/| )'
cc_stock_untouched () {
    cc_snapshot | grep -Ev "$CC_OURS" >"$TEST_TMP/now.snapshot" &&
        grep -Ev "$CC_OURS" "$TEST_TMP/stock.snapshot" >"$TEST_TMP/was.snapshot" &&
        diff "$TEST_TMP/was.snapshot" "$TEST_TMP/now.snapshot"
}
