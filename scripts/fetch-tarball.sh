#!/bin/sh
# SPDX-License-Identifier: MIT
# fetch-tarball.sh: a source tarball the build scripts need, from its
# upstream release address, checked against a pinned hash, for a machine
# without ../shared/vendor beside the checkout.
#   scripts/fetch-tarball.sh NAME | --list | --tree-sha256 FILE | --tar-sha256 FILE | --help
set -eu

me=fetch-tarball.sh
deps_dir=${CCAS_DEPS_DIR:-/opt/ccautoscale-deps}
case $deps_dir in /*) ;; *) deps_dir=$PWD/$deps_dir ;; esac
cache=$deps_dir/src

# The known tarballs: NAME URL TAR_SHA256 TREE_SHA256.
#
# The vendored tarballs (../shared/vendor/NAME.tar.xz) are `git archive`
# output (a pax header names the commit) compressed with xz; upstream serves
# .tar.bz2 (SchedMD) and .tar.gz (GitHub), which cannot be downloaded here, so
# the sha256 of upstream's files themselves is not known and not pinned.
# What is pinned is computed from the vendored files:
#   TAR_SHA256   sha256 of the uncompressed tar: the same for a .bz2, .gz or
#                .xz of the same tar, so it holds if upstream's artifact is
#                that tar compressed otherwise;
#   TREE_SHA256  sha256 of the file list (tree_sha256 below: each regular
#                file's sha256 and each symbolic link's target, by path
#                under the top directory): the same files in a tar that
#                differs otherwise (another top directory name — GitHub
#                names it after the ref asked for —, owners, times, format).
# A download passes if either matches; the script says which, and prints
# the artifact's own sha256, which can then be pinned.
known() {
    cat <<'EOF'
slurm-23.02.7 https://download.schedmd.com/slurm/slurm-23.02.7.tar.bz2 77b0786a90cb1ab87ecb2c98e181c5b9274efa278b802f9574f7604470f95471 2cf8c920619aeed156d656176b42ebcbbabe4cd87ac0d9e322006aa44c9235d5
slurm-23.11.11 https://download.schedmd.com/slurm/slurm-23.11.11.tar.bz2 362c432a9de5583332566a0e8a71a2ec4c76348c6b61e8c1144a3847df8ff175 50d66074615a8bbfb6686d09aedac09e56f5c1ac2ba767977a6984bc87281492
slurm-24.05.8 https://download.schedmd.com/slurm/slurm-24.05.8.tar.bz2 18fdc3bb5383183dae089bf385e7cd21c7633133fd9484133eb999e0669abbd6 67dd4c9b34be4827023408e94a9691a118e4658b194985d15ac31d5f6898ddbc
slurm-24.11.7 https://download.schedmd.com/slurm/slurm-24.11.7.tar.bz2 828ef8ac878c11a9af870601ac587124171a34fa65c4528e52b0ba0f73d2d62c e5291206c970cd835768b9ad7e50fbe3ae8b0aa3d1e42eba16aa8f04d1618623
slurm-25.05.8 https://download.schedmd.com/slurm/slurm-25.05.8.tar.bz2 6124ae24458df1903299dc70d1609cc5c545072fcdcaf1e7ea12ec1de6992590 edd86ed5bd1a42b33e9d2885eec0bfbca93abb276e52b7c4ace1d76120aad4e2
slurm-25.11.7 https://download.schedmd.com/slurm/slurm-25.11.7.tar.bz2 11eb6b6bdb05e92700261f314dedd3f3eb1d08f0a78e09dcb997a82522b6c150 eb4628092b31d2dcee3094de57dcdcf4b03cc8908504bcd301a6e2fc6efc709f
openpbs-cd7ab5eda https://github.com/openpbs/openpbs/archive/cd7ab5edaf03dcac2f1cb9e2f42d75eb117d468a.tar.gz e6a2659da562a34cba71c37a0448b5465f2f4a2849c4486134b1644e2150f09e 1b8484727c5685c8ea5757e0b958ff74f4e8e25208529e61cb75db5f48538b8b
EOF
}

usage() {
    cat <<EOF
Usage: scripts/$me NAME
       scripts/$me --list | --tar-sha256 FILE | --tree-sha256 FILE | --help

Prints the path of a checked source tarball NAME.tar.xz, downloading it
first if it is not already in the cache:
  $cache

NAME is one of these (or slurm, openpbs: the newest of them):
$(known | awk '{ print "  " $1 }')

The build scripts (scripts/slurm-src.sh, scripts/openpbs-src.sh) call this only
when the tarball is neither given (\$CCAS_SLURM_TARBALL,
\$CCAS_OPENPBS_TARBALL) nor in ../shared/vendor beside the checkout.

How
  1. The upstream artifact (a .tar.bz2 or .tar.gz) is taken from the cache
     if it is there (put there by hand on a machine without network), else
     downloaded with curl from its release address.
  2. It is checked: the sha256 of the uncompressed tar, or else of its
     file list, must be the pinned one (see the top of this script for why
     not the artifact's own sha256).  A mismatch removes the download and
     exits 1.
  3. It is stored, recompressed with xz, as NAME.tar.xz in the cache — the
     form ../shared/vendor holds — and its path printed.

Commands
  --list              the known tarballs and their addresses
  --tar-sha256 FILE   sha256 of FILE's uncompressed tar (.tar.bz2, .gz, .xz)
  --tree-sha256 FILE  sha256 of FILE's file list (what the pins are made of)

Environment
  CCAS_DEPS_DIR   where the cache is (DIR/src); default /opt/ccautoscale-deps

Exit status
  0  the path printed
  1  failure: a download that does not match, an unknown NAME, a full disk
  2  cannot download (no network, no curl): the message says what to
     download and where to put it
EOF
}

say() { printf '%s: %s\n' "$me" "$*" >&2; }
die() {
    say "$*"
    exit 1
}

# FILE's bytes decompressed to stdout, the compression told by its first
# bytes (not its name: a file put in the cache by hand may be named anything).
decompress() {
    magic=$(od -An -tx1 -N6 "$1" 2>/dev/null | tr -d ' \n') || magic=
    case $magic in
    425a68*) bzip2 -dc <"$1" ;;
    1f8b*) gzip -dc <"$1" ;;
    fd377a585a00) xz -dc <"$1" ;;
    *) cat <"$1" ;;
    esac
}

tar_sha256() {
    s=$(decompress "$1" | sha256sum) || return 1
    printf '%s\n' "${s%% *}"
}

# sha256 of the lines "SHA256  ./PATH" (regular files) and "link ./PATH
# TARGET" (symbolic links) for every entry under the top directory, sorted
# by path in the C locale.  Directories, owners, modes and times are left
# out: they differ between tars of the same files.
tree_sha256() {
    t=$(mktemp -d "${TMPDIR:-/tmp}/ccas-tree.XXXXXX") || return 1
    if ! decompress "$1" | tar -xf - -C "$t" --strip-components=1 --no-same-owner 2>/dev/null; then
        rm -rf "$t"
        return 1
    fi
    s=$(cd "$t" && {
        find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum
        find . -type l -printf 'link %p %l\n' | LC_ALL=C sort
    } | sha256sum) || {
        rm -rf "$t"
        return 1
    }
    rm -rf "$t"
    printf '%s\n' "${s%% *}"
}

offline() {
    why=$1
    say "cannot download $url ($why)"
    say "to build without network here: download that file elsewhere and put it at"
    say "  $artifact"
    say "and run this again (it is checked against the pinned hash before use);"
    say "or give the build script a tarball of your own (see its --help)"
    exit 2
}

fetch() {
    name=$1
    # a name, or a project (slurm, openpbs): its newest known tarball
    line=$(known | awk -v n="$name" '$1 == n || index($1, n "-") == 1' | sort -V | tail -n 1)
    [ -n "$line" ] || die "unknown tarball '$name' (known: $(known | awk '{ printf "%s ", $1 }'))"
    # shellcheck disable=SC2086 # the line's four fields
    set -- $line
    name=$1
    url=$2
    want_tar=$3
    want_tree=$4
    final=$cache/$name.tar.xz
    if [ -f "$final" ]; then
        printf '%s\n' "$final"
        return 0
    fi
    { mkdir -p "$cache" 2>/dev/null && [ -w "$cache" ]; } ||
        die "cannot write to $cache; set CCAS_DEPS_DIR to a writable directory (e.g. \$HOME/.cache/ccautoscale-deps)"
    case $url in
    *.tar.bz2) artifact=$cache/$name.tar.bz2 ;;
    *.tar.gz) artifact=$cache/$name.tar.gz ;;
    *) artifact=$cache/$name.${url##*.} ;;
    esac
    if [ ! -f "$artifact" ]; then
        command -v curl >/dev/null 2>&1 || offline "curl is not installed"
        say "downloading $url"
        rc=0
        curl -fsSL --retry 2 --connect-timeout 20 -o "$artifact.part" "$url" 2>"$artifact.err" || rc=$?
        if [ "$rc" != 0 ]; then
            why=$(tail -n 1 "$artifact.err")
            rm -f "$artifact.part" "$artifact.err"
            offline "${why:-curl exited $rc}"
        fi
        rm -f "$artifact.err"
        mv "$artifact.part" "$artifact"
    else
        say "using $artifact (already there)"
    fi
    got_tar=$(tar_sha256 "$artifact") || got_tar=unreadable
    if [ "$got_tar" = "$want_tar" ]; then
        say "$artifact: its tar is the pinned one (sha256 $want_tar)"
    else
        got_tree=$(tree_sha256 "$artifact") || got_tree=unreadable
        if [ "$got_tree" != "$want_tree" ]; then
            rm -f "$artifact"
            die "$url: not the pinned $name (tar sha256 $got_tar, want $want_tar; files sha256 $got_tree, want $want_tree); removed it"
        fi
        say "$artifact: the pinned files in another tar (files sha256 $want_tree; tar sha256 $got_tar)"
    fi
    s=$(sha256sum <"$artifact")
    say "$artifact: sha256 ${s%% *} (upstream's artifact: may be pinned as such)"
    decompress "$artifact" | xz -T2 -6 >"$final.tmp" || {
        rm -f "$final.tmp"
        die "cannot write $final"
    }
    mv "$final.tmp" "$final"
    printf '%s\n' "$final"
}

case ${1:-} in
-h | --help | help) usage ;;
--list) known | awk '{ print $1, $2 }' ;;
--tar-sha256) tar_sha256 "${2:?--tar-sha256 FILE}" ;;
--tree-sha256) tree_sha256 "${2:?--tree-sha256 FILE}" ;;
-* | '')
    usage >&2
    exit 1
    ;;
*) fetch "$1" ;;
esac
