#!/bin/sh
# SPDX-License-Identifier: MIT
# cyclecloud-project.sh: make the CycleCloud project ready to upload: a copy of
# cyclecloud/ with the release tarball, and any packages built for the
# cluster's systems, in blobs/ and named in project.ini.
#
#   scripts/cyclecloud-project.sh -t ccautoscale-VERSION.tar.gz [-o DIR] [--os OS] [PACKAGE...]
#   cd DIR && cyclecloud project upload LOCKER
#
# The scheduler spec installs a package when one in the blobs fits the node,
# by its name: ccautoscale-VERSION-OS-slurmSLURMVERSION-ARCH.rpm|deb, or
# ...-OS-noslurm-ARCH.rpm|deb for a PBS server (OS: el8, el9, ubuntu22.04,
# ubuntu24.04, ...; ARCH: x86_64 for an rpm, amd64 for a deb).  RPMs made from
# rpm/ccautoscale.spec are named so from what they are (the release says the
# Slurm and the EL release; --os OS where it does not); other packages must
# carry such a name already.  Without a fitting package the spec builds the
# tarball on the node.
set -eu
usage () {
    sed -n 's/^#   //p' "$0" >&2
    exit 1
}
out=_build/cyclecloud-project
tarball=""
os=""
while [ $# -gt 0 ]; do
    case $1 in
    -o) out=${2:?}; shift 2 ;;
    -t) tarball=${2:?}; shift 2 ;;
    --os) os=${2:?}; shift 2 ;;
    -h | --help) usage ;;
    -*) usage ;;
    *) break ;;
    esac
done
[ -n "$tarball" ] || usage
src=$(cd "$(dirname "$0")/.." && pwd)/cyclecloud
version=$(sed -n 's/^version = //p' "$src/project.ini")
case $(basename "$tarball") in
"ccautoscale-$version.tar.gz") ;;
*) echo "$0: the tarball must be ccautoscale-$version.tar.gz (the project's version, cyclecloud/project.ini)" >&2; exit 1 ;;
esac
[ -s "$tarball" ] || { echo "$0: no $tarball (make dist)" >&2; exit 1; }

# The name the spec looks for, for one package
blob_name () {
    f=$1
    base=$(basename "$f")
    case $base in
    "ccautoscale-$version-"*-slurm*-*.rpm | "ccautoscale-$version-"*-slurm*-*.deb | \
        "ccautoscale-$version-"*-noslurm-*.rpm | "ccautoscale-$version-"*-noslurm-*.deb)
        echo "$base"
        return
        ;;
    *.rpm)
        command -v rpm >/dev/null || { echo "$0: $base: rpm is needed to read it" >&2; return 1; }
        [ "$(rpm -qp --qf '%{NAME} %{VERSION}' "$f")" = "ccautoscale $version" ] ||
            { echo "$0: $base is not ccautoscale $version" >&2; return 1; }
        rel=$(rpm -qp --qf '%{RELEASE}' "$f")
        arch=$(rpm -qp --qf '%{ARCH}' "$f")
        slurm=$(printf '%s' "$rel" | sed -n 's/.*\.slurm\([0-9][0-9.]*[0-9]\).*/\1/p')
        el=$(printf '%s' "$rel" | sed -n 's/.*\.\(el[0-9][0-9]*\).*/\1/p')
        el=${os:-$el}
        [ -n "$el" ] || { echo "$0: $base: its release ($rel) names no EL release: give --os" >&2; return 1; }
        echo "ccautoscale-$version-$el-${slurm:+slurm$slurm}$([ -n "$slurm" ] || echo noslurm)-$arch.rpm"
        ;;
    *)
        echo "$0: $base: name it ccautoscale-$version-OS-slurmX.Y.Z-ARCH.deb (or -noslurm-) for the spec to find it" >&2
        return 1
        ;;
    esac
}

rm -rf "$out"
mkdir -p "$out"
(cd "$src" && tar --exclude='./blobs/*' -cf - .) | (cd "$out" && tar -xf -)
mkdir -p "$out/blobs"
cp "$tarball" "$out/blobs/"
files="ccautoscale-$version.tar.gz"
for p in "$@"; do
    name=$(blob_name "$p")
    cp "$p" "$out/blobs/$name"
    files="$files, $name"
done
sed -i "s/^Files = .*/Files = $files/" "$out/project.ini"
echo "$out: project ccautoscale $version, blobs: $files"
echo "upload it: cd $out && cyclecloud project upload LOCKER"
