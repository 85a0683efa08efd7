#!/bin/sh
# SPDX-License-Identifier: MIT
# Every command answers --help with a usage line and exits 0; man pages render.
. "$(dirname "$0")/../lib/tap.sh"
CCAS=$(test_program "$top_builddir/plugin/ccautoscale")

commands () {
    # a name ends where two spaces begin its summary ("serve" and "serve token" both)
    "$CCAS" --help | sed -n '/^Commands:/,/^$/p' | sed '1d;/^$/d' | sed 's/^  //; s/  .*//'
}

test_expect_success 'the top-level help lists commands and exits 0' '
    "$CCAS" --help >out &&
    test_grep "^usage: ccautoscale" out &&
    test_grep "Commands:" out &&
    test $(commands | wc -l) -ge 10
'

for cmd in $(commands | tr " " "+"); do
    c=$(echo "$cmd" | tr "+" " ")
    test_expect_success "'$c --help' prints usage and exits 0" "
        \"\$CCAS\" $c --help >out &&
        test_grep '^usage: ccautoscale $c' out &&
        test_grep 'Options:' out
    "
    test_expect_success "'--man $c' renders a man page" "
        \"\$CCAS\" --man $c >page &&
        test_grep '^.TH ccautoscale-$(echo "$c" | tr " " "-") 8' page &&
        test_grep '^.SH EXIT STATUS' page
    "
done

test_expect_success 'an unknown command is a usage error (1)' '
    test_expect_code=0; "$CCAS" frobnicate 2>err || test_expect_code=$? ;
    test "$test_expect_code" = 1 && test_grep "not a command" err
'

test_expect_success 'an unknown option is a usage error (1) that names it' '
    rc=0; "$CCAS" buckets --frob 2>err || rc=$? ;
    test "$rc" = 1 && test_grep "unknown option" err && test_grep "buckets --help" err
'

test_expect_success 'a group without a subcommand shows its commands' '
    rc=0; "$CCAS" config 2>err || rc=$? ;
    test "$rc" = 1 && test_grep "config check" err
'

test_expect_success '--version prints the version' '
    "$CCAS" --version | grep -q "^ccautoscale [0-9]"
'

complete_words () {
    bash -c '. /usr/share/bash-completion/bash_completion
        . "$1/etc/completion/ccautoscale"
        PATH=$2/plugin:$PATH
        shift 2
        COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
        _ccautoscale; echo "${COMPREPLY[*]}"' _ "$top_srcdir" "$top_builddir" "$@"
}

if [ -f /usr/share/bash-completion/bash_completion ]; then
    test_expect_success 'bash completion completes commands, subcommands and options' '
        test_equal "$(complete_words ccautoscale sl)" "slurm" &&
        test_equal "$(complete_words ccautoscale config "")" "check keys" &&
        test_equal "$(complete_words ccautoscale demand --no-)" "--no-scaledown"
    '
    test_expect_success 'bash completion offers every command --help lists, and each group its subcommands' '
        "$CCAS" --help | sed -n "/^Commands:/,/^\$/s/^  \([a-z][a-z-]*\).*/\1/p" | sort -u | tr "\n" " " >want &&
        test_equal "$(complete_words ccautoscale "" | tr " " "\n" | grep -v "^-" | sort -u | tr "\n" " ")" "$(cat want)" "commands" &&
        test_equal "$(complete_words ccautoscale breaker "")" "list reset" &&
        test_equal "$(complete_words ccautoscale pbs "")" \
            "analyze autoscale demand import-azpbs install-hook join-nodes nodes offline online remove-nodes retry-failed validate" &&
        test_equal "$(complete_words ccautoscale -c x.json slurm "")" \
            "accounting-info conf demand dynamic import-azslurm keep-alive remove-nodes retry-failed sync wait-for-resume"
    '
else
    test_skip 'bash completion completes commands, subcommands and options' 'bash-completion is not installed'
fi

test_done
