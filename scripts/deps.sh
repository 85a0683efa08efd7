#!/bin/sh
# SPDX-License-Identifier: MIT
# deps.sh: install the Debian 12 packages ccautoscale needs to build, test and
# run its demo — only those missing, so a second run does nothing.
#   scripts/deps.sh [build|test|demo|package]   (default: test)
set -eu
what=${1:-test}

build="build-essential autoconf automake pkg-config libcurl4-openssl-dev libjson-c-dev libslurm-dev libmicrohttpd-dev"
test="$build libcmocka-dev valgrind jq curl openssl clang libclang-rt-14-dev clang-tidy clang-format cppcheck python3 python3-prometheus-client sqlite3 util-linux slurmctld slurmd slurm-client bash-completion rpm"
demo="$build jq curl util-linux slurmctld slurmd slurm-client"
package="$test debhelper dpkg-dev fakeroot"

case $what in
build) pkgs=$build ;;
test) pkgs=$test ;;
demo) pkgs=$demo ;;
package) pkgs="$package" ;;
*) echo "usage: $0 [build|test|demo|package]" >&2; exit 1 ;;
esac

missing=""
for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" = 0 ]; then sudo=""; else sudo="sudo"; fi
echo "deps.sh: installing:$missing"
# Installing slurmctld must not start a system-wide Slurm: the tests and the
# demo run their own, on private ports.
policy=/usr/sbin/policy-rc.d
made_policy=0
if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' | $sudo tee "$policy" >/dev/null
    $sudo chmod 755 "$policy"
    made_policy=1
fi
trap '[ "$made_policy" = 1 ] && $sudo rm -f "$policy"' EXIT
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
# shellcheck disable=SC2086
$sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
