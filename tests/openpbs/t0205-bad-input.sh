#!/bin/bash
# SPDX-License-Identifier: MIT
# t0205-bad-input.sh: bad input on a real OpenPBS — a PBS command that hangs,
# exits non-zero, or prints something that is not JSON; qmgr failing in the
# middle of creates; a vnode and a job ccautoscale did not make; the hook's
# config missing or unreadable.  Each time: a clear message in ccautoscale's
# log and, through the hook, in PBS's server log; no partial vnode; and the
# next pass recovers.  The PBS commands run through wrappers that misbehave
# when a test says so ($TEST_TMP/bad/MODE-COMMAND).
. "$(dirname "$0")/../lib/tap.sh"
. "$(dirname "$0")/../lib/ccsim.sh"
# a VM's stock setup waits 30 s for its vnode: passes here fail on purpose first
STOCK_SETUP_DELAY=3
. "$(dirname "$0")/../lib/openpbs.sh"
openpbs_prereqs

BAD=$TEST_TMP/bad

vm_preparing () {  # booting, its hostname and address reported: its setup runs
    ccsim_get /ccsim/state | jq -e --arg n "$1" '.nodes[] | select(.Name == $n) | .Status == "Preparing"' >/dev/null
}

# $TEST_TMP/pbsbin/CMD: the real command, unless $BAD/hang-CMD (sleeps),
# $BAD/fail-CMD (exits 1, as PBS does when it cannot reach the server) or
# $BAD/garbage-CMD (prints what is not JSON) exists
wrappers () {
    mkdir -p "$BAD" "$TEST_TMP/pbsbin" && chmod 755 "$BAD" &&
    for c in qstat pbsnodes qmgr qalter; do
        cat >"$TEST_TMP/pbsbin/$c" <<EOF
#!/bin/sh
[ ! -e "$BAD/hang-$c" ] || exec sleep 3600
if [ -e "$BAD/fail-$c" ]; then echo "$c: cannot connect to server vm (errno=111)" >&2; exit 1; fi
if [ -e "$BAD/garbage-$c" ]; then echo "<html><body>pbs is having a bad day</body></html>"; exit 0; fi
exec "$OPENPBS_PREFIX/bin/$c" "\$@"
EOF
        chmod 755 "$TEST_TMP/pbsbin/$c" || return 1
    done
}

bad () {  # bad MODE COMMAND: make it misbehave; bad MODE COMMAND off: stop
    if [ "${3:-}" = off ]; then rm -f "$BAD/$1-$2"; else touch "$BAD/$1-$2"; fi
}

# command_timeout is a minute, as the real PBS commands may take seconds on
# a busy machine; 10 s only for the pass whose qstat hangs
test_expect_success 'setup: OpenPBS, ccsim, the PBS commands through wrappers, install-hook' '
    wrappers &&
    openpbs_start ".pbs.bin_dir = \"$TEST_TMP/pbsbin\" | .pbs.command_timeout = 60" && install_hook && hook_enable false
'

test_expect_success 'qstat hangs: killed at command_timeout; the pass changes nothing and says why; the next recovers' '
    id=$(qsub_as -l select=1:ncpus=1 -- /bin/sleep 1) &&
    ccsim_config_update "$CCAS_CONF" ".pbs.command_timeout = 10" &&
    bad hang qstat && test_expect_code 5 pbs_pass &&
    grep "qstat: no answer within 10 s (killed); nothing changed" pass.err &&
    ccsim_config_update "$CCAS_CONF" ".pbs.command_timeout = 60" &&
    test_equal "$(ccsim_requests POST | wc -l)" 0 "changing requests" &&
    bad hang qstat off && pbs_pass && test_equal "$(ccsim_made | wc -l)" 1 "VMs made by the next pass"
'

