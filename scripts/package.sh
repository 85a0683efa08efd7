#!/bin/sh
# SPDX-License-Identifier: MIT
# package.sh: build the Debian packages (ccautoscale, ccsim) with
# dpkg-buildpackage, install them on this machine, smoke-test the installed
# programs against the installed simulator, and purge them again.
#   scripts/package.sh [OUTDIR]          (default _build/deb; installs with sudo unless root)
#   scripts/package.sh --build-only [OUTDIR]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
install=1
if [ "${1:-}" = --build-only ]; then
    install=0
    shift
fi
out=${1:-$top/_build/deb}

"$top/scripts/deps.sh" package

# dpkg-buildpackage builds inside its source tree: build in a clean copy so
# that the checkout (and any in-tree configuration) is left alone
rm -rf "$out"
mkdir -p "$out/src"
(cd "$top" && tar --exclude=./_build --exclude=./.git -cf - .) | (cd "$out/src" && tar xf -)
(cd "$out/src" && [ ! -f Makefile ] || make distclean >/dev/null)
echo "== dpkg-buildpackage -us -uc -b"
(cd "$out/src" && dpkg-buildpackage -us -uc -b) >"$out/build.log" 2>&1 || {
    tail -40 "$out/build.log"
    exit 1
}
ls "$out"/*.deb
[ "$install" = 1 ] || exit 0

if [ "$(id -u)" = 0 ]; then sudo=""; else sudo="sudo"; fi

# ---- installed smoke test -------------------------------------------------------------------------------
tmp=$(mktemp -d)
ccsim_pid=""
cleanup () {
    # ccsim writes its state into $tmp as it exits: wait, or rm races it
    if [ -n "$ccsim_pid" ]; then
        kill "$ccsim_pid" 2>/dev/null
        wait "$ccsim_pid" 2>/dev/null
    fi
    $sudo dpkg --purge ccautoscale ccsim >/dev/null 2>&1 || true
    rm -rf "$tmp"
}
trap cleanup EXIT
fail () {
    echo "package smoke test: $*" >&2
    exit 1
}
check () {
    echo "-- $1"
}

echo "== install"
$sudo dpkg -i "$out"/ccautoscale_*.deb "$out"/ccsim_*.deb >"$tmp/dpkg.log" 2>&1 || {
    cat "$tmp/dpkg.log"
    fail "dpkg -i failed"
}

check "the programs, man pages, units and completion are where Debian puts them"
for f in /usr/sbin/ccautoscale /usr/sbin/ccautoscale-resume /usr/sbin/ccautoscale-suspend \
    /usr/sbin/ccautoscale-resume-fail /usr/bin/ccsim /lib/systemd/system/ccautoscale-sync.service \
    /lib/systemd/system/ccautoscale-sync.timer /usr/share/bash-completion/completions/ccautoscale \
    /usr/share/doc/ccautoscale/examples/autoscale.json.example /usr/share/ccsim/clusters/demo.json \
    /usr/share/man/man5/ccautoscale.json.5.gz /usr/share/man/man1/ccsim.1.gz \
    /usr/share/ccautoscale/pbs/ccautoscale_hook.py /usr/share/ccautoscale/pbs/ccautoscale_hook.json; do
    [ -e "$f" ] || fail "$f is not installed"
done
pages=$(dpkg -L ccautoscale | grep -c '/man8/.*\.8\.gz$')
[ "$pages" -ge 27 ] || fail "only $pages section 8 man pages installed"
zcat /usr/share/man/man8/ccautoscale-create.8.gz | grep -q 'wait\[=SECONDS' || fail "ccautoscale-create(8) lacks --wait"
grep -q 'ExecStart=/usr/sbin/ccautoscale slurm sync' /lib/systemd/system/ccautoscale-sync.service ||
    fail "the sync service does not run /usr/sbin/ccautoscale"
[ ! -e /etc/systemd/system/timers.target.wants/ccautoscale-sync.timer ] || fail "the sync timer was enabled on install"

check "the installed programs run"
/usr/sbin/ccautoscale --version | grep -q "^ccautoscale 0\.1\.0" || fail "ccautoscale --version"
/usr/sbin/ccautoscale-resume --help | grep -q "ResumeProgram" || fail "ccautoscale-resume --help"
/usr/sbin/ccautoscale-suspend --help >/dev/null || fail "ccautoscale-suspend --help"

check "initconfig, buckets, create --wait and terminate --wait against the installed ccsim"
printf 'smoke\n' >"$tmp/password"
chmod 600 "$tmp/password"
printf 'admin:smoke\n' >"$tmp/auth"
chmod 600 "$tmp/auth"
/usr/bin/ccsim --cluster /usr/share/ccsim/clusters/demo.json --name demo --port-file "$tmp/port" \
    --auth-file "$tmp/auth" --boot-delay 0.3 --state-dir "$tmp" >"$tmp/ccsim.log" 2>&1 &
ccsim_pid=$!
i=0
while [ ! -s "$tmp/port" ]; do
    i=$((i + 1))
    [ "$i" -lt 50 ] || fail "ccsim did not start: $(cat "$tmp/ccsim.log")"
    sleep 0.1
done
cfg=$tmp/autoscale.json
/usr/sbin/ccautoscale initconfig --url "http://127.0.0.1:$(cat "$tmp/port")" --username admin --cluster demo \
    --password-file "$tmp/password" -o "$cfg" >/dev/null || fail "initconfig"
[ "$(stat -c %a "$cfg")" = 600 ] || fail "initconfig wrote mode $(stat -c %a "$cfg")"
# state, lock and log in the scratch directory: nothing left on the machine
jq --arg d "$tmp" '.state_dir = $d + "/state" | .lock_file = $d + "/lock" | .logging = {file: ($d + "/log"), syslog: false}' \
    "$cfg" >"$cfg.new" && chmod 600 "$cfg.new" && mv "$cfg.new" "$cfg"
/usr/sbin/ccautoscale -c "$cfg" config check >/dev/null 2>&1 || fail "config check"
/usr/sbin/ccautoscale -c "$cfg" buckets | grep -q "Standard_HB120rs_v3" || fail "buckets"
/usr/sbin/ccautoscale -c "$cfg" create --nodearray htc --count 2 --wait=30 >"$tmp/create.out" ||
    fail "create --wait: $(cat "$tmp/create.out")"
tail -1 "$tmp/create.out" | grep -q "2 nodes: Ready 2" || fail "create --wait did not end Ready: $(cat "$tmp/create.out")"
/usr/sbin/ccautoscale -c "$cfg" nodes --json >"$tmp/nodes.json" || fail "nodes --json"
names=$(jq -r '.[] | select(.Template == "htc") | .Name' "$tmp/nodes.json")
[ "$(echo "$names" | wc -w)" = 2 ] || fail "expected 2 htc nodes, got: $names"
# shellcheck disable=SC2046
/usr/sbin/ccautoscale -c "$cfg" terminate $(printf -- '--name %s ' $names) --wait=30 >"$tmp/term.out" ||
    fail "terminate --wait: $(cat "$tmp/term.out")"
tail -1 "$tmp/term.out" | grep -q "2 nodes: removed 2" || fail "terminate --wait: $(cat "$tmp/term.out")"
/usr/sbin/ccautoscale -c "$cfg" slurm conf | grep -q "^NodeName=hpc-\[1-16\] Feature=cloud,[^ ]* State=CLOUD" || fail "slurm conf"
/usr/sbin/ccautoscale -c "$cfg" pbs install-hook --dry-run |
    grep -q "import hook ccautoscale application/x-python default /usr/share/ccautoscale/pbs/ccautoscale_hook.py" ||
    fail "pbs install-hook --dry-run does not import the installed hook"

check "purge removes everything"
$sudo dpkg --purge ccautoscale ccsim >/dev/null
[ ! -e /usr/sbin/ccautoscale ] && [ ! -e /usr/bin/ccsim ] || fail "purge left programs behind"
echo "package smoke test: ok ($(ls "$out"/*.deb | xargs -n1 basename | tr '\n' ' '))"
