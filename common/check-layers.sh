#!/bin/sh
# SPDX-License-Identifier: MIT
# check-layers.sh: every C file includes only downwards, the core knows no
# scheduler, and one file runs programs.  Run by `make check` in common/
# (common/test-check-layers.sh checks that it catches each kind below).
#
# The layers, lowest first (HACKING.md says what each holds):
#
#   util < ccapi < conf < model < engine < {slurm_power, pbs_hook} < plugin
#
# The first five are common/'s libraries, the core; slurm_power/ and
# pbs_hook/ are the two schedulers' adapters, peers that never include each
# other; plugin/ is the command on top.  Scanned: every .c and .h under
# common/ (but common/noscheduler/, the poisoned headers of
# check-noscheduler.sh), slurm_power/, pbs_hook/ and plugin/, their test/
# folders included.  Not scanned: tests/ (ccsim is a product of its own that
# links the core; bench and fuzz drive it from outside).
#
# What is a violation (each printed as FILE:LINE: what; exit 1 if any):
#  1. An include of a layer above, or of the other adapter.  A quoted include
#     names its layer, `#include "engine/plan.h"`; in the adapters and
#     plugin/ a bare `#include "x.h"` is looked up as the compiler does: the
#     file's own folder, then its layer's folder (for test/), then the other
#     adapters' folders and plugin/ (which a wrong -I would reach).
#  2. A bare `#include "x.h"` in common/.  Allowed bare there: "config.h"
#     (configure's), and, in a test/ folder only, a header of that same
#     folder (its tests' private fixtures, like engine/test/request_fixture.h).
#     A test/ folder may also include the suites' helpers by their path from
#     the top, "tests/ccsim/sim_process.h".  Anything else names its layer,
#     so a reader knows where a header lives from the include alone.
#  3. A Slurm header (<slurm/...>) anywhere but slurm_power/ and plugin/; a
#     PBS header (<pbs_*.h>, <tm.h>, <tm_.h>, <rm.h>) anywhere but pbs_hook/
#     and plugin/.  (That a Slurm header cannot even compile in the core is
#     check-noscheduler.sh's part.)
#  4. A call that runs a program, exec*(), fexecve(), posix_spawn(p)(),
#     popen(), system(), fork(), vfork() or clone(), anywhere but the one
#     runner, pbs_hook/run.c (plugin/ may use it; slurm_power/ runs nothing:
#     slurmctld runs it).  test/ folders are exempt: their tests fork to
#     crash on purpose.
#  5. A folder under common/ that is not one of the five layers.
# Comments and string literals never count.
set -u
top=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
runner=pbs_hook/run.c
core="util ccapi conf model engine"

# a layer's height; peers share one, so neither is below the other
rank () {
    case $1 in
    util) echo 0 ;;
    ccapi) echo 1 ;;
    conf) echo 2 ;;
    model) echo 3 ;;
    engine) echo 4 ;;
    slurm_power | pbs_hook) echo 5 ;;
    plugin) echo 6 ;;
    *) echo "" ;;
    esac
}

# FILE with comments blanked, and string and character literals too except
# on preprocessor lines (whose "x.h" is what we read); one line out per line in
strip () {
    awk '{
        out = ""; n = length ($0); i = 1
        keep = !incomment && $0 ~ /^[ \t]*#/
        while (i <= n) {
            c = substr ($0, i, 1); two = substr ($0, i, 2)
            if (incomment) {
                if (two == "*/") { incomment = 0; i += 2 } else i++
                continue
            }
            if (quote != "") {
                if (c == "\\") { i += 2; continue }
                if (c == quote) { out = out c; quote = "" } else if (keep) out = out c
                i++
                continue
            }
            if (two == "/*") { incomment = 1; out = out " "; i += 2; continue }
            if (two == "//") break
            if (c == "\"" || c == "\047") quote = c
            out = out c
            i++
        }
        quote = ""
        print out
    }' "$1"
}

