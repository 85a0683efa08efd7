#!/bin/bash
# SPDX-License-Identifier: MIT
# t0504-rpm.sh: the RPM spec, as a structural check with Debian's rpm tools
# (no EL build runs here): rpmbuild -ts makes the source RPM from the release
# tarball; rpmbuild -tb makes the binary packages, ccautoscale and ccsim, with
# --nodeps (its BuildRequires are EL's package names, not Debian's), with and
# without Slurm, and %check runs the unit tests.  What lands in the packages is
# what `make install` installs; the release names the Slurm built against, and
# rpm finds the libslurm dependency itself.
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/cyclecloud.sh"
cc_prereqs
command -v rpmbuild >/dev/null || test_skip_all "no rpmbuild (apt-get install rpm; scripts/deps.sh test)"
[ -f "$top_builddir/rpm/ccautoscale.spec" ] || test_skip_all "no rpm/ccautoscale.spec (configure makes it)"
SLURM_H=/usr/include/slurm/slurm_version.h
[ -f "$SLURM_H" ] || test_skip_all "no Slurm headers ($SLURM_H)"
n=$(awk '$2 == "SLURM_VERSION_NUMBER" { print $3 }' "$SLURM_H")
SLURM_V=$(printf '%d.%02d.%d' $((n >> 16 & 255)) $((n >> 8 & 255)) $((n & 255)))

TARBALL=$CC_BLOBS/ccautoscale-$CC_VERSION.tar.gz
# rpmbuild as on a build host: none of this make's variables (its TESTS would
# reach the package's own make check through MAKEFLAGS), none of this suite's
rpmbuild_here () {
    env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES -u top_builddir -u top_srcdir -u CC_BLOBS \
        rpmbuild --define "_topdir $TEST_TMP/rpmbuild" --define "_tmppath $TEST_TMP/tmp" "$@"
}

test_expect_success 'setup: the release tarball carries the spec configure made, with its version' '
    cc_blobs && mkdir -p tmp &&
    tar -tzf "$TARBALL" >list && test_grep "^ccautoscale-$CC_VERSION/rpm/ccautoscale.spec$" list &&
    tar -xzOf "$TARBALL" "ccautoscale-$CC_VERSION/rpm/ccautoscale.spec" >spec &&
    test_grep "^Version: *$CC_VERSION$" spec && test_no_grep "@PACKAGE_VERSION@" spec
'

test_expect_success 'rpmbuild -ts: a source RPM, with the BuildRequires an EL build needs' '
    rpmbuild_here -ts "$TARBALL" >ts.out 2>&1 || { cat ts.out; return 1; }
    srpm=$(ls rpmbuild/SRPMS/ccautoscale-$CC_VERSION-1.*src.rpm) &&
    rpm -qp --requires "$srpm" >requires &&
    for r in slurm-devel json-c-devel libcurl-devel libmicrohttpd-devel libcmocka-devel; do
        test_grep "^$r" requires || return 1
    done
'

test_expect_success 'rpmbuild -tb --nodeps: ccautoscale and ccsim, built against this Slurm, the unit tests passing' '
    rpmbuild_here -tb --nodeps "$TARBALL" >tb.out 2>&1 || { tail -40 tb.out; return 1; }
    grep -E "^(PASS|FAIL|# (TOTAL|PASS|FAIL))" tb.out | tail -5 &&
    test_grep "^# FAIL: *0$" tb.out &&
    main=$(ls rpmbuild/RPMS/*/ccautoscale-$CC_VERSION-1.slurm$SLURM_V*.rpm) &&
    sim=$(ls rpmbuild/RPMS/*/ccsim-$CC_VERSION-1.slurm$SLURM_V*.rpm) &&
    rpm -qpl "$main" >main.files && rpm -qpl "$sim" >sim.files &&
    for f in /usr/sbin/ccautoscale /usr/sbin/ccautoscale-resume /usr/sbin/ccautoscale-suspend \
        /usr/sbin/ccautoscale-resume-fail /usr/lib/systemd/system/ccautoscale-sync.timer \
        /usr/lib/tmpfiles.d/ccautoscale.conf /usr/share/ccautoscale/pbs/ccautoscale_hook.py \
        /usr/share/bash-completion/completions/ccautoscale; do
        test_grep "^$f$" main.files || return 1
    done &&
    # (compressed where rpmbuild compresses man pages: EL, not Debian)
    test_grep "^/usr/share/man/man8/ccautoscale-resume\.8\(\.gz\)\?$" main.files &&
    test_grep "^/usr/bin/ccsim$" sim.files && test_no_grep ccsim main.files &&
    rpm -qp --requires "$main" >main.requires && test_grep "^libslurm\.so\.[0-9]*()" main.requires &&
    rpm2archive - <"$main" | (mkdir -p x && cd x && tar -xzf -) &&
    x/usr/sbin/ccautoscale --version | test_grep "^Slurm: built against libslurm $SLURM_V" -
'

test_expect_success 'rpmbuild -tb --without slurm (a PBS server): no Slurm programs, no libslurm' '
    rm -rf rpmbuild/RPMS &&
    rpmbuild_here -tb --nodeps --nocheck --without slurm "$TARBALL" >tb2.out 2>&1 || { tail -40 tb2.out; return 1; }
    main=$(ls rpmbuild/RPMS/*/ccautoscale-$CC_VERSION-1*.rpm) &&
    case $main in *slurm*) echo "a Slurm release: $main"; return 1 ;; esac &&
    rpm -qpl "$main" >files && test_grep "^/usr/sbin/ccautoscale$" files &&
    test_no_grep ccautoscale-resume files && test_no_grep tmpfiles files &&
    rpm -qp --requires "$main" | test_no_grep libslurm -
'

test_expect_success 'cyclecloud-project.sh names the binary RPM as the scheduler spec looks for it' '
    main=$(ls rpmbuild/RPMS/*/ccautoscale-$CC_VERSION-1*.rpm) &&
    sh "$top_srcdir/scripts/cyclecloud-project.sh" -o project -t "$TARBALL" --os el8 "$main" >out &&
    test_grep "^Files = ccautoscale-$CC_VERSION.tar.gz, ccautoscale-$CC_VERSION-el8-noslurm-x86_64.rpm$" project/project.ini
'

test_done
