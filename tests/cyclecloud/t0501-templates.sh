#!/bin/bash
# SPDX-License-Identifier: MIT
# t0501-templates.sh: the CycleCloud project's parts agree: the templates parse
# (sections nested as CycleCloud's template reference says, every parameter
# referenced defined), they keep every parameter, node, Configuration key and
# stock spec of the stock Slurm and OpenPBS templates (a site moves without
# changing how it fills the template), their ccautoscale specs are the
# project's at its version, which is configure.ac's; and the checker itself
# refuses what is broken.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/cyclecloud.sh"
command -v python3 >/dev/null || test_skip_all "no python3"

CHECK="python3 $top_srcdir/tests/cyclecloud/check-template.py"
SLURM_T=$CC_PROJECT/templates/slurm-ccautoscale.txt
PBS_T=$CC_PROJECT/templates/openpbs-ccautoscale.txt

test_expect_success 'both templates parse; their ccautoscale specs are the project'"'"'s, at its version' '
    $CHECK --project-ini "$CC_PROJECT/project.ini" "$SLURM_T" "$PBS_T"
'

test_expect_success 'the project'"'"'s version is configure.ac'"'"'s, in project.ini, its blob and the spec' '
    test -n "$CC_VERSION" &&
    test_grep "^version = $CC_VERSION$" "$CC_PROJECT/project.ini" &&
    test_grep "^Files = ccautoscale-$CC_VERSION.tar.gz$" "$CC_PROJECT/project.ini" &&
    test_grep "^CCAS_PROJECT_VERSION=$CC_VERSION$" "$CC_PROJECT/specs/scheduler/cluster-init/files/common.sh" &&
    for s in scheduler execute login; do
        test_grep "^\[spec $s\]$" "$CC_PROJECT/project.ini" &&
        test -x "$CC_PROJECT/specs/$s/cluster-init/scripts/10-ccautoscale.sh" || return 1
    done
'

for t in slurm openpbs; do
    test_expect_success "every parameter, node, Configuration key and spec of the stock $t template is in ours" '
        ours=$CC_PROJECT/templates/$t-ccautoscale.txt &&
        $CHECK --names "$ours" | sort -u >ours.names &&
        grep -v "^#" "$top_srcdir/tests/cyclecloud/stock-$t-names.txt" | sort -u >stock.names &&
        comm -23 stock.names ours.names >missing &&
        test_equal "$(cat missing)" "" "in the stock template, not in ours"
    '
done

test_expect_success 'the scheduler spec runs after the stock one on the scheduler, its standby and the PBS server' '
    $CHECK --names "$SLURM_T" >slurm.names && $CHECK --names "$PBS_T" >pbs.names &&
    test_grep "^cluster-init scheduler ccautoscale:scheduler:$CC_VERSION$" slurm.names &&
    test_grep "^config scheduler ccautoscale.scheduler$" slurm.names &&
    test_grep "^nodearray scheduler-ha$" slurm.names &&
    sed -n "/^ *\[\[nodearray scheduler-ha\]\]/,/^ *\[\[node/p" "$SLURM_T" | test_grep "^ *Extends = scheduler$" - &&
    test_grep "^cluster-init server ccautoscale:scheduler:$CC_VERSION$" pbs.names &&
    test "$(grep -c "^cluster-init [a-z-]* ccautoscale:" slurm.names)" = 1 &&
    test "$(grep -c "^cluster-init [a-z-]* ccautoscale:" pbs.names)" = 1 &&
    for t in "$SLURM_T" "$PBS_T"; do
        grep -A1 "^ *\[\[\[cluster-init ccautoscale:scheduler:" "$t" | test_grep "^ *Order = 10000$" - || return 1
    done
'

# the checker refuses what it should: each a broken copy of the Slurm template
broken () {
    sed "$1" "$SLURM_T" >broken.txt &&
    ! $CHECK broken.txt 2>broken.err && cat broken.err && test_grep "$2" broken.err
}

test_expect_success 'the checker refuses a parameter referenced and not defined' '
    broken "s/^\( *MaxCount = \)\$MaxHPCExecuteNodeCount/\1\$MaxHPCNodes/" "refers to parameter .MaxHPCNodes., which no" &&
    broken "s/UseBuiltinSched \&\& !configuration_slurm_ha_enabled, undefined/UseBuiltinSchd \&\& !configuration_slurm_ha_enabled, undefined/" \
        "refers to parameter .UseBuiltinSchd." &&
    broken "s/^\( *Conditions.Hidden := \)!DefineNodesAvailabilityZone/\1!DefineZones/" "refers to parameter .DefineZones."
'

test_expect_success 'the checker refuses sections out of place, unbalanced brackets, stray lines, bad Extends' '
    broken "s/^\( *\)\[\[\[configuration\]\]\]$/\1[[configuration]]/" "no section .configuration. at rank 2" &&
    broken "s/^\( *\)\[\[\[parameter Region\]\]\]/\1[[[parameter Region]]/" "unbalanced brackets" &&
    broken "s/^\[parameters Monitoring\]$/&\n[[[parameter Stray]]]/" "must be inside a parameters section" &&
    broken "s/^\( *slurm.role = login\)$/\1\n        this is not a setting/" "neither a section, a comment nor .key = value." &&
    broken "s/^\( *Extends = \)nodearraybase$/\1nodearraybse/" "Extends .nodearraybse.: no such node" &&
    sed "s/ccautoscale:scheduler:$CC_VERSION/ccautoscale:scheduler:9.9.9/" "$SLURM_T" >broken.txt &&
    ! $CHECK --project-ini "$CC_PROJECT/project.ini" broken.txt 2>err && test_grep "the project.s version is $CC_VERSION" err &&
    sed "s/ccautoscale:scheduler:/ccautoscale:master:/" "$SLURM_T" >broken.txt &&
    ! $CHECK --project-ini "$CC_PROJECT/project.ini" broken.txt 2>err && test_grep "spec .master. is not a spec of project .ccautoscale." err
'

test_expect_success 'scripts/cyclecloud-project.sh: the project with its tarball and a package named for a system' '
    cc_blobs && cp "$CC_BLOBS/ccautoscale-$CC_VERSION.tar.gz" . &&
    echo not-really-a-deb >"ccautoscale-$CC_VERSION-ubuntu22.04-slurm25.11.5-amd64.deb" &&
    sh "$top_srcdir/scripts/cyclecloud-project.sh" -o project -t "ccautoscale-$CC_VERSION.tar.gz" \
        "ccautoscale-$CC_VERSION-ubuntu22.04-slurm25.11.5-amd64.deb" &&
    test_grep "^Files = ccautoscale-$CC_VERSION.tar.gz, ccautoscale-$CC_VERSION-ubuntu22.04-slurm25.11.5-amd64.deb$" project/project.ini &&
    test -s "project/blobs/ccautoscale-$CC_VERSION.tar.gz" &&
    test -x project/specs/scheduler/cluster-init/scripts/10-ccautoscale.sh &&
    $CHECK --project-ini project/project.ini project/templates/*.txt &&
    echo x >oddname.deb &&
    ! sh "$top_srcdir/scripts/cyclecloud-project.sh" -o project2 -t "ccautoscale-$CC_VERSION.tar.gz" oddname.deb 2>err &&
    test_grep "name it ccautoscale-$CC_VERSION-OS-slurmX.Y.Z-ARCH.deb" err
'

test_done