test_expect_success 'pbsnodes exits non-zero, qstat prints what is not JSON: the pass stops before any change, saying which and why' '
    ccsim_delete /ccsim/requests >/dev/null &&
    bad fail pbsnodes && test_expect_code 5 pbs_pass &&
    grep "pbsnodes: exit 1: pbsnodes: cannot connect to server vm (errno=111); nothing changed" pass.err &&
    bad fail pbsnodes off && bad garbage qstat && test_expect_code 5 pbs_pass &&
    grep "qstat -Q: no JSON object in the output (50 bytes); nothing changed" pass.err &&
    test_equal "$(ccsim_requests POST | wc -l)" 0 "changing requests" &&
    bad garbage qstat off
'

test_expect_success 'qmgr fails while creating a booting VM'"'"'s vnode: none is made; the next pass makes it whole' '
    wait_for 120 vm_preparing execute-1 &&
    bad fail qmgr && test_expect_code 5 pbs_pass &&
    grep "execute-1: joined failed: qmgr: exit 1: qmgr: cannot connect to server" "$TEST_TMP/ccautoscale.log" &&
    test_equal "$(our_nodes)" "" "PBS nodes after the failed create" &&
    bad fail qmgr off && pbs_pass &&
    pbs_nodes_json | jq -e ".nodes[\"execute-1\"] | (.comment | test(\"^cyclecloud (joined|offline)$\")) and .resources_available.ccnodeid != null" &&
    passes_until 300 jobs_done "$id" && test_equal "$(job_exit "$id")" 0 "exit status"
'

# the job runs until the test lets it end (a file it waits for)
test_expect_success 'a vnode and a job ccautoscale did not make are left alone' '
    printf "10.254.255.253\tstatic-9\n" >>"/etc/netns/$CCAS_PBS_NS/hosts" &&
    in_pbs qmgr -c "create node static-9" &&
    in_pbs qmgr -c "set node vm state -= offline" &&
    own=$(qsub_as -l select=1:ncpus=1:host=vm -- /bin/sh -c "while [ ! -e $OPENPBS_WORK/go-own ]; do sleep 1; done") &&
    pbs_wait 120 job_is "$own" R &&
    pbs_pass && pbs_pass &&
    test_equal "$(jq "[.pbs[][] | select(.node == \"static-9\" or .node == \"vm\")] | length" pass.out)" 0 "actions on them" &&
    pbs_nodes_json | jq -e ".nodes[\"static-9\"] != null" && job_is "$own" R &&
    touch "$OPENPBS_WORK/go-own" &&
    passes_until 120 jobs_done "$own" && in_pbs qmgr -c "set node vm state += offline" && in_pbs qmgr -c "delete node static-9"
'

passes () {  # how many passes ccautoscale's log has seen end
    grep -c "pbs: [0-9]* queued jobs" "$TEST_TMP/ccautoscale.log"
}

more_passes_than () {
    [ "$(passes)" -gt "$1" ]
}

test_expect_success 'through the hook: a failing pass says why in PBS server log and in ccautoscale log; the next recovers' '
    bad fail pbsnodes && hook_enable true &&
    wait_for 120 server_log "ccautoscale: pbs autoscale exited 5: ccautoscale: error: pbsnodes: exit 1: pbsnodes: cannot connect to server vm .*; nothing changed" &&
    grep "error: pbsnodes: exit 1: pbsnodes: cannot connect to server vm (errno=111); nothing changed" "$TEST_TMP/ccautoscale.log" &&
    n=$(passes) && bad fail pbsnodes off &&
    wait_for 120 more_passes_than "$n"
'

test_expect_success 'the hook config unreadable, then missing: the server log says which and what to do; install-hook again recovers' '
    printf "{not json" >"$TEST_TMP/garbage.json" &&
    in_pbs qmgr -c "import hook ccautoscale application/x-config default $TEST_TMP/garbage.json" &&
    wait_for 120 server_log "ccautoscale: cannot read the hook config .*install-hook" &&
    : >"$TEST_TMP/empty.json" &&
    in_pbs qmgr -c "import hook ccautoscale application/x-config default $TEST_TMP/empty.json" &&
    wait_for 120 server_log "ccautoscale: (cannot read the hook config|the hook has no config file)" &&
    n=$(passes) && install_hook &&
    wait_for 120 more_passes_than "$n"
'

test_done
