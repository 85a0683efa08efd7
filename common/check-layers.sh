#!/bin/sh
# SPDX-License-Identifier: MIT
# check-layers.sh: the core's layers only include downwards, and the core
# knows no scheduler and runs no program.
#
# common/ is five libraries, lowest first: util, ccapi, conf, model, engine
# (HACKING.md says what each holds).  A file in one may include its own
# layer's headers and those of layers below it, never one above; and nothing
# under common/ includes a Slurm or PBS header or calls exec*, posix_spawn,
# popen or system.  Prints each violation as FILE:LINE: what; exits 1 if any.
set -u
top=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
layers="util ccapi conf model engine"
rank () {
    i=0
    for l in $layers; do
        [ "$l" = "$1" ] && { echo $i; return; }
        i=$((i + 1))
    done
    echo 99
}
bad=0
for layer in $layers; do
    mine=$(rank "$layer")
    for f in "$top/common/$layer"/*.[ch] "$top/common/$layer"/test/*.[ch]; do
        [ -f "$f" ] || continue
        rel=${f#"$top"/}
        # shellcheck disable=SC2016
        out=$(grep -n '^#include "[a-z]*/' "$f" | sed 's|^\([0-9]*\):#include "\([a-z]*\)/.*|\1 \2|') || true
        echo "$out" | while read -r line dir; do
            [ -n "$line" ] || continue
            r=$(rank "$dir")
            if [ "$r" -gt "$mine" ]; then
                echo "$rel:$line: $layer includes $dir, a layer above it"
            fi
        done
        grep -nE '#include *[<"](slurm|pbs)[/_]' "$f" | sed "s|^|$rel:|;s|\$| (a scheduler header in the core)|"
        grep -nE '\b(exec[lv]p?e?|posix_spawnp?|popen|system) *\(' "$f" | grep -v '^[0-9]*: *\*\|/\*' |
            sed "s|^|$rel:|;s|\$| (the core runs no program)|"
    done
done >"${TMPDIR:-/tmp}/check-layers.$$"
if [ -s "${TMPDIR:-/tmp}/check-layers.$$" ]; then
    cat "${TMPDIR:-/tmp}/check-layers.$$"
    bad=1
fi
rm -f "${TMPDIR:-/tmp}/check-layers.$$"
[ "$bad" = 0 ] && echo "ok: common/ includes only downwards (util < ccapi < conf < model < engine); no scheduler header, no exec"
exit $bad