# the layer of a file (a path from the top), or "" for none
layer_of () {
    case $1 in
    common/*)
        l=${1#common/}
        l=${l%%/*}
        [ -n "$(rank "$l")" ] && [ "$(rank "$l")" -le 4 ] && echo "$l"
        ;;
    slurm_power/* | pbs_hook/* | plugin/*) echo "${1%%/*}" ;;
    esac
}

# where a bare "x.h" from file $1 (of layer $2) resolves: the layer, "" if nowhere
resolve_bare () {
    d=$(dirname "$1")
    if [ -f "$top/$d/$3" ] || [ -f "$top/$2/$3" ]; then
        echo "$2"
        return
    fi
    for l in slurm_power pbs_hook plugin; do
        [ -f "$top/$l/$3" ] && { echo "$l"; return; }
    done
}

# check one include of file $1 (layer $2) at line $3: delimiter $4, name $5
check_include () {
    f=$1 me=$2 line=$3 delim=$4 name=$5
    case $delim$name in
    '<slurm/'* | '"slurm/'*)
        case $me in slurm_power | plugin) ;; *) echo "$f:$line: <$name> in $me: Slurm headers belong in slurm_power/ (and plugin/)" ;; esac
        return
        ;;
    '<pbs_'*.h | '<tm.h' | '<tm_.h' | '<rm.h')
        case $me in pbs_hook | plugin) ;; *) echo "$f:$line: <$name> in $me: PBS headers belong in pbs_hook/ (and plugin/)" ;; esac
        return
        ;;
    '<'*) return ;;
    '"config.h') return ;;
    '"tests/'*)
        case $f in */test/*) [ -f "$top/$name" ] && return ;; esac
        echo "$f:$line: \"$name\": only a test/ folder includes the suites' helpers"
        return
        ;;
    '"'*/*)
        to=${name%%/*}
        if [ -z "$(rank "$to")" ]; then
            echo "$f:$line: \"$name\": '$to' is no layer ($core slurm_power pbs_hook plugin)"
            return
        fi
        ;;
    *)
        case $me in
        util | ccapi | conf | model | engine)
            case $f in */test/*) [ -f "$top/$(dirname "$f")/$name" ] && return ;; esac
            echo "$f:$line: bare \"$name\" in the core: name its layer (\"$me/$name\" if it is $me's)"
            return
            ;;
        esac
        to=$(resolve_bare "$f" "$me" "$name")
        if [ -z "$to" ]; then
            echo "$f:$line: \"$name\" is in neither $me/ nor a layer $me may include (core headers name their layer)"
            return
        fi
        ;;
    esac
    [ "$to" = "$me" ] && return
    if [ "$(rank "$to")" = "$(rank "$me")" ]; then
        echo "$f:$line: $me includes \"$name\" of $to: slurm_power/ and pbs_hook/ never include each other"
    elif [ "$(rank "$to")" -gt "$(rank "$me")" ]; then
        echo "$f:$line: $me includes \"$name\" of $to, a layer above it"
    fi
}

check_file () {
    f=$1
    me=$(layer_of "$f")
    if [ -z "$me" ]; then
        echo "$f: $(dirname "$f") is not a layer of the core ($core)"
        return
    fi
    strip "$top/$f" >"$work/stripped"
    sed -n 's/^[[:blank:]]*#[[:blank:]]*include[[:blank:]]*\([<"]\)\([^>"]*\)[>"].*/\1 \2/p;t;s/.*//p' "$work/stripped" |
        awk 'NF { print NR, $1, $2 }' | while read -r line delim name; do
        check_include "$f" "$me" "$line" "$delim" "$name"
    done
    case $f in */test/* | "$runner") return ;; esac
    grep -nE '(^|[^A-Za-z0-9_.>])(exec[lv]p?e?|execvpe|fexecve|posix_spawnp?|popen|system|fork|vfork|clone)[[:space:]]*\(' \
        "$work/stripped" | while IFS=: read -r line text; do
        call=$(echo "$text" | grep -oE '(exec[lv]p?e?|execvpe|fexecve|posix_spawnp?|popen|system|fork|vfork|clone)[[:space:]]*\(' |
            head -n 1 | tr -d ' (')
        echo "$f:$line: $call(): only the runner, $runner, runs a program"
    done
}

work=$(mktemp -d "${TMPDIR:-/tmp}/check-layers.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
(cd "$top" && find common slurm_power pbs_hook plugin -path common/noscheduler -prune -o -name '*.[ch]' -print 2>/dev/null) |
    LC_ALL=C sort >"$work/files"
[ -s "$work/files" ] || { echo "check-layers.sh: no C files under $top"; exit 1; }
while read -r f; do
    check_file "$f"
done <"$work/files" >"$work/out"
if [ -s "$work/out" ]; then
    cat "$work/out"
    echo "check-layers.sh: $(wc -l <"$work/out") violations in $(wc -l <"$work/files") files (the rules are at the top of common/check-layers.sh)"
    exit 1
fi
echo "ok: $(wc -l <"$work/files") files include only downwards (util < ccapi < conf < model < engine < {slurm_power, pbs_hook} < plugin), no scheduler header outside its adapter, no program run outside $runner"
