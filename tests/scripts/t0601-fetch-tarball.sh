#!/bin/bash
# SPDX-License-Identifier: MIT
# t0601-fetch-tarball.sh: the Slurm and OpenPBS build scripts on a machine
# without ../shared/vendor beside the checkout.  Offline (a curl that cannot
# resolve any host, and the real curl in a network namespace of its own)
# they say what to download and where to put it, and exit 2, building
# nothing.  With a curl stand-in that serves local files they accept the
# pinned tarball — in upstream's compression and with another top directory
# name — and refuse one that differs, keeping nothing of it.  The served
# tarballs are the vendored ones (skipped when they are not here).
. "$(dirname "$0")/../lib/tap.sh"

vendor=${CCAS_VENDOR_DIR:-$(cd "$top_srcdir/.." && pwd -P)/shared/vendor}
CO=$TEST_TMP/co               # a checkout with no ../shared/vendor beside it
export CCAS_DEPS_DIR=$TEST_TMP/deps
unset CCAS_SLURM_TARBALL CCAS_OPENPBS_TARBALL CCAS_VENDOR_DIR

# curl as the scripts run it (curl -fsSL ... -o FILE URL): every URL asked
# for goes to curl.log; with CURL_SERVE set it "downloads" that file, else
# it fails as curl does without network.
standin_curl () {
    mkdir -p "$TEST_TMP/bin" && cat >"$TEST_TMP/bin/curl" <<'SH' && chmod 755 "$TEST_TMP/bin/curl"
#!/bin/sh
out=""
while [ $# -gt 1 ]; do
    [ "$1" = -o ] && { out=$2; shift; }
    shift
done
echo "$1" >>"$TEST_TMP/curl.log"
if [ -z "${CURL_SERVE:-}" ]; then
    echo "curl: (6) Could not resolve host: ${1#*://}" >&2
    exit 6
fi
cp "$CURL_SERVE" "$out"
SH
}

test_expect_success 'a checkout with no vendored tarballs beside it' '
    mkdir -p "$CO/scripts" &&
    cp "$top_srcdir/scripts/slurm-src.sh" "$top_srcdir/scripts/fetch-tarball.sh" \
        "$top_srcdir/scripts/openpbs-src.sh" "$CO/scripts/" &&
    test ! -e "$TEST_TMP/shared" && standin_curl
'

test_expect_success 'slurm-src.sh offline: exit 2, what to download and where to put it, nothing built' '
    test_expect_code 2 env PATH="$TEST_TMP/bin:$PATH" "$CO/scripts/slurm-src.sh" build 24.05 >out 2>err &&
    cat err &&
    test_equal "$(cat curl.log)" "https://download.schedmd.com/slurm/slurm-24.05.8.tar.bz2" "URL asked for" &&
    test_grep "cannot download https://download.schedmd.com/slurm/slurm-24.05.8.tar.bz2 (curl: (6) Could not resolve host" err &&
    test_grep "download that file elsewhere and put it at" err &&
    test_grep "^fetch-tarball.sh:   $CCAS_DEPS_DIR/src/slurm-24.05.8.tar.bz2\$" err &&
    test_grep "or set CCAS_SLURM_TARBALL" err &&
    test_equal "$(ls "$CCAS_DEPS_DIR/src")" "" "files left in the cache" &&
    test_equal "$(ls "$CCAS_DEPS_DIR" | grep -v "^src\$")" "" "prefixes made"
'

test_expect_success 'slurm-src.sh with no argument offline: the newest known release is the one to download' '
    rm -f curl.log &&
    test_expect_code 2 env PATH="$TEST_TMP/bin:$PATH" "$CO/scripts/slurm-src.sh" prefix 2>err &&
    test_equal "$(cat curl.log)" "https://download.schedmd.com/slurm/slurm-25.11.7.tar.bz2" "URL asked for" &&
    test_expect_code 2 "$CO/scripts/slurm-src.sh" status 25.11 2>err && test_grep "not downloaded yet" err
'

test_expect_success 'openpbs-src.sh offline: exit 2, the pinned GitHub archive and where to put it' '
    rm -f curl.log &&
    test_expect_code 2 env PATH="$TEST_TMP/bin:$PATH" "$CO/scripts/openpbs-src.sh" build 2>err &&
    cat err &&
    test_equal "$(cat curl.log)" \
        "https://github.com/openpbs/openpbs/archive/cd7ab5edaf03dcac2f1cb9e2f42d75eb117d468a.tar.gz" "URL asked for" &&
    test_grep "^fetch-tarball.sh:   $CCAS_DEPS_DIR/src/openpbs-cd7ab5eda.tar.gz\$" err &&
    test_equal "$(ls "$CCAS_DEPS_DIR" | grep -v "^src\$")" "" "prefixes made"
'

if unshare -n true 2>/dev/null; then
    test_expect_success 'with the real curl in a network namespace of its own: exit 2, the same advice' '
        test_expect_code 2 unshare -n "$CO/scripts/slurm-src.sh" fetch 23.11 2>err &&
        test_grep "cannot download https://download.schedmd.com/slurm/slurm-23.11.11.tar.bz2" err &&
        test_grep "^fetch-tarball.sh:   $CCAS_DEPS_DIR/src/slurm-23.11.11.tar.bz2\$" err &&
        test_expect_code 2 unshare -n "$CO/scripts/openpbs-src.sh" prefix 2>err &&
        test_grep "cannot download https://github.com/openpbs/openpbs/archive/" err
    '
else
    test_skip 'with the real curl in a network namespace of its own' 'no network namespaces here'
fi

if [ -f "$vendor/openpbs-cd7ab5eda.tar.xz" ] && [ -f "$vendor/slurm-25.11.7.tar.xz" ] &&
    [ -f "$vendor/slurm-23.02.7.tar.xz" ]; then
    have_vendor=1
else
    have_vendor=0
fi

# served ARTIFACT COMMAND...: COMMAND with curl serving ARTIFACT
served () {
    local artifact=$1
    shift
    rm -f "$TEST_TMP/curl.log"
    env PATH="$TEST_TMP/bin:$PATH" CURL_SERVE="$artifact" "$@"
}

if [ "$have_vendor" = 1 ]; then
    test_expect_success 'OpenPBS: a different archive is refused; nothing of it is kept' '
        mkdir -p x/openpbs-cd7ab5eda && xz -dc "$vendor/openpbs-cd7ab5eda.tar.xz" | tar -xf - -C x &&
        echo "# changed" >>x/openpbs-cd7ab5eda/README.md &&
        tar -czf wrong.tar.gz -C x openpbs-cd7ab5eda &&
        test_expect_code 1 served wrong.tar.gz "$CO/scripts/fetch-tarball.sh" openpbs >out 2>err &&
        cat err && test_grep "not the pinned openpbs-cd7ab5eda" err && test_grep "removed it" err &&
        test_equal "$(ls "$CCAS_DEPS_DIR/src")" "" "files left in the cache"
    '

    test_expect_success 'OpenPBS: the pinned files with GitHub'"'"'s top directory (another tar) are accepted, then used offline' '
        git_top=openpbs-cd7ab5edaf03dcac2f1cb9e2f42d75eb117d468a &&
        rm -rf x && mkdir x && xz -dc "$vendor/openpbs-cd7ab5eda.tar.xz" | tar -xf - -C x &&
        mv x/openpbs-cd7ab5eda "x/$git_top" && tar -czf github.tar.gz -C x "$git_top" &&
        served github.tar.gz "$CO/scripts/fetch-tarball.sh" openpbs >out 2>err &&
        cat err && test_grep "the pinned files in another tar" err &&
        test_equal "$(cat out)" "$CCAS_DEPS_DIR/src/openpbs-cd7ab5eda.tar.xz" "path printed" &&
        test_equal "$(xz -dc "$(cat out)" | tar -tf - | head -1)" "$git_top/" "top directory kept" &&
        rm -f curl.log && "$CO/scripts/openpbs-src.sh" prefix >prefix &&
        test ! -e curl.log && grep -q "^$CCAS_DEPS_DIR/openpbs-" prefix &&
        rm -rf "$CCAS_DEPS_DIR/src"/*
    '

    test_expect_success 'OpenPBS: the pinned tar itself, gzip-compressed as GitHub serves it, is accepted' '
        xz -dc "$vendor/openpbs-cd7ab5eda.tar.xz" | gzip -1 >same.tar.gz &&
        served same.tar.gz "$CO/scripts/openpbs-src.sh" prefix >prefix 2>err &&
        cat err && test_grep "its tar is the pinned one" err &&
        test -s curl.log && grep -q "^$CCAS_DEPS_DIR/openpbs-" prefix
    '

    test_expect_success 'Slurm: another release served for 25.11.7 is refused' '
        test_expect_code 1 served "$vendor/slurm-23.02.7.tar.xz" "$CO/scripts/slurm-src.sh" fetch 25.11.7 >out 2>err &&
        cat err && test_grep "not the pinned slurm-25.11.7" err &&
        test_equal "$(ls "$CCAS_DEPS_DIR/src" | grep slurm)" "" "Slurm files left in the cache"
    '

    test_expect_success 'Slurm: the pinned 25.11.7 is accepted, then used offline' '
        served "$vendor/slurm-25.11.7.tar.xz" "$CO/scripts/slurm-src.sh" fetch 25.11 >out 2>err &&
        cat err && test_grep "its tar is the pinned one" err &&
        test_equal "$(cat out)" "$CCAS_DEPS_DIR/src/slurm-25.11.7.tar.xz" "path printed" &&
        rm -f curl.log && "$CO/scripts/slurm-src.sh" prefix 25.11 >prefix && test ! -e curl.log &&
        case $(cat prefix) in "$CCAS_DEPS_DIR"/slurm-25.11.7-*) ;; *) false ;; esac &&
        "$CO/scripts/slurm-src.sh" list >list && test_grep "^25.11.7 *downloaded" list
    '
else
    test_skip 'downloads checked against the pins' "no vendored tarballs in $vendor to serve"
fi

test_done
